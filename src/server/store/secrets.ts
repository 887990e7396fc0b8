/**
 * The key that encrypts what the server stores and must read back (connected mailboxes' grants and
 * inbox tokens, webhook signing secrets): AES-256-GCM, `kid | iv(12) | tag(16) | ciphertext`.
 *
 * - kid 2: the configured key, `CAS_SECRET_KEY` (32 bytes as base64 or hex) or a key file
 *   (`CAS_SECRET_KEY_FILE` / `cas serve --secret-key-file`), kept away from the database.
 * - kid 1: the local key, a file beside the database (`<db>.key`, mode 0600) made on first use; a
 *   database whose key still sits in its own settings table (earlier versions) has it moved there.
 *   Used when no key is configured (`cas serve` warns), and read to open what it sealed before.
 *
 * When a key is configured, values the local key sealed are re-sealed with it at start-up, and plain
 * webhook secrets of earlier versions are sealed (`migrateSecrets`). The key ring belongs to the
 * database it seals for, so it lives with the store.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Db } from './sql.js';
import { forgetLegacyLocalKey, legacyLocalKey } from './settings.js';

const LOCAL = 1;
const CONFIGURED = 2;

interface Keyring {
  current: number;
  keys: Map<number, Buffer>;
}
const rings = new WeakMap<Db, Keyring>();

/** 32 key bytes from base64 or hex text (a key file may also hold the 32 raw bytes). */
export function parseSecretKey(text: string | Buffer, what: string): Buffer {
  if (Buffer.isBuffer(text) && text.length === 32) return text;
  const s = String(text).trim();
  const k = /^[0-9a-f]{64}$/i.test(s) ? Buffer.from(s, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(s) ? Buffer.from(s, 'base64') : null;
  if (!k || k.length !== 32)
    throw new Error(
      `${what} must be 32 bytes written as base64 (44 characters) or hex (64 characters); make one with: openssl rand -base64 32`,
    );
  return k;
}

/** Path of the local key file of a database: beside a SQLite file; none for PostgreSQL or a database in memory. */
export const localKeyFile = (db: Db): string | null => (db.file ? `${db.file}.key` : null);

/** The local key: the key file beside the database, made (mode 0600) or moved out of the settings table once. */
async function localKey(db: Db, create: boolean): Promise<Buffer | null> {
  const file = localKeyFile(db);
  if (!file) return null;
  if (existsSync(file)) return parseSecretKey(readFileSync(file), file);
  const legacy = await legacyLocalKey(db);
  if (!legacy && !create) return null;
  const key = legacy ? Buffer.from(legacy, 'base64') : randomBytes(32);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  if (legacy) await forgetLegacyLocalKey(db);
  return key;
}

/**
 * Choose the key that seals for this database: the configured one when given (`configured`,
 * already parsed), else the local key file. Returns the local key file's path when that is the one
 * in use (the caller warns), else null.
 */
export async function useSecretKey(db: Db, configured: Buffer | null): Promise<string | null> {
  const keys = new Map<number, Buffer>();
  const local = await localKey(db, !configured);
  if (local) keys.set(LOCAL, local);
  if (configured) keys.set(CONFIGURED, configured);
  // A database in memory (tests) has no file beside it: a key for the process.
  if (!keys.size) keys.set(LOCAL, randomBytes(32));
  rings.set(db, { current: configured ? CONFIGURED : LOCAL, keys });
  return configured ? null : localKeyFile(db);
}

/** The keys of a database; `useSecretKey` runs first (at start-up). */
function ring(db: Db): Keyring {
  const r = rings.get(db);
  if (!r) throw new Error('the secret key was not chosen for this database (useSecretKey runs at start-up)');
  return r;
}

/** Seal text: `<prefix><base64url(kid | iv | tag | ciphertext)>`. */
export function sealText(db: Db, text: string, prefix: string): string {
  const { current, keys } = ring(db);
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', keys.get(current)!, iv);
  const body = Buffer.concat([c.update(text, 'utf8'), c.final()]);
  return `${prefix}${Buffer.concat([Buffer.from([current]), iv, c.getAuthTag(), body]).toString('base64url')}`;
}

/** Open what `sealText` made with one of this database's keys; null when foreign, tampered or not sealed. */
export function openText(db: Db, sealed: string, prefix: string): string | null {
  if (!sealed.startsWith(prefix)) return null;
  try {
    const raw = Buffer.from(sealed.slice(prefix.length), 'base64url');
    // Only a key this server has: an unknown key id must not make a new key (a forged token would).
    const key = raw.length >= 29 ? ring(db).keys.get(raw[0]) : undefined;
    if (!key) return null;
    const d = createDecipheriv('aes-256-gcm', key, raw.subarray(1, 13));
    d.setAuthTag(raw.subarray(13, 29));
    return Buffer.concat([d.update(raw.subarray(29)), d.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** Seal a value as JSON (inbox tokens `itk_`, stored mailbox grants `cred_`). */
export function seal(db: Db, data: unknown, prefix = 'itk_'): string {
  return sealText(db, JSON.stringify(data), prefix);
}

/** Open what `seal` made; null when foreign, tampered or not sealed. */
export function unseal<T>(db: Db, token: string, prefix = 'itk_'): T | null {
  const text = openText(db, token, prefix);
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/** Whether a sealed value was made with the key in use. */
const current = (db: Db, sealed: string, prefix: string): boolean =>
  Buffer.from(sealed.slice(prefix.length, prefix.length + 4), 'base64url')[0] === ring(db).current;

/** Prefix of a sealed webhook signing secret in the database. */
export const WEBHOOK_SECRET_PREFIX = 'whenc_';
export const sealWebhookSecret = (db: Db, secret: string): string => sealText(db, secret, WEBHOOK_SECRET_PREFIX);
/** The signing secret of a stored row (sealed; a plain one of an earlier version is read as is). */
export const webhookSecret = (db: Db, stored: string): string =>
  stored.startsWith(WEBHOOK_SECRET_PREFIX) ? (openText(db, stored, WEBHOOK_SECRET_PREFIX) ?? '') : stored;

/**
 * At start-up: seal plain webhook secrets, and re-seal with the key in use what an older key sealed
 * (stored mailbox grants, webhook secrets). Returns how many values changed.
 */
export async function migrateSecrets(db: Db): Promise<number> {
  let n = 0;
  await db.tx(async (q) => {
    for (const r of await q.all<{ id: string; s: string }>('SELECT id, webhook_secret AS s FROM inbound_emails')) {
      if (r.s.startsWith(WEBHOOK_SECRET_PREFIX) && current(db, r.s, WEBHOOK_SECRET_PREFIX)) continue;
      const plain = webhookSecret(db, r.s);
      if (!plain) continue;
      await q.run('UPDATE inbound_emails SET webhook_secret = ? WHERE id = ?', sealWebhookSecret(db, plain), r.id);
      n++;
    }
    for (const r of await q.all<{ id: string; c: string }>(
      'SELECT id, credentials AS c FROM inbox_connections WHERE credentials IS NOT NULL',
    )) {
      if (current(db, r.c, 'cred_')) continue;
      const plain = openText(db, r.c, 'cred_');
      if (plain === null) continue;
      await q.run('UPDATE inbox_connections SET credentials = ? WHERE id = ?', sealText(db, plain, 'cred_'), r.id);
      n++;
    }
  });
  return n;
}
