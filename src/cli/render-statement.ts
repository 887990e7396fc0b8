/** Table and CSV views of parse results. CSV columns are fixed and documented in the README. */
import type { ContractNote, ParsedStatement } from '../schema/index.js';
import { FORMATS } from '../formats/index.js';
import { inr as fmt, renderKeyValues, renderTable, toCsv } from './output.js';

export const HOLDINGS_CSV = [
  'file',
  'account_kind',
  'account',
  'provider',
  'isin',
  'name',
  'type',
  'units',
  'nav',
  'value',
  'cost',
] as const;
export const TRANSACTIONS_CSV = [
  'file',
  'account',
  'isin',
  'name',
  'date',
  'type',
  'description',
  'amount',
  'units',
  'nav',
  'balance',
  'dividend_rate',
] as const;

/** `government_securities` -> `Government securities`. */
export const humanize = (key: string): string => key.charAt(0).toUpperCase() + key.slice(1).replace(/_/g, ' ');

/** What people call each kind of demat holding (tables and the HTML report). */
export const DEMAT_KIND_LABEL: Record<string, string> = {
  equities: 'Equity shares',
  corporate_bonds: 'Corporate bonds',
  government_securities: 'Government securities',
  aifs: 'AIFs',
  demat_mutual_funds: 'Mutual fund units in demat',
};
export const dematKindLabel = (kind: string): string => DEMAT_KIND_LABEL[kind] ?? humanize(kind);

/**
 * The CSV `type` column, one vocabulary for every row (lower-case, snake_case): a folio scheme's
 * asset class (`equity`, `debt`, `hybrid`, `other`), a demat holding's kind in the singular
 * (`equity_share`, `corporate_bond`, `government_security`, `aif`, `mutual_fund_unit`), and
 * `nps_tier_1` / `nps_tier_2` for NPS funds.
 */
const DEMAT_KIND_TYPE: Record<string, string> = {
  equities: 'equity_share',
  corporate_bonds: 'corporate_bond',
  government_securities: 'government_security',
  aifs: 'aif',
  demat_mutual_funds: 'mutual_fund_unit',
};
const csvType = (s: string): string =>
  s
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_');

/** One way to print a demat account everywhere: the BO ID, else DP ID and client ID run together. */
export const dematAccountId = (a: { bo_id?: string | null; dp_id?: string | null; client_id?: string | null }): string =>
  a.bo_id ?? `${a.dp_id ?? ''}${a.client_id ?? ''}`;

export function isStatement(d: ParsedStatement | ContractNote): d is ParsedStatement {
  return (d as ParsedStatement).meta !== undefined;
}

export function holdingsRows(file: string, d: ParsedStatement): unknown[][] {
  const rows: unknown[][] = [];
  for (const f of d.mutual_funds) {
    for (const s of f.schemes)
      rows.push([file, 'mutual_fund', f.folio_number, f.amc, s.isin, s.name, csvType(s.type), s.units, s.nav, s.value, s.cost]);
  }
  for (const a of d.demat_accounts) {
    const account = dematAccountId(a);
    for (const [kind, list] of Object.entries(a.holdings)) {
      for (const h of list)
        rows.push([
          file,
          `demat:${kind}`,
          account,
          a.dp_name,
          h.isin,
          h.name,
          DEMAT_KIND_TYPE[kind] ?? csvType(kind),
          h.units,
          h.units ? Math.round((h.value / h.units) * 10000) / 10000 : null,
          h.value,
          null,
        ]);
    }
  }
  for (const n of d.nps)
    for (const fnd of n.funds)
      rows.push([
        file,
        'nps',
        n.pran,
        n.cra,
        null,
        fnd.name,
        csvType(`nps_tier_${fnd.additional_info.tier}`),
        fnd.units,
        fnd.nav,
        fnd.value,
        fnd.cost,
      ]);
  return rows;
}

