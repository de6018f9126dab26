import { useEffect, useSyncExternalStore } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, API_BASE, HelpdeskError, type BossState, type Ticket } from './client';
import { keys } from './queries';
import { useSession } from './session';
import { toast } from '../ui/toasts';

/**
 * The live part of the console: the team's event stream (docs/adr/0021), opened with a stream token
 * (docs/adr/0031) minted with the member's session, read by the browser's EventSource. Each event
 * refreshes what it changed in the query cache (a ticket, the inbox's lists, the boss, the player); the
 * member's own achievements and level-ups become toasts.
 *
 * Reconnecting: EventSource reconnects by itself, sending `Last-Event-ID`, so nothing is missed. A
 * token lasts 5 minutes for opening; once it has expired, a reconnection is refused and EventSource
 * gives up, so a new token is minted and a new EventSource opened from the last id seen
 * (`?lastEventId=`). A `stream.gap` frame (the id is older than the log keeps) refreshes everything;
 * every reopening refreshes the inbox and the game (a drop before the first event has no id to replay from).
 */

/** Exactly the events the console reacts to (EventSource needs a listener per event name). */
export const STREAM_TYPES = [
  'ticket.created',
  'ticket.updated',
  'ticket.closed',
  'ticket.assigned',
  'ticket.merged',
  'ticket.deleted',
  'ticket.message_added',
  'game.xp_awarded',
  'game.level_up',
  'game.player.progressed',
  'game.boss.spawned',
  'game.boss.damaged',
  'game.boss.defeated',
  'game.boss.escaped',
  'game.achievement.unlocked',
  'game.quest.completed',
  'game.quest.claimed',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.invited',
  'invite.revoked',
  'invite.accepted',
  'feature_flags.updated',
  'widget_settings.updated',
] as const;

export interface StreamEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, any>;
}

export type StreamStatus = 'connecting' | 'live' | 'reconnecting' | 'off';

// ---------- status, as a tiny external store ----------

let status: StreamStatus = 'off';
const statusListeners = new Set<() => void>();
function setStatus(s: StreamStatus) {
  if (s === status) return;
  status = s;
  for (const l of statusListeners) l();
}
export function useStreamStatus(): StreamStatus {
  return useSyncExternalStore(
    (l) => {
      statusListeners.add(l);
      return () => statusListeners.delete(l);
    },
    () => status,
  );
}

/** Listeners of every event (tests of the console's own behaviour, e.g. the inbox's "new" marks). */
const eventListeners = new Set<(e: StreamEvent) => void>();
export function onStreamEvent(l: (e: StreamEvent) => void): () => void {
  eventListeners.add(l);
  return () => eventListeners.delete(l);
}

// ---------- refreshing the inbox's lists: at most one fetch at a time, one more if events came meanwhile ----------

function listRefresher(qc: QueryClient) {
  let running = false;
  let again = false;
  return function refresh() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void qc.invalidateQueries({ queryKey: ['tickets', 'list'], refetchType: 'none' });
    void qc.invalidateQueries({ queryKey: ['tickets', 'customer'], refetchType: 'none' });
    qc.refetchQueries({ queryKey: ['tickets'], type: 'active' }, { cancelRefetch: false })
      .catch(() => undefined)
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          refresh();
        }
      });
  };
}

// ---------- applying one event ----------

