// Every deployed process's environment is a valid production configuration: each container's env in both
// rendered overlays (values, ConfigMap keys, Secret keys) and each compose app's environment (`${VAR:-d}`
// as its default) parsed with that process's own zod schema, NODE_ENV=production and HELPDESK_EMBEDDED
// unset, as the process itself parses it at start. The schemas come as scripts/env-docs.ts finds them.
import type { z } from 'zod';
import { processes } from '../../scripts/env-docs';
import { PROCESSES } from '../registry';
import { NAMESPACE, appDeployments, composeApps, kubectlAvailable, kustomize, loadCompose, parseDocs, read, secretValues, withDefaults } from './helpers';

const schemas = new Map<string, z.ZodType>(processes().map((p) => [p.title, p.schema]));

/** Parses `env` as `process` would in production; the failures name the process and each variable. */
function problems(process: string, env: Record<string, string>): string[] {
  const schema = schemas.get(process);
  if (!schema) return [`${process}: no schema (gateway/src/config.ts or services/${process}/src/main.ts)`];
  const { HELPDESK_EMBEDDED: _embedded, ...rest } = env;
  const result = schema.safeParse({ ...rest, NODE_ENV: 'production' });
  return result.success ? [] : result.error.issues.map((i) => `${process}: ${i.path.join('.') || '(env)'}: ${i.message}`);
}

/**
 * Production's Secrets are supplied per environment: their keys from base/secret.template.yaml, each
 * `<placeholder>` replaced by letters, so URLs stay URLs and the token secret keeps its length.
 */
function templateSecrets(): Map<string, Record<string, string>> {
  const filled = (value: string) => value.replace(/<[^>]*>/g, (m) => 'x'.repeat(Math.max(m.length, 32)));
  return new Map(
    parseDocs(read('deploy/k8s/base/secret.template.yaml')).map((s) => [s.metadata.name, Object.fromEntries(Object.entries<string>(s.stringData).map(([k, v]) => [k, filled(v)]))]),
  );
}

it('has a schema for every registry process', () => {
  for (const p of PROCESSES) expect([p.name, schemas.has(p.name)]).toEqual([p.name, true]);
});

(kubectlAvailable() ? describe : describe.skip).each(['local', 'production'])('deploy/k8s/overlays/%s', (overlay) => {
  const objects = kustomize(`deploy/k8s/overlays/${overlay}`);
  const configMaps = new Map<string, Record<string, string>>(objects.filter((o) => o.kind === 'ConfigMap' && o.metadata.namespace === NAMESPACE).map((c) => [c.metadata.name, c.data ?? {}]));
  const secrets =
    overlay === 'production'
      ? templateSecrets()
      : new Map(objects.filter((o) => o.kind === 'Secret' && o.metadata.namespace === NAMESPACE).map((s) => [s.metadata.name, secretValues(s)]));

  it.each(appDeployments(objects).map((d) => [d.metadata.name, d] as const))("%s: its environment parses with its production schema", (name, d) => {
    const env: Record<string, string> = {};
    const unresolved: string[] = [];
    for (const e of d.spec.template.spec.containers[0].env ?? []) {
      const ref = e.valueFrom?.configMapKeyRef ?? e.valueFrom?.secretKeyRef;
      const source = e.valueFrom?.configMapKeyRef ? configMaps : secrets;
      const value = ref ? source.get(ref.name)?.[ref.key] : e.value;
      if (value !== undefined) env[e.name] = String(value);
      else if (!ref?.optional) unresolved.push(`${name}: ${e.name}: ${ref ? `${ref.name}/${ref.key} does not exist` : 'no value'}`);
    }
    expect([...unresolved, ...problems(name, env)]).toEqual([]);
  });
});

describe('docker-compose.yml', () => {
  const compose = loadCompose();
  it.each(composeApps(compose))('%s: its environment parses with its production schema', (name) => {
    const env = Object.fromEntries(Object.entries<unknown>(compose.services[name].environment ?? {}).map(([k, v]) => [k, withDefaults(String(v))]));
    expect(problems(name, env)).toEqual([]);
  });
});
