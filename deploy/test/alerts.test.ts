// The alert rules (docs/adr/0060): deploy/prometheus/alerts.yml is the one source, loaded by compose's
// Prometheus and generated into the production overlay's PrometheusRule; every alert the issue asks for
// is there with its summary, description and runbook line, and reads only series that exist: the kit's
// metrics, prom-client's process metrics, RabbitMQ's per-queue metrics and `up`. promtool itself runs in
// promtool.platform.test.ts (npm run test:infra).
import { EVENTS_EXCHANGE } from '@helpdesk/contracts';
import { AmqpBus, declaredMetricNames } from '@helpdesk/kit';
import { PROCESSES } from '../registry';
import { PROMETHEUS_RULE_FILE, prometheusRule } from '../generate';
import { QUEUE_PREFIX, queueNames } from '../rabbitmq/topology';
import { INFRA_NAMESPACE, NAMESPACE, kubectlAvailable, kustomize, loadCompose, parseDocs, read } from './helpers';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
const [alerts] = parseDocs(read('deploy/prometheus/alerts.yml'));
const rules: Rule[] = alerts.groups.flatMap((g: { rules: Rule[] }) => g.rules);
const byName = (name: string) => rules.find((r) => r.alert === name);

/** The alerts issue 30 asks for, by what they watch. */
const REQUIRED: Record<string, string> = {
  'consumer lag': 'HelpdeskConsumerLag',
  'queue age': 'HelpdeskQueueWaitTooLong',
  'any dead letter': 'HelpdeskDeadLetters',
  'oldest unpublished outbox event too old': 'HelpdeskOutboxStale',
  '5xx ratio': 'HelpdeskGateway5xxRatio',
  'an upstream not ready': 'HelpdeskUpstreamUnavailable',
  'webhook failure ratio': 'HelpdeskWebhookFailureRatio',
  'SSE streams near their bound': 'HelpdeskSseStreamsNearBound',
};

/**
 * RabbitMQ's per-object metrics the rules and the dashboard may read (rabbitmq_prometheus at
 * /metrics/per-object; the real broker's endpoint is checked in rabbitmq-permissions.platform.test.ts).
 */
const RABBITMQ_METRICS = ['rabbitmq_queue_messages_ready', 'rabbitmq_queue_messages_unacked', 'rabbitmq_queue_consumers', 'rabbitmq_queue_messages'];
/** prom-client's default metrics, prefixed helpdesk_ by startMetricsServer (collectDefaultMetrics). */
const PROCESS_METRICS = ['helpdesk_process_max_fds', 'helpdesk_process_open_fds'];

/** Metric names an expression reads (words followed by a selector, a range or an operator, not functions or labels). */
function metricNames(expr: string): string[] {
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const withoutGrouping = withoutStrings.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const words = [...withoutGrouping.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)].map((m) => m[1]);
  const keywords = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring']);
  const labels = new Set([...withoutStrings.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((m) => m[1]));
  return [...new Set(words.filter((w) => !keywords.has(w) && !labels.has(w) && !/^[0-9]/.test(w) && !/^\d+[smhdwy]$/.test(w)))];
}

describe('deploy/prometheus/alerts.yml', () => {
  it.each(Object.entries(REQUIRED))('has an alert for %s (%s)', (_what, name) => {
    expect(byName(name)).toBeDefined();
  });

  it('names every alert once, with a severity, a summary, a description and a runbook line', () => {
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
    for (const r of rules) {
      expect([r.alert, r.alert]).toEqual([r.alert, expect.stringMatching(/^Helpdesk[A-Z][A-Za-z0-9]+$/)]);
      expect([r.alert, r.labels?.severity]).toEqual([r.alert, expect.stringMatching(/^(warning|critical)$/)]);
      for (const key of ['summary', 'description', 'runbook']) expect([r.alert, key, (r.annotations?.[key] ?? '').length > 20]).toEqual([r.alert, key, true]);
      expect(Object.keys(r.annotations).sort()).toEqual(['description', 'runbook', 'summary']);
    }
  });

  it('reads only series that exist: kit metrics, process metrics, RabbitMQ per-queue metrics, up', () => {
    const kit = [...declaredMetricNames()];
    const known = new Set([...kit, ...PROCESS_METRICS, ...RABBITMQ_METRICS, 'up']);
    const used = new Set<string>();
    for (const r of rules) {
      const names = metricNames(r.expr);
      expect([r.alert, names.length > 0]).toEqual([r.alert, true]);
      for (const name of names) {
        // Counters are declared without their _total in some registries' listing; histograms read _bucket.
        const base = name.replace(/_(bucket|sum|count)$/, '');
        expect([r.alert, name, known.has(name) || known.has(base)]).toEqual([r.alert, name, true]);
        used.add(name);
      }
    }
    // The broker's own counts, not the consumers', for depth, consumers and dead letters.
    for (const name of ['rabbitmq_queue_messages_ready', 'rabbitmq_queue_consumers', 'rabbitmq_queue_messages']) expect(used).toContain(name);
    expect(used).not.toContain('helpdesk_queue_messages');
  });

  it("matches the kit's queue names: main queues `helpdesk.<service>`, dead letters `helpdesk.<service>.dead`", () => {
    const kitNames = (service: string) => AmqpBus.prototype.queueNames.call({ queuePrefix: QUEUE_PREFIX }, service);
    const main = new RegExp('^helpdesk\\.[^.]+$');
    const dead = new RegExp('^helpdesk\\..+\\.dead$');
    expect(byName('HelpdeskConsumerLag')!.expr).toContain('queue=~"helpdesk\\\\.[^.]+"');
    expect(byName('HelpdeskDeadLetters')!.expr).toContain('queue=~"helpdesk\\\\..+\\\\.dead"');
    for (const p of PROCESSES.filter((x) => x.stores.includes('amqp'))) {
      const names = kitNames(p.name);
      expect(names).toEqual(queueNames(p.name));
      expect([names.main, main.test(names.main), main.test(names.retry), main.test(names.dead)]).toEqual([names.main, true, false, false]);
      expect([names.dead, dead.test(names.dead), dead.test(names.main), dead.test(names.retry)]).toEqual([names.dead, true, false, false]);
    }
    expect(EVENTS_EXCHANGE).toBe('helpdesk.events');
  });

  it('labels alerts of process series by `process` and of broker series by `queue`, as the scrape configs set them', () => {
    expect(byName('HelpdeskProcessDown')!.annotations.summary).toContain('$labels.process');
    expect(byName('HelpdeskConsumerLag')!.annotations.summary).toContain('$labels.queue');
  });
});

