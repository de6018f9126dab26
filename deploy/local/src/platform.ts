import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import { createBus, createHostLogger, embeddedMongoStats, InternalTokens, newSecretsKey, SecretBox, type EventBus, type Logger } from '@helpdesk/kit';
import { startGateway, type RunningGateway } from '@helpdesk/gateway';
import { startTicketing, type RunningTicketing, type TicketingConfig } from '@helpdesk/ticketing';
import { startCustomers, type RunningCustomers } from '@helpdesk/customers';
import { startWebhooks, type RunningWebhooks, type WebhookSettings } from '@helpdesk/webhooks';
import { startKnowledge, type RunningKnowledge } from '@helpdesk/knowledge';
import { startWorkspace, type RunningWorkspace, type WorkspaceOptions } from '@helpdesk/workspace';
import { attachmentStorage, startCommunity, type RunningCommunity } from '@helpdesk/community';
import { startNotifications } from '@helpdesk/notifications';
import { startDataops, type RunningDataops } from '@helpdesk/dataops';
import { startGame, type Clock, type RunningGame } from '@helpdesk/game';

export interface PlatformOptions {
  /** Gateway port; 0 = any free port. */
  port: number;
  host?: string;
  /** Folder for the embedded MongoDB journal; null = in memory (tests). Ignored when mongoUrl is set. */
  dataDir: string | null;
  embeddedMongoPort?: number;
  mongoUrl?: string;
  amqpUrl?: string;
  /** RabbitMQ names (default `helpdesk.events`, queues `helpdesk.<service>`); tests isolate runs with their own. */
  amqpNames?: { exchange: string; queuePrefix: string };
  redisUrl?: string;
  /** Community attachments in S3-compatible storage; a folder under dataDir (or a temporary one) when unset. */
  attachmentsS3Url?: string;
  /** Prefix of every Redis key the gateway writes (tests isolate runs with their own). */
  redisKeyPrefix?: string;
  internalTokenSecret: string;
  /** The key of secrets at rest (SECRETS_KEY, docs/adr/0067); a random one when unset (tests: nothing outlives them). */
  secrets?: SecretBox;
  logLevel?: string;
  logger?: Logger;
  rateLimits?: { secretPerMinute?: number; publishablePerMinute?: number };
  /** The webhooks service's delivery settings (WEBHOOKS_ALLOW_LOOPBACK, timeouts…). */
  webhooks?: Partial<WebhookSettings>;
  /** The event stream's heartbeat and slow-client bound (tests shorten them; defaults 15 s and 1 MiB). */
  stream?: { heartbeatMs?: number; maxBufferedBytes?: number };
  /** The page invitation links open (workspace's INVITE_ACCEPT_URL); default the local gateway's. */
  inviteAcceptUrl?: string;
  /** The console's sign-in page sign-in links open (workspace's SIGN_IN_URL); default this gateway's `/app/sign-in`. */
  signInUrl?: string;
  /** The workspace's billing: Stripe instead of the local provider, where the local portal page is (docs/adr/0024). */
  billing?: Pick<WorkspaceOptions, 'stripe' | 'billingPortalUrl'>;
  /** The game's clock (tests move it to try seasons, streaks and the boss's timers); default the system clock. */
  gameClock?: Clock;
  /** Ticketing's AI provider: an OpenAI-compatible server (AI_BASE_URL…); the built-in local one when unset (docs/adr/0029). */
  ai?: TicketingConfig['ai'];
  /** Inbound email (docs/adr/0041): the domain, size limit, SMTP and webhook listeners; none when unset. */
  inboundEmail?: TicketingConfig['inboundEmail'];
  /** Outgoing mail over SMTP (SMTP_URL); `.eml` files under the data folder when unset. */
  smtpUrl?: string;
}

export interface Platform {
  /** Public base URL, ending in /api/v1. */
  baseUrl: string;
  gateway: RunningGateway;
  ticketing: RunningTicketing;
  customers: RunningCustomers;
  webhooks: RunningWebhooks;
  knowledge: RunningKnowledge;
  workspace: RunningWorkspace;
  community: RunningCommunity;
  dataops: RunningDataops;
  game: RunningGame;
  /**
   * The mongodb:// URL every service database lives under (embedded or MONGO_URL), as other processes
   * reach it: the embedded server's TCP URL. The services of this process use its Unix domain socket,
   * served in process (docs/adr/0048), when it has one.
   */
  mongoUrl: string;
  embeddedMongo: EmbeddedMongo | null;
  /** Each service's own bus connection (one in-process bus or one AMQP connection each). */
  buses: Record<string, EventBus>;
  /** The key of secrets at rest its services use. */
  secrets: SecretBox;
  /** Where outgoing mail is written as `.eml` files (`<folder>/mail`), null when it goes over SMTP. */
  mailDir: string | null;
  stop(): Promise<void>;
}

