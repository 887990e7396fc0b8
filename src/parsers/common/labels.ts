/**
 * Label/value reading by content: a label is a word sequence (compared case- and
 * punctuation-insensitively) that starts a cell; its value is what follows in the same line
 * (after an optional colon, across any gap: `Trade date 04/04/2022`, `Contract note no.   CNT-1`)
 * or, when nothing follows, the words under the label on the next line (a header row over a
 * value row). Pure helpers; no layout knowledge.
 */
import type { Line, Word } from '../../pdf/model.js';
import { lineSize, normText } from './table/index.js';

/** Lower case, every run of non-alphanumerics one space: `Buy(B) / Sell(S)` -> `buy b sell s` (kept in table/text.ts, which labels.ts builds on). */
export { normText };

interface Tok {
  t: string;
  w: number;
  last: boolean;
}

const TOKENS = new WeakMap<readonly Word[], Tok[]>();

/** A line's words as label tokens (once per word list: every label set is looked up on every line). */
function tokens(words: readonly Word[]): Tok[] {
  const known = TOKENS.get(words);
  if (known) return known;
  const out: Tok[] = [];
  words.forEach((w, k) => {
    const ts = normText(w.text).split(' ').filter(Boolean);
    ts.forEach((t, i) => out.push({ t, w: k, last: i === ts.length - 1 }));
  });
  TOKENS.set(words, out);
  return out;
}

/** Word k starts a cell: first on the line, after a visible gap, or after a colon. */
function cellStart(words: Word[], k: number, size: number): boolean {
  if (k === 0) return true;
  const prev = words[k - 1];
  return words[k].x0 - prev.x1 > size * 0.8 || /:$/.test(prev.text);
}

export interface LabelHit {
  line: number;
  start: number;
  end: number;
  x0: number;
  x1: number;
}

/** Every place on a line where one of `labels` (normalised word lists) starts a cell; longest label wins. */
export function findLabels(line: Line, labels: string[][]): { start: number; end: number }[] {
  const words = line.words;
  const toks = tokens(words);
  const size = lineSize(line);
  const out: { start: number; end: number }[] = [];
  for (let i = 0; i < toks.length; i++) {
    if (i > 0 && toks[i - 1].w === toks[i].w) continue;
    if (!cellStart(words, toks[i].w, size)) continue;
    let best = -1;
    for (const l of labels) {
      if (l.length <= best || i + l.length > toks.length) continue;
      let ok = true;
      for (let j = 0; j < l.length && ok; j++) ok = toks[i + j].t === l[j];
      if (ok && toks[i + l.length - 1].last) best = l.length;
    }
    if (best > 0) {
      out.push({ start: toks[i].w, end: toks[i + best - 1].w });
      i += best - 1;
    }
  }
  return out;
}

const COLON = /^:+$/;

/**
 * The value of the first label in `wanted` found in `lines` that `accept` takes. `others` are
 * all labels that may share a line (a value stops where another label starts).
 */
export function labelValue(lines: Line[], wanted: string[][], others: string[][], accept: (v: string) => string | null): string | null {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const hits = findLabels(line, wanted);
    if (!hits.length) continue;
    const all = findLabels(line, others);
    const size = lineSize(line);
    for (const h of hits) {
      const words = line.words;
      const nextLabel = all.find((a) => a.start > h.end);
      const stop = nextLabel ? nextLabel.start : words.length;
      const vals: Word[] = [];
      let k = h.end + 1;
      if (k < stop && COLON.test(words[k].text)) k++;
      for (; k < stop; k++) {
        const w = words[k];
        if (vals.length && w.x0 - vals[vals.length - 1].x1 > size * 1.5) break;
        vals.push(w);
      }
      let text = vals
        .map((w) => w.text)
        .join(' ')
        .replace(/^:\s*/, '')
        .trim();
      if (!text) {
        // A header row over a value row: the words under the label, up to the next label.
        const x0 = words[h.start].x0 - size;
        const x1 = nextLabel ? words[nextLabel.start].x0 - size * 0.3 : Infinity;
        const below = lines[i + 1];
        if (below && below.page === line.page && below.y - line.y < size * 3.5) {
          const under: Word[] = [];
          for (const w of below.words) {
            const c = (w.x0 + w.x1) / 2;
            if (w.x0 < x0 - size || c < x0 || c > x1) {
              if (under.length) break;
              continue;
            }
            if (under.length && w.x0 - under[under.length - 1].x1 > size * 1.5) break;
            under.push(w);
          }
          if (!findLabels(below, others).length)
            text = under
              .map((w) => w.text)
              .join(' ')
              .trim();
        }
      }
      const v = text ? accept(text) : null;
      if (v !== null) return v;
    }
  }
  return null;
}

/** Synonym strings -> normalised word lists. */
export function labelWords(list: readonly string[]): string[][] {
  return list.map((s) => normText(s).split(' ').filter(Boolean));
}
