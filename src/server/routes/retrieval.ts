/**
 * Retrieval: depository_a OTP fetch (two steps) and registrar_b mailback.
 *
 * Fetch session states: `otp_sent` (after step 1) -> `verified` (files issued; single use),
 * `expired` (not verified within the session lifetime, 10 minutes by default) or `locked`
 * (after 3 wrong OTPs). Unknown sessions, and sessions of another key, answer 404; expired,
 * locked and used sessions answer 400 saying so.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { zodMessage } from '../../schema/zod-message.js';
import { registrarBPasswordProblem } from '../../schema/retrieval.js';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { IsoDate, Pan } from '../../schema/index.js';
import { stmt } from '../db.js';
import { fail, type App } from '../context.js';
import { baseUrl } from '../files.js';
import { SandboxFetchProvider, SandboxMailbackProvider, UpstreamError, type DepositoryFetchProvider, type MailbackProvider } from '../providers.js';

const today = (): string => new Date().toISOString().slice(0, 10);
const pastDate = IsoDate.refine((d) => d < today() && d >= '1900-01-01', 'must be a real date in the past');

const FetchBody = z.object({
  pan: z.string().transform((s) => s.trim().toUpperCase()).pipe(Pan),
  bo_id: z.string().regex(/^\d{16}$/, 'must be the 16-digit BO ID'),
  dob: pastDate,
}).strict();
const VerifyBody = z.object({
  otp: z.string().regex(/^\d{4,8}$/, 'must be the 4-8 digit OTP'),
  num_periods: z.number().int().min(1).max(6).default(6),
}).strict();

const MailbackBody = z.object({
  email: z.email('must be a valid email address'),
  from_date: IsoDate,
  to_date: IsoDate,
  password: z.string(),
  pan_no: z.string().transform((s) => s.trim().toUpperCase()).pipe(Pan).optional(),
}).strict()
  .refine((b) => b.from_date <= b.to_date, { message: 'from_date must not be after to_date', path: ['from_date'] })
  .refine((b) => b.to_date <= today(), { message: 'dates cannot be in the future', path: ['to_date'] })
  .superRefine((b, ctx) => {
    const problem = registrarBPasswordProblem(b.password);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['password'] });
  });


interface SessionRow { id: string; key_id: number; provider: string; upstream_ref: string; pan: string; state: string; attempts: number; expires_at: string }

export function retrievalRoutes(f: FastifyInstance, app: App): void {
  const { db, config } = app;
  const sandboxFetch = new SandboxFetchProvider();
  const sandboxMail = new SandboxMailbackProvider();
  const fetchProvider = (req: FastifyRequest): DepositoryFetchProvider | null => (req.cas.principal?.sandbox ? sandboxFetch : app.providers.fetch);
  const mailProvider = (req: FastifyRequest): MailbackProvider | null => (req.cas.principal?.sandbox ? sandboxMail : app.providers.mailback);
  const upstreamFail = (reply: FastifyReply, err: unknown): FastifyReply => {
    if (err instanceof UpstreamError) return fail(reply, err.status, err.message);
    throw err;
  };

  f.post('/v4/depository_a/fetch', { config: { meta: { feature: 'fetch_session', auth: 'v4' } } }, async (req, reply) => {
    const body = FetchBody.safeParse(req.body ?? {});
    if (!body.success) return fail(reply, 400, zodMessage(body.error));
    const provider = fetchProvider(req);
    if (!provider) return fail(reply, 503, 'no depository_a fetch provider is configured on this server (CAS_FETCH_PROVIDER)');
    let ref: string;
    try {
      ref = (await provider.start(body.data)).ref;
    } catch (err) {
      return upstreamFail(reply, err);
    }
    const id = `fs_${randomBytes(12).toString('hex')}`;
    const now = new Date();
    stmt(db, 'INSERT INTO fetch_sessions (id, key_id, provider, upstream_ref, pan, state, attempts, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)').run(
      id, req.cas.principal!.keyId, provider.name, ref, body.data.pan, 'otp_sent', new Date(now.getTime() + config.sessionTtlSeconds * 1000).toISOString(), now.toISOString(), now.toISOString(),
    );
    return { status: 'success', session_id: id, msg: 'OTP sent to the mobile number registered with depository_a' };
  });

  f.post('/v4/depository_a/fetch/:session_id/verify', { config: { meta: { feature: 'fetch', auth: 'v4' } } }, async (req, reply) => {
    const { session_id } = req.params as { session_id: string };
    const body = VerifyBody.safeParse(req.body ?? {});
    if (!body.success) return fail(reply, 400, zodMessage(body.error));
    const s = stmt(db, 'SELECT * FROM fetch_sessions WHERE id = ?').get(session_id) as SessionRow | undefined;
    if (!s || s.key_id !== req.cas.principal!.keyId) return fail(reply, 404, 'no such fetch session');
    const setState = (state: string, attempts = s.attempts): void => {
      stmt(db, 'UPDATE fetch_sessions SET state = ?, attempts = ?, updated_at = ? WHERE id = ?').run(state, attempts, new Date().toISOString(), s.id);
    };
    if (s.state === 'otp_sent' && Date.parse(s.expires_at) <= Date.now()) {
      setState('expired');
      s.state = 'expired';
    }
    if (s.state === 'expired') return fail(reply, 400, 'this fetch session has expired; start a new one');
    if (s.state === 'locked') return fail(reply, 400, 'too many wrong OTPs: this fetch session is locked; start a new one');
    if (s.state === 'verified') return fail(reply, 400, 'this fetch session was already used; start a new one');
    const provider = s.provider === 'sandbox' ? sandboxFetch : app.providers.fetch;
    if (!provider) return fail(reply, 503, 'no depository_a fetch provider is configured on this server');
    let result: Awaited<ReturnType<DepositoryFetchProvider['verify']>>;
    try {
      result = await provider.verify(s.upstream_ref, body.data.otp, body.data.num_periods);
    } catch (err) {
      return upstreamFail(reply, err);
    }
    if ('wrongOtp' in result) {
      const attempts = s.attempts + 1;
      const left = config.maxOtpAttempts - attempts;
      setState(left > 0 ? 'otp_sent' : 'locked', attempts);
      return fail(reply, 400, left > 0 ? `incorrect OTP; ${left} attempt${left === 1 ? '' : 's'} left` : 'incorrect OTP; no attempts left, the session is locked');
    }
    setState('verified');
    const base = baseUrl(config.publicUrl, req as never);
    const files = [];
    for (const file of result.files) {
      const sha = await app.files.put(file.bytes);
      files.push({ filename: file.filename, url: app.files.link(base, sha, file.filename, config.linkTtlSeconds), expires_in: config.linkTtlSeconds });
    }
    return { status: 'success', msg: `${files.length} statement${files.length === 1 ? '' : 's'} ready (password: the PAN in capitals)`, files };
  });

  f.post('/v4/registrar_b/generate', { config: { meta: { feature: 'mailback', auth: 'v4' } } }, async (req, reply) => {
    const body = MailbackBody.safeParse(req.body ?? {});
    if (!body.success) return fail(reply, 400, zodMessage(body.error));
    const provider = mailProvider(req);
    if (!provider) return fail(reply, 503, 'no registrar_b mailback provider is configured on this server (CAS_MAILBACK_PROVIDER)');
    try {
      await provider.request(body.data);
    } catch (err) {
      return upstreamFail(reply, err);
    }
    const [user, domain] = body.data.email.split('@');
    return { status: 'success', msg: `registrar_b will email a password-protected statement for ${body.data.from_date} to ${body.data.to_date} to ${user.slice(0, 1)}***@${domain}; open it with the password chosen for this request` };
  });
}
