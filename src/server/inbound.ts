/**
 * Forwarding addresses: a real SMTP receiver (smtp-server + mailparser), statement detection
 * from the original sender, content checks, sender authentication, storage, and webhooks.
 *
 * - Mail is accepted only for active addresses (550 for unknown, paused or deleted ones) and
 *   up to the size cap.
 * - The original sender is found in an attached message/rfc822, else in the forwarded header
 *   block of the body ("From: ..."), else it is the envelope/From of the mail itself. Its
 *   address, then its domain, gives the cas_type (REAL-WORLD.md section 5).
 * - `allowed_sources` (empty = all) is enforced: other sources are refused with 550.
 * - Each PDF attachment is stored once (content-addressed). Its content is checked: an
 *   unencrypted PDF is detected and must agree with the sender (`confirmed` / `mismatch` /
 *   `not_statement`); an encrypted one (the usual case) is `encrypted` (unchecked without its
 *   password).
 * - Sender authenticity (SPF, DKIM, DMARC via mailauth) is checked and recorded with each file;
 *   failures are flagged, not refused, because forwarding breaks the original sender's SPF and
 *   often its DKIM.
 * - Webhooks: one POST per email with statement files, body = the SPEC payload, headers
 *   `X-Cas-Delivery-Id` (the same on every attempt), `X-Cas-Event: inbound_email.received` and
 *   `X-Cas-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. Non-2xx answers are
 *   retried with exponential backoff (1 s doubling, capped at 1 h) for up to 24 h; the queue
 *   lives in the database, so a restart loses nothing; every attempt is logged (before its POST,
 *   completed after it). Endpoints are served concurrently, each one's deliveries in turn.
 *   The signing secret is stored sealed (src/server/secrets.ts).
 */
import { randomBytes } from 'node:crypto';
import { signWebhook } from '../shared/webhook-signature.js';
import { readFileSync } from 'node:fs';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { realFileName, toReal } from '../schema/dialect.js';
import type { App } from './context.js';
import { postJson } from './fetch-url.js';
import type { InboundRow as StoredInbound } from './store/inbound.js';
import { baseUrl, type Staged } from './files.js';
import { webhookSecret } from './secrets.js';
import type { StatementSource } from '../schema/index.js';

export const SENDERS: Record<StatementSource, { addresses: string[]; domains: string[] }> = {
  depository_a: { addresses: ['ecas@cdslstatement.com'], domains: ['cdslstatement.com'] },
  depository_b: { addresses: ['nsdl-cas@nsdl.co.in', 'cas@nsdl.co.in', 'ecas@nsdl.co.in'], domains: ['nsdl.co.in'] },
  registrar_a: { addresses: ['donotreply@camsonline.com'], domains: ['camsonline.com'] },
  registrar_b: { addresses: ['samfs@kfintech.com', 'mfcas@kfintech.com', 'statements@kfintech.com'], domains: ['kfintech.com'] },
};

/** The statement source of a sender: the exact address first, then the domain (case-insensitive). */
export function sourceOf(address: string | null | undefined): StatementSource | null {
  if (!address) return null;
  const a = address.trim().toLowerCase();
  const domain = a.split('@')[1] ?? '';
  for (const [src, s] of Object.entries(SENDERS) as [StatementSource, (typeof SENDERS)[StatementSource]][])
    if (s.addresses.includes(a)) return src;
  for (const [src, s] of Object.entries(SENDERS) as [StatementSource, (typeof SENDERS)[StatementSource]][])
    if (s.domains.some((d) => domain === d || domain.endsWith(`.${d}`))) return src;
  return null;
}

const ISSUER_OF: Record<StatementSource, string[]> = {
  depository_a: ['depository_a'],
  depository_b: ['depository_b'],
  registrar_a: ['registrar_a', 'registrar_b'],
  registrar_b: ['registrar_a', 'registrar_b'],
};

/**
 * The original sender of a forwarded email: an attached message's From (mail parsers often
 * inline attached messages into the text, headers included), else a From: line of a
 * forwarded header block in the body (a known statement sender first), else the mail's From.
 */
