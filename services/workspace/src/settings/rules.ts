import type mongoose from 'mongoose';
import type { EventData, EventType, UpdateSettingsInput } from '@helpdesk/contracts';
import {
  changeSet,
  conflictOnDuplicate,
  eventScopeOf,
  foundOr404,
  scoped,
  withOutbox,
  type RequestContext,
  type Unscoped,
} from '@helpdesk/kit';
import type { WorkspaceModels } from '../collections';
import { DEFAULT_LANGUAGE, DEFAULT_TICKET_STATUSES, DEFAULT_TIMEZONE, defaultBusinessHours, defaultFeatureFlags, defaultWidget } from './defaults';
import type { SettingsDoc } from './model';
import { settingsView } from './view';

export interface SettingsRulesDeps {
  conn: mongoose.Connection;
  models: WorkspaceModels;
}

type Change = ReturnType<typeof changeSet<SettingsDoc>>;

const slugTaken = (slug: string) => ({ teamSlug: { param: 'teamSlug', message: `The slug '${slug}' is taken by another team.` } });

/**
 * The team's settings document and the one way every part of it is changed: read it in a
 * transaction, let the part compute its changes, write them, emit the part's event when something changed.
 */
export function settingsRules({ conn, models }: SettingsRulesDeps) {
  const db = (ctx: { teamId: string }) => scoped(models, { teamId: ctx.teamId });

  const read = (ctx: { teamId: string }, session?: mongoose.ClientSession) =>
    foundOr404(db(ctx).settings.findOne({}).session(session ?? null).lean<SettingsDoc>(), "team's settings");

  return {
    read,

    /** The team's name and slug, or null when it has no settings yet (the gateway's look-up). */
    async nameOf(teamId: string): Promise<{ name: string; slug: string } | null> {
      const s = await db({ teamId }).settings.findOne({}, { teamName: 1, teamSlug: 1 }).lean<SettingsDoc>();
      return s ? { name: s.teamName, slug: s.teamSlug } : null;
    },

    /** A new team's settings, inside the caller's transaction; nothing when it has some already. */
    async ensure(teamId: string, team: { name: string; slug: string }, session: mongoose.ClientSession): Promise<void> {
      if (await db({ teamId }).settings.exists({}).session(session)) return;
      const now = new Date();
      const doc: Omit<Unscoped<SettingsDoc>, '_id'> = {
        teamName: team.name,
        teamSlug: team.slug,
        defaultTimezone: DEFAULT_TIMEZONE,
        defaultLanguage: DEFAULT_LANGUAGE,
        supportEmail: null,
        autoCloseResolvedAfterDays: null,
        featureFlags: defaultFeatureFlags(),
        ticketStatuses: DEFAULT_TICKET_STATUSES.map((s) => ({ ...s })),
        businessHours: defaultBusinessHours(),
        widget: defaultWidget(),
        createdAt: now,
        updatedAt: now,
      };
      await conflictOnDuplicate(() => db({ teamId }).settings.create([doc], { session }), slugTaken(team.slug));
    },

    /**
     * Applies `apply`'s changes to the team's settings; when any field changed, writes them and emits
     * what `event` builds from the document after the change. Returns `view` of the result.
     */
    async change<T extends EventType, R>(
      ctx: RequestContext,
      apply: (cur: SettingsDoc, c: Change) => void,
      event: (next: SettingsDoc, changes: string[], previous: Record<string, unknown>) => { type: T; data: EventData<T> },
      view: (doc: SettingsDoc) => R,
    ): Promise<R> {
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await read(ctx, session);
        const c = changeSet<SettingsDoc>(cur);
        apply(cur, c);
        const changes = c.changes();
        if (!changes.length) return view(cur);
        const next = await db(ctx)
          .settings.findOneAndUpdate({ _id: cur._id }, { $set: { ...c.set, updatedAt: new Date() } }, { session, returnDocument: 'after' })
          .lean<SettingsDoc>();
        emit(event(next!, changes, c.previous));
        return view(next!);
      });
    },

    get: async (ctx: RequestContext) => settingsView(await read(ctx)),

    update(ctx: RequestContext, input: UpdateSettingsInput) {
      return conflictOnDuplicate(() => this.change(
        ctx,
        (_cur, c) => {
          for (const field of ['teamName', 'teamSlug', 'defaultTimezone', 'defaultLanguage', 'supportEmail', 'autoCloseResolvedAfterDays'] as const) {
            if (input[field] !== undefined) c.change(field, input[field] as never);
          }
        },
        (next, changes, previous) => {
          const { object: _object, ...settings } = settingsView(next);
          return { type: 'settings.updated', data: { settings, changes, previous } };
        },
        settingsView,
      ), slugTaken(input.teamSlug ?? ''));
    },
  };
}

export type SettingsRules = ReturnType<typeof settingsRules>;
