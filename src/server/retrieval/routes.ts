/**
 * Retrieval: depository_a OTP fetch (two steps) and registrar_b mailback.
 *
 * Fetch session states: `otp_sent` (after step 1) -> `verified` (files issued; single use),
 * `expired` (not verified within the session lifetime, 10 minutes by default) or `locked`
 * (after 3 wrong OTPs). Unknown sessions, and sessions of another key, answer 404; expired,
 * locked and used sessions answer 400 saying so.
 */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { registrarBPasswordProblem } from '../../schema/retrieval.js';
import * as S from '../../schema/index.js';
import { ApiError, type DepositoryFetchProvider, type MailbackProvider, route, type Section } from '../context.js';
import { baseUrl } from '../store/files.js';
import { notConfigured, SandboxFetchProvider, SandboxMailbackProvider, UpstreamError } from './providers.js';
import { sandboxManifest } from '../sandbox.js';
import { claimFetchSession, createFetchSession, expireFetchSession, finishFetchSession, ownFetchSession } from '../store/sessions.js';

const today = (): string => new Date().toISOString().slice(0, 10);
const pastDate = S.IsoDate.refine((d) => d < today() && d >= '1900-01-01', 'must be a real date in the past');
const PanText = z
  .string()
  .transform((s) => s.trim().toUpperCase())
  .pipe(S.Pan);

const FetchBody = z
  .object({
    pan: PanText,
    bo_id: z.string().regex(/^\d{16}$/, 'must be the 16-digit BO ID'),
    dob: pastDate,
  })
  .strict();
const VerifyBody = z
  .object({
    otp: z.string().regex(/^\d{4,8}$/, 'must be the 4-8 digit OTP'),
    num_periods: z.number().int().min(1).max(6).default(6),
  })
  .strict();

const MailbackBody = z
  .object({
    email: z.email('must be a valid email address'),
    from_date: S.IsoDate,
    to_date: S.IsoDate,
    password: z.string(),
    pan_no: PanText.optional(),
  })
  .strict()
  .refine((b) => b.from_date <= b.to_date, { message: 'from_date must not be after to_date', path: ['from_date'] })
  .refine((b) => b.to_date <= today(), { message: 'dates cannot be in the future', path: ['to_date'] })
  .superRefine((b, ctx) => {
    const problem = registrarBPasswordProblem(b.password);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['password'] });
  });

/** An upstream's refusal answers with its status; anything else is unexpected. */
async function upstream<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof UpstreamError) throw new ApiError(err.status, err.message);
    throw err;
  }
}

const depositoryAFetchRequestOtp = route({
  method: 'post',
  url: '/v4/depository_a/fetch',
  schema: {
    operationId: 'depositoryAFetchRequestOtp',
    summary: 'OTP fetch, step 1: send the OTP',
    body: FetchBody,
    response: { 200: S.FetchResponse },
  },
  config: { meta: { feature: 'fetch_session', auth: 'v4' }, doc: { realIds: ['cdslFetchRequestOTP'] } },
});

const depositoryAFetchVerifyOtp = route({
  method: 'post',
  url: '/v4/depository_a/fetch/:session_id/verify',
  schema: {
    operationId: 'depositoryAFetchVerifyOtp',
    summary: 'OTP fetch, step 2: verify and list the statements',
    params: z.object({ session_id: z.string() }),
    body: VerifyBody,
    response: { 200: S.FetchVerifyResponse },
  },
  config: { meta: { feature: 'fetch', auth: 'v4' }, doc: { realIds: ['cdslFetchVerifyOTP'] } },
});

const registrarBGenerate = route({
  method: 'post',
  url: '/v4/registrar_b/generate',
  schema: {
    operationId: 'registrarBGenerate',
    summary: 'Mailback request to registrar_b',
    body: MailbackBody,
    response: { 200: S.MailbackResponse },
  },
  config: { meta: { feature: 'mailback', auth: 'v4' }, doc: { realIds: ['kfintechGenerateCas', 'generateCas'] } },
});

/** The section's routes, in registration order (the OpenAPI document reads them). */
export const RETRIEVAL_ROUTES = [depositoryAFetchRequestOtp, depositoryAFetchVerifyOtp, registrarBGenerate] as const;

