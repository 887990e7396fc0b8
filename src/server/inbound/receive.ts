/**
 * Receiving a forwarded email (after the SMTP receiver accepted it, mail/smtp.ts): the original
 * sender gives the statement source, `allowed_sources` is enforced (550), the sender's authenticity
 * (SPF, DKIM, DMARC via mailauth) is recorded with each file (flagged, not refused: forwarding
 * breaks the original sender's SPF and often its DKIM), each PDF attachment's content is checked
 * (`confirmed` / `mismatch` / `not_statement`, or `encrypted`: unchecked without its password), and
 * the email is stored whole with its webhook delivery (store/inbound.ts, store/outbox.ts).
 */
import { randomBytes } from 'node:crypto';
import type { SMTPServerSession } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { toReal } from '../../schema/dialect.js';
import type { StatementSource } from '../../schema/index.js';
import type { App } from '../context.js';
import { baseUrl, type Staged } from '../store/files.js';
import { originalSender, sourceOf } from '../mail/senders.js';
import { activeInbound, recordEmail, type NewInboundFile } from '../store/inbound.js';
import { enqueueDelivery } from '../store/outbox.js';
import { fileView } from './service.js';

const ISSUER_OF: Record<StatementSource, string[]> = {
  depository_a: ['depository_a'],
  depository_b: ['depository_b'],
  registrar_a: ['registrar_a', 'registrar_b'],
  registrar_b: ['registrar_a', 'registrar_b'],
};

/** PDF attachments of the mail, including those inside attached messages. */
async function pdfAttachments(mail: ParsedMail, depth = 0): Promise<{ filename: string; content: Buffer }[]> {
  const out: { filename: string; content: Buffer }[] = [];
  for (const a of mail.attachments ?? []) {
    if (a.contentType === 'message/rfc822' && depth < 3) {
      out.push(...(await pdfAttachments(await simpleParser(a.content), depth + 1)));
    } else if (a.contentType === 'application/pdf' || /\.pdf$/i.test(a.filename ?? '')) {
      if (a.content.subarray(0, 1024).includes(Buffer.from('%PDF-')))
        out.push({ filename: a.filename ?? 'statement.pdf', content: a.content });
    }
  }
  return out;
}

/** SPF, DKIM and DMARC results of a message as received (an error is recorded, not thrown). */
async function authentication(app: App, raw: Buffer, session: SMTPServerSession): Promise<Record<string, unknown>> {
  try {
    const { authenticate } = await import('mailauth');
    const resolver = app.config.mail.offlineDns
      ? async (name: string) => {
          throw Object.assign(new Error(`offline DNS: ${name}`), { code: 'ENOTFOUND' });
        }
      : undefined;
    const r = await authenticate(raw, {
      ip: session.remoteAddress,
      helo: session.hostNameAppearsAs,
      sender: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
      mta: 'cas',
      resolver,
    });
    return {
      tls: Boolean(session.secure),
      spf: (r.spf as { status?: { result?: string } })?.status?.result ?? null,
      dkim: r.dkim?.results?.map((x: { status?: { result?: string } }) => x.status?.result) ?? [],
      dmarc: (r.dmarc as { status?: { result?: string } })?.status?.result ?? null,
    };
  } catch (err) {
    return { tls: Boolean(session.secure), error: (err as Error).message };
  }
}

/** Whether `address` is an active forwarding address (the SMTP receiver's RCPT TO). */
export const accepts =
  (app: App) =>
  async (address: string): Promise<boolean> =>
    Boolean(await activeInbound(app.db, address));

/** The receiver of one message: `delivered` is told when an email queued a webhook delivery. */
export function receiver(
  app: App,
  log: (m: string) => void,
  delivered: () => void,
): (raw: Buffer, session: SMTPServerSession) => Promise<void> {
  const { db, config, instanceId } = app;
  return async (raw, session) => {
    const mail = await simpleParser(raw);
    const rcpts = session.envelope.rcptTo.map((r) => r.address);
    const sender = originalSender(mail);
    const source = sourceOf(sender);
    const forwardedBy = mail.from?.value?.[0]?.address ?? (session.envelope.mailFrom ? session.envelope.mailFrom.address : '') ?? '';
    const auth = await authentication(app, raw, session);
    const pdfs = await pdfAttachments(mail);
    for (const to of rcpts) {
      const row = await activeInbound(db, to);
      if (!row) continue;
      if (!source) {
        log(`inbound ${row.id}: mail from ${sender ?? 'unknown'} is not from a known statement sender; ignored`);
        continue;
      }
      const allowed = JSON.parse(row.allowed_sources) as string[];
      if (allowed.length && !allowed.includes(source))
        throw Object.assign(new Error(`statements from ${source} are not accepted at ${row.email}`), { responseCode: 550 });
      if (!pdfs.length) {
        log(`inbound ${row.id}: 0 statement file(s) from ${source}`);
        continue;
      }
      // An email is stored whole or not at all: its files are written under temporary names, then
      // one transaction records the email (its Message-ID: a retry is recognised), its files and its
      // webhook delivery, renaming the files into place before it commits (files.ts: a crash between
      // the two leaves a journal, and the next start removes what the store never recorded).
      const date = (mail.date ?? new Date()).toISOString().slice(0, 10);
      const messageId = mail.messageId ?? `<${randomBytes(8).toString('hex')}@cas>`;
      const staged: Staged[] = [];
      try {
        const prepared: NewInboundFile[] = [];
        for (const p of pdfs) {
          const st = await app.files.stage(p.content);
          staged.push(st);
          let check = 'encrypted';
          const out = await app.pool.run({ bytes: new Uint8Array(p.content) });
          if (out.ok) check = ISSUER_OF[source].includes(out.detection.issuer) ? 'confirmed' : 'mismatch';
          else if (out.code !== 'PasswordRequired') check = 'not_statement';
          prepared.push({
            filename: `${source}_${date.replace(/-/g, '')}_${randomBytes(6).toString('hex')}.pdf`,
            originalFilename: p.filename,
            messageDate: date,
            casType: source,
            senderEmail: sender!.toLowerCase(),
            forwardedBy: forwardedBy.toLowerCase(),
            size: p.content.length,
            sha256: st.sha,
            contentCheck: check,
            authentication: JSON.stringify(auth),
          });
        }
        const receivedAt = new Date().toISOString();
        let journal = null as string | null;
        const files = await recordEmail(db, { inboundId: row.id, messageId, receivedAt }, prepared, async (q, out) => {
          if (row.callback_url) {
            const payload = {
              inbound_email_id: row.id,
              reference: row.reference,
              metadata: JSON.parse(row.metadata),
              forwarded_by: forwardedBy.toLowerCase(),
              files: out.map((f) => fileView(app, baseUrl(app), f, config.mail.linkTtlSeconds ?? 172800, config.names)),
              count: out.length,
            };
            await enqueueDelivery(q, {
              inboundId: row.id,
              url: row.callback_url,
              payload: JSON.stringify(config.names === 'real' ? toReal('webhook', payload) : payload),
              at: receivedAt,
            });
          }
          journal = await app.files.place(staged, instanceId);
        });
        await app.files.settled(journal);
        if (!files) {
          // Answered 250 all the same, so the sending server stops retrying.
          log(`inbound ${row.id}: message ${messageId} was received before; not stored again`);
          continue;
        }
        if (row.callback_url) delivered();
        log(`inbound ${row.id}: ${files.length} statement file(s) from ${source}`);
      } finally {
        await app.files.discard(staged);
      }
    }
  };
}
