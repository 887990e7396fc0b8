/**
 * The service's two outbound requests to user-given URLs: `fetchPdf` (a `pdf_url` download,
 * checked and pinned on every redirect hop, size and time capped) and `postJson` (a webhook POST,
 * no redirect followed). The address rules are net/check.ts's, the pinned socket net/pinned.ts's.
 */
import { check, FetchError, parseUrl, type FetchLimits } from './check.js';
import { requestPinned } from './pinned.js';

export { assertPublicUrl, FetchError, isPublicAddress, nonPublicReason, type CheckedUrl, type FetchLimits } from './check.js';

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
