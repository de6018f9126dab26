// Operator CLI: `npx tsx gateway/src/cli.ts <command>` (or `npm run cli -w @helpdesk/gateway -- <command>`).
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PERMISSIONS, type Permission, type Partition } from '@helpdesk/contracts';
import { AmqpBus, createLogger, InternalTokens, operatorName, runDeadLetterCommand } from '@helpdesk/kit';
import { AdminError, createGatewayAdmin, type GatewayAdmin } from './admin';
import { workspaceLink, type WorkspaceLink } from './api-keys/workspace-link';
import { parseServiceUrls } from './config';
import type { ApiKeyRecord } from './store/types';

export const USAGE = `Usage: cli <command> [options]

  team create --name NAME [--slug SLUG] --owner-name NAME --owner-email EMAIL
  key create --team TEAM_ID --type secret|publishable --mode test|live
             [--name NAME] [--expires-in 30d|12h|90m | --expires-at ISO_DATE] [--scopes a,b]
             [--member MEMBER_ID | --no-member]   (default: the team's owner)
  key list --team TEAM_ID
  key revoke --key KEY_ID
  sign-in-link --team TEAM_ID [--email EMAIL]   (a one-time console sign-in link, 15 minutes; default: the owner's)
  dead-letters list --service NAME[,NAME…]
  dead-letters replay|discard --service NAME (--event EVENT_ID[,…] | --all) [--yes] [--operator NAME]
             (asks before acting unless --yes; writes an audit line to stderr naming the operator:
              --operator, else env HELPDESK_OPERATOR, else USER; a service without a queue is skipped)

Connection: --mongo-url URL, else env MONGO_URL, else mongoUrl in ./data/credentials.json.
Owner member (team create) and sign-in links: the workspace service at --workspace-url URL, else env WORKSPACE_URL, else
the workspace entry of SERVICE_URLS, with env INTERNAL_TOKEN_SECRET; without one the team has no owner.
Dead letters: RabbitMQ at --amqp-url URL, else env AMQP_URL, with AMQP_QUEUE_PREFIX (default helpdesk).
Options: --db NAME (default gateway), --json (machine-readable output).`;

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Tests pass an admin instead of a connection. */
  admin?: GatewayAdmin;
  /** Asks the operator a yes/no question (a terminal); absent = only --yes confirms. */
  confirm?: (question: string) => Promise<boolean>;
}

class UsageError extends Error {}

/** `30d`, `12h`, `90m`, `45s` → milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+)([smhd])$/.exec(text.trim());
  if (!m) throw new UsageError(`--expires-in: "${text}" is not a duration like 30d, 12h, 90m`);
  return Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's']!;
}

function mongoUrlOf(flag: string | undefined, io: CliIo): string {
  if (flag) return flag;
  if (io.env.MONGO_URL) return io.env.MONGO_URL;
  const file = resolve(io.cwd, 'data', 'credentials.json');
  if (existsSync(file)) {
    const url = (JSON.parse(readFileSync(file, 'utf8')) as { mongoUrl?: string }).mongoUrl;
    if (url) return url;
  }
  throw new UsageError('no database: pass --mongo-url, set MONGO_URL, or run the local platform (./data/credentials.json)');
}

/** The workspace service that makes a new team's owner, when the environment names one. */
function workspaceOf(flag: string | undefined, io: CliIo): WorkspaceLink | undefined {
  const url = flag ?? io.env.WORKSPACE_URL ?? (io.env.SERVICE_URLS ? parseServiceUrls(io.env.SERVICE_URLS).workspace?.[0] : undefined);
  if (!url) return undefined;
  const secret = io.env.INTERNAL_TOKEN_SECRET;
  if (!secret) throw new UsageError('the workspace service needs INTERNAL_TOKEN_SECRET (the one the services run with)');
  return workspaceLink(url, new InternalTokens(secret));
}

const describeKey = (k: ApiKeyRecord) =>
  [
    k.id,
    `${k.prefix}…`,
    k.type,
    k.mode,
    k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : k.expiresAt && k.expiresAt <= new Date() ? 'expired' : 'active',
    `name=${k.name ?? '-'}`,
    `scopes=${k.scopes ? k.scopes.join(',') : 'all'}`,
    `member=${k.memberId ?? '-'}`,
    `expires=${k.expiresAt ? k.expiresAt.toISOString() : 'never'}`,
    `created=${k.createdAt.toISOString()}`,
    `lastUsed=${k.lastUsedAt ? k.lastUsedAt.toISOString() : 'never'}`,
  ].join('  ');

const commaList = (text: string | undefined) => (text ?? '').split(',').map((s) => s.trim()).filter(Boolean);

