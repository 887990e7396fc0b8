/**
 * Table headers stacked over several lines, read as columns: the text pieces of up to `max`
 * consecutive header-like lines are clustered by horizontal overlap (a cell wrapped over three
 * lines is one column), each column's label is its words top to bottom. Numbers in a row are
 * then matched to columns in order, by distance, so a blank cell is skipped rather than shifting
 * the rest. Pure helpers.
 */
import type { Line } from '../../pdf/model.js';
import { normText } from './labels.js';

export interface HeaderColumn {
  /** Normalised label (all lines joined). */
  label: string;
  x0: number;
  x1: number;
}

export interface HeaderBlock {
  /** Index of the first and last header line in the lines array. */
  first: number;
  last: number;
  columns: HeaderColumn[];
}

/**
 * Cluster the pieces of `lines[first..last]` into columns by horizontal overlap, left to right.
 * Tiny footnote markers (a lone digit in a smaller font) are left out.
 */
export function headerColumns(lines: Line[], first: number, last: number): HeaderColumn[] {
  const segs: { x0: number; x1: number; y: number; text: string }[] = [];
  for (let i = first; i <= last; i++) {
    const l = lines[i];
    for (const p of l.pieces) {
      if (/^\d$/.test(p.text.trim())) continue;
      segs.push({ x0: p.x0, x1: p.x1, y: l.y, text: p.text });
    }
  }
  segs.sort((a, b) => a.x0 - b.x0);
  const clusters: { x0: number; x1: number; parts: typeof segs }[] = [];
  for (const s of segs) {
    const c = clusters[clusters.length - 1];
    if (c && s.x0 < c.x1 - 0.5) {
      c.x1 = Math.max(c.x1, s.x1);
      c.parts.push(s);
    } else clusters.push({ x0: s.x0, x1: s.x1, parts: [s] });
  }
  return clusters.map((c) => ({
    x0: c.x0,
    x1: c.x1,
    label: normText(
      c.parts
        .sort((a, b) => a.y - b.y || a.x0 - b.x0)
        .map((p) => p.text)
        .join(' '),
    ),
  }));
}

/**
 * The block of header-like lines starting at `i` (same page, close together, at most `max`),
 * or null when line i is not header-like.
 */
export function headerBlockAt(
  lines: Line[],
  i: number,
  isHeaderLike: (l: Line) => boolean,
  max = 8,
): { first: number; last: number } | null {
  if (!isHeaderLike(lines[i])) return null;
  let last = i;
  while (last + 1 < lines.length && last - i + 1 < max) {
    const n = lines[last + 1];
    const p = lines[last];
    const size = p.pieces[0]?.size || 7;
    if (n.page !== p.page || n.y - p.y > size * 2.6) break;
    if (!isHeaderLike(n) && !/^\d$/.test(n.text.trim())) break;
    last++;
  }
  return { first: i, last };
}

/** Which of the `regions` (column boundaries) holds x. */
export function regionOf(x: number, bounds: number[]): number {
  let k = 0;
  while (k < bounds.length && x >= bounds[k]) k++;
  return k;
}

/** Boundaries between consecutive columns: the midpoints of the gaps between their spans. */
export function boundaries(cols: { x0: number; x1: number }[]): number[] {
  const out: number[] = [];
  for (let k = 0; k + 1 < cols.length; k++) out.push((cols[k].x1 + cols[k + 1].x0) / 2);
  return out;
}

/**
 * Match items (left to right) to columns (left to right) keeping their order, each item to a
 * distinct column, minimising the horizontal distance between item and column spans. Returns,
 * per item, the column index. Items must not outnumber columns.
 */
export function alignInOrder(items: { x0: number; x1: number }[], cols: { x0: number; x1: number }[]): number[] {
  const n = items.length;
  const m = cols.length;
  if (n > m) throw new Error('more items than columns');
  const cost = (a: { x0: number; x1: number }, b: { x0: number; x1: number }): number => {
    const gap = Math.max(0, a.x0 - b.x1, b.x0 - a.x1);
    return gap + 0.01 * Math.abs((a.x0 + a.x1) / 2 - (b.x0 + b.x1) / 2);
  };
  // dp[i][j]: best cost placing the first i items within the first j columns.
  const dp: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(Infinity));
  for (let j = 0; j <= m; j++) dp[0][j] = 0;
  for (let i = 1; i <= n; i++) {
    for (let j = i; j <= m; j++) dp[i][j] = Math.min(dp[i][j - 1], dp[i - 1][j - 1] + cost(items[i - 1], cols[j - 1]));
  }
  const out = new Array<number>(n);
  let j = m;
  for (let i = n; i >= 1; i--) {
    while (j > i && dp[i][j] === dp[i][j - 1]) j--;
    out[i - 1] = j - 1;
    j--;
  }
  return out;
}
