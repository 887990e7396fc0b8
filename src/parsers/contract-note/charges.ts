/**
 * Section reader: the charges summary. Rows are found by their label words at the start of a
 * line; the value is the right-most figure in the segment columns (the NET TOTAL column is
 * last). A label wrapped over two lines, or figures on the line after a label, are joined.
 */
import type { Line, Word } from '../../pdf/model.js';
import { isNumber, parseNumber } from '../../pdf/numbers.js';
import type { ParseWarning } from '../../schema/index.js';
import { normText } from '../common/labels.js';
import { alignInOrder, headerColumns } from '../common/table/index.js';
import { genericCharge } from './layouts/generic.js';
import type { BrokerLayout, ChargeKey } from './layouts/types.js';

const SEGMENT_WORDS = new Set(
  'charges charge particulars description equity cash futures and options f o fo derivatives derivative currency commodity net total segment t 1 nse bse mcx'.split(
    ' ',
  ),
);

/** A charges-table header: segment names and a total column, no figures. */
export function segmentHeader(l: Line): boolean {
  const t = normText(l.text).split(' ').filter(Boolean);
  const j = t.join(' ');
  return (
    l.pieces.length >= 2 &&
    t.length > 0 &&
    t.every((w) => SEGMENT_WORDS.has(w)) &&
    /\b(equity|futures|f o|derivatives|fo|options|cash)\b/.test(j) &&
    /\btotal\b/.test(j) &&
    !/\d{2}/.test(l.text)
  );
}

