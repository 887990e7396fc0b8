/**
 * Output details a newcomer trips over (issue 33 item 7), each on the built `cas`: a batch's JSON
 * lines name their file (`source_file`), a table that leaves columns out to fit says which, the
 * progress line keeps the file's name, one CSV `type` vocabulary, one way to print a demat account,
 * human labels (AIFs), the HTML report without local folders, errors that start with `cas:` and name
 * a missing file once, `cas fetch` naming missing flags, `cas serve --help` naming both stores, a
 * service's HTTP 400 as exit 2 (the exit-code table's meaning), and the OTP prompt that never echoes
 * the code (a real terminal, node-pty).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ptyExited } from '../helpers/pty.js';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as pty from 'node-pty';
import type { ParsedStatement } from '../../src/schema/index.js';
import { progressLine } from '../../src/cli/progress.js';
import { ExitCode } from '../../src/errors.js';
import { BIN, cas, cleanEnv, expectedJson, fixture, ROOT, tmpDir } from '../helpers/cas.js';
import { newKey, serve, type Served } from '../helpers/server.js';

const PAN = 'ABCPM1234K';
const START = ['--pan', PAN, '--bo-id', '1208160000123456', '--dob', '1990-01-31'];
const DEP_A = expectedJson('expected/depository_a.json') as ParsedStatement;

/** The CSV as rows of cells (the fixtures hold no quoted commas in the columns read here). */
function csvRows(text: string): Record<string, string>[] {
  const [head, ...rows] = text.trim().split('\n');
  const cols = head.split(',');
  return rows.map((r) => Object.fromEntries(r.split(',').map((v, i) => [cols[i], v])));
}

