/**
 * Tables fit the terminal (issue 20 item 7): the built `cas parse --table` and `cas gains --format
 * table` on shipped fixtures at COLUMNS=80, 100 and 160 (and 40: a vertical layout). Every line fits
 * the width, the labels are human (no JSON keys such as `exchange_transaction_charges`), the key
 * figures are there in Indian digit grouping, numbers are right-aligned; the output is kept as a
 * snapshot (test/__snapshots__/tables.test.ts.snap).
 */
import { describe, expect, it } from 'vitest';
import type { ContractNote, ParsedStatement } from '../src/schema/index.js';
import { renderTable, textWidth } from '../src/cli/output.js';
import { cas, fixture, ROOT } from './helpers.js';

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
    expect(narrow).not.toContain('Note');
    expect(narrow).toMatch(/│ 12,34,567.89 │/);
    const tiny = renderTable({ ...spec, width: 24 });
    expectFits(tiny, 24);
    expect(tiny).toMatch(/^Amount +12,34,567.89$/m);
  });
});
