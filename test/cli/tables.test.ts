/**
 * Tables fit the terminal (issue 20 item 7): the built `cas parse --table` and `cas gains --format
 * table` on shipped fixtures at COLUMNS=80, 100 and 160 (and 40: a vertical layout). Every line fits
 * the width, the labels are human (no JSON keys such as `exchange_transaction_charges`), the key
 * figures are there in Indian digit grouping, numbers are right-aligned; the output is kept as a
 * snapshot (test/cli/__snapshots__/tables.test.ts.snap). `cas fetch --parse` and `cas verify-otp
 * --parse` on a real terminal (node-pty, 80, 100 and 160 columns) against a real `cas serve` with
 * the sandbox print the same tables, not JSON; on a pipe they still print one JSON document a line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ptyExited } from '../helpers/pty.js';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import * as pty from 'node-pty';
import type { ContractNote, ParsedStatement } from '../../src/schema/index.js';
import { renderTable, textWidth } from '../../src/cli/output.js';
import { BIN, cas, cleanEnv, fixture, ROOT, tmpDir } from '../helpers/cas.js';
import { newKey, serve, type Served } from '../helpers/server.js';

const WIDTHS = [80, 100, 160] as const;
const CASES = [
  { name: 'depository_a', file: 'depository_a/cdsl-cas.pdf', password: 'ABCPM1234K' },
  { name: 'depository_b', file: 'depository_b/nsdl-cas.pdf', password: 'ABCPM1234K' },
  { name: 'registrar', file: 'registrar/cams-detailed.pdf', password: 'Secret@123' },
  { name: 'contract note', file: 'contract_note/broker_a.pdf', password: 'ABCPM1234K' },
] as const;

const inr = (v: number): string => v.toLocaleString('en-IN', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Fixture paths relative to the repository, so that the snapshots do not name the checkout. */
async function table(args: string[], columns: number): Promise<string> {
  const r = await cas([...args, '--table'], { cwd: ROOT, env: { COLUMNS: String(columns), FORCE_COLOR: '0' } });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

function expectFits(out: string, width: number): void {
  const long = out.split('\n').filter((l) => textWidth(l) > width);
  expect(long).toEqual([]);
}

/** The cells of the table row whose first cell is `first` (split on the box's bars). */
function rowCells(out: string, first: string): string[] | undefined {
  const line = out.split('\n').find((l) => l.startsWith(`│ ${first} `));
  return line?.split('│').slice(1, -1);
}

describe.each(CASES)('cas parse --table: $name', ({ file, password }) => {
  it('fits 80, 100 and 160 columns with human labels and the key figures', async () => {
    const json = JSON.parse((await cas(['parse', '--password', password, fixture(file)])).stdout) as ParsedStatement | ContractNote;
    for (const width of WIDTHS) {
      const out = await table(['parse', '--transactions', '--password', password, `fixtures/${file}`], width);
      expectFits(out, width);
      // No snake_case keys below the file name (the registry's neutral names such as depository_a are labels).
      expect(
        out
          .split('\n')
          .slice(1)
          .join('\n')
          .replace(/\b(registrar|depository|broker)_[a-d]\b/g, ''),
      ).not.toMatch(/[a-z]+_[a-z_]+/);
      if ('meta' in json) {
        expect(out).toContain(json.investor.name);
        expect(out).not.toContain(json.meta.cas_type); // the registry's label, not the enum
        const total = rowCells(out, 'Total');
        expect(total?.at(-1)).toBe(` ${inr(json.summary.total_value)} `.padStart(total!.at(-1)!.length)); // right-aligned
        expect(out).toContain('Value (₹)');
      } else {
        expect(out).toContain(json.client_info.name);
        for (const label of [
          'Exchange transaction charges',
          'Securities transaction tax (STT)',
          'Stamp duty',
          'Net amount receivable / payable',
        ])
          expect(out).toContain(label);
        expect(rowCells(out, 'Net amount receivable / payable')?.[1].trim()).toBe(inr(json.charges_summary.net_amount_receivable_payable));
      }
      expect(out).toMatchSnapshot(`${file} at ${width}`);
    }
  });
});

describe('narrow terminals and the table rules', () => {
  it('at 40 columns a wide table becomes label/value blocks that fit', async () => {
    const out = await table(['parse', '--password', 'ABCPM1234K', 'fixtures/contract_note/broker_a.pdf'], 40);
    expectFits(out, 40);
    expect(out).toMatch(/── 1 of \d+ ─+/);
    expect(out).toMatch(/^Security +RELIANCE INDUSTRIES/m);
    expect(out).toMatchSnapshot('contract note at 40');
  });

  it('cas gains --format table fits 80 and 100 columns, keeps the tax class, and prints the issues to check in full', async () => {
    const report = JSON.parse(
      (await cas(['gains', '--json', '--password', 'Secret@123', fixture('registrar/cams-detailed.pdf')])).stdout,
    ) as { issues: { message: string }[]; years: { schemes: { rows: { tax_class: string; gain: number | null }[] }[] }[] };
    expect(report.issues.length).toBeGreaterThan(0);
    for (const width of [80, 100]) {
      const r = await cas(['gains', '--format', 'table', '--password', 'Secret@123', 'fixtures/registrar/cams-detailed.pdf'], {
        cwd: ROOT,
        env: { COLUMNS: String(width), FORCE_COLOR: '0' },
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expectFits(r.stdout, width);
      expect(r.stdout).toContain('Capital gains, FY');
      expect(r.stdout).toContain('₹1,25,000.00'); // the year's exemption, Indian grouping
      for (const row of report.years.flatMap((y) => y.schemes.flatMap((s) => s.rows))) {
        expect(r.stdout).toContain(row.tax_class);
        if (row.gain !== null) expect(r.stdout).toContain(inr(row.gain));
      }
      const flat = r.stdout.replace(/\s+/g, ' ');
      for (const issue of report.issues) expect(flat).toContain(issue.message.replace(/\s+/g, ' '));
      expect(r.stdout).toMatchSnapshot(`gains at ${width}`);
    }
  });

  it('renderTable cuts long text with an ellipsis, then drops the low-value columns in order, then goes vertical', () => {
    const spec = {
      head: ['Id', 'Name', 'Note', 'Amount'],
      numeric: [3],
      drop: [2],
      shrink: [1],
      rows: [['A1', 'A very long scheme name that goes on and on', 'low value', '12,34,567.89']],
    };
    const wide = renderTable({ ...spec, width: 200 });
    expect(wide).toContain('A very long scheme name that goes on and on');
    expect(wide).toContain('low value');
    const mid = renderTable({ ...spec, width: 60 });
    expectFits(mid, 60);
    expect(mid).toContain('low value');
    expect(mid).toMatch(/│ A very long scheme[a-z ]*… │/);
    const narrow = renderTable({ ...spec, width: 45 });
    expectFits(narrow, 45);
    // The column is left out of the table, and one line under it says so.
    const [boxes, notice] = [narrow.split('\n').filter((l) => /^[┌│├└]/.test(l)), narrow.trimEnd().split('\n').at(-1)!];
    expect(boxes.join('\n')).not.toContain('Note');
    expect(notice).toMatch(/^\(Note left out to fit 45 columns/);
    expect(wide).not.toMatch(/left out/);
    expect(narrow).toMatch(/│ 12,34,567.89 │/);
    const tiny = renderTable({ ...spec, width: 24 });
    expectFits(tiny, 24);
    expect(tiny).toMatch(/^Amount +12,34,567.89$/m);
  });
});

/**
 * What a terminal shows after `raw`: a small screen model that applies carriage returns, cursor
 * moves to a column (`ESC[nG`) and line clears (`ESC[0K`, `ESC[2K`), and ignores the other escapes
 * (cursor visibility, synchronised output), so that a spinner redrawn in place leaves its last state.
 */
function screenLines(raw: string): string[] {
  const lines: string[] = [];
  let line: string[] = [];
  let col = 0;
  // eslint-disable-next-line no-control-regex
  const tokens = raw.match(/\u001b\[[?0-9;]*[A-Za-z]|\r|\n|[^\u001b\r\n]/gu) ?? [];
  for (const t of tokens) {
    if (t === '\n') {
      lines.push(line.join('').trimEnd());
      line = [];
      col = 0;
    } else if (t === '\r') col = 0;
    else if (t.startsWith('\u001b[')) {
      // eslint-disable-next-line no-control-regex
      const m = /^\u001b\[(\d*)([GK])$/.exec(t);
      if (m?.[2] === 'G') col = Math.max(0, Number(m[1] || 1) - 1);
      else if (m?.[2] === 'K') line = m[1] === '2' ? [] : line.slice(0, col);
    } else {
      while (line.length < col) line.push(' ');
      line[col++] = t;
    }
  }
  lines.push(line.join('').trimEnd());
  return lines;
}

/** Run the built cas on a terminal of `cols` columns; answers the OTP prompt with the sandbox OTP. */
function onTerminal(args: string[], cols: number, env: Record<string, string>): Promise<{ code: number; lines: string[] }> {
  return new Promise((resolve) => {
    const p = pty.spawn('node', [BIN, ...args], {
      cols,
      rows: 60,
      cwd: ROOT,
      env: cleanEnv({ NO_COLOR: '1', ...env }) as Record<string, string>,
    });
    let raw = '';
    let answered = false;
    p.onData((d) => {
      raw += d;
      if (!answered && /OTP:/.test(raw)) {
        answered = true;
        p.write('123456\r');
      }
    });
    void ptyExited(p).then((exitCode) => resolve({ code: exitCode, lines: screenLines(raw) }));
  });
}

describe('cas fetch --parse and cas verify-otp --parse: tables on a terminal, JSON on a pipe', () => {
  /** The sandbox investor's PAN: the fetch's first step takes it, and it opens the sandbox statements. */
  const PAN = 'ABCPM1234K';
  const START = ['--pan', PAN, '--bo-id', '1208160000123456', '--dob', '1990-01-31'];
  let srv: Served;
  let env: Record<string, string>;
  beforeAll(async () => {
    // The sandbox provider (OTP 123456, sample statements) behind a key of our own (the public sandbox key is rate-limited).
    srv = await serve(undefined, ['--fetch-provider', 'sandbox']);
    env = { CAS_API_KEY: await newKey(srv.dataDir, ['--credits', '1000', '--rate', '600/min']), CAS_BASE_URL: srv.url };
  });
  afterAll(async () => {
    await srv?.stop();
  });

  /** The parsed JSON of each saved statement, as `cas parse --json` gives it. */
  async function parsedIn(dir: string): Promise<{ file: string; data: ParsedStatement }[]> {
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.pdf'))
      .sort()
      .map((f) => path.join(dir, f));
    return Promise.all(
      files.map(async (file) => {
        const r = await cas(['parse', '--json', '--password', PAN, file]);
        expect(r.exitCode, r.stderr).toBe(0);
        return { file, data: JSON.parse(r.stdout) as ParsedStatement };
      }),
    );
  }

  /**
   * The screen holds the statement tables of every saved file (its name as the title, its investor,
   * its total in Indian grouping, right-aligned), no JSON, and every line fits; returns the tables
   * part with the folder and the dates made neutral, for the snapshot.
   */
  async function expectTables(lines: string[], out: string, width: number, count: number): Promise<string> {
    expect(lines.filter((l) => textWidth(l) > width)).toEqual([]);
    const screen = lines.join('\n');
    expect(screen).not.toMatch(/\{"meta"|"cas_type"/);
    const docs = await parsedIn(out);
    expect(docs).toHaveLength(count);
    for (const { file, data } of docs) {
      expect(lines).toContain(file.length > width ? `${file.slice(0, width - 1)}…` : file);
      expect(screen).toContain(data.investor.name);
      expect(screen).toMatch(new RegExp(`│ +${inr(data.summary.total_value).replace(/[.]/g, '\\.')} │`));
    }
    const first = lines.findIndex((l) => l.startsWith(out));
    expect(first).toBeGreaterThan(-1);
    return lines
      .slice(first)
      .join('\n')
      .replaceAll(out, '<out>')
      .replace(/\b[A-Z]{3}\d{4}_/g, 'MMMYYYY_')
      .replace(/\b\d{4}-\d{2}-\d{2}\b/g, 'YYYY-MM-DD')
      .trimEnd();
  }

  it.each(WIDTHS)('cas fetch --parse at %i columns (interactive OTP) prints the tables of each statement', async (width) => {
    const out = tmpDir('cas-fetch-');
    const r = await onTerminal(['fetch', ...START, '--periods', '2', '--out-dir', out, '--parse'], width, env);
    expect(r.code, r.lines.join('\n')).toBe(0);
    expect(r.lines.join('\n')).toMatch(/2 statements saved in/);
    const tables = await expectTables(r.lines, out, width, 2);
    expect(tables).toMatch(/^2 of 2 files parsed$/m);
    expect(tables).toMatchSnapshot(`fetch --parse at ${width}`);
  });

  it.each(WIDTHS)('cas verify-otp --parse at %i columns prints the tables of the statement', async (width) => {
    const started = await cas(['fetch', ...START], { env });
    expect(started.exitCode, started.stderr).toBe(0);
    const session = (JSON.parse(started.stdout) as { session_id: string }).session_id;
    const out = tmpDir('cas-verify-');
    const r = await onTerminal(
      ['verify-otp', session, '--otp', '123456', '--periods', '1', '--out-dir', out, '--parse', '--pan', PAN],
      width,
      env,
    );
    expect(r.code, r.lines.join('\n')).toBe(0);
    const tables = await expectTables(r.lines, out, width, 1);
    expect(tables).toMatchSnapshot(`verify-otp --parse at ${width}`);
  });

  it('on a pipe, and with --json on a terminal, --parse prints one compact JSON document a line', async () => {
    const started = await cas(['fetch', ...START], { env });
    const session = (JSON.parse(started.stdout) as { session_id: string }).session_id;
    const out = tmpDir('cas-verify-');
    const piped = await cas(['verify-otp', session, '--otp', '123456', '--periods', '2', '--out-dir', out, '--parse', '--pan', PAN], {
      env,
    });
    expect(piped.exitCode, piped.stderr).toBe(0);
    const docs = await parsedIn(out);
    // One line per saved file, in the order the service listed them (newest first): compare as sets.
    const byText = (xs: unknown[]): string[] => xs.map((x) => JSON.stringify(x)).sort();
    // Each line names its file first (source_file), then the document `cas parse --json` gives.
    const lines = piped.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { source_file: string });
    expect(lines.map((l) => l.source_file).sort()).toEqual(docs.map((d) => d.file).sort());
    expect(byText(lines.map(({ source_file: _, ...doc }) => doc))).toEqual(byText(docs.map((d) => d.data)));
    const out2 = tmpDir('cas-fetch-');
    const r = await onTerminal(['--json', 'fetch', ...START, '--periods', '1', '--out-dir', out2, '--parse'], 100, env);
    expect(r.code, r.lines.join('\n')).toBe(0);
    const [doc] = await parsedIn(out2);
    expect(r.lines).toContain(JSON.stringify({ source_file: doc.file, ...doc.data }));
  });
});