export const retrievalRoutes: Section = async (f, { app }) => {
  const { db, config } = app;
  const sandboxFetch = new SandboxFetchProvider();
  const sandboxMail = new SandboxMailbackProvider();
  const fetchProvider = (req: FastifyRequest): DepositoryFetchProvider | null =>
    req.cas.principal?.sandbox ? sandboxFetch : app.providers.fetch;
  const mailProvider = (req: FastifyRequest): MailbackProvider | null =>
    req.cas.principal?.sandbox ? sandboxMail : app.providers.mailback;

  f.route({
    ...depositoryAFetchRequestOtp,

    handler: async (req) => {
      const provider = fetchProvider(req);
      if (!provider) throw notConfigured('fetch');
      const { ref } = await upstream(() => provider.start(req.body));
      const id = await createFetchSession(db, {
        keyId: req.cas.principal!.keyId,
        provider: provider.name,
        ref,
        pan: req.body.pan,
        ttlSeconds: config.sessionTtlSeconds,
      });
      return { status: 'success' as const, session_id: id, msg: 'OTP sent to the mobile number registered with depository_a' };
    },
  });

  f.route({
    ...depositoryAFetchVerifyOtp,

    handler: async (req) => {
      const s = await ownFetchSession(db, req.params.session_id, req.cas.principal!.keyId);
      if (!s) throw new ApiError(404, 'no such fetch session');
      if (s.state === 'otp_sent' && Date.parse(s.expires_at) <= Date.now()) {
        await expireFetchSession(db, s.id);
        s.state = 'expired';
      }
      if (s.state === 'expired') throw new ApiError(400, 'this fetch session has expired; start a new one');
      if (s.state === 'locked') throw new ApiError(400, 'too many wrong OTPs: this fetch session is locked; start a new one');
      if (s.state === 'verified') throw new ApiError(400, 'this fetch session was already used; start a new one');
      const provider = s.provider === 'sandbox' ? sandboxFetch : app.providers.fetch;
      if (!provider) throw notConfigured('fetch');
      // One verification at a time per session, whichever instance it reaches.
      if (!(await claimFetchSession(db, s.id)))
        throw new ApiError(409, 'this fetch session is being verified by another request; retry in a moment');
      let result: Awaited<ReturnType<DepositoryFetchProvider['verify']>>;
      try {
        result = await upstream(() => provider.verify(s.upstream_ref, req.body.otp, req.body.num_periods));
      } catch (err) {
        await finishFetchSession(db, s.id, 'released', config.maxOtpAttempts);
        throw err;
      }
      if ('wrongOtp' in result) {
        const attempts = await finishFetchSession(db, s.id, 'wrong', config.maxOtpAttempts);
        const left = config.maxOtpAttempts - attempts;
        throw new ApiError(
          400,
          left > 0
            ? `incorrect OTP; ${left} attempt${left === 1 ? '' : 's'} left`
            : 'incorrect OTP; no attempts left, the session is locked',
        );
      }
      await finishFetchSession(db, s.id, 'verified', config.maxOtpAttempts);
      const base = baseUrl(app);
      const files = [];
      for (const file of result.files) {
        const sha = await app.files.put(file.bytes);
        files.push({
          filename: file.filename,
          url: app.files.link(base, sha, file.filename, config.linkTtlSeconds),
          expires_in: config.linkTtlSeconds,
        });
      }
      return {
        status: 'success' as const,
        msg:
          provider.name === 'sandbox'
            ? `${files.length} sample statement${files.length === 1 ? '' : 's'} of the sandbox investor ready (password: ${sandboxManifest().password}, that investor's PAN)`
            : `${files.length} statement${files.length === 1 ? '' : 's'} ready (password: the PAN in capitals)`,
        files,
      };
    },
  });

  f.route({
    ...registrarBGenerate,

    handler: async (req) => {
      const provider = mailProvider(req);
      if (!provider) throw notConfigured('mailback');
      await upstream(() => provider.request(req.body));
      const [user, domain] = req.body.email.split('@');
      return {
        status: 'success' as const,
        msg: `registrar_b will email a password-protected statement for ${req.body.from_date} to ${req.body.to_date} to ${user.slice(0, 1)}***@${domain}; open it with the password chosen for this request`,
      };
    },
  });
};
