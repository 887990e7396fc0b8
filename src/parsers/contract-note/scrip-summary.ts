/**
 * Section reader: the scrip-wise summary some brokers print after the trades (`The scrip wise
 * summary is as under`): per security, one row per exchange / segment and side (quantity bought,
 * quantity sold, total gross, average rate, brokerage, GST, STT, stamp duty, net amount), closed
 * by a `Sub Total` row; exchange / segment totals and a grand `Total` may follow. Rows are read by
 * content: the security is the text left of the figures (an exchange word first, `NAME / ISIN`
 * allowed), the figures are read from the right and matched to the numeric columns in order; a
 * `Dr` / `Cr` after the net amount decides its sign (Dr: payable by the client, negative).
 */
import type { Line } from '../../pdf/model.js';
import { parseNumber, round } from '../../pdf/numbers.js';
import type { ContractNote } from '../../schema/index.js';
import { normText } from '../common/labels.js';
import { findHeader, type HeaderColumn, type HeaderVocabulary, rowFigures } from '../common/table/index.js';

export type ScripKey = 'exchange' | 'name' | 'bought' | 'sold' | 'gross' | 'avg' | 'brokerage' | 'gst' | 'stt' | 'stamp' | 'other' | 'net';

/** Header vocabulary: a column label (normalised) -> its key. First match wins, so the more specific phrases come first. */
export const SCRIP_COLUMNS: [ScripKey, RegExp][] = [
  ['bought', /\b(quantity|qty) (bought|purchased)\b|\bbought (quantity|qty)\b|\bbuy (quantity|qty)\b|^bought\b/],
  ['sold', /\b(quantity|qty) sold\b|\bsold (quantity|qty)\b|\bsell (quantity|qty)\b|^sold\b/],
  ['gst', /\bgst\b|\bservice tax\b/],
  ['stt', /\b(stt|securities transaction tax|security transaction tax)\b|\btransaction tax\b/],
  ['stamp', /\bstamp\b/],
  ['avg', /\b(average|avg|wap)\b/],
  ['gross', /\bgross\b|\btotal (value|turnover)\b|\bturnover\b/],
  ['brokerage', /\bbrokerage\b/],
  ['net', /\bnet (amount|value|obligation|total)\b|\bnet\b/],
  ['other', /\b(charges|levies|fees)\b/],
  ['exchange', /^(exchange|exch|segment|exchange segment|exchange and segment)$/],
  ['name', /\b(security|scrip|instrument|description|name|symbol|contract)\b/],
];

const NUMERIC: ScripKey[] = ['bought', 'sold', 'gross', 'avg', 'brokerage', 'gst', 'stt', 'stamp', 'other', 'net'];

const SCRIP_HEADER: HeaderVocabulary = {
  words: new Set(
    (
      'exchange exch segment security scrip description name instrument symbol contract quantity qty bought sold purchased buy sell ' +
      'for total gross average avg rate wap value brokerage gst on service tax stt securities security transaction stamp duty net amount ' +
      'obligation charges levies fees other rs inr of the and in'
    ).split(' '),
  ),
  share: 0.75,
  refuse: /\d{2}/,
};

export interface ScripHeader {
  first: number;
  last: number;
  cols: (HeaderColumn & { key: ScripKey | null })[];
}

