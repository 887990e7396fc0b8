/**
 * The table reader's text helpers: a line's text, size and word groups, numbers glued together or
 * trailing a row, wrapped cell text, rows a producer split over two baselines.
 */
import type { Line, Word } from '../../../pdf/model.js';
import { isNumber } from '../../../pdf/numbers.js';
import { memoByText } from '../../../shared/memo.js';

const SQUASHED = new WeakMap<Line, string>();

/** A line's text with runs of spaces collapsed to one (pieces joined by one space); once per line. */
export function squash(l: Line): string {
  let t = SQUASHED.get(l);
  if (t === undefined) SQUASHED.set(l, (t = l.text.replace(/\s{2,}/g, ' ').trim()));
  return t;
}

/** A string with every run of white space one space, trimmed (cell text joined from words). */
export function squashText(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
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

/** Text compared as words: lower case, every run of other characters one space (the readers ask for the same texts many times over: remembered). */
export const normText = memoByText((s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim(),
);

const NORM_WORDS = new WeakMap<Line, readonly string[]>();

/** A line's text as `normText` words (once per line). */
export function normWords(l: Line): readonly string[] {
  let w = NORM_WORDS.get(l);
  if (!w) NORM_WORDS.set(l, (w = normText(l.text).split(' ').filter(Boolean)));
  return w;
}

/** The line's font size (largest piece), a unit for geometric tolerances. */
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
const GLUE = /\d[)(]|\)[-\d]|\d-\d/;

export function splitGluedNumbers(words: readonly Word[]): readonly Word[] {
  let out: Word[] | null = null;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    // Most words have no seam at all: kept as they are, nothing made for them.
    if (!GLUE.test(w.text)) {
      out?.push(w);
      continue;
    }
    const parts = w.text.split(/(?<=[\d)])(?=\()|(?<=\))(?=[-\d])|(?<=\d)(?=-\d)/);
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
