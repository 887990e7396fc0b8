/**
 * `cas portfolio` (issue 34), the built CLI on the shipped fixtures: six monthly depository
 * statements give one timeline (the union of their transactions, balances carried month to month);
 * registrar statements plus depository statements give one portfolio whose total is the sum of each
 * holding's latest value (computed here from the generator's expected JSON); the same file twice
 * changes nothing; two investors are refused without --allow-mixed-investors; a file that does not
 * parse is named, left out, and the exit code says so; table, CSV and `cas schema portfolio`.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cas, expectedJson, fixture, tmpDir } from '../helpers/cas.js';
import { Portfolio } from '../../src/schema/portfolio.js';
import type { ParsedStatement } from '../../src/schema/index.js';
import { buildRegistrarStatement } from '../fixtures/registrar-data.js';
import { renderRegistrarDetailed, STYLE_A } from '../fixtures/registrar-render.js';

const PW = ['--password', 'ABCPM1234K'];

async function portfolio(args: string[]): Promise<{ p: Portfolio; stderr: string; exitCode: number }> {
  const r = await cas(['portfolio', '--json', ...PW, ...args]);
  const p = Portfolio.parse(JSON.parse(r.stdout));
  return { p, stderr: r.stderr, exitCode: r.exitCode ?? -1 };
}

const paise = (v: number): number => Math.round(v * 100);

/**
 * The total by the issue's rule, from the generator's expected JSON: each holding (folio + ISIN,
 * demat account + ISIN, PRAN + fund) once, valued by the statement with the latest date (on the same
 * date, a registrar statement's record of a folio).
 */
function expectedTotal(statements: ParsedStatement[]): number {
  const best = new Map<string, { to: string; registrar: boolean; value: number }>();
  const offer = (key: string, to: string, registrar: boolean, value: number): void => {
    const b = best.get(key);
    if (!b || to > b.to || (to === b.to && registrar && !b.registrar)) best.set(key, { to, registrar, value });
  };
  for (const s of statements) {
    const to = s.meta.statement_period.to;
    const reg = s.meta.cas_type === 'REGISTRAR_A_REGISTRAR_B';
    for (const f of s.mutual_funds)
      for (const sc of f.schemes) offer(`mf ${f.folio_number.replace(/\s/g, '')} ${sc.isin}`, to, reg, sc.value);
    for (const a of s.demat_accounts)
      for (const list of Object.values(a.holdings))
        for (const h of list) offer(`demat ${a.dp_id}${a.client_id} ${h.isin}`, to, false, h.value);
    for (const n of s.nps) for (const fund of n.funds) offer(`nps ${n.pran} ${fund.name}`, to, false, fund.value);
  }
  return [...best.values()].reduce((a, b) => a + paise(b.value), 0) / 100;
}

