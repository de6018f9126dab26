/**
 * Standalone embedded MongoDB-compatible server, e.g. to open a local platform's data with mongosh
 * or MongoDB Compass:
 *
 *   npx tsx shared/mongo-embedded/src/cli.ts --port 27017 --data ./data/mongo
 *
 * Options: --port N (default 27017, 0 = any free port), --host H (default 127.0.0.1),
 * --data DIR (default: in memory only), --ttl-interval-ms N, --transaction-lifetime-limit-seconds N
 * (mongod's transactionLifetimeLimitSeconds: transactions open longer are aborted; default 60), --quiet.
 * Prints the mongodb:// URL on stdout and stops cleanly on SIGINT/SIGTERM.
 */
import { startEmbeddedMongo } from './server';

function parse(argv: string[]): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out[a.slice(2)] = argv[++i];
    else out[a.slice(2)] = true;
  }
  return out;
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  if (args.help) {
    console.log('usage: mongo-embedded [--port 27017] [--host 127.0.0.1] [--data ./data/mongo] [--ttl-interval-ms 60000] [--transaction-lifetime-limit-seconds 60] [--quiet]');
    return;
  }
  const quiet = !!args.quiet;
  const lifetime = args['transaction-lifetime-limit-seconds'];
  const dataDir = typeof args.data === 'string' ? args.data : typeof args.dbpath === 'string' ? args.dbpath : undefined;
  const server = await startEmbeddedMongo({
    port: args.port === undefined ? 27017 : Number(args.port),
    host: typeof args.host === 'string' ? args.host : '127.0.0.1',
    dataDir,
    ttlMonitorIntervalMs: args['ttl-interval-ms'] ? Number(args['ttl-interval-ms']) : undefined,
    // A flag without a number (true) is NaN: the server refuses it.
    transactionLifetimeMs: lifetime === undefined ? undefined : Number(String(lifetime)) * 1000,
    logger: quiet ? undefined : (m) => console.error(`[mongo-embedded] ${m}`),
  });
  console.log(server.uri());
  let stopping = false;
  const stop = (sig: string) => {
    if (stopping) return;
    stopping = true;
    if (!quiet) console.error(`[mongo-embedded] ${sig}: flushing and stopping`);
    server.close().then(
      () => process.exit(0),
      (e) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
