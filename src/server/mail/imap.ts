/** The IMAP connector (imapflow): a mailbox searched for statement senders' PDFs. */
import { ImapFlow } from 'imapflow';
import { sourceOf } from './senders.js';
import type { StatementSource } from '../../schema/index.js';
import { ReconnectError, senderTerms, type FoundFile, type MailConnector, type SearchQuery } from './connector.js';

export interface ImapCredentials {
  host: string;
  port: number;
  tls: boolean;
  user: string;
  password: string;
}

export async function imapCheck(c: ImapCredentials): Promise<void> {
  const client = new ImapFlow({
    host: c.host,
    port: c.port,
    secure: c.tls,
    auth: { user: c.user, pass: c.password },
    logger: false,
    socketTimeout: 20_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.logout();
  } catch (err) {
    throw new ReconnectError(
      `the IMAP server refused the login (${(err as { responseText?: string }).responseText ?? (err as Error).message})`,
    );
  }
}

/** IMAP: the server does the search (sender domains and dates); only PDF parts are downloaded. */
export class ImapConnector implements MailConnector {
  constructor(private readonly c: ImapCredentials) {}
  async search(q: SearchQuery): Promise<FoundFile[]> {
    const client = new ImapFlow({
      host: this.c.host,
      port: this.c.port,
      secure: this.c.tls,
      auth: { user: this.c.user, pass: this.c.password },
      logger: false,
      socketTimeout: 60_000,
    });
    // Connection errors surface through connect()/commands; an unheard 'error' event would end the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (err) {
      throw new ReconnectError(
        `the mailbox refused the stored login (${(err as { responseText?: string }).responseText ?? (err as Error).message}); reconnect it`,
      );
    }
    const out: FoundFile[] = [];
    try {
      const lock = await client.getMailboxLock('INBOX');
      try {
        const terms = senderTerms(q.sources);
        const before = new Date(Date.parse(`${q.end}T00:00:00Z`) + 86_400_000);
        const criteria = {
          since: new Date(`${q.start}T00:00:00Z`),
          before,
          ...(terms.length === 1 ? { from: terms[0] } : { or: terms.map((t) => ({ from: t })) }),
        };
        const uids = (await client.search(criteria, { uid: true })) || [];
        if (!uids.length) return out;
        // Collect first: imapflow cannot run another command while a FETCH is being iterated.
        const wanted: {
          uid: number;
          messageId: string;
          date: string;
          sender: string;
          source: StatementSource;
          parts: { part: string; filename: string }[];
        }[] = [];
        for await (const msg of client.fetch(uids, { uid: true, envelope: true, bodyStructure: true, internalDate: true }, { uid: true })) {
          const sender = msg.envelope?.from?.[0]?.address ?? '';
          const source = sourceOf(sender);
          if (!source || !q.sources.includes(source)) continue;
          const parts: { part: string; filename: string }[] = [];
          const walk = (n: any): void => {
            if (!n) return;
            const filename = n.dispositionParameters?.filename ?? n.parameters?.name ?? '';
            if (n.type === 'application/pdf' || /\.pdf$/i.test(filename))
              parts.push({ part: n.part ?? '1', filename: filename || 'statement.pdf' });
            (n.childNodes ?? []).forEach(walk);
          };
          walk(msg.bodyStructure);
          const date = (msg.internalDate instanceof Date ? msg.internalDate : new Date(msg.internalDate ?? Date.now()))
            .toISOString()
            .slice(0, 10);
          if (parts.length)
            wanted.push({
              uid: msg.uid,
              messageId: msg.envelope?.messageId ?? String(msg.uid),
              date,
              sender: sender.toLowerCase(),
              source,
              parts,
            });
        }
        for (const w of wanted) {
          for (const p of w.parts) {
            const dl = await client.download(String(w.uid), p.part, { uid: true });
            const chunks: Buffer[] = [];
            for await (const c of dl.content ?? []) chunks.push(c as Buffer);
            out.push({
              messageId: w.messageId,
              date: w.date,
              sender: w.sender,
              source: w.source,
              filename: p.filename,
              content: Buffer.concat(chunks),
            });
          }
        }
      } finally {
        lock.release();
      }
    } finally {
      await client.logout().catch(() => undefined);
    }
    return out;
  }
  async revoke(): Promise<void> {
    /* app passwords are revoked by the user at the provider; we delete our copy */
  }
}
