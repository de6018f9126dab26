// deploy/k8s: render each overlay with `kubectl kustomize` (offline), validate every object against
// the Kubernetes OpenAPI schemas (kubernetes-models), and check the platform's own rules: hardened
// pods, probes, resources, one image, the network paths (the gateway, plus the documented internal
// calls, into the services; webhooks' egress kept off private ranges), and agreement with compose.
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { PROCESSES, amqpSecretName, mongoSecretName } from '../registry';
import {
  DEV_DEFAULTS,
  ENTRY,
  INFRA_NAMESPACE,
  NAMESPACE,
  appDeployments,
  composeApps as composeAppsOf,
  secretValues,
  IMAGE_NAME,
  INTERNAL_CALLS,
  INTERNET_CALLERS,
  RUN_AS,
  SECRET_KEYS,
  UNSAFE_FLAGS,
  WEBHOOKS_MAX_TIMEOUT_MS,
  cidrCovers,
  expectedEnv,
  isPinnedImage,
  kubectlAvailable,
  kustomize,
  loadCompose,
  optionalEnv,
  parseCidr,
  parseDocs,
  parseServiceUrls,
  quantity,
  read,
  INBOUND_EMAIL_PORTS,
  INBOUND_EMAIL_SERVICE,
} from './helpers';

/**
 * The operators' resources (production's engines/): no schema package here, so their shape is checked
 * in engines.test.ts; this only requires the fields every object has.
 */
class OperatorResource {
  constructor(private readonly data: any) {}
  validate(): void {
    if (!this.data.metadata?.name || typeof this.data.spec !== 'object') throw new Error('needs metadata.name and spec');
  }
}

/** The kinds the manifests may use, each with its schema-validating model. */
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1/StatefulSet': StatefulSet,
  'batch/v1/Job': Job,
  'rabbitmq.com/v1beta1/RabbitmqCluster': OperatorResource,
  'rabbitmq.com/v1beta1/User': OperatorResource,
  'rabbitmq.com/v1beta1/Permission': OperatorResource,
  'rabbitmq.com/v1beta1/TopicPermission': OperatorResource,
  'mongodbcommunity.mongodb.com/v1/MongoDBCommunity': OperatorResource,
  'monitoring.coreos.com/v1/PodMonitor': OperatorResource,
  'monitoring.coreos.com/v1/PrometheusRule': OperatorResource,
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
};
const OVERLAYS = ['local', 'production'];

/**
 * Addresses an internet caller (webhooks) must never reach: private (RFC 1918, IPv6 unique local),
 * loopback, link-local (with the cloud metadata endpoints 169.254.169.254 and fd00:ec2::254),
 * carrier-grade NAT and "this network". The application refuses them; its egress policy must too.
 */
const PRIVATE_RANGES = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
].map(parseCidr);
/** Namespaces an internet caller may reach besides the internet: where the platform's infrastructure runs. */
const INFRA_NAMESPACES = ['helpdesk-infra', 'observability'];
/**
 * Private addresses of infrastructure outside the cluster that an internet caller may reach, on
 * explicit ports only (see overlays/production/kustomization.yaml). None today.
 */
const INFRA_EGRESS_CIDRS: string[] = [];
const DNS_PORTS = [
  { port: 53, protocol: 'TCP' },
  { port: 53, protocol: 'UDP' },
];
const sortPorts = (ports: any[] | undefined) =>
  [...(ports ?? [])].map((p) => ({ port: p.port, protocol: p.protocol ?? 'TCP' })).sort((a, b) => a.protocol.localeCompare(b.protocol));

/** Where Prometheus runs (base/network-policy.yaml metrics-from-prometheus; the production overlay's PodMonitors scrape from there). */
const MONITORING_PEER = {
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
  podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
};
/** An ingress rule admitting exactly Prometheus's pods, to the metrics port only. */
const isMetricsRule = (rule: { from?: unknown[]; ports?: { port?: unknown }[] }): boolean =>
  JSON.stringify(rule.from) === JSON.stringify([MONITORING_PEER]) && (rule.ports ?? []).length > 0 && (rule.ports ?? []).every((p) => p.port === 'metrics');

