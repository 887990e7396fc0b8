/**
 * Typed client of the cas service. Retries with exponential backoff on HTTP 500 and on
 * connection errors only; validates every response body with zod; maps HTTP errors to typed
 * errors and so to exit codes (src/errors.ts): 400/422 -> 2, 401/402/403 -> 4, 404 -> 8,
 * 503 -> 7 (with the service's message, which names the setting), other 5xx after retries -> 5,
 * unreachable after retries -> 6. A base URL that is not an http(s) URL is refused at once (2).
 */
import { z } from 'zod';
import { AuthError, CasError, NetworkError, NotFoundError, ServiceError, UnavailableError, UsageError } from '../errors.js';
import * as S from '../schema/index.js';

/** Bodies the service answers that have no named schema in src/schema. */
const Done = z.object({ status: z.literal('success'), msg: z.string() });
const InboundFilesPage = z.object({
  status: z.literal('success'),
  files: z.array(S.EmailStatementFile.extend({ received_at: z.string() })),
  count: z.number(),
  cursor: z.string().nullable(),
});
export type InboundFile = z.infer<typeof InboundFilesPage>['files'][number];
const ImapConnected = z.object({ status: z.literal('success'), provider: z.string(), email: z.string(), inbox_token: z.string() });

/** The query string of a GET, without the parameters left out. */
function query(q: Record<string, string | undefined>): string {
  return new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => e[1] !== undefined)).toString();
}

/** The base URL as given if it is an absolute http(s) URL without credentials, else a UsageError (never retried). */
export function checkBaseUrl(baseUrl: string, source = 'the base URL'): string {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new UsageError(`${source} '${baseUrl}' is not an http(s) URL (e.g. http://127.0.0.1:8080)`);
  }
  if (url.username || url.password) throw new UsageError(`${source} must not carry a user name or password; use --api-key`);
  return baseUrl;
}

