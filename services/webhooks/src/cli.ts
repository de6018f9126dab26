// The webhooks service's operator command: `npm run cli -w @helpdesk/webhooks -- secrets rotate`
// (in a container: `node --require tsx/cjs services/webhooks/src/cli.ts secrets rotate`).
import { z } from 'zod';
import { connectMongo, loadConfig, mongoDbName, requiredUrl, resealIdempotentRecords, secretBoxOf, secretsEnvSchema } from '@helpdesk/kit';
import { webhooksModels } from './collections';
import { resealSigningSecrets } from './webhooks/secrets';

export const USAGE = `Usage: cli secrets rotate

Seals every stored webhook signing secret (and every answer kept for an Idempotency-Key) with
SECRETS_KEY: values under one of SECRETS_KEY_PREVIOUS, or still in the clear, are sealed again
(docs/adr/0067). Run it once every webhooks process has the new SECRETS_KEY and the old key in
SECRETS_KEY_PREVIOUS; then SECRETS_KEY_PREVIOUS may go (after a day: other services' Idempotency-Key
records, kept 24 hours, may still be under it). Idempotent: a second run seals nothing.

Environment, as the webhooks process reads it: MONGO_URL (and MONGO_DB), SECRETS_KEY, SECRETS_KEY_PREVIOUS.`;

const env = z.object({ MONGO_URL: requiredUrl('MongoDB URL of the webhooks service'), MONGO_DB: z.string().min(1).optional() }).extend(secretsEnvSchema.shape);

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

/** Runs one command; resolves with the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  if (argv.join(' ') !== 'secrets rotate') {
    io.err(USAGE);
    return 2;
  }
  let config;
  try {
    config = loadConfig(env, io.env);
  } catch (err) {
    io.err((err as Error).message);
    return 2;
  }
  const box = secretBoxOf(config);
  const conn = await connectMongo(config.MONGO_URL, mongoDbName(config.MONGO_URL, config.MONGO_DB, 'webhooks'));
  try {
    const secrets = await resealSigningSecrets(webhooksModels(conn), box, { rotate: true });
    const records = await resealIdempotentRecords(conn, box, { rotate: true });
    io.out(
      `signing secrets: ${secrets.rotated} moved to key ${box.keyId}, ${secrets.sealed} sealed from the clear; ` +
        `idempotency records: ${records.rotated} moved, ${records.sealed} sealed`,
    );
    return 0;
  } catch (err) {
    io.err(`rotation stopped: ${(err as Error).message} (what was done stays done; run it again once fixed)`);
    return 1;
  } finally {
    await conn.close();
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2), { out: (l) => console.log(l), err: (l) => console.error(l), env: process.env }).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
