import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import {
  buildOpenApiDocument,
  COMMUNITY,
  COMMUNITY_SEARCH_INTERNAL,
  CUSTOMERS,
  CUSTOMERS_BULK_INTERNAL,
  CUSTOMERS_INTERNAL,
  CUSTOMERS_SEARCH_INTERNAL,
  DATAOPS,
  ERROR_CODES,
  GAME,
  GATEWAY,
  INTERNAL_OPERATIONS,
  KNOWLEDGE,
  KNOWLEDGE_BULK_INTERNAL,
  KNOWLEDGE_INTERNAL,
  KNOWLEDGE_SEARCH_INTERNAL,
  NOTIFICATIONS,
  PUBLIC_OPERATIONS,
  pathParamNames,
  TICKETING,
  TICKETING_AUTOMATIONS,
  TICKETING_BULK_INTERNAL,
  TICKETING_SEARCH_INTERNAL,
  VIEWS,
  VIEWS_INTERNAL,
  WEBHOOKS,
  WORKSPACE,
  WORKSPACE_INTERNAL,
  WIDGET,
  WIDGET_CONFIG,
  WIDGET_CONFIRMATION,
  WIDGET_INTERNAL,
  WIDGET_STREAM,
  CUSTOMERS_WIDGET_INTERNAL,
  INBOUND_EMAIL,
  INBOUND_EMAIL_INTERNAL,
  SESSIONS,
  WORKSPACE_SESSIONS,
  WORKSPACE_SESSIONS_INTERNAL,
  accessRefusal,
  paramRefusal,
  type OperationDef,
} from '../src';

// Every manifest file's operation sets (DATAOPS already holds DATAOPS_TRANSFER).
const manifests: Record<string, Record<string, OperationDef>> = {
  GATEWAY, TICKETING, TICKETING_AUTOMATIONS, CUSTOMERS, WEBHOOKS, CUSTOMERS_INTERNAL, KNOWLEDGE, KNOWLEDGE_INTERNAL, COMMUNITY, WORKSPACE,
  WORKSPACE_INTERNAL, NOTIFICATIONS, DATAOPS, VIEWS, VIEWS_INTERNAL, GAME, TICKETING_BULK_INTERNAL, CUSTOMERS_BULK_INTERNAL, KNOWLEDGE_BULK_INTERNAL,
  TICKETING_SEARCH_INTERNAL, CUSTOMERS_SEARCH_INTERNAL, KNOWLEDGE_SEARCH_INTERNAL, COMMUNITY_SEARCH_INTERNAL,
  WIDGET_CONFIG, WIDGET, WIDGET_CONFIRMATION, WIDGET_STREAM, WIDGET_INTERNAL, CUSTOMERS_WIDGET_INTERNAL, INBOUND_EMAIL, INBOUND_EMAIL_INTERNAL,
  SESSIONS, WORKSPACE_SESSIONS, WORKSPACE_SESSIONS_INTERNAL,
};
const all = Object.entries(manifests).flatMap(([file, ops]) => Object.entries(ops).map(([id, op]) => ({ file, id, op })));

