/**
 * Document locker: POST /v1/kyc/locker/session, GET /v1/kyc/locker/callback (the OAuth
 * redirect target), POST /v1/kyc/locker/result/{session_id}. The locker's endpoints are
 * configurable (CAS_LOCKER_URL), so tests and operators can point them elsewhere.
 * Session states: pending (consent not given yet) -> authorized | failed; sessions expire
 * after 10 minutes unless authorized.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import * as S from '../../schema/index.js';
import { ApiError, route, type Section } from '../context.js';
import { baseUrl } from '../store/files.js';
import { notConfigured } from '../retrieval/providers.js';
import { documentOf, drivingLicenceRecord, identityOf, nationalIdRecord, oauthCallback, panRecord, pkce } from './service.js';
import { createLockerSession, lockerSessionByState, ownLockerSession, setLockerStatus } from '../store/locker.js';

const DOCS = { pan: 'PANCR', national_id: 'ADHAR', driving_licence: 'DRVLC' } as const;
type Doc = keyof typeof DOCS;

const SessionBody = z
  .object({
    consent: z.literal(true, 'consent must be true: the user agrees to share the documents'),
    purpose: z.string().trim().min(20, 'purpose must say why, in at least 20 characters'),
    redirect_url: z.url({ protocol: /^https?$/ }),
    documents: z
      .array(z.enum(['pan', 'national_id', 'driving_licence']))
      .min(1)
      .optional(),
  })
  .strict();
/** The hosted API's session request (names.ts): `consent_purpose`, and documents it names its own way. */
const REAL_SESSION_BODY = {
  type: 'object',
  required: ['consent', 'consent_purpose', 'redirect_url'],
  properties: {
    consent: { type: 'boolean' },
    consent_purpose: { type: 'string', minLength: 20 },
    redirect_url: { type: 'string', format: 'uri' },
    documents: { type: 'array', items: { type: 'string', enum: ['aadhaar', 'pan', 'driving_licence', 'email', 'mobile'] } },
  },
};

const startLockerSession = route({
  method: 'post',
  url: '/v1/kyc/locker/session',
  schema: {
    operationId: 'startLockerSession',
    summary: 'Start a document-locker consent session',
    body: SessionBody,
    response: { 200: S.LockerSessionResponse },
  },
  config: {
    meta: { feature: 'locker', auth: 'key', request: 'locker_session' },
    doc: { realIds: ['startDigilockerSession'], realBody: REAL_SESSION_BODY },
  },
});

const lockerCallback = route({
  method: 'get',
  url: '/v1/kyc/locker/callback',
  schema: {
    operationId: 'lockerCallback',
    summary: "The locker's OAuth redirect target: records the consent and redirects to the session's redirect_url",
    ...oauthCallback('the redirect_url of the session'),
  },
});

const lockerResult = route({
  method: 'post',
  url: '/v1/kyc/locker/result/:session_id',
  schema: {
    operationId: 'lockerResult',
    summary: 'Identity, documents and records of a locker session',
    params: z.object({ session_id: z.string() }),
    response: { 200: S.LockerResultResponse },
  },
  config: {
    meta: { feature: 'locker', auth: 'key', shape: 'locker_result', request: 'locker_result' },
    doc: { realIds: ['digilockerResult'] },
  },
});

/** The section's routes, in registration order (the OpenAPI document reads them). */
export const LOCKER_ROUTES = [startLockerSession, lockerCallback, lockerResult] as const;

