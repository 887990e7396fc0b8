/**
 * A table header whose every word names its column's role (the vocabulary passed in as data: word
 * -> role, or null for a unit mark such as `in`, `Rs`): the words of one role, stacked or side by
 * side, are one column, a unit mark under a column widens it, and a word broken over two lines
 * (`Distrib-` / `ution`) names the role of the word it is part of. Columns are where the words
 * are, never at an assumed x.
 */
import type { Line, Word } from '../../../pdf/model.js';
import { lineSize } from './text.js';

/** Header words (lower case, letters only) -> the role of their column; `null`: a unit mark. */
export type WordVocabulary<R extends string> = Readonly<Record<string, R | null>>;

export interface WordColumn<R extends string> {
  role: R;
  x0: number;
  x1: number;
}

const norm = (w: string): string => w.toLowerCase().replace(/[^a-z]/g, '');

/** A header word's role: a vocabulary word, or part of one broken over two lines; undefined: not a header word. */
export function wordRole<R extends string>(w: string, v: WordVocabulary<R>): R | null | undefined {
  if (/\d/.test(w)) return undefined;
  const n = norm(w);
  if (!n) return null;
  if (n in v) return v[n];
  if (n.length >= 4)
    for (const [k, r] of Object.entries(v)) if (r && k.length > n.length && (k.startsWith(n) || k.endsWith(n))) return r as R;
  return undefined;
}

/**
 * A line made only of header words (unit marks and punctuation neutral), with at least one; beside
 * a header (`stacked`), a line of unit marks alone (`(₹) (₹) (₹)`) too.
 */
export function isWordHeaderLine<R extends string>(l: Line, v: WordVocabulary<R>, stacked = false): boolean {
  let known = 0;
  for (const w of l.words) {
    const r = wordRole(w.text, v);
    if (r === undefined) return false;
    if (r) known++;
  }
  return known > 0 || (stacked && l.words.length > 0);
}

/**
 * The header whose lines include lines[i] (stacked lines within about two line heights, at most
 * six), or null; `accept` says whether the roles found make the wanted table.
 */
export function readWordHeader<R extends string>(
  lines: Line[],
  i: number,
  v: WordVocabulary<R>,
  accept: (roles: ReadonlySet<R>) => boolean,
): { columns: WordColumn<R>[]; next: number } | null {
  if (!isWordHeaderLine(lines[i], v)) return null;
  let a = i;
  let b = i;
  const close = (u: Line, w: Line): boolean => u.page === w.page && w.y - u.y <= lineSize(u) * 2.2;
  while (a > 0 && a > i - 6 && close(lines[a - 1], lines[a]) && isWordHeaderLine(lines[a - 1], v, true)) a--;
  while (b + 1 < lines.length && b < a + 6 && close(lines[b], lines[b + 1]) && isWordHeaderLine(lines[b + 1], v, true)) b++;
  const byRole = new Map<R, { x0: number; x1: number }>();
  const marks: Word[] = [];
  for (let k = a; k <= b; k++) {
    for (const w of lines[k].words) {
      const r = wordRole(w.text, v);
      if (r === null) {
        marks.push(w);
        continue;
      }
      if (!r) continue;
      const c = byRole.get(r);
      byRole.set(r, c ? { x0: Math.min(c.x0, w.x0), x1: Math.max(c.x1, w.x1) } : { x0: w.x0, x1: w.x1 });
    }
  }
  if (!accept(new Set(byRole.keys()))) return null;
  const columns = [...byRole.keys()].map((role) => ({ role, ...byRole.get(role)! })).sort((u, w) => u.x0 - w.x0);
  // A unit mark (`in ₹`, `(Rs.)`) under a column widens it.
  for (const w of marks) {
    const c = columns.find((x) => Math.min(x.x1, w.x1) - Math.max(x.x0, w.x0) > 0);
    if (c) {
      c.x0 = Math.min(c.x0, w.x0);
      c.x1 = Math.max(c.x1, w.x1);
    }
  }
  return { columns, next: b + 1 };
}
