/**
 * Webhook signatures (`X-Cas-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`): the
 * service signs with them and `cas inbound verify-signature` checks them. Neutral: node:crypto only,
 * so the CLI never loads server code to check a signature.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function signWebhook(secret: string, body: string, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/** Check a webhook signature header against a body (and an optional tolerance in seconds). */
export function verifyWebhook(secret: string, header: string, body: string, toleranceSeconds = 0): { ok: boolean; reason?: string } {
  const parts = Object.fromEntries(header.split(',').map((p) => p.trim().split('=') as [string, string]));
  if (!parts.t || !parts.v1 || !/^\d+$/.test(parts.t) || !/^[0-9a-f]{64}$/.test(parts.v1))
    return { ok: false, reason: 'malformed signature header' };
  const want = Buffer.from(createHmac('sha256', secret).update(`${parts.t}.${body}`).digest('hex'), 'hex');
  if (!timingSafeEqual(want, Buffer.from(parts.v1, 'hex'))) return { ok: false, reason: 'signature does not match' };
  if (toleranceSeconds && Math.abs(Date.now() / 1000 - Number(parts.t)) > toleranceSeconds)
    return { ok: false, reason: 'timestamp outside the tolerance' };
  return { ok: true };
}
