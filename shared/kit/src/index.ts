export * from './config';
export * from './logger';
export * from './errors';
export * from './envelope';
export * from './validate';
export * from './pagination';
export * from './ids';
export * from './internal-token';
export * from './context';
export * from './tenancy';
export * from './mongo';
export * from './http';
export * from './shutdown';
export * from './bus';
export * from './outbox';
export * from './telemetry';
export * from './service';
export * from './fields';
export * from './operations';
export * from './subscriptions';
// The data layer (docs/adr/0065): declared collections and the scoped handles services reach them through.
export {
  teamAndPartition,
  teamWide,
  platformWide,
  scoped,
  scopedCollection,
  acrossTeams,
  bulkWriteInScopes,
  platform,
  describeCollections,
  declarations,
  undeclaredCollections,
  type CollectionDescription,
  type BulkOpInScope,
  type Collection,
  type CollectionKind,
  type DataLayer,
  type ScopedHandles,
  type Swept,
  type TeamKey,
} from './data-layer';
export type { AnyScopedModel, InScope, LeanBulkOp, LeanFilter, LeanPaths, ScopedFilter, ScopedModel, Unscoped } from './scoped';
// The driver collection behind a model: for kit's tests and services' tests (refused under services/*/src by eslint).
export { collectionOf } from './lean-reads';
export * from './lookup-cache';
export * from './internal-client';
export * from './in-process';
export * from './custom-fields';
export * from './bulk';
export * from './search';
export * from './metrics';
export * from './transaction';
export * from './work-signal';
export * from './slow-clients';
export * from './secrets';
export * from './clock';
