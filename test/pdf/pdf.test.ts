import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { openPdf } from '../../src/pdf/open.js';
import { allLines } from '../../src/pdf/model.js';
import { parseDate, parseMonthYear, parseNumber, exactSum } from '../../src/pdf/numbers.js';
import { buildLines, healIsins, undouble } from '../../src/pdf/lines.js';
import { fixture, manifest, tmpDir } from '../helpers/cas.js';
import { needs } from '../helpers/tools.js';

const pdftotext = needs('pdftotext');

const good = manifest().filter((m) => m.kind !== 'bad');
const bad = manifest().filter((m) => m.kind === 'bad');

describe('PDF text layer on every fixture', () => {
  it.each(good.map((m) => [m.path, m] as const))('%s opens with its password and reads in order', async (_p, m) => {
    const doc = await openPdf(fixture(m.path), { password: m.password ?? undefined });
    const lines = allLines(doc);
    expect(doc.pages.length).toBeGreaterThan(0);
    // Reading order: lines go down the page.
    for (const p of doc.pages) for (let i = 1; i < p.lines.length; i++) expect(p.lines[i].y).toBeGreaterThanOrEqual(p.lines[i - 1].y);
    if (m.kind === 'depository_b') {
      expect(doc.pages[1].lines[0].text).toBe('NSDL ID: 103802213');
      const row = lines.find((l) => l.pieces[0]?.text === 'INE467B01029')!;
      expect(row.pieces.map((p) => p.text)).toEqual([
        'INE467B01029',
        'TCS',
        'TATA CONSULTANCY SERVICES LIMITED',
        '1.00',
        '12',
        '3,542.80',
        '42,513.60',
      ]);
      return;
    }
    if (m.kind === 'depository_a') {
      // Page 1 is a cover; the investor block opens page 2 with the CAS ID line (REAL-WORLD.md 11).
      expect(lines[0].text).toBe('Central Depository Services (India) Limited');
      expect(doc.pages[1].lines[0].text).toMatch(/^CAS ID\s*:/);
      expect(lines.some((l) => l.words.some((w) => w.text === 'INE002A01018'))).toBe(true);
      return;
    }
    if (m.kind === 'contract_note') {
      expect(lines.slice(0, 3).some((l) => /contract note cum tax invoice/i.test(l.text))).toBe(true);
      const row = lines.find((l) => l.pieces.some((p) => p.text === 'RELIANCE INDUSTRIES LTD') && l.pieces.some((p) => p.text === '6'));
      expect(row?.pieces.map((p) => p.text)).toEqual(
        expect.arrayContaining(['RELIANCE INDUSTRIES LTD', 'NSE', '6', '1,287.4500', '0.0000', '(7,724.70)']),
      );
      return;
    }
    // Registrar: the watermark is rotated text, kept apart from the body, still available.
    expect(doc.pages[0].rotated.join(' ')).toMatch(/(CAMS|KFIN)CASWS/);
    expect(lines.some((l) => /CASWS/.test(l.text))).toBe(false);
    if (/summary/.test(m.path)) {
      const row = lines.find((l) => l.text.startsWith('1234567 / 89'));
      expect(row?.pieces.map((p) => p.text).slice(0, 3)).toEqual([
        '1234567 / 89',
        'INF179K01UT0',
        'H02D-HDFC Flexi Cap Fund - Direct Plan - Growth Option',
      ]);
      expect(lines.some((l) => l.text === 'Consolidated Account Summary')).toBe(true);
    } else {
      expect(lines[0].text).toBe('Consolidated Account Statement');
      expect(lines[1].text).toBe('01-Apr-2024 To 31-Mar-2026');
      const row = lines.find((l) => l.pieces[1]?.text === 'Systematic Investment (1/36)');
      expect(row).toBeDefined();
      expect(row?.pieces.map((p) => p.text)).toEqual(
        expect.arrayContaining(['08-Apr-2024', 'Systematic Investment (1/36)', '5,000.00', '3.448']),
      );
      // The soft-hyphen ISIN is healed.
      expect(lines.some((l) => l.text.includes('INF209K01XX1'))).toBe(true);
      // Duplicated overlay dates are dropped: no line starts with the same date twice.
      expect(lines.some((l) => l.pieces.length > 1 && DATE.test(l.pieces[0].text) && l.pieces[0].text === l.pieces[1].text)).toBe(false);
    }
  });

  it('loading pdf.js leaves the native Array push and JSON functions in place (its core-js copies are slow)', async () => {
    await openPdf(fixture('registrar/cams-detailed-plain.pdf'), { engine: 'pdfjs' });
    for (const f of [Array.prototype.push, JSON.parse, JSON.stringify])
      expect(Function.prototype.toString.call(f)).toMatch(/\[native code\]/);
    // The additions pdf.js needs on Node 20 stay.
    expect(typeof (Promise as unknown as { withResolvers?: unknown }).withResolvers).toBe('function');
  });

  it('reads text without loading the native canvas addon; the DOMMatrix stand-in does 2-D affine maths', async () => {
    await openPdf(fixture('registrar/cams-detailed-plain.pdf'), { engine: 'pdfjs' });
    const { createRequire } = await import('node:module');
    const req = createRequire(import.meta.url);
    expect(Object.keys(req.cache).filter((k) => k.includes('@napi-rs'))).toEqual([]);
    const { Matrix2D } = await import('../../src/pdf/node-env.js');
    const m = new Matrix2D([2, 0, 0, 3, 10, 20]);
    expect(m.transformPoint({ x: 1, y: 1 })).toMatchObject({ x: 12, y: 23 });
    expect(m.multiply(m.inverse()).isIdentity).toBe(true);
    expect(new Matrix2D().translate(5, 6).scale(2).transformPoint({ x: 1, y: 1 })).toMatchObject({ x: 7, y: 8 });
    expect(() => new (globalThis as unknown as { Path2D: new () => object }).Path2D()).toThrow(/does not render/);
  });

  it.skipIf(pdftotext.skip)(
    `a depository_b statement with Devanagari over its headings (the older look): poppler sees the Hindi, the model drops it${pdftotext.note}`,
    async () => {
      const { buildDepositoryStatement } = await import('../fixtures/depository-data.js');
      const { renderNsdl, DSTYLE } = await import('../fixtures/depository-render.js');
      const file = path.join(tmpDir('cas-deva-'), 'nsdl-devanagari.pdf');
      writeFileSync(file, await renderNsdl(buildDepositoryStatement('depository_b'), { ...DSTYLE, devanagari: true }));
      // An independent extractor (poppler) sees the Hindi headings in the text layer...
      const poppler = await execa('pdftotext', ['-layout', file, '-'], { reject: false });
      expect(poppler.exitCode, poppler.stderr).toBe(0);
      expect(poppler.stdout).toMatch(/[\u0900-\u097F]{3,}/);
      expect(poppler.stdout).toContain('Equities (E)');
      // ...and the document model keeps the English headings whole, with no Devanagari left anywhere.
      const doc = await openPdf(file);
      const lines = allLines(doc).map((l) => l.text);
      expect(lines.filter((t) => /[\u0900-\u097F]/.test(t))).toEqual([]);
      for (const h of [
        'Your Demat Account and Mutual Fund Folios',
        'NSDL Demat Account',
        'Equities (E)',
        'Mutual Fund Folios (F)',
        'National Pension System (N)',
      ])
        expect(lines).toContain(h);
    },
  );

  it('drops Devanagari overlay text and duplicated overlays; keeps rotated text apart', () => {
    const items = [
      { text: 'Equities (E)', x: 30, y: 100, width: 40, size: 8, rotated: false },
      { text: 'इक्विटी', x: 30, y: 100.5, width: 30, size: 8, rotated: false },
      { text: 'INE002A01018', x: 30, y: 120, width: 45, size: 7, rotated: false },
      { text: 'INE002A01018', x: 30.3, y: 120.2, width: 45, size: 7, rotated: false },
      { text: '60', x: 250, y: 120, width: 8, size: 7, rotated: false },
      { text: 'CAMSCASWS-0001', x: 10, y: 500, width: 60, size: 6, rotated: true },
    ];
    const { lines, rotated } = buildLines(items, 1);
    expect(lines.map((l) => l.pieces.map((p) => p.text))).toEqual([['Equities (E)'], ['INE002A01018', '60']]);
    expect(rotated).toEqual(['CAMSCASWS-0001']);
  });

  it('exposes PDF metadata', async () => {
    const doc = await openPdf(fixture('registrar/cams-detailed-plain.pdf'));
    expect(doc.metadata).toEqual({
      producer: 'CAMS CAS Engine',
      creator: 'CAMS',
      title: 'Consolidated Account Statement',
      author: null,
      subject: null,
    });
  });

  it('opens from a Buffer and from a stream too', async () => {
    const buf = readFileSync(fixture('registrar/cams-detailed-plain.pdf'));
    const a = await openPdf(new Uint8Array(buf));
    const { createReadStream } = await import('node:fs');
    const b = await openPdf(createReadStream(fixture('registrar/cams-detailed-plain.pdf')));
    expect(allLines(a).map((l) => l.text)).toEqual(allLines(b).map((l) => l.text));
  });
});

