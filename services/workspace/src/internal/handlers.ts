import { WORKSPACE_INTERNAL } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../rules';

/**
 * `/internal/…`: asked by the gateway, which owns teams and keys (docs/adr/0012, 0013). Never routed
 * by it; the token it mints names the team.
 */
export const internalHandlers = ({ invites, teams, apiKeyEvents }: WorkspaceRules) =>
  handlersFor(WORKSPACE_INTERNAL)({
    getKeyAccess: ({ ctx, query }) => teams.access(ctx.teamId, query.memberId),
    createTeamOwner: ({ ctx, body }) => teams.createOwner(ctx, body),
    acceptInviteToken: ({ ctx, body }) => invites.accept(ctx, body),
    issueInviteLink: ({ ctx, params }) => invites.issueLink(ctx, params.inviteId),
    recordInviteMessage: ({ ctx, params, body }) => invites.recordMessage(ctx, params.inviteId, body),
    recordApiKeyEvent: ({ ctx, body }) => apiKeyEvents.record(ctx, body.type, body.apiKey),
  });
