/** Pieces both depository parsers share: holding tables, folio rows, NPS, insurance, totals. */
import { exactSum, round } from '../../pdf/numbers.js';
import type { DematAccount, Holding, Holdings, MutualFundFolio, ParsedStatement, ParseWarning, Transaction } from '../../schema/index.js';
import { schemeType } from '../common.js';
import { depositoryTransactionType } from '../phrasings/depository.js';

export type HoldingKind = keyof Holdings;
/** A header label spec (used by the contract-note parser's fixed layouts). */
export type Label = { name: string; label: string; align: 'left' | 'right' };

export const ISIN_START = /^IN[A-Z0-9]{4,10}$/;
export const FULL_ISIN = /^IN[A-Z0-9]{9}[0-9]$/;

export function emptyHoldings(): Holdings {
  return { equities: [], corporate_bonds: [], government_securities: [], aifs: [], demat_mutual_funds: [] };
}

/** Section heading -> holding kind (both depositories' wordings). */
export function headingKind(t: string): HoldingKind | null {
  const s = t.trim().toUpperCase();
  if (/^(EQUITIES \(E\)|EQUITY SHARES|PREFERENCE SHARES \(P\)|EQUITY)$/.test(s)) return 'equities';
  if (/^(CORPORATE BONDS \(C\)|CORPORATE BONDS \/ DEBENTURES|DEBENTURES|CORPORATE BONDS)$/.test(s)) return 'corporate_bonds';
  if (/^(GOVERNMENT SECURITIES \(G\)|SOVEREIGN GOLD BONDS \(SGB\)|GOVERNMENT SECURITIES \/ SGB|GOVERNMENT SECURITIES)$/.test(s))
    return 'government_securities';
  if (/^(ALTERNATE INVESTMENT FUNDS? \(A\)|ALTERNATE INVESTMENT FUNDS?|ALTERNATIVE INVESTMENT FUNDS?)$/.test(s)) return 'aifs';
  if (/^(MUTUAL FUNDS \(M\)|MUTUAL FUND UNITS HELD IN DEMAT FORM|MUTUAL FUNDS HELD IN DEMAT FORM)$/.test(s)) return 'demat_mutual_funds';
  return null;
}

/** Demat transactions: credits raise and debits lower the balance; the type from the depository's wording. */
export function dematTransaction(
  date: string,
  description: string,
  orderNo: string | null,
  credit: number | null,
  debit: number | null,
  balance: number | null,
): Transaction {
  const units = round((credit ?? 0) - (debit ?? 0), 3);
  return {
    date,
    description,
    type: depositoryTransactionType(description, units),
    amount: null,
    units,
    nav: null,
    balance,
    dividend_rate: null,
    additional_info: {
      credit: credit || null,
      debit: debit || null,
      stamp_duty: null,
      price: null,
      income_distribution: null,
      capital_withdrawal: null,
      order_no: orderNo,
    },
  };
}

/** Units printed at the head of a holding's transactions (an `Opening Balance` row or column). */
export const printedOpening = new WeakMap<Holding, number>();
/** The opening balance printed on a transaction's own row (depository_b's `Opening Balance` column). */
export const rowOpening = new WeakMap<Transaction, number>();

const UNIT_TOLERANCE = 0.0015;
const near = (a: number, b: number): boolean => Math.abs(a - b) <= UNIT_TOLERANCE;

/**
 * After transactions are attached: opening and closing units, and the self-check closing =
 * opening + credits - debits, row by row against the printed balances and at the end against the
 * holding statement. The opening is the printed one when there is one, else closing - movement.
 */
