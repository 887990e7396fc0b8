/**
 * Reach a user-given URL safely (`pdf_url` downloads, `callback_url` webhooks): http(s) only;
 * every address the host resolves to must be public (src/shared/net-address.ts: every IPv4 and
 * IPv6 spelling of private, loopback, link-local, CGNAT, multicast, reserved ... targets) unless
 * the host is on the operator's allow-list, exactly as written there; the connection goes to the
 * addresses that were checked (the socket's `lookup` answers only those, in both of its call
 * forms), so a second DNS answer cannot move it (DNS rebinding); every redirect hop is checked
 * again; size and time are capped. Webhook POSTs follow no redirect at all.
 */
import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns/promises';
import net from 'node:net';
import { CasError } from '../errors.js';
import { nonPublicReason } from '../shared/net-address.js';

export { isPublicAddress, nonPublicReason } from '../shared/net-address.js';

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

interface Address {
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

function parseUrl(raw: string | URL): URL {
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
async function check(url: URL, allowHosts: string[]): Promise<CheckedUrl> {
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

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | Address[], family?: number) => void;

/**
 * A `lookup` for http(s).request that answers only the checked addresses. Node calls it as
 * `lookup(host, opts, cb)` with `opts.all` true (happy eyeballs: `cb(null, [{address, family}])`)
 * or false (`cb(null, address, family)`); both forms are honoured.
 */
function pinnedLookup(addresses: Address[]) {
  return (_host: string, opts: { all?: boolean; family?: number | string } | number | LookupCallback, cb?: LookupCallback): void => {
    const callback = (typeof opts === 'function' ? opts : cb)!;
    const o = typeof opts === 'object' && opts ? opts : {};
    const fam = typeof opts === 'number' ? opts : o.family === 'IPv4' ? 4 : o.family === 'IPv6' ? 6 : Number(o.family ?? 0);
    const usable = fam ? addresses.filter((a) => a.family === fam) : addresses;
    if (!usable.length) {
      callback(Object.assign(new Error(`no IPv${fam} address among the checked ones`), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    if (o.all)
      callback(
        null,
        usable.map((a) => ({ ...a })),
      );
    else callback(null, usable[0].address, usable[0].family);
  };
}

interface Answer {
  status: number;
  location?: string;
  body: Buffer;
}

/**
 * One request to a checked URL over a socket pinned to its checked addresses. Reads at most
 * `maxBytes` of the body (larger bodies are an error when `tooLarge` is set, else cut off).
 */
function requestPinned(
  target: CheckedUrl,
  opts: {
    method: 'GET' | 'POST';
    headers: Record<string, string>;
    body?: string | Buffer;
    deadline: number;
    maxBytes: number;
    tooLarge?: (limit: number) => FetchError;
    label: string;
  },
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const mod = target.url.protocol === 'https:' ? https : http;
    let settled = false;
    // The whole exchange (connect, headers, body) has one deadline.
    const timer = setTimeout(
      () => {
        const e = new FetchError(`${opts.label} did not answer within the time limit`);
        req.destroy(e);
        done(e);
      },
      Math.max(1, opts.deadline - Date.now()),
    );
    const done = (err: Error | null, value?: Answer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value!);
    };
    const req = mod.request(
      target.url,
      {
        method: opts.method,
        lookup: pinnedLookup(target.addresses),
        headers: opts.body !== undefined ? { ...opts.headers, 'content-length': String(Buffer.byteLength(opts.body)) } : opts.headers,
        agent: false,
      } as http.RequestOptions,
      (r) => {
        const status = r.statusCode ?? 0;
        const location = status >= 300 && status < 400 ? r.headers.location : undefined;
        const wanted = status === 200 || opts.method === 'POST';
        if (!wanted || location !== undefined) {
          r.destroy();
          done(null, { status, location, body: Buffer.alloc(0) });
          return;
        }
        const len = Number(r.headers['content-length'] ?? 0);
        if (opts.tooLarge && len > opts.maxBytes) {
          r.destroy();
          done(opts.tooLarge(opts.maxBytes));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        r.on('data', (c: Buffer) => {
          size += c.length;
          if (size > opts.maxBytes) {
            r.destroy();
            if (opts.tooLarge) done(opts.tooLarge(opts.maxBytes));
            else done(null, { status, body: Buffer.concat(chunks) });
          } else chunks.push(c);
        });
        r.on('end', () => done(null, { status, body: Buffer.concat(chunks) }));
        r.on('error', () => done(new FetchError(`${opts.label} download failed`)));
      },
    );
    req.on('error', (e) =>
      done(
        e instanceof FetchError
          ? e
          : new FetchError(`${opts.label} could not be fetched (${(e as NodeJS.ErrnoException).code ?? e.message})`),
      ),
    );
    req.end(opts.body);
  });
}

function prefixed(label: string, err: unknown): never {
  if (err instanceof FetchError && !err.message.startsWith(label)) throw new FetchError(`${label} ${err.message}`);
  throw err;
}

/** Download a `pdf_url`: checked and pinned on every hop, at most `maxRedirects` redirects. */
export async function fetchPdf(rawUrl: string, limits: FetchLimits): Promise<Buffer> {
  const label = 'pdf_url';
  const deadline = Date.now() + limits.timeoutMs;
  try {
    let url = parseUrl(rawUrl);
    for (let hop = 0; hop <= limits.maxRedirects; hop++) {
      const target = await check(url, limits.allowHosts);
      const res = await requestPinned(target, {
        method: 'GET',
        headers: { 'user-agent': 'cas-service/1', accept: 'application/pdf' },
        deadline,
        maxBytes: limits.maxBytes,
        tooLarge: (n) => new FetchError(`${label} is larger than the limit of ${n} bytes`),
        label,
      });
      if (res.location !== undefined) {
        // Each hop is a new URL: parsed, resolved and checked again before anything connects.
        url = parseUrl(new URL(res.location, url));
        continue;
      }
      if (res.status !== 200) throw new FetchError(`${label} answered HTTP ${res.status}`);
      return res.body;
    }
  } catch (err) {
    prefixed(label, err);
  }
  throw new FetchError(`${label} redirected more than ${limits.maxRedirects} times`);
}

export interface PostJsonOptions {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowHosts: string[];
}

/**
 * POST a JSON body to a callback URL: the host is resolved and checked now and the socket goes to
 * that checked address (no second resolution at connect time); redirects are not followed (a 3xx
 * is returned as the status). Answers the status; the response body is read up to 64 KiB and
 * dropped. Throws FetchError for a refused URL, a network error or the time limit.
 */
export async function postJson(rawUrl: string, opts: PostJsonOptions): Promise<{ status: number }> {
  const label = 'callback_url';
  try {
    const target = await check(parseUrl(rawUrl), opts.allowHosts);
    const res = await requestPinned(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...opts.headers },
      body: opts.body,
      deadline: Date.now() + opts.timeoutMs,
      maxBytes: 64 * 1024,
      label,
    });
    return { status: res.status };
  } catch (err) {
    return prefixed(label, err);
  }
}