export function transactionRows(file: string, d: ParsedStatement): unknown[][] {
  const rows: unknown[][] = [];
  for (const f of d.mutual_funds) {
    for (const s of f.schemes)
      for (const t of s.transactions)
        rows.push([
          file,
          f.folio_number,
          s.isin,
          s.name,
          t.date,
          t.type,
          t.description,
          t.amount,
          t.units,
          t.nav,
          t.balance,
          t.dividend_rate,
        ]);
  }
  for (const a of d.demat_accounts) {
    const account = dematAccountId(a);
    for (const list of Object.values(a.holdings))
      for (const h of list)
        for (const t of h.transactions)
          rows.push([file, account, h.isin, h.name, t.date, t.type, t.description, t.amount, t.units, t.nav, t.balance, t.dividend_rate]);
  }
  return rows;
}

export function statementCsv(what: 'holdings' | 'transactions', items: { file: string; data: ParsedStatement }[]): string {
  if (what === 'holdings')
    return toCsv(
      [...HOLDINGS_CSV],
      items.flatMap((i) => holdingsRows(i.file, i.data)),
    );
  return toCsv(
    [...TRANSACTIONS_CSV],
    items.flatMap((i) => transactionRows(i.file, i.data)),
  );
}

export function statementTables(file: string, d: ParsedStatement, withTransactions: boolean): string {
  const out: string[] = [];
  const p = d.meta.statement_period;
  out.push(
    renderKeyValues(file, [
      ['Statement', FORMATS.find((f) => f.casType === d.meta.cas_type)?.label ?? d.meta.cas_type],
      ['Period', `${p.from ?? ''} to ${p.to}`],
      ['Investor', d.investor.name],
      ['PAN', d.investor.pan],
      ['Email', d.investor.email],
      ['Mobile', d.investor.mobile],
      ...(d.investor.cas_id ? [['Statement id', d.investor.cas_id] as [string, unknown]] : []),
    ]),
  );
  const acc = d.summary.accounts;
  out.push(
    renderTable({
      title: 'Totals',
      head: ['Account kind', 'Count', 'Value (₹)'],
      numeric: [1, 2],
      rows: [
        ['Demat', acc.demat.count, fmt(acc.demat.total_value)],
        ['Mutual funds', acc.mutual_funds.count, fmt(acc.mutual_funds.total_value)],
        ['Insurance', acc.insurance.count, fmt(acc.insurance.total_value)],
        ['NPS', acc.nps.count, fmt(acc.nps.total_value)],
        ['Total', '', fmt(d.summary.total_value)],
      ],
    }),
  );
  if (d.demat_accounts.length) {
    out.push(
      renderTable({
        title: 'Demat holdings',
        head: ['Account', 'Kind', 'ISIN', 'Name', 'Units', 'Value (₹)'],
        numeric: [4, 5],
        drop: [1, 0, 2],
        shrink: [3],
        rows: d.demat_accounts.flatMap((a) =>
          Object.entries(a.holdings).flatMap(([k, list]) =>
            list.map((h) => [dematAccountId(a), dematKindLabel(k), h.isin, h.name, fmt(h.units, 3), fmt(h.value)]),
          ),
        ),
      }),
    );
  }
  if (d.mutual_funds.length) {
    out.push(
      renderTable({
        title: 'Mutual funds',
        head: ['Folio', 'Scheme', 'Type', 'Units', 'NAV', 'Value (₹)', 'Gain (₹)', 'Gain %'],
        numeric: [3, 4, 5, 6, 7],
        drop: [2, 4, 7, 0, 3],
        shrink: [1],
        rows: d.mutual_funds.flatMap((f) =>
          f.schemes.map((s) => [
            f.folio_number,
            s.name,
            s.type,
            fmt(s.units, 3),
            fmt(s.nav, 4),
            fmt(s.value),
            fmt(s.gain.absolute),
            fmt(s.gain.percentage),
          ]),
        ),
      }),
    );
  }
  if (d.nps.length) {
    out.push(
      renderTable({
        title: 'NPS',
        head: ['PRAN', 'Fund', 'Tier', 'Units', 'NAV', 'Value (₹)'],
        numeric: [3, 4, 5],
        drop: [4, 0, 3],
        shrink: [1],
        rows: d.nps.flatMap((n) =>
          n.funds.map((f) => [n.pran, f.name, f.additional_info.tier, fmt(f.units, 4), fmt(f.nav, 4), fmt(f.value)]),
        ),
      }),
    );
  }
  if (d.insurance.life_insurance_policies.length) {
    out.push(
      renderTable({
        title: 'Life insurance',
        head: ['Policy', 'Provider', 'Name', 'Status', 'Sum assured (₹)', 'Premium (₹)'],
        numeric: [4, 5],
        drop: [1, 3, 5],
        shrink: [1, 2],
        rows: d.insurance.life_insurance_policies.map((p) => [
          p.policy_number,
          p.provider,
          p.policy_name,
          p.status,
          fmt(p.sum_assured),
          fmt(p.premium_amount),
        ]),
      }),
    );
  }
  if (withTransactions) {
    const rows = transactionRows(file, d).map((r): (string | number | null)[] => [
      r[4] as string,
      r[3] as string,
      r[5] as string,
      r[6] as string,
      fmt(r[7] as number | null),
      fmt(r[8] as number | null, 3),
      fmt(r[9] as number | null, 4),
      fmt(r[10] as number | null, 3),
    ]);
    out.push(
      renderTable({
        title: 'Transactions',
        head: ['Date', 'Scheme / security', 'Type', 'Description', 'Amount (₹)', 'Units', 'NAV', 'Balance'],
        numeric: [4, 5, 6, 7],
        drop: [3, 6, 7, 2],
        shrink: [1, 2, 3],
        rows,
      }),
    );
  }
  return out.join('\n');
}

