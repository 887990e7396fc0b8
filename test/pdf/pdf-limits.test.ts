/**
 * Issue 18 items 3-5 at the PDF layer: hostile files, generated here (no binaries committed), get a
 * typed DocumentError quickly instead of hanging, and no pdf.js rejection escapes. Where pdf.js
 * spins inside one synchronous stretch that nothing in the same thread can interrupt (a content
 * stream nested 200,000 `q` deep), the test runs openPdf in a worker thread and shows that the
 * caller's outside limit (terminate at a wall-clock limit) ends it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { DocumentError } from '../../src/errors.js';
import { openPdf, pdfLimits, isPdfjsInternalRejection, DEFAULT_LIMITS } from '../../src/pdf/open.js';
import { checkEncryption } from '../../src/pdf/guard.js';
import { BIN, ROOT, cleanEnv, fixture, tmpDir } from '../helpers/cas.js';

type Obj = string | { dict: string; stream: Buffer };

/** A PDF with a correct xref table: objects are numbered from 1; object 1 is the catalog. */
function buildPdf(objs: Obj[], trailer = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n', 'latin1')];
  let off = parts[0].length;
  const offs: number[] = [];
  objs.forEach((o, i) => {
    offs.push(off);
    const b =
      typeof o === 'string'
        ? Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`, 'latin1')
        : Buffer.concat([
            Buffer.from(`${i + 1} 0 obj\n${o.dict.replace(/>>\s*$/, '')} /Length ${o.stream.length} >>\nstream\n`, 'latin1'),
            o.stream,
            Buffer.from('\nendstream\nendobj\n'),
          ]);
    parts.push(b);
    off += b.length;
  });
  const table = offs.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(
    Buffer.from(
      `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${table}trailer\n<< /Size ${objs.length + 1} /Root 1 0 R ${trailer} >>\nstartxref\n${off}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
const page = (contents: number | string) =>
  `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents ${typeof contents === 'number' ? `${contents} 0 R` : contents} >>`;
const HELLO = { dict: '<< >>', stream: Buffer.from('BT /F1 12 Tf 72 720 Td (Hello statement) Tj ET') };

/** One page whose text says hello, with the extra objects and trailer entries given (objects 6...). */
function onePage(extra: Obj[] = [], trailer = ''): Buffer {
  return buildPdf(
    ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', page(5), FONT, HELLO, ...extra],
    trailer,
  );
}

/** `pages` pages sharing one content stream of `ops` text operators (`(x) '`: next line, show). */
function manyPages(pages: number, ops: number): Buffer {
  const content = Buffer.from(`BT /F1 8 Tf 10 TL 72 720 Td ${Array.from({ length: ops }, (_, i) => `(x${i % 10}) '`).join(' ')} ET`);
  const objs: Obj[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${6 + i} 0 R`).join(' ')}] /Count ${pages} >>`,
    '<< >>',
    FONT,
    { dict: '<< /Filter /FlateDecode >>', stream: zlib.deflateSync(content) },
  ];
  for (let i = 0; i < pages; i++) objs.push(page(5));
  return buildPdf(objs);
}

const ID = '<00112233445566778899aabbccddeeff>';
const HASH = `<${'41'.repeat(32)}>`;
const encrypted = (encrypt: string, extra: Obj[] = []) => onePage([encrypt, ...extra], `/Encrypt 6 0 R /ID [${ID} ${ID}]`);

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value: T | undefined; error: unknown }> {
  const t = performance.now();
  try {
    const value = await f();
    return { ms: performance.now() - t, value, error: undefined };
  } catch (error) {
    return { ms: performance.now() - t, value: undefined, error };
  }
}

beforeAll(async () => {
  // pdf.js loads once per process; the timings below are for the files, not for that.
  await openPdf(fixture('registrar/cams-detailed-plain.pdf'));
});

describe('the encryption key length is checked before pdf.js derives a key', () => {
  const cases: [string, Buffer][] = [
    ['/Length 1000000000', encrypted(`<< /Filter /Standard /V 2 /R 3 /Length 1000000000 /O ${HASH} /U ${HASH} /P -4 >>`)],
    [
      '/Length given by reference',
      encrypted(`<< /Filter /Standard /V 2 /R 3 /Length 7 0 R /O ${HASH} /U ${HASH} /P -4 >>`, ['1000000000']),
    ],
    ['/Length written with a name escape', encrypted(`<< /Filter /Standard /V 2 /R 3 /Len#67th 1000000000 /O (a>>b) /U ${HASH} /P -4 >>`)],
    [
      '/Encrypt written with a name escape',
      onePage([`<< /Filter /Standard /V 2 /R 3 /Length 999999992 /O ${HASH} /U ${HASH} /P -4 >>`], `/Encr#79pt 6 0 R /ID [${ID} ${ID}]`),
    ],
    [
      '/Encrypt escaped from its first letter',
      onePage([`<< /Filter /Standard /V 2 /R 3 /#4cength 4096 /O ${HASH} /U ${HASH} /P -4 >>`], `/#45ncrypt 6 0 R /ID [${ID} ${ID}]`),
    ],
    [
      'a crypt filter /Length',
      encrypted(
        `<< /Filter /Standard /V 4 /R 4 /CF << /StdCF << /CFM /V2 /Length 1000000000 >> >> /StmF /StdCF /StrF /StdCF /O ${HASH} /U ${HASH} /P -4 >>`,
      ),
    ],
    ['/Length -8', encrypted(`<< /Filter /Standard /V 2 /R 3 /Length -8 /O ${HASH} /U ${HASH} /P -4 >>`)],
    ['an encryption dictionary that is not a plain object', onePage([], `/Encrypt 9 0 R /ID [${ID} ${ID}]`)],
  ];
  it.each(cases)('%s: DamagedPdf within 100 ms, before pdf.js', async (_name, pdf) => {
    const r = await timed(() => openPdf(new Uint8Array(pdf)));
    expect(r.error).toBeInstanceOf(DocumentError);
    expect((r.error as DocumentError).code).toBe('DamagedPdf');
    expect((r.error as Error).message).toMatch(/encryption|crypt filter/);
    expect(r.ms).toBeLessThan(100);
  });

  it('leaves real key lengths alone (40..256 bits, a crypt filter in bytes) and is cheap on a large file', () => {
    for (const len of ['40', '128', '256', '128.0'])
      expect(() =>
        checkEncryption(encrypted(`<< /Filter /Standard /V 2 /R 3 /Length ${len} /O ${HASH} /U ${HASH} /P -4 >>`)),
      ).not.toThrow();
    expect(() =>
      checkEncryption(
        encrypted(
          `<< /Filter /Standard /V 4 /R 4 /CF << /StdCF << /CFM /AESV2 /Length 16 >> >> /StmF /StdCF /StrF /StdCF /O ${HASH} /U ${HASH} /P -4 >>`,
        ),
      ),
    ).not.toThrow();
    const big = Buffer.alloc(20 * 1024 * 1024, '/Name#20 0 obj (text) ');
    const t = performance.now();
    checkEncryption(big);
    expect(performance.now() - t).toBeLessThan(1000);
  });
});

describe('page and text caps, and a time budget that fires while pdf.js works', () => {
  it('1,000 pages of 20,000 operators each: TooLarge (pages) as soon as the page count is known', async () => {
    const r = await timed(() => openPdf(new Uint8Array(manyPages(1000, 20_000))));
    expect((r.error as DocumentError)?.code).toBe('TooLarge');
    expect((r.error as Error).message).toBe(`the PDF has 1000 pages; the limit is ${DEFAULT_LIMITS.maxPages}`);
    expect(r.ms).toBeLessThan(5000);
  });

  it('400 pages of 20,000 operators each under a 1.5 s budget: Timeout within 1.5 s plus one page', async () => {
    const r = await timed(() => openPdf(new Uint8Array(manyPages(400, 20_000)), { timeoutMs: 1500 }));
    expect((r.error as DocumentError)?.code).toBe('Timeout');
    expect(r.ms).toBeLessThan(4000);
  });

  it('a page with more text items than the per-page cap: TooLarge while the page is read', async () => {
    const items = Array.from({ length: 30_000 }, (_, i) => `1 0 0 1 ${(i % 50) * 11 + 20} ${(i % 71) * 10 + 20} Tm (w) Tj`).join(' ');
    const dense = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      page(5),
      FONT,
      { dict: '<< >>', stream: Buffer.from(`BT /F1 8 Tf ${items} ET`) },
    ]);
    const r = await timed(() => openPdf(new Uint8Array(dense)));
    expect((r.error as DocumentError)?.code).toBe('TooLarge');
    expect((r.error as Error).message).toBe(
      `page 1 has more than ${DEFAULT_LIMITS.maxPageItems} text items; the limit is ${DEFAULT_LIMITS.maxPageItems}`,
    );
    expect(r.ms).toBeLessThan(5000);
    const few = await timed(() => openPdf(new Uint8Array(manyPages(3, 30)), { maxTextItems: 50 }));
    expect((few.error as Error).message).toBe('the PDF has more than 50 text items; the limit is 50');
  });

  it('limits left out take DEFAULT_LIMITS', () => {
    expect(pdfLimits({})).toEqual(DEFAULT_LIMITS);
    expect(pdfLimits({ maxPages: 3, timeoutMs: undefined })).toEqual({ ...DEFAULT_LIMITS, maxPages: 3 });
  });
});

describe('no pdf.js rejection escapes', () => {
  /** Three pages whose last two xref entries point into object 1: pdf.js prefetches them and never awaits the failure. */
  function badKids(): Buffer {
    const text = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R 6 0 R 7 0 R] /Count 3 >>',
      page(5),
      FONT,
      HELLO,
      page(5),
      page(5),
    ]).toString('latin1');
    const lines = text.split('\n');
    const at = lines.indexOf('xref') + 2;
    lines[at + 6] = '0000000012 00000 n ';
    lines[at + 7] = '0000000013 00000 n ';
    return Buffer.from(lines.join('\n'), 'latin1');
  }

  it('a damaged page tree answers without an unhandled rejection (Node default: one would kill the process)', async () => {
    const dir = tmpDir('cas-pdf-limits-');
    const file = path.join(dir, 'bad-kids.pdf');
    writeFileSync(file, badKids());
    const script = path.join(dir, 'open.mjs');
    // A plain Node process with no unhandledRejection listener of its own, like `cas parse`.
    writeFileSync(
      script,
      `import { openPdf } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/pdf/open.js')).href)};
const out = await openPdf(process.argv[2]).then((d) => 'pages ' + d.pages.length, (e) => 'error ' + e.code);
await new Promise((r) => setTimeout(r, 300));
console.log(out);`,
    );
    const r = await execa('node', [script, file], { reject: false, env: cleanEnv(), extendEnv: false });
    expect(r.stderr).not.toMatch(/Unhandled|XRefEntryException/);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^(pages \d+|error \w+)$/);
    // The CLI: a document error (exit 3) with one line, not a crash with a stack trace (exit 1).
    const cli = await execa('node', [BIN, 'parse', file], { reject: false, env: cleanEnv(), extendEnv: false });
    expect(cli.exitCode).toBe(3);
    expect(cli.stderr).not.toMatch(/Unhandled|XRefEntryException|\n\s+at /);
  });

  it('tells pdf.js-internal rejections from any other', () => {
    const fromPdfjs = Object.assign(new Error('Bad (uncompressed) XRef entry: 7R'), {
      stack: `Error\n    at BaseExceptionClosure (file://${ROOT}/node_modules/pdfjs-dist/legacy/build/pdf.worker.mjs:6289:29)`,
    });
    expect(isPdfjsInternalRejection(fromPdfjs)).toBe(true);
    expect(isPdfjsInternalRejection(new Error('mine'))).toBe(false);
    expect(isPdfjsInternalRejection('text')).toBe(false);
    expect(isPdfjsInternalRejection(null)).toBe(false);
  });
});