describe('cas portfolio: merging', () => {
  it('six monthly depository statements: one timeline, the union of their transactions, balances carried', async () => {
    const dir = fixture('sandbox/depository_a');
    const { p, exitCode, stderr } = await portfolio([dir]);
    expect(exitCode, stderr).toBe(0);
    const months = readdirSync(fixture('sandbox/expected'))
      .filter((f) => f.startsWith('depository_a-'))
      .sort()
      .map((f) => expectedJson(`sandbox/expected/${f}`) as ParsedStatement);
    expect(months).toHaveLength(6);
    expect(p.sources).toHaveLength(6);
    expect(p.as_of).toBe(months.at(-1)!.meta.statement_period.to);
    let checked = 0;
    for (const a of months[0].demat_accounts)
      for (const [kind, list] of Object.entries(a.holdings))
        for (const h0 of list) {
          const key = `demat|${a.dp_id}${a.client_id}|${h0.isin}`;
          const mine = p.holdings.find((h) => h.key === key);
          expect(mine, key).toBeDefined();
          // The union of the six statements' rows, in date order.
          const perMonth = months.map((m) => {
            const acc = m.demat_accounts.find((x) => x.dp_id === a.dp_id && x.client_id === a.client_id)!;
            return acc.holdings[kind as keyof typeof acc.holdings].find((x) => x.isin === h0.isin)!;
          });
          const union = perMonth.flatMap((h) => h.transactions).sort((x, y) => x.date.localeCompare(y.date));
          expect(mine!.transactions.map((t) => [t.date, t.type, t.units, t.balance])).toEqual(
            union.map((t) => [t.date, t.type, t.units, t.balance]),
          );
          // One closing balance per month; a month without rows carries the month before's.
          const closes = mine!.balances.filter(
            (b) => b.value !== null && b.date !== undefined && months.some((m) => m.meta.statement_period.to === b.date),
          );
          expect(closes.map((b) => [b.date, b.units])).toEqual(months.map((m, i) => [m.meta.statement_period.to, perMonth[i].units]));
          for (let i = 1; i < 6; i++) {
            const moved = perMonth[i].transactions.reduce((s, t) => s + (t.units ?? 0), 0);
            expect(closes[i].units).toBeCloseTo(closes[i - 1].units + moved, 3);
          }
          expect(mine!.value).toBe(perMonth[5].value);
          expect(mine!.source.as_of).toBe(months[5].meta.statement_period.to);
          checked++;
        }
    expect(checked).toBeGreaterThan(8);
    // Every month end is on the timeline, valued.
    for (const m of months) expect(p.timeline.find((t) => t.date === m.meta.statement_period.to)?.value).toBeGreaterThan(0);
    expect(p.totals.value).toBe(expectedTotal(months));
    expect(p.totals.value).toBe(months[5].summary.total_value);
    // No statement repeats another's rows: none dropped, no gaps.
    expect(p.sources.map((s) => s.duplicate_transactions)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(p.holdings.flatMap((h) => h.gaps)).toEqual([]);
  });

  it('registrar statements and depository statements: one portfolio, its total the sum of the latest values', async () => {
    const files = ['registrar/kfintech-detailed.pdf', 'depository_a/cdsl-cas.pdf', 'depository_b/nsdl-cas.pdf'];
    const { p, exitCode, stderr } = await portfolio(files.map(fixture));
    expect(exitCode, stderr).toBe(0);
    const want = expectedTotal(
      ['expected/registrar-detailed.json', 'expected/depository_a.json', 'expected/depository_b.json'].map(
        (f) => expectedJson(f) as ParsedStatement,
      ),
    );
    expect(p.totals.value).toBe(want);
    expect(p.returns.portfolio.value).toBe(want);
    expect(paise(p.totals.by_asset_class.reduce((a, c) => a + c.value, 0))).toBe(paise(want));
    // The two depository statements hold the same two demat accounts: each holding once.
    expect(new Set(p.holdings.map((h) => h.key)).size).toBe(p.holdings.length);
    // A folio in both the registrar and a depository statement of the same date: the registrar's record wins.
    const flexi = p.holdings.find((h) => h.key === 'mf|1234567/89|INF179K01UT0')!;
    expect(flexi.source.file).toBe(fixture(files[0]));
    expect(flexi.transactions.length).toBeGreaterThan(0);
    // Registrar rows give since-inception XIRR where the file reaches the first purchase; a depository holding says why not.
    const bond = p.holdings.find((h) => h.key === 'mf|1234567/89|INF179K01XQ0')!;
    expect(bond.since_inception.xirr.rate).toBeGreaterThan(0);
    const shares = p.holdings.find((h) => h.kind === 'demat' && h.transactions.length === 0)!;
    expect(shares.since_inception.xirr).toMatchObject({ rate: null, reason: expect.stringMatching(/depository statement/) });
    expect(p.returns.portfolio.since_inception.xirr.rate).toBeGreaterThan(0);
    expect(p.returns.portfolio.left_out.length).toBeGreaterThan(0);
  });

  it('the same file twice changes nothing', async () => {
    const f = fixture('registrar/kfintech-detailed.pdf');
    const [once, twice] = await Promise.all([portfolio([f]), portfolio([f, f])]);
    expect(twice.exitCode, twice.stderr).toBe(0);
    expect(twice.p.sources[1].duplicate_transactions).toBe(once.p.holdings.reduce((a, h) => a + h.transactions.length, 0));
    const strip = (p: Portfolio) => ({
      ...p,
      sources: undefined,
      holdings: p.holdings.map((h) => ({
        ...h,
        transactions: h.transactions.map((t) => ({ ...t, sources: undefined })),
        balances: h.balances.map((b) => ({ ...b, source: undefined })),
      })),
    });
    // The balances list each statement's own opening and closing: twice the entries, the same values.
    const b1 = once.p.holdings.map((h) => h.balances.map((b) => [b.date, b.units, b.value]));
    const b2 = twice.p.holdings.map((h) => [
      ...new Map(h.balances.map((b) => [`${b.date}|${b.units}|${b.value}`, [b.date, b.units, b.value]])).values(),
    ]);
    expect(b2).toEqual(b1);
    const a = strip(once.p);
    const b = strip(twice.p);
    expect({ ...b, holdings: b.holdings.map((h) => ({ ...h, balances: undefined })) }).toEqual({
      ...a,
      holdings: a.holdings.map((h) => ({ ...h, balances: undefined })),
    });
  });
});

describe('cas portfolio: bad input', () => {
  it('statements of two investors (different PANs) are refused, exit 2, unless --allow-mixed-investors', async () => {
    // A second investor's statement from the generator: the registrar statement's data under another PAN.
    const st = buildRegistrarStatement({ seed: 11 });
    st.investor = { ...st.investor, name: 'Diya Rao', pan: 'BCDPR5678L' };
    for (const f of st.folios) f.pan = 'BCDPR5678L';
    const other = path.join(tmpDir('cas-portfolio-'), 'other-investor.pdf');
    writeFileSync(other, await renderRegistrarDetailed(st, STYLE_A));
    const mine = fixture('registrar/kfintech-detailed.pdf');
    const refused = await cas(['portfolio', '--json', ...PW, mine, other]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/2 investors \(PANs ABCPM1234K, BCDPR5678L\).*--allow-mixed-investors/);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    const allowed = await cas(['portfolio', '--json', ...PW, '--allow-mixed-investors', mine, other]);
    expect(allowed.exitCode, allowed.stderr).toBe(0);
    const p = Portfolio.parse(JSON.parse(allowed.stdout));
    expect(p.investors.map((i) => i.pan).sort()).toEqual(['ABCPM1234K', 'BCDPR5678L']);
    expect(p.issues.map((i) => i.message).join('\n')).toMatch(/2 investors merged/);
  });

  it('a file that does not parse is named and left out; the rest merges; exit 3 at the end', async () => {
    const good = fixture('registrar/kfintech-detailed.pdf');
    const bad = fixture('bad/truncated.pdf');
    const [alone, both] = await Promise.all([portfolio([good]), cas(['portfolio', '--json', ...PW, good, bad])]);
    expect(both.exitCode).toBe(3);
    expect(both.stderr).toContain(`${bad}:`);
    expect(both.stderr).toMatch(/left out/);
    const p = Portfolio.parse(JSON.parse(both.stdout));
    expect(p.left_out).toEqual([{ file: bad, message: expect.any(String) }]);
    expect(p.totals).toEqual(alone.p.totals);
    expect(p.sources.map((s) => s.file)).toEqual([good]);
    // Nothing parses: nothing on stdout, the file named, exit 3.
    const none = await cas(['portfolio', '--json', bad]);
    expect(none.exitCode).toBe(3);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain(bad);
  });
});

describe('cas portfolio: output', () => {
  const files = [fixture('registrar/kfintech-detailed.pdf'), fixture('depository_a/cdsl-cas.pdf')];

  it('a table that fits the terminal, a CSV line per holding, the schema', async () => {
    const [table, csv, json, schema] = await Promise.all([
      cas(['portfolio', '--table', ...PW, ...files], { env: { COLUMNS: '100' } }),
      cas(['portfolio', '--format', 'csv', ...PW, ...files]),
      portfolio(files),
      cas(['schema', 'portfolio']),
    ]);
    expect(table.exitCode, table.stderr).toBe(0);
    const lines = table.stdout.split('\n');
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(100);
    expect(table.stdout).toMatch(/By asset class/);
    expect(table.stdout).toContain('XIRR');
    expect(csv.exitCode, csv.stderr).toBe(0);
    const rows = csv.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^key,kind,account,provider,isin,name,asset_class,units,nav,value,as_of/);
    expect(rows).toHaveLength(json.p.holdings.length + 1);
    expect(schema.exitCode).toBe(0);
    expect(JSON.parse(schema.stdout)).toMatchObject({ title: 'portfolio', type: 'object' });
    const twoFormats = await cas(['portfolio', '--json', '--format', 'csv', ...PW, ...files]);
    expect(twoFormats.exitCode).toBe(2);
  });
});