/**
 * Boots the whole platform in one process: the databases (embedded unless MONGO_URL), one bus
 * connection per service (in-process unless AMQP_URL), every service on a loopback port, then the
 * gateway in front of them; requests between them stay in process (docs/adr/0046), streams excepted.
 * The same start functions run each part as its own process in production.
 */
export async function bootPlatform(opts: PlatformOptions): Promise<Platform> {
  const logger = opts.logger ?? createHostLogger('platform', opts.logLevel ?? 'info');
  const started: { name: string; stop: () => Promise<unknown> }[] = [];
  const stop = async () => {
    for (const part of started.reverse()) {
      try {
        await part.stop();
      } catch (err) {
        logger.warn({ err, part: part.name }, 'stop failed');
      }
    }
  };
  try {
    let embeddedMongo: EmbeddedMongo | null = null;
    let mongoUrl = opts.mongoUrl;
    if (!mongoUrl) {
      embeddedMongo = await startEmbeddedMongoOnPreferredPort(opts, logger);
      started.push({ name: 'embedded-mongo', stop: () => embeddedMongo!.close() });
      const stats = embeddedMongo.stats;
      const unregister = embeddedMongoStats.add(() => Object.entries(stats()).map(([stat, value]) => ({ labels: { stat }, value })));
      started.push({ name: 'embedded-mongo-metrics', stop: async () => unregister() });
      // The services here reach it through its socket's URL, served in process (docs/adr/0048); TCP without one.
      mongoUrl = embeddedMongo.socketUri() ?? embeddedMongo.uri();
    }
    const tokens = new InternalTokens(opts.internalTokenSecret);
    const secrets = opts.secrets ?? new SecretBox(newSecretsKey());
    const buses: Record<string, EventBus> = {};
    let memoryBus: EventBus | null = null;
    /** One AMQP connection per service, as in production; in memory every service must share one bus. */
    const busFor = (service: string): EventBus => {
      if (opts.amqpUrl) {
        const bus = createBus({ amqpUrl: opts.amqpUrl, logger: logger.child({ bus: service }), ...opts.amqpNames });
        started.push({ name: `${service}-bus`, stop: () => bus.close() });
        return (buses[service] = bus);
      }
      if (!memoryBus) {
        const bus = createBus({ logger: logger.child({ bus: 'memory' }) });
        started.push({ name: 'memory-bus', stop: () => bus.close() });
        memoryBus = bus;
      }
      return (buses[service] = memoryBus);
    };

    // Every service also answers in process: the gateway's proxy and the services' internal clients
    // reach it without a socket (docs/adr/0046); its loopback port stays open for everything else.
    const serviceOpts = (name: string) => ({ mongoUrl: mongoUrl!, bus: busFor(name), tokens, logger: logger.child({ service: name }), inProcess: true });
    // Customers first: ticketing asks it about customers at ticket creation.
    const customers = await startCustomers(serviceOpts('customers'));
    started.push({ name: 'customers', stop: () => customers.stop() });
    const ticketing = await startTicketing({ ...serviceOpts('ticketing'), secrets, customersUrl: customers.url, ai: opts.ai, inboundEmail: opts.inboundEmail });
    started.push({ name: 'ticketing', stop: () => ticketing.stop() });
    const webhooks = await startWebhooks({ ...serviceOpts('webhooks'), secrets, settings: opts.webhooks });
    started.push({ name: 'webhooks', stop: () => webhooks.stop() });
    // newer services start here, one block each (workspace, knowledge, community)
    const workspace = await startWorkspace({ ...serviceOpts('workspace'), inviteAcceptUrl: opts.inviteAcceptUrl, signInUrl: opts.signInUrl ?? localSignInUrl(opts), ...opts.billing });
    started.push({ name: 'workspace', stop: () => workspace.stop() });
    const knowledge = await startKnowledge(serviceOpts('knowledge'));
    started.push({ name: 'knowledge', stop: () => knowledge.stop() });
    // Community attachments under the data folder; in-memory runs (tests) use a temporary folder removed at stop.
    const attachmentsDir = opts.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'helpdesk-community-')));
    if (!opts.dataDir) started.push({ name: 'community-attachments', stop: () => rm(attachmentsDir, { recursive: true, force: true }) });
    const community = await startCommunity({ ...serviceOpts('community'), customersUrl: customers.url, storage: attachmentStorage({ s3Url: opts.attachmentsS3Url, dataDir: attachmentsDir }) });
    started.push({ name: 'community', stop: () => community.stop() });
    // Outgoing mail as .eml files under the data folder (DATA_DIR/mail); in-memory runs (tests) use a temporary folder.
    const mailDir = opts.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'helpdesk-notifications-')));
    if (!opts.dataDir) started.push({ name: 'notifications-mail', stop: () => rm(mailDir, { recursive: true, force: true }) });
    const notifications = await startNotifications({
      ...serviceOpts('notifications'),
      workspaceUrl: workspace.url,
      // It asks ticketing whether a widget conversation's token opens that conversation's stream (docs/adr/0040).
      ticketingUrl: ticketing.url,
      dataDir: mailDir,
      smtpUrl: opts.smtpUrl,
      // The event stream's log in Redis Streams when Redis is configured (embedded otherwise).
      redisUrl: opts.redisUrl,
      redisKeyPrefix: opts.redisKeyPrefix,
      streamHeartbeatMs: opts.stream?.heartbeatMs,
      streamMaxBufferedBytes: opts.stream?.maxBufferedBytes,
    });
    started.push({ name: 'notifications', stop: () => notifications.stop() });
    // dataops fans out to the owning services (search, tags, saved-view execution, bulk, export, import).
    const dataops = await startDataops({
      ...serviceOpts('dataops'),
      ticketingUrl: ticketing.url,
      customersUrl: customers.url,
      knowledgeUrl: knowledge.url,
      communityUrl: community.url,
      workspaceUrl: workspace.url,
    });
    started.push({ name: 'dataops', stop: () => dataops.stop() });
    const game = await startGame({ ...serviceOpts('game'), clock: opts.gameClock });
    started.push({ name: 'game', stop: () => game.stop() });

    const gateway = await startGateway({
      port: opts.port,
      host: opts.host ?? '127.0.0.1',
      mongoUrl,
      redisUrl: opts.redisUrl,
      redisKeyPrefix: opts.redisKeyPrefix,
      tokens,
      streamTokenSecret: opts.internalTokenSecret,
      secrets,
      services: {
        ticketing: ticketing.url,
        customers: customers.url,
        webhooks: webhooks.url,
        // newer services: one line each
        workspace: workspace.url,
        knowledge: knowledge.url,
        community: community.url,
        notifications: notifications.url,
        dataops: dataops.url,
        game: game.url,
      },
      logger: logger.child({ service: 'gateway' }),
      rateLimits: opts.rateLimits,
    });
    started.push({ name: 'gateway', stop: () => gateway.stop() });

    const mailFolder = opts.smtpUrl ? null : path.join(mailDir, 'mail');
    return { baseUrl: gateway.url, gateway, ticketing, customers, webhooks, knowledge, workspace, community, dataops, game, mongoUrl: embeddedMongo?.uri() ?? mongoUrl, embeddedMongo, buses, secrets, mailDir: mailFolder, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The console's sign-in page on this gateway's port (a fixed one; any free port keeps the workspace's default). */
function localSignInUrl(opts: PlatformOptions): string | undefined {
  if (!opts.port) return undefined;
  const host = !opts.host || opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return `http://${host}:${opts.port}/app/sign-in`;
}

async function startEmbeddedMongoOnPreferredPort(opts: PlatformOptions, logger: Logger): Promise<EmbeddedMongo> {
  const dataDir = opts.dataDir ? path.join(opts.dataDir, 'mongo') : undefined;
  const preferred = opts.embeddedMongoPort ?? 0;
  // TCP for other processes (mongosh, Compass), and a Unix domain socket whose URL the services of this
  // process use, served in memory (docs/adr/0048); without a socket (path too long, in use) TCP only.
  const options = { dataDir, unixSocket: true, inProcessClients: true };
  let server: EmbeddedMongo;
  try {
    server = await startEmbeddedMongo({ ...options, port: preferred });
  } catch (err) {
    if (preferred === 0 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    logger.info({ port: preferred }, 'embedded MongoDB port taken, using any free port');
    server = await startEmbeddedMongo({ ...options, port: 0 });
  }
  if (!server.socketPath) logger.warn({ dataDir }, 'embedded MongoDB: no Unix domain socket (path too long or in use); the services use TCP');
  return server;
}
