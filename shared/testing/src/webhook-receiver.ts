import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a receiver saw it: the raw body, exactly as sent. */
export interface Received {
  /** Date.now() when the body had fully arrived. */
  at: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ReceiverReply {
  status: number;
  headers?: Record<string, string>;
  /** Answer only after this long (a receiver slower than the delivery timeout). */
  delayMs?: number;
}

/** Decides the answer; `n` is how many requests with this `x-svc-delivery` arrived so far (1 on the first). */
export type Responder = (req: Received, n: number) => ReceiverReply;

/**
 * A real HTTP receiver on 127.0.0.1 for tests and the benchmark. It records every request, and
 * applies an "effect" once per `x-svc-delivery` (what an idempotent receiver does), so tests can
 * count requests and effects separately.
 */
export class Receiver {
  readonly requests: Received[] = [];
  /** Delivery ids whose effect was applied, in order: a repeat of an id is never applied again. */
  readonly effects: string[] = [];
  private readonly seen = new Map<string, number>();
  /** TCP connections accepted (a refused delivery must not even connect). */
  connections = 0;
  respond: Responder;

  private constructor(
    private readonly server: Server,
    respond: Responder,
  ) {
    this.respond = respond;
  }

  static async start(respond: Responder = () => ({ status: 200 })): Promise<Receiver> {
    let self: Receiver | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = { at: Date.now(), method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        const me = self!;
        me.requests.push(r);
        const id = String(req.headers['x-svc-delivery'] ?? '');
        const n = (me.seen.get(id) ?? 0) + 1;
        me.seen.set(id, n);
        if (n === 1 && id) me.effects.push(id);
        const reply = me.respond(r, n);
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
          res.end('ok');
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
        else send();
      });
    });
    server.on('connection', () => self && self.connections++);
    server.keepAliveTimeout = 1_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    self = new Receiver(server, respond);
    return self;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  forDelivery(id: string): Received[] {
    return this.requests.filter((r) => r.headers['x-svc-delivery'] === id);
  }

  forPath(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Polls (never a fixed sleep) until `pred` holds; returns the requests. */
  async waitFor(pred: (reqs: Received[]) => boolean, what: string, timeoutMs = 10_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this.requests)) {
      if (Date.now() > deadline) throw new Error(`receiver: timed out waiting for ${what}; have ${this.requests.length} requests`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.requests;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
