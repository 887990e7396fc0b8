import { describe, expect, it } from 'vitest';
import { ptyExited } from '../helpers/pty.js';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import * as pty from 'node-pty';
import { openPdf } from '../../src/pdf/open.js';
import { detect } from '../../src/parsers/detect/index.js';
import { BIN, cas, cleanEnv, expectedJson, fixture, manifest, ROOT, tmpDir } from '../helpers/cas.js';
import { needs } from '../helpers/tools.js';

const jq = needs('jq');

const good = manifest().filter((m) => m.kind !== 'bad');

describe('detection', () => {
  it.each(good.map((m) => [m.path, m] as const))('%s is detected with evidence', async (_p, m) => {
    const d = detect(await openPdf(fixture(m.path), { password: m.password ?? undefined }));
    expect(d.type).toBe(m.kind);
    if (m.kind === 'registrar') {
      expect(d.issuer).toBe(/kfintech/.test(m.path) ? 'registrar_b' : 'registrar_a');
      expect(d.form).toBe(/summary/.test(m.path) ? 'summary' : 'detailed');
      expect(d.evidence.join(' ')).toMatch(/watermark "(CAMS|KFIN)CASWS"/);
    } else if (m.kind === 'contract_note') {
      const broker = m.path.replace(/^.*\/|\.pdf$/g, '');
      expect(d.broker).toBe(broker);
      expect(d.issuer).toBe(broker);
      expect(d.evidence.join(' ')).toMatch(/heading "Contract note".*broker registration INZ\d{9}/);
    } else {
      expect(d.issuer).toBe(m.kind);
      expect(d.evidence.join(' ')).toMatch(m.kind === 'depository_a' ? /Central Depository Services/ : /NSDL ID:/);
    }
  });

  it('an unrelated PDF is an error listing what is supported (exit 3), never a wrong parse', async () => {
    const r = await cas(['parse', fixture('bad/unrelated.pdf')]);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/not a supported statement.*Supported: registrar statements/);
  });

  it.each(
    manifest()
      .filter((m) => m.kind === 'bad')
      .map((m) => [m.path, m.expected] as const),
  )('bad input %s -> %s, exit 3', async (p) => {
    const r = await cas(['smart', '--detect-only', fixture(p)]);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('--type that contradicts the document is refused', async () => {
    const r = await cas(['parse', '--type', 'nsdl', fixture('registrar/cams-detailed-plain.pdf')]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/--type depository_b was given, but the document is a registrar_a registrar/);
  });
});

describe('cas parse and cas smart', () => {
  it.each(good.map((m) => [m.path, m] as const))('auto-detected parse of %s equals its golden', async (_p, m) => {
    const r = await cas(['parse', fixture(m.path)], { env: { CAS_PDF_PASSWORD: m.password ?? undefined } });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expectedJson(m.expected));
  });

  it('accepts real-name aliases for --type', async () => {
    for (const t of ['cams', 'kfintech', 'registrar_a', 'cams_kfintech']) {
      const r = await cas(['parse', '--type', t, fixture('registrar/cams-detailed-plain.pdf')]);
      expect(r.exitCode, t).toBe(0);
    }
  });

  it('smart reports the detected type and evidence on stderr; --detect-only prints the detection', async () => {
    const r = await cas(['smart', fixture('registrar/kfintech-detailed.pdf')], { env: { CAS_PDF_PASSWORD: 'ABCPM1234K' } });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/registrar \(registrar_b, detailed\); evidence: watermark "KFINCASWS"/);
    expect(JSON.parse(r.stdout).meta.cas_type).toBe('REGISTRAR_A_REGISTRAR_B');
    const d = await cas(['smart', '--detect-only', fixture('registrar/cams-summary.pdf')], { env: { CAS_PDF_PASSWORD: 'ABCPM1234K' } });
    expect(JSON.parse(d.stdout)).toMatchObject({ type: 'registrar', issuer: 'registrar_a', form: 'summary' });
  });

  it('password candidates: --password-file, CAS_PDF_PASSWORD, and the PAN from config', async () => {
    const dir = tmpDir();
    const pwFile = path.join(dir, 'pw');
    (await import('node:fs')).writeFileSync(pwFile, 'Secret@123\n');
    const a = await cas(['parse', '--password-file', pwFile, fixture('registrar/cams-detailed.pdf')]);
    expect(a.exitCode).toBe(0);
    const env = cleanEnv();
    await cas(['config', 'set', 'pan', 'abcpm1234k'], { env });
    const b = await cas(['parse', fixture('registrar/kfintech-detailed.pdf')], { env });
    expect(b.exitCode).toBe(0);
    expect(JSON.parse(b.stdout)).toEqual(expectedJson('expected/registrar-detailed.json'));
  });

  it('--no-input without a password exits 3 naming the flags; the password never appears', async () => {
    const r = await cas(['--no-input', 'parse', fixture('registrar/cams-detailed.pdf')]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/--password-file/);
    expect(r.stderr).toMatch(/CAS_PDF_PASSWORD/);
    const wrong = await cas(['parse', fixture('registrar/cams-detailed.pdf')], { env: { CAS_PDF_PASSWORD: 'Hunter2!xyz' } });
    expect(wrong.exitCode).toBe(3);
    expect(wrong.stderr).toMatch(/incorrect/);
    expect(wrong.stderr + wrong.stdout).not.toContain('Hunter2!xyz');
  });

  it('prompts for the password on a terminal: a wrong one, then the right one', async () => {
    const out = path.join(tmpDir(), 'out.json');
    const result = await new Promise<{ code: number; screen: string }>((resolve) => {
      const p = pty.spawn('node', [BIN, 'parse', fixture('registrar/cams-detailed.pdf'), '--output', out], {
        cols: 120,
        rows: 30,
        cwd: ROOT,
        env: cleanEnv({ NO_COLOR: '1' }) as Record<string, string>,
      });
      let screen = '';
      let step = 0;
      p.onData((d) => {
        screen += d;
        if (step === 0 && /Password for/.test(screen)) {
          step = 1;
          p.write('WrongPass1!\r');
        } else if (step === 1 && /Incorrect password/.test(screen)) {
          step = 2;
          p.write('Secret@123\r');
        }
      });
      void ptyExited(p).then((exitCode) => resolve({ code: exitCode, screen }));
    });
    expect(result.code).toBe(0);
    expect(result.screen).toMatch(/try 2 of 3/);
    expect(result.screen).not.toContain('Secret@123');
    expect(result.screen).not.toContain('WrongPass1!');
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(expectedJson('expected/registrar-detailed.json'));
  });

  it('never prompts when CI=true, even on a terminal: exit 3 naming the flags', async () => {
    const result = await new Promise<{ code: number; screen: string }>((resolve) => {
      const p = pty.spawn('node', [BIN, 'parse', fixture('registrar/cams-detailed.pdf')], {
        cols: 120,
        rows: 30,
        cwd: ROOT,
        env: cleanEnv({ NO_COLOR: '1', CI: 'true' }) as Record<string, string>,
      });
      let screen = '';
      p.onData((d) => {
        screen += d;
      });
      void ptyExited(p).then((exitCode) => resolve({ code: exitCode, screen }));
    });
    expect(result.code).toBe(3);
    expect(result.screen).not.toMatch(/Password for/);
    expect(result.screen).toMatch(/--password/);
  });

  it.skipIf(jq.skip)(`pipes into jq: JSON on a non-TTY stdout${jq.note}`, async () => {
    const r = await execa('bash', ['-c', `node ${BIN} parse ${fixture('registrar/cams-detailed-plain.pdf')} | jq .summary.total_value`], {
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode).toBe(0);
    expect(Number(r.stdout.trim())).toBe((expectedJson('expected/registrar-detailed.json') as any).summary.total_value);
  });

  it('reads the PDF from stdin with -', async () => {
    const r = await cas(['parse', '-'], { input: readFileSync(fixture('registrar/cams-detailed-plain.pdf')), stdin: undefined });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expectedJson('expected/registrar-detailed.json'));
  });

  it('a batch with one bad file: the rest parse, one JSON document per line, exit non-zero, a summary', async () => {
    const dir = tmpDir();
    mkdirSync(path.join(dir, 'in'));
    copyFileSync(fixture('registrar/cams-detailed-plain.pdf'), path.join(dir, 'in', 'a.pdf'));
    copyFileSync(fixture('registrar/kfintech-detailed.pdf'), path.join(dir, 'in', 'b.pdf'));
    copyFileSync(fixture('bad/truncated.pdf'), path.join(dir, 'in', 'c.pdf'));
    copyFileSync(fixture('registrar/cams-summary.pdf'), path.join(dir, 'in', 'd.pdf'));
    const r = await cas(['parse', path.join(dir, 'in'), '--jobs', '2'], { env: { CAS_PDF_PASSWORD: 'ABCPM1234K' } });
    expect(r.exitCode).toBe(3);
    // In a batch each line names its file first (source_file), then the document.
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { source_file: string });
    expect(lines.map((l) => path.basename(l.source_file))).toEqual(['a.pdf', 'b.pdf', 'd.pdf']);
    const docs = lines.map(({ source_file: _, ...doc }) => doc);
    expect(docs).toEqual([
      expectedJson('expected/registrar-detailed.json'),
      expectedJson('expected/registrar-detailed.json'),
      expectedJson('expected/registrar-summary.json'),
    ]);
    expect(r.stderr).toMatch(/c\.pdf: the PDF is damaged/);
    expect(r.stderr).toMatch(/3 of 4 files parsed; failed: .*c\.pdf \(DamagedPdf\)/);
  });

  it('--out-dir writes one JSON file per input, named after it; a bad file among them is reported, the rest written', async () => {
    const dir = tmpDir();
    mkdirSync(path.join(dir, 'in'));
    copyFileSync(fixture('registrar/cams-detailed-plain.pdf'), path.join(dir, 'in', 'a.pdf'));
    copyFileSync(fixture('bad/truncated.pdf'), path.join(dir, 'in', 'b.pdf'));
    copyFileSync(fixture('registrar/cams-summary.pdf'), path.join(dir, 'in', 'c.pdf'));
    const out = path.join(dir, 'out');
    const r = await cas(['parse', path.join(dir, 'in'), '--out-dir', out, '--jobs', '2'], { env: { CAS_PDF_PASSWORD: 'ABCPM1234K' } });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
    expect(readdirSync(out).sort()).toEqual(['a.json', 'c.json']);
    expect(JSON.parse(readFileSync(path.join(out, 'a.json'), 'utf8'))).toEqual(expectedJson('expected/registrar-detailed.json'));
    expect(JSON.parse(readFileSync(path.join(out, 'c.json'), 'utf8'))).toEqual(expectedJson('expected/registrar-summary.json'));
    expect(r.stderr).toMatch(/b\.pdf: the PDF is damaged/);
    const both = await cas(['parse', fixture('registrar/cams-detailed-plain.pdf'), '--out-dir', out, '--csv', 'holdings']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/--out-dir .* cannot be combined with --csv/);
  });

  it('--debug-layout prints the lines with their positions; --redact masks digits and personal words but keeps labels', async () => {
    const f = fixture('registrar/cams-detailed-plain.pdf');
    const plain = await cas(['parse', '--debug-layout', f]);
    expect(plain.exitCode).toBe(0);
    expect(plain.stdout).toMatch(/^## page 1 \(595\.3 x 841\.9 pt\), \d+ lines; rotated: CAMSCASWS/m);
    const folio = plain.stdout.split('\n').find((l) => l.includes('Folio No:'))!;
    expect(folio).toMatch(/^\s*[\d.]+\s+\[[\d.]+-[\d.]+\] Folio No: \d+ \/ \d+\s+\[[\d.]+-[\d.]+\] PAN: [A-Z]{5}\d{4}[A-Z]/);
    const red = await cas(['parse', '--debug-layout', '--redact', f]);
    expect(red.exitCode).toBe(0);
    const expected = expectedJson('expected/registrar-detailed.json') as { investor: { name: string; pan: string } };
    expect(red.stdout).not.toContain(expected.investor.pan);
    expect(red.stdout).not.toContain(expected.investor.name.split(' ')[0]);
    expect(red.stdout).toMatch(/Folio No: 9+ \/ 99/);
    expect(red.stdout.split('\n').length).toBe(plain.stdout.split('\n').length);
    const json = await cas(['parse', '--debug-layout', '--json', f]);
    const dump = JSON.parse(json.stdout) as { pages: { lines: { y: number; pieces: { x0: number; x1: number; text: string }[] }[] }[] };
    expect(dump.pages[0].lines.some((l) => l.pieces.some((p) => p.text.startsWith('Folio No:') && p.x1 > p.x0))).toBe(true);
    const wrong = await cas(['parse', '--redact', f]);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toMatch(/--redact applies to --debug-layout/);
  });

  it('CSV output has the documented header', async () => {
    const h = await cas(['parse', '--csv', 'holdings', fixture('registrar/cams-detailed-plain.pdf')]);
    const hl = h.stdout.split('\n');
    expect(hl[0]).toBe('file,account_kind,account,provider,isin,name,type,units,nav,value,cost');
    expect(hl).toContain(
      `${fixture('registrar/cams-detailed-plain.pdf')},mutual_fund,1234567 / 89,HDFC Mutual Fund,INF179K01UT0,HDFC Flexi Cap Fund - Direct Plan - Growth Option,equity,${(expectedJson('expected/registrar-detailed.json') as any).mutual_funds[0].schemes[0].units},${(expectedJson('expected/registrar-detailed.json') as any).mutual_funds[0].schemes[0].nav},${(expectedJson('expected/registrar-detailed.json') as any).mutual_funds[0].schemes[0].value},${(expectedJson('expected/registrar-detailed.json') as any).mutual_funds[0].schemes[0].cost}`,
    );
    const t = await cas(['parse', '--csv', 'transactions', fixture('registrar/cams-detailed-plain.pdf')]);
    const tl = t.stdout.trim().split('\n');
    expect(tl[0]).toBe('file,account,isin,name,date,type,description,amount,units,nav,balance,dividend_rate');
    const count = (expectedJson('expected/registrar-detailed.json') as any).mutual_funds.flatMap((f: any) =>
      f.schemes.flatMap((s: any) => s.transactions),
    ).length;
    expect(tl).toHaveLength(count + 1);
  });
});