/** The contract note's charges as people read them (the keys are the JSON's). */
export const CHARGE_LABELS: Record<keyof ContractNote['charges_summary'], string> = {
  taxable_value_brokerage: 'Brokerage (taxable value)',
  exchange_transaction_charges: 'Exchange transaction charges',
  regulator_turnover_fees: 'Regulator turnover fees',
  securities_transaction_tax: 'Securities transaction tax (STT)',
  stamp_duty: 'Stamp duty',
  cgst: 'CGST',
  sgst: 'SGST',
  igst: 'IGST',
  pay_in_pay_out_obligation: 'Pay-in / pay-out obligation',
  net_amount_receivable_payable: 'Net amount receivable / payable',
};

export function contractNoteTables(file: string, d: ContractNote): string {
  const out: string[] = [];
  out.push(
    renderKeyValues(file, [
      ['Broker', `${d.broker_info.name} (${d.broker_info.broker_type})`],
      ['Client', d.client_info.name],
      ['UCC', d.client_info.ucc],
      ['Contract note', d.contract_note_info.contract_note_number],
      ['Trade date', d.contract_note_info.trade_date],
    ]),
  );
  out.push(
    renderTable({
      title: 'Trades',
      head: ['Trade no.', 'Time', 'Security', 'B/S', 'Qty', 'Net rate (₹)', 'Net total (₹)'],
      numeric: [4, 5, 6],
      drop: [0, 1],
      shrink: [2],
      rows: d.detailed_trades.map((t) => [
        t.trade_number,
        t.trade_time,
        t.security_description,
        t.buy_sell,
        t.quantity,
        fmt(t.net_rate_per_unit, 4),
        fmt(t.net_total),
      ]),
    }),
  );
  const c = d.charges_summary;
  out.push(
    renderTable({
      title: 'Charges',
      head: ['Charge', 'Amount (₹)'],
      numeric: [1],
      rows: (Object.keys(CHARGE_LABELS) as (keyof typeof c)[]).map((k) => [CHARGE_LABELS[k], fmt(c[k])]),
    }),
  );
  return out.join('\n');
}
