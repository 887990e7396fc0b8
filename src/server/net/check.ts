/**
 * The address rules of every user-given URL the service reaches (net/fetch.ts: `pdf_url`
 * downloads, `callback_url` webhooks): http(s) only; every address the host resolves to must be public (src/shared/net-address.ts: every IPv4 and
 * IPv6 spelling of private, loopback, link-local, CGNAT, multicast, reserved ... targets) unless
 * the host is on the operator's allow-list, exactly as written there. The connection then goes to
 * the addresses that were checked (net/pinned.ts), so a second DNS answer cannot move it.
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import { CasError } from '../../errors.js';
import { nonPublicReason } from '../../shared/net-address.js';

export { isPublicAddress, nonPublicReason } from '../../shared/net-address.js';

export interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  /** Hosts (names or IPs, as written in URLs) allowed even when they resolve to non-public addresses. */
  allowHosts: string[];
}

export class FetchError extends CasError {
  constructor(message: string) {
    super('FetchFailed', message, 3);
  }
}

export interface Address {
  address: string;
  family: number;
}

/** A URL whose host was resolved and checked: connect only to `addresses`. */
export interface CheckedUrl {
  url: URL;
  /** The first checked address (kept for callers that log it). */
  address: string;
  family: number;
  addresses: Address[];
}

export function parseUrl(raw: string | URL): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchError('is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError('must use http or https');
  if (url.username || url.password) throw new FetchError('must not carry a user name or password');
  return url;
}

function allowListed(host: string, allowHosts: string[]): boolean {
  const h = host.toLowerCase();
  return allowHosts.some((a) => a.replace(/^\[|\]$/g, '').toLowerCase() === h);
}

/** Resolve the URL's host (every address), refuse it if any address is not public, unless allow-listed. */
export async function check(url: URL, allowHosts: string[]): Promise<CheckedUrl> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const family = net.isIP(host);
  const addresses: Address[] = family
    ? [{ address: host, family }]
    : await dns.lookup(host, { all: true, verbatim: true }).catch(() => {
        throw new FetchError(`host '${host}' could not be resolved`);
      });
  if (!addresses.length) throw new FetchError(`host '${host}' could not be resolved`);
  if (!allowListed(host, allowHosts)) {
    for (const a of addresses) {
      const why = nonPublicReason(a.address);
      if (why) throw new FetchError(`points at a non-public address (${a.address}: ${why}); refused`);
    }
  }
  return { url, address: addresses[0].address, family: addresses[0].family, addresses };
}

/** The same address rules for callback URLs: http(s), public addresses unless allow-listed. */
export async function assertPublicUrl(raw: string, allowHosts: string[]): Promise<CheckedUrl> {
  return check(parseUrl(raw), allowHosts);
}