export const lockerRoutes: Section = async (f, { app }) => {
  const { db, config } = app;
  const locker = config.locker;
  const callbackUrl = (): string => `${baseUrl(app)}/v1/kyc/locker/callback`;

  f.route({
    ...startLockerSession,

    handler: async (req) => {
      const sandbox = Boolean(req.cas.principal?.sandbox);
      if (!sandbox && !locker.url) throw notConfigured('locker');
      const id = `lk_${randomBytes(12).toString('hex')}`;
      const state = randomBytes(16).toString('base64url');
      const { verifier, challenge } = pkce();
      await createLockerSession(db, {
        id,
        keyId: req.cas.principal!.keyId,
        state,
        verifier,
        redirectUrl: req.body.redirect_url,
        purpose: req.body.purpose,
        documents: req.body.documents ?? ['pan', 'national_id', 'driving_licence'],
        ttlMs: 600_000,
      });
      const params = new URLSearchParams({
        response_type: 'code',
        client_id: locker.clientId,
        redirect_uri: callbackUrl(),
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      const authorize = sandbox
        ? `${baseUrl(app)}/v1/kyc/locker/callback?code=sandbox&state=${state}`
        : `${locker.url!.replace(/\/+$/, '')}/oauth2/1/authorize?${params}`;
      return { status: 'success' as const, session_id: id, authorization_url: authorize, expires_in: 600 };
    },
  });

  f.route({
    ...lockerCallback,

    handler: async (req, reply) => {
      const q = req.query;
      const s = q.state ? await lockerSessionByState(db, q.state) : undefined;
      if (!s) throw new ApiError(400, 'unknown or missing state');
      const back = (status: string, extra: Record<string, string> = {}) => {
        const u = new URL(s.redirect_url);
        u.searchParams.set('session_id', s.id);
        u.searchParams.set('status', status);
        // The hosted API's names for the same facts, so either kind of client finds them.
        u.searchParams.set('success', String(status === 'success'));
        u.searchParams.set('id', s.id);
        for (const [k, v] of Object.entries(extra)) u.searchParams.set(k, v);
        return reply.redirect(u.toString(), 302);
      };
      if (s.status !== 'pending' || Date.parse(s.expires_at) <= Date.now())
        throw new ApiError(400, 'this locker session is no longer waiting for consent');
      if (q.error || !q.code) {
        await setLockerStatus(db, s.id, 'failed');
        return back('error', { error: q.error ?? 'no code' });
      }
      if (s.key_id === 0 && q.code === 'sandbox') {
        await setLockerStatus(db, s.id, 'authorized', 'sandbox');
        return back('success');
      }
      try {
        const res = await fetch(`${locker.url!.replace(/\/+$/, '')}/oauth2/1/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: q.code,
            redirect_uri: callbackUrl(),
            client_id: locker.clientId,
            client_secret: locker.clientSecret,
            code_verifier: s.code_verifier,
          }),
          signal: AbortSignal.timeout(15_000),
        });
        const json = (await res.json().catch(() => ({}))) as { access_token?: string; error?: string };
        if (!res.ok || !json.access_token) {
          await setLockerStatus(db, s.id, 'failed');
          return back('error', { error: json.error ?? `token exchange failed (HTTP ${res.status})` });
        }
        await setLockerStatus(db, s.id, 'authorized', json.access_token);
        return back('success');
      } catch {
        await setLockerStatus(db, s.id, 'failed');
        return back('error', { error: 'the locker could not be reached' });
      }
    },
  });

  f.route({
    ...lockerResult,

    handler: async (req) => {
      const { session_id } = req.params;
      const s = await ownLockerSession(db, session_id, req.cas.principal!.keyId);
      if (!s) throw new ApiError(404, 'no such locker session');
      if (s.status === 'pending') throw new ApiError(400, 'the user has not given consent in the locker yet');
      if (s.status !== 'authorized') throw new ApiError(400, 'the locker consent failed or was refused; start a new session');
      const wanted = JSON.parse(s.documents) as Doc[];
      const consent = { consented_at: s.consented_at ? s.consented_at.replace(/\.\d{3}Z$/, 'Z') : null, purpose: s.purpose };
      if (s.access_token === 'sandbox') {
        return {
          status: 'success' as const,
          session_id,
          identity: {
            locker_id: 'sandbox-locker-0001',
            username: 'aarav.m',
            name: 'Aarav Kumar Mehta',
            dob: '31-01-1990',
            gender: 'M',
            care_of: 'S/O Rakesh Mehta',
            address: 'Flat 402, Sunrise Apartments, Mumbai, Maharashtra, 400050',
            email: 'aarav.mehta@example.in',
            mobile: 'XXXXXX2345',
            verified: { pan: 'ABCPM1234K', national_id: 'XXXXXXXX1234' },
          },
          consent,
          documents: [],
          records: { pan: null, national_id: null, driving_licence: null },
        };
      }
      const base = locker.url!.replace(/\/+$/, '');
      const get = async (p: string): Promise<Response> => {
        const r = await fetch(`${base}${p}`, {
          headers: { authorization: `Bearer ${s.access_token}` },
          signal: AbortSignal.timeout(15_000),
        });
        if (r.status === 401)
          throw Object.assign(new Error('the locker access has expired or was revoked; start a new session'), { http: 400 });
        if (!r.ok) throw Object.assign(new Error(`the locker failed (HTTP ${r.status})`), { http: 502 });
        return r;
      };
      try {
        const user = (await (await get('/oauth2/1/user')).json()) as Record<string, unknown>;
        const issued = (await (await get('/oauth2/2/files/issued')).json()) as { items?: Record<string, unknown>[] };
        const documents = (issued.items ?? []).map(documentOf);
        const xmlOf = async (doc: Doc): Promise<string | null> => {
          if (!wanted.includes(doc)) return null;
          const item = documents.find((d) => d.doctype === DOCS[doc]);
          return item ? (await get(`/oauth2/1/xml/${encodeURIComponent(item.uri)}`)).text() : null;
        };
        const [panXml, nidXml, dlXml] = await Promise.all([xmlOf('pan'), xmlOf('national_id'), xmlOf('driving_licence')]);
        const pan = panXml ? panRecord(panXml) : null;
        const nid = nidXml ? nationalIdRecord(nidXml, session_id) : null;
        const dl = dlXml ? drivingLicenceRecord(dlXml) : null;
        return {
          status: 'success' as const,
          session_id,
          identity: identityOf(user, { pan, nid, dl }),
          consent,
          documents,
          records: { pan, national_id: nid, driving_licence: dl },
        };
      } catch (err) {
        const e = err as Error & { http?: number };
        throw new ApiError(e.http ?? 502, e.http ? e.message : 'the locker could not be reached');
      }
    },
  });
};
