/** The regulator's registry of intermediaries: one row per category and normalised registration number. */
import type { RegulatorCategory } from '../../schema/index.js';
import type { Queries } from './sql.js';

export interface RegistryEntry {
  category: RegulatorCategory;
  number_norm: string;
  registration_number: string;
  name: string;
  name_norm: string;
  address: string | null;
  email: string | null;
  telephone: string | null;
  contact_person: string | null;
  valid_from: string | null;
  valid_to: string | null;
}

/** The columns compared and written by an import, in order. */
const FIELDS = [
  'registration_number',
  'name',
  'name_norm',
  'address',
  'email',
  'telephone',
  'contact_person',
  'valid_from',
  'valid_to',
] as const;

/** Insert new entries and update changed ones, in one transaction; counts what happened to each. */
export async function upsertRegistry(
  db: Queries,
  entries: RegistryEntry[],
  now: string,
): Promise<{ inserted: number; updated: number; unchanged: number }> {
  const n = { inserted: 0, updated: 0, unchanged: 0 };
  await db.tx(async (q) => {
    for (const e of entries) {
      const values = FIELDS.map((k) => e[k]);
      const old = await q.get('SELECT * FROM registry WHERE category = ? AND number_norm = ?', e.category, e.number_norm);
      if (!old) {
        await q.run(
          'INSERT INTO registry (category, registration_number, number_norm, name, name_norm, address, email, telephone, contact_person, valid_from, valid_to, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          e.category,
          values[0],
          e.number_norm,
          ...values.slice(1),
          now,
        );
        n.inserted++;
      } else if (FIELDS.every((k, j) => old[k] === values[j])) {
        n.unchanged++;
      } else {
        await q.run(
          'UPDATE registry SET registration_number = ?, name = ?, name_norm = ?, address = ?, email = ?, telephone = ?, contact_person = ?, valid_from = ?, valid_to = ?, imported_at = ? WHERE id = ?',
          ...values,
          now,
          old.id,
        );
        n.updated++;
      }
    }
  });
  return n;
}

export async function registryEntry(db: Queries, category: RegulatorCategory, numberNorm: string): Promise<RegistryEntry | undefined> {
  return db.get<RegistryEntry>('SELECT * FROM registry WHERE category = ? AND number_norm = ?', category, numberNorm);
}

export async function registryCategory(db: Queries, category: RegulatorCategory): Promise<RegistryEntry[]> {
  return db.all<RegistryEntry>('SELECT * FROM registry WHERE category = ?', category);
}
