import mongoose from 'mongoose';
import { PERMISSIONS, type EventReader, type Permission, type Partition } from '@helpdesk/contracts';
import { tenancyPlugin, type Scope } from '@helpdesk/kit';

/**
 * Whom a webhook's deliveries read as (docs/adr/0066): the key that last chose its url or events, with
 * that key's effective permissions then, narrowed (never widened) when its member's role changes.
 */
export interface ReadAs {
  keyId: string;
  memberId: string | null;
  permissions: Permission[];
}

/** Webhooks from before ADR 0066 have no `readAs`: they read everything until their url or events are saved again. */
const READS_EVERYTHING: EventReader = { permissions: PERMISSIONS, memberId: null, keyId: null };
export const readerOf = (hook: Pick<WebhookDoc, 'readAs'>): EventReader => hook.readAs ?? READS_EVERYTHING;

/** A stored webhook. `_id` is the public `whk_…` id. */
export interface WebhookDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  name: string;
  /** As given, normalised by the URL parser (lowercase scheme and host, default port dropped). */
  url: string;
  /** The subscribed patterns, as given (duplicates dropped). */
  events: string[];
  /** The patterns sorted and joined: part of the url+events uniqueness. */
  eventsKey: string;
  /**
   * The signing secret (`whsec_…`), sealed with SECRETS_KEY (`enc:v1:<keyId>:…`, webhooks/secrets.ts,
   * docs/adr/0067); a webhook from before encryption at rest holds it in the clear until the next start
   * seals it. Never selected unless asked for (`+secret`): only the delivery worker reads it.
   */
  secret: string;
  isActive: boolean;
  /** Whom its deliveries read as; absent on webhooks from before it (see readerOf). */
  readAs?: ReadAs;
  /** First failed attempt since the last successful one (null while healthy); 5 days of it disables. */
  failingSince: Date | null;
  /** Bumped by every write: PATCH writes only if nobody wrote since it read. */
  rev: number;
  createdAt: Date;
  updatedAt: Date;
}

const webhookSchema = new mongoose.Schema<WebhookDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    eventsKey: { type: String, required: true },
    secret: { type: String, required: true, select: false },
    isActive: { type: Boolean, required: true },
    readAs: {
      type: new mongoose.Schema<ReadAs>(
        { keyId: { type: String, required: true }, memberId: { type: String, default: null }, permissions: { type: [String], enum: PERMISSIONS, required: true } },
        { _id: false, versionKey: false, strict: 'throw' },
      ),
      default: undefined,
    },
    failingSince: { type: Date, default: null },
    rev: { type: Number, required: true, default: 0 },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'webhooks', versionKey: false, minimize: false, strict: 'throw' },
);
webhookSchema.plugin(tenancyPlugin);
// The same url with the same set of events, in one team and partition, is a 409.
webhookSchema.index({ teamId: 1, mode: 1, url: 1, eventsKey: 1 }, { unique: true, name: 'url_events_unique' });
webhookSchema.index({ teamId: 1, mode: 1, isActive: 1 });
webhookSchema.index({ teamId: 1, mode: 1, createdAt: -1, _id: -1 });

export type WebhookModel = mongoose.Model<WebhookDoc>;

export function webhookModel(conn: mongoose.Connection): WebhookModel {
  return (conn.models.Webhook as WebhookModel | undefined) ?? conn.model<WebhookDoc>('Webhook', webhookSchema);
}

/**
 * Webhooks per team and partition, counted in the same transaction as each create and delete: the
 * conditional `$inc` makes two concurrent creates at the limit conflict instead of both passing.
 */
export interface QuotaDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  count: number;
}

const quotaSchema = new mongoose.Schema<QuotaDoc>(
  { _id: { type: String, required: true }, count: { type: Number, required: true, default: 0 } },
  { collection: 'webhook_quotas', versionKey: false, strict: 'throw' },
);
quotaSchema.plugin(tenancyPlugin);

export type QuotaModel = mongoose.Model<QuotaDoc>;

export function quotaModel(conn: mongoose.Connection): QuotaModel {
  return (conn.models.WebhookQuota as QuotaModel | undefined) ?? conn.model<QuotaDoc>('WebhookQuota', quotaSchema);
}

/** The counter row of one team and partition. */
export const quotaId = (scope: Scope) => `${scope.teamId}:${scope.mode}`;
