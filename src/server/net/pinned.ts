/**
 * One HTTP request to a URL already checked (net/check.ts), over a socket that can connect only to
 * the checked addresses (DNS rebinding cannot move it), with one deadline and a size cap.
 */
import http from 'node:http';
import https from 'node:https';
import { FetchError, type Address, type CheckedUrl } from './check.js';

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

export interface Answer {
  status: number;
  location?: string;
  body: Buffer;
}

/**
 * One request to a checked URL over a socket pinned to its checked addresses. Reads at most
 * `maxBytes` of the body (larger bodies are an error when `tooLarge` is set, else cut off).
 */
export function requestPinned(
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
