/**
 * Hostile PDFs, generated on the fly (no binary files in the repository): each one made a real
 * `cas parse` hang, balloon or crash before parse jobs had limits enforced from outside
 * (issue 18, items 3-5).
 */
import { deflateSync, constants, createDeflate } from 'node:zlib';

/** A minimal, well-formed PDF from object bodies (1-based; object 1 is the catalog), with a correct xref. */
export function buildPdf(objects: (string | Buffer)[], trailerExtra = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const b = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(b);
    offset += b.length;
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ].join('');
  parts.push(
    Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra}>>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'),
  );
  return Buffer.concat(parts);
}

export function stream(dict: string, data: Buffer | string): Buffer {
  const d = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${d.length} >>\nstream\n`, 'latin1'), d, Buffer.from('\nendstream', 'latin1')]);
}

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** Pages that all show the same content stream (object 4); `pages` page objects follow it. */
function pagesOf(content: Buffer, pages: number): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${5 + i} 0 R`).join(' ');
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    FONT,
    content,
    ...Array.from(
      { length: pages },
      () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>',
    ),
  ];
  return buildPdf(objects);
}

/** An encryption dictionary asking for a key of 1,000,000,000 bits. */
export function hugeKeyLength(): Buffer {
  const hex = (n: number): string => `<${'00'.repeat(n)}>`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
    `<< /Filter /Standard /V 2 /R 3 /Length 1000000000 /P -4 /O ${hex(32)} /U ${hex(32)} >>`,
  ];
  return buildPdf(objects, `/Encrypt 4 0 R /ID [${hex(16)} ${hex(16)}] `);
}

/** A content stream of 200,000 nested `q` (save state), then text, then as many `Q`. */
export function deepNesting(depth = 200_000): Buffer {
  return pagesOf(stream('', `${'q '.repeat(depth)}BT /F1 12 Tf 72 720 Td (deep) Tj ET ${'Q '.repeat(depth)}`), 1);
}

/** 1,000 pages sharing one content stream of 20,000 text operators (compressed, so the file stays small). */
export function manyOperators(pages = 1000, ops = 20_000): Buffer {
  const body = `BT /F1 10 Tf 72 720 Td ${'(x) Tj '.repeat(ops - 4)}ET`;
  return pagesOf(stream('/Filter /FlateDecode', deflateSync(Buffer.from(body, 'latin1'))), pages);
}

/**
 * A FlateDecode bomb: about `mb` MB of deflate that inflates to about 1,000 times as much zeros,
 * shown on three pages. Built from one self-contained deflate block repeated (a full flush
 * resets the window), so making it costs milliseconds rather than compressing gigabytes.
 */
export async function flateBomb(mb = 1.1): Promise<Buffer> {
  const chunk = Buffer.alloc(1 << 20);
  const pieces: Buffer[] = [];
  const z = createDeflate({ level: 9 });
  z.on('data', (d: Buffer) => pieces.push(d));
  const flush = (): Promise<void> => new Promise((r) => z.flush(constants.Z_FULL_FLUSH, () => r()));
  z.write(Buffer.from('BT /F1 12 Tf 72 720 Td (bomb) Tj ET\n', 'latin1'));
  await flush();
  const head = Buffer.concat(pieces.splice(0));
  z.write(chunk);
  await flush();
  const block = Buffer.concat(pieces.splice(0));
  await new Promise<void>((r) => z.end(() => r()));
  const tail = Buffer.concat(pieces.splice(0));
  const n = Math.max(1, Math.round((mb * 1024 * 1024) / block.length));
  const data = Buffer.concat([head, ...Array.from({ length: n }, () => block), tail]);
  return pagesOf(stream('/Filter /FlateDecode', data), 3);
}

/** Malformed files pdf.js rejects asynchronously (broken xref, bad object streams, truncated). */
export function malformed(): { name: string; pdf: Buffer }[] {
  const good = pagesOf(stream('', 'BT /F1 12 Tf 72 720 Td (hello) Tj ET'), 1);
  const s = good.toString('latin1');
  return [
    { name: 'xref-points-nowhere', pdf: Buffer.from(s.replace(/startxref\n\d+/, 'startxref\n999999'), 'latin1') },
    { name: 'catalog-not-a-dict', pdf: buildPdf(['42', '<< /Type /Pages /Kids [] /Count 0 >>']) },
    { name: 'pages-loop', pdf: buildPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [2 0 R] /Count 1 >>']) },
    {
      name: 'bad-objstm',
      pdf: buildPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        stream('/Type /ObjStm /N 1000000 /First 5', 'garbage'),
      ]),
    },
    { name: 'content-bad-filter', pdf: pagesOf(stream('/Filter /FlateDecode', 'not deflate at all'), 1) },
    { name: 'truncated-half', pdf: good.subarray(0, Math.floor(good.length / 2)) },
  ];
}
