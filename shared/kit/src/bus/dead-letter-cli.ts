import { NoDeadLetterQueue, type DeadLetterQueue, type DeadLetterRecord } from './types';

export interface DeadLetterCommand {
  action: 'list' | 'replay' | 'discard';
  /** The services whose dead-letter queues are read (`<prefix>.<service>.dead`). */
  services: string[];
  /** Replay/discard these event ids only; null = every dead letter of the service (`--all`). */
  eventIds: string[] | null;
  /** Confirmed on the command line (`--yes`): no question asked. */
  yes: boolean;
  json: boolean;
}

export interface DeadLetterIo {
  out(line: string): void;
  err(line: string): void;
  /** Asks the operator; absent (not a terminal) = only `--yes` confirms. */
  confirm?(question: string): Promise<boolean>;
  /**
   * Who acts, for the audit line: `operatorName(--operator, env)`. Replay and discard refuse to run
   * without one (never `unknown`); `list` does not need it.
   */
  operator: string | null | undefined;
}

/**
 * The operator named in the audit line of a replay or discard: `--operator NAME`, else
 * `HELPDESK_OPERATOR`, else the OS user (`USER`, `LOGNAME`); null when none is set.
 */
export function operatorName(flag: string | undefined, env: NodeJS.ProcessEnv): string | null {
  for (const candidate of [flag, env.HELPDESK_OPERATOR, env.USER, env.LOGNAME]) {
    const name = candidate?.trim();
    if (name) return name;
  }
  return null;
}

const describe = (r: DeadLetterRecord) =>
  [r.eventId, r.type, `team=${r.teamId ?? '-'}`, `attempts=${r.attempts}`, `error=${JSON.stringify(r.error)}`].join('  ');

/** A service's dead letters, or null (said on stderr) when it has no dead-letter queue. */
async function listOrSkip(queue: DeadLetterQueue, service: string, io: DeadLetterIo): Promise<DeadLetterRecord[] | null> {
  try {
    return await queue.list(service);
  } catch (err) {
    if (!(err instanceof NoDeadLetterQueue)) throw err;
    io.err(`${service}: skipped, ${err.message}.`);
    return null;
  }
}

/**
 * The operator's dead-letter commands (docs/adr/0039): list what a service gave up on and why, then
 * replay it to that service's queue (after fixing the handler) or discard it. Replay and discard show
 * what they would touch and need a confirmation; each writes one audit line (JSON on stderr) naming
 * the operator. A service without a dead-letter queue is skipped with a line on stderr.
 */
export async function runDeadLetterCommand(cmd: DeadLetterCommand, queue: DeadLetterQueue, io: DeadLetterIo): Promise<number> {
  if (cmd.action === 'list') {
    const all: DeadLetterRecord[] = [];
    for (const service of cmd.services) all.push(...((await listOrSkip(queue, service, io)) ?? []));
    if (cmd.json) io.out(JSON.stringify(all));
    else if (!all.length) io.out('No dead letters.');
    else for (const r of all) io.out(`${r.service}  ${describe(r)}`);
    return 0;
  }
  const operator = io.operator?.trim();
  if (!operator) {
    io.err(`dead-letters ${cmd.action}: who is acting? Pass --operator NAME or set HELPDESK_OPERATOR (it goes into the audit line).`);
    return 2;
  }
  let acted = 0;
  for (const service of cmd.services) {
    const pending = ((await listOrSkip(queue, service, io)) ?? []).filter((r) => !cmd.eventIds || cmd.eventIds.includes(r.eventId));
    if (!pending.length) continue;
    const question = `${cmd.action === 'replay' ? 'Replay' : 'Discard'} ${pending.length} dead letter(s) of ${service}?\n${pending.map((r) => `  ${describe(r)}`).join('\n')}`;
    if (!cmd.yes) {
      if (!io.confirm) {
        io.err(`${question}\nNot confirmed: pass --yes (no terminal to ask on).`);
        return 1;
      }
      if (!(await io.confirm(`${question}\n[y/N] `))) {
        io.err('Nothing done.');
        continue;
      }
    }
    const ids = pending.map((r) => r.eventId);
    const done = cmd.action === 'replay' ? await queue.replay(service, ids) : await queue.discard(service, ids);
    acted += done.length;
    io.err(`audit ${JSON.stringify({ at: new Date().toISOString(), operator, action: `dead-letters.${cmd.action}`, service, eventIds: done.map((r) => r.eventId) })}`);
    const verb = cmd.action === 'replay' ? 'Replayed' : 'Discarded';
    if (cmd.json) io.out(JSON.stringify({ service, action: cmd.action, events: done }));
    else io.out(`${verb} ${done.length} dead letter(s) of ${service}.`);
  }
  if (!acted && !cmd.json) io.out('No matching dead letters.');
  return 0;
}
