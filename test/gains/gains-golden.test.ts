/**
 * Golden: `cas gains` (the built binary, execa) on the long registrar fixture equals the gains
 * computed from the fixture's DATA (buildRegistrarStatement) by the independent calculation in
 * test/fixtures/gains-expected.ts, recomputed at test time (the renderer may change; the data keeps its meaning).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cas, fixture, manifest, tmpDir } from '../helpers/cas.js';
import { buildRegistrarStatement } from '../fixtures/registrar-data.js';
import { expectedGains, type ExpectedGainRow } from '../fixtures/gains-expected.js';
import { GainsReport, type GainRow } from '../../src/schema/gains.js';

const entry = manifest().find((m) => m.path === 'registrar/cams-detailed.pdf')!;

function project(r: GainRow): ExpectedGainRow {
  return {
    fy: r.fy,
    folio: r.folio,
    isin: r.isin ?? '',
    units: r.units,
    acquisition_date: r.acquisition_date,
    cost: r.cost,
    transfer_date: r.transfer_date,
    transfer_value: r.transfer_value,
    gain: r.gain,
    term: r.term,
    tax_class: r.tax_class,
    flags: [...r.flags].sort(),
  };
}
const order = (a: ExpectedGainRow, b: ExpectedGainRow): number =>
  `${a.folio}|${a.isin}|${a.transfer_date}|${a.acquisition_date}`.localeCompare(
    `${b.folio}|${b.isin}|${b.transfer_date}|${b.acquisition_date}`,
  );

describe('cas gains on the long registrar fixture', () => {
  const expected = expectedGains(buildRegistrarStatement());

  it('the expected calculation has the cases the fixture was built for', () => {
    // FIFO across SIP lots, a debt lot under s.50AA, opening balances, a merger; the reversal leaves no row.
    expect(expected.rows.filter((r) => r.tax_class === 'equity_ltcg_12_5').length).toBeGreaterThanOrEqual(3);
    expect(expected.rows.some((r) => r.tax_class === 'deemed_stcg_50aa')).toBe(true);
    expect(expected.rows.some((r) => r.flags.includes('opening_balance'))).toBe(true);
    expect(expected.rows.some((r) => r.flags.includes('merger'))).toBe(true);
    expect(expected.rows.some((r) => r.isin === 'INF769K01BI1')).toBe(false);
  });

  it('JSON rows and totals equal the independent calculation, and the JSON fits the schema', async () => {
    const r = await cas(['gains', fixture(entry.path), '--password', entry.password!, '--format', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = GainsReport.parse(JSON.parse(r.stdout));
    const got = report.years
      .flatMap((y) => y.schemes.flatMap((s) => s.rows))
      .map(project)
      .sort(order);
    expect(got).toEqual([...expected.rows].sort(order));
    const totals = report.years.flatMap((y) => y.totals.map((t) => ({ fy: y.fy, ...t })));
    expect(totals.sort((a, b) => `${a.fy}${a.asset_class}`.localeCompare(`${b.fy}${b.asset_class}`))).toEqual(
      [...expected.totals].sort((a, b) => `${a.fy}${a.asset_class}`.localeCompare(`${b.fy}${b.asset_class}`)),
    );
    // Opening balances are reported, never guessed.
    expect(r.stderr).toMatch(/opening balance/);
  });

  it('--fy keeps one year; --format csv -o writes Schedule 112A and the other rows', async () => {
    const dir = tmpDir('cas-gains-');
    const out = path.join(dir, '112a.csv');
    const r = await cas(['gains', fixture(entry.path), '--password', entry.password!, '--fy', '2025-26', '--format', 'csv', '-o', out]);
    expect(r.exitCode, r.stderr).toBe(0);
    const a = readFileSync(out, 'utf8').trim().split('\n');
    const b = readFileSync(path.join(dir, '112a-other.csv'), 'utf8').trim().split('\n');
    const ltcg = expected.rows.filter(
      (x) => x.fy === '2025-26' && x.tax_class.startsWith('equity_ltcg') && x.gain !== null && !x.flags.includes('merger'),
    );
    expect(a[0]).toMatch(/^Share\/Unit acquired\(1a\),Share\/Unit transferred\(1b\),ISIN Code\(2\)/);
    expect(a.length - 1).toBe(ltcg.length);
    expect(b.length - 1).toBe(expected.rows.filter((x) => x.fy === '2025-26').length - ltcg.length);
    // Column 14 (balance) of each 112A line is the gain of one expected row.
    const balances = a
      .slice(1)
      .map((l) => Number(l.split(',').at(-1)))
      .sort();
    expect(balances).toEqual(ltcg.map((x) => x.gain!).sort());
  });

  it('--scheme-types overrides a class; unreadable or malformed option files are usage errors', async () => {
    const dir = tmpDir('cas-gains-');
    const types = path.join(dir, 'types.csv');
    writeFileSync(types, 'ISIN,type\nINF179K01XQ0,other\n');
    const r = await cas(['gains', fixture(entry.path), '--password', entry.password!, '--scheme-types', types, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const row = (JSON.parse(r.stdout) as GainsReport).years.flatMap((y) => y.schemes).find((s) => s.isin === 'INF179K01XQ0')!;
    // The debt lot of 15 May 2024 sold 10 Sep 2025 as "other": s.50AA no longer applies after 31 Mar 2025 for other
    // schemes, and 15 May 2024 + 24 months is after the sale: short term at slab rates.
    expect(row).toMatchObject({ asset_class: 'other', class_source: 'override' });
    expect(row.rows.map((x) => x.tax_class)).toEqual(['stcg_slab']);
    const missing = await cas(['gains', fixture(entry.path), '--password', entry.password!, '--fmv', path.join(dir, 'nope.txt')]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/--fmv .*no such file/);
    writeFileSync(types, 'INF179K01XQ0,shares\n');
    const bad = await cas(['gains', fixture(entry.path), '--password', entry.password!, '--scheme-types', types]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/line 1: expected ISIN,equity\|debt\|other/);
  });

  it('--format table prints the years and the totals; a bad --fy is a usage error', async () => {
    const r = await cas(['gains', fixture(entry.path), '--password', entry.password!, '--format', 'table']);
    expect(r.exitCode, r.stderr).toBe(0);
    for (const fy of new Set(expected.rows.map((x) => x.fy))) expect(r.stdout).toContain(`Capital gains, FY ${fy}`);
    expect(r.stdout).toContain('deemed_stcg_50aa');
    const bad = await cas(['gains', fixture(entry.path), '--password', entry.password!, '--fy', '2025-27']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/financial year like 2025-26/);
  });
});
