// Operating it (docs/adr/0038): docker-compose.yml checked by a real compose parser, metrics on
// every Node process (compose and Kubernetes), Prometheus scraping them, the Grafana dashboard
// drawing every metric kit defines.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PUBLIC_OPERATIONS } from '@helpdesk/contracts';
import { declaredMetricNames } from '@helpdesk/kit';
import { parseServiceUrls, servicesWithoutUrl } from '../../gateway/src/config';
import { ENTRY, NAMESPACE, ROOT, appDeployments, kubectlAvailable, kustomize, loadCompose, parseDocs, read } from './helpers';

const compose = loadCompose();
const services: Record<string, any> = compose.services;
const apps = Object.keys(services).filter((n) => ENTRY.test(services[n].command?.[0] ?? ''));
const hasComposeBinary = spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0;

(hasComposeBinary ? describe : describe.skip)('docker-compose.yml, parsed by docker-compose (Debian package; scripts/ensure-infra.sh installs it)', () => {
  // docker-compose v1 predates the top-level `name` of the Compose Specification: checked without it.
  const file = join(mkdtempSync(join(tmpdir(), 'compose-')), 'docker-compose.yml');
  writeFileSync(file, read('docker-compose.yml').replace(/^name: .*\n/m, ''));
  const run = (...args: string[]) => spawnSync('docker-compose', ['-f', file, '--project-directory', ROOT, ...args], { encoding: 'utf8' });

  it('is valid (config -q), with every profile', () => {
    const out = run('--profile', 'observability', '--profile', 'monitoring', 'config', '-q');
    expect([out.status, out.stderr]).toEqual([0, '']);
  });

  it('lists the one-shot, the monitoring profile and every process', () => {
    const out = run('--profile', 'monitoring', 'config', '--services');
    expect(out.status).toBe(0);
    expect(out.stdout.split('\n')).toEqual(expect.arrayContaining(['mongo-init', 'prometheus', 'grafana', ...apps]));
  });
});
if (!hasComposeBinary) it.skip('docker-compose is not installed: run scripts/ensure-infra.sh (apt-get install docker-compose) for the compose parser check', () => {});

it('the gateway would start: compose and Kubernetes give it a URL for every service of the API manifest', () => {
  expect(servicesWithoutUrl(PUBLIC_OPERATIONS, parseServiceUrls(services.gateway.environment.SERVICE_URLS))).toEqual([]);
  const [config] = parseDocs(read('deploy/k8s/base/config.yaml'));
  expect(servicesWithoutUrl(PUBLIC_OPERATIONS, parseServiceUrls(config.data.SERVICE_URLS))).toEqual([]);
});

describe('metrics (compose)', () => {
  it('every Node process serves metrics on METRICS_PORT 9464, published nowhere', () => {
    for (const name of apps) {
      expect([name, services[name].environment.METRICS_PORT]).toEqual([name, '9464']);
      expect([name, (services[name].ports ?? []).some((p: string) => p.includes('9464'))]).toEqual([name, false]);
    }
  });

  it('Prometheus (monitoring profile) scrapes every Node process', () => {
    expect(services.prometheus.profiles).toEqual(['monitoring']);
    expect(services.grafana.profiles).toEqual(['monitoring']);
    const [config] = parseDocs(read('deploy/prometheus/prometheus.yml'));
    const targets: string[] = config.scrape_configs.flatMap((c: any) => c.static_configs.flatMap((s: any) => s.targets));
    for (const name of apps) expect(targets).toContain(`${name}:9464`);
  });

  it('the Grafana dashboard draws every helpdesk metric kit defines', () => {
    const dashboard = JSON.parse(read('deploy/grafana/helpdesk.json'));
    const exprs = dashboard.panels.flatMap((p: any) => p.targets.map((t: any) => t.expr)).join('\n');
    const names = [...declaredMetricNames()].filter((n) => n.startsWith('helpdesk_') && !n.startsWith('helpdesk_process_'));
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) expect([name, exprs.includes(name)]).toEqual([name, true]);
  });
});

(kubectlAvailable() ? describe : describe.skip)('metrics (Kubernetes overlays)', () => {
  it.each(['local', 'production'])('%s: every Deployment has a metrics port, METRICS_PORT, scrape annotations, readiness on /readyz', (overlay) => {
    const deployments = appDeployments(kustomize(`deploy/k8s/overlays/${overlay}`));
    expect(deployments.length).toBeGreaterThan(5);
    for (const d of deployments) {
      const name = d.metadata.name;
      const c = d.spec.template.spec.containers[0];
      expect([name, c.ports.find((p: any) => p.name === 'metrics')?.containerPort]).toEqual([name, 9464]);
      expect([name, c.env.find((e: any) => e.name === 'METRICS_PORT')?.value]).toEqual([name, '9464']);
      expect([name, d.spec.template.metadata.annotations]).toEqual([name, expect.objectContaining({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9464', 'prometheus.io/path': '/metrics' })]);
      expect([name, c.readinessProbe.httpGet.path]).toEqual([name, '/readyz']);
    }
    // The Services expose the http port only: metrics are scraped from the pods (the inbound mail
    // Service publishes mail ports, checked in k8s.test.ts).
    // The engines' Services (helpdesk-infra) publish their own protocols.
    for (const s of kustomize(`deploy/k8s/overlays/${overlay}`).filter((o) => o.kind === 'Service' && o.metadata.namespace === NAMESPACE && o.metadata.name !== 'ticketing-inbound-email')) {
      expect([s.metadata.name, s.spec.ports.map((p: any) => p.name)]).toEqual([s.metadata.name, ['http']]);
    }
  });
});
