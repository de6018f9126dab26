// The picture in docs/architecture.md is generated from the process registry, the event catalog and the
// services' subscriptions (scripts/architecture-diagram.ts): regenerated here in memory, it must equal
// the committed page.
import { readFileSync } from 'node:fs';
import { EVENT_TYPES } from '@helpdesk/contracts';
import { PROCESSES, SERVICES } from '../registry';
import { ARCHITECTURE_FILE, diagramSection, eventFlows, mermaid, withDiagram } from '../../scripts/architecture-diagram';

const flows = eventFlows();

it('the diagram and event table of docs/architecture.md are current (run `npm run architecture` when this fails)', () => {
  const page = readFileSync(ARCHITECTURE_FILE, 'utf8');
  expect(withDiagram(page, diagramSection(flows))).toBe(page);
});

it('draws every registry process with its database, and every service that publishes or consumes', () => {
  const diagram = mermaid(flows);
  for (const p of PROCESSES) {
    expect(diagram).toContain(`  ${p.name.replace(/[^a-z0-9]/gi, '_')}["${p.name}"]`);
    if (p.stores.includes('mongo')) expect(diagram).toContain(`MongoDB: ${p.name}`);
  }
  expect(flows.map((f) => f.service)).toEqual(SERVICES.map((s) => s.name));
});

it("reads the subscriptions the services declare: the audit log and webhooks take every event, customers' ticket counts their ticket events", () => {
  const of = (service: string) => flows.find((f) => f.service === service)!;
  expect(of('webhooks').consumes).toEqual([...EVENT_TYPES].sort());
  expect(of('workspace').consumes).toEqual([...EVENT_TYPES].sort());
  expect(of('customers').consumes).toEqual(expect.arrayContaining(['ticket.created', 'ticket.updated', 'ticket.deleted', 'custom_field.created']));
  expect(of('customers').consumes).not.toContain('member.joined');
  // Every type has one publisher.
  expect(flows.flatMap((f) => f.publishes).sort()).toEqual([...EVENT_TYPES].sort());
});
