// One RabbitMQ user per service (docs/adr/0060): generated from the event catalog and each type's owner
// (deploy/rabbitmq/topology.ts), the committed files equal to the generated ones, every owner agreeing
// with the code that emits the type, and every deployment connecting each service as its own user. The
// permissions themselves are tried on a real broker in rabbitmq-permissions.platform.test.ts.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_TYPES } from '@helpdesk/contracts';
import { PROCESSES, SERVICES, amqpSecretName } from '../registry';
import { DEFINITIONS_FILES, TOPOLOGY_FILE, generatedFiles, staleFiles } from '../generate';
import {
  ADMIN_USER,
  AGGREGATE_OWNERS,
  DEV_PASSWORD,
  EXCHANGE,
  brokerUser,
  brokerUsers,
  credentialsSecretName,
  definitions,
  eventOwner,
  ownedEventTypes,
  queueNames,
} from '../rabbitmq/topology';
import { INFRA_NAMESPACE, NAMESPACE, ROOT, kubectlAvailable, kustomize, loadCompose, parseDocs, read, secretValues } from './helpers';

const AMQP_PROCESSES = PROCESSES.filter((p) => p.stores.includes('amqp')).map((p) => p.name);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}
/** Each service's source, joined (services/<name>/src). */
const SOURCE = Object.fromEntries(SERVICES.map((s) => [s.name, sourceFiles(join(ROOT, 'services', s.name, 'src')).map((f) => readFileSync(f, 'utf8')).join('\n')]));

it('every generated file is up to date (npx tsx deploy/generate.ts rewrites them)', () => {
  expect(staleFiles()).toEqual([]);
  expect(Object.keys(generatedFiles())).toEqual(expect.arrayContaining([...DEFINITIONS_FILES, TOPOLOGY_FILE]));
});

describe('event owners', () => {
  it('every event type of the catalog has an owner, a service that connects to RabbitMQ', () => {
    for (const type of EVENT_TYPES) expect([type, AMQP_PROCESSES.includes(eventOwner(type))]).toEqual([type, true]);
    // No owner entry for an aggregate the catalog does not have.
    const aggregates = new Set(EVENT_TYPES.map((t) => t.split('.')[0]));
    for (const aggregate of Object.keys(AGGREGATE_OWNERS)) expect([aggregate, aggregates.has(aggregate)]).toEqual([aggregate, true]);
  });

  it('agrees with the code: the owner is the one service whose source emits the type', () => {
    for (const type of EVENT_TYPES) {
      const quoted = `['"\`]${type.replace(/\./g, '\\.')}['"\`]`;
      const emitters = SERVICES.map((s) => s.name).filter((name) => new RegExp(`type:\\s*${quoted}`).test(SOURCE[name]));
      if (emitters.length) expect([type, emitters]).toEqual([type, [eventOwner(type)]]);
      // Emitted through a variable (api_key.* on the gateway's behalf): the owner's source names it.
      else expect([type, new RegExp(quoted).test(SOURCE[eventOwner(type)])]).toEqual([type, true]);
    }
  });
});

describe('the users', () => {
  it('one per process that connects to RabbitMQ, named as the process, plus the operators’ administrator', () => {
    expect(brokerUsers().map((u) => u.name)).toEqual(AMQP_PROCESSES);
    const defs = definitions() as { users: { name: string; tags: string[] }[] };
    expect(defs.users.map((u) => u.name)).toEqual([ADMIN_USER, ...AMQP_PROCESSES]);
    expect(defs.users.filter((u) => u.tags.length).map((u) => u.name)).toEqual([ADMIN_USER]);
  });

  it.each(AMQP_PROCESSES)('%s may publish exactly its own event types, and reach only its own queues', (name) => {
    const user = brokerUser(name);
    const write = new RegExp(user.topicWrite);
    for (const type of EVENT_TYPES) expect([type, write.test(type)]).toEqual([type, eventOwner(type) === name]);
    expect(user.publishes).toEqual(ownedEventTypes(name));
    expect([write.test(''), write.test('forged'), write.test(`${user.publishes[0] ?? 'x'}.more`)]).toEqual([false, false, false]);
    const mine = Object.values(queueNames(name));
    const theirs = AMQP_PROCESSES.filter((n) => n !== name).flatMap((n) => Object.values(queueNames(n)));
    for (const permission of ['configure', 'write', 'read'] as const) {
      const re = new RegExp(user[permission]);
      for (const q of mine) expect([permission, q, re.test(q)]).toEqual([permission, q, true]);
      for (const q of theirs) expect([permission, q, re.test(q)]).toEqual([permission, q, false]);
      expect([permission, re.test(EXCHANGE)]).toEqual([permission, true]);
    }
  });

  it('dataops owns no event type: it publishes nothing', () => {
    expect(ownedEventTypes('dataops')).toEqual([]);
    expect(new RegExp(brokerUser('dataops').topicWrite).test('ticket.created')).toBe(false);
  });
});

