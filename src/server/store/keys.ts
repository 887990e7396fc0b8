/** API keys and access tokens: shown once, stored only as SHA-256 hashes, compared in constant time. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { fromMilli, toMilli, type Queries } from './sql.js';

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

export async function createKey(
  db: Queries,
  opts: { credits?: number; unlimited?: boolean; rate?: number | null; name?: string | null },
): Promise<{ key: string; row: KeyRow }> {
  const key = token('cas_live_');
  const row = await db.get<KeyRow>(
    'INSERT INTO api_keys (key_hash, prefix, name, credits_milli, unlimited, rate_per_min, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *',
    hash(key),
    key.slice(0, 13),
    opts.name ?? null,
    toMilli(opts.credits ?? 0),
    opts.unlimited ? 1 : 0,
    opts.rate ?? null,
    new Date().toISOString(),
  );
  return { key, row: row! };
}

export async function findKey(db: Queries, secret: string): Promise<KeyRow | undefined> {
  const h = hash(secret);
  const row = await db.get<KeyRow>('SELECT * FROM api_keys WHERE key_hash = ?', h);
  return row && sameHash(row.key_hash, h) ? row : undefined;
}

export async function listKeys(db: Queries): Promise<
  {
    id: number;
    prefix: string;
    name: string | null;
    credits: number | null;
    used: number;
    unlimited: boolean;
    rate_per_min: number | null;
    revoked: boolean;
    created_at: string;
  }[]
> {
  return (await db.all<KeyRow>('SELECT * FROM api_keys ORDER BY id')).map((r) => ({
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

export async function revokeKey(db: Queries, id: number): Promise<boolean> {
  return (await db.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', new Date().toISOString(), id)) === 1;
}

export async function addCredits(db: Queries, id: number, credits: number): Promise<number | null> {
  const r = await db.get<{ credits_milli: number }>(
    'UPDATE api_keys SET credits_milli = credits_milli + ? WHERE id = ? RETURNING credits_milli',
    toMilli(credits),
    id,
  );
  return r ? fromMilli(r.credits_milli) : null;
}

export async function createAccessToken(db: Queries, keyId: number, minutes: number): Promise<{ token: string; expiresIn: number }> {
  const t = token('at_');
  const now = Date.now();
  await db.run(
    'INSERT INTO access_tokens (token_hash, key_id, expires_at, created_at) VALUES (?, ?, ?, ?)',
    hash(t),
    keyId,
    new Date(now + minutes * 60_000).toISOString(),
    new Date(now).toISOString(),
  );
  return { token: t, expiresIn: minutes * 60 };
}

/** An access token's key (null for the sandbox key, id 0) and whether it has expired. */
export async function findAccessToken(
  db: Queries,
  t: string,
): Promise<{ keyId: number; key: KeyRow | null; expired: boolean } | undefined> {
  const h = hash(t);
  const row = await db.get<{ token_hash: string; key_id: number; expires_at: string }>(
    'SELECT token_hash, key_id, expires_at FROM access_tokens WHERE token_hash = ?',
    h,
  );
  if (!row || !sameHash(row.token_hash, h)) return undefined;
  const key = row.key_id ? ((await db.get<KeyRow>('SELECT * FROM api_keys WHERE id = ?', row.key_id)) ?? null) : null;
  return { keyId: row.key_id, key, expired: Date.parse(row.expires_at) <= Date.now() };
}

export function maskKey(prefix: string): string {
  return `${prefix.slice(0, 9)}****`;
}
