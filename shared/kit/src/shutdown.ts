import type { Logger } from './logger';

type Closer = { name: string; close: () => Promise<unknown> | unknown };

/**
 * Graceful shutdown on SIGINT/SIGTERM: closes what was registered, in reverse order of start-up
 * (stop taking requests first, then consumers, relay, bus, database), each bounded in time.
 */
export function onShutdown(logger: Logger, closers: Closer[], timeoutMs = 10_000): () => Promise<void> {
  let running: Promise<void> | null = null;
  const shutdown = () => {
    running ??= (async () => {
      for (const c of [...closers].reverse()) {
        try {
          await Promise.race([c.close(), new Promise((_, rej) => setTimeout(() => rej(new Error('timeout')), timeoutMs).unref())]);
        } catch (err) {
          logger.warn({ err, part: c.name }, 'shutdown step failed');
        }
      }
    })();
    return running;
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      logger.info({ signal: sig }, 'shutting down');
      void shutdown().then(() => process.exit(0));
    });
  }
  return shutdown;
}