export function scripColumn(label: string): ScripKey | null {
  const l = label
    .replace(/\b(rs|inr)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return SCRIP_COLUMNS.find(([, re]) => re.test(l))?.[0] ?? null;
}

/** The scrip-summary header starting at line i (quantity bought and sold, a net amount, a security column), or null. */
export function scripHeaderAt(lines: Line[], i: number): ScripHeader | null {
  return findHeader(lines, i, SCRIP_HEADER, (found, first, last) => {
    const cols = found.map((c) => ({ ...c, key: scripColumn(c.label) }));
    const keys = new Set(cols.map((c) => c.key));
    return ['name', 'bought', 'sold', 'net'].every((k) => keys.has(k as ScripKey)) && (keys.has('gross') || keys.has('avg'))
      ? { first, last, cols }
      : null;
  });
}

const ISIN = /^IN[A-Z0-9]{9}[0-9]$/;
/** An exchange or segment word leading a row (`NSE-Cash`, `Equity`, `F&O`). */
const EXCH =
  /^(nse|bse|nfo|bfo|mcx|cds|ncdex|msei)([-/ ]?(cash|eq|fo|f&o|cm|currency|cds))?$|^(equity|cash|f&o|fo|derivatives?|currency|commodity|mtf)$/i;
/** `NAME-MTF-INE0XX101019`: a name, a product or series tag and the ISIN glued by hyphens. */
const GLUED = /^(.*?)(?:-([A-Za-z0-9]{1,5}))?-(IN[A-Z0-9]{9}[0-9])$/;

/** Split a glued `NAME-TAG-ISIN` description into name and ISIN. */
export function splitGlued(name: string): { name: string; isin: string | null } {
  const m = GLUED.exec(name.trim());
  return m && m[1].trim() ? { name: m[1].trim(), isin: m[3] } : { name, isin: null };
}
const DRCR = /^(dr|cr)\.?$/i;

interface Row {
  line: Line;
  label: string[];
  v: Partial<Record<ScripKey, number>>;
}

/** `.15`: a figure under one rupee printed without its leading zero (`Other Statutory Levies`). */
const BARE_DECIMAL = /^\(?-?\.\d+\)?$/;

function readRow(l: Line, h: ScripHeader): Row | null {
  const words = l.words.map((w) => (BARE_DECIMAL.test(w.text) ? { ...w, text: w.text.replace('.', '0.') } : w));
  let end = words.length;
  let sign = 0;
  if (end > 0 && DRCR.test(words[end - 1].text)) {
    sign = /^dr/i.test(words[end - 1].text) ? -1 : 1;
    end--;
  }
  const ncols = h.cols.filter((c) => c.key && NUMERIC.includes(c.key));
  const { start, figures: tail, at } = rowFigures(words, end, ncols, /^-+$/);
  if (tail.length < 2) return null;
  const v: Partial<Record<ScripKey, number>> = {};
  tail.forEach((w, k) => (v[ncols[at[k]].key as ScripKey] = parseNumber(w.text) ?? 0));
  if (sign && v.net !== undefined) v.net = sign * Math.abs(v.net);
  // Quantities are never negative and every row ends in its net amount: a wrapped contract's tail
  // (`-21600.0000 -0`, a strike under the description) is text, not a row.
  if (v.net === undefined || (v.bought ?? 0) < 0 || (v.sold ?? 0) < 0) return null;
  return { line: l, label: words.slice(0, start).map((w) => w.text), v };
}

export interface ScripBlock {
  name: string;
  isin: string | null;
  /** The segment word in force when the block opened (`Equity`, `Derivative`, `NSE-Cash`, `NFO`), printed on its first row or above. */
  segment: string | null;
  /** The security cell as printed, wrapped lines joined (compared, letters and digits only, with later rows' cells). */
  printed: string;
  page: number;
  /** Left edge of the name on its first row (a wrapped name continues under it). */
  x0: number;
  rows: Row[];
  sub: Row | null;
}

/** A row label that closes a security (`Sub Total`, optionally naming the security); other totals close a group. */
const SUB = /^sub ?total$/;
const TOTAL = /\btotal\b/;

/**
 * Reads a scrip summary from the lines after its header up to its end (a line without figures
 * that is not a security name, or the charges). Returns the security blocks in order.
 */
export class ScripSummaryReader {
  readonly blocks: ScripBlock[] = [];
  private open: ScripBlock | null = null;
  private segment: string | null = null;
  /** The last row read with its security printed, until a line continues its cell (or another row comes). */
  private last: { row: Row; printed: string; block: ScripBlock; prefix: boolean } | null = null;

  /** A grand `Total` row was read: the summary is complete. */
  done = false;
  /** The page of the last row read. */
  lastPage = 0;

  constructor(public header: ScripHeader) {}

  /**
   * The summary goes on under a header repeated on a later page (the note's own header lines
   * stood between), its columns where that page prints them: true when it was not complete.
   */
  continueUnder(header: ScripHeader, page: number): boolean {
    if (this.done || !this.blocks.length || page <= this.lastPage) return false;
    this.header = header;
    return true;
  }

  /** Feed one line; false when the line ends the table. */
  feed(l: Line): boolean {
    const r = readRow(l, this.header);
    const text = normText(l.text);
    if (!r) {
      // A line of text alone: the security name wrapped under its first row, a heading inside the table, or the end.
      if (!l.words.length) return true;
      if (/\b(charges|obligation|levies|note|notes)\b/.test(text)) return false;
      if (/^page \d+( of \d+)?$/.test(text)) return true;
      const size = l.pieces[0]?.size || 7;
      const last = this.last;
      if (
        last &&
        last.block === this.open &&
        !this.open.sub &&
        !TOTAL.test(text) &&
        !EXCH.test(l.words[0].text) &&
        Math.abs(l.words[0].x0 - this.open.x0) <= size * 1.5 &&
        l.page === last.row.line.page
      ) {
        this.last = null;
        const words = l.words.map((w) => w.text);
        const open = this.open;
        if (open.rows.length === 1) {
          open.printed = `${open.printed} ${words.join(' ')}`;
          extendName(open, words);
          return true;
        }
        // A later row of the block repeated its security, wrapped as the first row was: the same
        // security when the wrapped cells agree; else another one (another strike of the same
        // underlying and expiry) that starts alike.
        const printed = `${last.printed} ${words.join(' ')}`;
        if (compact(printed) !== compact(open.printed)) this.detach(last, printed, words);
        return true;
      }
      this.settle();
      return l.words.length <= 6;
    }
    const label = normText(r.label.join(' '));
    this.settle();
    this.lastPage = l.page;
    if (TOTAL.test(label)) {
      if (/^(grand )?total$/.test(label)) this.done = true;
      // `Sub Total` closes the open security; an exchange, segment or grand total closes the group.
      if (this.open && (SUB.test(label) || (label.startsWith('sub total') && normText(this.open.name).includes(label.slice(10).trim())))) {
        this.open.sub = r;
        this.open = null;
      } else this.open = null;
      return true;
    }
    let words = r.label;
    let skip = 0;
    if (words.length && EXCH.test(words[0])) skip = 1;
    else if (words.length > 1 && EXCH.test(`${words[0]}-${words[1]}`) && /^(cash|eq|fo|cm)$/i.test(words[1])) skip = 2;
    if (skip) this.segment = words.slice(0, skip).join('-');
    words = words.slice(skip);
    const nameX0 = l.words[skip]?.x0 ?? 0;
    const { name, isin } = nameOf(words);
    if (!name) {
      // The security is printed once, its further rows leave the cell blank.
      const last = this.open ?? this.blocks[this.blocks.length - 1];
      if (last && !last.sub) {
        last.rows.push(r);
        this.open = last;
      }
      return true;
    }
    const printed = words.join(' ');
    // The open security again: the same name, or its cell printed again and wrapped as before (a
    // prefix of the open block's cell; the continuation line decides).
    if (
      this.open &&
      !this.open.sub &&
      (normText(this.open.name) === normText(name) ||
        (this.open.printed !== printed && compact(this.open.printed).startsWith(compact(printed))))
    ) {
      this.open.rows.push(r);
      this.last = { row: r, printed, block: this.open, prefix: normText(this.open.name) !== normText(name) };
      return true;
    }
    const same = this.blocks.find((b) => normText(b.name) === normText(name) && !b.sub);
    if (same) {
      same.rows.push(r);
      this.open = same;
      this.last = { row: r, printed, block: same, prefix: false };
      return true;
    }
    this.open = { name, isin, segment: this.segment, printed, page: l.page, x0: nameX0, rows: [r], sub: null };
    this.blocks.push(this.open);
    this.last = { row: r, printed, block: this.open, prefix: false };
    return true;
  }

  /** The table ended (or another line came): a row joined by a shorter cell that no line continued is its own security. */
  settle(): void {
    if (this.last?.prefix) this.detach(this.last, this.last.printed, []);
    this.last = null;
  }

  /** Move a row out of the block it joined into its own (or an open one printed the same). */
  private detach(last: { row: Row; block: ScripBlock }, printed: string, words: string[]): void {
    const open = last.block;
    open.rows.splice(open.rows.indexOf(last.row), 1);
    const b: ScripBlock = {
      ...nameOf(last.row.label),
      segment: open.segment,
      printed,
      page: last.row.line.page,
      x0: open.x0,
      rows: [last.row],
      sub: null,
    };
    extendName(b, words);
    const same = this.blocks.find((x) => !x.sub && x !== open && compact(x.printed) === compact(printed));
    if (same) same.rows.push(last.row);
    else this.blocks.push(b);
    this.open = same ?? b;
  }
}

const compact = (s: string): string => s.toUpperCase().replace(/[^A-Z0-9]/g, '');

/** A security cell's words -> name and ISIN (`NAME / ISIN`, `NAME ISIN`, `NAME-TAG-ISIN`). */
function nameOf(cell: string[]): { name: string; isin: string | null } {
  let words = cell;
  let isin: string | null = null;
  const k = words.findIndex((w) => ISIN.test(w));
  if (k >= 0) {
    isin = words[k];
    words = words.slice(0, k).filter((w, i, a) => !(i === a.length - 1 && (w === '/' || w === '-')));
    words = words.map((w, i, a) => (i === a.length - 1 ? w.replace(/[/-]$/, '') : w)).filter(Boolean);
  }
  const name = words.join(' ');
  const g = splitGlued(name);
  return g.isin ? { name: g.name, isin: g.isin } : { name, isin };
}

/** A block's security cell continued on the next line (an ISIN, the rest of the name). */
function extendName(b: ScripBlock, words: string[]): void {
  const isin = words.find((w) => ISIN.test(w));
  if (isin) b.isin = isin;
  const rest = words.filter((w) => !ISIN.test(w) && w !== '/');
  // A cell wrapped at a fixed width breaks inside a word (`... INDIA L` / `IMITED-MTF-INE...`).
  const glue = rest.length === 1 && b.name.length >= 25 && (/-/.test(rest[0]) || /^[A-Z0-9]+$/.test(rest[0]));
  if (rest.length && !isin) b.name = glue ? `${b.name}${rest[0]}` : `${b.name} ${rest.join(' ')}`;
  const g = splitGlued(b.name);
  if (g.isin) [b.name, b.isin] = [g.name, g.isin];
}

const r4 = (v: number): number => round(v, 4);

/** A security block -> SPEC's equity_transactions row, and the problems its own figures show. */
export function scripToEquity(b: ScripBlock): { row: ContractNote['equity_transactions'][number]; problems: string[] } {
  let bq = 0;
  let sq = 0;
  let bt = 0;
  let st = 0;
  let net = 0;
  for (const r of b.rows) {
    const q1 = r.v.bought ?? 0;
    const q2 = r.v.sold ?? 0;
    const gross = r.v.gross ?? round((r.v.avg ?? 0) * (q1 + q2), 2);
    bq += q1;
    sq += q2;
    if (q1 && !q2) bt += gross;
    else if (q2 && !q1) st += gross;
    else if (q1 && q2 && r.v.avg !== undefined) {
      bt += q1 * r.v.avg;
      st += q2 * r.v.avg;
    }
    net += r.v.net ?? 0;
  }
  bt = round(bt, 2);
  st = round(st, 2);
  net = round(net, 2);
  const problems = subTotalProblems(b, bq, sq, net);
  if (b.sub?.v.net !== undefined) net = b.sub.v.net;
  return {
    row: {
      security_name: b.name,
      security_symbol: null,
      isin: b.isin,
      buy_quantity: bq,
      buy_wap: bq ? r4(bt / bq) : 0,
      buy_total_value: bt,
      sell_quantity: sq,
      sell_wap: sq ? r4(st / sq) : 0,
      sell_total_value: st,
      net_obligation: net,
    },
    problems,
  };
}

/** A block's `Sub Total` against its own rows. */
function subTotalProblems(b: ScripBlock, bq: number, sq: number, net: number): string[] {
  const problems: string[] = [];
  if (!b.sub) return problems;
  const s = b.sub.v;
  if (s.bought !== undefined && Math.abs(s.bought - bq) > 1e-6)
    problems.push(`quantity bought ${bq} in its rows, ${s.bought} in its sub total`);
  if (s.sold !== undefined && Math.abs(s.sold - sq) > 1e-6) problems.push(`quantity sold ${sq} in its rows, ${s.sold} in its sub total`);
  if (s.net !== undefined && Math.abs(s.net - net) > 0.011 * b.rows.length)
    problems.push(`net amount ${net} in its rows, ${s.net} in its sub total`);
  return problems;
}

/** Segment words of the derivatives segments, and of the cash segment. */
const DERIV_SEGMENT =
  /^(derivatives?|f&o|fo|futures?|options?|currency|commodity|nfo|bfo|mcx|cds|ncdex|(nse|bse|msei)-?(fo|f&o|currency|cds))$/i;
const CASH_SEGMENT = /^(equity|cash|mtf|nse|bse|(nse|bse|msei)-?(cash|eq|cm))$/i;
/** A contract's description: an instrument type, an expiry date, CE / PE. */
const CONTRACT = /\b(fut|futidx|futstk|futcur|futcom|optidx|optstk|optcur|ce|pe)\b|\d{2}[a-z]{3}\d{2,4}/i;

/** Is the block a derivatives contract? By its segment when one is printed, else by its description (and no ISIN). */
export function isDerivativeBlock(b: ScripBlock): boolean {
  if (b.segment && DERIV_SEGMENT.test(b.segment)) return true;
  if (b.segment && CASH_SEGMENT.test(b.segment)) return false;
  return !b.isin && CONTRACT.test(b.name);
}

type Deriv = ContractNote['derivatives_transactions'][number];

/**
 * A derivatives block -> SPEC's derivatives_transactions rows, one per side: quantity, the
 * average (gross) rate, brokerage per unit (the printed total over the quantity), the net amount
 * after its charges (signed: negative payable by the client). The summary prints no closing rate.
 * A row printing both a quantity bought and sold cannot split its net amount: left out, said so.
 */
export function scripToDerivatives(b: ScripBlock): { rows: Deriv[]; problems: string[] } {
  const rows: Deriv[] = [];
  const problems: string[] = [];
  let bq = 0;
  let sq = 0;
  let net = 0;
  for (const side of ['buy', 'sell'] as const) {
    const list = b.rows.filter((r) => (side === 'buy' ? (r.v.bought ?? 0) > 0 && !r.v.sold : (r.v.sold ?? 0) > 0 && !r.v.bought));
    if (!list.length) continue;
    const qty = list.reduce((a, r) => a + ((side === 'buy' ? r.v.bought : r.v.sold) ?? 0), 0);
    const gross = list.reduce((a, r) => a + (r.v.gross ?? (r.v.avg ?? 0) * ((side === 'buy' ? r.v.bought : r.v.sold) ?? 0)), 0);
    const brokerage = list.reduce((a, r) => a + (r.v.brokerage ?? 0), 0);
    const total = round(
      list.reduce((a, r) => a + (r.v.net ?? 0), 0),
      2,
    );
    rows.push({
      contract_description: b.name,
      buy_sell_bf_cf: side,
      quantity: qty,
      wap_per_unit: r4(gross / qty),
      closing_rate_per_unit: null,
      brokerage_per_unit: r4(brokerage / qty),
      net_total: total,
    });
    if (side === 'buy') bq = qty;
    else sq = qty;
    net += total;
  }
  for (const r of b.rows)
    if ((r.v.bought ?? 0) > 0 && (r.v.sold ?? 0) > 0) {
      problems.push(`bought and sold on one row (page ${r.line.page}): its net amount cannot be split by side, the row is left out`);
      bq += r.v.bought ?? 0;
      sq += r.v.sold ?? 0;
      net += r.v.net ?? 0;
    }
  problems.push(...subTotalProblems(b, bq, sq, round(net, 2)));
  return { rows, problems };
}