function validate(obj: any): void {
  const Model = MODELS[`${obj.apiVersion}/${obj.kind}`];
  if (!Model) throw new Error(`${obj.apiVersion} ${obj.kind} has no model in MODELS: add it there`);
  new Model(withUnwrappedBase64(obj)).validate();
}

/**
 * kustomize wraps base64 values longer than 76 characters over several lines; the API server's
 * decoder skips the newlines, the schema's `byte` format does not.
 */
function withUnwrappedBase64(obj: any): any {
  if (obj.kind !== 'Secret' || !obj.data) return obj;
  const data = Object.fromEntries(Object.entries<string>(obj.data).map(([k, v]) => [k, v.replace(/\s+/g, '')]));
  return { ...obj, data };
}

const matches = (selector: Record<string, string> | undefined, labels: Record<string, string>): boolean =>
  Object.entries(selector ?? {}).every(([k, v]) => labels[k] === v);

const compose = loadCompose();
const composeApps = composeAppsOf(compose);

const haveKubectl = kubectlAvailable();
if (!haveKubectl) {
  console.warn('deploy/test/k8s.test.ts: kubectl is not on PATH, so the overlays are NOT rendered or validated (install kubectl to run these tests).');
}
const describeRendered = haveKubectl ? describe : describe.skip;

describe('deploy/k8s/base/secret.template.yaml', () => {
  const template = parseDocs(read('deploy/k8s/base/secret.template.yaml')).find((d) => d.metadata.name === 'helpdesk-secrets');
  it('is a valid Secret named helpdesk-secrets with exactly the secret keys', () => {
    validate(template);
    expect(template.metadata.name).toBe('helpdesk-secrets');
    expect(Object.keys(template.stringData).sort()).toEqual([...SECRET_KEYS].sort());
  });
  it('is not applied by the base (each environment supplies the Secret)', () => {
    const [kustomization] = parseDocs(read('deploy/k8s/base/kustomization.yaml'));
    expect(kustomization.resources).not.toContain('secret.template.yaml');
  });
});

