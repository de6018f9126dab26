import { customFieldDefModel, teamAndPartition, teamWide } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import { articleModel } from './articles/model';
import { revisionModel } from './articles/revisions/model';
import { categoryModel } from './categories/model';
import { helpCenterModel } from './help-center/model';
import { teamRefModel } from './teams/model';

/**
 * Every collection of the service, declared once with its kind (kit's data layer, docs/adr/0065);
 * kit builds their indexes at start-up. Reached only through `scoped(models, scope)`.
 */
export const knowledgeModels = (conn: mongoose.Connection) => ({
  articles: teamAndPartition(articleModel(conn)),
  revisions: teamAndPartition(revisionModel(conn)),
  categories: teamAndPartition(categoryModel(conn)),
  helpCenters: teamAndPartition(helpCenterModel(conn)),
  customFieldDefs: teamWide(customFieldDefModel(conn)),
  teamRefs: teamWide(teamRefModel(conn), { key: '_id' }),
});
export type KnowledgeModels = ReturnType<typeof knowledgeModels>;
