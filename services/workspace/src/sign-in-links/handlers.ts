import { WORKSPACE_SESSIONS_INTERNAL } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { WorkspaceRules } from '../rules';

/** `/internal/sign-in-links…`: asked by the gateway (a link by mail), the mail's sender (its URL) and operators (docs/adr/0068). */
export const signInLinkInternalHandlers = ({ signInLinks }: WorkspaceRules) =>
  handlersFor(WORKSPACE_SESSIONS_INTERNAL)({
    requestSignInLinks: ({ ctx, body }) => signInLinks.request(body, ctx.requestId),
    createOperatorSignInLink: ({ ctx, body }) => signInLinks.createForOperator(ctx, body.email),
    issueSignInLink: ({ ctx, params }) => signInLinks.issueLink(ctx, params.signInLinkId),
  });
