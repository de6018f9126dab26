/**
 * What `npm start` hands a service beyond what every service gets from the registry (its database,
 * bus, tokens, logger, SECRETS_KEY when `secretsAtRest`, the URL of each service it `calls`): the
 * platform options only it reads. A service with none has no entry here.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { attachmentStorage } from '@helpdesk/community';
import type { PlatformOptions } from './platform';
import type { START_FUNCTIONS } from './services.generated';

export type ServiceName = keyof typeof START_FUNCTIONS;
export type StartOptions<K extends ServiceName> = Parameters<(typeof START_FUNCTIONS)[K]>[0];

export interface BootContext {
  opts: PlatformOptions;
  /** The folder a service keeps files in: DATA_DIR, or (in-memory runs, tests) a temporary folder removed at stop. */
  folder(service: ServiceName): Promise<string>;
}

type OwnOptions = { [K in ServiceName]?: (ctx: BootContext) => Partial<StartOptions<K>> | Promise<Partial<StartOptions<K>>> };

export const OWN_OPTIONS: OwnOptions = {
  ticketing: ({ opts }) => ({ ai: opts.ai, inboundEmail: opts.inboundEmail }),
  webhooks: ({ opts }) => ({ settings: opts.webhooks }),
  workspace: ({ opts }) => ({ inviteAcceptUrl: opts.inviteAcceptUrl, signInUrl: opts.signInUrl ?? localSignInUrl(opts), ...opts.billing }),
  // Attachments in S3-compatible storage, or under the data folder.
  community: async (ctx) => ({ storage: attachmentStorage({ s3Url: ctx.opts.attachmentsS3Url, dataDir: await ctx.folder('community') }) }),
  // Outgoing mail as .eml files under the data folder (DATA_DIR/mail) unless SMTP; the event
  // stream's log in Redis Streams when Redis is configured (embedded otherwise).
  notifications: async (ctx) => ({
    dataDir: await ctx.folder('notifications'),
    smtpUrl: ctx.opts.smtpUrl,
    redisUrl: ctx.opts.redisUrl,
    redisKeyPrefix: ctx.opts.redisKeyPrefix,
    streamHeartbeatMs: ctx.opts.stream?.heartbeatMs,
    streamMaxBufferedBytes: ctx.opts.stream?.maxBufferedBytes,
  }),
  game: ({ opts }) => ({ clock: opts.gameClock }),
};

/** The console's sign-in page on this gateway's port (a fixed one; any free port keeps the workspace's default). */
function localSignInUrl(opts: PlatformOptions): string | undefined {
  if (!opts.port) return undefined;
  const host = !opts.host || opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return `http://${host}:${opts.port}/app/sign-in`;
}

/** `folder` for a BootContext: each service's folder made once; a temporary one is handed to `onStop` for removal. */
export function serviceFolders(dataDir: string | null, onStop: (name: string, stop: () => Promise<unknown>) => void): BootContext['folder'] {
  const made = new Map<ServiceName, Promise<string>>();
  const make = async (service: ServiceName) => {
    if (dataDir) return dataDir;
    const dir = await mkdtemp(path.join(os.tmpdir(), `helpdesk-${service}-`));
    onStop(`${service}-folder`, () => rm(dir, { recursive: true, force: true }));
    return dir;
  };
  return (service) => {
    if (!made.has(service)) made.set(service, make(service));
    return made.get(service)!;
  };
}
