/**
 * Sign-in helpers for platform tests (docs/adr/0068): a sign-in link for a member, as an operator gets
 * one or as the member's mail carries it; signing in as the console does; and the headers a same-origin
 * page sends with its session cookie. The console's browser tests open `signInPageUrl` in Chromium.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { SESSION_COOKIE, SIGN_IN_TOKEN_RE, type Partition } from '@helpdesk/contracts';
import { eventually, type ApiResponse } from '@helpdesk/testing';
import type { TestPlatform } from './platform';

/** The platform's own origin (what the console's pages send as `Origin`). */
export const originOf = (tp: TestPlatform) => new URL(tp.baseUrl).origin;

/** The console's sign-in page for a token on this test platform (what a mailed link opens). */
export const signInPageUrl = (tp: TestPlatform, token: string) => `${originOf(tp)}/app/sign-in?token=${token}`;

/** A fresh sign-in link (15 minutes, single use) for the team's member with `email`, else its owner, as an operator gets one (no mail). */
export async function operatorSignInLink(tp: TestPlatform, teamId: string, email?: string): Promise<{ token: string; url: string; memberId: string }> {
  const link = await tp.platform.gateway.admin.createSignInLink({ teamId, email });
  return { token: link.token, url: signInPageUrl(tp, link.token), memberId: link.memberId };
}

/**
 * The sign-in link the member's mail carries, after `POST /auth/sign-in-links` asked for it (one-process
 * platform: the mail is an `.eml` file). Waits for a mail to `email` not among `seen` (its file names).
 */
export async function mailedSignInLink(tp: TestPlatform, email: string, seen: Set<string> = new Set()): Promise<{ token: string; url: string; file: string; subject: string }> {
  const dir = tp.platform.mailDir;
  if (!dir) throw new Error('mailedSignInLink needs the one-process platform writing mail as files');
  return eventually(`a sign-in mail to ${email}`, async () => {
    for (const file of (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml') && !seen.has(f))) {
      const mail = await simpleParser(await readFile(path.join(dir, file)));
      const to = mail.to && !Array.isArray(mail.to) ? mail.to.text : '';
      const url = /https?:\/\/\S+\/app\/sign-in\?token=(\S+)/.exec(mail.text ?? '');
      if (to.toLowerCase() === email.toLowerCase() && url && SIGN_IN_TOKEN_RE.test(url[1])) {
        seen.add(file);
        return { token: url[1], url: url[0], file, subject: mail.subject ?? '' };
      }
    }
    return undefined;
  });
}

/** A signed-in browser: the cookie it holds, the CSRF token its writes carry, the session it answered. */
export interface BrowserSession {
  cookie: string;
  csrfToken: string;
  session: any;
  /** The `Set-Cookie` the sign-in answered (its attributes). */
  setCookie: string;
}

/** Signs in with a link's token as the console's sign-in page does (a same-origin POST); the answer as it came. */
export async function signInRaw(tp: TestPlatform, token: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return tp.api.withKey(null).post('/auth/sessions', { token, ...body }, { headers: { origin: originOf(tp), ...headers } });
}

/** Signs in with a link's token; throws unless a session was opened. */
export async function signIn(tp: TestPlatform, token: string, mode?: Partition): Promise<BrowserSession> {
  const res = await signInRaw(tp, token, mode ? { mode } : {});
  if (res.status !== 201) throw new Error(`sign-in refused: ${res.status} ${JSON.stringify(res.body)}`);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const value = new RegExp(`^${SESSION_COOKIE}=([^;]*)`).exec(setCookie)?.[1];
  if (!value) throw new Error(`no session cookie in ${setCookie}`);
  return { cookie: `${SESSION_COOKIE}=${value}`, csrfToken: res.body.data.csrfToken, session: res.body.data, setCookie };
}

/** The headers a console page sends with its cookie: `Origin` and the CSRF token on writes (`overrides` replace or, with null, drop one). */
export function sessionHeaders(tp: TestPlatform, s: BrowserSession, write = false, overrides: Record<string, string | null> = {}): Record<string, string> {
  const headers: Record<string, string | null> = { cookie: s.cookie, ...(write ? { origin: originOf(tp), 'x-csrf-token': s.csrfToken } : {}), ...overrides };
  return Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== null));
}

/** A request made with the session (a console page's fetch): writes carry Origin and the CSRF token. */
export function asSession(tp: TestPlatform, s: BrowserSession, method: string, path: string, body?: unknown, overrides: Record<string, string | null> = {}): Promise<ApiResponse> {
  const write = method !== 'GET';
  return tp.api.withKey(null).request(method, path, { headers: sessionHeaders(tp, s, write, overrides), ...(body === undefined ? {} : { body }) });
}
