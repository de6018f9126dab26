// deploy/registry.ts is the list of the platform's processes: docker-compose.yml, the Kubernetes base and
// overlays and deploy/prometheus/prometheus.yml are checked against it, entry by entry. A process in the
// registry and missing from a file fails naming that file; an app in a file and not in the registry fails too.
import { PROCESSES, imageTagVariable, mongoSecretName, type ProcessEntry, type Store } from '../registry';
import { INFRA_NAMESPACE, NAMESPACE, appDeployments, composeApps, kubectlAvailable, kustomize, loadCompose, parseDocs, read, secretValues } from './helpers';

const NAMES = PROCESSES.map((p) => p.name);
const sorted = (list: Iterable<string>) => [...list].sort();
/** The compose service of each store, and the condition a process waits for. */
const COMPOSE_STORE: Record<Store, string> = { mongo: 'mongodb', amqp: 'rabbitmq', redis: 'redis' };
const STORE_ENV: Record<Store, string> = { mongo: 'MONGO_URL', amqp: 'AMQP_URL', redis: 'REDIS_URL' };
const STORES: Store[] = ['mongo', 'amqp', 'redis'];
/** `[file, what, found]`: a failure names the file that lacks the process. */
const lacks = (file: string, what: string, found: boolean) => expect([file, what, found]).toEqual([file, what, true]);

describe('docker-compose.yml against deploy/registry.ts', () => {
  const compose = loadCompose();
  const services: Record<string, any> = compose.services;
  const FILE = 'docker-compose.yml';

  it('has exactly the registry processes as its app services', () => {
    for (const name of NAMES) lacks(FILE, name, services[name]?.build !== undefined);
    for (const name of composeApps(compose)) lacks('deploy/registry.ts', name, NAMES.includes(name));
  });

  describe.each(PROCESSES.map((p) => [p.name, p] as const))('%s', (name, p: ProcessEntry) => {
    const s = services[name] ?? {};
    const env: Record<string, string> = s.environment ?? {};

    it('runs its entry from its own image tag, on its ports, named for tracing', () => {
      expect(s.command).toEqual([p.entry]);
      expect(s.image).toBe(`helpdesk/app:\${${imageTagVariable(name)}:-dev}`);
      expect(env.PORT).toBe(String(p.port));
      expect(env.METRICS_PORT).toBe(String(p.metricsPort));
      expect(env.OTEL_SERVICE_NAME).toBe(name);
      for (const extra of p.extraPorts) {
        expect([extra.env, env[extra.env]]).toEqual([extra.env, String(extra.port)]);
        expect([extra.name, (s.ports ?? []).includes(`${extra.port}:${extra.port}`)]).toEqual([extra.name, extra.public]);
      }
    });

    it('waits for exactly its own stores, healthy, and never for another process', () => {
      const expected = Object.fromEntries(p.stores.map((store) => [COMPOSE_STORE[store], { condition: 'service_healthy' }]));
      expect(s.depends_on).toEqual(expected);
      for (const store of STORES) expect([STORE_ENV[store], env[STORE_ENV[store]] !== undefined]).toEqual([STORE_ENV[store], p.stores.includes(store)]);
    });

    it('gets SECRETS_KEY exactly when it keeps secrets at rest', () => {
      expect(['SECRETS_KEY', env.SECRETS_KEY !== undefined]).toEqual(['SECRETS_KEY', p.secretsAtRest]);
    });

    it('reaches each service it calls at http://<service>:<port>', () => {
      for (const call of p.calls) {
        const callee = PROCESSES.find((c) => c.name === call.service)!;
        expect([call.env, env[call.env]]).toEqual([call.env, `http://${callee.name}:${callee.port}`]);
      }
    });
  });
});

describe('deploy/prometheus/prometheus.yml against deploy/registry.ts', () => {
  const [config] = parseDocs(read('deploy/prometheus/prometheus.yml'));
  const job = config.scrape_configs.find((c: any) => c.job_name === 'helpdesk');
  const targets: string[] = job.static_configs.flatMap((s: any) => s.targets);

  it("scrapes every process's metrics port, and nothing that is not a process", () => {
    for (const p of PROCESSES) lacks('deploy/prometheus/prometheus.yml', `${p.name}:${p.metricsPort}`, targets.includes(`${p.name}:${p.metricsPort}`));
    for (const target of targets) lacks('deploy/registry.ts', target, NAMES.includes(target.split(':')[0]));
  });
});

