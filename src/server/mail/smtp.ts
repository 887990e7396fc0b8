/**
 * The SMTP receiver (smtp-server): mail is accepted only for the recipients `accepts` knows (550 for
 * others; 451 when the store cannot be reached) and up to the size cap (552); each message is handed
 * to `receive` whole, and an error it throws is the answer (its responseCode, else 451: the sender
 * retries). STARTTLS when a key and certificate are configured (CAS_SMTP_TLS_KEY / CAS_SMTP_TLS_CERT);
 * CAS_SMTP_REQUIRE_TLS=1 then refuses MAIL FROM on a plain connection with 530.
 */
import { readFileSync } from 'node:fs';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { ServerConfig } from '../context.js';

export async function startSmtp(opts: {
  mail: ServerConfig['mail'];
  host: string;
  port: number;
  accepts: (address: string) => Promise<boolean>;
  receive: (raw: Buffer, session: SMTPServerSession) => Promise<void>;
  log: (m: string) => void;
}): Promise<SMTPServer> {
  const { mail, log } = opts;
  const tls = loadTls(mail);
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(tls ?? {}),
    size: mail.maxMessageBytes,
    banner: 'cas inbound',
    logger: false,
    onMailFrom(_address, session, cb) {
      if (tls && mail.requireTls && !session.secure)
        return cb(Object.assign(new Error('must issue a STARTTLS command first'), { responseCode: 530 }));
      cb();
    },
    onRcptTo(address, _session, cb) {
      opts.accepts(address.address).then(
        (ok) => cb(ok ? undefined : Object.assign(new Error(`no active forwarding address ${address.address}`), { responseCode: 550 })),
        () => cb(Object.assign(new Error('the store cannot be reached; try again later'), { responseCode: 451 })),
      );
    },
    onData(stream: SMTPServerDataStream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (stream.sizeExceeded)
          return cb(Object.assign(new Error(`message larger than ${mail.maxMessageBytes} bytes`), { responseCode: 552 }));
        opts.receive(Buffer.concat(chunks), session).then(
          () => cb(),
          (err: Error & { responseCode?: number }) => {
            // The sender retries a 451; the operator learns why (one line, no stack trace).
            if (!err.responseCode) log(`smtp: a message could not be stored (answered 451): ${err.message}`);
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
    smtp.listen(opts.port, opts.host, () => {
      smtp.off('error', onBindError);
      smtp.on('error', (err) => log(`smtp: ${err.message}`));
      const addr = smtp.server.address();
      log(`cas serve: SMTP on ${opts.host}:${typeof addr === 'object' && addr ? addr.port : opts.port}`);
      resolve(smtp);
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
