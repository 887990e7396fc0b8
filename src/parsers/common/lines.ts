/**
 * Line-level text helpers shared by the parsers. Pure; they read a line's `words` (which do not
 * depend on how the PDF producer cut its text into operators), never its pieces as cells.
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
 * distance. Only the rightmost numbers are assigned: as many as fit within `tol` points of a
 * column; the others (a number ending a description, such as an instalment number) are returned
 * in `rest`. Small inputs (at most a handful of numbers and columns): exhaustive search is cheap.
 */
export function assignNumbers(numbers: readonly Word[], spans: readonly Span[], tol: number): { cells: Map<string, Word>; rest: Word[] } {
  const n = numbers.length;
  for (let take = Math.min(n, spans.length); take >= 1; take--) {
    const nums = numbers.slice(n - take);
    let best: number[] | null = null;
    let bestCost = Infinity;
    const pick: number[] = [];
    const walk = (i: number, from: number, cost: number): void => {
      if (cost >= bestCost) return;
      if (i === nums.length) {
        bestCost = cost;
        best = [...pick];
        return;
      }
      for (let c = from; c <= spans.length - (nums.length - i); c++) {
        const d = spanDistance(nums[i].x0, nums[i].x1, spans[c]);
        if (d > tol) continue;
        pick.push(c);
        walk(i + 1, c + 1, cost + d);
        pick.pop();
      }
    };
    walk(0, 0, 0);
    if (best) {
      const cells = new Map<string, Word>();
      (best as number[]).forEach((c, i) => cells.set(spans[c].name, nums[i]));
      return { cells, rest: numbers.slice(0, n - take) };
    }
  }
  return { cells: new Map(), rest: [...numbers] };
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
