// The data engines (docs/adr/0005-deployment.md): the local overlay runs single-node MongoDB (a replica set
// of one, initiated by a Job), RabbitMQ (with rabbitmq_prometheus) and Redis, probed, sized and non-root;
// production declares the operators' clustered resources; compose's RabbitMQ has the same plugins.
import { INFRA_NAMESPACE, kubectlAvailable, kustomize, loadCompose, read } from './helpers';

const PLUGINS = /^\[([a-z_,\s]+)\]\.\s*$/;
const pluginsOf = (text: string): string[] => (PLUGINS.exec(text)?.[1] ?? '').split(',').map((p) => p.trim());

(kubectlAvailable() ? describe : describe.skip)('local overlay: engines for an empty cluster', () => {
  const objects = kustomize('deploy/k8s/overlays/local');
  const infra = objects.filter((o) => o.metadata.namespace === INFRA_NAMESPACE);
  const workload = (kind: string, name: string) => infra.find((o) => o.kind === kind && o.metadata.name === name);
  const ENGINES: [string, string, number][] = [
    ['StatefulSet', 'mongodb', 27017],
    ['StatefulSet', 'rabbitmq', 5672],
    ['Deployment', 'redis', 6379],
  ];

  it.each(ENGINES)('%s %s: one replica, probed, sized, non-root, behind its Service', (kind, name, port) => {
    const w = workload(kind, name);
    expect(w?.spec.replicas).toBe(1);
    const pod = w.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
      expect([c.name, c.securityContext]).toEqual([c.name, expect.objectContaining({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } })]);
      expect([c.name, c.resources?.requests && c.resources?.limits ? 'sized' : 'unsized']).toEqual([c.name, 'sized']);
    }
    for (const c of pod.containers) expect([c.name, !!c.readinessProbe, !!c.livenessProbe]).toEqual([c.name, true, true]);
    const svc = workload('Service', name);
    expect(svc.spec.ports.map((p: any) => p.port)).toContain(port);
  });

  it('MongoDB is a replica set (rs0) with authentication, initiated by the Job mongodb-users', () => {
    const args: string[] = workload('StatefulSet', 'mongodb').spec.template.spec.containers[0].args;
    expect(args.join(' ')).toMatch(/--replSet rs0\b/);
    expect(args).toContain('--keyFile');
    const job = objects.find((o) => o.kind === 'Job' && o.metadata.name === 'mongodb-users');
    expect(job.spec.template.spec.containers[0].command.join(' ')).toContain('mongodb-0.mongodb.helpdesk-infra.svc.cluster.local:27017');
    const script = read('deploy/k8s/overlays/local/mongodb-users.js');
    expect(script).toContain("rs.initiate({ _id: 'rs0'");
    expect(script).toContain('createUser');
  });

  it('RabbitMQ enables rabbitmq_prometheus (15692) and the management plugin', () => {
    const plugins = infra.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('rabbitmq-plugins-'));
    expect(pluginsOf(plugins.data.enabled_plugins)).toEqual(expect.arrayContaining(['rabbitmq_prometheus', 'rabbitmq_management']));
    const ports = workload('StatefulSet', 'rabbitmq').spec.template.spec.containers[0].ports.map((p: any) => p.containerPort);
    expect(ports).toContain(15692);
  });
});

(kubectlAvailable() ? describe : describe.skip)('production overlay: the operators’ clustered engines', () => {
  const objects = kustomize('deploy/k8s/overlays/production');
  const one = (kind: string) => {
    const found = objects.filter((o) => o.kind === kind);
    expect(found).toHaveLength(1);
    expect(found[0].metadata.namespace).toBe(INFRA_NAMESPACE);
    return found[0];
  };

  it('a 3-node RabbitmqCluster with rabbitmq_prometheus', () => {
    const rabbit = one('RabbitmqCluster');
    expect(rabbit.apiVersion).toBe('rabbitmq.com/v1beta1');
    expect(rabbit.spec.replicas).toBe(3);
    expect(rabbit.spec.rabbitmq.additionalPlugins).toContain('rabbitmq_prometheus');
    expect(rabbit.spec.resources.requests).toBeDefined();
  });

  it('a 3-member MongoDBCommunity replica set with SCRAM (its users: registry.test.ts)', () => {
    const mongo = one('MongoDBCommunity');
    expect(mongo.apiVersion).toBe('mongodbcommunity.mongodb.com/v1');
    expect(mongo.spec).toMatchObject({ members: 3, type: 'ReplicaSet', security: { authentication: { modes: ['SCRAM'] } } });
    // A dead client's transactions end within seconds (docs/adr/0058).
    expect(mongo.spec.additionalMongodConfig.setParameter).toEqual({ transactionLifetimeLimitSeconds: 10 });
  });

  it('no engine workloads of its own: Redis is a managed endpoint (REDIS_URL), no StatefulSet anywhere', () => {
    expect(objects.filter((o) => o.kind === 'StatefulSet' || (o.kind === 'Deployment' && o.metadata.namespace === INFRA_NAMESPACE))).toEqual([]);
  });
});

describe('docker-compose.yml RabbitMQ', () => {
  it('mounts enabled_plugins with rabbitmq_prometheus and the management UI; Prometheus scrapes it', () => {
    const mount: string = loadCompose().services.rabbitmq.volumes.find((v: string) => v.endsWith(':/etc/rabbitmq/enabled_plugins:ro'));
    expect(pluginsOf(read(mount.split(':')[0].replace(/^\.\//, '')))).toEqual(expect.arrayContaining(['rabbitmq_prometheus', 'rabbitmq_management']));
    expect(read('deploy/prometheus/prometheus.yml')).toContain('rabbitmq:15692');
  });
});
