import type { HelpCenterView, Partition } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { HelpCenterDoc } from './model';

/** The help center's public addresses (the gateway's `/help/{teamSlug}`; `?mode=test` for the test partition). */
export const helpCenterUrls = (slug: string) => ({ live: `/help/${slug}`, test: `/help/${slug}?mode=test` });

/** The partition's settings (no document yet = off) and where it is served. */
export function helpCenterView(h: Unscoped<HelpCenterDoc> | null, where: { mode: Partition; teamSlug: string | null }): HelpCenterView {
  const urls = where.teamSlug === null ? null : helpCenterUrls(where.teamSlug);
  return {
    object: 'help_center',
    enabled: h?.enabled ?? false,
    title: h?.title ?? null,
    updatedAt: h ? new Date(h.updatedAt).toISOString() : null,
    teamSlug: where.teamSlug,
    url: urls ? urls[where.mode] : null,
    urls,
  };
}