(kubectlAvailable() ? describe : describe.skip)('the Kubernetes base against deploy/registry.ts', () => {
  const FILE = 'deploy/k8s/base';
  const objects = kustomize(FILE);
  const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
  const [config] = parseDocs(read('deploy/k8s/base/config.yaml'));
  const [kustomization] = parseDocs(read('deploy/k8s/base/kustomization.yaml'));

  it('has a Deployment for exactly the registry processes, each listed as <name>.yaml', () => {
    for (const name of NAMES) {
      lacks(`${FILE}/kustomization.yaml`, `${name}.yaml`, kustomization.resources.includes(`${name}.yaml`));
      lacks(`${FILE}/${name}.yaml`, `Deployment ${name}`, find('Deployment', name) !== undefined);
    }
    for (const d of appDeployments(objects)) lacks('deploy/registry.ts', d.metadata.name, NAMES.includes(d.metadata.name));
  });

  it('documents each process’s own MongoDB Secret in secret.template.yaml', () => {
    const template = parseDocs(read('deploy/k8s/base/secret.template.yaml'));
    for (const name of NAMES) {
      const secret = template.find((d) => d.metadata.name === mongoSecretName(name));
      lacks(`${FILE}/secret.template.yaml`, mongoSecretName(name), secret !== undefined);
      const url = new URL(secret.stringData.MONGO_URL);
      expect([name, url.username, url.pathname]).toEqual([name, name, `/${name}`]);
    }
  });

  describe.each(PROCESSES.map((p) => [p.name, p] as const))('%s', (name, p: ProcessEntry) => {
    const d = find('Deployment', name);
    const c = d?.spec.template.spec.containers[0] ?? {};
    const env = (variable: string) => c.env?.find((e: any) => e.name === variable);

    it('runs its entry, its own image name, on its ports, named for tracing', () => {
      expect(c.args).toEqual([p.entry]);
      expect(c.image).toMatch(new RegExp(`^helpdesk/${name}:`));
      const ports = Object.fromEntries((c.ports ?? []).map((port: any) => [port.name, port.containerPort]));
      expect(ports).toEqual({ http: p.port, metrics: p.metricsPort, ...Object.fromEntries(p.extraPorts.map((e) => [e.name, e.port])) });
      expect(env('OTEL_SERVICE_NAME')?.value).toBe(name);
      const svc = find('Service', name);
      lacks(`${FILE}/${name}.yaml`, `Service ${name}`, svc !== undefined);
      expect(svc.spec.ports.find((port: any) => port.name === 'http')?.port).toBe(p.port);
    });

    it('reads MONGO_URL from its own Secret and the URL of each service it calls', () => {
      expect(env('MONGO_URL')?.valueFrom).toEqual({ secretKeyRef: { name: mongoSecretName(name), key: 'MONGO_URL' } });
      for (const store of STORES) expect([STORE_ENV[store], env(STORE_ENV[store]) !== undefined]).toEqual([STORE_ENV[store], p.stores.includes(store)]);
      for (const call of p.calls) {
        const callee = PROCESSES.find((x) => x.name === call.service)!;
        expect([call.env, env(call.env)?.valueFrom?.configMapKeyRef?.key]).toEqual([call.env, call.env]);
        expect([call.env, config.data[call.env]]).toEqual([call.env, `http://${callee.name}:${callee.port}`]);
      }
    });
  });
});

