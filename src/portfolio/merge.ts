/**
 * Merge: the holdings of many Parsed statements, keyed by folio or demat account and ISIN (NPS by
 * PRAN and fund), their transactions de-duplicated across statements, their balances and
 * valuations by date, the latest statement's balance winning, and the gaps the files leave.
 */
import type {
  DematAccount,
  Holdings,
  ParsedStatement,
  PortfolioAssetClass,
  PortfolioBalance,
  PortfolioGap,
  PortfolioSource,
  Transaction,
} from '../schema/index.js';
import { classifyScheme } from '../gains/classify.js';

export interface StatementInput {
  /** The file it was read from (null when sent without a name). */
  file: string | null;
  data: ParsedStatement;
}

/** One statement's view of a holding. */
export interface Sighting {
  source: number;
  from: string | null;
  to: string;
  open: number | null;
  close: number;
  value: number;
  nav: number | null;
  cost: number | null;
  transactions: Transaction[];
  /** A registrar statement (its folios are the registrar's own record). */
  registrar: boolean;
  isDemat: boolean;
}

export interface MergedTransaction extends Transaction {
  sources: number[];
}

export interface MergedHolding {
  key: string;
  kind: 'mutual_fund' | 'demat' | 'nps';
  account: string;
  provider: string;
  amc: string | null;
  isin: string | null;
  name: string;
  schemeType: string | null;
  assetClass: PortfolioAssetClass;
  sightings: Sighting[];
  /** The sighting whose balance and value win. */
  latest: Sighting;
  transactions: MergedTransaction[];
  balances: PortfolioBalance[];
  gaps: PortfolioGap[];
  countedElsewhere: string | null;
}

const compact = (s: string): string => s.replace(/\s+/g, '').toUpperCase();

