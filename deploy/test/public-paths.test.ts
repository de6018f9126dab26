// Every path the gateway serves to the internet is reachable, and nothing else is: the Ingress (both
// overlays) and the compose proxy (deploy/docker/proxy.conf) route `/api` and publicRootPaths() of
// @helpdesk/gateway to the gateway, and no other path; ticketing's inbound-mail webhook has its own route.
import { publicRootPaths } from '@helpdesk/gateway';
import { processNamed } from '../registry';
import { INBOUND_EMAIL_SERVICE, kubectlAvailable, kustomize, loadCompose, parseCidr, read } from './helpers';

const PUBLIC = [...new Set(['/api', ...publicRootPaths()])];
/** Paths that must stay inside (probes; metrics are on their own port). */
const INTERNAL = ['/healthz', '/readyz', '/metrics'];
/** Kubernetes `Prefix` matching: the path, or below it by whole segments. */
const underPrefix = (path: string, prefix: string) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
const inboundHttp = processNamed('ticketing').extraPorts.find((p) => p.name === 'inbound-http')!;

it('the gateway names its public paths outside /api', () => {
  expect(publicRootPaths().length).toBeGreaterThan(0);
  for (const path of publicRootPaths()) expect(path).toMatch(/^\/[a-z0-9/-]+$/);
});

(kubectlAvailable() ? describe : describe.skip).each(['local', 'production'])('deploy/k8s/overlays/%s Ingress', (overlay) => {
  const ingresses = kustomize(`deploy/k8s/overlays/${overlay}`).filter((o) => o.kind === 'Ingress');
  const ingress = (name: string) => ingresses.find((i) => i.metadata.name === name);
  const paths = (name: string) => ingress(name).spec.rules.flatMap((r: any) => r.http.paths);

  it('routes every public path of the gateway to it, and only those', () => {
    const routed: string[] = paths('gateway').map((p: any) => p.path);
    for (const path of PUBLIC) expect([path, routed.some((r) => underPrefix(path, r))]).toEqual([path, true]);
    for (const r of routed) expect([r, PUBLIC.some((path) => underPrefix(r, path))]).toEqual([r, true]);
    for (const path of INTERNAL) expect([path, routed.some((r) => underPrefix(path, r))]).toEqual([path, false]);
  });

  it("routes the mail providers' webhook (/inbound-email) to ticketing's inbound-http port, on its own host", () => {
    const [rule] = ingress(INBOUND_EMAIL_SERVICE).spec.rules;
    expect(rule.host).not.toBe(ingress('gateway').spec.rules[0].host);
    expect(rule.http.paths).toEqual([
      { path: '/inbound-email', pathType: 'Prefix', backend: { service: { name: INBOUND_EMAIL_SERVICE, port: { name: inboundHttp.name } } } },
    ]);
  });
});

describe('docker-compose.yml proxy (deploy/docker/proxy.conf)', () => {
  const compose = loadCompose();
  const conf = read('deploy/docker/proxy.conf');
  /** The `location ~ <regex> { … }` blocks that proxy to the gateway, as JavaScript regexps. */
  const forwarding = [...conf.matchAll(/location ~ (\S+) \{([^}]*)\}/g)].filter((m) => m[2].includes('proxy_pass http://gateway:8080;'));
  const forwarded = (path: string) => forwarding.some((m) => new RegExp(m[1]).test(path));

  it('forwards every public path of the gateway (and below it), with X-Forwarded-For set by the proxy, and nothing else', () => {
    expect(forwarding.length).toBeGreaterThan(0);
    for (const path of PUBLIC) {
      expect([path, forwarded(path), forwarded(`${path}/x`)]).toEqual([path, true, true]);
      expect([path, forwarded(`${path}x`)]).toEqual([path, false]);
    }
    for (const path of INTERNAL) expect([path, forwarded(path)]).toEqual([path, false]);
    // Replaced with the peer's address, never appended to what the client sent.
    for (const m of forwarding) expect(m[2]).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
    expect(conf).toMatch(/location \/ \{\s*return 404;\s*\}/);
  });

  it('is the only way in: publishes the gateway port; the gateway believes X-Forwarded-For from its network only', () => {
    const { proxy, gateway } = compose.services;
    expect(proxy.ports).toEqual(['${GATEWAY_PORT:-8080}:8080']);
    expect(proxy.volumes).toContain('./deploy/docker/proxy.conf:/etc/nginx/conf.d/default.conf:ro');
    expect(gateway.ports).toBeUndefined();
    expect(proxy.networks).toEqual(['edge']);
    expect(gateway.networks).toEqual(expect.arrayContaining(['edge']));
    const members = Object.keys(compose.services).filter((n) => (compose.services[n].networks ?? []).includes('edge'));
    expect(members.sort()).toEqual(['gateway', 'proxy']);
    const [subnet] = compose.networks.edge.ipam.config.map((c: any) => c.subnet);
    parseCidr(subnet);
    expect(gateway.environment.TRUSTED_PROXIES).toBe(subnet);
  });
});