describeRendered.each(OVERLAYS)('deploy/k8s/overlays/%s', (overlay) => {
  let objects: any[] = [];
  const all = (kind: string) => objects.filter((o) => o.kind === kind);
  const one = (kind: string, name: string) => {
    const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
    if (!found) throw new Error(`no ${kind} ${name}`);
    return found;
  };
  const deployments = () => appDeployments(objects) as Deployment[];
  const services = () => deployments().filter((d) => d.metadata!.name !== 'gateway');

  beforeAll(() => {
    objects = kustomize(`deploy/k8s/overlays/${overlay}`);
  });

  it('renders objects that all validate against the Kubernetes schemas', () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const obj of objects) {
      try {
        validate(obj);
      } catch (err) {
        throw new Error(`${obj.kind} ${obj.metadata?.name}: ${(err as Error).message}`);
      }
    }
  });

  it('puts the platform in the helpdesk namespace and the engines in helpdesk-infra, with the part-of label', () => {
    expect(one('Namespace', NAMESPACE).metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
    // helpdesk-infra holds exactly what the overlay's engines/ renders (the data engines); the rest is the platform's.
    const key = (o: any) => `${o.kind}/${o.metadata.name}`;
    const engines = kustomize(`deploy/k8s/overlays/${overlay}/engines`).filter((o) => o.kind !== 'Namespace');
    const inInfra = objects.filter((o) => o.kind !== 'Namespace' && o.metadata.namespace === INFRA_NAMESPACE);
    expect(inInfra.map(key).sort()).toEqual(engines.map(key).sort());
    for (const obj of objects.filter((o) => o.kind !== 'Namespace' && !inInfra.includes(o))) {
      expect([obj.kind, obj.metadata.name, obj.metadata.namespace]).toEqual([obj.kind, obj.metadata.name, NAMESPACE]);
    }
    for (const obj of objects) expect(obj.metadata.labels['app.kubernetes.io/part-of']).toBe('helpdesk');
  });

  it('has a Deployment per process, the same as docker-compose.yml, each running its entry file', () => {
    const names = deployments().map((d) => d.metadata!.name!);
    expect(names.sort()).toEqual([...composeApps].sort());
    expect(names).toEqual(expect.arrayContaining(['gateway', 'ticketing']));
    for (const d of deployments()) {
      const name = d.metadata!.name!;
      const [container] = d.spec!.template.spec!.containers;
      expect(d.spec!.template.spec!.containers).toHaveLength(1);
      expect(container.name).toBe(name);
      expect(container.args).toEqual(compose.services[name].command);
      expect(container.args![0]).toMatch(ENTRY);
      expect(container.command).toBeUndefined(); // the image's ENTRYPOINT (node with tsx and the telemetry preload)
      const port = container.ports!.find((p) => p.name === 'http');
      expect(String(port?.containerPort)).toBe(compose.services[name].environment.PORT);
    }
  });

  it('runs every Deployment from the one image, pinned (each process its own tag: registry.test.ts)', () => {
    for (const d of deployments()) {
      const image = d.spec!.template.spec!.containers[0].image!;
      expect([d.metadata!.name, isPinnedImage(image)]).toEqual([d.metadata!.name, true]);
      expect(image.replace(/[:@].*$/, '')).toMatch(new RegExp(`(^|/)${IMAGE_NAME}$`));
    }
  });

  it('hardens every pod and container: non-root 10001, read-only root, no privilege escalation, no capabilities, RuntimeDefault seccomp', () => {
    for (const d of deployments()) {
      const pod = d.spec!.template.spec!;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: RUN_AS, runAsGroup: RUN_AS, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.hostNetwork ?? false).toBe(false);
      for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
        const sc = c.securityContext!;
        expect(sc.allowPrivilegeEscalation).toBe(false);
        expect(sc.readOnlyRootFilesystem).toBe(true);
        expect(sc.privileged ?? false).toBe(false);
        expect(sc.capabilities?.drop).toContain('ALL');
        expect(sc.capabilities?.add ?? []).toEqual([]);
        expect(sc.runAsNonRoot ?? pod.securityContext!.runAsNonRoot).toBe(true);
        expect(sc.runAsUser ?? pod.securityContext!.runAsUser).toBe(RUN_AS);
        expect((sc.seccompProfile ?? pod.securityContext!.seccompProfile)?.type).toBe('RuntimeDefault');
        // /tmp is the one writable path, an emptyDir.
        const tmp = c.volumeMounts?.find((m) => m.mountPath === '/tmp');
        expect(tmp).toBeDefined();
        expect(pod.volumes?.find((v) => v.name === tmp!.name)?.emptyDir).toBeDefined();
      }
    }
  });

  it('probes liveness on /healthz and readiness on /readyz, on the http port', () => {
    for (const d of deployments()) {
      const c = d.spec!.template.spec!.containers[0];
      expect(c.livenessProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'http' });
      expect(c.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', port: 'http' });
      expect(c.startupProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'http' });
      expect(c.ports!.map((p) => p.name)).toContain('http');
    }
  });

  it('sets cpu and memory requests and limits on every container, requests within limits', () => {
    for (const d of deployments()) {
      for (const c of d.spec!.template.spec!.containers) {
        for (const resource of ['cpu', 'memory']) {
          const request = c.resources?.requests?.[resource];
          const limit = c.resources?.limits?.[resource];
          expect([c.name, resource, request !== undefined && limit !== undefined]).toEqual([c.name, resource, true]);
          expect(quantity(request as string)).toBeLessThanOrEqual(quantity(limit as string));
        }
      }
    }
  });

  it('gives each process exactly its variables, from the ConfigMap and the Secret', () => {
    const config = one('ConfigMap', 'helpdesk-config');
    const secrets = all('Secret');
    for (const d of deployments()) {
      const name = d.metadata!.name!;
      const env = d.spec!.template.spec!.containers[0].env ?? [];
      const names = env.map((e) => e.name);
      for (const required of expectedEnv(name)) expect([name, names.includes(required)]).toEqual([name, true]);
      for (const n of names) expect([name, n, [...expectedEnv(name), ...optionalEnv(name)].includes(n)]).toEqual([name, n, true]);
      for (const e of env) {
        if ([...SECRET_KEYS, 'MONGO_URL', 'AMQP_URL'].includes(e.name)) {
          // Secret values only ever come from the Secret.
          expect(e.value).toBeUndefined();
          expect(e.valueFrom?.secretKeyRef?.key).toBe(e.name);
        }
        const cm = e.valueFrom?.configMapKeyRef;
        if (cm) {
          expect(cm.name).toBe('helpdesk-config');
          expect(Object.keys(config.data)).toContain(cm.key);
        }
        const ref = e.valueFrom?.secretKeyRef;
        if (ref && overlay === 'local') {
          const secret = secrets.find((s) => s.metadata.name === ref.name);
          expect(Object.keys(secret?.data ?? {})).toContain(ref.key);
        }
        const own: Record<string, string> = { MONGO_URL: mongoSecretName(name), AMQP_URL: amqpSecretName(name) };
        if (ref && overlay === 'production') expect([e.name, ref.name]).toEqual([e.name, own[e.name] ?? 'helpdesk-secrets']);
        // MONGO_URL and AMQP_URL only ever from the process's own Secret (its own database user, its own broker user).
        if (e.name in own) expect([e.name, ref?.key]).toEqual([e.name, e.name]);
        if (ref && overlay === 'local' && e.name in own) expect(ref.name).toMatch(new RegExp(`^${own[e.name]}-[a-z0-9]+$`));
      }
      expect(d.spec!.template.spec!.containers[0].envFrom).toBeUndefined();
    }
  });

  it('lists every service in the gateway SERVICE_URLS, by its Service name and port', () => {
    const urls = parseServiceUrls(one('ConfigMap', 'helpdesk-config').data.SERVICE_URLS);
    expect(Object.keys(urls).sort()).toEqual(services().map((d) => d.metadata!.name!).sort());
    for (const d of services()) {
      const name = d.metadata!.name!;
      const svc = one('Service', name);
      expect(urls[name]).toBe(`http://${name}:${svc.spec.ports.find((p: any) => p.name === 'http').port}`);
    }
  });

  it('exposes each Deployment through a Service of the same name on its http port', () => {
    for (const d of deployments()) {
      const svc = one('Service', d.metadata!.name!) as Service;
      expect(svc.spec!.type ?? 'ClusterIP').toBe('ClusterIP');
      expect(matches(svc.spec!.selector, d.spec!.template.metadata!.labels!)).toBe(true);
      expect(matches(d.spec!.selector.matchLabels, d.spec!.template.metadata!.labels!)).toBe(true);
      expect(svc.spec!.ports!.find((p) => p.name === 'http')?.targetPort).toBe('http');
    }
  });

  it('scales the gateway with an HPA, protects it with a PDB and routes to it through an Ingress', () => {
    const gateway = one('Deployment', 'gateway') as Deployment;
    const labels = gateway.spec!.template.metadata!.labels!;
    expect(gateway.spec!.replicas).toBeUndefined(); // the HPA owns the count
    const hpa = one('HorizontalPodAutoscaler', 'gateway') as HorizontalPodAutoscaler;
    expect(hpa.spec!.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'gateway' });
    expect(hpa.spec!.minReplicas).toBeGreaterThanOrEqual(1);
    expect(hpa.spec!.maxReplicas).toBeGreaterThan(hpa.spec!.minReplicas!);
    expect(hpa.spec!.metrics!.some((m) => m.resource?.name === 'cpu')).toBe(true);
    const pdb = one('PodDisruptionBudget', 'gateway') as PodDisruptionBudget;
    expect(matches(pdb.spec!.selector!.matchLabels, labels)).toBe(true);
    // Which paths: public-paths.test.ts; here, that every one goes to the gateway's http port.
    const paths = (one('Ingress', 'gateway') as Ingress).spec!.rules!.flatMap((r) => r.http!.paths);
    expect(paths.map((p) => p.path)).toContain('/api');
    for (const p of paths) expect([p.path, p.pathType, p.backend.service?.name, p.backend.service?.port?.name]).toEqual([p.path, 'Prefix', 'gateway', 'http']);
    expect(all('Ingress').map((i) => i.metadata.name).sort()).toEqual(['gateway', INBOUND_EMAIL_SERVICE]);
    // Only the gateway (through the Ingress) and ticketing's inbound mail listeners are reachable from
    // outside: no other Service is a LoadBalancer or NodePort.
    for (const svc of all('Service')) {
      if (svc.metadata.name !== INBOUND_EMAIL_SERVICE) {
        if (svc.spec.clusterIP === 'None') continue; // headless (the local MongoDB's member names)
        expect([svc.metadata.name, svc.spec.type ?? 'ClusterIP']).toEqual([svc.metadata.name, 'ClusterIP']);
        continue;
      }
      expect(svc.spec.type).toBe('LoadBalancer');
      expect(svc.spec.selector).toEqual({ 'app.kubernetes.io/name': 'ticketing' });
      expect(svc.spec.ports.map((p: any) => p.targetPort).sort()).toEqual(Object.keys(INBOUND_EMAIL_PORTS).sort());
      const ticketingPorts = (one('Deployment', 'ticketing') as Deployment).spec!.template.spec!.containers[0].ports!;
      for (const [name, port] of Object.entries(INBOUND_EMAIL_PORTS)) expect(ticketingPorts.find((p) => p.name === name)?.containerPort).toBe(port);
    }
  });

  it('never turns an unsafe development switch on (WEBHOOKS_ALLOW_LOOPBACK) and bounds the webhook timeout', () => {
    const config = one('ConfigMap', 'helpdesk-config');
    for (const [flag, safe] of Object.entries(UNSAFE_FLAGS)) {
      if (config.data[flag] !== undefined) expect([flag, config.data[flag]]).toEqual([flag, safe]);
      for (const d of deployments()) {
        for (const e of (d.spec!.template.spec!.containers[0].env ?? []).filter((x) => x.name === flag)) {
          const value = e.valueFrom?.configMapKeyRef ? config.data[e.valueFrom.configMapKeyRef.key] : e.value;
          expect([d.metadata!.name, flag, value]).toEqual([d.metadata!.name, flag, safe]);
        }
      }
    }
    const timeout = String(config.data.WEBHOOKS_TIMEOUT_MS);
    expect(timeout).toMatch(/^[1-9][0-9]*$/);
    expect(Number(timeout)).toBeLessThanOrEqual(WEBHOOKS_MAX_TIMEOUT_MS);
  });

  it('points each documented internal caller at its callee, by Service name and port (ticketing → customers)', () => {
    const config = one('ConfigMap', 'helpdesk-config');
    for (const { caller, callee, env: variable } of INTERNAL_CALLS) {
      const port = one('Service', callee).spec.ports.find((p: any) => p.name === 'http').port;
      const env = (one('Deployment', caller) as Deployment).spec!.template.spec!.containers[0].env ?? [];
      const ref = env.find((e) => e.name === variable)?.valueFrom?.configMapKeyRef;
      expect([caller, variable, ref?.key]).toEqual([caller, variable, variable]);
      expect([variable, config.data[variable]]).toEqual([variable, `http://${callee}:${port}`]);
    }
    // No ConfigMap value points another process at a service, but the gateway's SERVICE_URLS and these.
    const names = deployments().map((d) => d.metadata!.name!);
    for (const [key, value] of Object.entries<string>(config.data)) {
      const host = /^[a-z]+:\/\/([^:/]+)/.exec(value)?.[1];
      if (key === 'SERVICE_URLS' || host === undefined || !names.includes(host)) continue;
      expect([key, INTERNAL_CALLS.some((c) => c.env === key && c.callee === host)]).toEqual([key, true]);
    }
  });

  it('lets only the gateway and the documented internal callers reach each service, on its http port, and denies all other ingress by default', () => {
    const policies = all('NetworkPolicy') as NetworkPolicy[];
    // Selectors are matchLabels only, so `matches` below is exactly what the CNI evaluates.
    for (const p of objects.filter((o) => o.kind === 'NetworkPolicy')) {
      expect([p.metadata.name, JSON.stringify(p.spec).includes('matchExpressions')]).toEqual([p.metadata.name, false]);
    }
    const defaultDeny = policies.find((p) => Object.keys(p.spec!.podSelector.matchLabels ?? {}).length === 0 && !p.spec!.ingress);
    expect(defaultDeny?.spec!.policyTypes).toContain('Ingress');
    const labelsOf = (d: Deployment) => d.spec!.template.metadata!.labels!;
    /** The processes a peer's pod selector admits (in this namespace): at least one, never "all pods". */
    const admitted = (selector: { matchLabels?: Record<string, string> } | undefined): string[] => {
      expect(Object.keys(selector?.matchLabels ?? {}).length).toBeGreaterThan(0);
      const found = deployments().filter((d) => matches(selector!.matchLabels, labelsOf(d))).map((d) => d.metadata!.name!);
      expect(found.length).toBeGreaterThan(0);
      return found;
    };
    for (const d of services()) {
      const name = d.metadata!.name!;
      const labels = labelsOf(d);
      expect(labels['app.kubernetes.io/component']).toBe('service');
      const allowed = ['gateway', ...INTERNAL_CALLS.filter((c) => c.callee === name).map((c) => c.caller)];
      const selecting = policies.filter(
        (p) => p !== defaultDeny && (p.spec!.policyTypes ?? ['Ingress']).includes('Ingress') && matches(p.spec!.podSelector.matchLabels, labels),
      );
      expect(selecting.length).toBeGreaterThan(0);
      const callers = new Set<string>();
      for (const p of selecting) {
        if (p.metadata!.name === INBOUND_EMAIL_SERVICE) {
          // From anywhere, but only to the inbound mail ports, only on ticketing.
          expect([name, p.spec!.ingress!.map((r) => [r.from, sortPorts(r.ports)])]).toEqual([
            'ticketing',
            [[undefined, sortPorts(Object.keys(INBOUND_EMAIL_PORTS).map((port) => ({ port, protocol: 'TCP' })))]],
          ]);
          continue;
        }
        for (const rule of p.spec!.ingress ?? []) {
          // Prometheus's access to the metrics port: the next test.
          if (isMetricsRule(rule)) continue;
          expect(rule.from?.length).toBeGreaterThan(0);
          expect([name, p.metadata!.name, sortPorts(rule.ports)]).toEqual([name, p.metadata!.name, [{ port: 'http', protocol: 'TCP' }]]);
          for (const peer of rule.from!) {
            expect(peer.namespaceSelector).toBeUndefined();
            expect(peer.ipBlock).toBeUndefined();
            for (const caller of admitted(peer.podSelector)) {
              expect([name, p.metadata!.name, caller, allowed.includes(caller)]).toEqual([name, p.metadata!.name, caller, true]);
              callers.add(caller);
            }
          }
        }
      }
      // ...and each of them can: the gateway everywhere, ticketing into customers.
      expect([name, [...callers].sort()]).toEqual([name, [...allowed].sort()]);
    }
    const gatewayLabels = labelsOf(one('Deployment', 'gateway') as Deployment);
    expect(policies.some((p) => matches(p.spec!.podSelector.matchLabels, gatewayLabels) && p !== defaultDeny)).toBe(true);
  });

  it("admits Prometheus (the monitoring namespace's Prometheus pods) to every Deployment's metrics port, the registry's metricsPort, and to nothing else", () => {
    const policies = (all('NetworkPolicy') as NetworkPolicy[]).filter((p) => (p.spec!.policyTypes ?? ['Ingress']).includes('Ingress'));
    // Whatever admits the monitoring peer admits it to the metrics port only.
    for (const p of policies) {
      for (const rule of p.spec!.ingress ?? []) {
        if (!(rule.from ?? []).some((peer) => peer.namespaceSelector)) continue;
        if (p.metadata!.name === 'gateway-ingress') continue; // the ingress controller's namespace (production)
        expect([p.metadata!.name, isMetricsRule(rule), sortPorts(rule.ports)]).toEqual([p.metadata!.name, true, [{ port: 'metrics', protocol: 'TCP' }]]);
      }
    }
    expect(deployments().length).toBe(PROCESSES.length);
    for (const d of deployments()) {
      const name = d.metadata!.name!;
      const entry = PROCESSES.find((x) => x.name === name)!;
      const labels = d.spec!.template.metadata!.labels!;
      const containerPorts = d.spec!.template.spec!.containers[0].ports!;
      const admitted = policies
        .filter((p) => matches(p.spec!.podSelector.matchLabels, labels))
        .flatMap((p) => (p.spec!.ingress ?? []).filter(isMetricsRule))
        .flatMap((rule) => rule.ports ?? [])
        .map((port) => (typeof port.port === 'number' ? port.port : containerPorts.find((c) => c.name === port.port)?.containerPort));
      expect([name, admitted]).toEqual([name, expect.arrayContaining([entry.metricsPort])]);
    }
  });

  it('names every process for tracing: OTEL_SERVICE_NAME is its registry name', () => {
    expect(deployments().map((d) => d.metadata!.name).sort()).toEqual(PROCESSES.map((p) => p.name).sort());
    for (const d of deployments()) {
      const env = d.spec!.template.spec!.containers[0].env ?? [];
      expect([d.metadata!.name, env.find((e) => e.name === 'OTEL_SERVICE_NAME')?.value]).toEqual([d.metadata!.name, d.metadata!.name]);
    }
  });

  it("keeps webhooks' egress to DNS, its infrastructure and public addresses: never private, link-local or metadata ranges", () => {
    const policies = (all('NetworkPolicy') as NetworkPolicy[]).filter((p) => (p.spec!.policyTypes ?? []).includes('Egress'));
    const labelsOf = (d: Deployment) => d.spec!.template.metadata!.labels!;
    // Only internet callers have restricted egress (the others reach their infrastructure freely).
    for (const p of policies) {
      const selected = deployments().filter((d) => matches(p.spec!.podSelector.matchLabels, labelsOf(d)));
      expect(Object.keys(p.spec!.podSelector.matchLabels ?? {}).length).toBeGreaterThan(0);
      for (const d of selected) expect([p.metadata!.name, d.metadata!.name, INTERNET_CALLERS.includes(d.metadata!.name!)]).toEqual([p.metadata!.name, d.metadata!.name, true]);
    }
    // The in-cluster infrastructure every process connects to, as <service>.<namespace> hosts.
    const config = one('ConfigMap', 'helpdesk-config');
    const urls = [config.data.OTEL_EXPORTER_OTLP_ENDPOINT];
    for (const secret of all('Secret')) {
      for (const key of ['MONGO_URL', 'AMQP_URL']) urls.push(Buffer.from(secret.data[key] ?? '', 'base64').toString('utf8'));
    }
    const infraNamespaces = urls
      .map((u) => /^[a-z+]+:\/\/(?:[^/@]*@)?[a-z0-9-]+\.([a-z0-9-]+)(?:\.svc(?:\.cluster\.local)?)?(?::[0-9]+)?(?:[/?]|$)/.exec(u ?? '')?.[1])
      .filter((ns): ns is string => ns !== undefined);
    expect(infraNamespaces.length).toBeGreaterThan(0);

    for (const name of INTERNET_CALLERS) {
      const labels = labelsOf(one('Deployment', name) as Deployment);
      const rules = policies.filter((p) => matches(p.spec!.podSelector.matchLabels, labels)).flatMap((p) => p.spec!.egress ?? []);
      // Defence in depth is in place: egress is restricted at all.
      expect([name, rules.length > 0]).toEqual([name, true]);
      const namespaces = new Set<string>();
      const cidrs = new Set<string>();
      let dns = false;
      for (const rule of rules) {
        if (!rule.to || rule.to.length === 0) {
          // Any destination: DNS only.
          expect([name, sortPorts(rule.ports)]).toEqual([name, DNS_PORTS]);
          dns = true;
          continue;
        }
        for (const peer of rule.to) {
          if (peer.ipBlock) {
            const cidr = parseCidr(peer.ipBlock.cidr);
            const except = (peer.ipBlock.except ?? []).map(parseCidr);
            // As the API server requires: each exception a strict subset of the block.
            for (const e of except) expect([peer.ipBlock.cidr, cidrCovers(cidr, e) && e.prefix > cidr.prefix]).toEqual([peer.ipBlock.cidr, true]);
            if (INFRA_EGRESS_CIDRS.includes(peer.ipBlock.cidr)) {
              expect(rule.ports?.length).toBeGreaterThan(0);
            } else {
              for (const range of PRIVATE_RANGES) {
                const overlap = cidrCovers(cidr, range) ? range : cidrCovers(range, cidr) ? cidr : undefined;
                if (overlap) expect([peer.ipBlock.cidr, range, except.some((e) => cidrCovers(e, overlap))]).toEqual([peer.ipBlock.cidr, range, true]);
              }
            }
            cidrs.add(peer.ipBlock.cidr);
          } else {
            // A namespace of the infrastructure (never this one's services, never kube-system).
            expect(peer.podSelector).toBeUndefined();
            expect(Object.keys(peer.namespaceSelector?.matchLabels ?? {})).toEqual(['kubernetes.io/metadata.name']);
            const ns = peer.namespaceSelector!.matchLabels!['kubernetes.io/metadata.name'];
            expect([ns, INFRA_NAMESPACES.includes(ns)]).toEqual([ns, true]);
            namespaces.add(ns);
          }
        }
      }
      // ...and it still works: DNS, the internet on IPv4 and IPv6, and every in-cluster dependency.
      expect(dns).toBe(true);
      expect([...cidrs]).toEqual(expect.arrayContaining(['0.0.0.0/0', '::/0']));
      for (const ns of infraNamespaces) expect([name, ns, namespaces.has(ns)]).toEqual([name, ns, true]);
    }
  });

  if (overlay === 'local') {
    it('generates the Secrets with the documented development values only', () => {
      const secrets = all('Secret').filter((s) => /^helpdesk-secrets-[a-z0-9]+$/.test(s.metadata.name));
      expect(secrets).toHaveLength(1);
      const [secret] = secrets;
      expect(Object.keys(secret.data).sort()).toEqual([...SECRET_KEYS].sort());
      const decoded = secretValues(secret);
      expect(decoded.INTERNAL_TOKEN_SECRET).toBe(DEV_DEFAULTS.INTERNAL_TOKEN_SECRET);
      // Each service's AMQP_URL: its own broker user (the definitions' development password).
      for (const p of PROCESSES.filter((x) => x.stores.includes('amqp'))) {
        const own = all('Secret').find((x) => x.metadata.name.startsWith(`${amqpSecretName(p.name)}-`) && !x.metadata.name.includes('-credentials'));
        expect([p.name, secretValues(own).AMQP_URL]).toEqual([p.name, `amqp://${p.name}:${DEV_DEFAULTS.RABBITMQ_PASSWORD}@rabbitmq.${INFRA_NAMESPACE}:5672`]);
      }
      // Every other generated Secret: a process's MONGO_URL, the engines' credentials; passwords are dev defaults.
      const passwords = Object.values(DEV_DEFAULTS);
      for (const s of all('Secret').filter((x) => x !== secret)) {
        for (const [key, value] of Object.entries(secretValues(s))) {
          const password = /^[a-z+]+:\/\/[^:/@]*:([^@]*)@/.exec(value)?.[1] ?? (/PASS/.test(key) ? value : undefined);
          if (password !== undefined) expect([s.metadata.name, key, passwords.includes(password)]).toEqual([s.metadata.name, key, true]);
          if (key === 'MONGO_URL') expect(value).toMatch(/replicaSet=rs0/);
        }
      }
    });
  }

  if (overlay === 'production') {
    it('carries no secret values: the Secret is supplied by the environment', () => {
      expect(all('Secret')).toEqual([]);
    });

    it('runs several replicas of everything, a registry image and TLS on the Ingress', () => {
      expect((one('HorizontalPodAutoscaler', 'gateway') as HorizontalPodAutoscaler).spec!.minReplicas).toBeGreaterThanOrEqual(3);
      for (const d of services()) {
        const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === d.metadata!.name);
        expect([d.metadata!.name, hpa ? hpa.spec.minReplicas : d.spec!.replicas]).toEqual([d.metadata!.name, expect.any(Number)]);
        expect(hpa ? hpa.spec.minReplicas : d.spec!.replicas).toBeGreaterThanOrEqual(2);
      }
      const image = (one('Deployment', 'gateway') as Deployment).spec!.template.spec!.containers[0].image!;
      expect(image).toMatch(/^[a-z0-9.-]+\.[a-z]+(:[0-9]+)?\/.+/);
      expect(image).not.toMatch(/:dev$/);
      for (const ingress of all('Ingress') as Ingress[]) {
        expect(ingress.spec!.tls?.[0]?.secretName).toBeDefined();
        expect(ingress.spec!.tls![0].hosts).toEqual(ingress.spec!.rules!.map((r) => r.host));
        expect(ingress.spec!.ingressClassName).toBeDefined();
      }
    });
  }
});
