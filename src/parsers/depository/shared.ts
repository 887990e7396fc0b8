/** Pieces both depository parsers share: holding tables, folio rows, NPS, insurance, totals. */
import type { Line } from '../../pdf/model.js';
import { matchHeader, splitCells, type Column } from '../../pdf/table.js';
import { exactSum, parseDate, parseNumber, round } from '../../pdf/numbers.js';
import type { DematAccount, Holding, Holdings, LifeInsurancePolicy, MutualFundFolio, NpsAccount, ParsedStatement, ParseWarning, Transaction } from '../../schema/index.js';
import { schemeType } from '../common.js';

export type HoldingKind = keyof Holdings;
export type Label = { name: string; label: string; align: 'left' | 'right' };

export const ISIN_START = /^IN[A-Z0-9]{4,10}$/;
export const FULL_ISIN = /^IN[A-Z0-9]{10}$/;

export function emptyHoldings(): Holdings {
  return { equities: [], corporate_bonds: [], government_securities: [], aifs: [], demat_mutual_funds: [] };
}

/** Section heading -> holding kind (both depositories' wordings). */
export function headingKind(t: string): HoldingKind | null {
  const s = t.trim().toUpperCase();
  if (/^(EQUITIES \(E\)|EQUITY SHARES|PREFERENCE SHARES \(P\)|EQUITY)$/.test(s)) return 'equities';
  if (/^(CORPORATE BONDS \(C\)|CORPORATE BONDS \/ DEBENTURES|DEBENTURES|CORPORATE BONDS)$/.test(s)) return 'corporate_bonds';
  if (/^(GOVERNMENT SECURITIES \(G\)|SOVEREIGN GOLD BONDS \(SGB\)|GOVERNMENT SECURITIES \/ SGB|GOVERNMENT SECURITIES)$/.test(s)) return 'government_securities';
  if (/^(ALTERNATE INVESTMENT FUNDS? \(A\)|ALTERNATE INVESTMENT FUNDS?|ALTERNATIVE INVESTMENT FUNDS?)$/.test(s)) return 'aifs';
  if (/^(MUTUAL FUNDS \(M\)|MUTUAL FUND UNITS HELD IN DEMAT FORM|MUTUAL FUNDS HELD IN DEMAT FORM)$/.test(s)) return 'demat_mutual_funds';
  return null;
}

/** Try each header spec on a line; the first that matches gives the columns. */
export function findHeader(line: Line, specs: Label[][]): Column[] | null {
  for (const spec of specs) {
    const cols = matchHeader(line, spec);
    if (cols) return cols;
  }
  return null;
}

/** A holding row, or the continuation of the last one (wrapped name, split ISIN). */
export function holdingRow(line: Line, cols: Column[], last: Holding | undefined): { holding?: Holding; continued?: boolean } {
  const cells = splitCells(line, cols);
  const isin = (cells.isin ?? '').replace(/\s/g, '');
  if (ISIN_START.test(isin) && cells.value !== undefined) {
    const units = parseNumber(cells.units) ?? 0;
    return {
      holding: {
        isin,
        name: (cells.name ?? '').replace(/\s+/g, ' ').trim(),
        units,
        value: parseNumber(cells.value) ?? 0,
        transactions: [],
        additional_info: { open_units: units, close_units: units },
      },
    };
  }
  if (!last) return {};
  const numeric = Object.entries(cells).some(([k, v]) => k !== 'name' && k !== 'isin' && parseNumber(v) !== null);
  if (numeric) return {};
  let used = false;
  if (isin && /^[A-Z0-9]{1,8}$/.test(isin) && last.isin.length < 12) {
    last.isin += isin;
    used = true;
  }
  if (cells.name) {
    last.name = /[A-Za-z0-9]-$/.test(last.name) ? `${last.name}${cells.name}` : `${last.name} ${cells.name}`.replace(/\s+/g, ' ');
    used = true;
  }
  return { continued: used };
}

/** Demat transactions: credits raise and debits lower the balance (type PURCHASE / REDEMPTION). */
export function dematTransaction(date: string, description: string, orderNo: string | null, credit: number | null, debit: number | null, balance: number | null): Transaction {
  const units = round((credit ?? 0) - (debit ?? 0), 3);
  return {
    date, description, type: units >= 0 ? 'PURCHASE' : 'REDEMPTION', amount: null, units, nav: null, balance, dividend_rate: null,
    additional_info: { credit: credit || null, debit: debit || null, stamp_duty: null, price: null, income_distribution: null, capital_withdrawal: null, order_no: orderNo },
  };
}

/** After transactions are attached: opening units = closing units - movement. */
export function settleHolding(h: Holding): void {
  if (!h.transactions.length) return;
  const moved = exactSum(h.transactions.map((t) => t.units ?? 0), 3);
  h.additional_info.open_units = round(h.units - moved, 3);
  h.additional_info.close_units = h.units;
}

export function findHolding(acc: DematAccount | undefined, isin: string): Holding | undefined {
  if (!acc) return undefined;
  return Object.values(acc.holdings).flat().find((h) => h.isin === isin);
}

export function schemeFromFolioRow(isin: string, name: string, units: number, nav: number | null, value: number, cost: number | null, gainAbs: number | null, registrarShown: boolean): MutualFundFolio['schemes'][number] {
  const abs = gainAbs ?? (cost !== null ? round(value - cost, 2) : null);
  void registrarShown;
  return {
    isin, name, type: schemeType(name), units, nav, value, cost,
    gain: { absolute: abs, percentage: abs !== null && cost ? round((abs / cost) * 100, 2) : null },
    transactions: [], nominees: [],
    additional_info: { advisor: null, rta_code: null, amfi: null, is_demat: false, open_units: null, close_units: units },
  };
}

