import type { HelpCenterView } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { HelpCenterDoc } from './model';

/** The partition's settings; no document yet = off. */
export function helpCenterView(h: Unscoped<HelpCenterDoc> | null): HelpCenterView {
  return { object: 'help_center', enabled: h?.enabled ?? false, title: h?.title ?? null, updatedAt: h ? new Date(h.updatedAt).toISOString() : null };
}
