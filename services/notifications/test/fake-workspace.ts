import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InviteSnapshot } from '@helpdesk/contracts';
import { tokens } from '@helpdesk/testing';

/** What the notifications service asked the workspace service. */
export interface WorkspaceCall {
  path: string;
  teamId: string;
  body: any;
}

/**
 * The workspace service's two invitation endpoints as the notifications service uses them
 * (`/internal/invites/{id}/link`, `/internal/invites/{id}/message`), answering from `invites`; an
 * invite not there is a 404 (no longer pending). Also a sign-in link's (`/internal/sign-in-links/{id}/link`),
 * for the ids in `signInLinks` (any other: used or expired, 404). Each call's internal token is verified.
 */
export async function startFakeWorkspace(invites: Map<string, InviteSnapshot>, signInLinks = new Set<string>()) {
  const calls: WorkspaceCall[] = [];
  let links = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      const claims = await tokens.verify(String(req.headers['x-internal-token'])).catch(() => null);
      const send = (status: number, data?: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(data === undefined ? { success: false } : { success: true, data, meta: { requestId: 'req_fake', timestamp: new Date().toISOString() } }));
      };
      if (!claims) return send(401);
      const signIn = /^\/internal\/sign-in-links\/([^/]+)\/link$/.exec(req.url ?? '');
      if (signIn) {
        calls.push({ path: req.url ?? '', teamId: claims.teamId, body: null });
        if (!signInLinks.has(signIn[1])) return send(404);
        const token = `hdsil_token${++links}`;
        return send(201, { url: `https://app.example.com/app/sign-in?token=${token}`, token, expiresAt: new Date(Date.now() + 15 * 60_000).toISOString() });
      }
      const m = /^\/internal\/invites\/([^/]+)\/(link|message)$/.exec(req.url ?? '');
      const invite = m ? invites.get(m[1]) : undefined;
      calls.push({ path: req.url ?? '', teamId: claims.teamId, body: raw ? JSON.parse(raw) : null });
      if (!m || !invite) return send(404);
      if (m[2] === 'link') {
        const token = `hdinv_token${++links}`;
        return send(201, { acceptUrl: `https://app.example.com/invites/accept?token=${token}`, token, expiresAt: invite.expiresAt });
      }
      return send(200, invite);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
