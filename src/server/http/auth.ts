/**
 * Authentication and billing, one plugin (it applies to every route registered after it).
 *
 * - `onRequest`: the API key or access token is checked, the per-key rate limit applied (counted in
 *   the store, so it holds across instances), a key without the credits the call costs refused
 *   (402), a key past its failed parses per minute refused (429), and the caps on uploads in flight
 *   (per key, the sandbox key's own, and per server, counted per instance) taken, before any body is
 *   read, so an unauthenticated, unpaid or surplus upload costs nothing.
 * - `preHandler` (after validation): the route's price is reserved atomically, so a request that
 *   fails validation never holds credits other requests need.
 * - `onSend`: the reservation is settled (refunded unless the outcome is billable), the credit
 *   headers are set and the call is logged; a request whose client goes away before its answer is
 *   written is refunded when its connection closes.
 */
import type { FastifyBaseLogger, FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { serverLine } from './log.js';
import { fail, type App, type Principal, type RouteMeta } from '../context.js';
import { findAccessToken, findKey } from '../store/keys.js';
import { keepCharge, release, remaining, reserve, retake } from '../store/credits.js';
import { failedParsesWait, rateAllow, recordFailedParse } from '../store/rate.js';
import { logUsage } from '../store/usage.js';
import { PRICES } from '../billing.js';
import { UploadGate } from './uploads.js';
import { fromMilli, toMilli, type Queries } from '../store/sql.js';

const metaOf = (req: FastifyRequest): RouteMeta | undefined => req.routeOptions?.config?.meta;

/** Give a reservation back once the store answers again (tries for about two minutes, then says so). */
function releaseLater(db: Queries, reservation: number, log: FastifyBaseLogger, attempt = 0): void {
  setTimeout(
    () =>
      release(db, reservation, true).catch((err: Error) => {
        if (attempt < 12) releaseLater(db, reservation, log, attempt + 1);
        else
          serverLine(
            log,
            `cas serve: reservation ${reservation} could not be given back (${err.message}); it is given back at the next start`,
          );
      }),
    Math.min(1000 * 2 ** attempt, 15_000),
  ).unref();
}

export function authBilling({ db, config, instanceId }: App): FastifyPluginAsync {
  const uploads = new UploadGate(config.maxUploads, config.maxUploadsPerKey, config.sandboxMaxUploads);
  /** Refund an unsettled reservation unless the outcome is billable; runs once per request. */
  const settle = async (q: Queries, req: FastifyRequest, ok: boolean): Promise<void> => {
    const s = req.cas;
    if (!s || s.settled) return;
    s.settled = true;
    const refund = Boolean(s.charged && !ok && !s.always);
    if (refund) s.charged = 0;
    if (!s.reservation) return;
    const held = await release(q, s.reservation, refund);
    // Another instance gave this request's credit back (it took this one for dead while the request
    // ran): the charge is taken again, or, when the key cannot pay any more, the answer becomes 402.
    if (!held && !refund && s.charged && s.principal?.key && !(await retake(q, s.principal.key, s.charged))) {
      s.unpaid = true;
      s.charged = 0;
    }
  };

  const plugin: FastifyPluginAsync = async (f) => {
    f.addHook('onRequest', async (req, reply) => {
      const meta = metaOf(req);
      if (!meta || meta.auth === 'none') return;
      const raw = req.headers['x-api-key'];
      const secret = typeof raw === 'string' ? raw.trim() : '';
      if (!secret) return fail(reply, 401, 'missing API key: send it in the x-api-key header');
      let principal: Principal;
      if (secret === config.sandboxKey) {
        principal = { sandbox: true, viaToken: false, key: null, keyId: 0 };
      } else if (secret.startsWith('at_') && meta.tokenSelfCheck) {
        // The hosted API's bodiless token check sends the token itself in x-api-key; the handler
        // answers valid/invalid for it (an expired or unknown token is an answer, not a 401).
        req.cas.selfToken = secret;
        return;
      } else if (secret.startsWith('at_')) {
        const t = await findAccessToken(db, secret);
        if (meta.tokenDetail)
          return reply.code(403).send({ detail: 'access tokens cannot read usage logs; call this endpoint with the API key' });
        if (!t || t.expired || (t.keyId && (!t.key || t.key.revoked_at)))
          return fail(
            reply,
            401,
            t?.expired ? 'the access token has expired; create a new one with POST /v1/token' : 'invalid access token',
          );
        if (meta.auth !== 'v4')
          return fail(
            reply,
            403,
            meta.feature === 'token'
              ? 'access tokens cannot create other tokens; use the API key'
              : 'access tokens are accepted on /v4/* endpoints only; use the API key',
          );
        principal = { sandbox: t.keyId === 0, viaToken: true, key: t.key, keyId: t.keyId };
      } else {
        const key = await findKey(db, secret);
        if (!key || key.revoked_at) return fail(reply, 403, 'invalid API key');
        principal = { sandbox: false, viaToken: false, key, keyId: key.id };
      }
      req.cas.principal = principal;
      const rate = principal.sandbox ? config.sandboxRate : (principal.key?.rate_per_min ?? null);
      const who = principal.sandbox ? 'sandbox' : String(principal.keyId);
      if (rate && !(await rateAllow(db, who, rate))) {
        return fail(reply, 403, `quota exceeded: at most ${rate} requests per minute for this key`);
      }
      // A key that cannot pay for the call is refused before its body is read (the reservation
      // after validation stays the atomic check; this one only spares the server the body).
      const price = PRICES[meta.feature];
      const key = principal.key;
      if (price && !principal.sandbox && key && !key.unlimited && key.credits_milli < toMilli(price.credits))
        return fail(reply, 402, `insufficient credits: this request costs ${price.credits}, ${fromMilli(key.credits_milli)} remain`);
      const upload = Boolean(req.routeOptions.config.doc?.fileFields);
      // Failed parses are not charged: past CAS_MAX_FAILED_PARSES in a minute, a key's uploads wait.
      if (upload && !principal.sandbox && config.maxFailedParses) {
        const wait = await failedParsesWait(db, principal.keyId, config.maxFailedParses);
        if (wait)
          return fail(
            reply.header('Retry-After', String(wait)),
            429,
            `too many failed parses: at most ${config.maxFailedParses} per minute for this key; retry in ${wait} s`,
          );
      }
      // Uploads in flight are capped per key and per server before their bodies are read.
      if (upload) {
        const refused = uploads.enter(who);
        if (refused)
          return fail(
            reply.header('Retry-After', '2'),
            refused === 'key' ? 429 : 503,
            refused === 'key'
              ? `too many uploads in flight for ${principal.sandbox ? 'the sandbox key' : 'this key'} (at most ${uploads.capOf(who)}); retry shortly`
              : `the server is busy with ${config.maxUploads} uploads; retry shortly`,
          );
        reply.raw.once('close', () => uploads.leave(who));
      }
    });

    f.addHook('preHandler', async (req, reply) => {
      const meta = metaOf(req);
      const principal = req.cas.principal;
      const price = meta && PRICES[meta.feature];
      if (!price || !principal || principal.sandbox || !principal.key) return;
      const reservation = await reserve(db, principal.key, price.credits, instanceId);
      // While the credit was being reserved (a busy store), the request was answered (the body
      // deadline's 408) or its client went away: nothing it pays for can reach it, so the credit
      // goes back at once and the route's handler does not run.
      if (reservation !== null && (req.cas.settled || req.cas.answering || req.raw.socket?.destroyed === true)) {
        await release(db, reservation, true);
        if (!reply.sent) reply.hijack();
        return reply;
      }
      if (reservation === null)
        return fail(
          reply,
          402,
          `insufficient credits: this request costs ${price.credits}, ${(await remaining(db, principal.keyId)) ?? 0} remain`,
        );
      req.cas.reservation = reservation;
      req.cas.charged = price.credits;
      req.cas.always = price.always;
      // The client went away before its answer was written: nothing it paid for reached it.
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished)
          settle(db, req, false).catch((err: Error) => serverLine(req.log, `cas serve: refund of ${req.cas.id} failed: ${err.message}`));
      });
    });

    f.addHook('onSend', async (req, reply, payload) => {
      const s = req.cas;
      const meta = metaOf(req);
      if (!s?.principal || !meta) return payload;
      const entry = {
        keyId: s.principal.keyId,
        requestId: s.id,
        feature: meta.feature,
        path: req.originalUrl.split('?')[0],
        status: reply.statusCode,
        free: !PRICES[meta.feature],
        instanceId,
      };
      const ok = s.success ?? (reply.statusCode >= 200 && reply.statusCode < 300);
      // The credit headers belong to billed features; free account calls skip the extra query.
      const billed = Boolean(PRICES[meta.feature]);
      const balance = (q: Queries): Promise<number | null> =>
        billed && !s.principal!.sandbox ? remaining(q, s.principal!.keyId) : Promise.resolve(null);
      let rem: number | null;
      const reservation = s.reservation;
      const refunding = Boolean(reservation && !s.settled && s.charged && !ok && !s.always);
      // The store out of reach while the answer is being recorded (a PostgreSQL pool busy past its
      // connect timeout): the answer goes out as it is, never as an error of the framework's; a
      // credit still held is given back in the background (retried until the store answers).
      try {
        if (reservation && !s.settled && !refunding)
          // The charge kept, its usage row and the balance for the header are one transaction whose
          // COMMIT is sent as the answer is written (nothing awaited between them): a crash before it
          // leaves the reservation, which is refunded; a COMMIT that fails later refunds it now.
          // (Keeping a charge does not change the balance: it was taken when reserved.)
          rem = await keepCharge(
            db,
            async (q) => {
              await settle(q, req, ok);
              await logUsage(q, { ...entry, status: s.unpaid ? 402 : entry.status, credits: s.charged });
              return balance(q);
            },
            (err) => {
              serverLine(req.log, `cas serve: the charge of ${s.id} was not recorded (${err.message}); refunded`);
              release(db, reservation, true).catch(() => undefined);
            },
          );
        else {
          // A refund is committed before the failed answer leaves: its X-Credits-Remaining and a
          // /v1/credits read the moment the client has the answer both show the credit back.
          await settle(db, req, ok);
          await logUsage(db, { ...entry, credits: s.charged });
          rem = await balance(db);
          if (refunding && s.parseFailed && config.maxFailedParses) await recordFailedParse(db, s.principal.keyId);
        }
      } catch (err) {
        // As when a kept charge's COMMIT fails: a charge that cannot be recorded is given back.
        serverLine(req.log, `cas serve: the answer to ${s.id} was not recorded (${(err as Error).message}); its credit is given back`);
        if (reservation) releaseLater(db, reservation, req.log);
        if (billed) reply.header('X-Credits-Used', '0');
        return payload;
      }
      if (billed) {
        reply.header('X-Credits-Used', String(s.charged));
        reply.header('X-Credits-Remaining', rem === null ? 'unlimited' : String(rem));
      }
      if (s.unpaid) {
        // Nothing it did not pay for leaves: the statement is replaced by the 402 it would have got.
        reply.code(402).header('content-type', 'application/json; charset=utf-8');
        return JSON.stringify({
          status: 'failed',
          msg: `insufficient credits: the credit held for this request was given back while it ran and ${rem ?? 0} remain; send it again when the key has credits`,
        });
      }
      return payload;
    });
  };
  // Not encapsulated (fastify-plugin): the hooks apply to the routes registered beside it.
  return fp(plugin, { name: 'cas-auth-billing', fastify: '5.x' });
}
