// docker-compose.yml: structure, health-gated start order, env names, published ports, secrets.
// There is no Docker engine here (no `docker compose config`), so the file is parsed with `yaml`.
import {
  DEV_DEFAULTS,
  DOCKERFILE,
  ENTRY,
  IMAGE_NAME,
  INTERNAL_CALLS,
  RUN_AS,
  UNSAFE_FLAGS,
  WEBHOOKS_MAX_TIMEOUT_MS,
  exists,
  expectedEnv,
  isPinnedImage,
  loadCompose,
  optionalEnv,
  parseDocs,
  parseServiceUrls,
  read,
  withDefaults,
  INBOUND_EMAIL_PORTS,
} from './helpers';
import { DEV_PASSWORD as BROKER_DEV_PASSWORD } from '../rabbitmq/topology';

const compose = loadCompose();
const services: Record<string, any> = compose.services;
const names = Object.keys(services);
/** The platform's own processes: the services built from deploy/docker/Dockerfile. */
const apps = names.filter((n) => services[n].build !== undefined);
const env = (name: string): Record<string, string> => services[name].environment ?? {};
const INFRA_FOR_ENV: Record<string, string> = { MONGO_URL: 'mongodb', AMQP_URL: 'rabbitmq', REDIS_URL: 'redis' };
/** Ports that may be published besides the gateway's: operator UIs, on loopback. */
const UI_PORTS: Record<string, string> = { rabbitmq: '15672', jaeger: '16686', mailpit: '8025', prometheus: '9090' };

