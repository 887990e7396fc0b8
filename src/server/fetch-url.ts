/**
 * Fetch a `pdf_url` safely: http(s) only; every address the name resolves to must be public
 * (no private, loopback, link-local, CGNAT or multicast targets) unless the host is on the
 * operator's allow-list; the connection is pinned to the checked address; redirects are
 * re-checked; the size and the time are capped.
 */
import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns/promises';
import net from 'node:net';
import { CasError } from '../errors.js';

export interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  /** Hosts (names or IPs) allowed even when they resolve to non-public addresses. */
  allowHosts: string[];
}

export class FetchError extends CasError {
  constructor(message: string) {
    super('FetchFailed', message, 3);
  }
}

export function isPublicAddress(ip: string): boolean {
  if (net.isIPv4(ip)) {
    const [a, b] = ip.split('.').map(Number);
    if (a === 10 || a === 127 || a === 0 || a >= 224) return false;
    if (a === 169 && b === 254) return false;
    if (a === 172 && b >= 16 && b <= 31) return false;
    if (a === 192 && b === 168) return false;
    if (a === 100 && b >= 64 && b <= 127) return false;
    if (a === 192 && b === 0) return false;
    if (a === 198 && (b === 18 || b === 19)) return false;
    return true;
  }
  const v = ip.toLowerCase();
  if (v === '::1' || v === '::') return false;
  if (v.startsWith('fe8') || v.startsWith('fe9') || v.startsWith('fea') || v.startsWith('feb')) return false;
  if (v.startsWith('fc') || v.startsWith('fd') || v.startsWith('ff')) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v);
  if (mapped) return isPublicAddress(mapped[1]);
  return true;
}

/** The same address rules for callback URLs: http(s), public addresses unless allow-listed. */
export async function assertPublicUrl(raw: string, allowHosts: string[]): Promise<{ url: URL; address: string; family: number }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchError('not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError('must use http or https');
  const a = await checkedAddress(url.hostname, { maxBytes: 0, timeoutMs: 0, maxRedirects: 0, allowHosts });
  return { url, ...a };
}

async function checkedAddress(host: string, limits: FetchLimits): Promise<{ address: string; family: number }> {
  const bare = host.replace(/^\[|\]$/g, '');
  const addrs = net.isIP(bare) ? [{ address: bare, family: net.isIP(bare) }] : await dns.lookup(bare, { all: true }).catch(() => {
    throw new FetchError(`pdf_url host '${host}' could not be resolved`);
  });
  if (!addrs.length) throw new FetchError(`pdf_url host '${host}' could not be resolved`);
  if (!limits.allowHosts.includes(bare)) {
    const bad = addrs.find((a) => !isPublicAddress(a.address));
    if (bad) throw new FetchError(`pdf_url points at a non-public address (${bad.address}); refused`);
  }
  return addrs[0];
}

export async function fetchPdf(rawUrl: string, limits: FetchLimits): Promise<Buffer> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new FetchError('pdf_url is not a valid URL');
  }
  const deadline = Date.now() + limits.timeoutMs;
  for (let hop = 0; hop <= limits.maxRedirects; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError('pdf_url must use http or https');
    const target = await checkedAddress(url.hostname, limits);
    const res = await new Promise<{ status: number; location?: string; body?: Buffer }>((resolve, reject) => {
      const mod = url.protocol === 'https:' ? https : http;
      const req = mod.get(url, {
        lookup: (_h: string, _o: unknown, cb: (err: Error | null, address: string, family: number) => void) => cb(null, target.address, target.family),
        timeout: Math.max(1, deadline - Date.now()),
        headers: { 'user-agent': 'cas-service/1', accept: 'application/pdf' },
      } as http.RequestOptions, (r) => {
        const status = r.statusCode ?? 0;
        if (status >= 300 && status < 400 && r.headers.location) {
          r.resume();
          resolve({ status, location: r.headers.location });
          return;
        }
        if (status !== 200) {
          r.resume();
          reject(new FetchError(`pdf_url answered HTTP ${status}`));
          return;
        }
        const len = Number(r.headers['content-length'] ?? 0);
        if (len > limits.maxBytes) {
          r.destroy();
          reject(new FetchError(`pdf_url is larger than the limit of ${limits.maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        r.on('data', (c: Buffer) => {
          size += c.length;
          if (size > limits.maxBytes) {
            r.destroy();
            reject(new FetchError(`pdf_url is larger than the limit of ${limits.maxBytes} bytes`));
          } else chunks.push(c);
        });
        r.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
        r.on('error', () => reject(new FetchError('pdf_url download failed')));
      });
      req.on('timeout', () => req.destroy(new FetchError(`pdf_url did not answer within ${limits.timeoutMs} ms`)));
      req.on('error', (e) => reject(e instanceof FetchError ? e : new FetchError(`pdf_url could not be fetched (${(e as NodeJS.ErrnoException).code ?? e.message})`)));
    });
    if (res.body) return res.body;
    url = new URL(res.location!, url);
  }
  throw new FetchError(`pdf_url redirected more than ${limits.maxRedirects} times`);
}
