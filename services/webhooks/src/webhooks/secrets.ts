import { acrossTeams, SecretBox, type Logger, type ServiceWorker } from '@helpdesk/kit';
import type { WebhooksModels } from '../collections';
import type { WebhookDoc } from './model';

/**
 * Webhook signing secrets at rest (docs/adr/0067): stored sealed (AES-256-GCM under SECRETS_KEY),
 * bound to their own webhook, opened only by the delivery worker to sign an attempt.
 */
export const secretContext = (webhookId: string) => `webhooks.secret:${webhookId}`;

/** A webhook's signing secret in the clear (one stored before encryption at rest is used as it is until sealed). */
export const signingSecret = (box: SecretBox, hook: Pick<WebhookDoc, '_id' | 'secret'>): string => box.reveal(hook.secret, secretContext(hook._id));

export interface Resealed {
  /** Plain values sealed (stored before encryption at rest). */
  sealed: number;
  /** Values moved from a previous key to the current one. */
  rotated: number;
}

/**
 * Every stored signing secret as it should be stored now: plain ones sealed, and with `rotate` ones
 * under a previous key sealed again under SECRETS_KEY. Through the driver, across every team (like
 * the delivery worker's queue); each write is conditional on the value read, so a concurrent write
 * (a webhook deleted meanwhile) wins. Idempotent: a second run finds nothing to do.
 */
export async function resealSigningSecrets(models: WebhooksModels, box: SecretBox, opts: { rotate: boolean }): Promise<Resealed> {
  // A sweep across every team on purpose (docs/adr/0065): it touches one field, and each write is by `_id`.
  const hooks = acrossTeams(models).webhooks;
  // Without `rotate`, only plain values (they all start `whsec_`): the query at every start stays cheap.
  const filter = opts.rotate ? {} : { secret: { $regex: '^whsec_' } };
  const counts: Resealed = { sealed: 0, rotated: 0 };
  for await (const hook of hooks.find(filter, { projection: { secret: 1 } })) {
    const next = box.resealed(hook.secret, secretContext(hook._id));
    if (next === null) continue;
    const done = await hooks.updateOne({ _id: hook._id, secret: hook.secret }, { $set: { secret: next } });
    if (done.modifiedCount === 1) counts[SecretBox.isSealed(hook.secret) ? 'rotated' : 'sealed']++;
  }
  return counts;
}

/**
 * At every start: signing secrets stored in the clear before encryption at rest are sealed, in the
 * background (the worker signs with either form meanwhile). Stopping waits for it.
 */
export function sealOnStart(models: WebhooksModels, box: SecretBox, logger: Logger): ServiceWorker {
  const done = resealSigningSecrets(models, box, { rotate: false }).then(
    ({ sealed }) => {
      if (sealed) logger.info({ sealed }, 'webhook signing secrets stored in the clear are now encrypted at rest');
    },
    (err) => logger.error({ err }, 'encrypting the webhook signing secrets stored in the clear failed; the next start tries again'),
  );
  return { stop: () => done };
}
