import { customFieldDefModel } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import { articleModel } from './articles/model';
import { revisionModel } from './articles/revisions/model';
import { categoryModel } from './categories/model';
import { helpCenterModel } from './help-center/model';
import { teamRefModel } from './teams/model';

/** Every model of the service on its connection (kit builds their indexes at start-up). */
export const knowledgeModels = (conn: mongoose.Connection) => ({
  articles: articleModel(conn),
  revisions: revisionModel(conn),
  categories: categoryModel(conn),
  helpCenters: helpCenterModel(conn),
  customFieldDefs: customFieldDefModel(conn),
  teamRefs: teamRefModel(conn),
});
export type KnowledgeModels = ReturnType<typeof knowledgeModels>;
