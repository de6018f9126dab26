import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CUSTOMERS_INTERNAL, type CustomerSnapshot } from '@helpdesk/contracts';
import { closeServer, createServiceApp, handlersFor, listen, mountOperations, notFound, randomBase62, type InternalTokens, type Logger, type RequestContext } from '@helpdesk/kit';

type Stored = CustomerSnapshot & { teamId: string; mode: string };

/**
 * A stand-in for the customers service's internal operations, built from the same internal
 * manifest and kit's skeleton as the real one (so it checks the forwarded token and the inputs
 * alike), answering from memory within the token's team and partition. The platform suites run
 * against the real service.
 */
export class FakeCustomers {
  private server!: Server;
  readonly store = new Map<string, Stored>();
  readonly calls: { method: string; path: string; requestId: string | undefined }[] = [];
  /** When set, every call answers this status (e.g. 503) or fails at the socket ('down'). */
  failure: number | 'down' | null = null;
  url = '';

  constructor(private readonly tokens: InternalTokens, private readonly logger: Logger) {}

  private mine(ctx: RequestContext): CustomerSnapshot[] {
    return [...this.store.values()].filter((c) => c.teamId === ctx.teamId && c.mode === ctx.mode).map(({ teamId: _t, mode: _m, ...c }) => c);
  }

  async start(): Promise<this> {
    const handlers = handlersFor(CUSTOMERS_INTERNAL)({
      findCustomerByEmail: async ({ ctx, query }) => {
        const c = this.mine(ctx).find((x) => x.email?.toLowerCase() === query.email.toLowerCase());
        if (!c) throw notFound('customer with this email');
        return c;
      },
      getCustomerSnapshot: async ({ ctx, params }) => {
        const c = this.mine(ctx).find((x) => x.id === params.customerId);
        if (!c) throw notFound('customer', params.customerId);
        return c;
      },
      createImplicitCustomer: async ({ ctx, body }) => this.put(ctx.teamId, ctx.mode, { name: body.name, email: null }),
    });
    const app = createServiceApp({
      name: 'fake-customers',
      logger: this.logger,
      tokens: this.tokens,
      routes: (a) => {
        a.use((req, res, next) => {
          if (this.failure === 'down') return req.socket.destroy();
          if (this.failure) return void res.status(this.failure).json({ success: false });
          this.calls.push({ method: req.method, path: req.originalUrl, requestId: req.header('x-svc-request-id') });
          next();
        });
        mountOperations(a, CUSTOMERS_INTERNAL, handlers);
      },
    });
    this.server = await listen(app, 0, '127.0.0.1');
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
    return closeServer(this.server);
  }
}
