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
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import {
  ApiError,
  type DepositoryFetchProvider,
  type FetchedFile,
  type FetchStart,
  type MailbackProvider,
  type MailbackRequest,
  type ProviderConfig,
  type ServerConfig,
} from '../context.js';
import { sandboxFile, sandboxManifest } from '../sandbox.js';

export class UpstreamError extends Error {
  constructor(
    public readonly status: 502 | 503 | 504,
    message: string,
  ) {
    super(message);
  }
}

export const SANDBOX_OTP = '123456';

/**
 * The sandbox's statements: the most recent N of the example investor's six monthly depository_a
 * statements (fixtures/sandbox/, each its own month, period and transactions), under the
 * depository's file names; they open with the example investor's PAN (the manifest's password).
 */
export class SandboxFetchProvider implements DepositoryFetchProvider {
  readonly name = 'sandbox';
  async start(): Promise<{ ref: string }> {
    return { ref: `sbx_${randomBytes(8).toString('hex')}` };
  }
  async verify(_ref: string, otp: string, numPeriods: number): Promise<{ files: FetchedFile[] } | { wrongOtp: true }> {
    if (otp !== SANDBOX_OTP) return { wrongOtp: true };
    return {
      files: sandboxManifest()
        .depository_a.slice(0, numPeriods)
        .map((s) => ({ filename: path.basename(s.path), bytes: new Uint8Array(sandboxFile(s.path)) })),
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

export function makeProviders(c: ProviderConfig): { fetch: DepositoryFetchProvider | null; mailback: MailbackProvider | null } {
  const http = (kind: string): string => {
    if (!c.upstreamUrl) throw new UsageError(`the http ${kind} provider needs CAS_UPSTREAM_URL (or --upstream-url)`);
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

/**
 * The services a self-hosted server offers only once configured, and the settings that configure
 * them. Until then API keys get 503 naming the setting (the CLI exits 7 with that message); the
 * sandbox key always gets the sandbox's sample answers.
 */
export const SERVICES = {
  fetch: {
    label: 'depository_a OTP fetch',
    setting: 'CAS_FETCH_PROVIDER',
    how: 'set CAS_FETCH_PROVIDER=http and CAS_UPSTREAM_URL (or CAS_FETCH_PROVIDER=sandbox for sample statements)',
  },
  mailback: {
    label: 'registrar_b mailback',
    setting: 'CAS_MAILBACK_PROVIDER',
    how: 'set CAS_MAILBACK_PROVIDER=http and CAS_UPSTREAM_URL (or CAS_MAILBACK_PROVIDER=sandbox)',
  },
  kyc: {
    label: 'KYC status',
    setting: 'CAS_KYC_PROVIDER',
    how: 'set CAS_KYC_PROVIDER=recorded and CAS_KYC_RECORDED_DIR (or CAS_KYC_PROVIDER=sandbox for sample answers)',
  },
  locker: {
    label: 'document locker',
    setting: 'CAS_LOCKER_URL',
    how: 'set CAS_LOCKER_URL, CAS_LOCKER_CLIENT_ID and CAS_LOCKER_CLIENT_SECRET',
  },
  gmail: {
    label: 'gmail mailbox connect',
    setting: 'CAS_GMAIL_CLIENT_ID',
    how: 'set CAS_GMAIL_CLIENT_ID and CAS_GMAIL_CLIENT_SECRET (a Google OAuth client), or connect with --provider imap',
  },
} as const;
export type Service = keyof typeof SERVICES;

/** The 503 of a service this server was not configured for: `{status: "failed", msg: "... not configured ...: set CAS_..."}`. */
export function notConfigured(s: Service): ApiError {
  return new ApiError(503, `${SERVICES[s].label} is not configured on this server: ${SERVICES[s].how}`);
}

/** The services `config` leaves unconfigured (said once at start-up). */
export function unconfigured(config: ServerConfig): Service[] {
  const off: Record<Service, boolean> = {
    fetch: config.providers.fetch === 'none',
    mailback: config.providers.mailback === 'none',
    kyc: config.kyc.provider === 'none',
    locker: !config.locker.url,
    gmail: !config.gmail.clientId,
  };
  return (Object.keys(off) as Service[]).filter((s) => off[s]);
}
