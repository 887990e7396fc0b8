/** Tables and the CSV of a portfolio (`cas portfolio`): holdings, returns by group, what to check. */
import type { Portfolio, PortfolioAssetClass, PortfolioGroup, PortfolioReturn, Xirr } from '../schema/index.js';
import { inr, renderNotes, renderTable, terminalWidth, toCsv, wrap } from './output.js';

export const ASSET_CLASS_LABELS: Record<PortfolioAssetClass, string> = {
  equity_funds: 'Equity funds',
  debt_funds: 'Debt funds',
  hybrid_funds: 'Hybrid funds',
  other_funds: 'Other funds',
  equity_shares: 'Equity shares',
  corporate_bonds: 'Corporate bonds',
  government_securities: 'Government securities',
  aifs: 'AIFs',
  nps: 'NPS',
};

/** 0.123456 -> `12.35%`; null -> `—`. */
export const percent = (x: Xirr): string => (x.rate === null ? '—' : `${(x.rate * 100).toFixed(2)}%`);
const money = (v: number | null): string => (v === null ? '—' : inr(v));

function groupRows(groups: PortfolioGroup[], label: (g: PortfolioGroup) => string): (string | number)[][] {
  return groups.map((g) => [
    label(g),
    g.holdings,
    inr(g.value),
    money(g.since_inception.invested),
    money(g.since_inception.gain),
    percent(g.since_inception.xirr),
    g.left_out.length,
  ]);
}

const GROUP_HEAD = ['Holdings', 'Value (₹)', 'Invested (₹)', 'Gain (₹)', 'XIRR', 'Left out'];

export function portfolioTables(p: Portfolio): string {
  const parts: string[] = [];
  const total = p.returns.portfolio;
  parts.push(
    renderTable({
      title: `Portfolio of ${p.investors.map((i) => i.name).join(', ')} as of ${p.as_of} (${p.sources.length} ${p.sources.length === 1 ? 'statement' : 'statements'})`,
      head: ['Account', 'Holding', 'Class', 'Units', 'Value (₹)', 'Invested (₹)', 'Gain (₹)', 'XIRR', 'As of'],
      numeric: [3, 4, 5, 6, 7],
      drop: [8, 3, 2, 5, 0],
      shrink: [1, 0],
      rows: p.holdings.map((h) => [
        h.account,
        h.counted_elsewhere ? `${h.name} (in demat)` : h.name,
        ASSET_CLASS_LABELS[h.asset_class],
        inr(h.units, 3),
        inr(h.value),
        money(h.since_inception.invested),
        money(h.since_inception.gain),
        percent(h.since_inception.xirr),
        h.source.as_of,
      ]),
    }),
  );
  parts.push(
    renderTable({
      title: 'By asset class',
      head: ['Class', ...GROUP_HEAD],
      numeric: [1, 2, 3, 4, 5, 6],
      drop: [6, 3, 1],
      rows: groupRows(p.returns.by_asset_class, (g) => ASSET_CLASS_LABELS[g.name as PortfolioAssetClass] ?? g.name),
    }),
  );
  if (p.returns.by_amc.length)
    parts.push(
      renderTable({
        title: 'By AMC',
        head: ['AMC', ...GROUP_HEAD],
        numeric: [1, 2, 3, 4, 5, 6],
        drop: [6, 3, 1],
        shrink: [0],
        rows: groupRows(p.returns.by_amc, (g) => g.name),
      }),
    );
  const years = total.years;
  if (years.length)
    parts.push(
      renderTable({
        title: 'Portfolio by financial year',
        head: ['FY', 'Invested (₹)', 'Value at end (₹)', 'Gain (₹)', 'XIRR', 'Left out'],
        numeric: [1, 2, 3, 4, 5],
        drop: [5, 1],
        rows: years.map((y) => [y.fy, money(y.invested), money(y.value), money(y.gain), percent(y.xirr), y.left_out.length]),
      }),
    );
  const line = (r: PortfolioReturn): string =>
    `Total value ₹${inr(total.value)}; since inception, over ${total.holdings - total.left_out.length} of ${total.holdings} holdings: invested ₹${money(r.invested)}, gain ₹${money(r.gain)}, XIRR ${percent(r.xirr)}${r.xirr.reason ? ` (${r.xirr.reason})` : ''}`;
  parts.push(`${wrap(line(total.since_inception), terminalWidth(), '  ')}\n`);
  // Why a holding has no XIRR: the holdings named when few share a reason, counted when many do.
  const reasons = new Map<string, string[]>();
  for (const h of p.holdings) {
    const r = h.since_inception.xirr.reason;
    if (r) reasons.set(r, [...(reasons.get(r) ?? []), `${h.name} [${h.account}]`]);
  }
  const notes = [
    ...p.left_out.map((l) => `left out: ${l.file ?? 'a file'}: ${l.message}`),
    ...p.issues.map((i) => i.message),
    ...[...reasons].map(([r, names]) => `no XIRR for ${names.length > 2 ? `${names.length} holdings` : names.join(', ')}: ${r}`),
  ];
  if (notes.length) parts.push(renderNotes('To check', notes));
  return parts.join('\n');
}

export const PORTFOLIO_CSV_COLUMNS = [
  'key',
  'kind',
  'account',
  'provider',
  'isin',
  'name',
  'asset_class',
  'units',
  'nav',
  'value',
  'as_of',
  'source_file',
  'invested',
  'payouts',
  'gain',
  'xirr',
  'xirr_reason',
  'counted_elsewhere',
  'gaps',
];

/** One line per holding. */
export function portfolioCsv(p: Portfolio): string {
  return toCsv(
    PORTFOLIO_CSV_COLUMNS,
    p.holdings.map((h) => [
      h.key,
      h.kind,
      h.account,
      h.provider,
      h.isin ?? '',
      h.name,
      h.asset_class,
      h.units,
      h.nav ?? '',
      h.value.toFixed(2),
      h.source.as_of,
      h.source.file ?? '',
      h.since_inception.invested?.toFixed(2) ?? '',
      h.since_inception.payouts?.toFixed(2) ?? '',
      h.since_inception.gain?.toFixed(2) ?? '',
      h.since_inception.xirr.rate ?? '',
      h.since_inception.xirr.reason ?? '',
      h.counted_elsewhere ?? '',
      h.gaps.map((g) => `${g.from ?? ''}..${g.to}`).join(' '),
    ]),
  );
}
