import type { CustomerStatusSnapshot } from '@helpdesk/contracts';
import type { StatusDoc } from './model';

/** The public entry (and the event snapshot): `{key, label, color, position, isProtected}`. */
export function statusView(s: Pick<StatusDoc, 'key' | 'label' | 'color' | 'position'>, isProtected = false): CustomerStatusSnapshot {
  return { key: s.key, label: s.label, color: s.color, position: s.position, isProtected };
}
