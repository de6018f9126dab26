import type { IncomingMessage } from 'node:http';
import express from 'express';

/**
 * The client's address, for every per-address limit (the widget's visitors before they have a
 * conversation, the help center's pages) and anything else that needs to tell clients apart.
 *
 * Behind an Ingress every request comes from the controller; only a hop in `TRUSTED_PROXIES` is
 * believed about who it forwards for. The address is express's own `trust proxy` answer
 * (proxy-addr): the peer, then `X-Forwarded-For` from right to left, the first address that is not
 * a trusted proxy. Nothing trusted (the default): the peer's address, whatever the header says.
 */
export type ClientAddress = (req: IncomingMessage) => string;

/** express's `req.ip` getter, which runs proxy-addr with the app's compiled `trust proxy` function. */
const ipGetter = Object.getOwnPropertyDescriptor(express.request, 'ip')!.get!;

/** proxy-addr's names of ranges. */
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `10.0.0.0/8, 172.16.0.0/12, 192.168.1.7` → the entries, checked as express checks them (IPv4 or
 * IPv6 addresses and CIDR ranges, or proxy-addr's names `loopback`, `linklocal`, `uniquelocal`);
 * a bad entry throws naming it.
 */
export function parseTrustedProxies(value: string): string[] {
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    // ipaddr.js reads `1` as 0.0.0.1: refused, so nobody mistakes it for express's hop count.
    if (!/[.:]/.test(entry) && !PROXY_NAMES.has(entry)) throw new Error(`invalid IP address: ${entry} (an address, a CIDR range, or loopback, linklocal, uniquelocal)`);
  }
  compileTrust(entries);
  return entries;
}

function compileTrust(entries: readonly string[]): (addr: string, hop: number) => boolean {
  const settings = express();
  // express compiles a list of addresses and ranges with proxy-addr, which throws on a bad one.
  settings.set('trust proxy', entries.length ? [...entries] : false);
  return settings.get('trust proxy fn') as (addr: string, hop: number) => boolean;
}

/** The client-address function for a deployment's trusted proxies (none: the peer's address). */
export function clientAddressOf(trustedProxies: readonly string[] = []): ClientAddress {
  if (!trustedProxies.length) return (req) => req.socket.remoteAddress ?? 'unknown';
  const trust = compileTrust(trustedProxies);
  const app = { get: (name: string) => (name === 'trust proxy fn' ? trust : undefined) };
  return (req) => (ipGetter.call({ app, headers: req.headers, socket: req.socket, connection: req.socket }) as string | undefined) ?? 'unknown';
}

/** The scheme a request came over: `https` when the connection is TLS or, behind trusted proxies, their `X-Forwarded-Proto` says so. */
export type RequestProtocol = (req: IncomingMessage) => 'http' | 'https';

/**
 * The request-protocol function for a deployment's trusted proxies: the connection's own scheme,
 * unless the peer is a trusted proxy, whose `X-Forwarded-Proto` (its first value, as express reads
 * it) is believed. The console's cookie is `Secure` and its writes' `Origin` checked by it (docs/adr/0068).
 */
export function requestProtocolOf(trustedProxies: readonly string[] = []): RequestProtocol {
  const direct = (req: IncomingMessage): 'http' | 'https' => ((req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http');
  if (!trustedProxies.length) return direct;
  const trust = compileTrust(trustedProxies);
  return (req) => {
    const own = direct(req);
    const header = req.headers['x-forwarded-proto'];
    if (typeof header !== 'string' || !trust(req.socket.remoteAddress ?? '', 0)) return own;
    const first = header.split(',')[0].trim().toLowerCase();
    return first === 'https' || first === 'http' ? first : own;
  };
}
