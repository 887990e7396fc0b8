/**
 * The mailbox logic behind the inbox routes (no Fastify): the connection named by an inbox token,
 * its connector (IMAP, Gmail, or the sandbox's mailbox), Gmail's consent URL and code exchange,
 * and a search's files stored and linked. Every refusal that needs the mailbox connected again is
 * `reconnect(msg)`: HTTP 401 `{status: "error", msg, requires_reconnect: true}`.
 */
import { randomBytes } from 'node:crypto';
import type * as S from '../../schema/index.js';
import { realFileName } from '../../schema/dialect.js';
import type { Names } from '../../schema/names.js';
import { ApiError, type App } from '../context.js';
import { baseUrl } from '../store/files.js';
import { sandboxFile, sandboxManifest } from '../sandbox.js';
import { ReconnectError, type FoundFile, type MailConnector } from '../mail/connector.js';
import { GmailConnector, gmailToken, type GmailConfig, type GmailCredentials } from '../mail/gmail.js';
import { ImapConnector, type ImapCredentials } from '../mail/imap.js';
import { unseal as open } from '../store/secrets.js';
import { connectionById, createConnection, revokeConnection, storeCredentials, type Connection } from '../store/inbox.js';

/** What the sandbox mailbox holds: the example investor's files of fixtures/sandbox/ (the manifest's `inbox`), dated `date`. */
function sandboxMail(date: string): FoundFile[] {
  return sandboxManifest().inbox.map((m, i) => ({
    messageId: `<sandbox-${i + 1}@example.com>`,
    date,
    sender: m.sender,
    source: m.source,
    filename: m.filename,
    content: sandboxFile(m.path),
  }));
}

/** The mailbox's answer when it must be connected again: HTTP 401 `{status: "error", msg, requires_reconnect}`. */
export const reconnect = (msg: string): ApiError => new ApiError(401, msg, { status: 'error', msg, requires_reconnect: true });

/** Where the mail provider sends the user back after consent. */
export const callbackUrl = (app: App): string => `${baseUrl(app)}/v4/inbox/callback`;

/** The connection named by an inbox token (the x-inbox-token header), when it is this key's. */
export async function connectionOf(app: App, raw: unknown, keyId: number): Promise<Connection> {
  if (typeof raw !== 'string' || !raw) throw reconnect('missing inbox token: send it in the x-inbox-token header');
  const t = open<{ cid: string }>(app.db, raw.trim());
  if (!t) throw reconnect('invalid inbox token');
  const conn = await connectionById(app.db, t.cid);
  if (!conn || conn.key_id !== keyId) throw reconnect('this inbox token belongs to another key');
  return conn;
}

/** The connector of a connection (its credentials unsealed), or the sandbox's mailbox. */
export function connectorFor(app: App, conn: Connection): MailConnector | 'sandbox' {
  if (conn.provider === 'sandbox') return 'sandbox';
  const { db } = app;
  const cred = conn.credentials ? open<Record<string, unknown>>(db, conn.credentials, 'cred_') : null;
  if (!cred) throw new ReconnectError('the mailbox credentials are gone; reconnect it');
  if (conn.provider === 'imap') return new ImapConnector(cred as unknown as ImapCredentials);
  const stored = (c: GmailCredentials): Promise<void> => storeCredentials(db, conn.id, c);
  return new GmailConnector(app.config.gmail, cred as unknown as GmailCredentials, stored);
}

/** Gmail's consent URL for a stored OAuth `state` (PKCE `challenge`). */
export function gmailConsentUrl(app: App, state: string, challenge: string): string {
  const g = app.config.gmail;
  const q = new URLSearchParams({
    client_id: g.clientId,
    redirect_uri: callbackUrl(app),
    response_type: 'code',
    scope: 'https://www.googleapis.com/auth/gmail.readonly',
    access_type: 'offline',
    prompt: 'consent',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return `${g.authUrl}?${q}`;
}

/**
 * Finish Gmail's consent: exchange the code, read the mailbox address, store the connection.
 * Answers the parameters to send back to the app's redirect_uri (`inbox_token`, or `error`).
 */
export async function finishGmailConsent(
  app: App,
  keyId: number,
  code: string,
  verifier: string,
): Promise<{ inbox_token: string } | { error: string }> {
  const g: GmailConfig = app.config.gmail;
  try {
    const tok = await gmailToken(g, { grant_type: 'authorization_code', code, redirect_uri: callbackUrl(app), code_verifier: verifier });
    if (!tok.creds) return { error: tok.error ?? `token exchange failed (HTTP ${tok.status})` };
    const pr = await fetch(`${g.apiUrl.replace(/\/+$/, '')}/gmail/v1/users/me/profile`, {
      headers: { authorization: `Bearer ${tok.creds.access_token}` },
      signal: AbortSignal.timeout(15_000),
    });
    const profile = (await pr.json().catch(() => ({}))) as { emailAddress?: string };
    if (!pr.ok || !profile.emailAddress) return { error: 'could not read the mailbox address' };
    return { inbox_token: await createConnection(app.db, keyId, 'gmail', profile.emailAddress, tok.creds) };
  } catch {
    return { error: 'the mail provider could not be reached' };
  }
}

/**
 * Search an active connection's mailbox between two dates for statements of `sources`; each file
 * found is stored and linked for a day, named in the request's dialect. A provider refusing the
 * grant revokes the connection (reconnect answer); any other failure is 502.
 */
export async function searchMailbox(
  app: App,
  conn: Connection,
  q: { start: string; end: string; sources: S.StatementSource[] },
  names: Names,
): Promise<S.EmailStatementFile[]> {
  let found: FoundFile[];
  try {
    const connector = connectorFor(app, conn);
    found = connector === 'sandbox' ? sandboxMail(q.end).filter((x) => q.sources.includes(x.source)) : await connector.search(q);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof ReconnectError) {
      await revokeConnection(app.db, conn.id);
      throw reconnect(err.message);
    }
    throw new ApiError(502, 'the mailbox could not be searched; try again later');
  }
  const files: S.EmailStatementFile[] = [];
  for (const x of found) {
    const sha = await app.files.put(x.content);
    const neutralName = `${x.source}_${x.date.replace(/-/g, '')}_${randomBytes(6).toString('hex')}.pdf`;
    const filename = names === 'real' ? realFileName(neutralName) : neutralName;
    files.push({
      message_id: x.messageId,
      filename,
      original_filename: x.filename,
      message_date: x.date,
      cas_type: x.source,
      sender_email: x.sender,
      size: x.content.length,
      url: app.files.link(baseUrl(app), sha, filename, 86400),
      expires_in: 86400,
    });
  }
  return files;
}
