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
import { findHeader, type HeaderColumn, type HeaderVocabulary, rowFigures } from '../common/table.js';

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

const ISIN = /^IN[A-Z0-9]{10}$/;
/** An exchange or segment word leading a row (`NSE-Cash`, `Equity`, `F&O`). */
const EXCH =
  /^(nse|bse|nfo|bfo|mcx|cds|ncdex|msei)([-/ ]?(cash|eq|fo|f&o|cm|currency|cds))?$|^(equity|cash|f&o|fo|derivatives?|currency|commodity|mtf)$/i;
/** `NAME-MTF-INE0XX101019`: a name, a product or series tag and the ISIN glued by hyphens. */
const GLUED = /^(.*?)(?:-([A-Za-z0-9]{1,5}))?-(IN[A-Z0-9]{10})$/;

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

function readRow(l: Line, h: ScripHeader): Row | null {
  const words = l.words;
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
  return { line: l, label: words.slice(0, start).map((w) => w.text), v };
}

export interface ScripBlock {
  name: string;
  isin: string | null;
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

  constructor(readonly header: ScripHeader) {}

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
      if (
        this.open &&
        !this.open.sub &&
        this.open.rows.length === 1 &&
        !TOTAL.test(text) &&
        !EXCH.test(l.words[0].text) &&
        Math.abs(l.words[0].x0 - this.open.x0) <= size * 1.5 &&
        l.page === this.open.page
      ) {
        const words = l.words.map((w) => w.text);
        const isin = words.find((w) => ISIN.test(w));
        if (isin) this.open.isin = isin;
        const rest = words.filter((w) => !ISIN.test(w) && w !== '/');
        // A cell wrapped at a fixed width breaks inside a word (`... INDIA L` / `IMITED-MTF-INE...`).
        const glue = rest.length === 1 && this.open.name.length >= 25 && (/-/.test(rest[0]) || /^[A-Z0-9]+$/.test(rest[0]));
        if (rest.length && !isin) this.open.name = glue ? `${this.open.name}${rest[0]}` : `${this.open.name} ${rest.join(' ')}`;
        const g = splitGlued(this.open.name);
        if (g.isin) [this.open.name, this.open.isin] = [g.name, g.isin];
        return true;
      }
      return l.words.length <= 6;
    }
    const label = normText(r.label.join(' '));
    if (TOTAL.test(label)) {
      // `Sub Total` closes the open security; an exchange, segment or grand total closes the group.
      if (this.open && (SUB.test(label) || (label.startsWith('sub total') && normText(this.open.name).includes(label.slice(10).trim())))) {
        this.open.sub = r;
        this.open = null;
      } else this.open = null;
      return true;
    }
    const skip = r.label.length && EXCH.test(r.label[0]) ? 1 : 0;
    const nameX0 = l.words[skip]?.x0 ?? 0;
    let words = r.label;
    if (words.length && EXCH.test(words[0])) words = words.slice(1);
    else if (words.length > 1 && EXCH.test(`${words[0]}-${words[1]}`) && /^(cash|eq|fo|cm)$/i.test(words[1])) words = words.slice(2);
    let isin: string | null = null;
    const k = words.findIndex((w) => ISIN.test(w));
    if (k >= 0) {
      isin = words[k];
      words = words.slice(0, k).filter((w, i, a) => !(i === a.length - 1 && (w === '/' || w === '-')));
      words = words.map((w, i, a) => (i === a.length - 1 ? w.replace(/[/-]$/, '') : w)).filter(Boolean);
    }
    let name = words.join(' ');
    const g = splitGlued(name);
    if (g.isin) [name, isin] = [g.name, g.isin];
    if (!name) {
      // The security is printed once, its further rows leave the cell blank.
      const last = this.open ?? this.blocks[this.blocks.length - 1];
      if (last && !last.sub) {
        last.rows.push(r);
        this.open = last;
      }
      return true;
    }
    if (this.open && normText(this.open.name) === normText(name) && !this.open.sub) {
      this.open.rows.push(r);
      return true;
    }
    const same = this.blocks.find((b) => normText(b.name) === normText(name) && !b.sub);
    if (same) {
      same.rows.push(r);
      this.open = same;
      return true;
    }
    this.open = { name, isin, page: l.page, x0: nameX0, rows: [r], sub: null };
    this.blocks.push(this.open);
    return true;
  }
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
  const problems: string[] = [];
  if (b.sub) {
    const s = b.sub.v;
    if (s.bought !== undefined && Math.abs(s.bought - bq) > 1e-6)
      problems.push(`quantity bought ${bq} in its rows, ${s.bought} in its sub total`);
    if (s.sold !== undefined && Math.abs(s.sold - sq) > 1e-6) problems.push(`quantity sold ${sq} in its rows, ${s.sold} in its sub total`);
    if (s.net !== undefined && Math.abs(s.net - net) > 0.011 * b.rows.length)
      problems.push(`net amount ${net} in its rows, ${s.net} in its sub total`);
    if (s.net !== undefined) net = s.net;
  }
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
