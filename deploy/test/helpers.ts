// Shared facts and loaders for the deploy artefact tests (docker-compose.yml, deploy/k8s,
// deploy/docker). The facts here are the contract the processes publish (README, ARCHITECTURE):
// adding a service usually needs no change in this file.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export const ROOT = resolve(__dirname, '..', '..');
export const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
export const exists = (path: string): boolean => existsSync(join(ROOT, path));

/** The one image every Node process runs (compose's build tag; k8s overlays retag it). */
export const IMAGE_NAME = 'helpdesk/app';
export const DOCKERFILE = 'deploy/docker/Dockerfile';
export const RUN_AS = 10001;

/** Variables each kind of process reads. */
export const GATEWAY_ENV = [
  'PORT',
  'MONGO_URL',
  'REDIS_URL',
  'INTERNAL_TOKEN_SECRET',
  'SECRETS_KEY',
  'SERVICE_URLS',
  'RATE_LIMIT_SECRET_PER_MINUTE',
  'RATE_LIMIT_PUBLISHABLE_PER_MINUTE',
  'TRUSTED_PROXIES',
  'LOG_LEVEL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
];
/** What every service process reads (shared/kit/src/config.ts, runServiceMain). */
export const SERVICE_ENV = ['PORT', 'MONGO_URL', 'AMQP_URL', 'INTERNAL_TOKEN_SECRET', 'LOG_LEVEL', 'OTEL_EXPORTER_OTLP_ENDPOINT'];
/** The processes that read more than their kind's variables: all of them, exactly. */
const PROCESS_ENV: Record<string, string[]> = {
  gateway: GATEWAY_ENV,
  ticketing: [...SERVICE_ENV, 'SECRETS_KEY', 'CUSTOMERS_URL', 'INBOUND_EMAIL_DOMAIN', 'INBOUND_SMTP_PORT', 'INBOUND_HTTP_PORT'],
  webhooks: [...SERVICE_ENV, 'SECRETS_KEY', 'WEBHOOKS_TIMEOUT_MS'],
  community: [...SERVICE_ENV, 'CUSTOMERS_URL', 'ATTACHMENTS_S3_URL'],
  notifications: [...SERVICE_ENV, 'WORKSPACE_URL', 'TICKETING_URL', 'SMTP_URL', 'REDIS_URL'],
  workspace: [...SERVICE_ENV, 'AUDIT_RETENTION_DAYS', 'SIGN_IN_URL'],
  dataops: [...SERVICE_ENV, 'TICKETING_URL', 'CUSTOMERS_URL', 'KNOWLEDGE_URL', 'COMMUNITY_URL', 'WORKSPACE_URL'],
};
/** Documented variables a process may also be given (ARCHITECTURE.md, Embedded defaults). */
export const OPTIONAL_ENV = ['NODE_ENV', 'OTEL_SERVICE_NAME', 'SMTP_URL', 'STRIPE_SECRET_KEY', 'AI_BASE_URL', 'KEY_CACHE_TTL_MS', 'METRICS_PORT'];
/** Variables only one process may also be given (each checked for its safe value by the tests). */
const PROCESS_OPTIONAL_ENV: Record<string, string[]> = {
  // During a rotation of the key of secrets at rest (docs/adr/0067).
  gateway: ['SECRETS_KEY_PREVIOUS'],
  webhooks: ['WEBHOOKS_ALLOW_LOOPBACK', 'SECRETS_KEY_PREVIOUS'],
  // Where attachments go when ATTACHMENTS_S3_URL is empty (a folder under it).
  community: ['DATA_DIR', 'ATTACHMENTS_S3_REGION'],
  // Where mail goes when SMTP_URL is empty (a folder under it).
  notifications: ['DATA_DIR', 'MAIL_FROM'],
  // Inbound email's switches, STARTTLS files and size limit (docs/adr/0041).
  ticketing: ['SECRETS_KEY_PREVIOUS', 'INBOUND_EMAIL_LISTENERS', 'INBOUND_SMTP_HOST', 'INBOUND_HTTP_HOST', 'INBOUND_SMTP_TLS_KEY_FILE', 'INBOUND_SMTP_TLS_CERT_FILE', 'INBOUND_EMAIL_MAX_BYTES'],
  // Stripe's webhook signing secret, with STRIPE_SECRET_KEY (docs/adr/0024).
  workspace: ['STRIPE_WEBHOOK_SECRET'],
};
export const expectedEnv = (process: string): string[] => PROCESS_ENV[process] ?? SERVICE_ENV;
export const optionalEnv = (process: string): string[] => [...OPTIONAL_ENV, ...(PROCESS_OPTIONAL_ENV[process] ?? [])];