describe('progress of a long parse (issue 20 item 9)', () => {
  /** A folder of three statements and, with `bad`, a damaged one. */
  function folder(bad = false): string {
    const dir = path.join(tmpDir(), 'in');
    mkdirSync(dir);
    copyFileSync(fixture('registrar/cams-detailed-plain.pdf'), path.join(dir, 'a.pdf'));
    copyFileSync(fixture('registrar/cams-summary.pdf'), path.join(dir, 'b.pdf'));
    copyFileSync(fixture('contract_note/broker_a.pdf'), path.join(dir, 'c.pdf'));
    if (bad) copyFileSync(fixture('bad/truncated.pdf'), path.join(dir, 'd.pdf'));
    return dir;
  }

  it('on a pipe: nothing on stderr, in sequence or on workers; with a failure, only the error and the summary', async () => {
    const dir = folder();
    for (const jobs of ['1', '2']) {
      const r = await cas(['parse', dir, '--jobs', jobs], { env: { CAS_PDF_PASSWORD: 'ABCPM1234K' } });
      expect({ jobs, code: r.exitCode, stderr: r.stderr }).toEqual({ jobs, code: 0, stderr: '' });
      expect(r.stdout.trim().split('\n')).toHaveLength(3);
    }
    const failing = await cas(['parse', folder(true), '--jobs', '1'], { env: { CAS_PDF_PASSWORD: 'ABCPM1234K' } });
    expect(failing.exitCode).toBe(3);
    const lines = failing.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^cas: .*d\.pdf: the PDF is damaged/),
      expect.stringMatching(/^3 of 4 files parsed; failed: .*d\.pdf \(DamagedPdf\)$/),
    ]);
  });

  it('on a terminal: a progress line (bar, count, elapsed, current file) redrawn in place, erased before the summary; none with --quiet', async () => {
    const dir = folder();
    // --out-dir keeps the data off the terminal: what it shows is stderr's.
    const run = (extra: string[]): Promise<string> =>
      new Promise((resolve) => {
        const p = pty.spawn('node', [BIN, 'parse', dir, '--out-dir', path.join(tmpDir(), 'out'), ...extra], {
          cols: 120,
          rows: 30,
          cwd: ROOT,
          env: cleanEnv({ NO_COLOR: '1', CAS_PDF_PASSWORD: 'ABCPM1234K' }) as Record<string, string>,
        });
        let screen = '';
        p.onData((d) => {
          screen += d;
        });
        void ptyExited(p).then(() => resolve(screen));
      });
    for (const jobs of ['1', '2']) {
      const screen = await run(['--jobs', jobs]);
      // ora redraws the line in place (carriage returns and erase codes): read the screen as text segments.
      // eslint-disable-next-line no-control-regex
      const segments = screen.split(/\u001b\[[0-9;?]*[A-Za-z]|[\r\n]+/);
      const frames = segments.map((f) => f.slice(Math.max(0, f.indexOf('[')))).filter((f) => /^\[[#-]{20}\]/.test(f));
      expect(frames.length).toBeGreaterThanOrEqual(3);
      for (const f of frames) expect(f).toMatch(/^\[[#-]{20}\] [0-3]\/3 \d+:\d\d /);
      expect(frames.some((f) => /\] [0-2]\/3 \d+:\d\d .*in\/[abc]\.pdf/.test(f))).toBe(true);
      // The line is erased before anything else is printed (here the summary): no bar left on its segment.
      const summary = segments.filter((f) => f.includes('3 of 3 files parsed'));
      expect(summary.length).toBeGreaterThan(0);
      for (const f of summary) expect(f.trim()).toMatch(/^3 of 3 files parsed/);
    }
    const quiet = await run(['--quiet']);
    expect(quiet).not.toMatch(/\[[#-]{20}\]/);
    expect(quiet).not.toContain('files parsed');
  });
});
