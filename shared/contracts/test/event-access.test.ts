import {
  EVENT_CATALOG,
  EVENT_TYPES,
  eventAccess,
  eventPermission,
  eventReadOperation,
  hasMemberRule,
  mayRead,
  PERMISSIONS,
  PUBLIC_OPERATIONS,
  ROLE_PERMISSIONS,
  ROLES,
  unreadablePattern,
  type EventReader,
  type EventType,
  type OperationDef,
} from '../src';

const ops: Record<string, OperationDef> = PUBLIC_OPERATIONS;
const reader = (permissions: readonly (typeof PERMISSIONS)[number][], memberId: string | null = 'mem_reader', keyId: string | null = 'key_reader'): EventReader => ({
  permissions,
  memberId,
  keyId,
});
const spectator = reader(ROLE_PERMISSIONS.spectator);

describe('every event type names who may read it (docs/adr/0066)', () => {
  it.each(EVENT_TYPES)('%s: a GET operation of the manifest or a permission', (type) => {
    const read = EVENT_CATALOG[type].read;
    expect(read).toBeDefined();
    const op = eventReadOperation(type);
    if (op) {
      // Derived: the permission is the manifest's, so a change there moves the event with it.
      expect(ops[op.id]!.method).toBe('GET');
      expect(eventPermission(type)).toBe(ops[op.id]!.permission);
    } else {
      expect('permission' in read).toBe(true);
      expect([null, ...PERMISSIONS]).toContain(eventPermission(type));
    }
  });

  // A new event type whose resource any secret key may read joins this list knowingly: anything
  // else needs a permission (and the typecheck refuses a catalog entry without `read`).
  it('only these are readable by every secret key (their API reads need no permission)', () => {
    const open = EVENT_TYPES.filter((t) => eventPermission(t) === null);
    expect(open.sort()).toEqual(
      [
        'business_hours.updated', 'custom_field.created', 'custom_field.deleted', 'custom_field.updated', 'feature_flags.updated',
        'notification.all_read', 'notification.created', 'notification.preferences_updated', 'notification.read',
        'saved_view.created', 'saved_view.deleted', 'saved_view.updated', 'settings.updated', 'ticket_status.updated', 'widget_settings.updated',
      ].sort(),
    );
  });

  it("the issue's list: the least-privileged role reads none of them, as through the API", () => {
    for (const type of ['webhook.created', 'automation.created', 'ai_settings.updated', 'inbound_email.secret_rotated'] as EventType[]) {
      expect(mayRead(eventAccess(type, {}), spectator)).toBe(false);
      expect(mayRead(eventAccess(type, {}), reader(ROLE_PERMISSIONS.owner))).toBe(true);
    }
    expect(eventPermission('webhook.created')).toBe('view_webhooks');
    expect(eventPermission('automation.created')).toBe('manage_automations');
    expect(eventPermission('ai_settings.updated')).toBe('use_ai');
    expect(eventPermission('inbound_email.secret_rotated')).toBe('manage_settings');
    expect(eventPermission('billing.subscription_updated')).toBe('manage_billing');
    expect(mayRead(eventAccess('billing.subscription_updated', {}), reader(ROLE_PERMISSIONS.admin))).toBe(false);
  });

  it.each(ROLES)('%s reads exactly the event types whose resource its role may read', (role) => {
    const r = reader(ROLE_PERMISSIONS[role], null, null);
    for (const type of EVENT_TYPES) {
      const permission = eventPermission(type);
      const owned = hasMemberRule(type);
      if (owned && permission === null) continue; // saved views: per record, below
      expect([type, mayRead(eventAccess(type, {}), r)]).toEqual([type, permission === null || ROLE_PERMISSIONS[role].includes(permission)]);
    }
  });
});

describe("a member's own records", () => {
  const apiKey = (memberId: string | null) => ({ apiKey: { id: 'key_1', memberId } });
  it("api_key.*: the key's member, or manage_members", () => {
    expect(mayRead(eventAccess('api_key.created', apiKey('mem_reader')), spectator)).toBe(true);
    expect(mayRead(eventAccess('api_key.created', apiKey('mem_other')), spectator)).toBe(false);
    expect(mayRead(eventAccess('api_key.created', apiKey(null)), spectator)).toBe(false);
    expect(mayRead(eventAccess('api_key.revoked', apiKey('mem_other')), reader(ROLE_PERMISSIONS.admin))).toBe(true);
  });

  it('saved_view.*: a team view is everyone\'s, a private one its creator\'s alone (a member, or a key without one)', () => {
    const view = (visibility: string, createdBy: string) => ({ view: { visibility, createdBy } });
    expect(mayRead(eventAccess('saved_view.created', view('team', 'mem_other')), spectator)).toBe(true);
    expect(mayRead(eventAccess('saved_view.created', view('private', 'mem_other')), reader(ROLE_PERMISSIONS.owner))).toBe(false);
    expect(mayRead(eventAccess('saved_view.updated', view('private', 'mem_reader')), spectator)).toBe(true);
    expect(mayRead(eventAccess('saved_view.deleted', view('private', 'key_reader')), reader([], null))).toBe(true);
  });

  it('a test event (data {}) belongs to nobody: only the permission reads it', () => {
    expect(eventAccess('api_key.created', {})).toEqual({ permission: 'manage_members', member: null });
    expect(mayRead(eventAccess('saved_view.created', {}), spectator)).toBe(true);
  });

  it('an unknown type reaches nobody', () => {
    expect(eventAccess('ticket.exploded', {})).toBeNull();
    expect(mayRead(null, reader(ROLE_PERMISSIONS.owner))).toBe(false);
  });
});

describe('unreadablePattern: filters narrow, never widen', () => {
  it('accepts * and categories with something readable', () => {
    expect(unreadablePattern(['*'], reader([]))).toBeNull();
    expect(unreadablePattern(['ticket.*', 'customer.updated'], spectator)).toBeNull();
    // Its own keys' events may reach a member without manage_members.
    expect(unreadablePattern(['api_key.*'], spectator)).toBeNull();
  });

  it('refuses an exact type or a category the reader can never receive, naming the permission', () => {
    expect(unreadablePattern(['ticket.created', 'webhook.created'], spectator)).toBe(
      'This API key cannot receive webhook.created events: they need the permission view_webhooks (the permission of GET /teams/{teamId}/webhooks/{webhookId}).',
    );
    expect(unreadablePattern(['automation.*'], spectator)).toMatch(/cannot receive any automation\.\* event: they need one of the permissions manage_automations\.$/);
    expect(unreadablePattern(['ticket.*'], reader(['view_customers']))).toMatch(/view_tickets/);
    expect(unreadablePattern(['customer.confirmation_requested'], reader(['view_customers']))).toMatch(/manage_customers\.$/);
  });
});
