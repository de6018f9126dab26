import { parameterInvalid } from '@helpdesk/kit';

/**
 * The import rules that refuse the whole request (docs/adr/0037, the spec's Import rules 2, 5 and 6):
 * all checked on every record before any record is written.
 */

type Rec = Record<string, unknown>;

/** Rule 5: a non-empty array at any of these (on the record or its `data`) would be history we do not migrate. */
export const HISTORY_KEYS = [
  'messages', '_messages', 'comments', 'audits', 'conversations', 'threads', '_embedded.threads', 'conversation_parts', 'conversation_parts.conversation_parts',
] as const;

const WRAPPER_KEYS = new Set(['data', 'action', 'existingId']);
const ACTIONS = ['create', 'update', 'skip'] as const;

const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
const at = (r: Rec, path: string): unknown => path.split('.').reduce<unknown>((o, k) => (isRec(o) ? o[k] : undefined), r);

/** Rule 2: a record as it arrived, unwrapped. */
export interface ImportRecord {
  index: number;
  action: (typeof ACTIONS)[number];
  existingId?: string;
  fields: Rec;
}

/** Rule 2: a flat object, or a wrapper `{data, action?, existingId?}` (`existingId` alone means update). */
export function unwrap(record: Rec, index: number): ImportRecord {
  const isWrapper = 'data' in record && Object.keys(record).every((k) => WRAPPER_KEYS.has(k));
  if (!isWrapper) {
    if ('action' in record || 'existingId' in record) {
      throw parameterInvalid(`records.${index}`, `Invalid records.${index}: a wrapper is {data, action, existingId?} and nothing else, with data an object.`);
    }
    return { index, action: 'create', fields: record };
  }
  if (!isRec(record.data)) throw parameterInvalid(`records.${index}.data`, `Invalid records.${index}.data: must be an object.`);
  const action = record.action ?? (record.existingId !== undefined ? 'update' : 'create');
  if (!ACTIONS.includes(action as never)) {
    throw parameterInvalid(`records.${index}.action`, `Invalid records.${index}.action: must be one of ${ACTIONS.join(', ')}.`);
  }
  if (record.existingId !== undefined && (typeof record.existingId !== 'string' || !record.existingId.trim() || record.existingId.length > 100)) {
    throw parameterInvalid(`records.${index}.existingId`, `Invalid records.${index}.existingId: must be a record id.`);
  }
  return { index, action: action as ImportRecord['action'], existingId: record.existingId as string | undefined, fields: record.data };
}

/**
 * Rules 5 and 6 for a ticket create/update record: history on the record or its `data` is a 400
 * naming where it is (`records.3.data.comments`); empty history is allowed (rule 7).
 */
export function refuseHistory(record: Rec, index: number): void {
  const places: [Rec, string][] = [[record, `records.${index}`]];
  if (isRec(record.data)) places.push([record.data, `records.${index}.data`]);
  for (const [obj, prefix] of places) {
    for (const key of HISTORY_KEYS) {
      const v = at(obj, key);
      if (Array.isArray(v) && v.length) {
        throw parameterInvalid(
          `${prefix}.${key}`,
          `Invalid ${prefix}.${key}: a ticket's history (replies, notes, attachments) is not migrated; only its description becomes the first message. Send the record without it.`,
        );
      }
    }
    const parts = Array.isArray(at(obj, 'conversation_parts')) ? 'conversation_parts' : Array.isArray(at(obj, 'conversation_parts.conversation_parts')) ? 'conversation_parts.conversation_parts' : null;
    if (at(obj, 'source.body') && parts) {
      throw parameterInvalid(
        `${prefix}.${parts}`,
        `Invalid ${prefix}.${parts}: a conversation with source.body and conversation_parts is a thread export; send source.body without conversation_parts.`,
      );
    }
  }
}