export function originalSender(mail: ParsedMail): string | null {
  for (const att of mail.attachments ?? []) {
    if (att.contentType === 'message/rfc822') {
      const m = /^From:\s*(?:.*<)?([^<>\s]+@[^<>\s]+?)>?\s*$/im.exec(att.content.toString('utf8').split(/\r?\n\r?\n/)[0] ?? '');
      if (m) return m[1];
    }
  }
  const text = mail.text ?? '';
  const froms = [...text.matchAll(/^[\s>]*From:\s*(?:.*?<)?([^<>\s"]+@[^<>\s"]+?)>?\s*$/gim)].map((m) => m[1]);
  const known = froms.find((a) => sourceOf(a));
  if (known) return known;
  if (froms.length) return froms[0];
  return mail.from?.value?.[0]?.address ?? null;
}

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

/** A forwarding address as stored, with its (sealed) webhook secret. */
type InboundRow = StoredInbound & { webhook_secret: string };

export interface InboundService {
  smtp: SMTPServer | null;
  stopWebhooks: () => Promise<void>;
}

/** An Email statement file, plus the extensions `received_at`, `content_check` and `authentication` (SPF/DKIM/DMARC). */
export function fileView(
  app: App,
  base: string,
  f: {
    id: number;
    message_id: string;
    filename: string;
    original_filename: string;
    message_date: string;
    cas_type: string;
    sender_email: string;
    size: number;
    sha256: string;
    received_at: string;
    content_check: string;
    authentication: string;
  },
  ttl: number,
  names: 'spec' | 'real' = 'spec',
) {
  // In real names the file is named `cdsl_...` and its link is made with that name.
  const filename = names === 'real' ? realFileName(f.filename) : f.filename;
  return {
    message_id: f.message_id,
    filename,
    original_filename: f.original_filename,
    message_date: f.message_date,
    cas_type: f.cas_type,
    sender_email: f.sender_email,
    size: f.size,
    url: app.files.link(base, f.sha256, filename, ttl),
    expires_in: ttl,
    received_at: f.received_at,
    content_check: f.content_check,
    authentication: JSON.parse(f.authentication) as unknown,
  };
}

