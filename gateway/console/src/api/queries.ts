import { useEffect } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, HelpdeskError, type Ticket } from './client';
import { useSession } from './session';

/**
 * The console's reads and writes, one hook each, over the typed client. Query keys start with the
 * resource, so that the event stream (events.ts) can refresh exactly what an event changed.
 */

export const keys = {
  tickets: ['tickets'] as const,
  ticketList: (filter: InboxFilter, page: number, pageSize: number) => ['tickets', 'list', filter, page, pageSize] as const,
  ticket: (id: string) => ['tickets', 'detail', id] as const,
  customerTickets: (customerId: string) => ['tickets', 'customer', customerId] as const,
  customer: (id: string) => ['customers', id] as const,
  members: ['members'] as const,
  views: ['views'] as const,
  customFields: ['custom-fields'] as const,
  player: (memberId: string) => ['game', 'player', memberId] as const,
  boss: ['game', 'boss'] as const,
  quests: ['game', 'quests'] as const,
  leaderboard: (metric: string, period: string) => ['game', 'leaderboard', metric, period] as const,
  gameSummary: ['game', 'summary'] as const,
  apiKeys: ['api-keys'] as const,
  invites: ['invites'] as const,
  webhooks: ['webhooks'] as const,
  deliveries: (webhookId: string, page: number) => ['webhooks', webhookId, 'deliveries', page] as const,
  widget: ['settings', 'widget'] as const,
};

// ---------- the inbox ----------

/** Which tickets the inbox shows: a built-in folder, a status, or a saved view of the team. */
export type InboxFilter =
  | { kind: 'mine' }
  | { kind: 'unassigned' }
  | { kind: 'all' }
  | { kind: 'status'; status: 'new' | 'open' | 'pending' | 'resolved' | 'closed' }
  | { kind: 'view'; viewId: string };

export interface TicketPage {
  tickets: Ticket[];
  page: number;
  totalPages: number;
  total: number;
}

export const INBOX_PAGE_SIZE = 50;

async function fetchTicketPage(teamId: string, memberId: string, filter: InboxFilter, page: number, pageSize: number): Promise<TicketPage> {
  const path = { teamId };
  if (filter.kind === 'view') {
    const res = await api.page(api.GET('/teams/{teamId}/views/{viewId}/execute', { params: { path: { teamId, viewId: filter.viewId }, query: { page, pageSize } } }));
    return { tickets: res.data as Ticket[], page, totalPages: res.pagination?.totalPages ?? 1, total: res.pagination?.total ?? res.data.length };
  }
  const query = {
    page,
    pageSize,
    'expand[]': ['customer' as const],
    ...(filter.kind === 'mine' ? { assignedTo: memberId } : filter.kind === 'unassigned' ? { assignedTo: 'none' } : {}),
    ...(filter.kind === 'status' ? { status: filter.status } : {}),
  };
  const res = await api.page(api.GET('/teams/{teamId}/tickets', { params: { path, query } }));
  return { tickets: res.data, page, totalPages: Math.max(1, res.pagination?.totalPages ?? 1), total: res.pagination?.total ?? res.data.length };
}

/** One page of the inbox, the previous page kept on screen while the next loads, and the page after it fetched ahead. */
export function useTicketPage(filter: InboxFilter, page: number, pageSize = INBOX_PAGE_SIZE) {
  const { teamId, memberId } = useSession();
  const qc = useQueryClient();
  const result = useQuery({
    queryKey: keys.ticketList(filter, page, pageSize),
    queryFn: () => fetchTicketPage(teamId, memberId, filter, page, pageSize),
    placeholderData: keepPreviousData,
  });
  const more = !!result.data && !result.isPlaceholderData && page < result.data.totalPages;
  useEffect(() => {
    if (more) void qc.prefetchQuery({ queryKey: keys.ticketList(filter, page + 1, pageSize), queryFn: () => fetchTicketPage(teamId, memberId, filter, page + 1, pageSize), staleTime: 10_000 });
  }, [more, result.dataUpdatedAt, page, pageSize, teamId, memberId, qc, JSON.stringify(filter)]);
  return result;
}

export function useViews() {
  const { teamId } = useSession();
  return useQuery({
    queryKey: keys.views,
    queryFn: () => api.data(api.GET('/teams/{teamId}/views', { params: { path: { teamId }, query: { entityType: 'tickets' } } })),
    staleTime: 60_000,
  });
}

// ---------- one ticket ----------

