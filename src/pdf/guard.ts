/**
 * Checks on the raw bytes of a PDF before pdf.js sees them, for what pdf.js would otherwise spend
 * minutes on in one synchronous stretch that no timer can interrupt.
 *
 * The encryption key length: pdf.js derives the key with `revision >= 3` by hashing the key 50
 * times over `/Length / 8` bytes (CipherTransformFactory#prepareKeyData). It checks only that the
 * length is an integer >= 40 and a multiple of 8, so `/Length 1000000000` means 50 MD5 runs over
 * 125 MB each, inside `getDocument`, before anything can time out. Real files use 40..256 bits
 * (RC4 40..128, AES 128/256; a crypt filter's /Length may be given in bytes, 5..32).
 */
import { DocumentError } from '../errors.js';

const INTEGER = /^\d+(\.0*)?$/;
// Names with a `#xx` escape that could spell /Encrypt or /Length (E, L, or their escapes first).
const NAME_ESCAPE = /\/(?:#4[5Cc]|[EL][^\s()<>[\]{}/%#]*#[0-9A-Fa-f]{2})[^\s()<>[\]{}/%]*/g;

/** Decode `#xx` escapes in the names that matter here (`/Encr#79pt` is `/Encrypt` to pdf.js). */
function decodeNames(text: string): string {
  return text.replace(NAME_ESCAPE, (name) => name.replace(/#([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
}

/**
 * The dictionary that starts at `from` (at `<<`), with literal and hex strings blanked out (they
 * may hold any bytes, `>>` included), or null when it does not close within `limit` characters.
 */
function dictAt(text: string, from: number, limit = 64 * 1024): string | null {
  let depth = 0;
  let out = '';
  const end = Math.min(text.length, from + limit);
  for (let i = from; i < end; i++) {
    const c = text[i];
    if (c === '(') {
      let nest = 1;
      for (i++; i < end && nest > 0; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '(') nest++;
        else if (text[i] === ')') nest--;
      }
      i--;
      out += '()';
    } else if (c === '<' && text[i + 1] === '<') {
      depth++;
      out += '<<';
      i++;
    } else if (c === '>' && text[i + 1] === '>') {
      depth--;
      out += '>>';
      i++;
      if (depth === 0) return out;
    } else if (c === '<') {
      const close = text.indexOf('>', i);
      if (close < 0 || close > end) return null;
      i = close;
      out += '<>';
    } else out += c;
  }
  return null;
}

/** Every definition `N G obj` of an object in the file (incremental updates may hold several). */
function definitions(text: string, num: string, gen: string): number[] {
  const re = new RegExp(`(?<![0-9])${num}\\s+${gen}\\s+obj\\b`, 'g');
  const at: number[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) at.push(m.index + m[0].length);
  return at;
}

function bad(what: string): DocumentError {
  return new DocumentError('DamagedPdf', `the PDF is damaged and cannot be read (${what})`);
}

/** The number a `/Length` value stands for: direct, or an indirect `N G R` resolved in the file. */
function lengthValues(text: string, dict: string): string[] {
  const out: string[] = [];
  for (const m of dict.matchAll(/\/Length(?![A-Za-z0-9])\s*([^\s/<>[\]()]+)(?:\s+(\d+)\s+R)?/g)) {
    if (m[2] === undefined) {
      out.push(m[1]);
      continue;
    }
    const at = definitions(text, m[1], m[2]);
    if (!at.length) out.push('(missing object)');
    for (const p of at) out.push(/^\s*([^\s/<>[\]()]+)/.exec(text.slice(p, p + 64))?.[1] ?? '(not a number)');
  }
  return out;
}

/** Reject an encryption dictionary whose key length is outside 40..256 bits (or 5..32 bytes in a crypt filter). */
export function checkEncryption(data: Uint8Array): void {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  // Cheap exit: no /Encrypt at all and no escaped names that could spell it.
  if (buf.indexOf('/Encrypt') < 0 && buf.indexOf('#') < 0) return;
  let text = buf.toString('latin1');
  if (text.includes('#')) text = decodeNames(text);
  for (const m of text.matchAll(/\/Encrypt(?![A-Za-z0-9])\s*(?:(\d+)\s+(\d+)\s+R|<<)/g)) {
    const dicts: (string | null)[] = [];
    if (m[1] === undefined) dicts.push(dictAt(text, m.index + m[0].length - 2));
    else {
      const at = definitions(text, m[1], m[2]);
      // The standard keeps the encryption dictionary out of object streams, where it could not be seen here.
      if (!at.length) throw bad(`the encryption dictionary ${m[1]} ${m[2]} R is not a plain object in the file`);
      for (const p of at) {
        const open = text.indexOf('<<', p);
        dicts.push(open >= 0 && /^\s*$/.test(text.slice(p, open)) ? dictAt(text, open) : null);
      }
    }
    for (const dict of dicts) {
      if (dict === null) throw bad('the encryption dictionary is not a readable dictionary');
      // The top-level /Length is in bits; a crypt filter's (/CF << /StdCF << /Length 16 >> >>) may be in bytes.
      const top = dict.slice(2, -2).replace(/<<[\s\S]*>>/g, '');
      const nested =
        dict
          .slice(2, -2)
          .match(/<<[\s\S]*>>/g)
          ?.join(' ') ?? '';
      for (const v of lengthValues(text, top))
        if (!INTEGER.test(v) || Number(v) < 40 || Number(v) > 256)
          throw bad(`the encryption key length is ${v} bits; it must be 40 to 256`);
      for (const v of lengthValues(text, nested))
        if (!INTEGER.test(v) || Number(v) < 5 || Number(v) > 256 || (Number(v) > 32 && Number(v) < 40))
          throw bad(`a crypt filter's key length is ${v}; it must be 40 to 256 bits (5 to 32 bytes)`);
    }
  }
}
