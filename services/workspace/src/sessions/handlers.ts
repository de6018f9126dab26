import { WORKSPACE_SESSIONS, WORKSPACE_SESSIONS_INTERNAL } from '@helpdesk/contracts';
import { handlersFor, notFound } from '@helpdesk/kit';
import type { WorkspaceRules } from '../rules';

/** `/teams/{teamId}/sessions…`: a member's console sessions (docs/adr/0068). */
export const sessionHandlers = ({ sessions }: WorkspaceRules) =>
  handlersFor(WORKSPACE_SESSIONS)({
    listSessions: ({ ctx, query }) => sessions.list(ctx, query),
    revokeSession: ({ ctx, params }) => sessions.revoke(ctx, params.sessionId),
  });

/** `/internal/sessions…`: the gateway's sign-in, look-ups, and a session's own changes (its token is the session's). */
export const sessionInternalHandlers = ({ sessions }: WorkspaceRules) =>
  handlersFor(WORKSPACE_SESSIONS_INTERNAL)({
    exchangeSignInLink: ({ ctx, body }) => sessions.exchange(ctx, body),
    async getSessionAccess({ ctx, body }) {
      const access = await sessions.access(ctx.teamId, body.tokenHash);
      if (!access) throw notFound('open session');
      return access;
    },
    updateOwnSession: ({ ctx, body }) => sessions.updateOwn(ctx, body.mode),
    endOwnSession: ({ ctx }) => sessions.endOwn(ctx),
  });
