/**
 * Deterministic PDF mutations for the fuzz test: byte flips, truncation, dictionary mutations
 * (numbers made huge, negative or zero; names swapped; delimiters and references broken) and
 * stream mutations (contents overwritten, cut, zeroed; /Length lied about). Same seed, same files.
 */
import type { Rng } from '../helpers/prng.js';

const int = (r: Rng, n: number): number => Math.floor(r() * n);
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[int(r, xs.length)];

/** Where a source's dictionary numbers, names, delimiters, references and streams are (found once). */
export interface Anatomy {
  numbers: [number, number][];
  names: [number, number][];
  delimiters: number[];
  refs: [number, number][];
  streams: [number, number][];
}

export function anatomy(pdf: Buffer): Anatomy {
  const s = pdf.toString('latin1');
  const all = (re: RegExp): RegExpExecArray[] => [...s.matchAll(re)];
  return {
    numbers: all(/\/[A-Za-z]+\s+(-?\d+(?:\.\d+)?)/g).map((m) => [m.index + m[0].length - m[1].length, m[1].length]),
    names: all(/\/[A-Za-z][A-Za-z0-9]*/g).map((m) => [m.index, m[0].length]),
    delimiters: all(/<<|>>|\[|\]/g).map((m) => m.index),
    refs: all(/\b(\d+) 0 R\b/g).map((m) => [m.index, m[1].length]),
    streams: all(/stream\r?\n/g)
      .filter((m) => s[m.index - 1] !== 'd')
      .map((m) => {
        const start = m.index + m[0].length;
        const end = s.indexOf('endstream', start);
        return [start, end < 0 ? pdf.length : end];
      }),
  };
}

const NUMBERS = ['0', '-1', '1', '2147483647', '-2147483648', '99999999999999', '1e308', '0.000001', '65535', '1000000000'];
export const KINDS = [
  'flip',
  'truncate',
  'dict-number',
  'dict-name',
  'dict-delimiter',
  'dict-ref',
  'stream-garbage',
  'stream-cut',
  'stream-zero',
  'stream-length',
] as const;
export type MutationKind = (typeof KINDS)[number];

function splice(pdf: Buffer, at: number, len: number, insert: string | Buffer): Buffer {
  return Buffer.concat([pdf.subarray(0, at), typeof insert === 'string' ? Buffer.from(insert, 'latin1') : insert, pdf.subarray(at + len)]);
}

/** One mutant of `pdf`, by `kind` (or a random kind). */
export function mutate(pdf: Buffer, a: Anatomy, r: Rng, kind: MutationKind = pick(r, KINDS)): { kind: MutationKind; pdf: Buffer } {
  const out = (b: Buffer): { kind: MutationKind; pdf: Buffer } => ({ kind, pdf: b });
  switch (kind) {
    case 'flip': {
      const b = Buffer.from(pdf);
      for (let k = 1 + int(r, 16); k > 0; k--) {
        const at = int(r, b.length);
        b[at] = r() < 0.5 ? b[at] ^ (1 << int(r, 8)) : int(r, 256);
      }
      return out(b);
    }
    case 'truncate':
      return out(pdf.subarray(0, int(r, pdf.length)));
    case 'dict-number': {
      if (!a.numbers.length) return mutate(pdf, a, r, 'flip');
      const [at, len] = pick(r, a.numbers);
      return out(splice(pdf, at, len, pick(r, NUMBERS)));
    }
    case 'dict-name': {
      if (a.names.length < 2) return mutate(pdf, a, r, 'flip');
      const [at, len] = pick(r, a.names);
      const [from, flen] = pick(r, a.names);
      return out(splice(pdf, at, len, pdf.subarray(from, from + flen)));
    }
    case 'dict-delimiter': {
      if (!a.delimiters.length) return mutate(pdf, a, r, 'flip');
      const at = pick(r, a.delimiters);
      return out(splice(pdf, at, r() < 0.5 ? 2 : 1, pick(r, ['', '<<', '>>', '[', ']', '(', ' null '])));
    }
    case 'dict-ref': {
      if (!a.refs.length) return mutate(pdf, a, r, 'flip');
      const [at, len] = pick(r, a.refs);
      return out(splice(pdf, at, len, String(pick(r, [0, 1, 2, 99999, 2147483647, int(r, 40)]))));
    }
    case 'stream-garbage':
    case 'stream-cut':
    case 'stream-zero': {
      if (!a.streams.length) return mutate(pdf, a, r, 'flip');
      const [s, e] = pick(r, a.streams);
      if (e <= s) return mutate(pdf, a, r, 'flip');
      const from = s + int(r, e - s);
      const len = 1 + int(r, Math.min(4096, e - from));
      if (kind === 'stream-cut') return out(splice(pdf, from, len, ''));
      const fill = Buffer.alloc(len);
      if (kind === 'stream-garbage') for (let i = 0; i < len; i++) fill[i] = int(r, 256);
      return out(splice(pdf, from, len, fill));
    }
    case 'stream-length': {
      const s = pdf.toString('latin1');
      const lengths = [...s.matchAll(/\/Length\s+(\d+)/g)];
      if (!lengths.length) return mutate(pdf, a, r, 'flip');
      const m = pick(r, lengths);
      return out(splice(pdf, m.index + m[0].length - m[1].length, m[1].length, pick(r, NUMBERS)));
    }
  }
}