const DATE = /^\d{2}-[A-Za-z]{3}-\d{4}$/;

describe('typed errors', () => {
  const encrypted = good.filter((m) => m.password);
  it.each(encrypted.map((m) => [m.path, m] as const))('%s: no password -> PasswordRequired, wrong -> IncorrectPassword', async (_p, m) => {
    await expect(openPdf(fixture(m.path))).rejects.toMatchObject({ code: 'PasswordRequired', exitCode: 3 });
    await expect(openPdf(fixture(m.path), { password: 'WRONG0000X' })).rejects.toMatchObject({ code: 'IncorrectPassword', exitCode: 3 });
  });

  it.each(bad.filter((m) => m.expected !== 'UnsupportedDocument').map((m) => [m.path, m] as const))(
    '%s gives its typed error without hanging',
    async (_p, m) => {
      const t0 = Date.now();
      await expect(openPdf(fixture(m.path))).rejects.toMatchObject({ code: m.expected, exitCode: 3 });
      expect(Date.now() - t0).toBeLessThan(10_000);
    },
  );

  it('scanned files say that the PDF has no text layer', async () => {
    await expect(openPdf(fixture('bad/image-only.pdf'))).rejects.toThrow(/no text layer/);
  });

  it('limits pages and bytes (TooLarge)', async () => {
    await expect(openPdf(fixture('registrar/cams-detailed-plain.pdf'), { maxPages: 1 })).rejects.toMatchObject({ code: 'TooLarge' });
    await expect(openPdf(fixture('registrar/cams-detailed-plain.pdf'), { maxBytes: 1000 })).rejects.toMatchObject({ code: 'TooLarge' });
  });

  it('a time budget stops a slow document (Timeout)', async () => {
    await expect(openPdf(fixture('registrar/cams-detailed-plain.pdf'), { timeoutMs: 1 })).rejects.toMatchObject({ code: 'Timeout' });
  });
});

