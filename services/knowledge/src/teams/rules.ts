import { duplicateKeyOf, scoped } from '@helpdesk/kit';
import type { KnowledgeModels } from '../collections';
import type { TeamRefDoc } from './model';

/** The teams' slugs as the workspace announces them (./model.ts). */
export function teamRefRules({ models }: { models: KnowledgeModels }) {
  return {
    /** Keeps `slug` as the team's unless what is kept is newer (an event arriving late changes nothing). */
    async setSlug(teamId: string, slug: string, at: Date): Promise<void> {
      try {
        await scoped(models, { teamId }).teamRefs.updateOne({ at: { $lte: at } }, { $set: { slug, at } }, { upsert: true });
      } catch (err) {
        // Kept already, newer: the upsert's insert collides with it.
        if (duplicateKeyOf(err) === null) throw err;
      }
    },

    /** The team's slug, or null while knowledge has not heard of it (a team created before it listened). */
    async slugOf(teamId: string): Promise<string | null> {
      return (await scoped(models, { teamId }).teamRefs.findOne({}, { slug: 1 }).lean<Pick<TeamRefDoc, 'slug'>>())?.slug ?? null;
    },
  };
}
export type TeamRefRules = ReturnType<typeof teamRefRules>;
