/** Prefixes of the public ids (the spec: "Identifier prefixes are part of the format"). */
export const ID_PREFIX = {
  ticket: 'tkt',
  message: 'msg',
  customer: 'cus',
  article: 'art',
  webhook: 'whk',
  member: 'mem',
  invite: 'inv',
  sla: 'sla',
  rule: 'rule',
  /** An automation rule's execution log entry. */
  execution: 'exec',
  customField: 'cf',
  view: 'view',
  notification: 'ntf',
  audit: 'aud',
  event: 'evt',
  key: 'key',
  delivery: 'dlv',
  request: 'req',
  /** An import log entry (docs/adr/0037). */
  importLog: 'imp',
  /** A console session and the sign-in link that opens one (docs/adr/0068). */
  session: 'ses',
  signInLink: 'sil',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const prefixes = Object.values(ID_PREFIX).join('|');
/** A prefixed id: a known prefix, an underscore, 8 to 64 url-safe characters. */
export const PREFIXED_ID_RE = new RegExp(`^(${prefixes})_[A-Za-z0-9]{8,64}$`);
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** True for a path id the API may accept: a UUID or a known prefixed id. */
export function isWellFormedId(value: string): boolean {
  return UUID_RE.test(value) || PREFIXED_ID_RE.test(value);
}

export function hasPrefix(value: string, kind: IdKind): boolean {
  return value.startsWith(`${ID_PREFIX[kind]}_`) && PREFIXED_ID_RE.test(value);
}
