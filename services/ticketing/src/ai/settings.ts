import type mongoose from 'mongoose';
import type { AiSettings } from '@helpdesk/contracts';
import { changeSet, eventScopeOf, scoped, withOutbox, type RequestContext, type Scope } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { AiSettingsDoc } from './model';
import { settingsView } from './view';

const settingsId = (scope: Scope) => `${scope.mode}:${scope.teamId}`;

/** The partition's AI settings, or null while it has none (the defaults). */
export async function aiSettingsOf({ models }: { models: TicketingModels }, scope: Scope): Promise<AiSettingsDoc | null> {
  return scoped(models, scope).aiSettings.findOne({ _id: settingsId(scope) }).lean<AiSettingsDoc>();
}

export async function getAiSettings(deps: { models: TicketingModels }, ctx: RequestContext): Promise<AiSettings> {
  return settingsView(await aiSettingsOf(deps, ctx));
}

/** `PATCH /ai/settings`, with `ai_settings.updated` when a field changed. */
export async function updateAiSettings({ conn, models }: { conn: mongoose.Connection; models: TicketingModels }, ctx: RequestContext, input: { includeInternalNotes?: boolean }): Promise<AiSettings> {
  return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
    const db = scoped(models, ctx);
    const cur = await db.aiSettings.findOne({ _id: settingsId(ctx) }).session(session).lean<AiSettingsDoc>();
    const { set, previous, change, changes } = changeSet({ includeInternalNotes: cur?.includeInternalNotes ?? false });
    if (input.includeInternalNotes !== undefined) change('includeInternalNotes', input.includeInternalNotes);
    const changed = changes();
    if (!changed.length) return settingsView(cur);
    const next = { includeInternalNotes: set.includeInternalNotes!, updatedAt: new Date() };
    await db.aiSettings.updateOne({ _id: settingsId(ctx) }, { $set: next }, { session, upsert: true });
    const view = settingsView({ _id: settingsId(ctx), teamId: ctx.teamId, mode: ctx.mode, ...next });
    emit({ type: 'ai_settings.updated', data: { settings: view, changes: changed, previous } });
    return view;
  });
}
