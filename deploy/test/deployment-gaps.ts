/**
 * Where the registry and the files that deploy it disagree, read straight from the files (no kubectl):
 * for a list of processes, each file that lacks one (`<file>: lacks <name>`) and each process a file
 * deploys that the list lacks (`deploy/registry.ts: lacks <name> (in <file>)`). deploy/test/registry-gaps.test.ts
 * runs it on the registry (nothing missing) and on a registry with one entry added or removed (every
 * file named), so adding a service cannot stop half way unnoticed.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { amqpSecretName, mongoSecretName, type ProcessEntry } from '../registry';
import { composeApps, loadCompose, parseDocs, parseServiceUrls, read, ROOT } from './helpers';

/** A file, the process names it deploys, and which processes it must deploy. */
interface Source {
  file: string;
  names: () => string[];
  of: (p: ProcessEntry) => boolean;
}

const all = () => true;
const services = (p: ProcessEntry) => p.kind === 'service';
const yaml = (file: string) => parseDocs(read(file));
/** The `<name>` of every `<prefix><name>` in the list. */
const suffixes = (list: string[], prefix: string) => list.filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length));
const kinds = (file: string, kind: string) => yaml(file).filter((d) => d.kind === kind).map((d) => d.metadata.name as string);

function sources(): Source[] {
  const base = 'deploy/k8s/base';
  const [baseKustomization] = yaml(`${base}/kustomization.yaml`);
  const [config] = yaml(`${base}/config.yaml`);
  const secretNames = yaml(`${base}/secret.template.yaml`).map((d) => d.metadata.name as string);
  const compose = loadCompose();
  const overlay = (name: 'local' | 'production'): Source[] => {
    const dir = `deploy/k8s/overlays/${name}`;
    const [kustomization] = yaml(`${dir}/kustomization.yaml`);
    return [
      { file: `${dir}/kustomization.yaml (images)`, names: () => suffixes(kustomization.images.map((i: any) => i.name), 'helpdesk/'), of: all },
      { file: `${dir}/patches.yaml`, names: () => kinds(`${dir}/patches.yaml`, 'Deployment'), of: all },
    ];
  };
  return [
    { file: 'services/', names: () => readdirSync(join(ROOT, 'services')).filter((d) => existsSync(join(ROOT, 'services', d, 'package.json'))), of: services },
    { file: 'docker-compose.yml', names: () => composeApps(compose), of: all },
    { file: 'docker-compose.yml (gateway SERVICE_URLS)', names: () => Object.keys(parseServiceUrls(compose.services.gateway.environment.SERVICE_URLS)), of: services },
    { file: 'deploy/prometheus/prometheus.yml', names: () => yaml('deploy/prometheus/prometheus.yml')[0].scrape_configs.find((c: any) => c.job_name === 'helpdesk').static_configs.flatMap((s: any) => s.targets.map((t: string) => t.split(':')[0])), of: all },
    {
      file: `${base}/kustomization.yaml (a listed <name>.yaml with its Deployment)`,
      names: () => baseKustomization.resources.flatMap((r: string) => kinds(`${base}/${r}`, 'Deployment')),
      of: all,
    },
    { file: `${base}/config.yaml (SERVICE_URLS)`, names: () => Object.keys(parseServiceUrls(config.data.SERVICE_URLS)), of: services },
    { file: `${base}/secret.template.yaml (MONGO_URL)`, names: () => suffixes(secretNames, mongoSecretName('')).filter((n) => !n.endsWith('-password')), of: all },
    { file: `${base}/secret.template.yaml (AMQP_URL)`, names: () => suffixes(secretNames, amqpSecretName('')).filter((n) => !n.endsWith('-credentials')), of: (p) => p.stores.includes('amqp') },
    ...overlay('local'),
    { file: 'deploy/k8s/overlays/local/kustomization.yaml (secretGenerator)', names: () => suffixes(yaml('deploy/k8s/overlays/local/kustomization.yaml')[0].secretGenerator.map((g: any) => g.name), mongoSecretName('')), of: all },
    {
      file: 'deploy/k8s/overlays/local/mongodb-users.yaml',
      names: () => [...read('deploy/k8s/overlays/local/mongodb-users.yaml').matchAll(/name: MONGO_URL_([A-Z0-9_]+)/g)].map((m) => m[1]!.toLowerCase().replace(/_/g, '-')),
      of: all,
    },
    ...overlay('production'),
    { file: 'deploy/k8s/overlays/production/engines/mongodb.yaml', names: () => yaml('deploy/k8s/overlays/production/engines/mongodb.yaml').find((d) => d.kind === 'MongoDBCommunity').spec.users.map((u: any) => u.name), of: all },
  ];
}

/** Every disagreement between `processes` and the deployment files (none for deploy/registry.ts). */
export function deploymentGaps(processes: readonly ProcessEntry[]): string[] {
  const gaps: string[] = [];
  for (const source of sources()) {
    const found = new Set(source.names());
    const expected = processes.filter(source.of).map((p) => p.name);
    for (const name of expected) if (!found.has(name)) gaps.push(`${source.file}: lacks ${name}`);
    for (const name of found) if (!processes.some((p) => p.name === name)) gaps.push(`deploy/registry.ts: lacks ${name} (in ${source.file})`);
  }
  return gaps;
}