/**
 * The one entry besides the gateway: ticketing's inbound mail listeners (docs/adr/0041), reached from
 * the internet by mail servers (SMTP) and mail providers' inbound webhooks (raw MIME, the team's
 * secret on every request). Port name → container port; Kubernetes publishes them through the
 * Service `ticketing-inbound-email` only.
 */
export const INBOUND_EMAIL_PORTS: Record<string, number> = { smtp: 2525, 'inbound-http': 2580 };
export const INBOUND_EMAIL_SERVICE = 'ticketing-inbound-email';

/**
 * Unsafe switches, for local development only: wherever a deployment artefact sets one, it must be
 * this (safe) value. Unset means the safe default.
 */
export const UNSAFE_FLAGS: Record<string, string> = { WEBHOOKS_ALLOW_LOOPBACK: 'false' };

/** webhooks' per-attempt timeout: a positive integer of milliseconds, at most this. */
export const WEBHOOKS_MAX_TIMEOUT_MS = 15_000;

/**
 * The only direct service-to-service HTTP calls (everything else goes through events): the caller
 * reaches the callee's http port at the URL in `env`. The NetworkPolicies admit exactly these.
 */
export const INTERNAL_CALLS: { caller: string; callee: string; env: string }[] = [
  { caller: 'ticketing', callee: 'customers', env: 'CUSTOMERS_URL' },
  { caller: 'community', callee: 'customers', env: 'CUSTOMERS_URL' },
  { caller: 'notifications', callee: 'workspace', env: 'WORKSPACE_URL' },
  // The widget conversation stream checks its token (docs/adr/0040).
  { caller: 'notifications', callee: 'ticketing', env: 'TICKETING_URL' },
  { caller: 'dataops', callee: 'ticketing', env: 'TICKETING_URL' },
  { caller: 'dataops', callee: 'customers', env: 'CUSTOMERS_URL' },
  { caller: 'dataops', callee: 'knowledge', env: 'KNOWLEDGE_URL' },
  { caller: 'dataops', callee: 'community', env: 'COMMUNITY_URL' },
  { caller: 'dataops', callee: 'workspace', env: 'WORKSPACE_URL' },
];
/** The processes that call the internet (webhook deliveries): their egress stays off private ranges. */
export const INTERNET_CALLERS = ['webhooks'];

/**
 * The keys of the Secret helpdesk-secrets (deploy/k8s/base/secret.template.yaml). MONGO_URL and AMQP_URL
 * are in each process's own Secrets (deploy/registry.ts mongoSecretName, amqpSecretName).
 */
export const SECRET_KEYS = ['INTERNAL_TOKEN_SECRET', 'SECRETS_KEY', 'SECRETS_KEY_PREVIOUS', 'REDIS_URL', 'ATTACHMENTS_S3_URL', 'SMTP_URL', 'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'];

/**
 * Development-only defaults that may appear in docker-compose.yml and the local overlay. Each is
 * documented in docs/adr/0005-deployment.md; any other secret-looking value is a failure.
 */
export const DEV_DEFAULTS = {
  INTERNAL_TOKEN_SECRET: 'dev-only-internal-token-secret-change-me',
  SECRETS_KEY: 'dev-only-secrets-key-change-me-0123456789',
  RABBITMQ_PASSWORD: 'helpdesk-dev-password',
  MINIO_ROOT_PASSWORD: 'helpdesk-dev-minio-password',
  GRAFANA_ADMIN_PASSWORD: 'helpdesk-dev-grafana-password',
  // The local Kubernetes overlay's MongoDB administrator and per-process users.
  MONGO_DEV_PASSWORD: 'helpdesk-dev-mongo-password',
};

/** The namespace of the platform's processes, and of the data engines (the overlays' engines/). */
export const NAMESPACE = 'helpdesk';
export const INFRA_NAMESPACE = 'helpdesk-infra';

/** A process's entry file: gateway/src/main.ts or services/<name>/src/main.ts. */
export const ENTRY = /^(gateway|services\/[a-z][a-z0-9-]*)\/src\/main\.ts$/;

