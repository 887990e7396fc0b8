/**
 * One portfolio from many Parsed statements (no new parsing): the holdings merged (merge.ts), the
 * cash flows the statements print turned into returns (rules.ts, xirr.ts) per holding, folio, AMC,
 * asset class and for the whole portfolio, since inception and per financial year, and the value
 * and net invested amount over time.
 */
import type {
  Portfolio,
  PortfolioAssetClass,
  PortfolioGroup,
  PortfolioHolding,
  PortfolioIssue,
  PortfolioPoint,
  PortfolioReturn,
  PortfolioYearReturn,
} from '../schema/index.js';
import { addDays, mergeHoldings, type MergedHolding, type StatementInput } from './merge.js';
import { FLOW_KIND, flowPaise, fyBounds, fyOf, NO_MONEY } from './rules.js';
import { xirr, type Flow } from './xirr.js';

export { xirr, newton, timed, type Flow, type XirrResult } from './xirr.js';
export { flowPaise, fyOf, FLOW_KIND } from './rules.js';
export type { StatementInput } from './merge.js';

/** Statements of more than one investor (different PANs), refused unless asked for. */
export class MixedInvestorsError extends Error {
  constructor(readonly pans: string[]) {
    super(
      `the statements belong to ${pans.length} investors (PANs ${pans.join(', ')}): give one investor's statements, or allow it with --allow-mixed-investors`,
    );
  }
}

export interface PortfolioOptions {
  allowMixedInvestors?: boolean;
  /** Files that did not parse, reported beside the portfolio. */
  leftOut?: { file: string | null; message: string }[];
}

const rupees = (paise: number): number => Math.round(paise) / 100;
const paiseOf = (v: number): number => Math.round(v * 100);
const rateOf = (r: number): number => Math.round(r * 1e8) / 1e8;

/** A dated flow in paise. */
interface PFlow {
  date: string;
  paise: number;
  payout: boolean;
}

