import path from 'node:path';
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import { createBus, createHostLogger, embeddedMongoStats, InternalTokens, newSecretsKey, SecretBox, type Clock, type EventBus, type Logger, type RunningService } from '@helpdesk/kit';
import { startGateway, type RunningGateway } from '@helpdesk/gateway';
import type { TicketingConfig } from '@helpdesk/ticketing';
import type { WebhookSettings } from '@helpdesk/webhooks';
import type { WorkspaceOptions } from '@helpdesk/workspace';
import { bootOrder, callOption, SERVICES } from '../../registry';
import { START_FUNCTIONS } from './services.generated';
import { OWN_OPTIONS, serviceFolders, type BootContext, type ServiceName } from './service-options';

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

/** Every registry service as its start function returns it, by name. */
export type RunningServices = { [K in ServiceName]: Awaited<ReturnType<(typeof START_FUNCTIONS)[K]>> };

export interface Platform extends RunningServices {
  /** Public base URL, ending in /api/v1. */
  baseUrl: string;
  gateway: RunningGateway;
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

type Stoppable = { name: string; stop: () => Promise<unknown> };

/**
 * Boots the whole platform in one process: the databases (embedded unless MONGO_URL), one bus
 * connection per service (in-process unless AMQP_URL), every service of the registry on a loopback
 * port (each after the services it calls), then the gateway in front of them; requests between them
 * stay in process (docs/adr/0046), streams excepted. The same start functions run each part as its
 * own process in production.
 */
export async function bootPlatform(opts: PlatformOptions): Promise<Platform> {
  const logger = opts.logger ?? createHostLogger('platform', opts.logLevel ?? 'info');
  const started: Stoppable[] = [];
  const stop = async () => {
    for (const part of started.reverse()) {
      try {
        await part.stop();
      } catch (err) {
        logger.warn({ err, part: part.name }, 'stop failed');
      }
    }
  };
  const onStop = (name: string, stopIt: () => Promise<unknown>) => void started.push({ name, stop: stopIt });
  try {
    let embeddedMongo: EmbeddedMongo | null = null;
    let mongoUrl = opts.mongoUrl;
    if (!mongoUrl) {
      embeddedMongo = await startEmbeddedMongoOnPreferredPort(opts, logger);
      const server = embeddedMongo;
      onStop('embedded-mongo', () => server.close());
      const unregister = embeddedMongoStats.add(() => Object.entries(server.stats()).map(([stat, value]) => ({ labels: { stat }, value })));
      onStop('embedded-mongo-metrics', async () => unregister());
      // The services here reach it through its socket's URL, served in process (docs/adr/0048); TCP without one.
      mongoUrl = server.socketUri() ?? server.uri();
    }
    const tokens = new InternalTokens(opts.internalTokenSecret);
    const secrets = opts.secrets ?? new SecretBox(newSecretsKey());
    const buses: Record<string, EventBus> = {};
    const folder = serviceFolders(opts.dataDir, onStop);
    const services = await startServices({ opts, folder }, { mongoUrl, tokens, secrets, logger, bus: busesFor(opts, logger, buses, onStop) }, onStop);

    const gateway = await startGateway({
      port: opts.port,
      host: opts.host ?? '127.0.0.1',
      mongoUrl,
      redisUrl: opts.redisUrl,
      redisKeyPrefix: opts.redisKeyPrefix,
      tokens,
      streamTokenSecret: opts.internalTokenSecret,
      secrets,
      services: Object.fromEntries(SERVICES.map((s) => [s.name, services[s.name as ServiceName].url])),
      logger: logger.child({ service: 'gateway' }),
      rateLimits: opts.rateLimits,
    });
    onStop('gateway', () => gateway.stop());

    const mailDir = opts.smtpUrl ? null : path.join(await folder('notifications'), 'mail');
    return { ...services, baseUrl: gateway.url, gateway, mongoUrl: embeddedMongo?.uri() ?? mongoUrl, embeddedMongo, buses, secrets, mailDir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** What every service gets in one process. */
interface Shared {
  mongoUrl: string;
  tokens: InternalTokens;
  secrets: SecretBox;
  logger: Logger;
  bus: (service: string) => EventBus;
}

/**
 * Starts every registry service through its package's start function (deploy/local/src/services.generated.ts),
 * each after the services it calls: what every service gets, SECRETS_KEY's box where the registry
 * says `secretsAtRest`, the URL of each service it calls, and its own options (service-options.ts).
 */
async function startServices(ctx: BootContext, shared: Shared, onStop: (name: string, stop: () => Promise<unknown>) => void): Promise<RunningServices> {
  const running: Partial<Record<string, RunningService>> = {};
  for (const entry of bootOrder(SERVICES)) {
    const name = entry.name as ServiceName;
    // Every service also answers in process: the gateway's proxy and the services' internal clients
    // reach it without a socket (docs/adr/0046); its loopback port stays open for everything else.
    const options = {
      mongoUrl: shared.mongoUrl,
      bus: shared.bus(name),
      tokens: shared.tokens,
      logger: shared.logger.child({ service: name }),
      inProcess: true,
      ...(entry.secretsAtRest ? { secrets: shared.secrets } : {}),
      ...Object.fromEntries(entry.calls.map((call) => [callOption(call.env), running[call.service]!.url])),
      ...(await OWN_OPTIONS[name]?.(ctx)),
    };
    const start = START_FUNCTIONS[name] as (o: typeof options) => Promise<RunningService>;
    const service = await start(options);
    running[name] = service;
    onStop(name, () => service.stop());
  }
  return running as RunningServices;
}

/** One AMQP connection per service, as in production; in memory every service shares one bus. */
function busesFor(opts: PlatformOptions, logger: Logger, buses: Record<string, EventBus>, onStop: (name: string, stop: () => Promise<unknown>) => void): (service: string) => EventBus {
  let memoryBus: EventBus | null = null;
  return (service) => {
    if (opts.amqpUrl) {
      const bus = createBus({ amqpUrl: opts.amqpUrl, logger: logger.child({ bus: service }), ...opts.amqpNames });
      onStop(`${service}-bus`, () => bus.close());
      return (buses[service] = bus);
    }
    if (!memoryBus) {
      const bus = createBus({ logger: logger.child({ bus: 'memory' }) });
      onStop('memory-bus', () => bus.close());
      memoryBus = bus;
    }
    return (buses[service] = memoryBus);
  };
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
