import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');

/**
 * A private RabbitMQ node under `dir` on its own port, for fault tests that stop and start a broker
 * (scripts/rabbitmq-start.sh; stopped by pid with scripts/rabbitmq-stop.sh, never by name).
 */
export class PrivateBroker {
  constructor(readonly dir: string, readonly port: number) {}

  get url(): string {
    return `amqp://guest:guest@127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const { stdout } = await run('bash', [path.join(ROOT, 'scripts/rabbitmq-start.sh'), this.dir], {
      env: { ...process.env, RABBITMQ_PORT: String(this.port) },
      timeout: 90_000,
    });
    if (!/\bup\b/.test(stdout)) throw new Error(`rabbitmq-start did not report up: ${stdout}`);
  }

  async stop(): Promise<void> {
    await run('bash', [path.join(ROOT, 'scripts/rabbitmq-stop.sh'), this.dir], { timeout: 60_000 });
  }
}