interface Computed {
  h: MergedHolding;
  flows: PFlow[];
  /** Every row that moves units prints its amount, and no gap: the flows are the whole story in the files. */
  flowsOk: boolean;
  /** The first balance is zero units: the files reach back to the first purchase. */
  inception: string | null;
  value: number;
  asOf: string;
  reason: string | null;
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

/** Units held at the end of day `d` (null when the files do not say). */
function unitsAt(h: MergedHolding, d: string): number | null {
  let best: { date: string; units: number; rank: number } | null = null;
  for (const b of h.balances)
    if (b.date <= d && (!best || b.date > best.date || (b.date === best.date && best.rank < 1)))
      best = { date: b.date, units: b.units, rank: 1 };
  for (const t of h.transactions)
    if (t.date <= d && t.balance !== null && (!best || t.date > best.date)) best = { date: t.date, units: t.balance, rank: 0 };
  if (best) return best.units;
  const first = h.balances[0];
  return first && first.units === 0 ? 0 : null;
}

/** The value at the end of day `d`: a statement's valuation of that day, or zero when no units are held. */
function valueAt(h: MergedHolding, d: string): number | null {
  if (h.latest.to === d) return h.latest.value;
  const v = h.balances.filter((b) => b.date === d && b.value !== null);
  if (v.length) return v.reduce((a, b) => (b.source < a.source ? b : a)).value;
  const u = unitsAt(h, d);
  return u !== null && Math.abs(u) < 0.0005 ? 0 : null;
}

/** The NAV at the end of day `d`: the last printed on or before it (a row's NAV, or a statement's value / units). */
function navAt(h: MergedHolding, d: string): number | null {
  let best: { date: string; nav: number } | null = null;
  for (const t of h.transactions) if (t.date <= d && t.nav !== null && (!best || t.date >= best.date)) best = { date: t.date, nav: t.nav };
  for (const b of h.balances)
    if (b.date <= d && b.value !== null && b.units > 0 && (!best || b.date >= best.date)) best = { date: b.date, nav: b.value / b.units };
  return best?.nav ?? null;
}

function compute(h: MergedHolding): Computed {
  const flows: PFlow[] = [];
  let missing = false;
  for (const t of h.transactions) {
    const p = flowPaise(t.type, t.amount);
    if (p !== null) flows.push({ date: t.date, paise: p, payout: FLOW_KIND[t.type] === 'payout' || t.type === 'TDS_TAX' });
    else if (FLOW_KIND[t.type] !== 'none' && !NO_MONEY.has(t.type) && (t.units ?? 0) !== 0) missing = true;
  }
  const value = h.latest.value;
  const first = h.balances[0];
  const inception = first && first.units === 0 ? addDays(first.date, 1) : null;
  const base = { h, flows, value, asOf: h.latest.to };
  let reason: string | null = null;
  if (h.countedElsewhere) reason = `these units are held in demat and counted there (${h.countedElsewhere})`;
  else if (!h.transactions.length && h.latest.close === 0 && value === 0) reason = 'nothing held, and no transactions in the files';
  else if (h.kind === 'nps') reason = 'an NPS statement prints units and value, not the contributions: no cash flows to solve on';
  else if (h.kind === 'demat' && !h.transactions.length)
    reason = 'a depository statement prints units and value, not the amounts paid: no cash flows to solve on';
  else if (!h.transactions.length && h.sightings.every((s) => s.from === null || !s.registrar))
    reason = 'a summary or depository statement prints the value, not the transactions: give a detailed registrar statement';
  else if (missing) reason = 'the statement prints the units of its transactions but not their amounts (depository statements do not)';
  else if (h.gaps.length)
    reason = `transactions are missing: ${h.gaps.map((g) => `${g.from ?? '?'} to ${g.to}`).join(', ')} (no statement covers it)`;
  else if (!inception)
    reason = first
      ? `${first.units} units were held on ${first.date} and their purchase is not in the files: give a statement since the first purchase`
      : 'no balance to start from';
  return { ...base, flowsOk: !missing && !h.gaps.length && !h.countedElsewhere && h.kind !== 'nps', inception, reason };
}

function solve(flows: Flow[], from: string | null, to: string | null): PortfolioReturn['xirr'] {
  const r = xirr(flows);
  return { rate: r.rate === null ? null : rateOf(r.rate), reason: r.reason, flows: flows.filter((f) => f.amount !== 0).length, from, to };
}

/** Money of a set of flows: net invested (payouts apart), payouts, and the gain with the final value. */
function money(flows: PFlow[], value: number, start = 0): { invested: number; payouts: number; gain: number } {
  const invested = -sum(flows.filter((f) => !f.payout).map((f) => f.paise)) + start;
  const payouts = sum(flows.filter((f) => f.payout).map((f) => f.paise));
  return { invested: rupees(invested), payouts: rupees(payouts), gain: rupees(paiseOf(value) + payouts - invested) };
}

/** Since inception over the holdings whose files reach their first purchase. */
function sinceInception(members: Computed[]): { ret: PortfolioReturn; leftOut: string[] } {
  const ok = members.filter((c) => c.flowsOk && c.inception);
  const leftOut = members.filter((c) => !(c.flowsOk && c.inception)).map((c) => c.h.key);
  if (members.length === 1 && !ok.length) {
    const c = members[0];
    const cost = c.h.latest.cost;
    return {
      ret: {
        xirr: { rate: null, reason: c.reason, flows: 0, from: null, to: c.asOf },
        invested: cost,
        value: c.value,
        payouts: null,
        gain: cost === null ? null : rupees(paiseOf(c.value) - paiseOf(cost)),
      },
      leftOut,
    };
  }
  if (!ok.length)
    return {
      ret: {
        xirr: {
          rate: null,
          reason: `no holding here has its transactions since the first purchase (${leftOut.length} left out)`,
          flows: 0,
          from: null,
          to: null,
        },
        invested: null,
        value: rupees(sum(members.map((c) => paiseOf(c.value)))),
        payouts: null,
        gain: null,
      },
      leftOut,
    };
  const flows = ok.flatMap((c) => c.flows);
  const value = sum(ok.map((c) => paiseOf(c.value)));
  const xf: Flow[] = [
    ...flows.map((f) => ({ date: f.date, amount: f.paise / 100 })),
    ...ok.map((c) => ({ date: c.asOf, amount: c.value })),
  ];
  const from = ok.map((c) => c.inception!).sort()[0];
  const to = ok
    .map((c) => c.asOf)
    .sort()
    .at(-1)!;
  const x = solve(xf, from, to);
  if (x.rate === null && members.length === 1 && members[0].h.transactions.some((t) => t.type === 'SEGREGATION'))
    x.reason =
      'units allotted by segregation at no cost: their return belongs to the scheme they were split from (their value counts in the folio and the portfolio)';
  if (x.rate === null && members.length === 1 && members[0].reason) x.reason = members[0].reason;
  return { ret: { xirr: x, value: rupees(value), ...money(flows, value / 100) }, leftOut };
}

/** One financial year of a set of holdings: the value on the day before it, the flows in it, the value at its end (or the latest). */
function year(members: Computed[], fy: string): PortfolioYearReturn | null {
  const { before, last } = fyBounds(fy);
  const parts: { start: number; end: number; flows: PFlow[]; endDate: string }[] = [];
  const leftOut: { key: string; reason: string }[] = [];
  for (const c of members) {
    if (c.h.countedElsewhere) continue;
    const end = c.asOf < last ? c.asOf : last;
    if (end <= before) continue;
    const flows = c.flows.filter((f) => f.date > before && f.date <= end);
    const v0 = valueAt(c.h, before);
    const v1 = valueAt(c.h, end);
    const u0 = unitsAt(c.h, before);
    const active = c.h.transactions.some((t) => t.date > before && t.date <= end);
    // Not held in the year: nothing before it (or zero units), nothing in it.
    if (
      !active &&
      (v0 === 0 || u0 === null) &&
      (v1 === 0 || v1 === null) &&
      c.h.balances.every((b) => b.date <= before || b.date > end || b.units === 0)
    )
      continue;
    if (!c.flowsOk) leftOut.push({ key: c.h.key, reason: c.reason ?? 'no cash flows' });
    else if (v0 === null)
      leftOut.push({ key: c.h.key, reason: `no valuation on ${before} (${u0 ?? 'unknown'} units held): give a statement ending that day` });
    else if (v1 === null) leftOut.push({ key: c.h.key, reason: `no valuation on ${end}: give a statement ending that day` });
    else parts.push({ start: v0, end: v1, flows, endDate: end });
  }
  if (!parts.length && !leftOut.length) return null;
  if (!parts.length)
    return {
      fy,
      xirr: {
        rate: null,
        reason:
          leftOut.length === 1
            ? leftOut[0].reason
            : `none of the ${leftOut.length} holdings of the year can be valued on ${before} and at its end with its cash flows (first: ${leftOut[0].reason})`,
        flows: 0,
        from: before,
        to: last,
      },
      invested: null,
      value: null,
      payouts: null,
      gain: null,
      left_out: leftOut,
    };
  const start = sum(parts.map((p) => paiseOf(p.start)));
  const endValue = sum(parts.map((p) => paiseOf(p.end)));
  const flows = parts.flatMap((p) => p.flows);
  const to = parts
    .map((p) => p.endDate)
    .sort()
    .at(-1)!;
  const xf: Flow[] = [
    { date: before, amount: -start / 100 },
    ...flows.map((f) => ({ date: f.date, amount: f.paise / 100 })),
    ...parts.map((p) => ({ date: p.endDate, amount: p.end })),
  ];
  return { fy, xirr: solve(xf, before, to), value: rupees(endValue), ...money(flows, endValue / 100, start), left_out: leftOut };
}

function years(members: Computed[]): PortfolioYearReturn[] {
  const fys = new Set<string>();
  for (const c of members) {
    const first = c.h.balances[0]?.date ?? c.asOf;
    for (
      let fy = fyOf(addDays(first, 1));
      fy <= fyOf(c.asOf);
      fy = `${Number(fy.slice(0, 4)) + 1}-${String((Number(fy.slice(0, 4)) + 2) % 100).padStart(2, '0')}`
    )
      fys.add(fy);
  }
  return [...fys]
    .sort()
    .map((fy) => year(members, fy))
    .filter((y): y is PortfolioYearReturn => y !== null);
}

function group(name: string, members: Computed[]): PortfolioGroup {
  const counted = members.filter((c) => !c.h.countedElsewhere);
  const { ret, leftOut } = sinceInception(counted);
  return {
    name,
    holdings: counted.length,
    value: rupees(sum(counted.map((c) => paiseOf(c.value)))),
    since_inception: ret,
    years: years(counted),
    left_out: leftOut,
  };
}

function groupBy(items: Computed[], key: (c: Computed) => string | null): PortfolioGroup[] {
  const m = new Map<string, Computed[]>();
  for (const c of items) {
    const k = key(c);
    if (k !== null) m.set(k, [...(m.get(k) ?? []), c]);
  }
  return [...m].map(([k, cs]) => group(k, cs));
}

function monthEnds(from: string, to: string): string[] {
  const out: string[] = [];
  let y = Number(from.slice(0, 4));
  let m = Number(from.slice(5, 7));
  for (;;) {
    const end = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
    if (end > to) break;
    out.push(end);
    m++;
    if (m > 12) {
      m = 1;
      y++;
    }
  }
  return out;
}

function timeline(items: Computed[], asOf: string): PortfolioPoint[] {
  const counted = items.filter((c) => !c.h.countedElsewhere);
  const dates = new Set<string>();
  for (const c of counted) for (const b of c.h.balances) if (b.value !== null && b.date <= asOf) dates.add(b.date);
  const firsts = counted.flatMap((c) => [c.h.balances[0]?.date, c.h.transactions[0]?.date]).filter((d): d is string => Boolean(d));
  if (!firsts.length) return [];
  const start = firsts.sort()[0];
  for (const d of monthEnds(start, asOf)) dates.add(d);
  return [...dates].sort().map((d) => {
    let value = 0;
    let invested = 0;
    let unvalued = 0;
    for (const c of counted) {
      const u = unitsAt(c.h, d);
      if (c.flowsOk && c.inception) invested -= sum(c.flows.filter((f) => f.date <= d && !f.payout).map((f) => f.paise));
      else {
        const s = c.h.sightings
          .filter((x) => x.to <= d && x.cost !== null)
          .sort((a, b) => a.to.localeCompare(b.to))
          .at(-1);
        if (s && u !== null && u > 0) invested += paiseOf(s.cost!);
      }
      if (u === null || Math.abs(u) < 0.0005) continue;
      const exact = valueAt(c.h, d);
      if (exact !== null) {
        value += paiseOf(exact);
        continue;
      }
      const nav = navAt(c.h, d);
      if (nav === null) unvalued++;
      else value += Math.round(u * nav * 100);
    }
    return { date: d, value: rupees(value), invested: rupees(invested), unvalued };
  });
}

/** The investors of the statements (by PAN, those without one apart); more than one PAN is refused unless allowed. */
export function investorsOf(statements: StatementInput[], opts: PortfolioOptions = {}): { name: string; pan: string | null }[] {
  const byPan = new Map<string, string>();
  const noPan = new Set<string>();
  for (const { data } of statements) {
    const pan = data.investor.pan?.toUpperCase() ?? null;
    if (pan) byPan.set(pan, byPan.get(pan) ?? data.investor.name);
    else noPan.add(data.investor.name);
  }
  if (byPan.size > 1 && !opts.allowMixedInvestors) throw new MixedInvestorsError([...byPan.keys()]);
  const out: { name: string; pan: string | null }[] = [...byPan].map(([pan, name]) => ({ name, pan }));
  for (const name of noPan) if (!out.some((o) => o.name.toUpperCase() === name.toUpperCase())) out.push({ name, pan: null });
  return out;
}

export function computePortfolio(statements: StatementInput[], opts: PortfolioOptions = {}): Portfolio {
  if (!statements.length) throw new Error('no statements to merge');
  const investors = investorsOf(statements, opts);
  const { holdings, sources } = mergeHoldings(statements);
  const asOf = statements
    .map((s) => s.data.meta.statement_period.to)
    .sort()
    .at(-1)!;
  const items = holdings.map(compute);
  const issues: PortfolioIssue[] = [];
  if (investors.filter((i) => i.pan).length > 1)
    issues.push({ key: null, message: `statements of ${investors.length} investors merged (--allow-mixed-investors)` });
  for (const c of items) {
    for (const g of c.h.gaps) issues.push({ key: c.h.key, message: `${c.h.name} [${c.h.account}]: ${g.message}` });
    if (c.h.countedElsewhere)
      issues.push({ key: c.h.key, message: `${c.h.name} [${c.h.account}]: held in demat, counted in ${c.h.countedElsewhere}` });
  }

  const out: PortfolioHolding[] = items.map((c) => {
    const { ret } = sinceInception([c]);
    return {
      key: c.h.key,
      kind: c.h.kind,
      account: c.h.account,
      provider: c.h.provider,
      amc: c.h.amc,
      isin: c.h.isin,
      name: c.h.name,
      asset_class: c.h.assetClass,
      units: c.h.latest.close,
      nav: c.h.latest.nav,
      value: c.h.latest.value,
      cost: c.h.latest.cost,
      source: { index: c.h.latest.source, file: statements[c.h.latest.source].file, as_of: c.h.latest.to },
      counted_elsewhere: c.h.countedElsewhere,
      transactions: c.h.transactions.map((t) => {
        const p = flowPaise(t.type, t.amount);
        return {
          date: t.date,
          type: t.type,
          description: t.description,
          amount: t.amount,
          units: t.units,
          nav: t.nav,
          balance: t.balance,
          flow: p === null ? null : rupees(p),
          sources: t.sources,
        };
      }),
      balances: c.h.balances,
      gaps: c.h.gaps,
      since_inception: ret,
      years: years([c]),
    };
  });

  const counted = items.filter((c) => !c.h.countedElsewhere);
  const shares = <K extends string>(key: (c: Computed) => K | null): [K, number][] => {
    const m = new Map<K, number>();
    for (const c of counted) {
      const k = key(c);
      if (k !== null) m.set(k, (m.get(k) ?? 0) + paiseOf(c.value));
    }
    return [...m].sort((a, b) => b[1] - a[1]);
  };
  return {
    investors,
    as_of: asOf,
    sources,
    left_out: opts.leftOut ?? [],
    totals: {
      value: rupees(sum(counted.map((c) => paiseOf(c.value)))),
      holdings: counted.length,
      by_asset_class: shares<PortfolioAssetClass>((c) => c.h.assetClass).map(([asset_class, v]) => ({ asset_class, value: rupees(v) })),
      by_amc: shares((c) => c.h.amc).map(([amc, v]) => ({ amc, value: rupees(v) })),
    },
    holdings: out,
    returns: {
      portfolio: group('portfolio', items),
      by_folio: groupBy(items, (c) => (c.h.kind === 'nps' ? null : c.h.account)),
      by_amc: groupBy(items, (c) => c.h.amc),
      by_asset_class: groupBy(items, (c) => c.h.assetClass),
    },
    timeline: timeline(items, asOf),
    issues,
  };
}
