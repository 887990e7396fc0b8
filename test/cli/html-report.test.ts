/**
 * `cas parse --format html` (issue 20 item 11): the built `cas` writes one self-contained page per
 * run; headless Chromium (playwright-core over /usr/bin/chromium) opens each page and the test
 * checks that it renders without a console error, a page error or any request that is not file:
 * or data:, that the investor and the holding values are on it, that the allocation chart has one
 * slice per asset class, and keeps a screenshot in test/artifacts/. Strings from the PDF are
 * escaped (a scheme named `<script>...` is text). Without Chromium the browser half is skipped,
 * naming the tool; the CLI rules (`--format` against `--json` / `--csv`, no HTML on a terminal)
 * are checked either way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ptyExited } from '../helpers/pty.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as pty from 'node-pty';
import type { Browser } from 'playwright-core';
import type { ContractNote, ParsedStatement } from '../../src/schema/index.js';
import { renderHtmlReport } from '../../src/cli/render-html.js';
import { BIN, cas, cleanEnv, expectedJson, fixture, ROOT, tmpDir } from '../helpers/cas.js';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { needs, toolPath } from '../helpers/tools.js';

const chromium = needs('chromium');
const ARTIFACTS = path.join(ROOT, 'test', 'artifacts');

const CASES = [
  { name: 'registrar', file: 'registrar/cams-detailed.pdf', password: 'Secret@123' },
  { name: 'depository_a', file: 'depository_a/cdsl-cas.pdf', password: 'ABCPM1234K' },
  { name: 'depository_b', file: 'depository_b/nsdl-cas.pdf', password: 'ABCPM1234K' },
  { name: 'contract-note', file: 'contract_note/broker_a.pdf', password: 'ABCPM1234K' },
] as const;

const rupees = (v: number): string =>
  `${v < 0 ? '-' : ''}₹${Math.abs(v).toLocaleString('en-IN', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** The asset classes a statement holds (demat holdings by kind, scheme types, NPS), counted from the JSON. */
function expectedClasses(d: ParsedStatement): number {
  const values = new Map<string, number>();
  const add = (k: string, v: number): void => void values.set(k, (values.get(k) ?? 0) + v);
  for (const a of d.demat_accounts)
    for (const [kind, list] of Object.entries(a.holdings)) for (const h of list) add(`demat:${kind}`, h.value);
  for (const f of d.mutual_funds) for (const s of f.schemes) add(`mf:${s.type}`, s.value);
  for (const n of d.nps) for (const f of n.funds) add('nps', f.value);
  return [...values.values()].filter((v) => v > 0).length;
}

describe('cas parse --format: how it sits with --json, --csv and the terminal', () => {
  const registrar = ['--password', 'Secret@123', fixture('registrar/cams-detailed.pdf')];

  it('--format json is --json and --format csv is --csv holdings; two formats at once are a usage error', async () => {
    const [json, formatJson, csv, formatCsv, formatCsvTx, csvTx] = await Promise.all([
      cas(['parse', '--json', ...registrar]),
      cas(['parse', '--format', 'json', ...registrar]),
      cas(['parse', '--csv', 'holdings', ...registrar]),
      cas(['parse', '--format', 'csv', ...registrar]),
      cas(['parse', '--format', 'csv', '--csv', 'transactions', ...registrar]),
      cas(['parse', '--csv', 'transactions', ...registrar]),
    ]);
    expect(json.exitCode).toBe(0);
    expect(formatJson.stdout).toBe(json.stdout);
    expect(csv.stdout.split('\n')[0]).toMatch(/^file,account_kind,/);
    expect(formatCsv.stdout).toBe(csv.stdout);
    expect(formatCsvTx.stdout).toBe(csvTx.stdout);
    for (const args of [
      ['--json', '--format', 'html'],
      ['--format', 'table', '--csv', 'holdings'],
      ['--table', '--format', 'json'],
    ]) {
      const r = await cas(['parse', ...args, ...registrar]);
      expect({ args, code: r.exitCode }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(/ask for two formats/);
      expect(r.stdout).toBe('');
    }
    const outDir = await cas(['parse', '--format', 'html', '--out-dir', tmpDir(), ...registrar]);
    expect(outDir.exitCode).toBe(2);
    expect(outDir.stderr).toMatch(/--out-dir .*--format html/);
  });

  it('on a pipe the page goes to stdout; on a terminal without -o it is refused, naming -o report.html', async () => {
    const piped = await cas(['parse', '--format', 'html', ...registrar]);
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stdout.startsWith('<!doctype html>')).toBe(true);
    expect(piped.stdout.trimEnd().endsWith('</html>')).toBe(true);
    const screen = await new Promise<{ code: number; text: string }>((resolve) => {
      const p = pty.spawn('node', [BIN, 'parse', '--format', 'html', ...registrar], {
        cols: 100,
        rows: 30,
        cwd: ROOT,
        env: cleanEnv({ NO_COLOR: '1' }) as Record<string, string>,
      });
      let text = '';
      p.onData((d) => (text += d));
      void ptyExited(p).then((exitCode) => resolve({ code: exitCode, text }));
    });
    expect(screen.code).toBe(2);
    expect(screen.text).toMatch(/-o report\.html/);
    expect(screen.text).not.toMatch(/<html/);
  });
});

