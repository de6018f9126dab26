import { KNOWLEDGE_INTERNAL, WORKSPACE, WORKSPACE_INTERNAL, WORKSPACE_SESSIONS_INTERNAL, type ErrorCode } from '@helpdesk/contracts';
import { ApiError, internalClientOver, type InternalTransport, type Refusal } from '@helpdesk/kit';
import type { Upstreams } from './proxy';

/**
 * The gateway's own calls to services (widget origins, help-center pages, the billing portal, invites,
 * sign-in): kit's internal client, typed by the manifest's operations, carried by the gateway's upstream
 * pools (the proxied requests' connections, timeouts and `service_unavailable`). No path is written here.
 */
export function serviceCalls(upstreams: Upstreams) {
  const over = (service: string) => upstreamTransport(upstreams, service);
  return {
    // getWidgetSettings is public: the gateway reads the widget's allowed origins with its own token.
    workspace: internalClientOver({ getWidgetSettings: WORKSPACE.getWidgetSettings, ...WORKSPACE_INTERNAL, ...WORKSPACE_SESSIONS_INTERNAL }, over('workspace'), { service: 'workspace' }),
    knowledge: internalClientOver(KNOWLEDGE_INTERNAL, over('knowledge'), { service: 'knowledge' }),
  };
}

export type ServiceCalls = ReturnType<typeof serviceCalls>;

/**
 * Kit's internal-client transport over the gateway's upstream pools for `service` (its replicas in
 * turn, docs/adr/0075); `timeoutMs` bounds the answer's headers and then its body (default 30 s).
 */
export function upstreamTransport(upstreams: Upstreams, service: string, timeoutMs?: number): InternalTransport {
  return async (req) => {
    const answer = await upstreams.forward({
      service,
      method: req.method,
      pathAndQuery: req.path,
      body: req.body === undefined ? null : Buffer.from(req.body),
      contentType: req.body === undefined ? undefined : 'application/json',
      token: req.token,
      requestId: req.requestId,
      timeoutMs,
    });
    return { status: answer.status, text: answer.body.toString('utf8') };
  };
}

/** A service's refusal passed on to the gateway's client as the service gave it; its 5xx as 503. */
export function passedOn(service: string, refusal: Refusal): ApiError {
  if (refusal.status >= 500 || !refusal.error) return new ApiError('service_unavailable', `The ${service} service is unavailable. Please retry later.`);
  return new ApiError(refusal.error.code as ErrorCode, refusal.error.message, refusal.error.param);
}
