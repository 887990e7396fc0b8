/**
 * Section readers: the per-security obligation table and the derivatives summary. Headers are
 * word sets over stacked lines; rows are read by content (ISIN, side words, figures from the
 * right matched to the numeric columns in order).
 */
import type { Line, Word } from '../../pdf/model.js';
import { isNumber, parseNumber } from '../../pdf/numbers.js';
import type { ContractNote } from '../../schema/index.js';
import { findHeader, type HeaderColumn, type HeaderVocabulary, rowFigures } from '../common/table/index.js';

type EqKey = 'name' | 'symbol' | 'isin' | 'bq' | 'bw' | 'bt' | 'sq' | 'sw' | 'st' | 'net';
type DvKey = 'desc' | 'side' | 'qty' | 'wap' | 'closing' | 'bpu' | 'net';

const SUMMARY_HEADER: HeaderVocabulary = {
  words: new Set(
    (
      'security name scrip symbol isin buy sell qty quantity wap avg average rate total value amount net obligation contract description ' +
      'bf cf brought carried carry bring forward closing per unit brokerage price of the and rs inr instrument'
    ).split(' '),
  ),
  share: 0.75,
  refuse: /\d{2}/,
};

function eqKey(l: string): EqKey | null {
  // `Security Name / ISIN`: one cell holding both.
  if (/\bisin\b/.test(l) && !/\b(security|scrip|name|instrument)\b/.test(l)) return 'isin';
  if (/\bsymbol\b/.test(l)) return 'symbol';
  const side = /\bbuy\b/.test(l) ? 'b' : /\bsell\b/.test(l) ? 's' : null;
  if (side && /\b(qty|quantity)\b/.test(l)) return `${side}q` as EqKey;
  if (side && /\b(wap|avg|average|rate|price)\b/.test(l)) return `${side}w` as EqKey;
  if (side && /\b(total|value|amount)\b/.test(l)) return `${side}t` as EqKey;
  if (/\bobligation\b|\bnet\b/.test(l)) return 'net';
  if (/\b(security|scrip|name|instrument)\b/.test(l)) return 'name';
  return null;
}

function dvKey(l: string): DvKey | null {
  if (/\bclosing\b/.test(l)) return 'closing';
  if (/\bbrokerage\b/.test(l)) return 'bpu';
  if (/\bbuy\b.*\bsell\b|\bbf\b|\bcf\b/.test(l)) return 'side';
  if (/\b(contract|description|instrument|security)\b/.test(l)) return 'desc';
  if (/\b(qty|quantity)\b/.test(l)) return 'qty';
  if (/\b(wap|avg|average|rate|price)\b/.test(l)) return 'wap';
  if (/\b(total|amount|value)\b/.test(l)) return 'net';
  return null;
}

export interface SummaryHeader<K> {
  kind: 'equity' | 'deriv';
  first: number;
  last: number;
  cols: (HeaderColumn & { key: K | null })[];
}

export type AnySummaryHeader = ({ kind: 'equity' } & SummaryHeader<EqKey>) | ({ kind: 'deriv' } & SummaryHeader<DvKey>);

export function summaryHeaderAt(lines: Line[], i: number): AnySummaryHeader | null {
  return findHeader<AnySummaryHeader>(lines, i, SUMMARY_HEADER, (raw, first, last) => {
    const eq = raw.map((c) => ({ ...c, key: eqKey(c.label) }));
    const ek = new Set(eq.map((c) => c.key));
    if (['name', 'bq', 'sq', 'net'].every((k) => ek.has(k as EqKey))) return { kind: 'equity', first, last, cols: eq };
    const dv = raw.map((c) => ({ ...c, key: dvKey(c.label) }));
    const dk = new Set(dv.map((c) => c.key));
    if (['desc', 'side', 'qty', 'wap', 'net'].every((k) => dk.has(k as DvKey))) return { kind: 'deriv', first, last, cols: dv };
    return null;
  });
}

const num = (w: Word): boolean => isNumber(w.text);