describe.skipIf(chromium.skip)(`cas parse --format html in headless Chromium${chromium.note}`, () => {
  let browser: Browser;
  const dir = tmpDir('cas-html-');

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium(toolPath('chromium')!);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it.each(CASES)(
    '$name: one self-contained page that renders cleanly, with the investor, the values and the charts',
    async ({ name, file, password }) => {
      const json = JSON.parse((await cas(['parse', '--json', '--password', password, fixture(file)])).stdout) as
        ParsedStatement | ContractNote;
      const out = path.join(dir, `${name}.html`);
      const r = await cas(['parse', '--format', 'html', '-o', out, '--password', password, fixture(file)]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`wrote ${out}`);
      const html = readFileSync(out, 'utf8');
      // Self-contained: a policy that forbids the network, no script, nothing referenced from outside.
      expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; [^"]*">/);
      expect(html).not.toMatch(/<script|<link|<iframe|@import|url\(|\b(src|href)="(?!#)/i);

      const { page, problems } = await openPage(browser, out);
      const text = await page.innerText('body');
      if ('meta' in json) {
        expect(text).toContain(json.investor.name);
        expect(text).toContain(rupees(json.summary.total_value));
        const values = [
          ...json.mutual_funds.flatMap((f) => f.schemes.map((s) => s.value)),
          ...json.demat_accounts.flatMap((a) => Object.values(a.holdings).flatMap((l) => l.map((h) => h.value))),
        ];
        expect(values.length).toBeGreaterThan(0);
        for (const v of values) expect(text).toContain(rupees(v));
        const slices = await page.$$eval('svg.donut path.slice', (els) => els.map((e) => e.getAttribute('data-label')));
        expect(slices.length).toBe(expectedClasses(json));
        expect(new Set(slices).size).toBe(slices.length);
        // The chart is described for screen readers and its numbers are written beside it.
        expect(await page.$eval('svg.donut', (s) => s.getAttribute('role'))).toBe('img');
        expect(await page.$eval('svg.donut desc', (d) => d.textContent)).toContain('%');
        const amcs = new Set(json.mutual_funds.filter((f) => f.schemes.some((s) => s.value > 0)).map((f) => f.amc));
        expect(await page.$$eval('svg.bars rect.bar', (els) => els.length)).toBe(amcs.size);
        if (json.mutual_funds.some((f) => f.schemes.some((s) => s.transactions.length)))
          expect(await page.$$eval('caption', (cs) => cs.map((c) => c.textContent))).toContain('Transactions');
      } else {
        expect(text).toContain(json.client_info.name);
        expect(text).toContain(rupees(json.charges_summary.net_amount_receivable_payable));
        const trades = await page.$$eval('table', (ts) => ts.find((t) => t.caption?.textContent === 'Trades')?.tBodies[0].rows.length ?? 0);
        expect(trades).toBe(json.detailed_trades.length);
        for (const t of json.detailed_trades) expect(text).toContain(rupees(t.net_total));
        const charges = Object.entries(json.charges_summary).filter(
          ([k, v]) => v > 0 && k !== 'pay_in_pay_out_obligation' && k !== 'net_amount_receivable_payable',
        );
        expect(await page.$$eval('svg.bars rect.bar', (els) => els.length)).toBe(charges.length);
        expect(await page.$$eval('svg.donut', (els) => els.length)).toBe(0);
      }
      // Numbers are right-aligned.
      const aligns = await page.$$eval('td.num', (tds) => [...new Set(tds.map((td) => getComputedStyle(td).textAlign))]);
      expect(aligns).toEqual(['right']);
      await page.screenshot({ path: path.join(ARTIFACTS, `html-report-${name}.png`), fullPage: true });
      await page.close();
      expect(problems).toEqual([]);
    },
  );

  it('several files: one page with a section per document and a list of them', async () => {
    const out = path.join(dir, 'several.html');
    const r = await cas([
      'parse',
      '--format',
      'html',
      '-o',
      out,
      '--password',
      'ABCPM1234K',
      fixture('depository_b/nsdl-cas.pdf'),
      fixture('contract_note/broker_b.pdf'),
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const { page, problems } = await openPage(browser, out);
    expect(await page.$$eval('section.statement', (s) => s.length)).toBe(2);
    // Named by the file, never by the folders it was in.
    expect(await page.$$eval('nav a', (as) => as.map((a) => a.textContent))).toEqual([
      path.basename(fixture('depository_b/nsdl-cas.pdf')),
      path.basename(fixture('contract_note/broker_b.pdf')),
    ]);
    await page.close();
    expect(problems).toEqual([]);
  });

  it('escapes every string from the PDF: a scheme named <script>... is text, and nothing runs or loads', async () => {
    const d = expectedJson('expected/depository_a.json') as ParsedStatement;
    const evil = `<script>alert(1)</script><img src="https://example.invalid/x.png" onerror="alert(2)">`;
    d.mutual_funds[0].schemes[0].name = evil;
    d.mutual_funds[0].amc = `"><svg onload=alert(3)>`;
    d.investor.name = `O'Brien & <b>Sons</b>`;
    const file = path.join(dir, 'hostile.html');
    writeFileSync(file, renderHtmlReport([{ file: 'statement "<i>x</i>".pdf', data: d }]));
    const { page, problems } = await openPage(browser, file);
    const text = await page.innerText('body');
    expect(text).toContain(evil);
    expect(text).toContain(`O'Brien & <b>Sons</b>`);
    expect(text).toContain('statement "<i>x</i>".pdf');
    expect(await page.$$eval('script, img, b, i, main svg svg', (els) => els.length)).toBe(0);
    expect(await page.$$eval('svg.bars rect.bar', (rs) => rs.map((r) => r.getAttribute('data-label')))).toContain(
      `"><svg onload=alert(3)>`,
    );
    await page.close();
    expect(problems).toEqual([]);
  });
});