/** `dead-letters list|replay|discard` against the broker's dead-letter queues (docs/adr/0039). */
async function deadLetters(
  action: string,
  v: { service?: string; event?: string; all?: boolean; yes?: boolean; json?: boolean; 'amqp-url'?: string; operator?: string },
  io: CliIo,
): Promise<number> {
  if (action !== 'list' && action !== 'replay' && action !== 'discard') throw new UsageError(`unknown command "dead-letters ${action}"`);
  const services = commaList(v.service);
  if (!services.length) throw new UsageError(`dead-letters ${action}: --service is required`);
  const eventIds = commaList(v.event);
  if (action !== 'list' && !v.all === !eventIds.length) throw new UsageError(`dead-letters ${action}: pass --event EVENT_ID[,…] or --all`);
  const url = v['amqp-url'] ?? io.env.AMQP_URL;
  if (!url) throw new UsageError('dead letters are in RabbitMQ: pass --amqp-url or set AMQP_URL');
  const bus = new AmqpBus({ url, logger: createLogger('cli', 'silent'), exchange: io.env.AMQP_EXCHANGE || undefined, queuePrefix: io.env.AMQP_QUEUE_PREFIX || undefined, reconnectMaxMs: 1000 });
  try {
    return await runDeadLetterCommand(
      { action, services, eventIds: v.all ? null : eventIds, yes: Boolean(v.yes), json: Boolean(v.json) },
      bus.deadLetterQueue,
      { out: io.out, err: io.err, confirm: io.confirm, operator: operatorName(v.operator, io.env) },
    );
  } finally {
    await bus.close();
  }
}

