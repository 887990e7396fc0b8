/**
 * Forwarding addresses, as a service: the SMTP receiver (mail/smtp.ts) hands each message to the
 * receiver (inbound/receive.ts), which stores the email with its webhook delivery; the webhook
 * worker (inbound/deliver.ts) sends what the outbox holds (store/outbox.ts).
 */
import type { SMTPServer } from 'smtp-server';
import type { App } from '../context.js';
import { startDelivery } from './deliver.js';
import { accepts, receiver } from './receive.js';
import { startSmtp } from '../mail/smtp.js';

export interface InboundService {
  smtp: SMTPServer | null;
  stopWebhooks: () => Promise<void>;
}

export async function startInbound(
  app: App,
  opts: { smtpPort?: number; smtpHost: string; log: (m: string) => void },
): Promise<InboundService> {
  const webhooks = await startDelivery(app, opts.log);
  if (opts.smtpPort === undefined) return { smtp: null, stopWebhooks: webhooks.stop };
  const smtp = await startSmtp({
    mail: app.config.mail,
    host: opts.smtpHost,
    port: opts.smtpPort,
    accepts: accepts(app),
    receive: receiver(app, opts.log, webhooks.kick),
    log: opts.log,
  });
  return { smtp, stopWebhooks: webhooks.stop };
}
