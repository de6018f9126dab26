import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { GatewayAdmin } from '@helpdesk/gateway';

export interface DevCredentials {
  baseUrl: string;
  teamId: string;
  teamName: string;
  /** The owner member the keys belong to. */
  ownerMemberId?: string | null;
  mongoUrl: string;
  keys: { sk_test: string; pk_test: string; sk_live: string; pk_live: string };
  createdAt: string;
}

/** The development team's owner, whose keys `npm start` prints. */
export const DEV_OWNER = { name: 'Development owner', email: 'owner@development.example.com' };

const KINDS = [
  ['sk_test', 'secret', 'test'],
  ['pk_test', 'publishable', 'test'],
  ['sk_live', 'secret', 'live'],
  ['pk_live', 'publishable', 'live'],
] as const;

/**
 * First start: creates a development team and its four keys and writes them to
 * `<dataDir>/credentials.json` (mode 0600) for scripts. Later starts reuse them while the team still
 * exists; the base URL and MongoDB URL are refreshed, since ports may change between runs.
 */
export async function ensureDevCredentials(
  admin: GatewayAdmin,
  dataDir: string,
  current: { baseUrl: string; mongoUrl: string },
): Promise<{ credentials: DevCredentials; created: boolean; file: string }> {
  const file = path.join(dataDir, 'credentials.json');
  const existing = await readCredentials(file);
  let created = false;
  let credentials: DevCredentials;
  // A team from before the workspace service gets its owner now (the printed keys become the owner's).
  const team = existing ? await admin.ensureOwner(existing.teamId, DEV_OWNER) : null;
  if (existing && team) {
    credentials = { ...existing, ...current, ownerMemberId: team.ownerMemberId ?? null };
  } else {
    // The keys belong to the team's owner member (made with the team), so they carry the owner's role.
    const team = await admin.createTeam({ name: 'Development team', slug: 'development', owner: DEV_OWNER });
    const keys = {} as DevCredentials['keys'];
    for (const [field, type, mode] of KINDS) {
      keys[field] = (await admin.createKey({ teamId: team.id, type, mode, name: `local ${field}` })).key;
    }
    credentials = { ...current, teamId: team.id, teamName: team.name, ownerMemberId: team.ownerMemberId ?? null, keys, createdAt: new Date().toISOString() };
    created = true;
  }
  await fs.mkdir(dataDir, { recursive: true });
  await fs.writeFile(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  return { credentials, created, file };
}

/**
 * The banner's sign-in row: a fresh one-time link to the console for the development team's owner
 * (15 minutes; docs/adr/0068), on this gateway's origin. Every start prints a new one; later, ask for
 * one by mail (it lands in DATA_DIR/mail) or with the operator CLI (`sign-in-link`).
 */
export async function ownerSignInRow(admin: GatewayAdmin, credentials: DevCredentials): Promise<[string, string]> {
  try {
    const { token } = await admin.createSignInLink({ teamId: credentials.teamId });
    return ['sign in', `${new URL(credentials.baseUrl).origin}/app/sign-in?token=${token} (the owner; once, within 15 minutes)`];
  } catch (err) {
    return ['sign in', `no link: ${(err as Error).message}`];
  }
}

async function readCredentials(file: string): Promise<DevCredentials | null> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as DevCredentials;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