describe('number and date helpers', () => {
  it('parses Indian and Western grouping and both negative styles', () => {
    expect(parseNumber('1,23,456.78')).toBe(123456.78);
    expect(parseNumber('123,456.78')).toBe(123456.78);
    expect(parseNumber('(7,500.00)')).toBe(-7500);
    expect(parseNumber('-12.5')).toBe(-12.5);
    expect(parseNumber('₹ 1,000')).toBe(1000);
    expect(parseNumber('`1,000.50')).toBe(1000.5);
    expect(parseNumber('abc')).toBeNull();
    expect(parseNumber('12-34')).toBeNull();
  });
  it('parses the date forms statements use', () => {
    expect(parseDate('08-Apr-2024')).toBe('2024-04-08');
    expect(parseDate('08-04-2024')).toBe('2024-04-08');
    expect(parseDate('08/04/2024')).toBe('2024-04-08');
    expect(parseDate('31-Feb-2024')).toBeNull();
    expect(parseMonthYear('March 2026')).toEqual({ from: '2026-03-01', to: '2026-03-31' });
    expect(parseMonthYear('February 2024')).toEqual({ from: '2024-02-01', to: '2024-02-29' });
  });
  it('sums money exactly', () => {
    expect(exactSum([0.1, 0.2, 0.3], 2)).toBe(0.6);
    expect(exactSum([35.469, 3.448, 3.516], 3)).toBe(42.433);
  });
  it('heals doubled glyphs and split ISINs, and leaves real text alone', () => {
    expect(undouble('2200--AApprr--22002244')).toBe('20-Apr-2024');
    expect(undouble('1100')).toBe('1100');
    expect(healIsins('ISIN: INF209K01-XX1(Advisor')).toBe('ISIN: INF209K01XX1(Advisor');
    expect(healIsins('Flexi Cap - Growth')).toBe('Flexi Cap - Growth');
  });
});

