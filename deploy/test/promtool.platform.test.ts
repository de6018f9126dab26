// Prometheus' own checks of the alert rules (docs/adr/0060), with Debian's promtool (package
// `prometheus`; scripts/ensure-infra.sh installs it): the scrape configuration and the rules it loads
// are valid, the rules' unit tests pass, every alert fires in them and each alert's tests include series
// that do not fire. The PrometheusRule's copy is checked too. In `npm run test:infra`
// (HELPDESK_INFRA=real) a missing promtool fails; elsewhere these are skipped with a warning.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { PROMETHEUS_RULE_FILE } from '../generate';
import { ROOT, parseDocs, read } from './helpers';

const REQUIRED = process.env.HELPDESK_INFRA === 'real';
const PROMTOOL = process.env.PROMTOOL ?? 'promtool';
const haveProm = spawnSync(PROMTOOL, ['--version'], { encoding: 'utf8' }).status === 0;
const promtool = (...args: string[]) => spawnSync(PROMTOOL, args, { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });

const [alerts] = parseDocs(read('deploy/prometheus/alerts.yml'));
const alertNames: string[] = alerts.groups.flatMap((g: any) => g.rules.map((r: any) => r.alert));
const [unitTests] = parseDocs(read('deploy/prometheus/alerts.test.yml'));

if (!haveProm) {
  if (REQUIRED) {
    it('promtool is installed (scripts/ensure-infra.sh installs Debian’s prometheus package)', () => {
      throw new Error(`${PROMTOOL} is not on PATH: run scripts/ensure-infra.sh (apt-get install prometheus) or set PROMTOOL`);
    });
  } else {
    console.warn('deploy/test/promtool.platform.test.ts: promtool is not on PATH, so the alert rules are NOT checked by Prometheus here (npm run test:infra requires it).');
    it.skip('promtool checks of deploy/prometheus (promtool missing; npm run test:infra fails without it)', () => {});
  }
} else {
  describe('promtool', () => {
    it('check config: prometheus.yml and the rules file it loads are valid', () => {
      const out = promtool('check', 'config', 'deploy/prometheus/prometheus.yml');
      expect([out.status, out.stdout + out.stderr]).toEqual([0, expect.stringContaining(`SUCCESS: ${alertNames.length} rules found`)]);
    });

    it('check rules: alerts.yml and the PrometheusRule’s groups (the production copy)', () => {
      const out = promtool('check', 'rules', 'deploy/prometheus/alerts.yml');
      expect([out.status, out.stdout + out.stderr]).toEqual([0, expect.stringContaining(`SUCCESS: ${alertNames.length} rules found`)]);
      const [rule] = parseDocs(read(PROMETHEUS_RULE_FILE));
      const file = join(mkdtempSync(join(tmpdir(), 'prometheus-rule-')), 'rules.yml');
      writeFileSync(file, stringify({ groups: rule.spec.groups }));
      const copy = promtool('check', 'rules', file);
      expect([copy.status, copy.stdout + copy.stderr]).toEqual([0, expect.stringContaining(`SUCCESS: ${alertNames.length} rules found`)]);
    });

    it('test rules: alerts.test.yml passes', () => {
      const out = promtool('test', 'rules', 'deploy/prometheus/alerts.test.yml');
      expect([out.status, out.stdout + out.stderr]).toEqual([0, expect.stringContaining('SUCCESS')]);
    });

    it('the unit tests fire every alert, and show series that do not fire', () => {
      const tests: any[] = unitTests.tests;
      for (const name of alertNames) {
        const cases = tests.flatMap((t) => (t.alert_rule_test ?? []).filter((c: any) => c.alertname === name).map((c: any) => ({ test: t, c })));
        const fired = cases.filter(({ c }) => (c.exp_alerts ?? []).length > 0);
        expect([name, fired.length > 0]).toEqual([name, true]);
        // Something that must not fire: a case expecting none, or more series than alerts expected.
        const quiet = cases.some(({ test, c }) => (c.exp_alerts ?? []).length === 0 || test.input_series.length > c.exp_alerts.length);
        expect([name, quiet]).toEqual([name, true]);
      }
      expect(tests.some((t) => (t.alert_rule_test ?? []).some((c: any) => (c.exp_alerts ?? []).length === 0))).toBe(true);
      // Only alerts that exist are tested.
      for (const t of tests) for (const c of t.alert_rule_test ?? []) expect(alertNames).toContain(c.alertname);
    });
  });
}