/** Why a request did not reach the service, in words (from undici's cause code or the abort). */
function unreachable(err: unknown): string {
  const e = err as { name?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.cause?.message ?? e.name ?? 'error';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name not found';
  if (code === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return 'timed out';
  return code;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  retries?: number;
  /** First backoff delay in ms (doubles each retry). */
  backoffMs?: number;
  timeoutMs?: number;
}

/** An HTTP error status as a typed error (and so an exit code). */
function httpError(status: number, msg: string, tag: string): CasError {
  if (status === 401 || status === 402 || status === 403) return new AuthError(`${msg}${tag}`);
  if (status === 404) return new NotFoundError(`${msg}${tag}`);
  if (status === 503) return new UnavailableError(`${msg}${tag}`);
  if (status >= 500) return new ServiceError(`the service failed: ${msg}${tag}`);
  if (status === 400 || status === 422) return new UsageError(`${msg}${tag}`);
  if (status === 429) return new ServiceError(`${msg}${tag}`);
  return new CasError('RequestFailed', `${msg}${tag}`, 1);
}

export class CasClient {
  private readonly base: string;
  constructor(private readonly opts: ClientOptions) {
    this.base = checkBaseUrl(opts.baseUrl).replace(/\/+$/, '');
  }

  async call<T extends z.ZodType>(path: string, body: unknown, schema: T, extraHeaders: Record<string, string> = {}): Promise<z.infer<T>> {
    return this.request('POST', path, body, schema, extraHeaders);
  }

  async request<T extends z.ZodType>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body: unknown,
    schema: T,
    extraHeaders: Record<string, string> = {},
  ): Promise<z.infer<T>> {
    if (!this.opts.apiKey)
      throw new AuthError(
        'no API key: set CAS_API_KEY (against your own `cas serve`, the sandbox key cas_sandbox_public_key works), run `cas config set api_key -`, or pass --api-key',
      );
    const retries = this.opts.retries ?? 3;
    let delay = this.opts.backoffMs ?? 200;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(`${this.base}${path}`, {
          method,
          headers: {
            ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
            'x-api-key': this.opts.apiKey,
            'x-cas-names': 'spec',
            ...extraHeaders,
          },
          body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
          signal: AbortSignal.timeout(this.opts.timeoutMs ?? 60_000),
        });
      } catch (err) {
        if (attempt < retries) {
          await new Promise((r) => setTimeout(r, delay));
          delay *= 2;
          continue;
        }
        throw new NetworkError(
          `the service at ${this.base} is unreachable (${unreachable(err)}) after ${retries + 1} attempt${retries ? 's' : ''}; check --base-url and that the service is running`,
        );
      }
      if (res.status === 500 && attempt < retries) {
        await res.body?.cancel();
        await new Promise((r) => setTimeout(r, delay));
        delay *= 2;
        continue;
      }
      const requestId = res.headers.get('x-request-id') ?? '';
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new ServiceError(`the service answered HTTP ${res.status} with a body that is not JSON`);
      }
      if (!res.ok) {
        const msg = (json as { msg?: string; detail?: string }).msg ?? (json as { detail?: string }).detail ?? `HTTP ${res.status}`;
        const tag = requestId ? ` (request ${requestId})` : '';
        throw httpError(res.status, msg, tag);
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success)
        throw new ServiceError(`the service answered with an unexpected body at ${parsed.error.issues[0]?.path.join('.') || 'top level'}`);
      return parsed.data;
    }
  }

  fetchStart(body: { pan: string; bo_id: string; dob: string }) {
    return this.call('/v4/depository_a/fetch', body, S.FetchResponse);
  }
  fetchVerify(sessionId: string, otp: string, numPeriods?: number) {
    return this.call(
      `/v4/depository_a/fetch/${encodeURIComponent(sessionId)}/verify`,
      { otp, ...(numPeriods ? { num_periods: numPeriods } : {}) },
      S.FetchVerifyResponse,
    );
  }
  mailback(body: z.infer<typeof S.MailbackRequest>) {
    return this.call('/v4/registrar_b/generate', body, S.MailbackResponse);
  }

  /** Download a signed link (no key needed; retried like the JSON calls). */
  async download(url: string): Promise<Uint8Array> {
    const retries = this.opts.retries ?? 3;
    let delay = this.opts.backoffMs ?? 200;
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(this.opts.timeoutMs ?? 60_000) });
        if (res.status === 500 && attempt < retries) throw new Error('retry');
        if (!res.ok) {
          const body = (await res.json().catch(() => ({}))) as { msg?: string };
          throw httpError(res.status, `download failed: ${body.msg ?? `HTTP ${res.status}`}`, '');
        }
        return new Uint8Array(await res.arrayBuffer());
      } catch (err) {
        if (err instanceof CasError) throw err;
        if (attempt >= retries) throw new NetworkError(`could not download ${new URL(url).pathname} (${unreachable(err)})`);
        await new Promise((r) => setTimeout(r, delay));
        delay *= 2;
      }
    }
  }

  credits() {
    return this.call('/v1/credits', {}, S.CreditsResponse);
  }
  usage(q: z.infer<typeof S.UsageRequest>) {
    return this.call('/v1/usage', q, S.UsageResponse);
  }
  usageSummary(q: z.infer<typeof S.UsageRequest>) {
    return this.call('/v1/usage/summary', q, S.UsageSummaryResponse);
  }
  createToken(expiryMinutes?: number) {
    return this.call('/v1/token', expiryMinutes ? { expiry_minutes: expiryMinutes } : {}, S.TokenResponse);
  }
  verifyToken(token: string) {
    return this.call('/v1/token/verify', { access_token: token }, S.TokenVerifyResponse);
  }

  // Verification (SPEC.md "Regulator", "KYC", "Identity locker").
  verifyRegulator(body: z.input<typeof S.RegulatorRequest>) {
    return this.call('/v1/verify/regulator', body, S.RegulatorResponse);
  }
  kycStatus(pan: string) {
    return this.call('/v1/kyc/pan/status', { pan_no: pan }, S.KycStatusResponse);
  }
  lockerSession(body: { consent: true; purpose: string; redirect_url: string; documents?: string[] }) {
    return this.call('/v1/kyc/locker/session', body, S.LockerSessionResponse);
  }
  lockerResult(sessionId: string) {
    return this.call(`/v1/kyc/locker/result/${encodeURIComponent(sessionId)}`, {}, S.LockerResultResponse);
  }

  // Inbound email (forwarding addresses).
  inboundCreate(body: {
    alias?: string;
    reference?: string;
    callback_url?: string;
    allowed_sources?: string[];
    metadata?: Record<string, string>;
  }) {
    return this.call('/v4/inbound-email', body, S.InboundEmail.extend({ webhook_secret: z.string() }));
  }
  inboundList(q: { status: string; limit: string; offset: string }) {
    return this.request('GET', `/v4/inbound-email?${query(q)}`, undefined, S.InboundEmailList);
  }
  inboundGet(id: string) {
    return this.request('GET', `/v4/inbound-email/${encodeURIComponent(id)}`, undefined, S.InboundEmail);
  }
  inboundDelete(id: string) {
    return this.request('DELETE', `/v4/inbound-email/${encodeURIComponent(id)}`, undefined, Done);
  }
  inboundSetState(id: string, action: 'pause' | 'resume') {
    return this.call(`/v4/inbound-email/${encodeURIComponent(id)}/${action}`, {}, S.InboundEmail);
  }
  /** The received files of an address: one page with `limit`, else every page. */
  async inboundFiles(id: string, q: { since?: string; limit?: string }): Promise<InboundFile[]> {
    const files: InboundFile[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request(
        'GET',
        `/v4/inbound-email/${encodeURIComponent(id)}/files?${query({ ...q, cursor })}`,
        undefined,
        InboundFilesPage,
      );
      files.push(...page.files);
      cursor = q.limit ? undefined : (page.cursor ?? undefined);
    } while (cursor);
    return files;
  }

  // Connected mailbox (the inbox token goes in X-Inbox-Token).
  inboxConnectImap(imap: { host: string; port: number; tls: boolean; user: string; password: string }) {
    return this.call('/v4/inbox/connect', { provider: 'imap', imap }, ImapConnected);
  }
  inboxConnectGmail(redirectUri: string, state: string) {
    return this.call('/v4/inbox/connect', { provider: 'gmail', redirect_uri: redirectUri, state }, S.InboxConnectResponse);
  }
  inboxStatus(token: string) {
    return this.call('/v4/inbox/status', {}, S.InboxStatusResponse, { 'x-inbox-token': token });
  }
  inboxSearch(token: string, body: { start_date?: string; end_date?: string; cas_types?: string[] }) {
    return this.call('/v4/inbox/cas', body, S.InboxSearchResponse, { 'x-inbox-token': token });
  }
  inboxDisconnect(token: string) {
    return this.call('/v4/inbox/disconnect', {}, Done, { 'x-inbox-token': token });
  }
}
