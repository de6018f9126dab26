import pino from 'pino';

export type Logger = pino.Logger;

/** JSON logs on stdout; `requestId` is bound per request with `logger.child({requestId})`. */
const REDACT = ['req.headers.authorization', '*.secret', '*.apiKey'];

export function createLogger(name: string, level: string = 'info'): Logger {
  return pino({ name, level, base: { service: name }, redact: REDACT });
}

/**
 * The logger of a process that hosts several services (`npm start`'s one process): its own lines say
 * `process`, and each service's child (`logger.child({ service })`) names its service once (a child
 * of `createLogger`'s logger would repeat the `service` key).
 */
export function createHostLogger(name: string, level: string = 'info', destination?: pino.DestinationStream): Logger {
  return pino({ name, level, base: { process: name }, redact: REDACT }, destination);
}