export async function startInbound(
  app: App,
  opts: { smtpPort?: number; smtpHost: string; log: (m: string) => void },
): Promise<InboundService> {
  const { db, config, instanceId } = app;
  const findActive = (address: string): Promise<InboundRow | undefined> =>
    db.get<InboundRow>("SELECT * FROM inbound_emails WHERE lower(email) = lower(?) AND status = 'active'", address);

  async function handle(raw: Buffer, session: SMTPServerSession): Promise<void> {
    const mail = await simpleParser(raw);
    const rcpts = session.envelope.rcptTo.map((r) => r.address);
    const sender = originalSender(mail);
    const source = sourceOf(sender);
    const forwardedBy = mail.from?.value?.[0]?.address ?? (session.envelope.mailFrom ? session.envelope.mailFrom.address : '') ?? '';
    let auth: Record<string, unknown>;
    try {
      const { authenticate } = await import('mailauth');
      const resolver = config.mail.offlineDns
        ? async (name: string) => {
            throw Object.assign(new Error(`offline DNS: ${name}`), { code: 'ENOTFOUND' });
          }
        : undefined;
      const r = await authenticate(raw, {
        ip: session.remoteAddress,
        helo: session.hostNameAppearsAs,
        sender: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
        mta: 'cas',
        resolver: resolver as never,
      });
      auth = {
        tls: Boolean(session.secure),
        spf: (r.spf as { status?: { result?: string } })?.status?.result ?? null,
        dkim: r.dkim?.results?.map((x: { status?: { result?: string } }) => x.status?.result) ?? [],
        dmarc: (r.dmarc as { status?: { result?: string } })?.status?.result ?? null,
      };
    } catch (err) {
      auth = { tls: Boolean(session.secure), error: (err as Error).message };
    }
    const pdfs = await pdfAttachments(mail);
    for (const to of rcpts) {
      const row = await findActive(to);
      if (!row) continue;
      if (!source) {
        opts.log(`inbound ${row.id}: mail from ${sender ?? 'unknown'} is not from a known statement sender; ignored`);
        continue;
      }
      const allowed = JSON.parse(row.allowed_sources) as string[];
      if (allowed.length && !allowed.includes(source))
        throw Object.assign(new Error(`statements from ${source} are not accepted at ${row.email}`), { responseCode: 550 });
      if (!pdfs.length) {
        opts.log(`inbound ${row.id}: 0 statement file(s) from ${source}`);
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
        const prepared: { p: { filename: string; content: Buffer }; sha: string; check: string; filename: string }[] = [];
        for (const p of pdfs) {
          const st = await app.files.stage(p.content);
          staged.push(st);
          let check = 'encrypted';
          const out = await app.pool.run({ bytes: new Uint8Array(p.content) });
          if (out.ok) check = ISSUER_OF[source].includes(out.detection.issuer) ? 'confirmed' : 'mismatch';
          else if (out.code !== 'PasswordRequired') check = 'not_statement';
          prepared.push({ p, sha: st.sha, check, filename: `${source}_${date.replace(/-/g, '')}_${randomBytes(6).toString('hex')}.pdf` });
        }
        const receivedAt = new Date().toISOString();
        let journal = null as string | null;
        const files = await db.tx(async (q) => {
          const fresh = await q.run(
            'INSERT INTO inbound_messages (inbound_email_id, message_id, received_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
            row.id,
            messageId,
            receivedAt,
          );
          if (!fresh) return null;
          const out: Record<string, unknown>[] = [];
          for (const f of prepared)
            out.push(
              (await q.get(
                'INSERT INTO inbound_files (inbound_email_id, message_id, filename, original_filename, message_date, cas_type, sender_email, forwarded_by, size, sha256, content_check, authentication, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *',
                row.id,
                messageId,
                f.filename,
                f.p.filename,
                date,
                source,
                sender!.toLowerCase(),
                forwardedBy.toLowerCase(),
                f.p.content.length,
                f.sha,
                f.check,
                JSON.stringify(auth),
                receivedAt,
              ))!,
            );
          if (row.callback_url) {
            const payload = {
              inbound_email_id: row.id,
              reference: row.reference,
              metadata: JSON.parse(row.metadata),
              forwarded_by: forwardedBy.toLowerCase(),
              files: out.map((f) => fileView(app, baseUrl(app), f as never, config.mail.linkTtlSeconds ?? 172800, config.names)),
              count: out.length,
            };
            await q.run(
              'INSERT INTO webhook_deliveries (id, inbound_email_id, url, payload, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)',
              `dlv_${randomBytes(12).toString('hex')}`,
              row.id,
              row.callback_url,
              JSON.stringify(config.names === 'real' ? toReal('webhook', payload) : payload),
              'pending',
              receivedAt,
              receivedAt,
            );
          }
          journal = await app.files.place(staged, instanceId);
          return out;
        });
        await app.files.settled(journal);
        if (!files) {
          // Answered 250 all the same, so the sending server stops retrying.
          opts.log(`inbound ${row.id}: message ${messageId} was received before; not stored again`);
          continue;
        }
        if (row.callback_url) kick();
        opts.log(`inbound ${row.id}: ${files.length} statement file(s) from ${source}`);
      } finally {
        await app.files.discard(staged);
      }
    }
  }

  // Webhook deliveries, from the queue in the store, shared by every instance of the database. A
  // delivery is claimed in one transaction (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so instances never
  // claim the same one) under a lease of the POST's time limit plus 5 s, and its attempt recorded
  // before the POST and completed after it. A lease that runs out (the instance died: SIGKILL, a lost
  // machine) makes the delivery claimable again by any instance, its open attempt marked interrupted:
  // at least once, never two POSTs of one delivery at once. An endpoint (callback URL) with a delivery
  // in flight gets no other until it ends (its earliest due delivery first), and at most
  // `webhookConcurrency` attempts run at once per instance, so a slow endpoint delays only its own.
  const timeoutMs = config.mail.webhookTimeoutMs;
  const leaseMs = timeoutMs + 5_000;
  const INTERRUPTED = 'interrupted: the server sending it stopped during this attempt';
  if (db.exclusive) {
    // SQLite, one server per database file: whatever a previous run held is free again now.
    const now0 = new Date().toISOString();
    await db.run('UPDATE webhook_attempts SET error = ?, completed_at = ? WHERE completed_at IS NULL', INTERRUPTED, now0);
    await db.run(
      "UPDATE webhook_deliveries SET status = 'pending', claimed_by = NULL, lease_until = NULL, next_attempt_at = ? WHERE status = 'sending'",
      now0,
    );
  }
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let scanning = false;
  let again = false;
  const kick = (): void => {
    if (!stopped) setImmediate(() => void deliverDue());
  };
  type Delivery = {
    id: string;
    inbound_email_id: string;
    url: string;
    payload: string;
    status: string;
    attempts: number;
    created_at: string;
    attemptId: number;
  };
  const skipLocked = db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
  /** Claim the earliest due delivery of an endpoint with nothing in flight (any instance's), or undefined. */
  const claim = (): Promise<Delivery | undefined> =>
    db.tx(async (q) => {
      const now = new Date().toISOString();
      const d = await q.get<Delivery>(
        `SELECT * FROM webhook_deliveries d
          WHERE ((d.status = 'pending' AND d.next_attempt_at <= ?) OR (d.status = 'sending' AND d.lease_until < ?))
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries s WHERE s.url = d.url AND s.id != d.id AND s.status = 'sending' AND s.lease_until >= ?)
          ORDER BY d.next_attempt_at LIMIT 1${skipLocked}`,
        now,
        now,
        now,
      );
      if (!d) return undefined;
      if (d.status === 'sending')
        await q.run(
          'UPDATE webhook_attempts SET error = ?, completed_at = ? WHERE delivery_id = ? AND completed_at IS NULL',
          INTERRUPTED,
          now,
          d.id,
        );
      const attempt = d.attempts + 1;
      await q.run(
        "UPDATE webhook_deliveries SET status = 'sending', attempts = ?, claimed_by = ?, lease_until = ? WHERE id = ?",
        attempt,
        instanceId,
        new Date(Date.now() + leaseMs).toISOString(),
        d.id,
      );
      const a = await q.get<{ id: number }>(
        'INSERT INTO webhook_attempts (delivery_id, attempt, at) VALUES (?, ?, ?) RETURNING id',
        d.id,
        attempt,
        now,
      );
      return { ...d, attempts: attempt, attemptId: a!.id };
    });
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
          const d = await claim();
          if (!d) break;
          const p: Promise<void> = deliver(d)
            .catch((err: Error) => opts.log(`webhook ${d.id}: ${err.message}`))
            .finally(() => {
              inFlight.delete(p);
              kick();
            });
          inFlight.add(p);
        }
      } while (again && !stopped);
    } catch (err) {
      if (!stopped) opts.log(`webhooks: ${(err as Error).message}`);
    } finally {
      scanning = false;
    }
  }
  async function deliver(d: Delivery): Promise<void> {
    const row = await db.get<InboundRow>('SELECT * FROM inbound_emails WHERE id = ?', d.inbound_email_id);
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
    await db.tx(async (q) => {
      await q.run(
        'UPDATE webhook_attempts SET status_code = ?, error = ?, completed_at = ? WHERE id = ?',
        status,
        error,
        new Date(now).toISOString(),
        d.attemptId,
      );
      // Only while the lease is this attempt's (a lease that ran out may have passed to another instance).
      if (ok)
        await q.run(
          "UPDATE webhook_deliveries SET status = 'delivered', last_error = NULL, claimed_by = NULL, lease_until = NULL WHERE id = ? AND claimed_by = ? AND attempts = ?",
          d.id,
          instanceId,
          attempt,
        );
      else
        await q.run(
          'UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, last_error = ?, claimed_by = NULL, lease_until = NULL WHERE id = ? AND claimed_by = ? AND attempts = ?',
          giveUp ? 'failed' : 'pending',
          new Date(now + delay).toISOString(),
          error ?? `HTTP ${status}`,
          d.id,
          instanceId,
          attempt,
        );
    });
  }
  const timer = setInterval(() => void deliverDue(), Math.max(50, Math.min(1000, config.mail.webhookBackoffMs / 2)));
  timer.unref();
  kick();

  // A stop lets the attempts in flight finish (each bounded by its time limit) and starts no more.
  const stopWebhooks = async (): Promise<void> => {
    stopped = true;
    clearInterval(timer);
    await Promise.allSettled([...inFlight]);
  };
  if (opts.smtpPort === undefined) return { smtp: null, stopWebhooks };

  // STARTTLS when a key and certificate are configured (CAS_SMTP_TLS_KEY / CAS_SMTP_TLS_CERT);
  // CAS_SMTP_REQUIRE_TLS=1 then refuses MAIL FROM on a plain connection with 530.
  const tls = loadTls(config.mail);
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(tls ?? {}),
    size: config.mail.maxMessageBytes,
    banner: 'cas inbound',
    logger: false,
    onMailFrom(_address, session, cb) {
      if (tls && config.mail.requireTls && !session.secure)
        return cb(Object.assign(new Error('must issue a STARTTLS command first'), { responseCode: 530 }));
      cb();
    },
    onRcptTo(address, _session, cb) {
      findActive(address.address).then(
        (row) => cb(row ? undefined : Object.assign(new Error(`no active forwarding address ${address.address}`), { responseCode: 550 })),
        () => cb(Object.assign(new Error('the store cannot be reached; try again later'), { responseCode: 451 })),
      );
    },
    onData(stream: SMTPServerDataStream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (stream.sizeExceeded)
          return cb(Object.assign(new Error(`message larger than ${config.mail.maxMessageBytes} bytes`), { responseCode: 552 }));
        handle(Buffer.concat(chunks), session).then(
          () => cb(),
          (err: Error & { responseCode?: number }) => {
            // The sender retries a 451; the operator learns why (one line, no stack trace).
            if (!err.responseCode) opts.log(`smtp: a message could not be stored (answered 451): ${err.message}`);
            cb(
              Object.assign(new Error(err.responseCode ? err.message : 'message could not be processed'), {
                responseCode: err.responseCode ?? 451,
              }),
            );
          },
        );
      });
    },
  });
  return new Promise((resolve, reject) => {
    // A failure to bind is the caller's one error line; errors after that are logged.
    const onBindError = (err: Error): void => reject(err);
    smtp.once('error', onBindError);
    smtp.listen(opts.smtpPort, opts.smtpHost, () => {
      smtp.off('error', onBindError);
      smtp.on('error', (err) => opts.log(`smtp: ${err.message}`));
      const addr = smtp.server.address();
      opts.log(`cas serve: SMTP on ${opts.smtpHost}:${typeof addr === 'object' && addr ? addr.port : opts.smtpPort}`);
      resolve({ smtp, stopWebhooks });
    });
  });
}

