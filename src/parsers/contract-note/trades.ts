/**
 * Section reader: the trade table. Its header is found as word sets over up to eight stacked
 * lines; a trade row is found by what it holds (times, order/trade numbers, B/S, numbers read
 * from the right); lines of description text in the security column are continuation lines of
 * the trade above or below (decided per table); sub-total rows are skipped.
 */
import type { Line, Word } from '../../pdf/model.js';
import { isNumber, parseNumber } from '../../pdf/numbers.js';
import type { ContractNote } from '../../schema/index.js';
import { normText } from '../common/labels.js';
import { findHeader, type HeaderColumn, type HeaderVocabulary, isHeaderLine, rowFigures } from '../common/table/index.js';
import { genericColumn } from './layouts/generic.js';
import type { BrokerLayout, ColKey } from './layouts/types.js';

export type Trade = ContractNote['detailed_trades'][number];

/** Trade-table header words (a lone digit is a footnote marker); a line with a time of day is a row. */
export const TRADE_HEADER: HeaderVocabulary = {
  words: new Set(
    (
      'order no nos number id ref time trade security contract description scrip name instrument symbol stock buy sell b s side exchange exch seg segment ' +
      'quantity qty gross rate price per unit brokerage net closing only for derivatives total before levies remarks remark amount value rs inr market premium ' +
      'and of the or in 0 1 2 3 4 5 6 7 8 9'
    ).split(' '),
  ),
  share: 0.7,
  refuse: /\d{1,2}:\d{2}/,
};

/** A line made of table-header words (no figures). */
export function headerLike(l: Line): boolean {
  return isHeaderLine(l, TRADE_HEADER);
}

export interface TradeColumn extends HeaderColumn {
  keys: ColKey[];
}
export interface TradeHeader {
  first: number;
  last: number;
  cols: TradeColumn[];
}

const BY_LAYOUT = new WeakMap<BrokerLayout, (label: string) => ColKey[]>();

/** A layout's column classifier, built once per layout. */
function byLayout(layout: BrokerLayout): (label: string) => ColKey[] {
  let f = BY_LAYOUT.get(layout);
  if (!f) BY_LAYOUT.set(layout, (f = classifierOf(layout)));
  return f;
}

