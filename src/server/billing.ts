/**
 * Billing. Prices per feature in credits (SPEC.md fixes mailbox search and regulator
 * verification; the rest are ours, documented in the README):
 *
 * | feature            | credits | charged                 |
 * | parse              | 1       | on success              |
 * | contract_note      | 1       | on success              |
 * | fetch              | 1       | on success (OTP verify) |
 * | mailback           | 0.5     | on success              |
 * | inbox_search       | 0.2     | always                  |
 * | regulator          | 0.25    | on success              |
 * | kyc                | 0.5     | on success              |
 * | account endpoints  | 0       |                         |
 *
 * A charge is reserved atomically before the handler runs (so concurrent requests can never
 * overdraw a key) and refunded afterwards when the outcome is not billable.
 */
import { fromMilli, stmt, toMilli, type DB } from './db.js';
import type { KeyRow } from './keys.js';

export const PRICES: Record<string, { credits: number; always: boolean }> = {
  parse: { credits: 1, always: false },
  contract_note: { credits: 1, always: false },
  fetch: { credits: 1, always: false },
  mailback: { credits: 0.5, always: false },
  inbox_search: { credits: 0.2, always: true },
  regulator: { credits: 0.25, always: false },
  kyc: { credits: 0.5, always: false },
};

export function reserve(db: DB, key: KeyRow, credits: number): boolean {
  const milli = toMilli(credits);
  if (!milli) return true;
  if (key.unlimited) {
    stmt(db, 'UPDATE api_keys SET used_milli = used_milli + ? WHERE id = ?').run(milli, key.id);
    return true;
  }
  return stmt(db, 'UPDATE api_keys SET credits_milli = credits_milli - ?, used_milli = used_milli + ? WHERE id = ? AND credits_milli >= ?').run(milli, milli, key.id, milli).changes === 1;
}

export function refund(db: DB, key: KeyRow, credits: number): void {
  const milli = toMilli(credits);
  if (!milli) return;
  stmt(db, `UPDATE api_keys SET ${key.unlimited ? '' : 'credits_milli = credits_milli + ?, '}used_milli = used_milli - ? WHERE id = ?`).run(...(key.unlimited ? [milli, key.id] : [milli, milli, key.id]));
}

export function remaining(db: DB, keyId: number): number | null {
  const r = stmt(db, 'SELECT credits_milli, unlimited FROM api_keys WHERE id = ?').get(keyId) as { credits_milli: number; unlimited: number } | undefined;
  return !r || r.unlimited ? null : fromMilli(r.credits_milli);
}

export function logUsage(db: DB, e: { keyId: number; requestId: string; feature: string; path: string; status: number; credits: number }): void {
  stmt(db, 'INSERT INTO usage_log (key_id, request_id, feature, path, status_code, credits_milli, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)').run(e.keyId, e.requestId, e.feature, e.path, e.status, toMilli(e.credits), new Date().toISOString());
}
