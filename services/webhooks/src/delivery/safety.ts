import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a delivery may go (README: Safety rules). Only addresses ipaddr.js classifies as `unicast`
 * (public) are allowed, plus `loopback` when the deployment sets WEBHOOKS_ALLOW_LOOPBACK. Everything
 * else is refused: private (RFC 1918), carrier-grade NAT, unique-local, link-local (the cloud metadata
 * endpoints 169.254.169.254 and fd00:ec2::254 are in those), unspecified, broadcast, multicast,
 * reserved and documentation ranges, and IPv6 forms that embed an IPv4 address (NAT64, 6to4, Teredo).
 * An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is judged as the IPv4 address it maps.
 *
 * One rule, applied the same way when a webhook is written (400, param url) and before every delivery
 * attempt (`urlProblem`): the scheme, credentials, and a host that is an IP literal or a loopback name
 * (`localhost`, `*.localhost`). Then, at connect time, every address a host name resolves to (so DNS
 * that points somewhere else later, or rebinds between checks, still cannot reach a refused address).
 * A refusal that WEBHOOKS_ALLOW_LOOPBACK would lift says so.
 */

/** The deployment setting that allows loopback targets (named by every refusal it would lift). */
export const LOOPBACK_SETTING = 'WEBHOOKS_ALLOW_LOOPBACK';
const LOOPBACK_HINT = `allowed only when the deployment sets ${LOOPBACK_SETTING}=true (unsafe: local development only)`;
export interface AddressPolicy {
  allowLoopback: boolean;
  /** Plain-HTTP connections: loopback only (and only when allowLoopback). */
  loopbackOnly?: boolean;
}

export interface AddressVerdict {
  allowed: boolean;
  /** ipaddr.js's range name, e.g. `unicast`, `private`, `loopback`, `linkLocal`; `invalid` if unparsable. */
  range: string;
}

export function addressVerdict(address: string, policy: AddressPolicy): AddressVerdict {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process(): an IPv4-mapped IPv6 address becomes the IPv4 address it carries.
    ip = ipaddr.process(address.replace(/^\[|\]$/g, ''));
  } catch {
    return { allowed: false, range: 'invalid' };
  }
  const range = ip.range();
  if (policy.loopbackOnly) return { allowed: policy.allowLoopback && range === 'loopback', range };
  return { allowed: range === 'unicast' || (policy.allowLoopback && range === 'loopback'), range };
}

/** True when `host` (a URL's hostname, brackets allowed) is an IP literal rather than a name. */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
}

/** `localhost` and `*.localhost` always mean this machine (RFC 6761). */
export function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/** The error of an attempt refused before connecting; its message is what the delivery log shows. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_BLOCKED';
  constructor(host: string, address: string, range: string) {
    const why = range === 'loopback' ? `loopback addresses are ${LOOPBACK_HINT}` : 'webhooks are only delivered to public addresses';
    super(host === address ? `address blocked: ${address} is a ${range} address; ${why}` : `address blocked: ${host} resolved to ${address} (${range}); ${why}`);
    this.name = 'BlockedAddressError';
  }
}

/**
 * Why a webhook URL is refused, or null: THE rule, the same when the webhook is written (the 400's
 * message is `Invalid url: <problem>.`) and before each delivery attempt (the attempt fails with
 * `url refused: <problem>`, e.g. a loopback webhook kept from a run with WEBHOOKS_ALLOW_LOOPBACK).
 * HTTPS is required; plain HTTP only to a loopback host and only with allowLoopback. A host that is
 * an IP literal must be an allowed address, and a loopback name (`localhost`, `*.localhost`) is
 * loopback; any other name is resolved, and checked, at connect time.
 */
export function urlProblem(raw: string, policy: AddressPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not carry credentials (user:password@)';
  const host = url.hostname;
  const literal = isIpLiteral(host);
  const verdict = literal ? addressVerdict(host, policy) : null;
  const loopbackHost = literal ? verdict!.range === 'loopback' : isLoopbackName(host);
  if (url.protocol === 'http:') {
    if (!(policy.allowLoopback && loopbackHost)) return `must use https:// (plain http:// is accepted only to a loopback host, and ${LOOPBACK_HINT})`;
  } else if (url.protocol !== 'https:') {
    return 'must use https://';
  }
  if (loopbackHost && !policy.allowLoopback) return `must not point at a loopback ${literal ? 'address' : 'host'} (${host}): loopback targets are ${LOOPBACK_HINT}`;
  if (verdict && !verdict.allowed) return `must not point at a ${verdict.range} address (${host})`;
  return null;
}

/**
 * A `lookup` for net/tls.connect (undici's `connect.lookup`): resolves the name, keeps only allowed
 * addresses and fails with BlockedAddressError when none is left. Node calls it just before
 * connecting, so the address checked is the address connected to.
 */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const allowed = addresses.filter((a) => addressVerdict(a.address, policy).allowed);
      if (!allowed.length) {
        const first = addresses[0];
        const range = first ? addressVerdict(first.address, policy).range : 'unknown';
        return callback(new BlockedAddressError(hostname, first?.address ?? '?', range), '', 0);
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}