/** What is wrong with the receiver's TLS settings, or null; `cas serve` checks it before it binds anything. */
export function mailTlsProblem(mail: { tlsKeyFile?: string; tlsCertFile?: string; requireTls: boolean }): string | null {
  if (Boolean(mail.tlsKeyFile) !== Boolean(mail.tlsCertFile)) return 'SMTP TLS needs both CAS_SMTP_TLS_KEY and CAS_SMTP_TLS_CERT';
  if (mail.requireTls && !mail.tlsKeyFile) return 'CAS_SMTP_REQUIRE_TLS=1 needs CAS_SMTP_TLS_KEY and CAS_SMTP_TLS_CERT';
  return null;
}

/** The SMTP receiver's TLS material, read once at start; a missing or unreadable file is a start-up error. */
function loadTls(mail: { tlsKeyFile?: string; tlsCertFile?: string; requireTls: boolean }): { key: Buffer; cert: Buffer } | null {
  const problem = mailTlsProblem(mail);
  if (problem) throw new Error(problem);
  if (!mail.tlsKeyFile || !mail.tlsCertFile) return null;
  try {
    return { key: readFileSync(mail.tlsKeyFile), cert: readFileSync(mail.tlsCertFile) };
  } catch (err) {
    throw new Error(`cannot read the SMTP TLS key or certificate: ${(err as Error).message}`, { cause: err });
  }
}
