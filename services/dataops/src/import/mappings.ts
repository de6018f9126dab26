import type { BulkResource, ImportSource } from '@helpdesk/contracts';

/**
 * Records as Zendesk, Freshdesk, Intercom and Help Scout export them, and our own shape, mapped to
 * the fields our create bodies take (docs/adr/0037 has the table and one example record each).
 * Nothing here validates: the resource's own schema does, and a refused field fails its row.
 */

type Rec = Record<string, unknown>;

export interface MappedTicket {
  data: Rec;
  requester: { email: string; name: string | null } | null;
  warnings: string[];
}

const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : undefined);
/** `a.b.0.c`: a path through objects and arrays. */
const at = (r: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((o, k) => (isRec(o) ? o[k] : Array.isArray(o) ? o[Number(k)] : undefined), r);
const first = (r: Rec, ...paths: string[]) => paths.map((p) => str(at(r, p))).find((v) => v !== undefined);

/** HTML bodies (Freshdesk `description`, Intercom `source.body`) as plain text. */
export function plainText(html: string): string {
  return html
    .replace(/<br\s*\/?>|<\/p>|<\/div>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Tags as strings, objects `{name}` / `{tag}`, or Intercom's `{tags: [{name}]}`. */
function tagsOf(v: unknown): string[] | undefined {
  const list = isRec(v) && Array.isArray(v.tags) ? v.tags : v;
  if (!Array.isArray(list)) return undefined;
  return list.map((t) => (isRec(t) ? str(t.name) ?? str(t.tag) : str(t))).filter((t): t is string => !!t);
}

const ZENDESK_STATUS: Rec = { new: 'new', open: 'open', pending: 'pending', hold: 'pending', solved: 'resolved', closed: 'closed' };
const FRESHDESK_STATUS: Rec = { 2: 'open', 3: 'pending', 4: 'resolved', 5: 'closed' };
const FRESHDESK_PRIORITY: Rec = { 1: 'low', 2: 'normal', 3: 'high', 4: 'urgent' };
const INTERCOM_STATE: Rec = { open: 'open', snoozed: 'pending', closed: 'closed' };
const HELPSCOUT_STATUS: Rec = { active: 'open', open: 'open', pending: 'pending', closed: 'closed', spam: 'closed' };

/** The fields each source calls subject, description, requester email and name, priority, status, tags, id. */
interface TicketFields {
  title?: string;
  description?: string;
  email?: string;
  name?: string;
  priority?: unknown;
  status?: unknown;
  tags?: string[];
  externalId?: string;
}

const mapped = (v: unknown, table: Rec) => (v === undefined || v === null ? undefined : (table[String(v).toLowerCase()] ?? v));

const TICKET_FIELDS: Record<ImportSource, (r: Rec) => TicketFields> = {
  helpdesk: (r) => ({
    title: first(r, 'title', 'subject'),
    description: first(r, 'description'),
    email: first(r, 'customer_email', 'customerEmail', 'requester.email'),
    name: first(r, 'customer_name', 'customerName', 'requester.name'),
    priority: r.priority,
    status: r.status,
    tags: tagsOf(r.tags),
    externalId: first(r, 'externalId', 'external_id', 'id'),
  }),
  zendesk: (r) => ({
    title: first(r, 'subject', 'raw_subject'),
    description: first(r, 'description'),
    email: first(r, 'requester.email', 'requester_email', 'customer_email'),
    name: first(r, 'requester.name', 'requester_name'),
    priority: r.priority ?? undefined,
    status: mapped(r.status, ZENDESK_STATUS),
    tags: tagsOf(r.tags),
    externalId: first(r, 'id'),
  }),
  freshdesk: (r) => ({
    title: first(r, 'subject'),
    description: first(r, 'description_text') ?? (str(r.description) ? plainText(String(r.description)) : undefined),
    email: first(r, 'email', 'requester.email', 'customer_email'),
    name: first(r, 'name', 'requester.name'),
    priority: mapped(r.priority, FRESHDESK_PRIORITY),
    status: mapped(r.status, FRESHDESK_STATUS),
    tags: tagsOf(r.tags),
    externalId: first(r, 'id'),
  }),
  intercom: (r) => {
    const body = str(at(r, 'source.body')) ? plainText(String(at(r, 'source.body'))) : undefined;
    return {
      title: first(r, 'title', 'source.subject') ?? body?.split('\n')[0].slice(0, 255),
      description: body,
      email: first(r, 'source.author.email', 'contacts.contacts.0.email', 'customer_email'),
      name: first(r, 'source.author.name', 'contacts.contacts.0.name'),
      priority: r.priority === 'priority' ? 'high' : r.priority === 'not_priority' ? 'normal' : r.priority,
      status: mapped(r.state, INTERCOM_STATE),
      tags: tagsOf(r.tags),
      externalId: first(r, 'id'),
    };
  },
  helpscout: (r) => {
    const person = (isRec(r.primaryCustomer) ? r.primaryCustomer : isRec(r.customer) ? r.customer : {}) as Rec;
    const name = [first(person, 'first', 'firstName'), first(person, 'last', 'lastName')].filter(Boolean).join(' ');
    return {
      title: first(r, 'subject'),
      description: first(r, 'preview', 'description'),
      email: first(person, 'email', 'emails.0.value', 'emails.0'),
      name: name || undefined,
      priority: r.priority,
      status: mapped(r.status, HELPSCOUT_STATUS),
      tags: tagsOf(r.tags),
      externalId: first(r, 'id', 'number'),
    };
  },
};

/** Our own ticket fields that pass through as they are. */
const TICKET_PASS = ['notes', 'metadata', 'customFields'] as const;
const HELPDESK_TICKET_KEYS = new Set([
  'title', 'subject', 'description', 'customer_email', 'customerEmail', 'customer_name', 'customerName', 'requester', 'priority', 'status',
  'tags', 'externalId', 'external_id', 'id', ...TICKET_PASS,
  // History keys: empty arrays are allowed (rule 7) and carry nothing.
  'messages', '_messages', 'comments', 'audits', 'conversations', 'threads', '_embedded', 'conversation_parts',
]);

/** A ticket record (rule 3): its details, its requester, its description as the first customer message. */
export function mapTicket(r: Rec, source: ImportSource, n: number): MappedTicket {
  const f = TICKET_FIELDS[source](r);
  const warnings: string[] = [];
  const meta = isRec(r.metadata) ? { ...r.metadata } : {};
  if (f.externalId) meta.externalId = f.externalId;
  if (source !== 'helpdesk') meta.importSource = source;
  const data: Rec = {
    ...(f.title !== undefined ? { title: f.title } : {}),
    ...(f.priority !== undefined && f.priority !== null ? { priority: f.priority } : {}),
    ...(f.status !== undefined && f.status !== null ? { status: f.status } : {}),
    ...(f.tags ? { tags: f.tags } : {}),
    ...(r.notes !== undefined && source === 'helpdesk' ? { notes: r.notes } : {}),
    ...(r.customFields !== undefined ? { customFields: r.customFields } : {}),
    ...(Object.keys(meta).length ? { metadata: meta } : {}),
  };
  if (f.description) data.messages = [{ sender: 'customer', content: f.description, ...(f.name ? { senderName: f.name } : {}) }];
  else warnings.push(`Row ${n}: no description: the ticket has no first message.`);
  if (!f.email) warnings.push(`Row ${n}: no requester email: the ticket has no customer.`);
  if (source === 'helpdesk') {
    const unknown = Object.keys(r).filter((k) => !HELPDESK_TICKET_KEYS.has(k));
    if (unknown.length) warnings.push(`Row ${n}: not imported: ${unknown.join(', ')}.`);
  }
  return { data, requester: f.email ? { email: f.email, name: f.name ?? null } : null, warnings };
}

/** A customer record: name and email under each source's names (Help Scout: first/last and emails[]). */
export function mapCustomer(r: Rec): Rec {
  const name = first(r, 'name') ?? ([first(r, 'firstName', 'first'), first(r, 'lastName', 'last')].filter(Boolean).join(' ') || undefined);
  const email = first(r, 'email', 'emails.0.value', 'emails.0');
  const tags = tagsOf(r.tags);
  return {
    ...(name !== undefined ? { name } : {}),
    ...(email !== undefined ? { email } : {}),
    ...(tags ? { tags } : {}),
    ...(r.notes !== undefined ? { notes: r.notes } : {}),
    ...(r.metadata !== undefined ? { metadata: r.metadata } : {}),
    ...(r.customFields !== undefined ? { customFields: r.customFields } : {}),
  };
}

const ARTICLE_STATUS: Rec = { draft: 'draft', published: 'published', notpublished: 'draft', 1: 'draft', 2: 'published' };

/** An article record: title (Help Scout: name), content (body, text, description), status (Zendesk: draft). */
export function mapArticle(r: Rec): Rec {
  const title = first(r, 'title', 'name');
  const content = first(r, 'content', 'body', 'text', 'description');
  const status = r.draft === true ? 'draft' : r.draft === false ? 'published' : mapped(r.status ?? r.state, ARTICLE_STATUS);
  const tags = tagsOf(r.tags ?? r.label_names);
  return {
    ...(title !== undefined ? { title } : {}),
    ...(content !== undefined ? { content } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(typeof r.isPublic === 'boolean' ? { isPublic: r.isPublic } : {}),
    ...(r.categoryId !== undefined ? { categoryId: r.categoryId } : {}),
    ...(tags ? { tags } : {}),
    ...(r.metadata !== undefined ? { metadata: r.metadata } : {}),
    ...(r.customFields !== undefined ? { customFields: r.customFields } : {}),
  };
}

export const RESOURCE_OF: Record<string, BulkResource> = {
  tickets: 'tickets', ticket: 'tickets', customers: 'customers', customer: 'customers', articles: 'articles', article: 'articles',
};
