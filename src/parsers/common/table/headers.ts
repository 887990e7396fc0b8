/**
 * Finding a table's header by its words (the vocabulary passed in as data by each section reader):
 * `matchStackedHeader` (a label map, one to four stacked lines), `findHeader` (a vocabulary of
 * header words; columns clustered by horizontal overlap). Its columns are where its words are,
 * never at an assumed x. (`readGrid` in grid.ts reads a header into typed columns.)
 */
import type { Line, Word } from '../../../pdf/model.js';
import { isNumber } from '../../../pdf/numbers.js';
import type { Span } from './place.js';
import { lineSize, mostOverlapping, normText, normWords } from './text.js';

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
const COLUMNS = new WeakMap<readonly Line[], Map<number, readonly HeaderColumn[]>>();

export function headerColumns(lines: Line[], first: number, last: number): HeaderColumn[] {
  // Every section reader asks at the same header lines (pure; callers copy the columns they keep).
  let m = COLUMNS.get(lines);
  if (!m) COLUMNS.set(lines, (m = new Map()));
  const key = first * 100_000 + last;
  let cols = m.get(key);
  if (!cols) m.set(key, (cols = Object.freeze(readColumns(lines, first, last).map((c) => Object.freeze(c)))));
  return cols as HeaderColumn[];
}

function readColumns(lines: Line[], first: number, last: number): HeaderColumn[] {
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
  const t = normWords(l);
  if (!t.length || v.refuse.test(l.text)) return false;
  let known = 0;
  for (const w of t) if (v.words.has(w)) known++;
  return known / t.length >= v.share;
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