/** The compose services built from the Dockerfile: the platform's own processes. */
export const composeApps = (compose: any): string[] => Object.keys(compose.services).filter((n) => compose.services[n].build !== undefined);

/** A rendered Secret's decoded values. */
export const secretValues = (secret: any): Record<string, string> =>
  Object.fromEntries(Object.entries<string>(secret?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

export function loadCompose(): any {
  return parse(read('docker-compose.yml'), { merge: true });
}

/** A YAML file that may hold several documents. */
export function parseDocs(text: string): any[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length > 0) throw new Error(d.errors.map((e) => e.message).join('\n'));
      return d.toJS();
    })
    .filter((d) => d != null);
}

export const kubectlAvailable = (): boolean => spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

const rendered = new Map<string, any[]>();
/** `kubectl kustomize dir`, once per test file (callers must not change the objects). */
export function kustomize(dir: string): any[] {
  const cached = rendered.get(dir);
  if (cached) return cached;
  const out = spawnSync('kubectl', ['kustomize', join(ROOT, dir)], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (out.status !== 0) throw new Error(`kubectl kustomize ${dir} failed:\n${out.stderr}`);
  const objects = parseDocs(out.stdout);
  rendered.set(dir, objects);
  return objects;
}

/** The platform's own Deployments of a rendered overlay (not the engines' in helpdesk-infra). */
export const appDeployments = (objects: any[]): any[] => objects.filter((o) => o.kind === 'Deployment' && o.metadata.namespace === NAMESPACE);

/** Kubernetes quantities to numbers (cpu in cores, memory in bytes). */
export function quantity(value: string | number): number {
  if (typeof value === 'number') return value;
  const m = /^([0-9.]+)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(value);
  if (!m) throw new Error(`not a quantity: ${value}`);
  const factor: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 1024,
    Mi: 1024 ** 2,
    Gi: 1024 ** 3,
    Ti: 1024 ** 4,
  };
  return Number(m[1]) * factor[m[2] ?? ''];
}

/** `name=url,name=url` → {name: url}. */
export function parseServiceUrls(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

/** An image reference pinned to a tag or digest other than `latest`. */
export function isPinnedImage(image: string): boolean {
  if (image.includes('@sha256:')) return true;
  const lastSlash = image.lastIndexOf('/');
  const colon = image.indexOf(':', lastSlash + 1);
  if (colon === -1) return false;
  const tag = image.slice(colon + 1);
  return tag.length > 0 && tag !== 'latest' && !tag.includes('${');
}

/** Compose-style interpolation with every variable unset: `${X:-d}` → d, `${X}` → ''. */
export function withDefaults(value: string): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::?-([^}]*))?\}/g, (_m, _name: string, fallback?: string) => fallback ?? '');
}

/** A CIDR block: address family, network address as a number, prefix length. */
export interface Cidr {
  family: 4 | 6;
  base: bigint;
  prefix: number;
}

/**
 * Parses `a.b.c.d/n` or an IPv6 `x:y::z/n` (no embedded IPv4). Like the API server's strict
 * validation, refuses a block with host bits set (it must be written as its network address).
 */
export function parseCidr(text: string): Cidr {
  const m = /^([^/]+)\/([0-9]{1,3})$/.exec(text);
  const family = m ? isIP(m[1]) : 0;
  if (!m || (family !== 4 && family !== 6)) throw new Error(`not a CIDR: ${text}`);
  const [ip, prefix, bits] = [m[1], Number(m[2]), family === 4 ? 32 : 128];
  if (prefix > bits) throw new Error(`not a CIDR: ${text}`);
  let base = 0n;
  if (family === 4) {
    for (const octet of ip.split('.')) base = (base << 8n) | BigInt(Number(octet));
  } else {
    if (ip.includes('.')) throw new Error(`IPv6 with embedded IPv4 is not supported: ${text}`);
    const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
    for (const group of groups) base = (base << 16n) | BigInt(parseInt(group, 16));
  }
  if ((base & ((1n << BigInt(bits - prefix)) - 1n)) !== 0n) throw new Error(`host bits set: ${text}`);
  return { family, base, prefix };
}

/** Whether every address of `inner` is in `outer`. */
export function cidrCovers(outer: Cidr, inner: Cidr): boolean {
  if (outer.family !== inner.family || outer.prefix > inner.prefix) return false;
  const shift = BigInt((outer.family === 4 ? 32 : 128) - outer.prefix);
  return outer.base >> shift === inner.base >> shift;
}
