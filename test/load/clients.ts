/**
 * The load test's clients: HTTP requests (fetch, or node:http for bodies larger than the server's
 * limit, which the server may answer before they are fully sent), SMTP sends, and one loopback
 * server that receives webhooks and serves PDFs for `pdf_url`. Every attempt has a client-side time
 * limit, so a server that never answers shows as a timeout, never as a hung test. A client that
 * loses its connection (the server was killed) retries a few times; one told 429/503 with
 * Retry-After waits and retries.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer, { type SendMailOptions } from 'nodemailer';

export interface Answer {
  status: number;
  text: string;
  retryAfter: string | null;
}

export interface Attempts {
  attempts: number;
  /** Attempts that ended with the connection refused, reset or closed before an answer. */
  lost: number;
  /** 429/503 answers with Retry-After that were waited out and retried. */
  busy: number;
  /** Any attempt was in flight while the server was killed. */
  inFlightAtKill: boolean;
}

export interface Result extends Attempts {
  answer: Answer | null;
  /** Why there is no answer: 'timeout' (the client's limit passed) or the last connection error. */
  error?: string;
  ms: number;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** True for errors that mean "no answer on this connection" (refused, reset, closed), not a client timeout. */
export function isConnectionLoss(err: unknown): boolean {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return false;
  const code = e?.cause?.code ?? e?.code ?? '';
  const msg = `${e?.message ?? ''} ${e?.cause?.message ?? ''}`;
  return (
    /ECONNREFUSED|ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED|ECONNECTION|ESOCKET/.test(code) ||
    /other side closed|socket hang up|fetch failed|Connection closed|ECONNREFUSED|ECONNRESET/i.test(msg)
  );
}

export interface RetryPolicy {
  /** Time limit of one attempt. */
  attemptMs: number;
  /** No new attempt starts after this instant (performance.now()). */
  deadline: number;
  /** Attempts after lost connections. */
  maxLost: number;
  /** Set while the server is being killed: marks the attempts in flight. */
  killing: { at: number };
}

/**
 * Run `attempt` until it answers: a lost connection is retried (up to maxLost, with a growing
 * pause), a 429/503 carrying Retry-After is waited out (at most 2 s a time); a timeout ends it.
 */
export async function withRetries(
  policy: RetryPolicy,
  attempt: (signal: AbortSignal, attempt: number) => Promise<Answer>,
): Promise<Result> {
  const t0 = performance.now();
  const r: Result = { answer: null, attempts: 0, lost: 0, busy: 0, inFlightAtKill: false, ms: 0 };
  for (;;) {
    r.attempts++;
    const started = performance.now();
    try {
      const answer = await attempt(AbortSignal.timeout(policy.attemptMs), r.attempts);
      if (policy.killing.at > started) r.inFlightAtKill = true;
      if ((answer.status === 429 || answer.status === 503) && answer.retryAfter !== null && performance.now() < policy.deadline) {
        r.busy++;
        await sleep(Math.min(2000, Math.max(100, Number(answer.retryAfter) * 1000 || 1000)) * (0.5 + Math.random() / 2));
        continue;
      }
      r.answer = answer;
      break;
    } catch (err) {
      if (policy.killing.at > started) r.inFlightAtKill = true;
      if (!isConnectionLoss(err)) {
        r.error =
          (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError'
            ? 'timeout'
            : String((err as Error).message ?? err);
        break;
      }
      r.lost++;
      if (r.lost > policy.maxLost || performance.now() >= policy.deadline) {
        r.error = `connection lost ${r.lost} times: ${(err as Error).message}`;
        break;
      }
      await sleep(Math.min(1500, 250 * r.lost) + Math.random() * 250);
    }
  }
  r.ms = Math.round(performance.now() - t0);
  return r;
}

/** One request with fetch. */
export async function fetchAnswer(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | FormData },
  signal: AbortSignal,
): Promise<Answer> {
  const res = await fetch(url, { method: init.method ?? 'POST', headers: init.headers, body: init.body, signal });
  const text = await res.text();
  return { status: res.status, text, retryAfter: res.headers.get('retry-after') };
}

/**
 * One request with node:http, writing `body` in 64 KiB pieces: the answer is taken as soon as it
 * arrives, even while the body is still being written (a server that refuses an oversized body
 * answers early and may close the connection under the writer).
 */
export function rawAnswer(url: string, headers: Record<string, string>, body: Buffer, signal: AbortSignal): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) }, signal }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text, retryAfter: (res.headers['retry-after'] as string | undefined) ?? null }),
      );
      res.on('error', (e) => reject(e));
      res.on('aborted', () => reject(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })));
    });
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    let at = 0;
    const write = (): void => {
      while (at < body.length) {
        const piece = body.subarray(at, at + 65536);
        at += piece.length;
        if (!req.write(piece)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

/** One SMTP message; a temporary (4xx) refusal counts as a lost connection: the sender tries again. */
export async function smtpAnswer(port: number, mail: SendMailOptions, signal: AbortSignal): Promise<Answer> {
  const t = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    connectionTimeout: 60_000,
    greetingTimeout: 60_000,
    socketTimeout: 60_000,
  });
  const onAbort = (): void => t.close();
  signal.addEventListener('abort', onAbort);
  try {
    const info = await Promise.race([
      t.sendMail(mail),
      new Promise<never>((_, reject) =>
        signal.addEventListener('abort', () => reject(Object.assign(new Error('timeout'), { name: 'TimeoutError' }))),
      ),
    ]);
    return { status: Number(/^(\d{3})/.exec(String(info.response))?.[1] ?? 250), text: String(info.response), retryAfter: null };
  } catch (err) {
    const e = err as Error & { responseCode?: number; code?: string };
    if (e.responseCode && e.responseCode >= 500) return { status: e.responseCode, text: e.message, retryAfter: null };
    if (e.responseCode && e.responseCode >= 400)
      throw Object.assign(new Error(`SMTP ${e.responseCode}: ${e.message}`), { code: 'ECONNECTION' });
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
    t.close();
  }
}

export interface Hook {
  deliveryId: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The status answered, or 0 when the sender's connection closed before the answer (it was killed mid-POST). */
  status: number;
}

export interface ReceiverOptions {
  /** The first attempt of every `failEvery`-th delivery id is answered 503 (the server's retry path runs). */
  failEvery: number;
  /** The first attempt of every `holdEvery`-th delivery id is held open while `hold()` is true (at most `maxHoldMs`). */
  holdEvery: number;
  hold: () => boolean;
  maxHoldMs: number;
}

/**
 * The loopback receiver: POST /hook records each webhook, answering 503 or holding some first
 * attempts open (so a restart can cut a POST in flight); GET /pdf/<name> serves `pdfs`.
 */
export async function receiver(
  pdfs: Map<string, Buffer>,
  opts: ReceiverOptions,
): Promise<{ base: string; hooks: Hook[]; holding: () => number; close: () => Promise<void> }> {
  const hooks: Hook[] = [];
  let holding = 0;
  const seen = new Map<string, number>();
  const srv = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/pdf/')) {
      const pdf = pdfs.get(decodeURIComponent(req.url.slice(5)));
      res.writeHead(pdf ? 200 : 404, { 'content-type': 'application/pdf' });
      return void res.end(pdf);
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = String(req.headers['x-cas-delivery-id'] ?? '');
      const first = !seen.has(id);
      if (first) seen.set(id, seen.size + 1);
      const nth = seen.get(id)!;
      const hook: Hook = { deliveryId: id, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status: 0 };
      hooks.push(hook);
      const answer = (): void => {
        if (res.destroyed || res.writableEnded) return;
        hook.status = first && nth % opts.failEvery === 0 ? 503 : 200;
        res.writeHead(hook.status);
        res.end();
      };
      if (!(first && nth % opts.holdEvery === 0 && opts.hold())) return answer();
      const t0 = Date.now();
      holding++;
      const wait = setInterval(() => {
        if (res.destroyed || !opts.hold() || Date.now() - t0 > opts.maxHoldMs) {
          clearInterval(wait);
          holding--;
          answer();
        }
      }, 50);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    hooks,
    holding: () => holding,
    close: () =>
      new Promise((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}
