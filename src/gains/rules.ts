/**
 * Indian income-tax rules for realised gains on mutual fund units, by date of transfer and of
 * acquisition. Every constant cites its source; the README repeats them. This is arithmetic on a
 * statement, not tax advice: the user checks the class of each scheme and the rules for their case.
 */
import type { GainsAssetClass, GainsFlag, GainsTaxClass } from '../schema/gains.js';

/**
 * Finance (No. 2) Act 2024, in force for transfers on or after 23 July 2024: s.111A STCG 15% -> 20%,
 * s.112A LTCG 10% -> 12.5%, s.112 LTCG 20% with indexation -> 12.5% without; s.2(42A) holding period
 * for units other than equity-oriented fund units 36 -> 24 months.
 */
export const RATE_CHANGE_DATE = '2024-07-23';
/** s.112A(2) / s.55(2)(ac) (Finance Act 2018): equity units acquired before 1 February 2018 are grandfathered. */
export const GRANDFATHER_BEFORE = '2018-02-01';
/** s.55(2)(ac): the fair market value is the NAV of 31 January 2018. */
export const FMV_DATE = '2018-01-31';
/** s.10(38) (withdrawn by Finance Act 2018): equity LTCG on transfers before 1 April 2018 was exempt. */
export const EXEMPT_1038_BEFORE = '2018-04-01';
/**
 * s.50AA (Finance Act 2023): units of a "specified mutual fund" acquired on or after 1 April 2023 give
 * short-term gains whatever the holding period. Debt-oriented funds are specified funds throughout.
 */
export const SECTION_50AA_FROM = '2023-04-01';
/**
 * Finance Act 2025 narrowed "specified mutual fund" (s.50AA) to funds with more than 65% in debt and
 * money-market instruments, from 1 April 2025 (AY 2026-27): for `other` schemes (gold, international
 * FoF, hybrids) s.50AA is applied only to transfers before this date.
 */
export const OTHER_50AA_UNTIL = '2025-04-01';
/** s.2(42A) proviso: equity-oriented fund units are long term after 12 months. */
export const EQUITY_LONG_MONTHS = 12;
/** s.2(42A): other units long term after 36 months, 24 months for transfers on or after 23 July 2024. */
export const OTHER_LONG_MONTHS_BEFORE = 36;
export const OTHER_LONG_MONTHS_AFTER = 24;

/** s.112A(1) exemption per financial year: 1,00,000; 1,25,000 from FY 2024-25 (Finance (No. 2) Act 2024). */
export function equityLtcgExemption(fy: string): number {
  return Number(fy.slice(0, 4)) >= 2024 ? 125000 : 100000;
}

/** Financial year (April to March) of an ISO date: 2025-03-31 -> 2024-25, 2025-04-01 -> 2025-26. */
export function fyOf(date: string): string {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7));
  const start = m >= 4 ? y : y - 1;
  return `${start}-${String((start + 1) % 100).padStart(2, '0')}`;
}

/** Calendar months later, clamped to the month's end (2024-02-29 + 12 months = 2025-02-28). */
export function addCalendarMonths(date: string, months: number): string {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7)) - 1 + months;
  const d = Number(date.slice(8, 10));
  const ty = y + Math.floor(m / 12);
  const tm = ((m % 12) + 12) % 12;
  const last = new Date(Date.UTC(ty, tm + 1, 0)).getUTCDate();
  return `${ty}-${String(tm + 1).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}

/**
 * Long term when the units were held for more than `months` months (s.2(42A): short term when held
 * "not more than" that period): the transfer date is after the acquisition date plus `months`.
 */
export function heldLongerThan(acquired: string, transferred: string, months: number): boolean {
  return transferred > addCalendarMonths(acquired, months);
}

export interface Treatment {
  term: 'short' | 'long' | null;
  tax_class: GainsTaxClass;
  rate: number | null;
  flags: GainsFlag[];
}

/** The treatment of units of `cls` acquired on `acquired` (null: unknown) and transferred on `transferred`. */
export function treatment(cls: GainsAssetClass, acquired: string | null, transferred: string): Treatment {
  const after = transferred >= RATE_CHANGE_DATE;
  if (cls === 'unknown') return { term: null, tax_class: 'unknown', rate: null, flags: ['class_unknown'] };
  if (acquired === null) return { term: null, tax_class: 'unknown', rate: null, flags: [] };
  if (cls === 'equity') {
    if (heldLongerThan(acquired, transferred, EQUITY_LONG_MONTHS)) {
      if (transferred < EXEMPT_1038_BEFORE) return { term: 'long', tax_class: 'equity_ltcg_exempt', rate: 0, flags: [] };
      return after
        ? { term: 'long', tax_class: 'equity_ltcg_12_5', rate: 0.125, flags: [] }
        : { term: 'long', tax_class: 'equity_ltcg_10', rate: 0.1, flags: [] };
    }
    return after
      ? { term: 'short', tax_class: 'equity_stcg_20', rate: 0.2, flags: [] }
      : { term: 'short', tax_class: 'equity_stcg_15', rate: 0.15, flags: [] };
  }
  // Debt-oriented: s.50AA for units acquired on or after 1 April 2023. Other: s.50AA only until 31 March 2025.
  const specified = acquired >= SECTION_50AA_FROM && (cls === 'debt' || transferred < OTHER_50AA_UNTIL);
  if (specified) return { term: 'short', tax_class: 'deemed_stcg_50aa', rate: null, flags: [] };
  const months = after ? OTHER_LONG_MONTHS_AFTER : OTHER_LONG_MONTHS_BEFORE;
  if (!heldLongerThan(acquired, transferred, months)) return { term: 'short', tax_class: 'stcg_slab', rate: null, flags: [] };
  return after
    ? { term: 'long', tax_class: 'ltcg_12_5', rate: 0.125, flags: [] }
    : { term: 'long', tax_class: 'ltcg_20_indexed', rate: 0.2, flags: ['indexation_not_computed'] };
}