describe('compose', () => {
  const compose = loadCompose();

  it('the broker loads the generated definitions at boot, and creates no default user', () => {
    const rabbit = compose.services.rabbitmq;
    expect(rabbit.environment?.RABBITMQ_DEFAULT_USER).toBeUndefined();
    expect(rabbit.volumes).toContain('./deploy/rabbitmq/definitions.json:/etc/rabbitmq/definitions.json:ro');
    const conf = rabbit.volumes.find((v: string) => v.includes('/etc/rabbitmq/conf.d/'));
    expect(read(conf.split(':')[0].replace(/^\.\//, ''))).toMatch(/^load_definitions = \/etc\/rabbitmq\/definitions\.json$/m);
    expect(JSON.parse(read('deploy/rabbitmq/definitions.json'))).toEqual(definitions());
  });

  it.each(AMQP_PROCESSES)('%s connects as its own user', (name) => {
    const url = new URL(compose.services[name].environment.AMQP_URL);
    expect([url.username, url.password, url.host]).toEqual([name, DEV_PASSWORD, 'rabbitmq:5672']);
  });

  it('the gateway, which publishes through workspace, has no broker URL', () => {
    expect(compose.services.gateway.environment.AMQP_URL).toBeUndefined();
  });
});

describe('Kubernetes', () => {
  const template = parseDocs(read('deploy/k8s/base/secret.template.yaml'));

  it('secret.template.yaml documents each service’s AMQP_URL Secret and its broker credentials', () => {
    for (const name of AMQP_PROCESSES) {
      const url = new URL(template.find((t) => t.metadata.name === amqpSecretName(name)).stringData.AMQP_URL);
      expect([name, url.username]).toEqual([name, name]);
      const creds = template.find((t) => t.metadata.name === credentialsSecretName(name));
      expect([name, creds.metadata.namespace, creds.stringData.username]).toEqual([name, INFRA_NAMESPACE, name]);
    }
    expect(template.find((t) => t.metadata.name === 'helpdesk-secrets').stringData.AMQP_URL).toBeUndefined();
  });

  (kubectlAvailable() ? describe : describe.skip)('rendered', () => {
    it.each(['local', 'production'])('%s: every service reads AMQP_URL from its own Secret', (overlay) => {
      const objects = kustomize(`deploy/k8s/overlays/${overlay}`);
      for (const name of AMQP_PROCESSES) {
        const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.namespace === NAMESPACE && o.metadata.name === name);
        const ref = d.spec.template.spec.containers[0].env.find((e: any) => e.name === 'AMQP_URL').valueFrom.secretKeyRef;
        expect([name, ref.key, ref.name.replace(/-[a-z0-9]{10}$/, '')]).toEqual([name, 'AMQP_URL', amqpSecretName(name)]);
      }
    });

    it('local: the broker loads the generated definitions (a Secret) at boot; each service has a generated AMQP_URL as its user', () => {
      const objects = kustomize('deploy/k8s/overlays/local');
      const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.namespace === INFRA_NAMESPACE && o.metadata.name.startsWith('rabbitmq-definitions-'));
      expect(JSON.parse(secretValues(secret)['definitions.json'])).toEqual(definitions());
      const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('rabbitmq-config-'));
      expect(config.data['helpdesk.conf']).toBe('load_definitions = /etc/rabbitmq/definitions.json');
      const rabbit = objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'rabbitmq');
      const pod = rabbit.spec.template.spec;
      const mounts = pod.containers[0].volumeMounts;
      const mountOf = (path: string) => mounts.find((m: any) => m.mountPath === path);
      expect(pod.volumes.find((v: any) => v.name === mountOf('/etc/rabbitmq/definitions.json').name).secret.secretName).toBe(secret.metadata.name);
      expect(pod.volumes.find((v: any) => v.name === mountOf('/etc/rabbitmq/conf.d/90-helpdesk.conf').name).configMap.name).toBe(config.metadata.name);
      expect(pod.containers[0].env ?? []).toEqual([]);
      for (const name of AMQP_PROCESSES) {
        const own = objects.find((o) => o.kind === 'Secret' && o.metadata.name.startsWith(`${amqpSecretName(name)}-`));
        const url = new URL(secretValues(own).AMQP_URL);
        expect([name, url.username, url.password, url.host]).toEqual([name, name, DEV_PASSWORD, `rabbitmq.${INFRA_NAMESPACE}:5672`]);
      }
    });

    it('production: a User, Permission and TopicPermission per service, beside the RabbitmqCluster, from rabbitmq-users.yaml', () => {
      const objects = kustomize('deploy/k8s/overlays/production');
      const cluster = objects.find((o) => o.kind === 'RabbitmqCluster');
      for (const kind of ['User', 'Permission', 'TopicPermission']) {
        const found = objects.filter((o) => o.kind === kind);
        expect([kind, found.length]).toEqual([kind, AMQP_PROCESSES.length]);
        for (const o of found) expect([kind, o.metadata.namespace, o.spec.rabbitmqClusterReference]).toEqual([kind, INFRA_NAMESPACE, { name: cluster.metadata.name }]);
      }
      for (const name of AMQP_PROCESSES) {
        const user = brokerUser(name);
        const of = (kind: string) => objects.find((o) => o.kind === kind && o.metadata.name === `helpdesk-${name}`);
        expect(of('User').spec.importCredentialsSecret).toEqual({ name: credentialsSecretName(name) });
        expect(of('Permission').spec).toMatchObject({ vhost: '/', user: name, permissions: { configure: user.configure, write: user.write, read: user.read } });
        expect(of('TopicPermission').spec).toMatchObject({ vhost: '/', user: name, permissions: { exchange: EXCHANGE, write: user.topicWrite, read: user.topicRead } });
      }
    });
  });
});