describe('where the rules and the broker metrics are loaded', () => {
  const [prometheus] = parseDocs(read('deploy/prometheus/prometheus.yml'));
  const compose = loadCompose();

  it("compose's Prometheus loads alerts.yml beside its configuration and scrapes RabbitMQ per queue", () => {
    expect(prometheus.rule_files).toEqual(['alerts.yml']);
    const volumes: string[] = compose.services.prometheus.volumes;
    expect(volumes).toContain('./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
    expect(volumes).toContain('./deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro');
    const rabbit = prometheus.scrape_configs.find((c: any) => c.job_name === 'rabbitmq');
    expect(rabbit.metrics_path).toBe('/metrics/per-object');
    expect(rabbit.static_configs[0].targets).toEqual(['rabbitmq:15692']);
    // job and process labels, which the rules match on.
    const helpdesk = prometheus.scrape_configs.find((c: any) => c.job_name === 'helpdesk');
    expect(helpdesk.relabel_configs.some((r: any) => r.target_label === 'process')).toBe(true);
  });

  it('the production PrometheusRule is generated from alerts.yml (npx tsx deploy/generate.ts)', () => {
    const [committed] = parseDocs(read(PROMETHEUS_RULE_FILE));
    expect(committed).toEqual(prometheusRule());
    expect(committed.spec.groups).toEqual(alerts.groups);
  });

  (kubectlAvailable() ? describe : describe.skip)('rendered', () => {
    it('production: the PrometheusRule and the PodMonitors (processes: job helpdesk, label process; RabbitMQ: job rabbitmq, per queue)', () => {
      const objects = kustomize('deploy/k8s/overlays/production');
      const rule = objects.find((o) => o.kind === 'PrometheusRule');
      expect(rule.metadata.namespace).toBe(NAMESPACE);
      expect(rule.spec.groups).toEqual(alerts.groups);
      const monitors = objects.filter((o) => o.kind === 'PodMonitor');
      const apps = monitors.find((m) => m.metadata.namespace === NAMESPACE);
      expect(apps.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/part-of': 'helpdesk' });
      expect(apps.spec.jobLabel).toBe('app.kubernetes.io/part-of');
      expect(apps.spec.podMetricsEndpoints).toEqual([
        expect.objectContaining({ port: 'metrics', path: '/metrics', relabelings: [expect.objectContaining({ sourceLabels: ['__meta_kubernetes_pod_label_app_kubernetes_io_name'], targetLabel: 'process' })] }),
      ]);
      const rabbit = monitors.find((m) => m.metadata.namespace === INFRA_NAMESPACE);
      expect(rabbit.spec.podMetricsEndpoints).toEqual([expect.objectContaining({ port: 'prometheus', path: '/metrics/per-object' })]);
      expect(rabbit.spec.selector.matchLabels['app.kubernetes.io/component']).toBe('rabbitmq');
      // The labels the operator's pods carry: the RabbitmqCluster's name.
      const cluster = objects.find((o) => o.kind === 'RabbitmqCluster');
      expect(rabbit.spec.selector.matchLabels['app.kubernetes.io/name']).toBe(cluster.metadata.name);
      expect(cluster.spec.rabbitmq.additionalPlugins).toContain('rabbitmq_prometheus');
    });

    it("local: RabbitMQ's pods are scraped per queue (annotations)", () => {
      const objects = kustomize('deploy/k8s/overlays/local');
      const rabbit = objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'rabbitmq');
      expect(rabbit.spec.template.metadata.annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '15692', 'prometheus.io/path': '/metrics/per-object' });
    });
  });
});