function classifierOf(layout: BrokerLayout): (label: string) => ColKey[] {
  const list = layout.trades
    .map(([k, syn]) => [k.split('+') as ColKey[], syn.map(normText)] as const)
    .sort((a, b) => Math.max(...b[1].map((s) => s.length)) - Math.max(...a[1].map((s) => s.length)));
  return (label) => {
    const clean = label
      .replace(/\b(rs|inr)\b/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    let best: ColKey[] = [];
    let len = 0;
    for (const [keys, syns] of list)
      for (const s of syns) if ((clean === s || clean.startsWith(`${s} `)) && s.length > len) [best, len] = [keys, s.length];
    return best;
  };
}

/** The trade-table header starting at line i, or null. */
export function tradeHeaderAt(lines: Line[], i: number, layout?: BrokerLayout): TradeHeader | null {
  const classify = layout ? byLayout(layout) : genericColumn;
  return findHeader(lines, i, TRADE_HEADER, (found, first, last) => {
    const cols = found.map((c) => ({ ...c, keys: classify(c.label) }));
    const keys = new Set(cols.flatMap((c) => c.keys));
    const need: ColKey[] = ['security', 'bs', 'qty', 'netTotal'];
    return need.every((k) => keys.has(k)) && (keys.has('tradeNo') || keys.has('orderNo') || keys.has('tradeTime'))
      ? { first, last, cols }
      : null;
  });
}

/** A time of day (`09:15:02`; long generated notes may run past 99 hours, so up to three digits). */
const TIME = /^\d{1,3}:\d{2}(:\d{2})?$/;
const SIDE = /^(b|s|buy|sell)$/i;
/** Exchange and side printed as one token: `BSE-BUY`. */
const EX_SIDE = /^(NSE|BSE|NFO|BFO|MCX|CDS)[-/](BUY|SELL|B|S)$/i;
const EXCH = /^(nse|bse|nfo|bfo|mcx|cds|bcd|ncdex|msei|nse-?eq|bse-?eq|nse-?fo|bse-?fo|nse-?cm|bse-?cm)$/i;
const ISIN = /^IN[A-Z0-9]{9}[0-9]$/;
const NUMERIC: ColKey[] = ['qty', 'rate', 'bpu', 'netRate', 'closing', 'netTotal'];
const num = (w: Word): boolean => isNumber(w.text);
/** A printed blank in a figures column (`N/A`, `-`). */
const BLANK = /^(n\/?a|-+|nil)$/i;

export class TradeTableReader {
  private readonly sec: number;
  private readonly numCols: { col: number; key: ColKey }[] = [];

  constructor(readonly header: TradeHeader) {
    this.sec = header.cols.findIndex((c) => c.keys.includes('security'));
    header.cols.forEach((c, k) => {
      // A key may name two columns (a rate in foreign currency and in rupees): the first filled wins.
      for (const key of c.keys) if (NUMERIC.includes(key)) this.numCols.push({ col: k, key });
    });
  }

  /** Left edge of description text seen on trade rows (a header may be centred over its column). */
  private descX0 = Infinity;
  /** The exchange named by the last segment sub-heading (`NSE - Cash Normal T+1`). */
  exchangeHeading = '';

  private get secX0(): number {
    return this.header.cols[this.sec].x0;
  }

  /** Right limit of description text: the right edge of the column after the security column. */
  private get secX1(): number {
    return this.header.cols[this.sec + 1]?.x1 ?? Infinity;
  }

  /**
   * A trade row: a time (or, where times are stacked under their numbers, an order or trade
   * number before the side), a side and figures on one line.
   */
  isAnchor(l: Line): boolean {
    const w = l.words;
    const side = w.findIndex((x) => SIDE.test(x.text) || EX_SIDE.test(x.text));
    if (side < 0 || w.filter(num).length < 2) return false;
    return w.some((x) => TIME.test(x.text)) || w.slice(0, side).some((x) => /^\d{6,}$/.test(x.text) && x.x0 < this.secX0);
  }

  /**
   * Times printed under their numbers (`Order No / Time` cells, value over value): the line's
   * times left of the security column, by the column they sit in, and the line's other words.
   */
  splitTimes(l: Line): { times: Partial<Record<'order_time' | 'trade_time', string>>; rest: Word[] } | null {
    const cols = this.header.cols.filter((c) => c.keys.includes('orderTime') || c.keys.includes('tradeTime'));
    const found = l.words.filter((w) => TIME.test(w.text) && w.x1 <= this.secX0 + 1);
    if (!found.length || !cols.length) return null;
    const times: Partial<Record<'order_time' | 'trade_time', string>> = {};
    for (const w of found) {
      const mid = (w.x0 + w.x1) / 2;
      const col = [...cols].sort((a, b) => Math.abs((a.x0 + a.x1) / 2 - mid) - Math.abs((b.x0 + b.x1) / 2 - mid))[0];
      times[col.keys.includes('orderTime') ? 'order_time' : 'trade_time'] ??= w.text;
    }
    return { times, rest: l.words.filter((w) => !found.includes(w)) };
  }

  /** A segment sub-heading row names the exchange of the rows under it. */
  noteHeading(l: Line): void {
    const m = /^\s*(NSE|BSE|NFO|BFO|CDS|MCX|NCDEX|MSEI)\b/.exec(l.text);
    if (m && !l.words.some((w) => num(w))) this.exchangeHeading = m[1];
  }

  /** Description text of a continuation line (every word in the security column), else null. */
  fragment(l: Line, words?: Word[]): string | null {
    const w = words ?? l.words;
    const size = l.pieces[0]?.size || 7;
    if (!w.length) return null;
    const near = Math.abs(w[0].x0 - this.secX0) <= size * 1.5 || Math.abs(w[0].x0 - this.descX0) <= size * 0.5;
    if (!near || w.some((x) => x.x1 > this.secX1)) return null;
    return w.map((x) => x.text).join(' ');
  }

  parseAnchor(l: Line): { trade: Trade; desc: string[] } | null {
    const words = l.words;
    let end = words.length;
    const remarks: string[] = [];
    while (end > 0 && !num(words[end - 1])) end--;
    for (let k = end; k < words.length; k++) remarks.push(words[k].text);
    // `2,475.52 Dr`: a debit (negative) or credit marked after the net total.
    const drcr = /^(dr|cr)\.?$/i.test(remarks[0] ?? '') ? (/^dr/i.test(remarks.shift()!) ? -1 : 1) : 0;
    const {
      start,
      figures: tail,
      at,
    } = rowFigures(
      words,
      end,
      this.numCols.map((n) => this.header.cols[n.col]),
      BLANK,
    );
    const nums: Partial<Record<ColKey, number>> = {};
    tail.forEach((w, k) => (nums[this.numCols[at[k]].key] ??= parseNumber(w.text) ?? 0));
    const times: string[] = [];
    const ids: string[] = [];
    const desc: string[] = [];
    const left = words.slice(0, start);
    const nearest = (re: RegExp, key: ColKey): Word | undefined => {
      const col = this.header.cols.find((c) => c.keys.includes(key));
      const cands = left.filter((w) => re.test(w.text));
      if (!col) return cands[cands.length - 1];
      const mid = (col.x0 + col.x1) / 2;
      return cands.sort((a, b) => Math.abs((a.x0 + a.x1) / 2 - mid) - Math.abs((b.x0 + b.x1) / 2 - mid))[0];
    };
    const joined = left.find((w) => EX_SIDE.test(w.text));
    const sideW = nearest(SIDE, 'bs') ?? joined;
    if (!sideW) return null;
    const sideText = sideW === joined ? EX_SIDE.exec(sideW.text)![2] : sideW.text;
    const side: 'B' | 'S' = /^b/i.test(sideText) ? 'B' : 'S';
    const exW = nearest(EXCH, 'exchange') ?? (joined && sideW === joined ? undefined : joined);
    const size = l.pieces[0]?.size || 7;
    // Order/trade numbers and times lead the row; the description is the text after them.
    let lead = true;
    for (const w of left) {
      if (w === sideW || w === exW) continue;
      if (TIME.test(w.text)) times.push(w.text);
      else if (lead && /^\d+$/.test(w.text) && w.x0 < this.secX0 - size * 0.5) ids.push(w.text);
      else {
        lead = false;
        if (!desc.length) this.descX0 = Math.min(this.descX0, w.x0);
        desc.push(w.text);
      }
    }
    const exchange = exW ? (EX_SIDE.exec(exW.text)?.[1] ?? exW.text) : joined ? EX_SIDE.exec(joined.text)![1] : this.exchangeHeading;
    if (drcr && nums.netTotal !== undefined) nums.netTotal = drcr * Math.abs(nums.netTotal);
    const order = this.header.cols.flatMap((c) => c.keys);
    const idKeys = order.filter((k) => k === 'orderNo' || k === 'tradeNo');
    const timeKeys = order.filter((k) => k === 'orderTime' || k === 'tradeTime');
    const v: Partial<Record<ColKey, string>> = {};
    idKeys.forEach((k, i) => (v[k] = ids[i] ?? ''));
    timeKeys.forEach((k, i) => (v[k] = times[i] ?? ''));
    return {
      desc,
      trade: {
        order_number: v.orderNo ?? '',
        order_time: v.orderTime ?? '',
        trade_number: v.tradeNo ?? '',
        trade_time: v.tradeTime ?? '',
        security_description: '',
        exchange,
        remarks: remarks.join(' ') || null,
        buy_sell: side,
        quantity: nums.qty ?? 0,
        net_rate_per_unit: nums.netRate ?? nums.rate ?? 0,
        closing_rate_per_unit: nums.closing ?? null,
        brokerage: nums.bpu ?? 0,
        net_total: nums.netTotal ?? 0,
      },
    };
  }
}

/**
 * One line of a security cell without its ISIN: a `SYMBOL / ISIN` line is dropped when the name
 * stands on another line (`other`), `NAME / ISIN` keeps the name.
 */
export function stripIsinPart(part: string, other: boolean): string {
  const t = part.split(/\s+/).filter(Boolean);
  const k = t.findIndex((w) => ISIN.test(w));
  if (k < 0) return part;
  if (k === 2 && (t[1] === '/' || t[1] === '-') && other) return '';
  if (k === 1 && /[/-]$/.test(t[0]) && other) return '';
  let from = k;
  if (t[k - 1] === '/' || t[k - 1] === '-') from = k - 1;
  const out = [...t.slice(0, from), ...t.slice(k + 1)];
  if (from === k && k > 0) out[k - 1] = out[k - 1].replace(/[/-]$/, '');
  return out.filter(Boolean).join(' ');
}

export const isIsinLine = (s: string): boolean => s.split(/\s+/).some((t) => ISIN.test(t));

/** Events of one trade table chunk, then descriptions assembled (continuations above or below). */
export type TableEvent =
  | { kind: 'anchor'; trade: Trade; desc: string[]; y?: number; page?: number }
  | { kind: 'frag'; text: string; y?: number; page?: number }
  | { kind: 'cut' }
  | { kind: 'header' };

export function assemble(events: TableEvent[]): Trade[] {
  // Evidence for where continuation lines sit.
  let above = 0;
  let below = 0;
  for (let k = 0; k < events.length; k++) {
    const e = events[k];
    // `SYMBOL / ISIN` alone on a trade row: the name stands on the lines above (not so for `NAME / ISIN`).
    if (e.kind === 'anchor' && e.desc.some((w) => ISIN.test(w)) && e.desc.filter((w) => !ISIN.test(w) && !/^[/-]$/.test(w)).length <= 1)
      above += 2;
    if (e.kind !== 'frag') continue;
    const prev = events[k - 1];
    const next = events[k + 1];
    if (!prev || prev.kind === 'header' || prev.kind === 'cut') above++;
    if (!next || next.kind === 'cut' || next.kind === 'header') below++;
    if (isIsinLine(e.text) && next?.kind !== 'frag') below += 2;
    // Between two trade rows, a record's lines sit closer together than two records do.
    if (prev?.kind === 'anchor' && prev.y !== undefined && e.y !== undefined && prev.page === e.page) {
      let j = k;
      while (events[j + 1]?.kind === 'frag') j++;
      const last = events[j];
      const after = events[j + 1];
      if (last.kind === 'frag' && after?.kind === 'anchor' && after.y !== undefined && last.y !== undefined && after.page === last.page) {
        const g1 = e.y - prev.y;
        const g2 = after.y - last.y;
        if (g1 > g2 + 1) above++;
        else if (g2 > g1 + 1) below++;
      }
    }
  }
  const up = above > below;
  const out: Trade[] = [];
  let pending: string[] = [];
  let last: { t: Trade; parts: string[] } | null = null;
  const finish = (): void => {
    if (!last) return;
    const parts = last.parts.map((x) => x.trim()).filter(Boolean);
    const named = parts.filter((x) => !isIsinLine(x)).length > 0;
    last.t.security_description = parts
      .map((x) => stripIsinPart(x, named))
      .filter(Boolean)
      .join(' ');
    out.push(last.t);
    last = null;
  };
  for (const e of events) {
    if (e.kind === 'frag') {
      if (up) pending.push(e.text);
      else if (last) last.parts.push(e.text);
      continue;
    }
    if (e.kind === 'anchor') {
      finish();
      last = { t: e.trade, parts: up ? [...pending, e.desc.join(' ')] : [e.desc.join(' ')] };
      pending = [];
      continue;
    }
    pending = [];
    finish();
  }
  finish();
  return out;
}