/** `skip`: lines already read as trade or summary rows. */
export function readCharges(
  lines: Line[],
  from: number,
  layout: BrokerLayout | undefined,
  warnings: ParseWarning[],
  skip: Set<number> = new Set(),
): Partial<Record<ChargeKey, number>> {
  const own = layout?.charges.flatMap(([k, ls]) => ls.map((s) => [k, normText(s)] as const)) ?? [];
  const keyOf = (label: string): ChargeKey | 'ignore' | null => own.find(([, s]) => label.startsWith(s))?.[0] ?? genericCharge(label);
  const out: Partial<Record<ChargeKey, number>> = {};
  let minX = -Infinity;
  let started = false;
  let pendingKey: ChargeKey | null = null;
  let pendingText = '';
  for (let i = from; i < lines.length; i++) {
    const l = lines[i];
    if (skip.has(i)) continue;
    if (segmentHeader(l)) {
      const p = l.pieces.filter((x) => !/^(charges?|particulars|description)$/i.test(x.text.trim()));
      if (p.length) minX = Math.min(...p.map((x) => x.x0)) - 4;
      started = true;
      continue;
    }
    let words = l.words;
    // An amount in words after the figure: `9000.84 Dr ( Nine Thousand ... Only )`.
    const open = words.findIndex(
      (w, k) =>
        /^\(/.test(w.text) &&
        !isNumber(w.text) &&
        k > 0 &&
        /\)$/.test(words[words.length - 1].text) &&
        words.slice(k).some((x) => /^[a-z]{3,}/i.test(x.text)) &&
        words.slice(0, k).some((x) => isNumber(x.text)),
    );
    if (open > 0) words = words.slice(0, open);
    const figures: Word[] = [];
    let labelEnd = words.length;
    // A trailing `Dr` / `Cr` marks a debit or a credit.
    let drcr = 0;
    let end = words.length;
    if (end > 1 && /^(dr|cr)\.?$/i.test(words[end - 1].text) && isNumber(words[end - 2].text)) {
      drcr = /^dr/i.test(words[end - 1].text) ? -1 : 1;
      end--;
      labelEnd = end;
    }
    for (let k = end - 1; k >= 0; k--) {
      if (isNumber(words[k].text) && words[k].x1 > minX && /[.,]|^0$|^\(/.test(words[k].text)) {
        figures.unshift(words[k]);
        labelEnd = k;
      } else if (figures.length) break;
    }
    // Before the first charge row is found only a row with figures can open the section.
    if (!started && !figures.length) continue;
    // The label starts a cell: the line's first, or one printed beside a paragraph.
    // Row labels may be enumerated: `(e) Securities transaction tax`, `E. Stamp duty`.
    const clean = (from: number): string =>
      normText(
        words
          .slice(from, labelEnd)
          .map((w) => w.text)
          .join(' '),
      ).replace(/^([a-h]|[ivx]+|\d{1,2}) (?=[a-z]{2})/, '');
    const starts = [
      0,
      ...l.pieces
        .slice(1)
        .map((p) => words.findIndex((w) => w.x0 >= p.x0 - 0.5))
        .filter((k) => k > 0 && k < labelEnd),
    ];
    let label = clean(0);
    let key: ChargeKey | 'ignore' | null = null;
    for (const st of starts) {
      if (st > 0 && !figures.length) break;
      const c = clean(st);
      const k = c ? keyOf(c) : null;
      if (k) {
        [label, key] = [c, k];
        break;
      }
    }
    if (!key && label && pendingText && figures.length) key = keyOf(`${pendingText} ${label}`);
    if (!key && !label && figures.length && pendingKey) key = pendingKey;
    if (key === 'ignore') {
      pendingKey = null;
      pendingText = '';
      continue;
    }
    if (key) {
      started = true;
      let v = figures.length ? (parseNumber(figures[figures.length - 1].text) ?? 0) : 0;
      if (drcr) v = drcr * Math.abs(v);
      // A label that says which way the money goes sets the sign (negative: payable by client).
      if (
        v > 0 &&
        ((key === 'net' && /payable/.test(label) && !/receivable/.test(label)) ||
          (key === 'obligation' && /^pay ?in obligation/.test(label)))
      )
        v = -v;
      if (figures.length || !(key in out)) out[key] = key === 'obligation' || key === 'net' ? v : Math.abs(v);
      pendingKey = figures.length ? null : key;
      pendingText = '';
      if (key === 'net' && figures.length) break;
      continue;
    }
    if (!started) continue;
    if (figures.length && label && label.length > 3)
      warnings.push({ code: 'UnknownChargeRow', message: `charge row '${label}' is not recognised and was left out` });
    pendingText = figures.length ? '' : label;
    if (figures.length) pendingKey = null;
  }
  return out;
}

const COLUMN_CHARGES: [ChargeKey, RegExp][] = [
  ['obligation', /\bpay ?in\b.*\bobligation\b|\bpay in pay out\b/],
  ['stt', /\bsecurities transaction tax\b|\bstt\b/],
  ['brokerage', /\bbrokerage\b/],
  ['exchange', /\bexchange trans\w*|\btransaction charges\b/],
  ['clearing', /\bclearing\b/],
  ['sebi', /\bsebi\b/],
  ['cgst', /\bcgst\b/],
  ['sgst', /\bsgst\b/],
  ['igst', /\bigst\b/],
  ['stamp', /\bstamp\b/],
  ['net', /\bnet amount\b/],
];

/**
 * Charges printed as columns (one header cell per charge, a `TOTAL` row of figures under them),
 * as some back offices print them. A header cell may name two charges (`Exchange Transactn
 * SEBI Turnover` / `Charges Fees`): the figures are matched to the named charges in order.
 */
export function readChargeColumns(lines: Line[], from: number, skip: Set<number>): Partial<Record<ChargeKey, number>> {
  for (let i = from; i < lines.length; i++) {
    // A line another table took may still open this header when it holds no figure (a short label
    // line such as `Net Amount` right after a scrip summary's total reads there as a heading).
    if ((skip.has(i) && /\d/.test(lines[i].text)) || /\d{2}/.test(lines[i].text)) continue;
    let last = i;
    while (
      last + 1 < lines.length &&
      last - i < 3 &&
      lines[last + 1].page === lines[i].page &&
      !/\d\.\d/.test(lines[last + 1].text) &&
      lines[last + 1].y - lines[last].y < 14
    )
      last++;
    const cols = headerColumns(lines, i, last).flatMap((c) => {
      const keys = COLUMN_CHARGES.map(([k, re]) => [k, re.exec(c.label)?.index ?? -1] as const)
        .filter(([, at]) => at >= 0)
        .sort((a, b) => a[1] - b[1])
        .map(([k]) => k);
      // A cell naming no charge (cess, the segment name) still holds a figure: keep its place.
      return keys.length ? keys.map((key) => ({ ...c, key: key as ChargeKey | null })) : [{ ...c, key: null as ChargeKey | null }];
    });
    if (new Set(cols.map((c) => c.key).filter(Boolean)).size < 5 || !cols.some((c) => c.key === 'net')) continue;
    // The figures: the last of the lines of figures right under the header (a TOTAL row when there is one).
    let row: Line | null = null;
    for (let k = last + 1; k < lines.length && k <= last + 8; k++) {
      const nums = lines[k].words.filter((w) => isNumber(w.text));
      if (nums.length >= 3) row = lines[k];
      else if (row) break;
    }
    if (!row) continue;
    const figs = row.words.filter((w) => isNumber(w.text));
    if (figs.length > cols.length) figs.splice(0, figs.length - cols.length);
    const at = alignInOrder(figs, cols);
    const out: Partial<Record<ChargeKey, number>> = {};
    figs.forEach((w, k) => {
      const key = cols[at[k]].key;
      if (!key) return;
      const v = parseNumber(w.text) ?? 0;
      out[key] = key === 'obligation' || key === 'net' ? v : Math.abs(v);
    });
    return out;
  }
  return {};
}
