import pino from 'pino';

export type Logger = pino.Logger;

/** JSON logs on stdout; `requestId` is bound per request with `logger.child({requestId})`. */
export function createLogger(name: string, level: string = 'info'): Logger {
  return pino({ name, level, base: { service: name }, redact: ['req.headers.authorization', '*.secret', '*.apiKey'] });
}
