/** The settings table: named server values every instance of a database reads the same. */
import { randomBytes } from 'node:crypto';
import type { Queries } from './sql.js';

/** A named server secret, made once (random 32 bytes) and kept in the database (every instance reads the same). */
export async function secret(db: Queries, name: string): Promise<Buffer> {
  return Buffer.from(await keepFirst(db, name, randomBytes(32).toString('base64')), 'base64');
}

/** Record `value` under `name` unless a value is there already; returns the value kept (the first one). */
export async function keepFirst(db: Queries, name: string, value: string): Promise<string> {
  await db.run('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', name, value);
  const row = await db.get<{ value: string }>('SELECT value FROM settings WHERE name = ?', name);
  return row!.value;
}

/** The local key an earlier version kept in the settings table (base64), or undefined. */
export async function legacyLocalKey(db: Queries): Promise<string | undefined> {
  return (await db.get<{ value: string }>("SELECT value FROM settings WHERE name = 'inbox_key_v1'"))?.value;
}

export async function forgetLegacyLocalKey(db: Queries): Promise<void> {
  await db.run("DELETE FROM settings WHERE name = 'inbox_key_v1'");
}

/** A statement that reads a table: the store answers (GET /health). */
export async function ping(db: Queries): Promise<void> {
  await db.get('SELECT COUNT(*) AS n FROM settings');
}
