import type { DevCredentials } from './credentials';

/** What both launchers print once the platform answers: `npm start` and `npm run start:processes`. */
export interface BannerFacts {
  title: string;
  credentials: DevCredentials;
  created: boolean;
  /** credentials.json */
  file: string;
  /** Lines between the keys and the credentials file: MongoDB, the bus, the stores, the processes… */
  details: Array<[label: string, text: string]>;
  baseUrl: string;
  /** Unsafe development switches that are on, each a line above `Ready:` (default: read from the environment both launchers pass on). */
  unsafe?: string[];
}

/**
 * The development-only switches a platform must never run with in production, and what each one
 * does: the banner shows every one that is on, so that nobody runs with one by accident.
 */
export const UNSAFE_SWITCHES: Record<string, string> = {
  WEBHOOKS_ALLOW_LOOPBACK: 'webhooks may target this machine (loopback addresses, plain http too); local development only',
};

/** The unsafe switches `env` turns on (`true` or `1`, as every boolean switch reads). */
export function unsafeSwitchesOn(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(UNSAFE_SWITCHES)
    .filter(([name]) => env[name] === 'true' || env[name] === '1')
    .map(([name, what]) => `${name}=${env[name]}: ${what}`);
}

/** The agent console's address (gateway/src/console.ts) beside the API's `…/api/v1`. */
export const consoleUrl = (apiBaseUrl: string) => `${new URL(apiBaseUrl).origin}/app/`;

export function banner(f: BannerFacts): string {
  const row = (label: string, text: string) => `  ${label.padEnd(11)} ${text}`;
  const unsafe = f.unsafe ?? unsafeSwitchesOn();
  return [
    '',
    `${f.title}${f.created ? ' (first start: development team created)' : ''}`,
    row('team', `${f.credentials.teamId} (${f.credentials.teamName})`),
    ...(f.credentials.ownerMemberId ? [row('owner', `${f.credentials.ownerMemberId} (the keys below are the owner's)`)] : []),
    ...Object.entries(f.credentials.keys).map(([kind, key]) => row(kind, key)),
    ...f.details.map(([label, text]) => row(label, text)),
    row('console', consoleUrl(f.baseUrl)),
    row('credentials', f.file),
    ...unsafe.map((text) => row('UNSAFE', text)),
    `Ready: ${f.baseUrl}`,
    '',
  ].join('\n');
}
