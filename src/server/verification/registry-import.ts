/**
 * Import of the regulator's published per-category lists (CSV or JSON, `cas serve registry import`):
 * each row checked (a rejected row is reported with its line, not imported), then every valid row
 * inserted or updated in one transaction (store/registry.ts).
 */
import { parseDate } from '../../pdf/numbers.js';
import type { Queries } from '../store/sql.js';
import { upsertRegistry, type RegistryEntry } from '../store/registry.js';
import { normalizeName, normalizeNumber, resolveCategory } from './registry.js';

export interface ImportReport {
  inserted: number;
  updated: number;
  unchanged: number;
  rejected: { row: number; reason: string }[];
}

function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (q) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') q = false;
      else cell += c;
    } else if (c === '"') q = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell || row.length) {
    row.push(cell);
    rows.push(row);
  }
  const [head, ...rest] = rows.filter((r) => r.some((c) => c.trim()));
  const keys = (head ?? []).map((h) =>
    h
      .trim()
      .toLowerCase()
      .replace(/[\s.]+/g, '_'),
  );
  return rest.map((r) => Object.fromEntries(keys.map((k, i) => [k, (r[i] ?? '').trim()])));
}

export async function importRegistry(db: Queries, text: string, format: 'csv' | 'json'): Promise<ImportReport> {
  let rows: Record<string, unknown>[];
  if (format === 'json') {
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed)) throw new Error('a JSON registry file holds an array of objects');
    rows = parsed as Record<string, unknown>[];
  } else rows = parseCsv(text);
  const rejected: ImportReport['rejected'] = [];
  const entries: RegistryEntry[] = [];
  for (const [i, r] of rows.entries()) {
    const line = format === 'csv' ? i + 2 : i + 1;
    const str = (k: string): string | null => {
      const v = r[k];
      return v === undefined || v === null || String(v).trim() === '' ? null : String(v).trim();
    };
    const name = str('name');
    const number = str('registration_number');
    const catRaw = str('category');
    const reject = (reason: string): void => void rejected.push({ row: line, reason });
    if (!name || !number || !catRaw) {
      reject('name, registration_number and category are required');
      continue;
    }
    const category = resolveCategory(catRaw);
    if (!category) {
      reject(`unknown category '${catRaw}'`);
      continue;
    }
    const date = (k: string): string | null | false => {
      const v = str(k);
      if (!v) return null;
      return parseDate(v) ?? false;
    };
    const from = date('valid_from');
    const to = date('valid_to');
    if (from === false || to === false) {
      reject('valid_from / valid_to must be dates (YYYY-MM-DD or DD-MM-YYYY)');
      continue;
    }
    const email = str('email');
    if (email && !/^[^@\s]+@[^@\s]+$/.test(email)) {
      reject(`bad email '${email}'`);
      continue;
    }
    entries.push({
      category,
      number_norm: normalizeNumber(number),
      registration_number: number.trim(),
      name,
      name_norm: normalizeName(name),
      address: str('address'),
      email,
      telephone: str('telephone'),
      contact_person: str('contact_person'),
      valid_from: from,
      valid_to: to,
    });
  }
  return { ...(await upsertRegistry(db, entries, new Date().toISOString())), rejected };
}