function tailNumbers<K extends string>(
  words: Word[],
  cols: (HeaderColumn & { key: K | null })[],
  numeric: K[],
): { start: number; v: Partial<Record<K, number>> } | null {
  const ncols = cols.filter((c) => c.key && numeric.includes(c.key));
  let end = words.length;
  while (end > 0 && !num(words[end - 1])) end--;
  const { start, figures: tail, at } = rowFigures(words, end, ncols);
  if (tail.length < 2) return null;
  const v: Partial<Record<K, number>> = {};
  tail.forEach((w, k) => (v[ncols[at[k]].key as K] = parseNumber(w.text) ?? 0));
  return { start, v };
}

export function equityRow(l: Line, h: SummaryHeader<EqKey>): ContractNote['equity_transactions'][number] | null {
  // `12,345.60 Dr`: a debit (payable by the client, negative) or a credit marked after the net obligation.
  const lastWord = l.words[l.words.length - 1]?.text ?? '';
  const sign = /^(dr|cr)\.?$/i.test(lastWord) ? (/^dr/i.test(lastWord) ? -1 : 1) : 0;
  const words = sign ? l.words.slice(0, -1) : l.words;
  const t = tailNumbers(words, h.cols, ['bq', 'bw', 'bt', 'sq', 'sw', 'st', 'net']);
  if (!t || Object.keys(t.v).length < 4) return null;
  if (sign && t.v.net !== undefined) t.v.net = sign * Math.abs(t.v.net);
  const left = words.slice(0, t.start).map((w) => w.text);
  const at = left.findIndex((w) => /^IN[A-Z0-9]{9}[0-9]$/.test(w));
  const isin = at >= 0 ? left[at] : null;
  let before = at >= 0 ? left.slice(0, at) : left;
  // `NAME / ISIN` in one cell: the separator goes with the ISIN.
  if (at >= 0 && before.length > 1 && /^[/-]$/.test(before[before.length - 1])) before = before.slice(0, -1);
  let symbol: string | null = null;
  // The symbol is the one word printed just before the ISIN (when the table has that column).
  if (h.cols.some((c) => c.key === 'symbol') && before.length > 1) {
    symbol = before[before.length - 1];
    before = before.slice(0, -1);
  }
  const name = before;
  if (!name.length) return null;
  const v = t.v;
  return {
    security_name: name.join(' '),
    security_symbol: symbol,
    isin,
    buy_quantity: v.bq ?? 0,
    buy_wap: v.bw ?? 0,
    buy_total_value: v.bt ?? 0,
    sell_quantity: v.sq ?? 0,
    sell_wap: v.sw ?? 0,
    sell_total_value: v.st ?? 0,
    net_obligation: v.net ?? 0,
  };
}

const SIDES: [RegExp, ContractNote['derivatives_transactions'][number]['buy_sell_bf_cf']][] = [
  [/^(bring|brought) forward$|^bf$|^b\/f$/i, 'bring forward'],
  [/^(carry|carried) forward$|^cf$|^c\/f$/i, 'carry forward'],
  [/^(buy|b)$/i, 'buy'],
  [/^(sell|s)$/i, 'sell'],
];

export function derivRow(l: Line, h: SummaryHeader<DvKey>): ContractNote['derivatives_transactions'][number] | null {
  const t = tailNumbers(l.words, h.cols, ['qty', 'wap', 'closing', 'bpu', 'net']);
  if (!t) return null;
  const left = l.words.slice(0, t.start).map((w) => w.text);
  let k = left.length;
  while (k > 1 && /^(buy|sell|bring|brought|carry|carried|forward|bf|cf|b\/f|c\/f|b|s)$/i.test(left[k - 1])) k--;
  const desc = left.slice(0, k);
  const side = left.slice(k);
  const s = side.join(' ');
  const found = SIDES.find(([re]) => re.test(s));
  if (!found || !desc.length) return null;
  const v = t.v;
  return {
    contract_description: desc.join(' '),
    buy_sell_bf_cf: found[1],
    quantity: v.qty ?? 0,
    wap_per_unit: v.wap ?? 0,
    closing_rate_per_unit: v.closing ?? null,
    brokerage_per_unit: v.bpu ?? 0,
    net_total: v.net ?? 0,
  };
}