const CLI_OPTIONS = {
  'mongo-url': { type: 'string' },
  db: { type: 'string' },
  name: { type: 'string' },
  slug: { type: 'string' },
  team: { type: 'string' },
  type: { type: 'string' },
  mode: { type: 'string' },
  'expires-in': { type: 'string' },
  'expires-at': { type: 'string' },
  scopes: { type: 'string' },
  key: { type: 'string' },
  'owner-name': { type: 'string' },
  'owner-email': { type: 'string' },
  email: { type: 'string' },
  'workspace-url': { type: 'string' },
  member: { type: 'string' },
  'no-member': { type: 'boolean' },
  service: { type: 'string' },
  event: { type: 'string' },
  all: { type: 'boolean' },
  yes: { type: 'boolean' },
  'amqp-url': { type: 'string' },
  operator: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const parseCommandLine = (argv: string[]) => parseArgs({ args: argv, allowPositionals: true, strict: true, options: CLI_OPTIONS });
type CliValues = ReturnType<typeof parseCommandLine>['values'];

/** The key and team commands, and the options each cannot do without. */
const REQUIRED: Record<string, (keyof CliValues)[]> = {
  'team create': ['name'],
  'key create': ['team', 'type', 'mode'],
  'key list': ['team'],
  'key revoke': ['key'],
  'sign-in-link': ['team'],
};

/** A string option the command cannot do without. */
function needOf(command: string, v: CliValues) {
  return (name: keyof CliValues) => {
    const value = v[name];
    if (typeof value !== 'string' || value === '') throw new UsageError(`${command}: --${name} is required`);
    return value;
  };
}

/** `key create`'s expiry and scopes, checked. */
function keyOptions(v: CliValues): { expiresAt?: Date; scopes?: Permission[] } {
  if (v.type !== 'secret' && v.type !== 'publishable') throw new UsageError('--type must be secret or publishable');
  if (v.mode !== 'test' && v.mode !== 'live') throw new UsageError('--mode must be test or live');
  if (v['expires-in'] && v['expires-at']) throw new UsageError('use --expires-in or --expires-at, not both');
  let expiresAt: Date | undefined;
  let scopes: Permission[] | undefined;
  if (v['expires-in']) expiresAt = new Date(Date.now() + parseDuration(v['expires-in']));
  if (v['expires-at']) {
    expiresAt = new Date(v['expires-at']);
    if (Number.isNaN(expiresAt.getTime())) throw new UsageError(`--expires-at: "${v['expires-at']}" is not a date`);
  }
  if (v.scopes !== undefined) {
    scopes = v.scopes.split(',').map((s) => s.trim()).filter(Boolean) as Permission[];
    const bad = scopes.filter((s) => !(PERMISSIONS as readonly string[]).includes(s));
    if (bad.length) throw new UsageError(`--scopes: unknown permission(s) ${bad.join(', ')}; known: ${PERMISSIONS.join(', ')}`);
  }
  return { expiresAt, scopes };
}

type KeyOptions = ReturnType<typeof keyOptions>;

/** Checks a key or team command's options before anything connects; answers the workspace link it needs, if any, and `key create`'s options. */
function checkKeyCommand(command: string, v: CliValues, io: CliIo): { workspace?: WorkspaceLink; key: KeyOptions } {
  if (!Object.hasOwn(REQUIRED, command)) throw new UsageError(`unknown command "${command}"`);
  const need = needOf(command, v);
  for (const name of REQUIRED[command]) need(name);
  const workspace = io.admin ? undefined : workspaceOf(v['workspace-url'], io);
  if (command === 'team create' && workspace) for (const name of ['owner-name', 'owner-email'] as const) need(name);
  if (command === 'sign-in-link' && !workspace && !io.admin) throw new UsageError('sign-in-link: the workspace service keeps sign-in links: pass --workspace-url or set WORKSPACE_URL (with INTERNAL_TOKEN_SECRET)');
  if (v.member && v['no-member']) throw new UsageError('use --member or --no-member, not both');
  return { workspace, key: command === 'key create' ? keyOptions(v) : {} };
}

/** Runs a checked key or team command against the gateway's store; resolves with the exit code. */
async function runKeyCommand(command: string, v: CliValues, options: KeyOptions, admin: GatewayAdmin, io: CliIo): Promise<number> {
  const need = needOf(command, v);
  const print = (human: string, data: unknown) => io.out(v.json ? JSON.stringify(data) : human);
  switch (command) {
    case 'team create': {
      const owner = v['owner-name'] && v['owner-email'] ? { name: v['owner-name'], email: v['owner-email'] } : undefined;
      const team = await admin.createTeam({ name: need('name'), slug: v.slug, owner });
      print(`Created team ${team.id} (${team.name}, slug ${team.slug}${team.ownerMemberId ? `, owner ${team.ownerMemberId}` : ''})`, team);
      if (!team.ownerMemberId && !io.admin) io.err('No workspace service given: the team has no owner member, and its keys carry their scopes only.');
      return 0;
    }
    case 'key create': {
      const { expiresAt, scopes } = options;
      const type = need('type') as 'secret' | 'publishable';
      const mode = need('mode') as Partition;
      const memberId = v['no-member'] ? null : v.member;
      const { key, record } = await admin.createKey({ teamId: need('team'), type, mode, name: v.name, expiresAt, scopes, memberId });
      print(
        `Created ${type} ${mode} key ${record.id}\n\n  ${key}\n\nThis is the only time the key is shown: store it now. Only its hash is kept.`,
        { key, record },
      );
      return 0;
    }
    case 'key list': {
      const keys = await admin.listKeys(need('team'));
      if (v.json) print('', keys);
      else if (keys.length === 0) io.out('No keys.');
      else for (const k of keys) io.out(describeKey(k));
      return 0;
    }
    case 'sign-in-link': {
      const link = await admin.createSignInLink({ teamId: need('team'), email: v.email });
      print(`Sign-in link for member ${link.memberId} (works once, until ${link.expiresAt}):\n\n  ${link.url}\n`, link);
      return 0;
    }
    case 'key revoke': {
      const id = need('key');
      if (!(await admin.revokeKey(id))) {
        io.err(`No active key ${id}.`);
        return 1;
      }
      print(`Revoked key ${id}.`, { id, revoked: true });
      return 0;
    }
  }
  return 2;
}

/** Runs one command; resolves with the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine(argv);
  } catch (err) {
    io.err((err as Error).message);
    io.err(USAGE);
    return 2;
  }
  const { values: v, positionals } = parsed;
  const command = positionals.join(' ');
  if (v.help || !command) {
    (v.help ? io.out : io.err)(USAGE);
    return v.help ? 0 : 2;
  }
  let admin = io.admin;
  try {
    if (command.startsWith('dead-letters ')) return await deadLetters(command.slice('dead-letters '.length), v, io);
    const checked = checkKeyCommand(command, v, io);
    admin ??= await createGatewayAdmin(mongoUrlOf(v['mongo-url'], io), v.db ?? 'gateway', checked.workspace);
    return await runKeyCommand(command, v, checked.key, admin, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(err.message);
      io.err(USAGE);
      return 2;
    }
    if (err instanceof AdminError) {
      io.err(err.message);
      return 1;
    }
    io.err(`error: ${(err as Error).message}`);
    return 1;
  } finally {
    if (admin && !io.admin) await admin.close().catch(() => {});
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2), {
    out: (l) => console.log(l),
    err: (l) => console.error(l),
    env: process.env,
    cwd: process.cwd(),
    confirm: process.stdin.isTTY ? askOnTerminal : undefined,
  }).then((code) => process.exit(code));
}

async function askOnTerminal(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
