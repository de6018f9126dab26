import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INTERNAL_TOKEN_HEADER, type CustomerSnapshot } from '@helpdesk/contracts';
import { randomBase62, type InternalTokens } from '@helpdesk/kit';

/**
 * A stand-in for the customers service's internal endpoints (services/customers README), so the
 * ticketing service is tested alone. It checks the forwarded internal token like the real one and
 * answers within the token's team and partition. The gateway suites run against the real service.
 */
export class FakeCustomers {
  private server!: Server;
  readonly store = new Map<string, CustomerSnapshot & { teamId: string; mode: string }>();
  readonly calls: { method: string; path: string; requestId: string | undefined }[] = [];
  /** When set, every call answers this status (e.g. 503) or fails at the socket ('down'). */
  failure: number | 'down' | null = null;
  url = '';

  constructor(private readonly tokens: InternalTokens) {}

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (this.failure === 'down') return req.socket.destroy();
      if (this.failure) return send(this.failure, { success: false });
      let claims;
      try {
        claims = await this.tokens.verify(String(req.headers[INTERNAL_TOKEN_HEADER] ?? ''));
      } catch {
        return send(401, { success: false });
      }
      const url = new URL(req.url ?? '/', 'http://x');
      this.calls.push({ method: req.method ?? '', path: url.pathname + url.search, requestId: req.headers['x-svc-request-id'] as string | undefined });
      const mine = [...this.store.values()].filter((c) => c.teamId === claims.teamId && c.mode === claims.mode);
      const view = ({ teamId: _t, mode: _m, ...c }: CustomerSnapshot & { teamId: string; mode: string }) => c;
      if (req.method === 'GET' && url.pathname.startsWith('/internal/customers/')) {
        const c = mine.find((x) => x.id === decodeURIComponent(url.pathname.split('/')[3]));
        return c ? send(200, { success: true, data: view(c) }) : send(404, { success: false });
      }
      if (req.method === 'GET' && url.pathname === '/internal/customers') {
        const email = url.searchParams.get('email')?.toLowerCase();
        const c = mine.find((x) => x.email?.toLowerCase() === email);
        return c ? send(200, { success: true, data: view(c) }) : send(404, { success: false });
      }
      if (req.method === 'POST' && url.pathname === '/internal/customers') {
        let raw = '';
        for await (const chunk of req) raw += chunk;
        const c = this.put(claims.teamId, claims.mode, { name: JSON.parse(raw).name, email: null });
        return send(201, { success: true, data: c });
      }
      send(404, { success: false });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Adds (or replaces) a customer in a team's partition and returns its snapshot. */
  put(teamId: string, mode: string, fields: Partial<CustomerSnapshot> & { name: string }): CustomerSnapshot {
    const now = new Date().toISOString();
    const c: CustomerSnapshot = {
      id: `cus_${randomBase62(24)}`, email: null, status: 'active', sentiment: 'neutral', tags: [], notes: null, metadata: {},
      ticketCount: 0, createdAt: now, updatedAt: now, rev: 0, ...fields,
    };
    this.store.set(c.id, { ...c, teamId, mode });
    return c;
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}