describe('line building on what other report engines draw', () => {
  const item = (text: string, x: number, y: number, width: number) => ({ text, x, y, width, size: 7, rotated: false });

  it('a run printed over another one, a point or two off its baseline, is a line of its own', () => {
    // A registrar engine prints a bare date 1.9 pt above the closing-balance label, over it.
    const { lines } = buildLines(
      [
        item('10-Jul-2020', 17, 191, 39.6),
        item('NAV on 20-Nov-2022 : INR 12.3456', 211.8, 192.9, 108),
        item('Closing Unit Balance: 4,347.941', 12.5, 192.9, 97.4),
        item('Valuation on 20-Nov-2022 : INR 5,36,781.20', 454.8, 192.9, 136.6),
      ],
      1,
    );
    expect(lines.map((l) => l.text)).toEqual([
      '10-Jul-2020',
      'Closing Unit Balance: 4,347.941  NAV on 20-Nov-2022 : INR 12.3456  Valuation on 20-Nov-2022 : INR 5,36,781.20',
    ]);
  });

  it('runs side by side a little off one baseline stay one line, and a fake-bold overlay is dropped', () => {
    const { lines } = buildLines(
      [
        item('08-Apr-2024', 20, 300, 38),
        item('Purchase', 80, 301.2, 30),
        item('5,000.00', 300, 300.4, 30),
        item('08-Apr-2024', 20.4, 300.3, 38),
      ],
      1,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0].pieces.map((p) => p.text)).toEqual(['08-Apr-2024', 'Purchase', '5,000.00']);
  });

  it("a bilingual template's second copy of a line (label respaced, value a few points right) is dropped", () => {
    // English label and value, then the (dropped) Hindi label, which is wider, and the value again.
    const { lines } = buildLines(
      [
        item('BO ID :', 400, 482, 32.6),
        item('1208160000123456', 434.9, 482, 92.8),
        item('BO ID:', 400, 482, 33.9),
        item('1208160000123456', 436.2, 482, 92.8),
        item('DP Name :', 20, 482, 47.5),
        item('EXAMPLE BROKING PRIVATE LIMITED', 69.8, 482, 138.2),
        item('डीपी का नाम:', 20, 482, 55.8),
        item('EXAMPLE BROKING PRIVATE LIMITED', 78.1, 482, 138.2),
      ],
      1,
    );
    expect(lines.map((l) => l.pieces.map((p) => p.text))).toEqual([
      ['DP Name : EXAMPLE BROKING PRIVATE LIMITED', 'BO ID : 1208160000123456'],
    ]);
  });

  it('italic drawn with a sheared text matrix is body text, and a page stored turned (/Rotate 90) reads across', async () => {
    const PDFDocument = (await import('pdfkit')).default;
    const make = (draw: (d: InstanceType<typeof PDFDocument>) => void, layout: 'portrait' | 'landscape' = 'portrait'): Promise<Buffer> =>
      new Promise((resolve) => {
        const d = new PDFDocument({ size: 'A4', layout, compress: false });
        const chunks: Buffer[] = [];
        d.on('data', (c: Buffer) => chunks.push(c));
        d.on('end', () => resolve(Buffer.concat(chunks)));
        draw(d);
        d.end();
      });
    const italic = await make((d) => {
      d.font('Helvetica').fontSize(8).text('08-Apr-2024', 30, 100, { lineBreak: false });
      d.text('*** Stamp Duty ***', 90, 100, { oblique: true, lineBreak: false });
      d.text('1.64', 300, 100, { lineBreak: false });
    });
    const dir = (await import('node:os')).tmpdir();
    const f1 = `${dir}/cas-italic-${process.pid}.pdf`;
    (await import('node:fs')).writeFileSync(f1, italic);
    const doc = await openPdf(f1);
    expect(doc.pages[0].rotated).toEqual([]);
    expect(doc.pages[0].lines[0].pieces.map((p) => p.text)).toEqual(['08-Apr-2024', '*** Stamp Duty ***', '1.64']);

    // Text drawn turned by -90 degrees on a portrait page whose /Rotate is 90: shown as a
    // landscape page that reads left to right.
    const turned = await make((d) => {
      d.rotate(-90, { origin: [0, 0] }).translate(-842, 0);
      d.font('Helvetica').fontSize(9).text('Contract Note', 40, 40, { lineBreak: false });
      d.text('Trade Date 02-jan-2024', 40, 60, { lineBreak: false });
    });
    const f2 = `${dir}/cas-turned-${process.pid}.pdf`;
    (await import('node:fs')).writeFileSync(f2, turned.toString('latin1').replace('/Type /Page\n', '/Type /Page\n/Rotate 90\n'), 'latin1');
    const page = (await openPdf(f2)).pages[0];
    expect(page.width).toBeGreaterThan(page.height);
    expect(page.lines.map((l) => l.text)).toEqual(['Contract Note', 'Trade Date 02-jan-2024']);
  });
});
