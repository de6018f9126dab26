import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Permission, Partition } from '@helpdesk/contracts';
import { newId, type KeyClaims, type Logger } from '@helpdesk/kit';
import type { ClientAddress } from './client-address';
import type { TokenMinter } from './fast-token';
import { messagePage, sendHtml } from './html-page';
import { withPageStyle } from './page-style';
import { answeredFailure, describeError, failureOf, noteAccess, withFailure } from './access-log';
import { isUnder, PUBLIC_ROOTS } from './public-roots';
import type { ServiceCalls } from './service-calls';
import type { KeyRepository } from './store/types';
import { retryAfterSeconds, WINDOW_MS } from './pipeline/steps/rate-limit';
import type { RateLimitStore } from './store/rate-limits-and-idempotency';

/**
 * The public help center (docs/adr/0016-help-center.md): `/help/{teamSlug}` (home, `?q=` search) and
 * `/help/{teamSlug}/articles/{art_…[-title-slug]}`, served without a key. The gateway owns teams and
 * their slugs: it resolves the slug, then asks the knowledge service for the page as a publishable key
 * of that team would (`?mode=test` for the test partition; live otherwise). The service renders and
 * sanitises the HTML and decides whether the team has turned its help center on; an unknown team, a
 * help center that is off and a missing article all answer the same 404 page.
 */
export interface HelpCenterDeps {
  teams: Pick<KeyRepository, 'getTeamBySlug'>;
  mint: TokenMinter;
  services: Pick<ServiceCalls, 'knowledge'>;
  logger: Logger;
  /** Counts each address's pages (the API's rate-limit store); none: no limit. */
  rateLimits?: RateLimitStore;
  /** The gateway's throttled warning that the store is down. */
  warnStoreDown?: (err: unknown, requestId: string) => void;
  /** Pages a minute per client address. Default HELP_CENTER_PER_MINUTE. */
  helpCenterPerMinute?: number;
  /** The client's address behind the trusted proxies. */
  clientAddress: ClientAddress;
}

/**
 * Pages a minute per client address (every team's pages together; people behind one address share
 * it). Generous for readers, a stop for scrapers and for inflating article view counts.
 */
export const HELP_CENTER_PER_MINUTE = 300;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const PREFIX = PUBLIC_ROOTS.help;
const TEAM_SLUG_RE = /^[a-z0-9-]{1,100}$/;
const PERMISSIONS: Permission[] = ['view_articles'];
/** No script at all: the pages are static HTML with inline styles (defence in depth beside the sanitizer). */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const NOT_FOUND_HTML = messagePage('Not found', 'There is no such page.');
const UNAVAILABLE_HTML = messagePage('Temporarily unavailable', 'Please try again in a moment.');
const TOO_MANY_HTML = messagePage('Too many requests', 'Please wait a minute and try again.');

/** A path segment as sent (`%zz` stays as is: no article has it, so the page is 404). */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

// Every article view is counted: no shared caches in between.
const send = (req: IncomingMessage, res: ServerResponse, status: number, html: string, extra: Record<string, string> = {}) =>
  sendHtml(req, res, status, html, { csp: CSP, cacheControl: 'no-cache', extra });

/** Serves the help center ahead of the API's listener; every other request goes on to `next`. */
export function withHelpCenter(deps: HelpCenterDeps, next: Listener): Listener {
  // One claims object per team and partition, so the token minter reuses its serialised head.
  const claimsCache = new Map<string, KeyClaims>();
  const claimsOf = (teamId: string, mode: Partition): KeyClaims => {
    const key = `${teamId}:${mode}`;
    let claims = claimsCache.get(key);
    if (!claims) {
      if (claimsCache.size >= 10_000) claimsCache.clear();
      claims = { teamId, mode, keyId: 'help_center', keyType: 'publishable', memberId: null, permissions: PERMISSIONS };
      claimsCache.set(key, claims);
    }
    return claims;
  };

  const perMinute = deps.helpCenterPerMinute ?? HELP_CENTER_PER_MINUTE;
  /**
   * The address's count this minute; null when the store is down. Then the page is served anyway: it is
   * public and read-only, so being reachable matters more than the limit (the API fails closed).
   */
  async function hit(req: IncomingMessage, requestId: string): Promise<{ count: number; resetAtMs: number } | null> {
    if (!deps.rateLimits) return null;
    try {
      return await deps.rateLimits.hit(`hc:${deps.clientAddress(req)}`, WINDOW_MS);
    } catch (err) {
      deps.warnStoreDown?.(err, requestId);
      return null;
    }
  }

  async function serve(req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<void> {
    // Every page counts, a 404 included (probing for team slugs is limited too).
    const count = await hit(req, requestId);
    if (count && count.count > perMinute) {
      send(req, res, 429, TOO_MANY_HTML, { 'retry-after': String(retryAfterSeconds(count.resetAtMs)) });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(req, res, 405, NOT_FOUND_HTML.replace(/Not found/g, 'Method not allowed'), { allow: 'GET, HEAD' });
      return;
    }
    const [teamSlug, section, article, ...rest] = url.pathname.slice(PREFIX.length + 1).split('/');
    const partitionParam = url.searchParams.get('mode');
    const wellFormed =
      TEAM_SLUG_RE.test(teamSlug ?? '') &&
      (section === undefined || section === '' || (section === 'articles' && !!article && !rest.length)) &&
      (partitionParam === null || partitionParam === 'test' || partitionParam === 'live');
    const team = wellFormed ? await deps.teams.getTeamBySlug(teamSlug) : null;
    if (!team) {
      send(req, res, 404, NOT_FOUND_HTML);
      return;
    }
    noteAccess(res, { teamId: team.id });
    const query = new URLSearchParams({ base: `${PREFIX}/${team.slug}` });
    if (section === 'articles') query.set('article', safeDecode(article));
    const search = url.searchParams.get('q');
    if (search && section !== 'articles') query.set('search', search.slice(0, 200));
    if (req.method === 'HEAD') query.set('countView', 'false');
    const token = deps.mint(claimsOf(team.id, partitionParam === 'test' ? 'test' : 'live'), requestId);
    const answer = await deps.services.knowledge.forRequest(token, requestId).attempt('renderHelpCenterPage', { query: Object.fromEntries(query) });
    if (!answer.ok) {
      throw withFailure(new Error(`knowledge answered ${answer.status}: ${answer.text.slice(0, 200)}`), answeredFailure('knowledge', answer.status, Buffer.from(answer.text)));
    }
    const page = answer.data;
    // The knowledge service's page with the stylesheet the gateway's pages share (gateway/src/page-style.ts).
    send(req, res, page.status, withPageStyle(page.html));
  }

  return (req, res) => {
    const raw = req.url ?? '/';
    if (!isUnder(raw, PREFIX)) {
      next(req, res);
      return;
    }
    const requestId = newId('request');
    res.setHeader('x-svc-request-id', requestId);
    let url: URL;
    try {
      url = new URL(raw, 'http://help.invalid');
    } catch {
      send(req, res, 404, NOT_FOUND_HTML);
      return;
    }
    serve(req, res, url, requestId).catch((err: unknown) => {
      deps.logger.warn({ err, requestId }, 'help center page failed');
      noteAccess(res, { failure: failureOf(err) ?? { what: 'help center page failed', error: describeError(err) } });
      if (res.headersSent) res.destroy();
      else send(req, res, 503, UNAVAILABLE_HTML, { 'retry-after': '5' });
    });
  };
}
