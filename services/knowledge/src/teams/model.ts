import mongoose from 'mongoose';
import { teamTenancyPlugin } from '@helpdesk/kit';

/**
 * What knowledge knows of each team: its slug, which the help center's address is made of
 * (`/help/{teamSlug}`), from the workspace's events (`member.joined` of the team's creation,
 * `settings.updated`). Per team, not per partition. `at`: when the slug kept was set (older news is not
 * written over newer).
 */
export interface TeamRefDoc {
  _id: string;
  slug: string;
  at: Date;
}

const schema = new mongoose.Schema<TeamRefDoc>(
  {
    _id: { type: String, required: true },
    slug: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { collection: 'team_refs', versionKey: false, strict: 'throw' },
);
// One row per team: its _id is the team's id.
schema.plugin(teamTenancyPlugin, { key: '_id' });

export type TeamRefModel = mongoose.Model<TeamRefDoc>;

export function teamRefModel(conn: mongoose.Connection): TeamRefModel {
  return (conn.models.TeamRef as TeamRefModel | undefined) ?? conn.model<TeamRefDoc>('TeamRef', schema);
}
