/**
 * The one table reader of the parsers (issue 31): registrar statements and contract notes read
 * their tables with these pure helpers over the line `words` of the document model (which do not
 * depend on how the PDF producer cut its text into operators). Tables are read by content; geometry
 * only decides between readings:
 *
 * - a header is found by its words, the vocabulary passed in as data by each section reader
 *   (`findHeader` with a `HeaderVocabulary`, or `matchStackedHeader` with a label map); it may be
 *   stacked over several lines; its columns are where its words are, never at an assumed x;
 * - a row's figures are read from the right and placed into the numeric columns in order, each
 *   to a distinct column, by least horizontal distance (`alignInOrder`, `assignNumbers`), so a
 *   blank cell is skipped rather than shifting the rest;
 * - text helpers shared by every reader: `lineSize`, `squash`, `wordsText`, `joinWrapped`,
 *   `splitGluedNumbers`, `trailingNumbers`, `mergeSplitRows`, `wordGroups`.
 */
import type { Line, Word } from '../../pdf/model.js';
import { isNumber } from '../../pdf/numbers.js';

/** A line's text with runs of spaces collapsed to one (pieces joined by one space). */
export function squash(l: Line): string {
  return l.text.replace(/\s{2,}/g, ' ').trim();
}

/** The span a word overlaps most horizontally (the first of equals), or undefined when it overlaps none. */
export function mostOverlapping<T extends { x0: number; x1: number }>(w: { x0: number; x1: number }, spans: readonly T[]): T | undefined {
  let best: T | undefined;
  let most = 0;
  for (const s of spans) {
    const overlap = Math.min(w.x1, s.x1) - Math.max(w.x0, s.x0);
    if (overlap > most) {
      most = overlap;
      best = s;
    }
  }
  return best;
}

/** Words joined by single spaces. */
export function wordsText(words: readonly Word[]): string {
  return words.map((w) => w.text).join(' ');
}

/** The line's font size (largest piece), a unit for geometric tolerances. */
/** Text compared as words: lower case, every run of other characters one space. */
export function normText(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

export function lineSize(l: Line): number {
  let s = 0;
  for (const p of l.pieces) if (p.size > s) s = p.size;
  return s || 8;
}

/**
 * Split a line's words into groups wherever the horizontal gap between neighbours is wider than
 * `gap` points: side text printed beside a block on the same baselines comes out as its own group.
 */
export function wordGroups(l: Line, gap: number): Word[][] {
  const out: Word[][] = [];
  let cur: Word[] = [];
  for (const w of l.words) {
    if (cur.length && w.x0 - cur[cur.length - 1].x1 > gap) {
      out.push(cur);
      cur = [];
    }
    cur.push(w);
  }
  if (cur.length) out.push(cur);
  return out;
}

/**
 * Numbers printed into each other's columns with no space between them, where a sign mark shows
 * the seam: `(2,04,446.60)(501.714)`, `1,234.56(12.345)`, `(5.00)-1.25`, `-12.40-1.028`. Each becomes its own word,
 * the extent shared out by characters. Digits glued to digits are left alone (no safe seam).
 */
export function splitGluedNumbers(words: readonly Word[]): readonly Word[] {
  let out: Word[] | null = null;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const parts = /\d[)(]|\)[-\d]|\d-\d/.test(w.text) ? w.text.split(/(?<=[\d)])(?=\()|(?<=\))(?=[-\d])|(?<=\d)(?=-\d)/) : [w.text];
    // A minus glued after a digit is a seam only between two amounts with decimals (`-12.40-1.028`),
    // never inside a date (`01-01-2024`).
    const seamsOk = parts.every(
      (p, k) => k === 0 || !/\d$/.test(parts[k - 1]) || !p.startsWith('-') || (p.includes('.') && parts[k - 1].includes('.')),
    );
    if (parts.length < 2 || !seamsOk || !parts.every((p) => isNumber(p))) {
      out?.push(w);
      continue;
    }
    out ??= words.slice(0, i);
    const cw = (w.x1 - w.x0) / w.text.length;
    let at = 0;
    for (const p of parts) {
      out.push({ text: p, x0: w.x0 + at * cw, x1: w.x0 + (at + p.length) * cw });
      at += p.length;
    }
  }
  return out ?? words;
}

