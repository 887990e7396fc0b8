/**
 * Placing a row's figures into columns: every reader places items (left to right) into columns
 * (left to right) keeping their order, each to a distinct column, at least total distance
 * (`placeInOrder`); the variants differ only in their distance and in which figures they take.
 */
import type { Word } from '../../../pdf/model.js';
import { isNumber } from '../../../pdf/numbers.js';

/** A horizontal span (a column's extent, from its header words or learned from rows). */
export interface Span {
  name: string;
  x0: number;
  x1: number;
}

/**
 * How far a value [x0, x1] sits from a column span: right-aligned values end at the span's right
 * edge, left-aligned ones start at its left edge, and a value overlapping the span is within 1 point
 * (closer the more of it lies under the span).
 */
export function spanDistance(x0: number, x1: number, s: Span): number {
  // Overlapping: between 0 and 1, less for a larger share of the value under the span.
  const overlap = Math.min(x1, s.x1) - Math.max(x0, s.x0);
  if (overlap > 0) return 1 - overlap / Math.max(0.1, x1 - x0);
  return Math.min(Math.abs(x1 - s.x1), Math.abs(x0 - s.x0));
}

/**
 * Assign the numbers at the right end of a line to columns (spans, left to right), keeping their
 * order: each number goes to one column, columns in increasing order, minimising the total
 * distance (`spanDistance`). Only the rightmost numbers are assigned: as many as fit within `tol`
 * points of a column; the others (a number ending a description, such as an instalment number) are
 * returned in `rest`.
 */
export function assignNumbers(numbers: readonly Word[], spans: readonly Span[], tol: number): { cells: Map<string, Word>; rest: Word[] } {
  const n = numbers.length;
  for (let take = Math.min(n, spans.length); take >= 1; take--) {
    const nums = numbers.slice(n - take);
    const at = placeInOrder(nums, spans, (w, s) => spanDistance(w.x0, w.x1, s), tol);
    if (at) {
      const cells = new Map<string, Word>();
      at.forEach((c, i) => cells.set(spans[c].name, nums[i]));
      return { cells, rest: numbers.slice(0, n - take) };
    }
  }
  return { cells: new Map(), rest: [...numbers] };
}

let scratch = new Float64Array(256);

/** A scratch table of at least `n` numbers (reused: placeInOrder is not re-entrant, nothing it calls places). */
function table(n: number): Float64Array {
  if (scratch.length < n) scratch = new Float64Array(Math.max(n, scratch.length * 2));
  return scratch;
}

/**
 * The placement every table reader uses: items (left to right) to columns (left to right) keeping
 * their order, each item to a distinct column, minimising the total `cost`; an item never goes to a
 * column farther than `tol`. Returns, per item, the column index, or null when no placement fits.
 * Dynamic programming over (items, columns): linear in their product.
 */
export function placeInOrder<I, C>(
  items: readonly I[],
  cols: readonly C[],
  cost: (item: I, col: C) => number,
  tol = Infinity,
): number[] | null {
  const n = items.length;
  const m = cols.length;
  if (n > m) return null;
  // dp[i * w + j]: best cost placing the first i items within the first j columns (one flat table).
  const w = m + 1;
  const dp = table((n + 1) * w);
  dp.fill(Infinity, 0, (n + 1) * w);
  dp.fill(0, 0, w);
  for (let i = 1; i <= n; i++) {
    for (let j = i; j <= m; j++) {
      const c = cost(items[i - 1], cols[j - 1]);
      dp[i * w + j] = Math.min(dp[i * w + j - 1], c > tol ? Infinity : dp[(i - 1) * w + j - 1] + c);
    }
  }
  if (!Number.isFinite(dp[n * w + m])) return null;
  const out = new Array<number>(n);
  let j = m;
  for (let i = n; i >= 1; i--) {
    while (j > i && dp[i * w + j] === dp[i * w + j - 1]) j--;
    out[i - 1] = j - 1;
    j--;
  }
  return out;
}

/**
 * Match items (left to right) to columns (left to right) keeping their order, each item to a
 * distinct column, minimising the horizontal gap between item and column spans (then the distance
 * of their centres). Returns, per item, the column index. Items must not outnumber columns.
 */
export function alignInOrder(items: { x0: number; x1: number }[], cols: { x0: number; x1: number }[]): number[] {
  const at = placeInOrder(
    items,
    cols,
    (a, b) => Math.max(0, a.x0 - b.x1, b.x0 - a.x1) + 0.01 * Math.abs((a.x0 + a.x1) / 2 - (b.x0 + b.x1) / 2),
  );
  if (!at) throw new Error('more items than columns');
  return at;
}

/**
 * The figures a row prints at its right end, before `end`: read leftwards over numbers (and printed
 * blanks matching `blank`, which hold a column's place but carry no value) until every column has
 * one, then placed into the columns (left to right) in order (`alignInOrder`). Returns where the
 * figures start, the numbers and, per number, the index of its column.
 */
export function rowFigures(
  words: readonly Word[],
  end: number,
  cols: { x0: number; x1: number }[],
  blank?: RegExp,
): { start: number; figures: Word[]; at: number[] } {
  let start = end;
  const figures: Word[] = [];
  while (start > 0 && (isNumber(words[start - 1].text) || !!blank?.test(words[start - 1].text)) && figures.length < cols.length) {
    start--;
    if (isNumber(words[start].text)) figures.unshift(words[start]);
  }
  return { start, figures, at: alignInOrder(figures, cols) };
}
