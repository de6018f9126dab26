import type { CategoryView } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { CategoryDoc } from './model';

/** The spec's Category (events carry the same). */
export function categoryView(c: Unscoped<CategoryDoc>): CategoryView {
  return {
    id: c._id,
    object: 'category',
    name: c.name,
    slug: c.slug,
    description: c.description ?? null,
    icon: c.icon,
    color: c.color,
    sortOrder: c.sortOrder ?? 0,
    isPublic: c.isPublic,
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
  };
}