(kubectlAvailable() ? describe : describe.skip)('the Kubernetes overlays against deploy/registry.ts: one process at a time, sized and scaled', () => {
  describe.each(['local', 'production'] as const)('%s', (overlay) => {
    const dir = `deploy/k8s/overlays/${overlay}`;
    const objects = kustomize(dir);
    const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name && o.metadata.namespace === NAMESPACE);
    const [kustomization] = parseDocs(read(`${dir}/kustomization.yaml`));
    const patches = parseDocs(read(`${dir}/patches.yaml`));

    it.each(NAMES)('%s: its own images entry, resources, a PDB, and its replicas from the registry', (name) => {
      const p = PROCESSES.find((x) => x.name === name)!;
      lacks(`${dir}/kustomization.yaml`, `images: helpdesk/${name}`, kustomization.images.some((i: any) => i.name === `helpdesk/${name}`));
      const sized = patches.find((x) => x.kind === 'Deployment' && x.metadata.name === name);
      lacks(`${dir}/patches.yaml`, `resources of ${name}`, sized?.spec.template.spec.containers[0].resources?.limits !== undefined);
      const pdb = find('PodDisruptionBudget', name);
      lacks(`deploy/k8s/base/${name}.yaml`, `PodDisruptionBudget ${name}`, pdb?.spec.selector.matchLabels['app.kubernetes.io/name'] === name);
      const d = find('Deployment', name);
      const hpa = find('HorizontalPodAutoscaler', name);
      const floor = overlay === 'local' ? p.replicas.local : p.replicas.production;
      if (p.autoscale) {
        lacks(`deploy/k8s/base/${name}.yaml`, `HorizontalPodAutoscaler ${name}`, hpa !== undefined);
        expect([name, d.spec.replicas]).toEqual([name, undefined]); // the HPA owns the count
        expect([name, hpa.spec.minReplicas]).toEqual([name, floor]);
        if (overlay === 'production') expect([name, hpa.spec.maxReplicas]).toEqual([name, p.replicas.max]);
        expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
        expect(hpa.spec.maxReplicas).toBeLessThanOrEqual(p.replicas.max);
      } else {
        expect([name, hpa]).toEqual([name, undefined]);
        lacks(`${dir}/kustomization.yaml`, `replicas: ${name}`, kustomization.replicas.some((r: any) => r.name === name && r.count === floor));
        expect([name, d.spec.replicas]).toEqual([name, floor]);
      }
    });

    if (overlay === 'local') {
      it.each(NAMES)('%s: a generated MONGO_URL with its own user and database, and the Job creating that user', (name) => {
        const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.namespace === NAMESPACE && o.metadata.name.startsWith(`${mongoSecretName(name)}-`));
        lacks(`${dir}/kustomization.yaml`, `secretGenerator ${mongoSecretName(name)}`, secret !== undefined);
        const url = new URL(secretValues(secret).MONGO_URL);
        expect([name, url.username, url.pathname, url.searchParams.get('replicaSet')]).toEqual([name, name, `/${name}`, 'rs0']);
        expect(url.password.length).toBeGreaterThan(0);
        const job = find('Job', 'mongodb-users');
        const ref = job.spec.template.spec.containers[0].env.find((e: any) => e.name === `MONGO_URL_${name.toUpperCase().replace(/-/g, '_')}`);
        lacks(`${dir}/mongodb-users.yaml`, `MONGO_URL_${name.toUpperCase()}`, ref?.valueFrom.secretKeyRef.name === secret.metadata.name);
      });
    }

    if (overlay === 'production') {
      it('declares one MongoDB user per process, readWrite on its own database only, matching its Secret', () => {
        const mongo = objects.find((o) => o.kind === 'MongoDBCommunity' && o.metadata.namespace === INFRA_NAMESPACE);
        const users = mongo.spec.users;
        expect(sorted(users.map((u: any) => u.name))).toEqual(sorted(NAMES));
        const template = parseDocs(read('deploy/k8s/base/secret.template.yaml'));
        for (const user of users) {
          expect([user.name, user.roles]).toEqual([user.name, [{ name: 'readWrite', db: user.name }]]);
          expect(user.passwordSecretRef.name).toBe(`${mongoSecretName(user.name)}-password`);
          const url = new URL(template.find((t) => t.metadata.name === mongoSecretName(user.name)).stringData.MONGO_URL);
          expect([user.name, url.hostname, url.searchParams.get('replicaSet'), url.searchParams.get('authSource')]).toEqual([
            user.name,
            `${mongo.metadata.name}-svc.${INFRA_NAMESPACE}.svc.cluster.local`,
            mongo.metadata.name,
            user.db,
          ]);
        }
      });
    }
  });
});
