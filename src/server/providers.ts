/**
 * Upstream seams: the depository_a OTP fetch and the registrar_b mailback cannot be reached
 * from here, so both sit behind provider interfaces chosen by configuration.
 *
 * - `sandbox`: a mock session, the documented sandbox OTP `123456`, sample statements that the
 *   local parser reads; mailback succeeds and sends nothing.
 * - `http`: an operator's upstream that speaks this contract (JSON over HTTP):
 *     POST {base}/depository_a/start   {pan, bo_id, dob}            -> 200 {ref}
 *     POST {base}/depository_a/verify  {ref, otp, num_periods}      -> 200 {files: [{filename, content_base64}]}
 *                                                                    -> 401 {error: "wrong_otp"}
 *     POST {base}/registrar_b/mailback {email, from_date, to_date, password, pan_no} -> 200 {}
 *   Any 5xx becomes HTTP 502 for the caller; no answer within the time limit becomes 504.
 * - `none`: the endpoint answers 503 (not configured).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export class UpstreamError extends Error {
  constructor(
    public readonly status: 502 | 503 | 504,
    message: string,
  ) {
    super(message);
  }
}

export interface FetchStart {
  pan: string;
  bo_id: string;
  dob: string;
}
export interface FetchedFile {
  filename: string;
  bytes: Uint8Array;
}

export interface DepositoryFetchProvider {
  readonly name: string;
  start(input: FetchStart): Promise<{ ref: string }>;
  verify(ref: string, otp: string, numPeriods: number): Promise<{ files: FetchedFile[] } | { wrongOtp: true }>;
}

export interface MailbackRequest {
  email: string;
  from_date: string;
  to_date: string;
  password: string;
  pan_no?: string;
}
export interface MailbackProvider {
  readonly name: string;
  request(input: MailbackRequest): Promise<void>;
}

export const SANDBOX_OTP = '123456';
const SAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/depository_a/cdsl-cas.pdf');
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

export class SandboxFetchProvider implements DepositoryFetchProvider {
  readonly name = 'sandbox';
  async start(): Promise<{ ref: string }> {
    return { ref: `sbx_${randomBytes(8).toString('hex')}` };
  }
  async verify(_ref: string, otp: string, numPeriods: number): Promise<{ files: FetchedFile[] } | { wrongOtp: true }> {
    if (otp !== SANDBOX_OTP) return { wrongOtp: true };
    const bytes = new Uint8Array(readFileSync(SAMPLE));
    const now = new Date();
    return {
      files: Array.from({ length: numPeriods }, (_, i) => {
        const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1 - i, 1));
        return { filename: `${MONTHS[d.getUTCMonth()]}${d.getUTCFullYear()}_AA07602549_TXN.pdf`, bytes };
      }),
    };
  }
}

export class SandboxMailbackProvider implements MailbackProvider {
  readonly name = 'sandbox';
  async request(): Promise<void> {
    /* success, no email sent */
  }
}

async function upstream(base: string, p: string, body: unknown, timeoutMs: number): Promise<{ status: number; json: any }> {
  let res: Response;
  try {
    res = await fetch(`${base.replace(/\/+$/, '')}${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    if ((err as Error).name === 'TimeoutError') throw new UpstreamError(504, `the upstream did not answer within ${timeoutMs} ms`);
    throw new UpstreamError(502, 'the upstream could not be reached');
  }
  if (res.status >= 500) throw new UpstreamError(502, `the upstream failed (HTTP ${res.status}); try again later`);
  const json = await res.json().catch(() => ({}));
  return { status: res.status, json };
}

export class HttpFetchProvider implements DepositoryFetchProvider {
  readonly name = 'http';
  constructor(
    private readonly base: string,
    private readonly timeoutMs: number,
  ) {}
  async start(input: FetchStart): Promise<{ ref: string }> {
    const r = await upstream(this.base, '/depository_a/start', input, this.timeoutMs);
    if (r.status !== 200 || typeof r.json.ref !== 'string')
      throw new UpstreamError(502, `the upstream refused the request (HTTP ${r.status})`);
    return { ref: r.json.ref };
  }
  async verify(ref: string, otp: string, numPeriods: number): Promise<{ files: FetchedFile[] } | { wrongOtp: true }> {
    const r = await upstream(this.base, '/depository_a/verify', { ref, otp, num_periods: numPeriods }, this.timeoutMs);
    if (r.status === 401) return { wrongOtp: true };
    if (r.status !== 200 || !Array.isArray(r.json.files)) throw new UpstreamError(502, `the upstream answered HTTP ${r.status}`);
    return {
      files: (r.json.files as { filename: string; content_base64: string }[]).map((f) => ({
        filename: f.filename,
        bytes: new Uint8Array(Buffer.from(f.content_base64, 'base64')),
      })),
    };
  }
}

export class HttpMailbackProvider implements MailbackProvider {
  readonly name = 'http';
  constructor(
    private readonly base: string,
    private readonly timeoutMs: number,
  ) {}
  async request(input: MailbackRequest): Promise<void> {
    const r = await upstream(this.base, '/registrar_b/mailback', input, this.timeoutMs);
    if (r.status !== 200) throw new UpstreamError(502, `the upstream refused the mailback request (HTTP ${r.status})`);
  }
}

export interface ProviderConfig {
  fetch: 'sandbox' | 'http' | 'none';
  mailback: 'sandbox' | 'http' | 'none';
  upstreamUrl?: string;
  timeoutMs: number;
}

export function makeProviders(c: ProviderConfig): { fetch: DepositoryFetchProvider | null; mailback: MailbackProvider | null } {
  const http = (kind: string): string => {
    if (!c.upstreamUrl) throw new Error(`the http ${kind} provider needs CAS_UPSTREAM_URL`);
    return c.upstreamUrl;
  };
  return {
    fetch:
      c.fetch === 'sandbox' ? new SandboxFetchProvider() : c.fetch === 'http' ? new HttpFetchProvider(http('fetch'), c.timeoutMs) : null,
    mailback:
      c.mailback === 'sandbox'
        ? new SandboxMailbackProvider()
        : c.mailback === 'http'
          ? new HttpMailbackProvider(http('mailback'), c.timeoutMs)
          : null,
  };
}
