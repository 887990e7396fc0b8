/** Shared pieces of every parser: result type, transaction classification, scheme types. */
import { DocumentError } from '../errors.js';
import type { ParseWarning, SchemeType, ParsedStatement } from '../schema/index.js';

export interface ParseResult<T> {
  data: T;
  warnings: ParseWarning[];
}

/** Dividend rate from `IDCW @ Rs.2.00 per unit` / `Dividend @ Rs 0.15`. */
export function dividendRate(desc: string): number | null {
  const m = /@\s*(?:Rs\.?|INR|₹)?\s*([\d,]*\.?\d+)/i.exec(desc);
  return m ? Number(m[1].replace(/,/g, '')) : null;
}

/** Scheme type from its name: Other (FoF/ETF/gold/overseas) > Hybrid > Debt > Equity > Other. */
export function schemeType(name: string): SchemeType {
  const n = name.toLowerCase();
  if (/fund of funds?|\bfof\b|\betf\b|\bgold\b|\bsilver\b|overseas|international|global|nasdaq|nyse|s&p 500/.test(n)) return 'Other';
  if (/hybrid|balanced|advantage|arbitrage|equity savings|multi[\s-]?asset|asset allocat|retirement|children/.test(n)) return 'Hybrid';
  if (
    /debt|bond|liquid|overnight|money market|gilt|duration|income|credit risk|psu|treasury|floater|fixed maturity|\bfmp\b|corporate|ultra short|medium term|savings|\bsdl\b|g-sec|target maturity|segregated/.test(
      n,
    )
  )
    return 'Debt';
  if (
    /equity|elss|tax saver|flexi\s?cap|large\s?cap|mid\s?cap|small\s?cap|multi\s?cap|focused|value|contra|index|nifty|sensex|bluechip|growth fund|opportunit|thematic|sector|infrastructure|pharma|technology|consumption|manufacturing/.test(
      n,
    )
  )
    return 'Equity';
  return 'Other';
}

/**
 * A statement with nothing read yet but its type and period. Every statement prints its period: a
 * parser that finds none refuses the document (`noPeriod`) rather than invent one.
 */
export function emptyStatement(
  casType: ParsedStatement['meta']['cas_type'],
  period: ParsedStatement['meta']['statement_period'],
): ParsedStatement {
  return {
    meta: { cas_type: casType, statement_period: period, generated_at: null },
    investor: { name: '', pan: null, email: null, address: null, pincode: null, mobile: null, cas_id: null },
    summary: {
      total_value: 0,
      accounts: {
        demat: { count: 0, total_value: 0 },
        mutual_funds: { count: 0, total_value: 0 },
        insurance: { count: 0, total_value: 0 },
        nps: { count: 0, total_value: 0 },
      },
    },
    demat_accounts: [],
    mutual_funds: [],
    insurance: { life_insurance_policies: [] },
    nps: [],
  };
}

/** The error for a document with a statement's markers but no statement period. */
export function noPeriod(looked: string, what: string): DocumentError {
  return new DocumentError(
    'UnsupportedDocument',
    `no statement period (${looked}) found on the first pages: this does not read as a ${what}`,
  );
}

export const PAN_RE = /\b([A-Z]{5}[0-9]{4}[A-Z])\b/;
/** An Indian ISIN: IN, nine letters or digits, a check digit (so a word such as `INTERNATIONA`, a security name cut at its cell, is none). */
export const ISIN_RE = /\b(IN[A-Z0-9]{9}[0-9])\b/;
