/** The Gmail connector (REST, OAuth): the token exchange and refresh, and the search for statement senders' PDFs. */
import { SENDERS, sourceOf } from './senders.js';
import { ReconnectError, type FoundFile, type MailConnector, type SearchQuery } from './connector.js';

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