export function useTicket(ticketId: string) {
  const { teamId } = useSession();
  return useQuery({
    queryKey: keys.ticket(ticketId),
    queryFn: () => api.data(api.GET('/teams/{teamId}/tickets/{ticketId}', { params: { path: { teamId, ticketId }, query: { 'expand[]': ['customer', 'messages'] } } })),
  });
}

export type TicketChanges = NonNullable<Parameters<typeof api.PATCH<'/teams/{teamId}/tickets/{ticketId}', any>>[1]>['body'];

/** Refreshes every cached list and the ticket itself after a write (the stream would too, a moment later). */
function afterTicketWrite(qc: QueryClient, ticket: Ticket) {
  qc.setQueryData(keys.ticket(ticket.id), (old: Ticket | undefined) => (old ? { ...old, ...ticket, messages: ticket.messages ?? old.messages } : ticket));
  void qc.invalidateQueries({ queryKey: ['tickets', 'list'] });
}

export function useUpdateTicket(ticketId: string) {
  const { teamId } = useSession();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      api.data(api.PATCH('/teams/{teamId}/tickets/{ticketId}', { params: { path: { teamId, ticketId } }, body: body as any })),
    onSuccess: (ticket) => afterTicketWrite(qc, ticket),
  });
}

export function useAddMessage(ticketId: string) {
  const { teamId } = useSession();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (m: { content: string; internal: boolean }) =>
      api.data(
        api.POST('/teams/{teamId}/tickets/{ticketId}/messages', {
          params: { path: { teamId, ticketId } },
          body: { content: m.content, messageType: m.internal ? 'internal' : 'public' },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.ticket(ticketId) }),
  });
}

export function useMergeTickets(ticketId: string) {
  const { teamId } = useSession();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (sourceTicketIds: string[]) =>
      api.data(api.POST('/teams/{teamId}/tickets/{ticketId}/merge', { params: { path: { teamId, ticketId } }, body: { sourceTicketIds } })),
    onSuccess: (ticket) => {
      afterTicketWrite(qc, ticket);
      void qc.invalidateQueries({ queryKey: keys.tickets });
    },
  });
}

export function useCustomerTickets(customerId: string | null | undefined) {
  const { teamId } = useSession();
  return useQuery({
    queryKey: keys.customerTickets(customerId ?? ''),
    enabled: !!customerId,
    queryFn: () => api.page(api.GET('/teams/{teamId}/tickets', { params: { path: { teamId }, query: { customerId: customerId!, pageSize: 10 } } })),
  });
}

export function useCustomer(customerId: string | null | undefined) {
  const { teamId } = useSession();
  return useQuery({
    queryKey: keys.customer(customerId ?? ''),
    enabled: !!customerId,
    queryFn: () => api.data(api.GET('/teams/{teamId}/customers/{customerId}', { params: { path: { teamId, customerId: customerId! } } })),
  });
}

export function useCustomFields() {
  const { teamId } = useSession();
  return useQuery({
    queryKey: keys.customFields,
    queryFn: () => api.data(api.GET('/teams/{teamId}/custom-fields', { params: { path: { teamId }, query: { entity: 'ticket' } } })),
    staleTime: 5 * 60_000,
  });
}

/** Every member of the team (for assignment, mentions and names), all pages. */
export function useMembers() {
  const { teamId } = useSession();
  return useQuery({
    queryKey: keys.members,
    queryFn: async () => {
      const all = [];
      for await (const m of api.paginate('/teams/{teamId}/members', { params: { path: { teamId }, query: { pageSize: 100 } } })) all.push(m);
      return all;
    },
    staleTime: 60_000,
  });
}

export function useArticleSearch(q: string) {
  const { teamId } = useSession();
  return useQuery({
    queryKey: ['articles', 'search', q],
    enabled: q.trim().length > 0,
    queryFn: () =>
      api.data(api.GET('/teams/{teamId}/articles', { params: { path: { teamId }, query: { search: q.trim(), status: 'published', pageSize: 8 } } })),
    staleTime: 30_000,
  });
}

export function useSuggestReply(ticketId: string) {
  const { teamId } = useSession();
  return useMutation({
    mutationFn: () => api.data(api.POST('/teams/{teamId}/ai', { params: { path: { teamId } }, body: { action: 'suggest-reply', ticketId } })),
  });
}

/** A refusal that means "this feature is off for the team" (or not for this member), not a failure. */
export const isSwitchedOff = (err: unknown) =>
  err instanceof HelpdeskError && err.status === 403 && (err.code === 'feature_disabled' || err.code === 'insufficient_permissions');
