/**
 * `cas parse --format html`: one self-contained page from parsed statements and contract notes.
 * A pure function of the parsed objects: no clock, no files, no network. The page carries its own
 * CSS (allowed by hash in a Content-Security-Policy that allows nothing else: no script, no
 * fetch, no font, no image but data:), charts drawn as inline SVG from the data (a donut by asset
 * class, bars by AMC; bars of the charges for a contract note) with a title, a description and
 * the values written beside them, and the tables. Every string from a PDF is escaped.
 */
import { createHash } from 'node:crypto';
import type { ContractNote, ParsedStatement, Portfolio, PortfolioPoint } from '../schema/index.js';
import { FORMATS } from '../formats/index.js';
import { inr } from './output.js';
import { CHARGE_LABELS, dematAccountId, dematKindLabel, isStatement, transactionRows } from './render-statement.js';
import { ASSET_CLASS_LABELS, percent } from './render-portfolio.js';

export interface ReportItem {
  file: string;
  data: ParsedStatement | ContractNote;
}

/** One slice of a chart. */
export interface Share {
  label: string;
  value: number;
}

/** Text for HTML (element content and double-quoted attributes). */
export function esc(v: unknown): string {
  return String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const DASH = '—';
/** Rupees with Indian digit grouping: ₹12,34,567.89, -₹6,424.60. */
const money = (v: number | null | undefined, decimals = 2): string =>
  v === null || v === undefined ? '' : `${v < 0 ? '-' : ''}₹${inr(Math.abs(v), decimals)}`;
const pct = (part: number, whole: number): string => `${whole ? ((part / whole) * 100).toFixed(1) : '0.0'}%`;

/** The Okabe-Ito colours (told apart with colour-blindness), then greys. */
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000', '#999999', '#666666'];
const colour = (i: number): string => PALETTE[i % PALETTE.length];
/** Text on a slice: dark on the light colours, white on the dark ones. */
const ink = (i: number): string => (['#E69F00', '#56B4E9', '#F0E442', '#999999'].includes(colour(i)) ? '#1d232a' : '#ffffff');

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:#1d232a;background:#f4f6f8}
main{max-width:1180px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:19px;margin:0 0 12px;word-break:break-all}
h3{font-size:16px;margin:24px 0 8px}
.sub{color:#5b6670;margin:0 0 16px}
nav ul{margin:0 0 16px;padding-left:20px}
a{color:#0b5cad}
section.statement{background:#fff;border:1px solid #d8dee4;border-radius:8px;padding:20px 24px;margin:0 0 24px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0 0 16px}
dl.facts dt{color:#5b6670}
dl.facts dd{margin:0;word-break:break-word}
.total{font-size:20px;margin:8px 0 16px}
.total strong{font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:24px}
figure{margin:0;flex:1 1 380px;min-width:0}
figure.wide{flex:3 1 660px}
figcaption{font-weight:600;margin:0 0 8px}
.chart{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}
.chart svg{flex:none;max-width:100%;height:auto}
.empty{color:#5b6670;font-style:italic}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;margin:0 0 8px}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{padding:4px 8px;border-bottom:1px solid #e6eaee;text-align:left;vertical-align:top}
thead th{background:#eef1f4;border-bottom:1px solid #c9d1d9;white-space:nowrap}
td.date{white-space:nowrap}
table.narrow{width:auto;min-width:50%}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.sum td{font-weight:600;border-top:1px solid #c9d1d9}
table.legend{width:auto;flex:1 1 240px}
table.legend td:first-child{white-space:nowrap}
.slice-label{font:600 11px system-ui,sans-serif}
.bar-label{font:12px system-ui,sans-serif;fill:#1d232a}
.bar-value{font:12px system-ui,sans-serif;fill:#5b6670}
.axis{font:11px system-ui,sans-serif;fill:#5b6670}
ul.notes{margin:0 0 8px;padding-left:20px}
@media print{body{background:#fff}section.statement{border:0;padding:0;break-inside:avoid-page}}
`;

/** The policy: the style above by its hash, images only as data:, nothing else (no script, no connection). */
const CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; img-src data:; base-uri 'none'; form-action 'none'`;

/** A table: the last `numeric` columns hold numbers (right-aligned), the first a date when `dated` (kept on one line). */
interface Grid {
  caption: string;
  head: string[];
  numeric: number;
  rows: string[][];
  sum?: string[];
  narrow?: boolean;
  dated?: boolean;
}

function table(g: Grid): string {
  const first = g.head.length - g.numeric;
  const cls = (i: number): string => (i >= first ? ' class="num"' : g.dated && i === 0 ? ' class="date"' : '');
  const row = (r: string[]): string => r.map((c, i) => `<td${cls(i)}>${esc(c)}</td>`).join('');
  return `<div class="scroll"><table${g.narrow ? ' class="narrow"' : ''}>
<caption>${esc(g.caption)}</caption>
<thead><tr>${g.head.map((h, i) => `<th scope="col"${i >= first ? ' class="num"' : ''}>${esc(h)}</th>`).join('')}</tr></thead>
<tbody>
${g.rows.map((r) => `<tr>${row(r)}</tr>`).join('\n')}
${g.sum ? `<tr class="sum">${row(g.sum)}</tr>` : ''}
</tbody></table></div>`;
}

function facts(pairs: [string, string | null | undefined][]): string {
  return `<dl class="facts">${pairs.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v || DASH)}</dd>`).join('')}</dl>`;
}

/** The legend beside a chart: colour, label, value, share: the chart's numbers as text. */
function legend(shares: Share[], total: number): string {
  const swatch = (i: number): string =>
    `<svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" rx="2" fill="${colour(i)}"/></svg>`;
  return `<table class="legend"><thead><tr><th scope="col">Class</th><th scope="col" class="num">Value</th><th scope="col" class="num">Share</th></tr></thead><tbody>
${shares.map((s, i) => `<tr><td>${swatch(i)} ${esc(s.label)}</td><td class="num">${esc(money(s.value))}</td><td class="num">${pct(s.value, total)}</td></tr>`).join('\n')}
<tr class="sum"><td>Total</td><td class="num">${esc(money(total))}</td><td class="num">100.0%</td></tr>
</tbody></table>`;
}

const describe = (shares: Share[], total: number): string =>
  shares.map((s) => `${s.label}: ${money(s.value)} (${pct(s.value, total)})`).join('; ');

/** A point on a circle of radius `r` round the donut's centre, `turn` turns clockwise from 12 o'clock. */
const DONUT = { c: 110, outer: 102, inner: 58 };
function at(r: number, turn: number): string {
  const a = turn * 2 * Math.PI - Math.PI / 2;
  return `${(DONUT.c + r * Math.cos(a)).toFixed(2)} ${(DONUT.c + r * Math.sin(a)).toFixed(2)}`;
}

/** The ring between `from` and `to` (in turns) as a filled path; the whole ring as two circles (even-odd). */
function ringPath(from: number, to: number): string {
  const { outer: R, inner: r } = DONUT;
  if (to - from >= 0.99999)
    return `M ${at(R, 0)} A ${R} ${R} 0 1 1 ${at(R, 0.5)} A ${R} ${R} 0 1 1 ${at(R, 0)} Z M ${at(r, 0)} A ${r} ${r} 0 1 0 ${at(r, 0.5)} A ${r} ${r} 0 1 0 ${at(r, 0)} Z`;
  const large = to - from > 0.5 ? 1 : 0;
  return `M ${at(R, from)} A ${R} ${R} 0 ${large} 1 ${at(R, to)} L ${at(r, to)} A ${r} ${r} 0 ${large} 0 ${at(r, from)} Z`;
}

/** A donut of the shares (one `path.slice` each), its percentages on the ring; `id` names its title and description. */
export function donut(id: string, title: string, shares: Share[]): string {
  const list = shares.filter((s) => s.value > 0);
  const total = list.reduce((a, s) => a + s.value, 0);
  if (!list.length) return `<p class="empty">Nothing to chart: no holdings with a value.</p>`;
  let from = 0;
  const slices = list.map((s, i) => {
    const to = i === list.length - 1 ? 1 : from + s.value / total;
    const [x, y] = at((DONUT.outer + DONUT.inner) / 2, (from + to) / 2).split(' ');
    const label =
      s.value / total >= 0.06
        ? `<text class="slice-label" fill="${ink(i)}" x="${x}" y="${y}" text-anchor="middle" dominant-baseline="central" aria-hidden="true">${pct(s.value, total)}</text>`
        : '';
    const out = `<path class="slice" data-label="${esc(s.label)}" d="${ringPath(from, to)}" fill="${colour(i)}" fill-rule="evenodd" stroke="#ffffff" stroke-width="1"><title>${esc(`${s.label}: ${money(s.value)} (${pct(s.value, total)})`)}</title></path>`;
    from = to;
    return { out, label };
  });
  return `<div class="chart"><svg class="donut" role="img" aria-labelledby="${id}t ${id}d" width="220" height="220" viewBox="0 0 220 220">
<title id="${id}t">${esc(title)}</title>
<desc id="${id}d">${esc(describe(list, total))}</desc>
${slices.map((s) => s.out).join('\n')}
${slices.map((s) => s.label).join('\n')}
</svg>
${legend(list, total)}</div>`;
}

/** Horizontal bars (one `rect.bar` each), the label above and the value and share beside each bar. */
export function bars(id: string, title: string, shares: Share[], empty: string): string {
  const list = shares.filter((s) => s.value > 0);
  const total = list.reduce((a, s) => a + s.value, 0);
  if (!list.length) return `<p class="empty">${esc(empty)}</p>`;
  const max = Math.max(...list.map((s) => s.value));
  const [width, barMax, row] = [380, 200, 40];
  const rows = list.map((s, i) => {
    const y = i * row;
    const w = Math.max(1, (s.value / max) * barMax);
    return `<text class="bar-label" x="0" y="${y + 12}">${esc(s.label)}</text>
<rect class="bar" data-label="${esc(s.label)}" x="0" y="${y + 17}" width="${w.toFixed(1)}" height="16" rx="2" fill="${colour(i)}"><title>${esc(`${s.label}: ${money(s.value)} (${pct(s.value, total)})`)}</title></rect>
<text class="bar-value" x="${(w + 6).toFixed(1)}" y="${y + 29}">${esc(`${money(s.value)} · ${pct(s.value, total)}`)}</text>`;
  });
  return `<div class="chart"><svg class="bars" role="img" aria-labelledby="${id}t ${id}d" width="${width}" height="${list.length * row}" viewBox="0 0 ${width} ${list.length * row}">
<title id="${id}t">${esc(title)}</title>
<desc id="${id}d">${esc(describe(list, total))}</desc>
${rows.join('\n')}
</svg></div>`;
}

const SCHEME_CLASS: Record<string, string> = {
  Equity: 'Equity mutual funds',
  Debt: 'Debt mutual funds',
  Hybrid: 'Hybrid mutual funds',
  Other: 'Other mutual funds',
};

/** Sums by label, largest first, those with no value left out. */
function sharesOf(entries: [string, number][]): Share[] {
  const m = new Map<string, number>();
  for (const [label, value] of entries) m.set(label, (m.get(label) ?? 0) + value);
  return [...m]
    .map(([label, value]) => ({ label, value }))
    .filter((s) => s.value > 0)
    .sort((a, b) => b.value - a.value);
}

/** Value by asset class: demat holdings by kind, the folios' schemes by type, NPS. */
export function assetClasses(d: ParsedStatement): Share[] {
  return sharesOf([
    ...d.demat_accounts.flatMap((a) =>
      Object.entries(a.holdings).flatMap(([kind, list]) => list.map((h): [string, number] => [dematKindLabel(kind), h.value])),
    ),
    ...d.mutual_funds.flatMap((f) => f.schemes.map((s): [string, number] => [SCHEME_CLASS[s.type] ?? s.type, s.value])),
    ...d.nps.flatMap((p) => p.funds.map((f): [string, number] => ['NPS', f.value])),
  ]);
}

/** Value of the mutual fund folios by AMC. */
export function byAmc(d: ParsedStatement): Share[] {
  return sharesOf(d.mutual_funds.flatMap((f) => f.schemes.map((s): [string, number] => [f.amc, s.value])));
}

/** The holdings tables of a statement (only the kinds it has). */
function holdingsTables(d: ParsedStatement): Grid[] {
  const grids: Grid[] = [
    {
      caption: 'Demat holdings',
      head: ['Account', 'Depository participant', 'Class', 'ISIN', 'Name', 'Units', 'Value'],
      numeric: 2,
      rows: d.demat_accounts.flatMap((a) =>
        Object.entries(a.holdings).flatMap(([k, list]) =>
          list.map((h) => [dematAccountId(a), a.dp_name, dematKindLabel(k), h.isin, h.name, inr(h.units, 3), money(h.value)]),
        ),
      ),
    },
    {
      caption: 'Mutual funds',
      head: ['Folio', 'AMC', 'Scheme', 'Type', 'Units', 'NAV', 'Cost', 'Value', 'Gain', 'Gain %'],
      numeric: 6,
      rows: d.mutual_funds.flatMap((f) =>
        f.schemes.map((s) => [
          f.folio_number,
          f.amc,
          s.name,
          s.type,
          inr(s.units, 3),
          money(s.nav, 4),
          ...[s.cost, s.value, s.gain.absolute].map((v) => money(v)),
          s.gain.percentage === null ? '' : `${inr(s.gain.percentage)}%`,
        ]),
      ),
    },
    {
      caption: 'NPS',
      head: ['PRAN', 'Fund', 'Tier', 'Units', 'NAV', 'Value'],
      numeric: 3,
      rows: d.nps.flatMap((a) =>
        a.funds.map((f) => [a.pran, f.name, `Tier ${f.additional_info.tier}`, inr(f.units, 4), money(f.nav, 4), money(f.value)]),
      ),
    },
    {
      caption: 'Life insurance',
      head: ['Policy', 'Provider', 'Name', 'Status', 'Sum assured', 'Premium'],
      numeric: 2,
      rows: d.insurance.life_insurance_policies.map((p) => [
        p.policy_number,
        p.provider,
        p.policy_name,
        p.status,
        money(p.sum_assured),
        money(p.premium_amount),
      ]),
    },
  ];
  return grids.filter((g) => g.rows.length);
}

function statementSection(file: string, d: ParsedStatement, anchor: string): string {
  const p = d.meta.statement_period;
  const acc = d.summary.accounts;
  const kinds: [string, { count: number; total_value: number }][] = [
    ['Demat', acc.demat],
    ['Mutual funds', acc.mutual_funds],
    ['Insurance', acc.insurance],
    ['NPS', acc.nps],
  ];
  const holdings = holdingsTables(d);
  const tx = transactionRows(file, d).map((r) => [
    String(r[4]),
    String(r[1]),
    String(r[3]),
    String(r[5]).replace(/_/g, ' '),
    String(r[6]),
    money(r[7] as number | null),
    inr(r[8] as number | null, 3),
    money(r[9] as number | null, 4),
    inr(r[10] as number | null, 3),
  ]);
  const parts = [
    facts([
      ['Investor', d.investor.name],
      ['PAN', d.investor.pan],
      ['Email', d.investor.email],
      ['Statement', FORMATS.find((f) => f.casType === d.meta.cas_type)?.label ?? d.meta.cas_type],
      ['Period', `${p.from ?? DASH} to ${p.to}`],
      ...(d.investor.cas_id ? [['Statement id', d.investor.cas_id] as [string, string]] : []),
    ]),
    `<p class="total">Total value <strong>${esc(money(d.summary.total_value))}</strong></p>`,
    table({
      caption: 'Totals',
      head: ['Account kind', 'Accounts', 'Value'],
      numeric: 2,
      rows: kinds.map(([label, k]) => [label, String(k.count), money(k.total_value)]),
      sum: ['Total', '', money(d.summary.total_value)],
      narrow: true,
    }),
    `<div class="charts">
<figure class="wide"><figcaption>Allocation by asset class</figcaption>${donut(`${anchor}a`, 'Allocation by asset class', assetClasses(d))}</figure>
<figure><figcaption>Mutual funds by AMC</figcaption>${bars(`${anchor}b`, 'Mutual funds by AMC', byAmc(d), 'No mutual fund folios in this statement.')}</figure>
</div>`,
    '<h3>Holdings</h3>',
    holdings.length ? holdings.map(table).join('\n') : '<p class="empty">No holdings in this statement.</p>',
    tx.length
      ? table({
          caption: 'Transactions',
          head: ['Date', 'Account', 'Scheme / security', 'Type', 'Description', 'Amount', 'Units', 'NAV', 'Balance'],
          numeric: 4,
          rows: tx,
          dated: true,
        })
      : '<p class="empty">No transactions in this statement.</p>',
  ];
  return section(file, anchor, 'cas', parts);
}

function section(file: string, anchor: string, kind: string, parts: string[]): string {
  return `<section class="statement ${kind}" id="${anchor}" aria-labelledby="${anchor}h">
<h2 id="${anchor}h">${esc(file)}</h2>
${parts.join('\n')}
</section>`;
}

function contractNoteSection(file: string, d: ContractNote, anchor: string): string {
  const c = d.charges_summary;
  const info = d.contract_note_info;
  const all = Object.keys(CHARGE_LABELS) as (keyof typeof c)[];
  const charges = all.filter((k) => k !== 'pay_in_pay_out_obligation' && k !== 'net_amount_receivable_payable');
  const grids: Grid[] = [
    {
      caption: 'Trades',
      head: ['Trade no.', 'Time', 'Exchange', 'Security', 'Buy / sell', 'Quantity', 'Net rate', 'Brokerage', 'Net total'],
      numeric: 4,
      rows: d.detailed_trades.map((t) => [
        t.trade_number,
        t.trade_time,
        t.exchange,
        t.security_description,
        t.buy_sell === 'B' ? 'Buy' : 'Sell',
        inr(t.quantity, 0),
        money(t.net_rate_per_unit, 4),
        money(t.brokerage),
        money(t.net_total),
      ]),
    },
    {
      caption: 'Equity, by security',
      head: ['Security', 'ISIN', 'Bought', 'Buy value', 'Sold', 'Sell value', 'Net obligation'],
      numeric: 5,
      rows: d.equity_transactions.map((e) => [
        e.security_name,
        e.isin ?? '',
        inr(e.buy_quantity, 0),
        money(e.buy_total_value),
        inr(e.sell_quantity, 0),
        money(e.sell_total_value),
        money(e.net_obligation),
      ]),
    },
    {
      caption: 'Derivatives',
      head: ['Contract', 'Buy / sell / B/F / C/F', 'Quantity', 'WAP', 'Closing rate', 'Net total'],
      numeric: 4,
      rows: d.derivatives_transactions.map((t) => [
        t.contract_description,
        t.buy_sell_bf_cf,
        inr(t.quantity, 0),
        money(t.wap_per_unit, 4),
        money(t.closing_rate_per_unit, 4),
        money(t.net_total),
      ]),
    },
    { caption: 'Charges', head: ['Charge', 'Amount'], numeric: 1, rows: all.map((k) => [CHARGE_LABELS[k], money(c[k])]), narrow: true },
  ];
  const parts = [
    facts([
      ['Client', d.client_info.name],
      ['PAN', d.client_info.pan],
      ['UCC', d.client_info.ucc],
      ['Broker', d.broker_info.name],
      ['Contract note', info.contract_note_number],
      ['Trade date', info.trade_date],
      ['Settlement date', info.settlement_date],
    ]),
    `<p class="total">Net amount receivable / payable <strong>${esc(money(c.net_amount_receivable_payable))}</strong></p>`,
    `<div class="charts"><figure><figcaption>Charges</figcaption>${bars(
      `${anchor}c`,
      'Charges',
      charges.map((k) => ({ label: CHARGE_LABELS[k], value: c[k] })),
      'No charges on this contract note.',
    )}</figure></div>`,
    ...grids.filter((g) => g.rows.length || g.caption === 'Trades').map(table),
  ];
  return section(file, anchor, 'contract-note', parts);
}

/** The whole page: one section per statement or contract note, a list of them first when there are several. */
export function renderHtmlReport(items: ReportItem[]): string {
  const names = [...new Set(items.map((i) => (isStatement(i.data) ? i.data.investor.name : i.data.client_info.name)))];
  const title = `Statement report${names.length ? `: ${names.join(', ')}` : ''}`;
  const sections = items.map((i, k) =>
    isStatement(i.data) ? statementSection(i.file, i.data, `s${k + 1}`) : contractNoteSection(i.file, i.data, `s${k + 1}`),
  );
  const nav =
    items.length > 1
      ? `<nav aria-label="Statements"><ul>${items.map((i, k) => `<li><a href="#s${k + 1}">${esc(i.file)}</a></li>`).join('')}</ul></nav>`
      : '';
  return page(
    title,
    `${items.length} ${items.length === 1 ? 'document' : 'documents'}, read by cas. Every figure comes from the PDF; this page loads nothing from the network.`,
    `${nav}\n${sections.join('\n')}`,
  );
}

/** The one page frame (head, CSP, style, title and subtitle) around a report's body. */
function page(title: string, sub: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="cas">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${esc(title)}</h1>
<p class="sub">${sub}</p>
${body}
</main>
</body>
</html>
`;
}

/** A line chart of the value and the net invested amount over time (`path.series` each), the points' figures in its description. */
export function lines(id: string, title: string, points: PortfolioPoint[]): string {
  if (points.length < 2) return `<p class="empty">Not enough dates to chart: give statements covering more than one day.</p>`;
  const [width, height, left, bottom, top] = [760, 260, 92, 28, 12];
  const t = (d: string): number => Date.parse(`${d}T00:00:00Z`);
  const [t0, t1] = [t(points[0].date), t(points.at(-1)!.date)];
  const max = Math.max(1, ...points.flatMap((p) => [p.value, p.invested]));
  const x = (d: string): number => left + ((t(d) - t0) / Math.max(1, t1 - t0)) * (width - left - 8);
  const y = (v: number): number => top + (1 - v / max) * (height - top - bottom);
  const path = (f: (p: PortfolioPoint) => number): string =>
    points.map((p, i) => `${i ? 'L' : 'M'} ${x(p.date).toFixed(1)} ${y(f(p)).toFixed(1)}`).join(' ');
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((k) => max * k);
  const series = [
    { name: 'Value', cls: 'value', f: (p: PortfolioPoint) => p.value, c: 0 },
    { name: 'Invested', cls: 'invested', f: (p: PortfolioPoint) => p.invested, c: 1 },
  ];
  const last = points.at(-1)!;
  return `<div class="chart"><svg class="lines" role="img" aria-labelledby="${id}t ${id}d" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<title id="${id}t">${esc(title)}</title>
<desc id="${id}d">${esc(`${points.length} dates from ${points[0].date} to ${last.date}; at ${last.date}: value ${money(last.value)}, invested ${money(last.invested)}`)}</desc>
${ticks.map((v) => `<line x1="${left}" x2="${width - 8}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e6eaee"/><text class="axis" x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${esc(money(v, 0))}</text>`).join('\n')}
<text class="axis" x="${left}" y="${height - 8}">${esc(points[0].date)}</text>
<text class="axis" x="${width - 8}" y="${height - 8}" text-anchor="end">${esc(last.date)}</text>
${series.map((s) => `<path class="series" data-label="${s.cls}" d="${path(s.f)}" fill="none" stroke="${colour(s.c)}" stroke-width="2"><title>${esc(s.name)}</title></path>`).join('\n')}
</svg>
<table class="legend"><thead><tr><th scope="col">Series</th><th scope="col" class="num">At ${esc(last.date)}</th></tr></thead><tbody>
${series.map((s) => `<tr><td><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" rx="2" fill="${colour(s.c)}"/></svg> ${s.name}</td><td class="num">${esc(money(s.f(last)))}</td></tr>`).join('\n')}
</tbody></table></div>`;
}

/** `cas portfolio --format html`: the portfolio page (allocation, value and invested over time, XIRR per holding). */
export function renderPortfolioHtml(p: Portfolio): string {
  const title = `Portfolio: ${p.investors.map((i) => i.name).join(', ')}`;
  const total = p.returns.portfolio;
  const si = total.since_inception;
  const reasonOf = (r: string | null): string => r ?? '';
  const groupGrid = (caption: string, head: string, groups: Portfolio['returns']['by_amc'], label: (n: string) => string): Grid => ({
    caption,
    head: [head, 'Holdings', 'Value', 'Invested', 'Gain', 'XIRR'],
    numeric: 5,
    rows: groups.map((g) => [
      label(g.name),
      String(g.holdings),
      money(g.value),
      money(g.since_inception.invested),
      money(g.since_inception.gain),
      percent(g.since_inception.xirr),
    ]),
  });
  const notes = [...p.issues.map((i) => i.message)];
  const parts = [
    facts([
      ['Investor', p.investors.map((i) => `${i.name}${i.pan ? ` (${i.pan})` : ''}`).join('; ')],
      ['As of', p.as_of],
      ['Statements', p.sources.map((s) => `${s.file ?? `#${s.index + 1}`} (${s.from ?? DASH} to ${s.to})`).join('; ')],
    ]),
    `<p class="total">Total value <strong>${esc(money(p.totals.value))}</strong> · XIRR since inception <strong>${esc(percent(si.xirr))}</strong>${si.xirr.reason ? ` <span class="sub">(${esc(si.xirr.reason)})</span>` : ''}</p>`,
    `<p class="sub">Since inception over ${total.holdings - total.left_out.length} of ${total.holdings} holdings (those whose statements reach back to the first purchase): invested ${esc(money(si.invested))}, gain ${esc(money(si.gain))}.</p>`,
    `<div class="charts">
<figure class="wide"><figcaption>Allocation by asset class</figcaption>${donut(
      'pa',
      'Allocation by asset class',
      p.totals.by_asset_class.map((c) => ({ label: ASSET_CLASS_LABELS[c.asset_class], value: c.value })),
    )}</figure>
<figure><figcaption>Mutual funds by AMC</figcaption>${bars(
      'pb',
      'Mutual funds by AMC',
      p.totals.by_amc.map((a) => ({ label: a.amc, value: a.value })),
      'No mutual fund folios in these statements.',
    )}</figure>
</div>`,
    `<div class="charts"><figure class="wide"><figcaption>Value and invested amount over time</figcaption>${lines('pt', 'Value and invested amount over time', p.timeline)}</figure></div>`,
    '<h3>Holdings</h3>',
    table({
      caption: 'XIRR per holding',
      head: ['Account', 'Holding', 'Class', 'As of', 'Why no XIRR', 'Units', 'Value', 'Invested', 'Gain', 'XIRR'],
      numeric: 5,
      rows: p.holdings.map((h) => [
        h.account,
        h.counted_elsewhere ? `${h.name} (counted in demat)` : h.name,
        ASSET_CLASS_LABELS[h.asset_class],
        h.source.as_of,
        reasonOf(h.since_inception.xirr.reason),
        inr(h.units, 3),
        money(h.value),
        money(h.since_inception.invested),
        money(h.since_inception.gain),
        percent(h.since_inception.xirr),
      ]),
      sum: ['Total', '', '', p.as_of, '', '', money(p.totals.value), money(si.invested), money(si.gain), percent(si.xirr)],
    }),
    '<h3>Returns by group</h3>',
    table(
      groupGrid('By asset class', 'Class', p.returns.by_asset_class, (n) => ASSET_CLASS_LABELS[n as keyof typeof ASSET_CLASS_LABELS] ?? n),
    ),
    ...(p.returns.by_amc.length ? [table(groupGrid('By AMC', 'AMC', p.returns.by_amc, (n) => n))] : []),
    table(groupGrid('By folio or demat account', 'Account', p.returns.by_folio, (n) => n)),
    ...(total.years.length
      ? [
          table({
            caption: 'Portfolio by financial year',
            head: ['FY', 'Why no XIRR', 'Invested', 'Value at end', 'Gain', 'XIRR'],
            numeric: 4,
            rows: total.years.map((y) => [
              y.fy,
              reasonOf(y.xirr.reason),
              money(y.invested),
              money(y.value),
              money(y.gain),
              percent(y.xirr),
            ]),
            narrow: true,
          }),
        ]
      : []),
    ...(notes.length ? ['<h3>To check</h3>', `<ul class="notes">${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`] : []),
  ];
  return page(
    title,
    `${p.sources.length} ${p.sources.length === 1 ? 'statement' : 'statements'} merged by cas portfolio. Every figure comes from the PDFs; this page loads nothing from the network.`,
    section('Portfolio', 'portfolio', 'portfolio', parts),
  );
}