/** The run of numeric words at the right end of a word list (left to right), and where it starts. */
export function trailingNumbers(words: readonly Word[]): { numbers: Word[]; start: number } {
  let start = words.length;
  while (start > 0 && isNumber(words[start - 1].text)) start--;
  return { numbers: words.slice(start), start };
}

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
  // dp[i][j]: best cost placing the first i items within the first j columns.
  const dp: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(Infinity));
  for (let j = 0; j <= m; j++) dp[0][j] = 0;
  for (let i = 1; i <= n; i++) {
    for (let j = i; j <= m; j++) {
      const c = cost(items[i - 1], cols[j - 1]);
      dp[i][j] = Math.min(dp[i][j - 1], c > tol ? Infinity : dp[i - 1][j - 1] + c);
    }
  }
  if (!Number.isFinite(dp[n][m])) return null;
  const out = new Array<number>(n);
  let j = m;
  for (let i = n; i >= 1; i--) {
    while (j > i && dp[i][j] === dp[i][j - 1]) j--;
    out[i - 1] = j - 1;
    j--;
  }
  return out;
}

/**
 * A header printed over one to four stacked lines: find, among `lines[i..i+3]` (same page, close
 * together), the words that make up each wanted label. `labels` maps a column name to the
 * alternatives of its key word (`['Price', 'NAV']`); `required` names the columns that must all be
 * present. Each column's span is its key word widened by the header words stacked over or under it
 * (`(INR)` under `Amount`, `Unit` over `Balance`) or printed right after it on its line.
 * Returns the spans and how many lines the header took, or null.
 */
export function matchStackedHeader(
  lines: readonly Line[],
  i: number,
  labels: Record<string, readonly string[]>,
  required: readonly string[],
  maxLines = 4,
  /** Other words a header of this table may hold (`Unit`, `Value`, `No.`): a line of only these (or parenthesised words) under the header is part of it. */
  extra: readonly string[] = [],
): { spans: Span[]; lines: number } | null {
  const first = lines[i];
  if (!first) return null;
  const size = lineSize(first);
  const window: Line[] = [];
  for (let k = i; k < lines.length && k < i + maxLines; k++) {
    const l = lines[k];
    if (l.page !== first.page || l.y - first.y > size * 1.6 * maxLines) break;
    window.push(l);
  }
  const key = new Map<string, string>();
  for (const [name, alts] of Object.entries(labels)) for (const a of alts) key.set(a.toLowerCase(), name);
  const vocab = new Set([...key.keys(), ...extra.map((e) => e.toLowerCase())]);
  const headerWord = (t: string): boolean => /^\(.*\)$/.test(t) || vocab.has(t.toLowerCase().replace(/[:.]$/, ''));
  // Try the shortest window that holds every required label (the header's own lines only).
  for (let n = 1; n <= window.length; n++) {
    const found = new Map<string, Span & { line: number }>();
    const others: (Word & { line: number })[] = [];
    for (let k = 0; k < n; k++) {
      for (const w of window[k].words) {
        const name = key.get(w.text.toLowerCase().replace(/[:.]$/, ''));
        if (name && !found.has(name)) found.set(name, { name, x0: w.x0, x1: w.x1, line: k });
        else others.push({ ...w, line: k });
      }
    }
    if (!required.every((r) => found.has(r))) continue;
    // A header line holds label words only: a line with a date or several numbers is data.
    if (window.slice(0, n).some((l) => l.words.filter((w) => isNumber(w.text)).length > 1)) return null;
    const spans = [...found.values()].sort((a, b) => a.x0 - b.x0);
    for (const w of others) {
      // Stacked over or under a label (horizontal overlap), or trailing it on its line.
      let best = mostOverlapping(w, spans);
      if (!best) {
        // Beside a label on its line, within a space or two: a parenthesised word belongs to the
        // label before it (`Amount (INR)`), another word to the label after it (`Unit Balance`)
        // when there is one, else to the one before.
        const near = (s: Span & { line: number }, after: boolean): number =>
          s.line !== w.line
            ? Infinity
            : after
              ? w.x1 <= s.x0 + 0.5
                ? s.x0 - w.x1
                : Infinity
              : s.x1 <= w.x0 + 0.5
                ? w.x0 - s.x1
                : Infinity;
        const pickSide = (after: boolean): (Span & { line: number }) | undefined => {
          let gap = size * 1.2;
          let found: (Span & { line: number }) | undefined;
          for (const s of spans) {
            const g = near(s, after);
            if (g < gap) {
              gap = g;
              found = s;
            }
          }
          return found;
        };
        best = /^\(.*\)$/.test(w.text) ? (pickSide(false) ?? pickSide(true)) : (pickSide(true) ?? pickSide(false));
      }
      if (best) {
        best.x0 = Math.min(best.x0, w.x0);
        best.x1 = Math.max(best.x1, w.x1);
      }
    }
    // Lines right under the header made only of words stacked under its labels (`(INR)`,
    // `Balance`) belong to it too.
    let used = n;
    for (let k = n; k < window.length; k++) {
      const ws = window[k].words;
      const under =
        ws.length > 0 &&
        ws.length <= spans.length &&
        ws.every((w) => headerWord(w.text) && spans.some((s) => Math.min(w.x1, s.x1) - Math.max(w.x0, s.x0) > 0));
      if (!under || window[k].y - window[k - 1].y > size * 1.8) break;
      for (const w of ws) {
        const s = spans.find((sp) => Math.min(w.x1, sp.x1) - Math.max(w.x0, sp.x0) > 0)!;
        s.x0 = Math.min(s.x0, w.x0);
        s.x1 = Math.max(s.x1, w.x1);
      }
      used = k + 1;
    }
    return { spans: spans.map(({ name, x0, x1 }) => ({ name, x0, x1 })), lines: used };
  }
  return null;
}