describe('the API manifest', () => {
  it('declares every operation id once across the service files', () => {
    const ids = all.map((o) => o.id);
    expect(ids.length).toBe(new Set(ids).size);
    expect(Object.keys(PUBLIC_OPERATIONS).length + Object.keys(INTERNAL_OPERATIONS).length).toBe(ids.length);
  });

  it('declares each method and path once', () => {
    const keys = all.map((o) => `${o.op.method} ${o.op.path}`);
    expect(keys.length).toBe(new Set(keys).size);
  });

  it.each(all.map((o) => [o.id, o.op] as const))('%s: path params, ids, schemas and errors are consistent', (id, op) => {
    expect(id).toMatch(/^[a-z][A-Za-z]+$/);
    expect(pathParamNames(op.path).sort()).toEqual(Object.keys(op.params).sort());
    expect(op.internal === true).toBe(op.path.startsWith('/internal/'));
    if (!op.internal && op.path.startsWith('/teams/')) expect(op.params.teamId).toBe('team');
    for (const code of op.errors) expect(ERROR_CODES).toHaveProperty(code);
    if (op.query) expect(op.query).toBeInstanceOf(z.ZodObject);
    if (op.success.pagination) expect(op.success.data).toBeInstanceOf(z.ZodArray);
    // No body on reads and deletes, but for the spec's `DELETE /tags`, whose tag travels in a JSON body.
    if (op.method === 'GET' || (op.method === 'DELETE' && id !== 'deleteTag')) expect(op.body).toBeUndefined();
    expect(op.summary.length).toBeGreaterThan(5);
  });

  it('publishable keys: no writes anywhere, no staff reads, public reads only with the permission', () => {
    const pk = { keyType: 'publishable' as const, permissions: ['view_articles' as const] };
    expect(accessRefusal({ method: 'POST', keys: 'public', permission: null }, pk)?.code).toBe('publishable_key_write');
    expect(accessRefusal({ method: 'GET', keys: 'staff', permission: 'view_tickets' }, pk)?.code).toBe('publishable_key_forbidden');
    expect(accessRefusal({ method: 'GET', keys: 'secret', permission: null }, pk)?.code).toBe('insufficient_permissions');
    expect(accessRefusal({ method: 'GET', keys: 'public', permission: 'view_articles' }, pk)).toBeNull();
    expect(accessRefusal({ method: 'GET', keys: 'public', permission: 'view_community' }, pk)?.code).toBe('insufficient_permissions');
    expect(accessRefusal({ method: 'GET', keys: 'none', permission: null }, pk)).toBeNull();
    const sk = { keyType: 'secret' as const, permissions: ['view_tickets' as const] };
    expect(accessRefusal({ method: 'POST', keys: 'staff', permission: 'manage_tickets' }, sk)?.code).toBe('insufficient_permissions');
    expect(accessRefusal({ method: 'GET', keys: 'staff', permission: 'view_tickets' }, sk)).toBeNull();
    // The chat widget's endpoints (docs/adr/0040): publishable keys read and write, secret keys never.
    expect(accessRefusal({ method: 'POST', keys: 'visitor', permission: null }, pk)).toBeNull();
    expect(accessRefusal({ method: 'GET', keys: 'visitor', permission: null }, pk)).toBeNull();
    expect(accessRefusal({ method: 'POST', keys: 'visitor', permission: null }, sk)?.code).toBe('secret_key_forbidden');
    expect(accessRefusal({ method: 'GET', keys: 'visitor', permission: null }, sk)?.code).toBe('secret_key_forbidden');
  });

  it('path params: team ids are UUIDs, other ids UUIDs or known prefixed ids, slugs are slugs', () => {
    expect(paramRefusal('teamId', 'team', 'tkt_abcdefgh12345678')?.param).toBe('teamId');
    expect(paramRefusal('teamId', 'team', '3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f70')).toBeNull();
    expect(paramRefusal('ticketId', 'ticket', 'cus_abcdefgh12345678')).toBeNull(); // another kind: not found, not malformed
    expect(paramRefusal('ticketId', 'ticket', 'nope')?.code).toBe('invalid_id_format');
    expect(paramRefusal('statusKey', 'slug', 'vip-2')).toBeNull();
    expect(paramRefusal('statusKey', 'slug', 'VIP')?.code).toBe('invalid_id_format');
  });
});

describe('the OpenAPI document', () => {
  const doc = buildOpenApiDocument();

  it('covers every public operation and no internal one', () => {
    const documented = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((p) => Object.values(p).map((o) => o.operationId));
    expect(documented.sort()).toEqual(Object.keys(PUBLIC_OPERATIONS).sort());
    expect(JSON.stringify(doc)).not.toContain('/internal/');
  });

  it('documents each operation\'s success shape and every error code it can answer', () => {
    const create = doc.paths['/teams/{teamId}/tickets'].post;
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '404', '409', '413', '422', '429', '500', '503']));
    expect(create.responses['422'].description).toContain('customer_not_found');
    const group = doc.paths['/teams/{teamId}/customer-groups/{groupId}'].get.responses['200'].content['application/json'].schema;
    expect(group).toEqual({ $ref: '#/components/schemas/CustomerGroup' });
    const list = doc.paths['/teams/{teamId}/tickets'].get.responses['200'].content['application/json'].schema;
    expect(list.properties.meta.required).toContain('pagination');
    expect(doc.components.schemas.Ticket.additionalProperties).toBe(false);
  });

  it('docs/openapi.json is the committed output of `npm run openapi` (regenerate it when the manifest changes)', () => {
    const committed = readFileSync(path.resolve(__dirname, '../../../docs/openapi.json'), 'utf8');
    expect(JSON.parse(committed)).toEqual(doc);
  });
});