export function settleHolding(h: Holding, where: string, warnings: ParseWarning[]): void {
  if (!h.transactions.length) return;
  const moved = exactSum(
    h.transactions.map((t) => t.units ?? 0),
    3,
  );
  const first = h.transactions[0];
  const printed = printedOpening.get(h) ?? rowOpening.get(first) ?? null;
  const open = printed ?? round(h.units - moved, 3);
  const problems: string[] = [];
  // No balance printed (depository_b's `Transactions` tab): the opening comes from the holding
  // statement, and a holding never opens below zero.
  if (printed === null && open < -UNIT_TOLERANCE && h.transactions.every((t) => t.balance === null))
    problems.push(`the transactions move ${moved} units but the holding statement holds ${h.units}: the holding would open at ${open}`);
  let bal = open;
  for (const t of h.transactions) {
    const rowOpen = rowOpening.get(t);
    if (rowOpen !== undefined && !near(rowOpen, bal))
      problems.push(`the ${t.date} row opens at ${rowOpen}, the row above closed at ${bal}`);
    bal = round((rowOpen ?? bal) + (t.units ?? 0), 3);
    if (t.balance !== null && !near(t.balance, bal)) {
      problems.push(`the ${t.date} row closes at ${t.balance}, opening + credits - debits is ${bal}`);
      bal = t.balance;
    }
  }
  if (!near(bal, h.units)) problems.push(`the transactions end at ${bal} units, the holding statement says ${h.units}`);
  if (problems.length)
    warnings.push({ code: 'UnitsMismatch', message: `holding ${h.isin} in ${where}: ${problems.slice(0, 3).join('; ')}` });
  h.additional_info.open_units = open;
  h.additional_info.close_units = h.units;
}

export function findHolding(acc: DematAccount | undefined, isin: string): Holding | undefined {
  if (!acc) return undefined;
  return Object.values(acc.holdings)
    .flat()
    .find((h) => h.isin === isin);
}

export function schemeFromFolioRow(
  isin: string,
  name: string,
  units: number,
  nav: number | null,
  value: number,
  cost: number | null,
  gainAbs: number | null,
  registrarShown: boolean,
  /** The distributor's ARN, where the table prints an `ARN Code` column (CDSL, from 2025). */
  advisor: string | null = null,
): MutualFundFolio['schemes'][number] {
  const abs = gainAbs ?? (cost !== null ? round(value - cost, 2) : null);
  void registrarShown;
  return {
    isin,
    name,
    type: schemeType(name),
    units,
    nav,
    value,
    cost,
    gain: { absolute: abs, percentage: abs !== null && cost ? round((abs / cost) * 100, 2) : null },
    transactions: [],
    nominees: [],
    additional_info: { advisor, rta_code: null, amfi: null, is_demat: false, open_units: null, close_units: units },
  };
}

export function finishStatement(out: ParsedStatement, warnings: ParseWarning[], declared: Map<string, number>): void {
  for (const a of out.demat_accounts) {
    for (const list of Object.values(a.holdings)) for (const h of list) settleHolding(h, `account ${a.dp_id} ${a.client_id}`, warnings);
    a.value = exactSum(
      Object.values(a.holdings)
        .flat()
        .map((h) => h.value),
      2,
    );
    const key = `${a.dp_id}|${a.client_id}`;
    const d = declared.get(key);
    if (d !== undefined && Math.abs(d - a.value) > 1)
      warnings.push({
        code: 'AccountValueMismatch',
        message: `account ${a.dp_id} ${a.client_id}: holdings add up to ${a.value}, the statement says ${d}`,
      });
  }
  for (const f of out.mutual_funds)
    f.value = exactSum(
      f.schemes.map((s) => s.value),
      2,
    );
  for (const n of out.nps)
    n.value = exactSum(
      n.funds.map((f) => f.value),
      2,
    );
  const demat = exactSum(
    out.demat_accounts.map((a) => a.value),
    2,
  );
  const mf = exactSum(
    out.mutual_funds.map((f) => f.value),
    2,
  );
  const nps = exactSum(
    out.nps.map((n) => n.value),
    2,
  );
  out.summary = {
    total_value: exactSum([demat, mf, nps], 2),
    accounts: {
      demat: { count: out.demat_accounts.length, total_value: demat },
      mutual_funds: { count: out.mutual_funds.length, total_value: mf },
      insurance: { count: out.insurance.life_insurance_policies.length, total_value: 0 },
      nps: { count: out.nps.length, total_value: nps },
    },
  };
  const grand = declared.get('grand');
  if (grand !== undefined && Math.abs(grand - out.summary.total_value) > 1)
    warnings.push({ code: 'TotalMismatch', message: `sections add up to ${out.summary.total_value}, the statement's total is ${grand}` });
}

/** `NAME (PAN:ABCDE1234F)` pairs. */
export function holdersFrom(text: string): { name: string; pan: string | null }[] {
  const out: { name: string; pan: string | null }[] = [];
  const re = /([A-Z][A-Z .'-]+?)\s*\(\s*PAN\s*:\s*([A-Z]{5}[0-9X]{4}[A-Z])\s*\)?/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) out.push({ name: m[1].replace(/^[,\s]+/, '').trim(), pan: m[2] });
  return out;
}