describe('docker-compose.yml', () => {
  it('has the infrastructure, the gateway, ticketing, customers and webhooks', () => {
    for (const name of ['mongodb', 'rabbitmq', 'redis', 'otel-collector', 'jaeger', 'gateway', 'ticketing', 'customers', 'webhooks']) {
      expect(names).toContain(name);
    }
    expect(apps).toEqual(expect.arrayContaining(['gateway', 'ticketing', 'customers', 'webhooks']));
  });

  it('gives every service an image or a build, pinned (no `latest`)', () => {
    for (const name of names) {
      const s = services[name];
      expect([name, s.image !== undefined || s.build !== undefined]).toEqual([name, true]);
      if (s.image !== undefined) expect([name, isPinnedImage(withDefaults(s.image))]).toEqual([name, true]);
    }
  });

  it('builds every Node process from the one Dockerfile, as one image', () => {
    expect(exists(DOCKERFILE)).toBe(true);
    for (const name of apps) {
      expect(services[name].build).toEqual({ context: '.', dockerfile: DOCKERFILE });
      expect(withDefaults(services[name].image)).toBe(`${IMAGE_NAME}:dev`);
    }
  });

  it('runs each process by its entry file, in an existing workspace', () => {
    for (const name of apps) {
      const command: string[] = services[name].command;
      expect(command).toHaveLength(1);
      expect(command[0]).toMatch(ENTRY);
      const folder = command[0].replace(/\/src\/main\.ts$/, '');
      expect(folder === 'gateway' ? 'gateway' : folder.split('/')[1]).toBe(name);
      expect(exists(`${folder}/package.json`)).toBe(true);
    }
  });

  it('hardens the Node processes as Kubernetes does (uid 10001, read-only, no capabilities)', () => {
    for (const name of apps) {
      const s = services[name];
      expect(s.user).toBe(`${RUN_AS}:${RUN_AS}`);
      expect(s.read_only).toBe(true);
      expect(s.tmpfs).toContain('/tmp');
      expect(s.cap_drop).toEqual(['ALL']);
      expect(s.security_opt).toContain('no-new-privileges:true');
    }
  });

  it('runs MongoDB as the single-node replica set rs0, initiated by the mongo-init one-shot; healthy once primary', () => {
    const mongo = services.mongodb;
    expect(mongo.command.join(' ')).toMatch(/--replSet rs0\b/);
    expect(mongo.healthcheck.test.join(' ')).toContain('isWritablePrimary');
    const init = services['mongo-init'];
    const command = init.command.join(' ');
    expect(command).toContain('rs.initiate(');
    expect(command).toContain("_id: 'rs0'");
    expect(command).toContain("host: 'mongodb:27017'");
    expect(init.restart).toBe('on-failure');
    expect(init.healthcheck.test.join(' ')).toContain('rs.status()');
    expect(init.depends_on.mongodb.condition).toBe('service_started');
    for (const name of apps) expect(env(name).MONGO_URL).toMatch(/^mongodb:\/\/mongodb:27017\/.*replicaSet=rs0/);
  });

  it('has healthchecks on RabbitMQ (management image), Redis and every Node process', () => {
    expect(services.rabbitmq.image).toMatch(/^rabbitmq:[0-9.]+-management$/);
    for (const name of ['mongodb', 'rabbitmq', 'redis', ...apps]) {
      const test = services[name].healthcheck?.test;
      expect([name, Array.isArray(test) && test[0] === 'CMD']).toEqual([name, true]);
    }
    for (const name of apps) {
      expect(services[name].healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${env(name).PORT}/readyz`);
    }
  });

  it('starts a process only once what it uses is healthy', () => {
    for (const name of names) {
      for (const [dep, spec] of Object.entries<any>(services[name].depends_on ?? {})) {
        expect(names).toContain(dep);
        if (apps.includes(name)) {
          expect([name, dep, spec.condition]).toEqual([name, dep, 'service_healthy']);
          expect(services[dep].healthcheck).toBeDefined();
          // An app must not wait on an optional (profiled) service: it would not start without it.
          expect(services[dep].profiles).toBeUndefined();
        }
      }
    }
    for (const name of apps) {
      const deps = Object.keys(services[name].depends_on ?? {});
      for (const [variable, infra] of Object.entries(INFRA_FOR_ENV)) {
        if (env(name)[variable] !== undefined) expect([name, deps.includes(infra)]).toEqual([name, true]);
      }
    }
    // ...and never for another process (exactly its stores: registry.test.ts), so each deploys alone.
    for (const name of apps) {
      const deps = Object.keys(services[name].depends_on ?? {});
      expect([name, deps.filter((d) => apps.includes(d))]).toEqual([name, []]);
    }
  });

  it('gives each process exactly its documented variables, from one shared block', () => {
    for (const name of apps) {
      const keys = Object.keys(env(name));
      for (const required of expectedEnv(name)) expect([name, keys.includes(required)]).toEqual([name, true]);
      for (const key of keys) {
        expect([name, key, [...expectedEnv(name), ...optionalEnv(name)].includes(key)]).toEqual([name, key, true]);
      }
    }
    // The shared variables come from one YAML anchor, merged into every Node process.
    const raw = read('docker-compose.yml');
    expect(raw).toMatch(/^x-node-env: &node-env$/m);
    expect(raw.match(/<<: \*node-env/g)).toHaveLength(apps.length);
    expect(raw.match(/<<: \*node-app/g)).toHaveLength(apps.length);
  });

  it("routes the gateway to every service by its compose name and port", () => {
    const urls = parseServiceUrls(env('gateway').SERVICE_URLS);
    const others = apps.filter((a) => a !== 'gateway');
    expect(Object.keys(urls).sort()).toEqual(others.sort());
    for (const name of others) expect(urls[name]).toBe(`http://${name}:${env(name).PORT}`);
    expect(env('gateway').PORT).toBe('8080');
  });

  it('calls another service directly only as documented (ticketing → customers), by its compose name and port', () => {
    for (const { caller, callee, env: variable } of INTERNAL_CALLS) {
      expect([caller, variable, env(caller)[variable]]).toEqual([caller, variable, `http://${callee}:${env(callee).PORT}`]);
    }
    // No other variable of a service points at another process (the gateway's SERVICE_URLS aside).
    for (const name of apps.filter((a) => a !== 'gateway')) {
      for (const [key, raw] of Object.entries<any>(env(name))) {
        const host = /^[a-z]+:\/\/(?:[^/@]*@)?([^:/]+)/.exec(withDefaults(String(raw)))?.[1];
        if (host === undefined || !apps.includes(host)) continue;
        const documented = INTERNAL_CALLS.some((c) => c.caller === name && c.callee === host && c.env === key);
        expect([name, key, host, documented]).toEqual([name, key, host, true]);
      }
    }
  });

  it('never turns an unsafe development switch on (WEBHOOKS_ALLOW_LOOPBACK) and bounds the webhook timeout', () => {
    for (const name of names) {
      for (const [flag, safe] of Object.entries(UNSAFE_FLAGS)) {
        const value = services[name].environment?.[flag];
        // Not even overridable from the shell: unset, or literally the safe value.
        if (value !== undefined) expect([name, flag, String(value)]).toEqual([name, flag, safe]);
      }
    }
    const timeout = withDefaults(String(env('webhooks').WEBHOOKS_TIMEOUT_MS));
    expect(timeout).toMatch(/^[1-9][0-9]*$/);
    expect(Number(timeout)).toBeLessThanOrEqual(WEBHOOKS_MAX_TIMEOUT_MS);
  });

  it('publishes only the proxy in front of the gateway and ticketing\'s inbound mail ports, plus operator UIs on loopback', () => {
    for (const name of names) {
      const ports: string[] = (services[name].ports ?? []).map((p: unknown) => String(p));
      if (name === 'proxy') {
        expect(ports.map(withDefaults)).toEqual(['8080:8080']);
      } else if (name === 'ticketing') {
        expect(ports).toEqual(Object.values(INBOUND_EMAIL_PORTS).map((p) => `${p}:${p}`));
      } else if (name === 'grafana') {
        expect(ports).toEqual(['127.0.0.1:3001:3000']);
      } else if (UI_PORTS[name]) {
        expect(ports).toEqual([`127.0.0.1:${UI_PORTS[name]}:${UI_PORTS[name]}`]);
      } else {
        expect([name, ports]).toEqual([name, []]);
      }
      expect(services[name].expose).toBeUndefined();
      expect(services[name].network_mode).toBeUndefined();
    }
  });

  it('hard-codes no secret: only the documented development defaults, overridable from the environment', () => {
    const secretName = /SECRET|PASSWORD|_PASS$|TOKEN|API_KEY/;
    const allowed = Object.entries(DEV_DEFAULTS);
    const isDocumentedDefault = (value: string) =>
      allowed.some(([variable, fallback]) => value === `\${${variable}:-${fallback}}`);
    for (const name of names) {
      for (const [key, raw] of Object.entries<any>(services[name].environment ?? {})) {
        const value = String(raw);
        if (secretName.test(key) && !/_PER_MINUTE$/.test(key)) {
          expect([name, key, isDocumentedDefault(value) || /^\$\{[A-Z0-9_]+\}$/.test(value)]).toEqual([name, key, true]);
        }
        // Credentials inside URLs come from a variable too, but for the broker users: RabbitMQ loads them
        // with their password hashes from deploy/rabbitmq/definitions.json (docs/adr/0060), so each
        // service's AMQP_URL has its own user and that file's development password, fixed.
        const userinfo = /^[a-z+]+:\/\/([^/@]*)@/.exec(value);
        if (userinfo?.[1].includes(':')) {
          const [user, password] = [userinfo[1].slice(0, userinfo[1].indexOf(':')), userinfo[1].slice(userinfo[1].indexOf(':') + 1)];
          if (key === 'AMQP_URL') expect([name, key, user, password]).toEqual([name, key, name, BROKER_DEV_PASSWORD]);
          else expect([name, key, isDocumentedDefault(password)]).toEqual([name, key, true]);
        }
      }
    }
    // The token secret's development default satisfies the processes' own rule (>= 32 chars).
    expect(DEV_DEFAULTS.INTERNAL_TOKEN_SECRET.length).toBeGreaterThanOrEqual(32);
    for (const name of apps) {
      expect(env(name).INTERNAL_TOKEN_SECRET).toBe(`\${INTERNAL_TOKEN_SECRET:-${DEV_DEFAULTS.INTERNAL_TOKEN_SECRET}}`);
    }
    // ...and each default is documented as development-only in the ADR; the broker users' password is
    // RABBITMQ_PASSWORD's default there.
    const adr = read('docs/adr/0005-deployment.md');
    for (const [variable, fallback] of allowed) {
      expect(adr).toContain(variable);
      expect(adr).toContain(fallback);
    }
    expect(BROKER_DEV_PASSWORD).toBe(DEV_DEFAULTS.RABBITMQ_PASSWORD);
    expect(read('docs/adr/0060-alerts-and-broker-owned-metrics.md')).toContain(BROKER_DEV_PASSWORD);
  });

  it('keeps tracing optional: collector and Jaeger in the observability profile, off by default', () => {
    for (const name of ['otel-collector', 'jaeger']) expect(services[name].profiles).toEqual(['observability']);
    for (const name of apps) expect(withDefaults(env(name).OTEL_EXPORTER_OTLP_ENDPOINT)).toBe('');
    const mount: string = services['otel-collector'].volumes[0];
    const file = mount.split(':')[0].replace(/^\.\//, '');
    expect(exists(file)).toBe(true);
    const [config] = parseDocs(read(file));
    expect(config.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
    expect(config.exporters['otlp/jaeger'].endpoint).toBe('jaeger:4317');
    expect(config.service.pipelines.traces.exporters).toEqual(['otlp/jaeger']);
  });
});