/**
 * Rejoin a row that its producer drew on two baselines a point or so apart (some report engines
 * shift a few cells of a row, e.g. beside a `#` marker): consecutive lines of one page whose
 * baselines differ by less than half the font size and whose words do not overlap horizontally
 * become one line. Linear; lines that do not qualify are returned as they are.
 */
export function mergeSplitRows(lines: readonly Line[]): Line[] {
  const out: Line[] = [];
  for (const l of lines) {
    const prev = out[out.length - 1];
    if (prev && prev.page === l.page && Math.abs(l.y - prev.y) < Math.min(lineSize(prev), lineSize(l)) * 0.5 && !overlaps(prev, l)) {
      const pieces = [...prev.pieces, ...l.pieces].sort((a, b) => a.x0 - b.x0);
      out[out.length - 1] = {
        ...prev,
        pieces,
        words: [...prev.words, ...l.words].sort((a, b) => a.x0 - b.x0),
        text: pieces.map((p) => p.text).join('  '),
      };
      continue;
    }
    out.push(l);
  }
  return out;
}

/** Do two lines' words overlap horizontally (a one-character marker such as `#` may)? */
function overlaps(a: Line, b: Line): boolean {
  for (const p of a.words) {
    if (p.text.length < 2) continue;
    for (const q of b.words) if (q.text.length > 1 && Math.min(p.x1, q.x1) - Math.max(p.x0, q.x0) > 0.5) return true;
  }
  return false;
}

/**
 * Join wrapped cell text: a word broken at its own hyphen (`Growth-` + `Direct`) joins
 * without a space; a free-standing dash (`Fund -` + `Growth`) keeps the space.
 */
export function joinWrapped(parts: string[]): string {
  return parts
    .reduce((acc, p) => (!acc ? p : /[A-Za-z0-9]-$/.test(acc) ? `${acc}${p}` : `${acc} ${p}`), '')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface HeaderColumn {
  /** Normalised label (all lines joined). */
  label: string;
  x0: number;
  x1: number;
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

/** The words a table's header is made of, as data: a line is a header line when enough of its words are in `words`. */
export interface HeaderVocabulary {
  /** Header words, normalised (`normText`: lower case, letters and digits). */
  words: ReadonlySet<string>;
  /** The least share of a line's words that must be header words. */
  share: number;
  /** A line whose text matches this holds figures (a time, a two-digit number): never a header line. */
  refuse: RegExp;
}

/** Is the line made of the vocabulary's words? */
export function isHeaderLine(l: Line, v: HeaderVocabulary): boolean {
  const t = normText(l.text).split(' ').filter(Boolean);
  return t.length > 0 && !v.refuse.test(l.text) && t.filter((w) => v.words.has(w)).length / t.length >= v.share;
}

/**
 * The header starting at line i: the run of stacked header lines (`headerBlockAt`) read as columns
 * (`headerColumns`), handed to `accept`, which names what each column holds and says whether the
 * columns make the wanted table (returning its reading, else null). The header may sit under a
 * title line made of header words too: the run is tried from each of its lines in turn.
 */
export function findHeader<T>(
  lines: Line[],
  i: number,
  vocabulary: HeaderVocabulary,
  accept: (columns: HeaderColumn[], first: number, last: number) => T | null,
): T | null {
  const block = headerBlockAt(lines, i, (l) => isHeaderLine(l, vocabulary));
  if (!block) return null;
  for (let first = block.first; first <= block.last; first++) {
    const found = accept(headerColumns(lines, first, block.last), first, block.last);
    if (found) return found;
  }
  return null;
}
