/**
 * The regulator's registry: import of the published per-category lists, and lookups.
 *
 * Import format (CSV with a header row, or a JSON array of objects), one registration per row:
 *   name, registration_number, category, address, email, telephone, contact_person, valid_from, valid_to
 * `category` is a slug, a short alias or the category's label; dates are YYYY-MM-DD or
 * DD-MM-YYYY; an empty `valid_to` means perpetual. Import is idempotent (upsert on category +
 * number) and reports inserted, updated, unchanged and rejected rows with reasons.
 */
import { REGULATOR_ALIASES, RegulatorCategory, type RegulatorResponse } from '../../schema/index.js';
import type { Queries } from '../store/sql.js';
import { registryCategory, registryEntry, type RegistryEntry } from '../store/registry.js';

export type Category = RegulatorCategory;

export const LABELS: Record<Category, string> = {
  'investment-adviser': 'Investment Adviser',
  'research-analyst': 'Research Analyst',
  'portfolio-manager': 'Portfolio Manager',
  'stock-broker': 'Stock Broker',
  'merchant-banker': 'Merchant Banker',
  'registrar-transfer-agent': 'Registrar to an Issue and Share Transfer Agent',
  'mutual-fund': 'Mutual Fund',
  'alternative-investment-fund': 'Alternative Investment Fund',
  'credit-rating-agency': 'Credit Rating Agency',
  custodian: 'Custodian',
  'debenture-trustee': 'Debenture Trustee',
  'venture-capital-fund': 'Venture Capital Fund',
  'foreign-venture-capital-investor': 'Foreign Venture Capital Investor',
  'foreign-portfolio-investor': 'Foreign Portfolio Investor',
  'kyc-registration-agency': 'KYC Registration Agency',
  'infrastructure-investment-trust': 'Infrastructure Investment Trust',
  'real-estate-investment-trust': 'Real Estate Investment Trust',
  'esg-rating-provider': 'ESG Rating Provider',
  'vault-manager': 'Vault Manager',
};

/** A slug, alias or label -> category. */
export function resolveCategory(v: string): Category | null {
  const s = v.trim().toLowerCase();
  if ((RegulatorCategory.options as string[]).includes(s)) return s as Category;
  if (REGULATOR_ALIASES[s]) return REGULATOR_ALIASES[s];
  const byLabel = (Object.entries(LABELS) as [Category, string][]).find(([, l]) => l.toLowerCase() === s);
  return byLabel ? byLabel[0] : null;
}

export function normalizeNumber(n: string): string {
  return n.trim().toUpperCase().replace(/\s+/g, '');
}

/** Category from the number's prefix; null when the number does not encode one. */
export function categoryFromNumber(n: string): Category | null {
  const v = normalizeNumber(n);
  const m = /^(INA|INH|INP|INM|INR|INZ)\d{9}$/.exec(v);
  if (m)
    return (
      {
        INA: 'investment-adviser',
        INH: 'research-analyst',
        INP: 'portfolio-manager',
        INM: 'merchant-banker',
        INR: 'registrar-transfer-agent',
        INZ: 'stock-broker',
      } as const
    )[m[1] as 'INA'];
  if (/^IN[BFE]\d{9}$/.test(v)) return 'stock-broker'; // legacy broker numbers (an ISIN has letters after the prefix)
  if (/^IN\/AIF\d?\//.test(v)) return 'alternative-investment-fund';
  if (/^IN\/CRA\//.test(v)) return 'credit-rating-agency';
  if (/^IN\/CUS\//.test(v)) return 'custodian';
  if (/^IN\/(VCF)\//.test(v)) return 'venture-capital-fund';
  if (/^IN\/(FVCI)\//.test(v)) return 'foreign-venture-capital-investor';
  if (/^IN\/(INVIT)\//.test(v)) return 'infrastructure-investment-trust';
  if (/^IN\/(REIT)\//.test(v)) return 'real-estate-investment-trust';
  if (/^IN\/KRA\//.test(v)) return 'kyc-registration-agency';
  if (/^IND\d{9}$/.test(v)) return 'debenture-trustee';
  return null;
}

/** An Indian ISIN: IN, an issuer-type character (E, F or a digit), 8 more, a check digit. */
export function looksLikeIsin(n: string): boolean {
  return /^IN[EF0-9][A-Z0-9]{8}\d$/.test(normalizeNumber(n)) && /[A-Z]/.test(normalizeNumber(n).slice(3));
}

const SUFFIXES = /\b(private|pvt|limited|ltd|llp|the|and|co|company|india)\b/g;
/** Case, spacing, punctuation and common company suffixes do not matter for names. */
export function normalizeName(n: string): string {
  return n
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9 ]+/g, ' ')
    .replace(SUFFIXES, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function similarity(a: string, b: string): number {
  const A = new Set(a.split(' ').filter(Boolean));
  const B = new Set(b.split(' ').filter(Boolean));
  if (!A.size || !B.size) return 0;
  let inter = 0;
  for (const t of A) if (B.has(t)) inter++;
  return (2 * inter) / (A.size + B.size);
}

type Row = RegistryEntry;

export async function verify(
  db: Queries,
  req: { registration_number?: string; name?: string; type?: Category | null },
): Promise<RegulatorResponse | { error: string }> {
  const number = req.registration_number ? normalizeNumber(req.registration_number) : null;
  let category: Category | null = req.type ?? null;
  const detectedBy: 'registration_number' | 'type' = req.type ? 'type' : 'registration_number';
  if (number && !category) {
    category = categoryFromNumber(number);
    if (!category) {
      return {
        error: looksLikeIsin(number)
          ? `'${number}' looks like an ISIN, not a registration number; give a registration number, or name and type`
          : `cannot tell the category of '${number}' from its prefix; give type (a category slug or alias such as ria, ra, pms, broker, rta, mf, aif, fpi)`,
      };
    }
  }
  if (!category) return { error: 'give registration_number, or name with type' };
  let row: Row | undefined;
  if (number) row = await registryEntry(db, category, number);
  else if (req.name) {
    const want = normalizeName(req.name);
    const candidates = await registryCategory(db, category);
    row = candidates.find((c) => c.name_norm === want);
    if (!row) {
      let best = 0;
      for (const c of candidates) {
        const s = similarity(want, c.name_norm);
        if (s > best) {
          best = s;
          row = c;
        }
      }
      if (best < 0.6) row = undefined;
    }
  }
  const base = {
    status: 'success' as const,
    type: category,
    authority: 'regulator' as const,
    category,
    category_label: LABELS[category],
    detected_by: detectedBy,
  };
  if (!row) {
    return {
      ...base,
      verified: false,
      registration_status: 'NOT_FOUND',
      registration_number: number,
      name: null,
      valid_from: null,
      valid_till: null,
      is_perpetual: null,
      address: null,
      email: null,
      telephone: null,
      contact_person: null,
    };
  }
  const today = new Date().toISOString().slice(0, 10);
  const active = (!row.valid_to || row.valid_to >= today) && (!row.valid_from || row.valid_from <= today);
  return {
    ...base,
    verified: active,
    registration_status: active ? 'ACTIVE' : 'EXPIRED',
    registration_number: row.registration_number,
    name: row.name,
    valid_from: row.valid_from,
    valid_till: row.valid_to,
    is_perpetual: !row.valid_to,
    address: row.address,
    email: row.email,
    telephone: row.telephone,
    contact_person: row.contact_person,
  };
}
