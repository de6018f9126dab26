import type { IncomingMessage, ServerOptions } from 'node:http';

/**
 * How long a client may take (docs/adr/0063): its request headers within `headersMs`, then its body
 * at `minBytesPerSecond` or more on average, counted once `headersMs` have passed. A client slower
 * than that is disconnected, so slow or stalled connections cannot hold a listener's sockets.
 */
export interface SlowClientLimits {
  headersMs: number;
  minBytesPerSecond: number;
}

export const SLOW_CLIENT_LIMITS: SlowClientLimits = { headersMs: 10_000, minBytesPerSecond: 1024 };

/**
 * `http.createServer` options for `limits`: headers within `headersMs`, checked every second (Node
 * checks every 30 s by default); no overall request deadline (the body's rate is watched instead,
 * by `watchBodyRate`).
 */
export const slowClientServerOptions = (limits: SlowClientLimits = SLOW_CLIENT_LIMITS): ServerOptions => ({
  headersTimeout: limits.headersMs,
  requestTimeout: 0,
  connectionsCheckingInterval: Math.min(1000, limits.headersMs),
});

/**
 * Watches `req`'s body as it is read: when, `headersMs` after this call, fewer than
 * `minBytesPerSecond` × the elapsed seconds have arrived, the connection is destroyed (the reader sees
 * the request close) and `onSlow` is called. Stops by itself at the body's end or the request's close.
 */
export function watchBodyRate(req: IncomingMessage, limits: SlowClientLimits = SLOW_CLIENT_LIMITS, onSlow: () => void = () => undefined): void {
  const started = Date.now();
  let size = 0;
  const count = (c: Buffer) => void (size += c.length);
  const timer = setInterval(() => {
    const elapsed = Date.now() - started;
    if (elapsed >= limits.headersMs && size < (limits.minBytesPerSecond * elapsed) / 1000) {
      stop();
      onSlow();
      req.socket.destroy();
    }
  }, Math.min(1000, limits.headersMs));
  timer.unref();
  const stop = () => {
    clearInterval(timer);
    req.off('data', count);
  };
  req.on('data', count);
  req.once('end', stop);
  req.once('close', stop);
}
