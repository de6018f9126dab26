import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../../..');

/**
 * A private RabbitMQ node under `dir` (scripts/rabbitmq-start.sh). Stopped by pid only: the script's
 * stop signals the process group it started, but rabbitmq-server drops to the `rabbitmq` user in a
 * new session, so the Erlang VM (its pid is in `<dir>/rabbit.pid`) is also signalled here directly.
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

  private vmPid(): number | null {
    const file = path.join(this.dir, 'rabbit.pid');
    if (!existsSync(file)) return null;
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  }

  async stop(): Promise<void> {
    const vm = this.vmPid();
    await run('bash', [path.join(ROOT, 'scripts/rabbitmq-stop.sh'), this.dir], { timeout: 60_000 }).catch(() => undefined);
    if (vm && alive(vm)) {
      process.kill(vm, 'SIGTERM');
      const deadline = Date.now() + 20_000;
      while (alive(vm) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (alive(vm)) process.kill(vm, 'SIGKILL');
      while (alive(vm)) await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