describe('batches and files', () => {
  it('a batch prints one JSON line per file with source_file first; a single file prints the document alone', async () => {
    const dir = tmpDir();
    copyFileSync(fixture('depository_a/cdsl-cas.pdf'), path.join(dir, 'a.pdf'));
    copyFileSync(fixture('depository_b/nsdl-cas.pdf'), path.join(dir, 'b.pdf'));
    const r = await cas(['parse', path.join(dir, 'a.pdf'), path.join(dir, 'b.pdf'), '--json'], { env: { CAS_PDF_PASSWORD: PAN } });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => Object.keys(l)[0])).toEqual(['source_file', 'source_file']);
    expect(lines.map((l) => l.source_file)).toEqual([path.join(dir, 'a.pdf'), path.join(dir, 'b.pdf')]);
    const { source_file: _, ...first } = lines[0];
    expect(first).toEqual(DEP_A);
    const one = await cas(['parse', path.join(dir, 'a.pdf'), '--json'], { env: { CAS_PDF_PASSWORD: PAN } });
    expect(JSON.parse(one.stdout)).toEqual(DEP_A);
  });

  it('a missing file in a batch: one line starting with cas:, naming the file once; the rest still parse (exit 8)', async () => {
    const dir = tmpDir();
    copyFileSync(fixture('depository_a/cdsl-cas.pdf'), path.join(dir, 'a.pdf'));
    const missing = path.join(dir, 'nope.pdf');
    const r = await cas(['parse', path.join(dir, 'a.pdf'), missing, '--json'], { env: { CAS_PDF_PASSWORD: PAN } });
    expect(r.exitCode).toBe(ExitCode.NOT_FOUND);
    const line = r.stderr.split('\n').find((l) => l.includes('no such file'))!;
    expect(line).toMatch(/^cas: /);
    expect(line.split(missing)).toHaveLength(2);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('the HTML report names files, not the folders they were in', async () => {
    const dir = tmpDir('cas-private-folder-');
    copyFileSync(fixture('depository_a/cdsl-cas.pdf'), path.join(dir, 'mine.pdf'));
    const out = path.join(tmpDir(), 'report.html');
    const r = await cas(['parse', path.join(dir, 'mine.pdf'), '--format', 'html', '-o', out], { env: { CAS_PDF_PASSWORD: PAN } });
    expect(r.exitCode, r.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('mine.pdf');
    expect(html).not.toContain(dir);
  });
});

describe('tables and CSV', () => {
  it('a table that leaves columns out to fit 80 columns says which, in one line; at 200 columns nothing is left out', async () => {
    const narrow = await cas(['parse', fixture('depository_a/cdsl-cas.pdf'), '--table'], {
      env: { CAS_PDF_PASSWORD: PAN, COLUMNS: '80', FORCE_COLOR: '0' },
    });
    expect(narrow.exitCode, narrow.stderr).toBe(0);
    const notices = narrow.stdout.split('\n').filter((l) => /left out to fit 80 columns/.test(l));
    expect(notices.length).toBeGreaterThan(0);
    // Each notice follows its table and names columns that its header row does not show.
    const lines = narrow.stdout.split('\n');
    for (const notice of notices) {
      const named = /^\((.*) left out to fit/.exec(notice)![1].split(', ');
      const at = lines.indexOf(notice);
      const header = lines
        .slice(0, at)
        .reverse()
        .find((l) => l.startsWith('│'))!;
      for (const col of named) expect(header.split('│').map((c) => c.trim())).not.toContain(col);
    }
    const wide = await cas(['parse', fixture('depository_a/cdsl-cas.pdf'), '--table'], {
      env: { CAS_PDF_PASSWORD: PAN, COLUMNS: '200', FORCE_COLOR: '0' },
    });
    expect(wide.stdout).not.toMatch(/left out to fit/);
  });

  it('one demat account id everywhere, and human labels for holding kinds (AIFs, not Aifs)', async () => {
    const r = await cas(['parse', fixture('depository_a/cdsl-cas.pdf'), '--table'], {
      env: { CAS_PDF_PASSWORD: PAN, COLUMNS: '200', FORCE_COLOR: '0' },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const split = DEP_A.demat_accounts.find((a) => !a.bo_id)!;
    expect(r.stdout).toContain(`${split.dp_id}${split.client_id}`);
    expect(r.stdout).not.toContain(`${split.dp_id} ${split.client_id}`);
    expect(r.stdout).toContain('AIFs');
    expect(r.stdout).not.toContain('Aifs');
    const csv = await cas(['parse', fixture('depository_a/cdsl-cas.pdf'), '--csv', 'holdings'], { env: { CAS_PDF_PASSWORD: PAN } });
    expect(csvRows(csv.stdout).map((row) => row.account)).toContain(`${split.dp_id}${split.client_id}`);
  });

  it('the CSV type column has one vocabulary: lower-case snake_case for schemes, demat kinds and NPS tiers', async () => {
    const types = new Set<string>();
    for (const [file, pw] of [
      ['depository_a/cdsl-cas.pdf', PAN],
      ['registrar/cams-detailed.pdf', 'Secret@123'],
    ]) {
      const r = await cas(['parse', fixture(file), '--csv', 'holdings'], { env: { CAS_PDF_PASSWORD: pw } });
      expect(r.exitCode, r.stderr).toBe(0);
      for (const row of csvRows(r.stdout)) types.add(row.type);
    }
    const allowed = [
      'equity',
      'debt',
      'hybrid',
      'other',
      'equity_share',
      'corporate_bond',
      'government_security',
      'aif',
      'mutual_fund_unit',
      'nps_tier_1',
      'nps_tier_2',
    ];
    expect([...types].filter((t) => !allowed.includes(t))).toEqual([]);
    // The depository fixture holds every demat kind and an NPS account; the registrar one equity schemes.
    for (const t of ['equity_share', 'corporate_bond', 'government_security', 'aif', 'mutual_fund_unit', 'equity'])
      expect(types).toContain(t);
    expect([...types].some((t) => t.startsWith('nps_tier_'))).toBe(true);
  });

  it('the progress line keeps the end of a long path (the file name), whatever the width', () => {
    const file = `/home/someone/${'very-long-folder-name/'.repeat(6)}statement-2026-03.pdf`;
    for (const width of [60, 80, 120]) {
      const line = progressLine(3, 10, 65_000, file, width);
      expect(line.length).toBeLessThanOrEqual(width);
      expect(line).toMatch(/….*statement-2026-03\.pdf$/);
      expect(line).toMatch(/^\[#+-+\] 3\/10 1:05 /);
    }
    // Too narrow for the whole name: its end still shows.
    expect(progressLine(3, 10, 65_000, file, 40)).toMatch(/…[^ ]*03\.pdf$/);
  });
});

describe('messages and help', () => {
  it('cas fetch without flags names what is missing (exit 2)', async () => {
    const r = await cas(['fetch'], { env: { CAS_API_KEY: 'cas_sandbox_public_key' } });
    expect(r.exitCode).toBe(ExitCode.USAGE);
    expect(r.stderr).toMatch(/^cas: missing --pan, --bo-id, --dob/);
    const some = await cas(['fetch', '--pan', PAN], { env: { CAS_API_KEY: 'cas_sandbox_public_key' } });
    expect(some.stderr).toMatch(/^cas: missing --bo-id, --dob/);
  });

  it('cas serve --help names both stores', async () => {
    const r = await cas(['serve', '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/SQLite or PostgreSQL/);
  });

  it('no API key: the message names the sandbox key for a local cas serve', async () => {
    const r = await cas(['credits'], { env: { CAS_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.exitCode).toBe(ExitCode.AUTH);
    expect(r.stderr).toMatch(/cas_sandbox_public_key/);
  });
});

describe('against a real cas serve (sandbox provider)', () => {
  let srv: Served;
  let env: Record<string, string>;
  beforeAll(async () => {
    srv = await serve(undefined, ['--fetch-provider', 'sandbox']);
    env = { CAS_API_KEY: await newKey(srv.dataDir, ['--credits', '100', '--rate', '600/min']), CAS_BASE_URL: srv.url };
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('a request the service refuses as invalid (HTTP 400: an OTP session used twice) is exit 2, as the table says', async () => {
    const started = await cas(['fetch', ...START, '--no-input'], { env });
    expect(started.exitCode, started.stderr).toBe(0);
    const session = (JSON.parse(started.stdout) as { session_id: string }).session_id;
    const out = tmpDir();
    const first = await cas(['verify-otp', session, '--otp', '123456', '--periods', '1', '--out-dir', out], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    const again = await cas(['verify-otp', session, '--otp', '123456', '--periods', '1', '--out-dir', out], { env });
    expect(again.exitCode).toBe(ExitCode.USAGE);
    expect(again.stderr).toMatch(/^cas: .*already used/);
    const help = await cas(['--help']);
    expect(help.stdout).toMatch(/2 +usage: .*refused as invalid \(HTTP 400, 422\)/);
  });

  it('the OTP prompt does not echo the code on the terminal', async () => {
    const out = tmpDir('cas-otp-');
    mkdirSync(out, { recursive: true });
    const { code, raw } = await new Promise<{ code: number; raw: string }>((resolve) => {
      const p = pty.spawn('node', [BIN, 'fetch', ...START, '--periods', '1', '--out-dir', out], {
        cols: 100,
        rows: 40,
        cwd: ROOT,
        env: cleanEnv({ NO_COLOR: '1', ...env }) as Record<string, string>,
      });
      let text = '';
      let answered = false;
      p.onData((d) => {
        text += d;
        if (!answered && /OTP:/.test(text)) {
          answered = true;
          p.write('123456\r');
        }
      });
      void ptyExited(p).then((exitCode) => resolve({ code: exitCode, raw: text }));
    });
    expect(code, raw).toBe(0);
    expect(raw).toMatch(/OTP:/);
    expect(raw).toMatch(/1 statement saved/);
    expect(raw).not.toContain('123456');
  });
});