describe('what only an outside limit can stop', () => {
  it('200,000 nested q: pdf.js spins in one synchronous stretch; a worker terminated at its wall-clock limit ends it', async () => {
    const dir = tmpDir('cas-pdf-limits-');
    const file = path.join(dir, 'nested-q.pdf');
    const content = Buffer.from(`${'q '.repeat(200_000)}BT /F1 12 Tf 72 720 Td (deep) Tj ET ${'Q '.repeat(200_000)}`);
    writeFileSync(
      file,
      buildPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        page(5),
        FONT,
        { dict: '<< /Filter /FlateDecode >>', stream: zlib.deflateSync(content) },
      ]),
    );
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
import(workerData.open).then(({ openPdf }) => openPdf(workerData.file, { timeoutMs: 1000, engine: 'pdfjs' })).then(() => parentPort.postMessage('answered'), (e) => parentPort.postMessage('error ' + e.code));`,
      { eval: true, workerData: { open: pathToFileURL(path.join(ROOT, 'dist/pdf/open.js')).href, file } },
    );
    const t = performance.now();
    const outcome = await new Promise<string>((resolve) => {
      worker.on('message', (m: string) => resolve(m));
      worker.on('error', (e) => resolve(`crashed ${e.message}`));
      setTimeout(() => resolve('limit'), 4000);
    });
    // Its own 1 s budget cannot fire: pdf.js yields only to promises while it works through the q's.
    expect(['limit', 'error Timeout']).toContain(outcome);
    const stop = performance.now();
    await worker.terminate();
    expect(performance.now() - stop).toBeLessThan(1000);
    expect(performance.now() - t).toBeLessThan(6000);
  });
});

describe('the memory limit measures the document, not the moment (issue 33.2)', () => {
  it('on one worker at 160 MB, valid statements after FlateDecode bombs always parse; the bombs are ResourceLimit', async () => {
    const { ParsePool } = (await import(
      pathToFileURL(path.join(ROOT, 'dist/core/index.js')).href
    )) as typeof import('../../src/core/index.js');
    const { flateBomb } = await import('../load/hostile.js');
    const bomb = new Uint8Array(flateBomb());
    const valid = new Uint8Array(readFileSync(fixture('registrar/cams-detailed-plain.pdf')));
    // One worker, so every valid statement runs where a bomb has just filled PDFium's heap to the cap.
    const pool = new ParsePool({ size: 1, limits: { memoryMb: 160, timeoutMs: 120_000 } });
    try {
      const seen: string[] = [];
      for (const kind of ['bomb', 'valid', 'bomb', 'valid', 'valid', 'bomb', 'valid'] as const) {
        const o = await pool.run({ bytes: kind === 'bomb' ? bomb : valid });
        seen.push(`${kind}: ${o.ok ? 'ok' : `${o.code} ${o.message}`}`);
      }
      expect(seen).toEqual(
        seen.map((s) => (s.startsWith('valid') ? 'valid: ok' : expect.stringMatching(/^bomb: ResourceLimit .*limit of 160 MB/))),
      );
    } finally {
      await pool.close();
    }
  }, 300_000);
});
