import type mongoose from 'mongoose';
import type { CreateWebhookInput, ListWebhooksQuery, Permission, UpdateWebhookInput } from '@helpdesk/contracts';
import type { RequestContext, Scope, SecretBox } from '@helpdesk/kit';
import type { WebhookSettings } from '../settings';
import { activeWebhookPatterns } from './active-patterns';
import { createWebhook } from './create';
import { disableWebhook, type DisableReason } from './disable';
import { narrowWebhooksToRole } from './narrow-to-role';
import type { WebhookStore } from './port';
import { findWebhookOr404, getWebhook, listWebhooks } from './read';
import { removeWebhook } from './remove';
import { updateWebhook } from './update';

export type { DisableReason } from './disable';

export interface WebhookRulesDeps extends WebhookStore {
  settings: WebhookSettings;
  /** The service's `soleInstance`: what the partitions' active webhooks subscribe to is then kept per process (docs/adr/0045). */
  soleInstance?: boolean;
  /** Seals signing secrets (SECRETS_KEY, docs/adr/0067). */
  secrets: SecretBox;
}

/** The webhook subscriptions' use cases (docs/adr/0007), bound once with the partitions' kept patterns. */
export function webhookRules({ soleInstance = false, ...rest }: WebhookRulesDeps) {
  const patterns = activeWebhookPatterns({ models: rest.models, soleInstance });
  const deps = { ...rest, patterns };
  return {
    findOr404: (scope: Scope, id: string, session?: mongoose.ClientSession) => findWebhookOr404(deps, scope, id, session),
    list: (ctx: RequestContext, q: ListWebhooksQuery) => listWebhooks(deps, ctx, q),
    get: (ctx: RequestContext, id: string) => getWebhook(deps, ctx, id),
    create: (ctx: RequestContext, input: CreateWebhookInput) => createWebhook(deps, ctx, input),
    update: (ctx: RequestContext, id: string, input: UpdateWebhookInput) => updateWebhook(deps, ctx, id, input),
    remove: (ctx: RequestContext, id: string) => removeWebhook(deps, ctx, id),
    disable: (scope: Scope, webhookId: string, why: DisableReason) => disableWebhook(deps, scope, webhookId, why),
    narrowToRole: (teamId: string, memberId: string, permissions: readonly Permission[]) => narrowWebhooksToRole(deps, teamId, memberId, permissions),
    mayReceive: (scope: Scope, type: string) => patterns.mayReceive(scope, type),
  };
}

export type WebhookRules = ReturnType<typeof webhookRules>;