export function finishStatement(out: ParsedStatement, warnings: ParseWarning[], declared: Map<string, number>): void {
  for (const a of out.demat_accounts) {
    for (const list of Object.values(a.holdings)) for (const h of list) settleHolding(h);
    a.value = exactSum(Object.values(a.holdings).flat().map((h) => h.value), 2);
    const key = `${a.dp_id}|${a.client_id}`;
    const d = declared.get(key);
    if (d !== undefined && Math.abs(d - a.value) > 1) warnings.push({ code: 'AccountValueMismatch', message: `account ${a.dp_id} ${a.client_id}: holdings add up to ${a.value}, the statement says ${d}` });
  }
  for (const f of out.mutual_funds) f.value = exactSum(f.schemes.map((s) => s.value), 2);
  for (const n of out.nps) n.value = exactSum(n.funds.map((f) => f.value), 2);
  const demat = exactSum(out.demat_accounts.map((a) => a.value), 2);
  const mf = exactSum(out.mutual_funds.map((f) => f.value), 2);
  const nps = exactSum(out.nps.map((n) => n.value), 2);
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
  if (grand !== undefined && Math.abs(grand - out.summary.total_value) > 1) warnings.push({ code: 'TotalMismatch', message: `sections add up to ${out.summary.total_value}, the statement's total is ${grand}` });
}

export const INSURANCE_HEADER: Label[] = [
  { name: 'number', label: 'Policy No', align: 'left' }, { name: 'provider', label: 'Insurer', align: 'left' }, { name: 'plan', label: 'Plan Name', align: 'left' },
  { name: 'assured', label: 'Life Assured', align: 'left' }, { name: 'status', label: 'Status', align: 'left' }, { name: 'frequency', label: 'Frequency', align: 'left' },
  { name: 'sum', label: 'Sum Assured', align: 'right' }, { name: 'premium', label: 'Premium', align: 'right' },
];

export function insuranceRow(line: Line, cols: Column[], last: LifeInsurancePolicy | undefined): LifeInsurancePolicy | undefined {
  const c = splitCells(line, cols);
  if (c.number && c.sum && c.premium) {
    return {
      policy_number: c.number, provider: c.provider ?? '', policy_name: c.plan ?? '', life_assured: c.assured ?? '', status: c.status ?? '', premium_frequency: c.frequency ?? '',
      sum_assured: parseNumber(c.sum) ?? 0, premium_amount: parseNumber(c.premium) ?? 0, additional_info: {},
    };
  }
  if (last) {
    if (c.provider) last.provider = `${last.provider} ${c.provider}`.trim();
    if (c.plan) last.policy_name = `${last.policy_name} ${c.plan}`.trim();
  }
  return undefined;
}

export function npsFund(name: string, tierText: string, manager: string, units: string | undefined, nav: string | undefined, value: string | undefined): NpsAccount['funds'][number] {
  const tier = /\bII\b|\b2\b/.test(tierText) ? 2 : 1;
  return { name, units: parseNumber(units) ?? 0, nav: parseNumber(nav) ?? 0, value: parseNumber(value) ?? 0, cost: null, additional_info: { tier, manager } };
}

/** `NAME (PAN:ABCDE1234F)` pairs. */
export function holdersFrom(text: string): { name: string; pan: string | null }[] {
  const out: { name: string; pan: string | null }[] = [];
  const re = /([A-Z][A-Z .'-]+?)\s*\(PAN\s*:\s*([A-Z]{5}\d{4}[A-Z])\)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) out.push({ name: m[1].replace(/^[,\s]+/, '').trim(), pan: m[2] });
  return out;
}

/** One line of the insurance table: a header sets the columns, a row adds a policy, a wrapped line continues it. */
export function insuranceLine(line: Line, cols: Column[] | null, policies: LifeInsurancePolicy[]): Column[] | null {
  const h = findHeader(line, [INSURANCE_HEADER]);
  if (h) return h;
  if (!cols) return cols;
  const p = insuranceRow(line, cols, policies[policies.length - 1]);
  if (p) policies.push(p);
  return cols;
}

/** One line of an NPS fund table (header or fund row). */
export function npsTableLine(line: Line, cols: Column[] | null, nps: NpsAccount, header: Label[]): Column[] | null {
  // Both depositories print `PRAN : <digits>  CRA : <name>` above the fund table.
  const pran = /^PRAN\s*:\s*(\d+)\s+CRA\s*:\s*(.+)$/.exec(line.text.replace(/\s{2,}/g, ' ').trim());
  if (pran) {
    nps.pran = pran[1];
    nps.cra = pran[2].trim();
    return cols;
  }
  const h = findHeader(line, [header]);
  if (h) return h;
  if (!cols) return cols;
  const c = splitCells(line, cols);
  if (c.tier && c.value) nps.funds.push(npsFund((c.name ?? '').trim(), c.tier, (c.manager ?? '').trim(), c.units, c.nav, c.value));
  return cols;
}

/** A dated row of a per-ISIN transaction table, or null for any other line. */
export function dematTxnRow(line: Line, cols: Column[], balanceColumn: string): Transaction | null {
  const c = splitCells(line, cols);
  const date = parseDate(c.date);
  if (!date) return null;
  return dematTransaction(date, (c.desc ?? '').trim(), c.order?.trim() || null, parseNumber(c.credit), parseNumber(c.debit), parseNumber(c[balanceColumn]));
}
