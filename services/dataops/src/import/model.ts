import mongoose from 'mongoose';
import { BULK_RESOURCES, IMPORT_SOURCES, MERGE_STRATEGIES, type BulkResource, type ImportLogView, type ImportSource, type MergeStrategy, type Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/** One import request's log entry (its counts; never the records). `_id` is the public `imp_…` id. */
export interface ImportLogDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  resource: BulkResource;
  status: 'completed' | 'completed_with_errors';
  source: ImportSource;
  mergeStrategy: MergeStrategy;
  totalRecords: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  createdAt: Date;
}

const importLogSchema = new mongoose.Schema<ImportLogDoc>(
  {
    _id: { type: String, required: true },
    resource: { type: String, enum: BULK_RESOURCES, required: true },
    status: { type: String, required: true },
    source: { type: String, enum: IMPORT_SOURCES, required: true },
    mergeStrategy: { type: String, enum: MERGE_STRATEGIES, required: true },
    totalRecords: { type: Number, required: true },
    created: { type: Number, required: true },
    updated: { type: Number, required: true },
    skipped: { type: Number, required: true },
    failed: { type: Number, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'import_logs', versionKey: false, strict: 'throw' },
);
importLogSchema.plugin(tenancyPlugin);
importLogSchema.index({ teamId: 1, mode: 1, createdAt: -1, _id: -1 });

export type ImportLogModel = mongoose.Model<ImportLogDoc>;
export const importLogModel = (conn: mongoose.Connection): ImportLogModel =>
  (conn.models.ImportLog as ImportLogModel | undefined) ?? conn.model<ImportLogDoc>('ImportLog', importLogSchema);

export const importLogView = (l: Omit<ImportLogDoc, 'teamId' | 'mode'>): ImportLogView => ({
  id: l._id,
  resource: l.resource,
  status: l.status,
  source: l.source,
  mergeStrategy: l.mergeStrategy,
  totalRecords: l.totalRecords,
  created: l.created,
  updated: l.updated,
  skipped: l.skipped,
  failed: l.failed,
  createdAt: new Date(l.createdAt).toISOString(),
});
