/**
 * Hostile PDFs for the load test, generated here (no binaries committed): a truncated fixture, a
 * content stream nested 200,000 `q` deep (pdf.js spins on it until something outside the job stops
 * it), and a FlateDecode bomb of about 1 MB that inflates to 1 GiB.
 */
import { readFileSync } from 'node:fs';
import zlib from 'node:zlib';
import { fixture } from '../helpers/cas.js';

/** A one-page PDF with a correct xref table whose page content is `content` (already encoded with `filter`). */
export function onePagePdf(content: Buffer, filter = '/FlateDecode', pages = 1): Buffer {
  // With `pages`, that many pages show the same content stream (object 5); the others follow it.
  const more = Array.from({ length: pages - 1 }, (_, i) => i + 6);
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [3 0 R${more.map((n) => ` ${n} 0 R`).join('')}] /Count ${pages} >>`,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>';
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n', 'latin1')];
  const offs: number[] = [];
  let off = parts[0].length;
  const push = (b: Buffer): void => {
    parts.push(b);
    off += b.length;
  };
  objs.forEach((o, i) => {
    offs.push(off);
    push(Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`, 'latin1'));
  });
  offs.push(off);
  push(Buffer.from(`5 0 obj\n<< ${filter ? `/Filter ${filter} ` : ''}/Length ${content.length} >>\nstream\n`, 'latin1'));
  push(content);
  push(Buffer.from('\nendstream\nendobj\n', 'latin1'));
  more.forEach((n) => {
    offs.push(off);
    push(Buffer.from(`${n} 0 obj\n${page}\nendobj\n`, 'latin1'));
  });
  const table = offs.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  push(
    Buffer.from(
      `xref\n0 ${offs.length + 1}\n0000000000 65535 f \n${table}trailer\n<< /Size ${offs.length + 1} /Root 1 0 R >>\nstartxref\n${off}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}

/** A page whose content stream nests `depth` `q` operators (issue 18 item 3). */
export function nestedQ(depth = 200_000): Buffer {
  return onePagePdf(zlib.deflateSync(Buffer.from(`${'q '.repeat(depth)}BT /F1 12 Tf 72 720 Td (deep) Tj ET ${'Q '.repeat(depth)}`)));
}

/**
 * A zlib stream of `totalBytes` zero bytes, made without deflating them all: one chunk is deflated
 * with a full flush (its blocks end byte-aligned and refer to nothing before them), repeated, then
 * closed with an empty final block and the Adler-32 of n zeros ((n mod 65521) << 16 | 1).
 */
export function zeroBomb(totalBytes: number, chunkBytes = 16 * 1024 * 1024): Buffer {
  if (totalBytes % chunkBytes) throw new Error('totalBytes must be a multiple of chunkBytes');
  const chunk = zlib.deflateRawSync(Buffer.alloc(chunkBytes), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((totalBytes % 65521) << 16) | 1) >>> 0);
  return Buffer.concat([
    Buffer.from([0x78, 0xda]),
    ...Array.from({ length: totalBytes / chunkBytes }, () => chunk),
    Buffer.from([0x03, 0x00]),
    adler,
  ]);
}

/** A page whose content stream is a FlateDecode bomb: about 1 MB that inflates to 1 GiB (issue 18 item 4). */
export function flateBomb(inflated = 1024 * 1024 * 1024): Buffer {
  return onePagePdf(zeroBomb(inflated));
}

/** The first `fraction` of a real fixture: a PDF cut short mid-file (no xref, no trailer). */
export function truncatedFixture(rel: string, fraction = 0.55): Buffer {
  const full = readFileSync(fixture(rel));
  return full.subarray(0, Math.floor(full.length * fraction));
}
