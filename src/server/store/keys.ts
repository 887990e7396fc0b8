/** API keys and access tokens: shown once, stored only as SHA-256 hashes, compared in constant time. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { fromMilli, stmt, toMilli, type DB } from '../db.js';

export interface KeyRow {
  id: number;
  key_hash: string;
  prefix: string;
  name: string | null;
  credits_milli: number;
  used_milli: number;
  unlimited: number;
  rate_per_min: number | null;
  revoked_at: string | null;
  created_at: string;
}

export const hash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** Constant-time equality of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

const token = (prefix: string, bytes = 24): string => `${prefix}${randomBytes(bytes).toString('base64url')}`;

export function createKey(
  db: DB,
  opts: { credits?: number; unlimited?: boolean; rate?: number | null; name?: string | null },
): { key: string; row: KeyRow } {
  const key = token('cas_live_');
  const info = stmt(
    db,
    'INSERT INTO api_keys (key_hash, prefix, name, credits_milli, unlimited, rate_per_min, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(
    hash(key),
    key.slice(0, 13),
    opts.name ?? null,
    toMilli(opts.credits ?? 0),
    opts.unlimited ? 1 : 0,
    opts.rate ?? null,
    new Date().toISOString(),
  );
  return { key, row: stmt(db, 'SELECT * FROM api_keys WHERE id = ?').get(info.lastInsertRowid) as KeyRow };
}

export function findKey(db: DB, secret: string): KeyRow | undefined {
  const h = hash(secret);
  const row = stmt(db, 'SELECT * FROM api_keys WHERE key_hash = ?').get(h) as KeyRow | undefined;
  return row && sameHash(row.key_hash, h) ? row : undefined;
}

export function listKeys(db: DB): {
  id: number;
  prefix: string;
  name: string | null;
  credits: number | null;
  used: number;
  unlimited: boolean;
  rate_per_min: number | null;
  revoked: boolean;
  created_at: string;
}[] {
  return (stmt(db, 'SELECT * FROM api_keys ORDER BY id').all() as KeyRow[]).map((r) => ({
    id: r.id,
    prefix: `${r.prefix}...`,
    name: r.name,
    credits: r.unlimited ? null : fromMilli(r.credits_milli),
    used: fromMilli(r.used_milli),
    unlimited: Boolean(r.unlimited),
    rate_per_min: r.rate_per_min,
    revoked: Boolean(r.revoked_at),
    created_at: r.created_at,
  }));
}

export function revokeKey(db: DB, id: number): boolean {
  return stmt(db, 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(new Date().toISOString(), id).changes === 1;
}

export function addCredits(db: DB, id: number, credits: number): number | null {
  const r = stmt(db, 'UPDATE api_keys SET credits_milli = credits_milli + ? WHERE id = ?').run(toMilli(credits), id);
  if (!r.changes) return null;
  return fromMilli((stmt(db, 'SELECT credits_milli FROM api_keys WHERE id = ?').get(id) as { credits_milli: number }).credits_milli);
}

export function createAccessToken(db: DB, keyId: number, minutes: number): { token: string; expiresIn: number } {
  const t = token('at_');
  const now = Date.now();
  stmt(db, 'INSERT INTO access_tokens (token_hash, key_id, expires_at, created_at) VALUES (?, ?, ?, ?)').run(
    hash(t),
    keyId,
    new Date(now + minutes * 60_000).toISOString(),
    new Date(now).toISOString(),
  );
  return { token: t, expiresIn: minutes * 60 };
}

/** An access token's key (null for the sandbox key, id 0) and whether it has expired. */
export function findAccessToken(db: DB, t: string): { keyId: number; key: KeyRow | null; expired: boolean } | undefined {
  const h = hash(t);
  const row = stmt(db, 'SELECT token_hash, key_id, expires_at FROM access_tokens WHERE token_hash = ?').get(h) as
    { token_hash: string; key_id: number; expires_at: string } | undefined;
  if (!row || !sameHash(row.token_hash, h)) return undefined;
  const key = row.key_id ? ((stmt(db, 'SELECT * FROM api_keys WHERE id = ?').get(row.key_id) as KeyRow | undefined) ?? null) : null;
  return { keyId: row.key_id, key, expired: Date.parse(row.expires_at) <= Date.now() };
}

export function maskKey(prefix: string): string {
  return `${prefix.slice(0, 9)}****`;
}
