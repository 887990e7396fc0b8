/**
 * The webhook worker: one POST per email with statement files, body = the SPEC payload, headers
 * `X-Cas-Delivery-Id` (the same on every attempt), `X-Cas-Event: inbound_email.received` and
 * `X-Cas-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. Non-2xx answers are
 * retried with exponential backoff (1 s doubling, capped at 1 h) for up to 24 h; the queue lives in
 * the database (store/outbox.ts), so a restart loses nothing, and every instance of the database
 * shares it. A delivery is claimed under a lease of the POST's time limit plus 5 s: at least once,
 * never two POSTs of one delivery at once. At most `webhookConcurrency` attempts run at once per
 * instance, so a slow endpoint delays only its own. The signing secret is stored sealed.
 */
import { signWebhook } from '../../shared/webhook-signature.js';
import type { App } from '../context.js';
import { postJson } from '../net/fetch.js';
import { inboundById } from '../store/inbound.js';
import { claimDelivery, completeDelivery, releaseAll, type Delivery } from '../store/outbox.js';
import { webhookSecret } from '../store/secrets.js';

export interface Deliverer {
  /** Look for due deliveries now (an email just queued one). */
  kick: () => void;
  /** Let the attempts in flight finish (each bounded by its time limit) and start no more. */
  stop: () => Promise<void>;
}

export async function startDelivery(app: App, log: (m: string) => void): Promise<Deliverer> {
  const { db, config, instanceId } = app;
  const timeoutMs = config.mail.webhookTimeoutMs;
  const leaseMs = timeoutMs + 5_000;
  if (db.exclusive) await releaseAll(db);
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let scanning = false;
  let again = false;
  const kick = (): void => {
    if (!stopped) setImmediate(() => void deliverDue());
  };
  async function deliverDue(): Promise<void> {
    if (scanning) {
      again = true;
      return;
    }
    scanning = true;
    try {
      do {
        again = false;
        while (!stopped && db.open && inFlight.size < config.mail.webhookConcurrency) {
          const d = await claimDelivery(db, instanceId, leaseMs);
          if (!d) break;
          const p: Promise<void> = deliver(d)
            .catch((err: Error) => log(`webhook ${d.id}: ${err.message}`))
            .finally(() => {
              inFlight.delete(p);
              kick();
            });
          inFlight.add(p);
        }
      } while (again && !stopped);
    } catch (err) {
      if (!stopped) log(`webhooks: ${(err as Error).message}`);
    } finally {
      scanning = false;
    }
  }
  async function deliver(d: Delivery): Promise<void> {
    const row = await inboundById(db, d.inbound_email_id);
    const secret = webhookSecret(db, row?.webhook_secret ?? '');
    const attempt = d.attempts;
    let status: number | null = null;
    let error: string | null = null;
    try {
      // The POST goes to the address that was checked (no second DNS lookup) and follows no redirect.
      const res = await postJson(d.url, {
        headers: {
          'user-agent': 'cas-webhooks/1',
          'x-cas-event': 'inbound_email.received',
          'x-cas-delivery-id': d.id,
          'x-cas-signature': signWebhook(secret, d.payload),
        },
        body: d.payload,
        timeoutMs,
        allowHosts: config.fetch.allowHosts,
      });
      status = res.status;
    } catch (err) {
      error = (err as Error).message;
    }
    // Stopped meanwhile: the attempt stays open; its lease runs out and the delivery is retried.
    if (!db.open) return;
    const now = Date.now();
    const ok = status !== null && status >= 200 && status < 300;
    const delay = Math.min(config.mail.webhookBackoffMs * 2 ** (attempt - 1), 3_600_000);
    const giveUp = now + delay - Date.parse(d.created_at) > config.mail.webhookRetryForMs;
    await completeDelivery(db, d, instanceId, { status, error, at: now, ok, giveUp, retryAt: now + delay });
  }
  const timer = setInterval(() => void deliverDue(), Math.max(50, Math.min(1000, config.mail.webhookBackoffMs / 2)));
  timer.unref();
  kick();
  return {
    kick,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}
