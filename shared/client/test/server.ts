import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the test server received. */
export interface Received {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status: number;
  body?: unknown;
  /** Sent as is instead of JSON. */
  text?: string;
  headers?: Record<string, string>;
}

export type Handler = (req: Received, n: number) => Answer;

/** A small HTTP server on 127.0.0.1:0 that answers with the current handler and records every request. */
export interface TestServer {
  baseUrl: string;
  received: Received[];
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export async function startTestServer(): Promise<TestServer> {
  const received: Received[] = [];
  let handler: Handler = () => ({ status: 500, body: { error: 'no handler' } });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', 'http://127.0.0.1'),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(r);
      const a = handler(r, received.length);
      const text = a.text ?? (a.body === undefined ? '' : JSON.stringify(a.body));
      res.writeHead(a.status, {
        'content-type': a.text !== undefined ? 'text/plain' : 'application/json',
        'x-svc-request-id': `req_${received.length}`,
        ...a.headers,
      });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    received,
    handle(h) {
      handler = h;
      received.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const meta = (extra: Record<string, unknown> = {}) => ({ requestId: 'req_x', timestamp: '2026-01-05T09:30:12.345Z', ...extra });

/** The error body, as the API sends it. */
export const errorBody = (type: string, code: string, message: string, extra: Record<string, unknown> = {}) => ({
  success: false,
  error: { type, code, message, doc_url: `https://docs.helpdesk.dev/errors#${code.toLowerCase()}`, request_id: 'req_err', ...extra },
  meta: meta({ requestId: 'req_err' }),
});