export const DAY = 86_400_000;
export const addDays = (d: string, n: number): string => new Date(Date.parse(`${d}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);

const DEMAT_CLASS: Record<keyof Holdings, PortfolioAssetClass | null> = {
  equities: 'equity_shares',
  corporate_bonds: 'corporate_bonds',
  government_securities: 'government_securities',
  aifs: 'aifs',
  demat_mutual_funds: null,
};

function fundClass(name: string, type: 'Equity' | 'Debt' | 'Hybrid' | 'Other' | null, isin: string | null): PortfolioAssetClass {
  if (type === 'Equity') return 'equity_funds';
  if (type === 'Debt') return 'debt_funds';
  if (type === 'Hybrid') return 'hybrid_funds';
  if (type === 'Other') return 'other_funds';
  const c = classifyScheme(name, null, isin).asset_class;
  return c === 'equity' ? 'equity_funds' : c === 'debt' ? 'debt_funds' : 'other_funds';
}

/** The account of a demat holding: DP ID and client ID (a CDSL BO ID is the two together). */
export const dematAccount = (a: DematAccount): string => compact(`${a.dp_id}${a.client_id}`);

/**
 * The signature two statements print alike for one row: the date, units and amount (and, for rows
 * without units, the type: a stamp duty and a TDS of one amount on one day are two rows).
 */
const signature = (t: Transaction): string => `${t.date}|${t.units ?? `-|${t.type}`}|${t.amount ?? '-'}`;

/** Which sighting wins: the latest date; then a registrar's record of a folio; then a statement with a period (with transactions); then the first given. */
function better(a: Sighting, b: Sighting): boolean {
  if (a.to !== b.to) return a.to > b.to;
  if (a.registrar !== b.registrar) return a.registrar;
  if ((a.from !== null) !== (b.from !== null)) return a.from !== null;
  return a.source < b.source;
}

export function mergeHoldings(statements: StatementInput[]): { holdings: MergedHolding[]; sources: PortfolioSource[] } {
  const byKey = new Map<string, Omit<MergedHolding, 'latest' | 'transactions' | 'balances' | 'gaps' | 'countedElsewhere'>>();
  const see = (
    key: string,
    base: Omit<MergedHolding, 'latest' | 'transactions' | 'balances' | 'gaps' | 'countedElsewhere' | 'sightings'>,
    s: Sighting,
  ): void => {
    const h = byKey.get(key) ?? { ...base, sightings: [] };
    h.sightings.push(s);
    byKey.set(key, h);
  };
  statements.forEach(({ data: st }, i) => {
    const { from, to } = st.meta.statement_period;
    const registrar = st.meta.cas_type === 'REGISTRAR_A_REGISTRAR_B';
    for (const f of st.mutual_funds)
      for (const s of f.schemes) {
        const account = f.folio_number.replace(/\s+/g, '');
        const key = `mf|${account}|${s.isin ?? compact(s.name)}`;
        see(
          key,
          {
            key,
            kind: 'mutual_fund',
            account,
            provider: f.amc,
            amc: f.amc,
            isin: s.isin,
            name: s.name,
            schemeType: s.type,
            assetClass: fundClass(s.name, s.type, s.isin),
          },
          {
            source: i,
            from,
            to,
            open: s.additional_info.open_units,
            close: s.additional_info.close_units ?? s.units,
            value: s.value,
            nav: s.nav,
            cost: s.cost,
            transactions: s.transactions,
            registrar,
            isDemat: s.additional_info.is_demat,
          },
        );
      }
    for (const a of st.demat_accounts)
      for (const [kind, list] of Object.entries(a.holdings) as [keyof Holdings, Holdings[keyof Holdings]][])
        for (const h of list) {
          const account = dematAccount(a);
          const key = `demat|${account}|${h.isin}`;
          see(
            key,
            {
              key,
              kind: 'demat',
              account,
              provider: a.dp_name,
              amc: null,
              isin: h.isin,
              name: h.name,
              schemeType: null,
              assetClass: DEMAT_CLASS[kind] ?? fundClass(h.name, null, h.isin),
            },
            {
              source: i,
              from,
              to,
              open: h.additional_info.open_units,
              close: h.additional_info.close_units ?? h.units,
              value: h.value,
              nav: h.units ? h.value / h.units : null,
              cost: null,
              transactions: h.transactions,
              registrar: false,
              isDemat: true,
            },
          );
        }
    for (const n of st.nps)
      for (const fund of n.funds) {
        const key = `nps|${compact(n.pran)}|${compact(fund.name)}`;
        see(
          key,
          {
            key,
            kind: 'nps',
            account: n.pran,
            provider: n.cra,
            amc: null,
            isin: null,
            name: fund.name,
            schemeType: null,
            assetClass: 'nps',
          },
          {
            source: i,
            from,
            to,
            open: null,
            close: fund.units,
            value: fund.value,
            nav: fund.nav,
            cost: fund.cost,
            transactions: [],
            registrar: false,
            isDemat: false,
          },
        );
      }
  });

  // A depository statement lists every holding of a demat account: a later statement of the
  // account without the ISIN says it holds none (sold or transferred out in between).
  const accountSeen = new Map<string, { source: number; from: string | null; to: string }[]>();
  statements.forEach(({ data: st }, i) => {
    for (const a of st.demat_accounts) {
      const list = accountSeen.get(dematAccount(a)) ?? [];
      list.push({ source: i, ...st.meta.statement_period });
      accountSeen.set(dematAccount(a), list);
    }
  });
  for (const h of byKey.values()) {
    if (h.kind !== 'demat') continue;
    const last = h.sightings.reduce((a, b) => (b.to > a ? b.to : a), '');
    for (const seen of accountSeen.get(h.account) ?? [])
      if (seen.to > last && !h.sightings.some((x) => x.source === seen.source))
        h.sightings.push({
          ...seen,
          open: null,
          close: 0,
          value: 0,
          nav: null,
          cost: null,
          transactions: [],
          registrar: false,
          isDemat: true,
        });
  }

  const duplicates = new Map<number, number>();
  const holdings: MergedHolding[] = [...byKey.values()].map((h) => {
    const latest = h.sightings.reduce((a, b) => (better(b, a) ? b : a));
    // De-duplication as a multiset: a row printed n times by one statement is n rows; printed by
    // two statements, it is kept as often as the statement printing it most often does.
    const kept = new Map<string, MergedTransaction[]>();
    for (const s of [...h.sightings].sort((a, b) => a.source - b.source)) {
      const seen = new Map<string, number>();
      for (const t of s.transactions) {
        const sig = signature(t);
        const n = seen.get(sig) ?? 0;
        seen.set(sig, n + 1);
        const rows = kept.get(sig) ?? [];
        if (n < rows.length) {
          if (!rows[n].sources.includes(s.source)) rows[n].sources.push(s.source);
          duplicates.set(s.source, (duplicates.get(s.source) ?? 0) + 1);
        } else {
          rows.push({ ...t, sources: [s.source] });
          kept.set(sig, rows);
        }
      }
    }
    const transactions = [...kept.values()].flat().sort((a, b) => a.date.localeCompare(b.date));
    // Balances: printed, else carried from the row before (rows without units change nothing).
    let carried: number | null = null;
    const first = [...h.sightings].filter((s) => s.from !== null).sort((a, b) => a.from!.localeCompare(b.from!))[0];
    if (first && first.open !== null) carried = first.open;
    for (const t of transactions) {
      if (t.balance !== null) carried = t.balance;
      else if (t.units !== null && carried !== null) {
        carried = Math.round((carried + t.units) * 10_000) / 10_000;
        t.balance = carried;
      } else if (carried !== null && t.units === null) t.balance = carried;
    }
    const balances: PortfolioBalance[] = [];
    for (const s of h.sightings) {
      if (s.from !== null && s.open !== null)
        balances.push({ date: addDays(s.from, -1), units: s.open, value: s.open === 0 ? 0 : null, source: s.source });
      balances.push({ date: s.to, units: s.close, value: s.value, source: s.source });
    }
    balances.sort((a, b) => a.date.localeCompare(b.date) || a.source - b.source);
    return { ...h, latest, transactions, balances, gaps: gapsOf(h.sightings), countedElsewhere: null };
  });

  // A registrar folio's units held in demat are the demat account's: counted once, there.
  const dematIsins = new Map<string, string>();
  for (const h of holdings) if (h.kind === 'demat' && h.isin && h.latest.close > 0) dematIsins.set(h.isin, h.key);
  for (const h of holdings)
    if (h.kind === 'mutual_fund' && h.latest.isDemat && h.isin && dematIsins.has(h.isin)) h.countedElsewhere = dematIsins.get(h.isin)!;

  const sources: PortfolioSource[] = statements.map(({ file, data }, index) => ({
    index,
    file,
    cas_type: data.meta.cas_type,
    from: data.meta.statement_period.from,
    to: data.meta.statement_period.to,
    pan: data.investor.pan,
    investor: data.investor.name,
    duplicate_transactions: duplicates.get(index) ?? 0,
  }));
  return { holdings, sources };
}

/**
 * Gaps: the statements of a holding side by side in time; where one ends before the next begins
 * and the units changed in between, the rows of that stretch are missing from the files.
 */
function gapsOf(sightings: Sighting[]): PortfolioGap[] {
  const gaps: PortfolioGap[] = [];
  const ordered = [...sightings].sort((a, b) => (a.from ?? a.to).localeCompare(b.from ?? b.to) || a.to.localeCompare(b.to));
  let coveredTo: string | null = null;
  let units: number | null = null;
  const same = (a: number, b: number): boolean => Math.abs(a - b) < 0.0005;
  for (const s of ordered) {
    if (coveredTo !== null && units !== null) {
      const start = s.from ?? s.to;
      const at = s.from !== null ? s.open : s.close;
      if (start > addDays(coveredTo, 1) && at !== null && !same(at, units))
        gaps.push({
          from: addDays(coveredTo, 1),
          to: s.from !== null ? addDays(s.from, -1) : s.to,
          units_before: units,
          units_after: at,
          message: `no statement covers ${addDays(coveredTo, 1)} to ${s.from !== null ? addDays(s.from, -1) : s.to}, and the units went from ${units} to ${at}: the transactions of that period are missing`,
        });
    }
    if (coveredTo === null || s.to >= coveredTo) {
      coveredTo = s.to;
      units = s.close;
    }
  }
  return gaps;
}
