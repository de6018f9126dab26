// Adding a service cannot stop half way unnoticed: a service folder missing from deploy/registry.ts, or
// a registry entry missing from compose, the Kubernetes base and overlays or Prometheus, is named with
// the file that lacks it (read from the files; registry.test.ts renders the manifests with kubectl too).
// The steps: docs/adding-a-service.md.
import { PROCESSES, processNamed, type ProcessEntry } from '../registry';
import { deploymentGaps } from './deployment-gaps';

it('the registry and every deployment file name the same processes', () => {
  expect(deploymentGaps(PROCESSES)).toEqual([]);
});

it('a registry entry without its deployment files is named in each file that lacks it', () => {
  const added: ProcessEntry = { ...processNamed('knowledge'), name: 'example', entry: 'services/example/src/main.ts' };
  const gaps = deploymentGaps([...PROCESSES, added]);
  expect(gaps).toEqual(
    expect.arrayContaining([
      'services/: lacks example',
      'docker-compose.yml: lacks example',
      'docker-compose.yml (gateway SERVICE_URLS): lacks example',
      'deploy/prometheus/prometheus.yml: lacks example',
      'deploy/k8s/base/kustomization.yaml (a listed <name>.yaml with its Deployment): lacks example',
      'deploy/k8s/base/config.yaml (SERVICE_URLS): lacks example',
      'deploy/k8s/overlays/local/kustomization.yaml (images): lacks example',
      'deploy/k8s/overlays/production/kustomization.yaml (images): lacks example',
    ]),
  );
  expect(gaps.every((g) => g.endsWith(': lacks example'))).toBe(true);
});

it('a service folder, compose service, scrape target or Deployment missing from the registry is named', () => {
  const gaps = deploymentGaps(PROCESSES.filter((p) => p.name !== 'knowledge'));
  expect(gaps).toEqual(
    expect.arrayContaining([
      'deploy/registry.ts: lacks knowledge (in services/)',
      'deploy/registry.ts: lacks knowledge (in docker-compose.yml)',
      'deploy/registry.ts: lacks knowledge (in deploy/prometheus/prometheus.yml)',
      'deploy/registry.ts: lacks knowledge (in deploy/k8s/base/kustomization.yaml (a listed <name>.yaml with its Deployment))',
    ]),
  );
  expect(gaps.every((g) => g.startsWith('deploy/registry.ts: lacks knowledge'))).toBe(true);
});
