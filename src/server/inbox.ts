/**
 * Connected mailboxes: the encrypted inbox token, and the connectors (IMAP, Gmail REST).
 *
 * Inbox token: `itk_<base64url(kid | iv(12) | tag(16) | ciphertext)>`, AES-256-GCM under the
 * server's secret key chosen by the key id (kid, src/server/secrets.ts); the plaintext holds the
 * connection id, provider and mailbox address. Credentials stay in the database (encrypted with
 * the same key), never in the token. A tampered or foreign token, a revoked connection and a
 * provider that refuses the stored grant all answer the mailbox error body with HTTP 401.
 */
import { ImapFlow } from 'imapflow';
import { sourceOf, SENDERS } from './mail/senders.js';
import type { StatementSource } from '../schema/index.js';

export class ReconnectError extends Error {}

export { seal, unseal as open } from './store/secrets.js';

export interface FoundFile {
  messageId: string;
  date: string;
  sender: string;
  source: StatementSource;
  filename: string;
  content: Buffer;
}
export interface SearchQuery {
  start: string;
  end: string;
  sources: StatementSource[];
}

export interface MailConnector {
  search(q: SearchQuery): Promise<FoundFile[]>;
  revoke(): Promise<void>;
}

const senderTerms = (sources: StatementSource[]): string[] => [...new Set(sources.flatMap((s) => SENDERS[s].domains))];

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
        const uids = (await client.search(criteria as never, { uid: true })) || [];
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

export interface GmailConfig {
  apiUrl: string;
  tokenUrl: string;
  revokeUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
}

/** The stored Gmail grant: an access token (about an hour), its expiry, and the long-lived refresh token. */
export interface GmailCredentials {
  access_token: string;
  refresh_token: string | null;
  expires_at?: number | null;
}

const REFUSED = 'Gmail refused the stored grant (revoked or expired); reconnect the mailbox';

/**
 * One call to Google's token endpoint (the code exchange and the refresh both use it). `creds`
 * is the grant to store when it answered with an access token; a refresh answer carries no new
 * refresh token, so the one we had (`keepRefresh`) is kept.
 */
export async function gmailToken(
  cfg: GmailConfig,
  params: Record<string, string>,
  keepRefresh: string | null = null,
): Promise<{ status: number; error?: string; creds?: GmailCredentials }> {
  const res = await fetch(cfg.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...params, client_id: cfg.clientId, client_secret: cfg.clientSecret }),
    signal: AbortSignal.timeout(15_000),
  });
  const tok = (await res.json().catch(() => ({}))) as {
    access_token?: string;
    refresh_token?: string;
    expires_in?: number;
    error?: string;
  };
  if (!res.ok || !tok.access_token) return { status: res.status, error: tok.error };
  return {
    status: res.status,
    creds: {
      access_token: tok.access_token,
      refresh_token: tok.refresh_token ?? keepRefresh,
      expires_at: tok.expires_in ? Date.now() + tok.expires_in * 1000 : null,
    },
  };
}

/**
 * Gmail REST API: messages.list with a q query (paginated), messages.get, attachments.get.
 * Access tokens last about an hour: one that is about to expire, or that the API refuses with
 * 401, is renewed once with the refresh token (RFC 6749 section 6) and `onRefresh` stores the new
 * one; a refresh the token endpoint refuses with `invalid_grant` means the user revoked access.
 */
export class GmailConnector implements MailConnector {
  private refreshed = false;
  constructor(
    private readonly cfg: GmailConfig,
    private creds: GmailCredentials,
    private readonly onRefresh: (c: GmailCredentials) => Promise<void> = async () => undefined,
  ) {}
  private async refresh(): Promise<void> {
    if (!this.creds.refresh_token || this.refreshed) throw new ReconnectError(REFUSED);
    this.refreshed = true;
    const r = await gmailToken(
      this.cfg,
      { grant_type: 'refresh_token', refresh_token: this.creds.refresh_token },
      this.creds.refresh_token,
    );
    if (r.creds) {
      this.creds = r.creds;
      await this.onRefresh(r.creds);
      return;
    }
    if (r.error === 'invalid_grant') throw new ReconnectError(REFUSED);
    throw new Error(`Gmail's token endpoint answered HTTP ${r.status}${r.error ? ` (${r.error})` : ''}`);
  }
  private async get(p: string): Promise<any> {
    if (this.creds.expires_at && this.creds.expires_at - Date.now() < 60_000 && this.creds.refresh_token && !this.refreshed)
      await this.refresh();
    for (;;) {
      const res = await fetch(`${this.cfg.apiUrl.replace(/\/+$/, '')}${p}`, {
        headers: { authorization: `Bearer ${this.creds.access_token}` },
        signal: AbortSignal.timeout(30_000),
      });
      if (res.status === 401) {
        await this.refresh();
        continue;
      }
      if (res.status === 403) throw new ReconnectError(REFUSED);
      if (!res.ok) throw new Error(`Gmail answered HTTP ${res.status}`);
      return res.json();
    }
  }
  async search(q: SearchQuery): Promise<FoundFile[]> {
    const after = Math.floor(Date.parse(`${q.start}T00:00:00Z`) / 1000);
    const before = Math.floor(Date.parse(`${q.end}T00:00:00Z`) / 1000) + 86400;
    const addrs = q.sources.flatMap((s) => SENDERS[s].addresses);
    const query = `from:(${addrs.join(' OR ')}) has:attachment filename:pdf after:${after} before:${before}`;
    const ids: string[] = [];
    let page: string | undefined;
    do {
      const r = await this.get(`/gmail/v1/users/me/messages?q=${encodeURIComponent(query)}${page ? `&pageToken=${page}` : ''}`);
      ids.push(...(r.messages ?? []).map((m: { id: string }) => m.id));
      page = r.nextPageToken;
    } while (page);
    const out: FoundFile[] = [];
    for (const id of ids) {
      const m = await this.get(`/gmail/v1/users/me/messages/${id}?format=full`);
      const headers = Object.fromEntries(
        (m.payload?.headers ?? []).map((h: { name: string; value: string }) => [h.name.toLowerCase(), h.value]),
      );
      const sender = (/<([^>]+)>/.exec(headers.from ?? '')?.[1] ?? headers.from ?? '').trim().toLowerCase();
      const source = sourceOf(sender);
      if (!source || !q.sources.includes(source)) continue;
      const date = new Date(Number(m.internalDate ?? Date.now())).toISOString().slice(0, 10);
      const parts: { filename: string; attachmentId: string }[] = [];
      const walk = (p: any): void => {
        if (!p) return;
        if ((p.mimeType === 'application/pdf' || /\.pdf$/i.test(p.filename ?? '')) && p.body?.attachmentId)
          parts.push({ filename: p.filename || 'statement.pdf', attachmentId: p.body.attachmentId });
        (p.parts ?? []).forEach(walk);
      };
      walk(m.payload);
      for (const p of parts) {
        const a = await this.get(`/gmail/v1/users/me/messages/${id}/attachments/${p.attachmentId}`);
        out.push({
          messageId: headers['message-id'] ?? id,
          date,
          sender,
          source,
          filename: p.filename,
          content: Buffer.from(String(a.data), 'base64url'),
        });
      }
    }
    return out;
  }
  async revoke(): Promise<void> {
    // Revoking the refresh token ends the whole grant (and its access tokens).
    await fetch(`${this.cfg.revokeUrl}?token=${encodeURIComponent(this.creds.refresh_token ?? this.creds.access_token)}`, {
      method: 'POST',
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined);
  }
}