function applyEvent(qc: QueryClient, e: StreamEvent, memberId: string, refreshLists: () => void) {
  const d = e.data ?? {};
  switch (e.type) {
    case 'ticket.created':
    case 'ticket.updated':
    case 'ticket.closed':
    case 'ticket.assigned':
    case 'ticket.merged': {
      const snapshot = d.ticket as Partial<Ticket> | undefined;
      if (snapshot?.id) {
        qc.setQueryData(keys.ticket(snapshot.id), (old: Ticket | undefined) => (old ? { ...old, ...snapshot, messages: old.messages, customer: old.customer } : old));
        void qc.invalidateQueries({ queryKey: keys.ticket(snapshot.id) });
      }
      refreshLists();
      break;
    }
    case 'ticket.deleted':
      if (d.ticketId) qc.removeQueries({ queryKey: keys.ticket(d.ticketId) });
      refreshLists();
      break;
    case 'ticket.message_added': {
      const ticketId = d.message?.ticketId ?? d.ticketId ?? d.ticket?.id;
      if (ticketId) void qc.invalidateQueries({ queryKey: keys.ticket(ticketId) });
      refreshLists();
      break;
    }
    case 'game.boss.damaged':
      // The bar moves at once from the event; the full state (shield, phase, enrage) follows.
      qc.setQueryData(keys.boss, (old: BossState | undefined) =>
        old?.boss && old.boss.id === d.bossId
          ? { ...old, boss: { ...old.boss, currentHealth: d.currentHealth, healthPercent: old.boss.maxHealth ? d.currentHealth / old.boss.maxHealth : 0 } }
          : old,
      );
      void qc.invalidateQueries({ queryKey: keys.boss });
      void qc.invalidateQueries({ queryKey: ['game', 'leaderboard'] });
      break;
    case 'game.boss.spawned':
    case 'game.boss.defeated':
    case 'game.boss.escaped':
      void qc.invalidateQueries({ queryKey: ['game'] });
      if (e.type === 'game.boss.spawned') toast(`A boss appeared: ${d.boss?.name ?? 'boss'}. Close customer tickets to fight it.`);
      if (e.type === 'game.boss.defeated') toast(`${d.boss?.name ?? 'The boss'} was defeated!`);
      break;
    case 'game.xp_awarded':
    case 'game.player.progressed':
    case 'game.level_up':
    case 'game.achievement.unlocked':
    case 'game.quest.completed':
    case 'game.quest.claimed':
      if (d.memberId) void qc.invalidateQueries({ queryKey: keys.player(d.memberId) });
      void qc.invalidateQueries({ queryKey: ['game', 'leaderboard'] });
      void qc.invalidateQueries({ queryKey: keys.gameSummary });
      if (d.memberId === memberId) {
        void qc.invalidateQueries({ queryKey: keys.quests });
        if (e.type === 'game.level_up') toast(`Level ${d.level} reached!`, 'celebrate');
        if (e.type === 'game.achievement.unlocked') toast(`Achievement unlocked: ${d.name}${d.gold ? ` (+${d.gold} gold)` : ''}`, 'celebrate');
        if (e.type === 'game.quest.completed') toast('Quest completed: claim its reward in the game panel.');
      }
      break;
    case 'member.joined':
    case 'member.role_changed':
    case 'member.removed':
      void qc.invalidateQueries({ queryKey: keys.members });
      break;
    case 'member.invited':
    case 'invite.revoked':
    case 'invite.accepted':
      void qc.invalidateQueries({ queryKey: keys.invites });
      if (e.type === 'invite.accepted') void qc.invalidateQueries({ queryKey: keys.members });
      break;
    case 'feature_flags.updated':
      void qc.invalidateQueries({ queryKey: ['game'] });
      void qc.invalidateQueries({ queryKey: ['feature-flags'] });
      break;
    case 'widget_settings.updated':
      void qc.invalidateQueries({ queryKey: keys.widget });
      break;
    case 'stream.gap':
      void qc.invalidateQueries();
      break;
  }
}

// ---------- the connection ----------

/** Keeps the team's event stream open while the console is signed in. */
export function useEventStream(): void {
  const { teamId, memberId, session } = useSession();
  const qc = useQueryClient();
  useEffect(() => {
    let source: EventSource | null = null;
    let lastId: string | null = null;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let openedBefore = false;
    const refreshLists = listRefresher(qc);

    const onFrame = (ev: MessageEvent) => {
      if (ev.lastEventId) lastId = ev.lastEventId;
      let parsed: StreamEvent;
      try {
        parsed = JSON.parse(ev.data);
      } catch {
        return;
      }
      const e: StreamEvent = { ...parsed, type: ev.type === 'message' ? parsed.type : ev.type };
      applyEvent(qc, e, memberId, refreshLists);
      for (const l of eventListeners) l(e);
    };

    async function open() {
      if (stopped) return;
      setStatus(lastId ? 'reconnecting' : 'connecting');
      let token: string;
      try {
        const minted = await api.data(api.POST('/teams/{teamId}/events/stream-tokens', { params: { path: { teamId } }, body: { types: STREAM_TYPES.join(',') } }));
        token = minted.token;
      } catch (err) {
        // A 401 ends the session (the app shows it); anything else is retried with a growing pause.
        if (err instanceof HelpdeskError && err.status === 401) {
          setStatus('off');
          return;
        }
        retryLater();
        return;
      }
      if (stopped) return;
      const url = new URL(`${API_BASE}/teams/${teamId}/events/stream`);
      url.searchParams.set('token', token);
      if (lastId) url.searchParams.set('lastEventId', lastId);
      const es = new EventSource(url);
      source = es;
      for (const type of STREAM_TYPES) es.addEventListener(type, onFrame as EventListener);
      es.addEventListener('stream.gap', onFrame as EventListener);
      es.onopen = () => {
        failures = 0;
        setStatus('live');
        // Back after a drop: Last-Event-ID replays what the log kept since the last event this page
        // saw; what happened before any event arrived (no id yet) is fetched again instead.
        if (openedBefore) {
          refreshLists();
          void qc.invalidateQueries({ queryKey: ['game'] });
        }
        openedBefore = true;
      };
      es.onerror = () => {
        if (es.readyState === EventSource.CLOSED) {
          // Refused (an expired token, a revoked session) or gone: a new token, from the last id.
          es.close();
          if (source === es) source = null;
          retryLater();
        } else setStatus('reconnecting');
      };
    }

    function retryLater() {
      if (stopped) return;
      setStatus('reconnecting');
      failures++;
      timer = setTimeout(() => void open(), Math.min(30_000, 250 * 2 ** Math.min(failures, 7)));
    }

    void open();
    return () => {
      stopped = true;
      clearTimeout(timer);
      source?.close();
      setStatus('off');
    };
  }, [teamId, memberId, session.mode, qc]);
}
