import type { GATEWAY } from '@helpdesk/contracts';
import type { ApiKeyOperations } from '../../api-keys/operations';
import { DONE, JSON_CT, sendEnvelope, type Exchange, type GatewayContext, type Step } from '../exchange';
import { answeredFailure, noteAccess } from '../../access-log';
import { completeIdempotency, releasingOnThrow } from './idempotency';
import { dispatchStream } from './stream';

/** The gateway's own operations (`service: gateway` in the manifest; the keyless document is served earlier). */
const OWN: Record<Exclude<keyof typeof GATEWAY, 'getOpenApiDocument' | keyof ApiKeyOperations>, (x: Exchange, g: GatewayContext) => unknown> = {
  whoami: (x) => {
    const { key, team } = x.auth!;
    return {
      teamId: team.id,
      teamName: team.name,
      teamSlug: team.slug,
      keyId: key.id,
      keyType: key.type,
      environment: key.mode,
      createdAt: key.createdAt.toISOString(),
      subscriptionStatus: team.subscriptionStatus,
      // The key's member (what `userId` defaults to), null for a key of no member.
      memberId: key.memberId ?? null,
    };
  },
  createStreamToken: (x, g) => g.streamTokens.create(x),
};

/** Step: the gateway's own operation, or the owning service through a short-lived internal token. */
export const dispatch: Step = async (x: Exchange, g: GatewayContext) => {
  const route = x.route!;
  const own = (OWN as Record<string, (x: Exchange, g: GatewayContext) => unknown>)[route.id];
  if (route.op.service === 'gateway' && own) {
    sendEnvelope(x.res, x.requestId, own(x, g), route.op.success.status);
    return DONE;
  }
  const keyOp = route.op.service === 'gateway' ? (g.apiKeys?.[route.id as keyof ApiKeyOperations] ?? g.sessions?.operation(route.id)) : undefined;
  if (keyOp) {
    // The API-key operations (gateway/src/api-keys): their answer is kept for an Idempotency-Key replay like a service's.
    const own = await releasingOnThrow(x, g, () => keyOp(x));
    const body = Buffer.from(JSON.stringify({ success: true, data: own.data, meta: { requestId: x.requestId, timestamp: new Date().toISOString() } }));
    await completeIdempotency(x, g, { status: own.status, contentType: JSON_CT, location: null, body });
    x.res.statusCode = own.status;
    x.res.setHeader('content-type', JSON_CT);
    x.res.setHeader('content-length', body.length);
    x.res.end(body);
    return DONE;
  }
  if (route.op.stream) return dispatchStream(x, g);
  // Thrown (the service has no URL, did not answer in time, or its answer was cut off): the gateway's
  // 503, the key released. Answered: kept for the key, unless it is a 429 or 503 (completeIdempotency).
  const answer = await releasingOnThrow(x, g, () =>
    g.upstreams.forward({
      service: route.op.service,
      method: x.method,
      pathAndQuery: x.subPath + x.query,
      body: x.body,
      contentType: x.req.headers['content-type'],
      token: g.mint(x.auth!.claims, x.requestId),
      requestId: x.requestId,
      idempotency: x.idempotency,
    }),
  );
  await completeIdempotency(x, g, answer);
  g.sessions?.afterProxied(route.id, answer.status);
  const { res } = x;
  if (answer.status >= 500) noteAccess(res, { failure: answeredFailure(route.op.service, answer.status, answer.body) });
  res.statusCode = answer.status;
  if (answer.contentType) res.setHeader('content-type', answer.contentType);
  if (answer.location) res.setHeader('location', answer.location);
  if (answer.status === 204 || answer.status === 304) {
    res.end();
    return DONE;
  }
  res.setHeader('content-length', answer.body.length);
  res.end(answer.body);
  return DONE;
};
