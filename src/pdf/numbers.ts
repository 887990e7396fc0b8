/** Number and date helpers shared by the parsers. */
import { memoByText } from '../shared/memo.js';

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** A numeric token: Indian or Western grouping, optional sign or parentheses, optional ₹/INR/backtick. */
export const NUMBER_RE = /^\(?[-+]?(?:₹|`)?\s*-?(?:\d{1,3}(?:,\d{2,3})+|\d+)(?:\.\d+)?\)?$/;

export function isNumber(s: string): boolean {
  return NUMBER_RE.test(s.trim());
}

/** Parse `1,23,456.78`, `(7,500.00)`, `-12.5`, `₹ 1,000`; null when not a number. */
export function parseNumber(s: string | undefined | null): number | null {
  if (s === undefined || s === null) return null;
  let t = s.trim().replace(/^(₹|`|INR|Rs\.?)\s*/, '');
  if (!t) return null;
  let neg = false;
  if (/^\(.*\)$/.test(t)) {
    neg = true;
    t = t.slice(1, -1).trim();
  }
  t = t.replace(/^(₹|`|INR|Rs\.?)\s*/, '');
  if (t.startsWith('-')) {
    neg = !neg;
    t = t.slice(1);
  } else if (t.startsWith('+')) t = t.slice(1);
  if (!/^(?:\d{1,3}(?:,\d{2,3})+|\d+)(?:\.\d+)?$|^\.\d+$/.test(t)) return null;
  const v = Number(t.replace(/,/g, ''));
  if (!Number.isFinite(v)) return null;
  return neg ? -v : v;
}

/** Round to n decimals, exactly as a human would read the printed figure. */
export function round(v: number, n = 2): number {
  const f = 10 ** n;
  const r = Math.round((v + Math.sign(v) * Number.EPSILON * Math.abs(v)) * f) / f;
  return Object.is(r, -0) ? 0 : r;
}

/** Money kept exact as integer paise while summing. */
export function paise(v: number): number {
  return Math.round(v * 100);
}
export function fromPaise(p: number): number {
  return round(p / 100, 2);
}
/** Sum with fixed-point accumulation at a given scale (2 = paise, 4 = units). */
export function exactSum(values: number[], decimals = 4): number {
  const f = 10 ** decimals;
  return round(values.reduce((s, v) => s + Math.round(v * f), 0) / f, decimals);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function validDate(y: number, m: number, d: number): string | null {
  if (m < 1 || m > 12 || d < 1) return null;
  // The calendar year (as Date.UTC reads it: 0-99 are 1900-1999), leap years Gregorian.
  const cal = y < 100 ? y + 1900 : y;
  const leap = cal % 4 === 0 && (cal % 100 !== 0 || cal % 400 === 0);
  if (d > (m === 2 && leap ? 29 : MONTH_DAYS[m - 1])) return null;
  return `${y}-${pad(m)}-${pad(d)}`;
}

// The readers ask for the same texts many times over (a row's date, by each reader): remembered.
const dateOf = memoByText(readDate);

/** `08-Apr-2024`, `08-04-2024`, `08/04/2024`, `08 Apr 2024`, `2024-04-08` -> `2024-04-08`. */
export function parseDate(s: string | undefined | null): string | null {
  return s ? dateOf(s) : null;
}

function readDate(s: string): string | null {
  const t = s.trim();
  let m = /^(\d{1,2})[-/ ]([A-Za-z]{3,9})[-/ ,]+(\d{4})$/.exec(t);
  if (m) {
    const mon = MONTHS[m[2].slice(0, 3).toLowerCase()];
    return mon ? validDate(Number(m[3]), mon, Number(m[1])) : null;
  }
  m = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})$/.exec(t);
  if (m) return validDate(Number(m[3]), Number(m[2]), Number(m[1]));
  m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (m) return validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  return null;
}

/** `March 2026` -> {from: 2026-03-01, to: 2026-03-31}. */
export function parseMonthYear(s: string): { from: string; to: string } | null {
  const m = /^([A-Za-z]+)\s+(\d{4})$/.exec(s.trim());
  if (!m) return null;
  const idx = MONTH_NAMES.findIndex((n) => n.startsWith(m[1].toLowerCase()) && m[1].length >= 3);
  if (idx < 0) return null;
  const y = Number(m[2]);
  const last = new Date(Date.UTC(y, idx + 1, 0)).getUTCDate();
  return { from: `${y}-${pad(idx + 1)}-01`, to: `${y}-${pad(idx + 1)}-${pad(last)}` };
}

/** A date token anywhere: used to recognise transaction rows. */
export const DATE_TOKEN = /^(\d{2}-[A-Za-z]{3}-\d{4}|\d{2}[-/]\d{2}[-/]\d{4})$/;
