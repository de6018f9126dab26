import type { ErrorCode } from '../errors';
import { isWellFormedId, UUID_RE } from '../ids';
import type { Permission } from '../permissions';
import type { OperationDef, ParamKind } from './operation';

/**
 * The access and path-parameter rules of an operation, as pure functions: the gateway applies them
 * to every request and each service applies them again (defence in depth), so both answer alike.
 */
export interface Refusal {
  code: ErrorCode;
  message: string;
  param?: string;
}

/** A key (or a console session, docs/adr/0068) that makes a request: its type and its effective permissions. */
export interface Caller {
  keyType: 'secret' | 'publishable' | 'internal' | 'session';
  permissions: readonly Permission[];
}

/** Operations the console's session cookie works on: all but the keyless ones and the widget's (docs/adr/0068). */
export const takesSessionCookie = (op: Pick<OperationDef, 'keys'>) => op.keys !== 'none' && op.keys !== 'visitor';

/** Publishable keys first (ADR 0001's order), then the operation's permission. */
export function accessRefusal(op: Pick<OperationDef, 'method' | 'keys' | 'permission'>, caller: Caller): Refusal | null {
  if (op.keys === 'none') return null;
  if (op.keys === 'session') {
    if (caller.keyType !== 'session') return { code: 'insufficient_permissions', message: 'This endpoint is the console session\'s own: call it with the session cookie, not an API key.' };
  } else if (op.keys === 'visitor') {
    // The widget's endpoints (docs/adr/0040): a page holds a publishable key, never a secret one.
    if (caller.keyType === 'secret') return { code: 'secret_key_forbidden', message: 'The widget endpoints take a publishable key (pk_…); a secret key must never be used in a web page.' };
    if (caller.keyType === 'session') return { code: 'secret_key_forbidden', message: 'The widget endpoints take a publishable key (pk_…), not a console session.' };
  } else if (caller.keyType === 'publishable') {
    if (op.method !== 'GET') return { code: 'publishable_key_write', message: 'Publishable keys are read-only; use a secret key to create, update or delete.' };
    if (op.keys === 'staff') return { code: 'publishable_key_forbidden', message: 'Publishable keys cannot read this resource; use a secret key.' };
    if (op.keys !== 'public') return { code: 'insufficient_permissions', message: 'This endpoint requires a secret key.' };
  }
  if (op.permission && !caller.permissions.includes(op.permission)) {
    return { code: 'insufficient_permissions', message: `This API key lacks the permission ${op.permission}.` };
  }
  return null;
}

/** Team-chosen keys in paths (a customer status key). */
export const SLUG_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * A path parameter that cannot be an id of the API: 400 `invalid_id_format` naming it. A well-formed
 * id of another kind is not refused here: no record has it, so the operation answers 404.
 */
export function paramRefusal(name: string, kind: ParamKind, value: string): Refusal | null {
  if (kind === 'team') {
    return UUID_RE.test(value) ? null : { code: 'invalid_id_format', message: `Invalid ${name} '${value}': a team id is a UUID.`, param: name };
  }
  if (kind === 'slug') {
    return SLUG_RE.test(value)
      ? null
      : { code: 'invalid_id_format', message: `Invalid ${name} '${value}': expected lowercase letters, digits, '_' or '-'.`, param: name };
  }
  return isWellFormedId(value) ? null : { code: 'invalid_id_format', message: `Invalid ${name} '${value}': expected a UUID or a prefixed id.`, param: name };
}
