/**
 * Scheme classification for tax (equity-oriented, debt-oriented, other) from the scheme name's
 * words, then the statement's scheme type, then the user's override file; unknown otherwise.
 * s.112A / s.10(38) explanation: an equity-oriented fund keeps at least 65% in listed domestic equity
 * (arbitrage and aggressive-hybrid funds do). Hybrids whose equity share varies (balanced advantage,
 * multi asset, conservative hybrid), fund of funds, gold, silver and international funds are `other`;
 * the user overrides with `--scheme-types` (CSV of ISIN,type).
 */
import type { GainsAssetClass, GainsClassSource, SchemeType } from '../schema/index.js';

const OTHER = /\b(fund of funds?|fof|gold|silver|international|overseas|global|nasdaq|nyse|us equity|feeder)\b/i;
const EQUITY_HYBRID = /\b(aggressive hybrid|hybrid equity|equity hybrid|equity savings|arbitrage)\b/i;
const HYBRID = /\b(hybrid|balanced|multi[- ]asset|asset allocation|retirement|children)\b/i;
const DEBT =
  /\b(liquid|overnight|money market|gilt|g-sec|corporate bond|banking (?:and|&) psu|credit risk|ultra short|short (?:term|duration)|medium (?:term|duration)|medium to long|long duration|low duration|dynamic bond|floater|floating rate|income|treasury|debt|bond|target maturity|fixed maturity|fmp|sdl|crisil ibx)\b/i;
const EQUITY =
  /\b(elss|tax ?saver|equity|flexi ?cap|large ?cap|mid ?cap|small ?cap|multi ?cap|large (?:and|&) mid ?cap|focused|value|contra|dividend yield|blue ?chip|nifty|sensex|index|infrastructure|pharma|healthcare|technology|consumption|manufacturing|opportunities|midcap|smallcap|largecap|top \d+|banking|financial services|infra|power|natural resources|energy|lifestyle|thematic|sectoral|mnc|esg|innovation|momentum|quant|special situations|business cycle|multi ?factor|digital|fmcg|auto|services)\b/i;

export interface Classification {
  asset_class: GainsAssetClass;
  source: GainsClassSource;
  /** Set when the user should check the class (hybrids, unknown). */
  note?: string;
}

/** Class of a scheme from its name; the statement type is the fallback; the override (by ISIN) wins. */
export function classifyScheme(
  name: string,
  statementType: SchemeType | null,
  isin: string | null,
  overrides?: Map<string, GainsAssetClass>,
): Classification {
  const o = isin ? overrides?.get(isin.toUpperCase()) : undefined;
  if (o) return { asset_class: o, source: 'override' };
  if (OTHER.test(name)) return { asset_class: 'other', source: 'name' };
  if (EQUITY_HYBRID.test(name)) return { asset_class: 'equity', source: 'name' };
  if (HYBRID.test(name))
    return {
      asset_class: 'other',
      source: 'name',
      note: 'a hybrid scheme is classed other; if it keeps 65% or more in equity, give it as equity in --scheme-types',
    };
  if (DEBT.test(name)) return { asset_class: 'debt', source: 'name' };
  if (EQUITY.test(name)) return { asset_class: 'equity', source: 'name' };
  if (statementType === 'Equity') return { asset_class: 'equity', source: 'statement' };
  if (statementType === 'Debt') return { asset_class: 'debt', source: 'statement' };
  return { asset_class: 'unknown', source: 'none', note: 'the class is unknown: give it in --scheme-types (ISIN,equity|debt|other)' };
}

/** Parse the override file: CSV lines `ISIN,type` (type equity, debt or other); a header line and # comments are skipped. */
export function parseSchemeTypes(text: string): Map<string, GainsAssetClass> {
  const out = new Map<string, GainsAssetClass>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const [isin, type] = line.split(/[,;\t]/).map((c) => c.trim().replace(/^"|"$/g, ''));
    if (i === 0 && /^isin$/i.test(isin)) return;
    const t = (type ?? '').toLowerCase();
    if (!/^[A-Z]{2}[A-Z0-9]{9}[0-9]$/i.test(isin ?? '') || !['equity', 'debt', 'other'].includes(t)) {
      throw new Error(`--scheme-types line ${i + 1}: expected ISIN,equity|debt|other, got '${line}'`);
    }
    out.set(isin.toUpperCase(), t as GainsAssetClass);
  });
  return out;
}

const MONTHS: Record<string, string> = {
  jan: '01',
  feb: '02',
  mar: '03',
  apr: '04',
  may: '05',
  jun: '06',
  jul: '07',
  aug: '08',
  sep: '09',
  oct: '10',
  nov: '11',
  dec: '12',
};

function isoOf(d: string): string | null {
  const m = /^(\d{1,2})-([A-Za-z]{3})-(\d{4})$/.exec(d.trim());
  if (m && MONTHS[m[2].toLowerCase()]) return `${m[3]}-${MONTHS[m[2].toLowerCase()]}-${m[1].padStart(2, '0')}`;
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(d.trim());
  return iso ? d.trim() : null;
}

/**
 * NAVs of 31 January 2018 by ISIN from the public NAV history download (AMFI format: `;`-separated,
 * header `Scheme Code;Scheme Name;ISIN Div Payout/ISIN Growth;ISIN Div Reinvestment;Net Asset Value;
 * Repurchase Price;Sale Price;Date`, category and AMC heading lines between the rows, dates `31-Jan-2018`).
 * Rows of other dates are ignored; both ISIN columns map to the row's NAV.
 */
export function parseFmvFile(text: string, date = '2018-01-31'): Map<string, number> {
  const out = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  const headerAt = lines.findIndex((l) => /net asset value/i.test(l) && l.includes(';'));
  if (headerAt < 0)
    throw new Error('--fmv: not a NAV history file (no header with "Net Asset Value"; expected the AMFI download, ;-separated)');
  const head = lines[headerAt].split(';').map((h) => h.trim().toLowerCase());
  const navCol = head.findIndex((h) => h === 'net asset value');
  const dateCol = head.findIndex((h) => h === 'date');
  const isinCols = head.map((h, i) => (h.includes('isin') ? i : -1)).filter((i) => i >= 0);
  for (const line of lines.slice(headerAt + 1)) {
    const cells = line.split(';');
    if (cells.length < head.length) continue;
    if (dateCol >= 0 && isoOf(cells[dateCol]) !== date) continue;
    const nav = Number(cells[navCol].trim().replace(/,/g, ''));
    if (!Number.isFinite(nav) || nav <= 0) continue;
    for (const c of isinCols) {
      const isin = cells[c].trim().toUpperCase();
      if (/^[A-Z]{2}[A-Z0-9]{9}[0-9]$/.test(isin)) out.set(isin, nav);
    }
  }
  return out;
}
