import { createHash, timingSafeEqual } from 'node:crypto';
import type mongoose from 'mongoose';
import { INBOUND_SECRET_GRACE_MS, INBOUND_SECRET_RE, type InboundEmailView } from '@helpdesk/contracts';
import { eventScopeOf, notFound, randomBase62, scoped, withOutbox, type RequestContext, type Scope } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { InboundSecretDoc } from './model';
import { inboundEmailView } from './view';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const sameHash = (a: string, b: string) => timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));

type SecretDeps = { conn: mongoose.Connection; models: TicketingModels };

/** `GET /inbound-email`: the partition's addresses and the webhook secret's state. */
export async function getInboundEmail({ models }: { models: TicketingModels }, domain: string, s: Scope): Promise<InboundEmailView> {
  const row = await scoped(models, s).inboundSecrets.findOne({ _id: `${s.teamId}:${s.mode}` }).lean<InboundSecretDoc>();
  return inboundEmailView(s, domain, row);
}

/** A new secret, answered once (its hash is kept); the one it replaces works for the grace period. `inbound_email.secret_rotated`. */
export async function rotateInboundSecret({ conn, models }: SecretDeps, ctx: RequestContext) {
  const secrets = scoped(models, ctx).inboundSecrets;
  const _id = `${ctx.teamId}:${ctx.mode}`;
  const secret = `ies_${ctx.mode}_${randomBase62(40)}`;
  const now = new Date();
  const previousValidUntil = await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
    const cur = await secrets.findOne({ _id }).session(session).lean<InboundSecretDoc>();
    const until = cur ? new Date(now.getTime() + INBOUND_SECRET_GRACE_MS) : null;
    const row = { hash: sha256(secret), hint: secret.slice(-4), createdAt: now, previousHash: cur?.hash ?? null, previousValidUntil: until };
    await secrets.updateOne({ _id }, { $set: row }, { upsert: true, session });
    emit({ type: 'inbound_email.secret_rotated', data: { hint: row.hint, createdAt: now.toISOString(), previousValidUntil: until?.toISOString() ?? null } });
    return until;
  });
  return { object: 'inbound_email_secret' as const, secret, hint: secret.slice(-4), createdAt: now.toISOString(), previousValidUntil: previousValidUntil?.toISOString() ?? null };
}

/** `inbound_email.secret_revoked`; 404 when there is none. */
export async function revokeInboundSecret({ conn, models }: SecretDeps, ctx: RequestContext): Promise<{ deleted: true }> {
  await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
    const gone = await scoped(models, ctx).inboundSecrets.findOneAndDelete({ _id: `${ctx.teamId}:${ctx.mode}` }, { session }).lean<InboundSecretDoc>();
    if (!gone) throw notFound('inbound email secret');
    emit({ type: 'inbound_email.secret_revoked', data: { hint: gone.hint } });
  });
  return { deleted: true };
}

/** The partition a webhook secret opens for `teamId`, or null (wrong, revoked, another team's, past its grace). */
export async function verifyInboundSecret({ models }: { models: TicketingModels }, teamId: string, presented: string): Promise<Scope | null> {
  const m = INBOUND_SECRET_RE.exec(presented);
  if (!m) return null;
  const s: Scope = { teamId, mode: m[1] as Scope['mode'] };
  const row = await scoped(models, s).inboundSecrets.findOne({ _id: `${teamId}:${s.mode}` }).lean<InboundSecretDoc>();
  if (!row) return null;
  const hash = sha256(presented);
  if (sameHash(hash, row.hash)) return s;
  if (row.previousHash && row.previousValidUntil && row.previousValidUntil > new Date() && sameHash(hash, row.previousHash)) return s;
  return null;
}
