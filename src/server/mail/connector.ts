/**
 * Connected mailboxes: the encrypted inbox token, and the connectors (IMAP, Gmail REST).
 *
 * Inbox token: `itk_<base64url(kid | iv(12) | tag(16) | ciphertext)>`, AES-256-GCM under the
 * server's secret key chosen by the key id (kid, src/server/secrets.ts); the plaintext holds the
 * connection id, provider and mailbox address. Credentials stay in the database (encrypted with
 * the same key), never in the token. A tampered or foreign token, a revoked connection and a
 * provider that refuses the stored grant all answer the mailbox error body with HTTP 401.
 */
import { SENDERS } from './senders.js';
import type { StatementSource } from '../../schema/index.js';

export class ReconnectError extends Error {}

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

export const senderTerms = (sources: StatementSource[]): string[] => [...new Set(sources.flatMap((s) => SENDERS[s].domains))];
