/**
 * `cas portfolio --format html` (issue 34): the built `cas` writes the portfolio page for the
 * registrar and depository fixtures; headless Chromium (playwright-core over /usr/bin/chromium)
 * opens it and the test checks that it renders without a console error, a page error or a request
 * that is not file: or data:, that the allocation donut has one slice per asset class and the AMC
 * bars one bar per AMC (counted from the JSON of the same run), that the value and invested lines
 * are drawn, that each holding's XIRR is on the page, and keeps a screenshot in test/artifacts/.
 * Without Chromium the browser half is skipped, naming the tool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { cas, fixture, ROOT, tmpDir } from '../helpers/cas.js';
import { launchChromium, openPage } from '../helpers/chromium.js';
import { Portfolio } from '../../src/schema/portfolio.js';
import { renderPortfolioHtml } from '../../src/cli/render-html.js';

const CHROMIUM = '/usr/bin/chromium';
const noChromium = existsSync(CHROMIUM) ? null : `chromium (${CHROMIUM}; apt-get install chromium)`;
const ARTIFACTS = path.join(ROOT, 'test', 'artifacts');
const FILES = ['registrar/kfintech-detailed.pdf', 'depository_a/cdsl-cas.pdf'].map(fixture);

const rupees = (v: number): string =>
  `${v < 0 ? '-' : ''}₹${Math.abs(v).toLocaleString('en-IN', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

describe('cas portfolio --format html: where the page goes', () => {
  it('on a pipe the page goes to stdout; --json with --format html is a usage error', async () => {
    const piped = await cas(['portfolio', '--format', 'html', '--password', 'ABCPM1234K', FILES[0]]);
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stdout.startsWith('<!doctype html>')).toBe(true);
    const two = await cas(['portfolio', '--json', '--format', 'html', '--password', 'ABCPM1234K', FILES[0]]);
    expect(two.exitCode).toBe(2);
    expect(two.stdout).toBe('');
  });
});

describe.skipIf(Boolean(noChromium))(
  `cas portfolio --format html in headless Chromium${noChromium ? ` (skipped: needs ${noChromium})` : ''}`,
  () => {
    let browser: Browser;
    const dir = tmpDir('cas-portfolio-html-');

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      browser = await launchChromium(CHROMIUM);
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('the portfolio page: allocation by asset class and AMC, value and invested over time, XIRR per holding', async () => {
      const out = path.join(dir, 'portfolio.html');
      const [json, r] = await Promise.all([
        cas(['portfolio', '--json', '--password', 'ABCPM1234K', ...FILES]),
        cas(['portfolio', '--format', 'html', '-o', out, '--password', 'ABCPM1234K', ...FILES]),
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain(`wrote ${out}`);
      const p = Portfolio.parse(JSON.parse(json.stdout));
      const html = readFileSync(out, 'utf8');
      expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; [^"]*">/);
      expect(html).not.toMatch(/<script|<link|<iframe|@import|url\(|\b(src|href)="(?!#)/i);

      const { page, problems } = await openPage(browser, out);
      const text = await page.innerText('body');
      expect(text).toContain(p.investors[0].name);
      expect(text).toContain(rupees(p.totals.value));
      for (const h of p.holdings) expect(text).toContain(rupees(h.value));
      const slices = await page.$$eval('svg.donut path.slice', (els) => els.map((e) => e.getAttribute('data-label')));
      expect(slices).toHaveLength(p.totals.by_asset_class.filter((c) => c.value > 0).length);
      expect(await page.$$eval('svg.bars rect.bar', (els) => els.length)).toBe(p.totals.by_amc.filter((a) => a.value > 0).length);
      // Two lines over time, each with one point per date of the timeline.
      const lines = await page.$$eval('svg.lines path.series', (els) =>
        els.map((e) => [e.getAttribute('data-label'), (e.getAttribute('d') ?? '').split(/[ML]/).length - 1]),
      );
      expect(lines).toEqual([
        ['value', p.timeline.length],
        ['invested', p.timeline.length],
      ]);
      expect(await page.$eval('svg.lines desc', (d) => d.textContent)).toContain(rupees(p.timeline.at(-1)!.value));
      // XIRR per holding: the holdings table has a row per holding, each XIRR written (a percentage or a dash and the reason).
      const rows = await page.$$eval('table', (ts) => {
        const t = ts.find((x) => x.caption?.textContent === 'XIRR per holding')!;
        return [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent ?? ''));
      });
      expect(rows).toHaveLength(p.holdings.length + 1);
      p.holdings.forEach((h, i) => {
        const cell = rows[i].at(-1)!;
        if (h.since_inception.xirr.rate === null) {
          expect(cell).toBe('—');
          expect(rows[i][4]).toBe(h.since_inception.xirr.reason);
        } else expect(cell).toBe(`${(h.since_inception.xirr.rate * 100).toFixed(2)}%`);
      });
      expect(p.holdings.some((h) => h.since_inception.xirr.rate !== null)).toBe(true);
      const aligns = await page.$$eval('td.num', (tds) => [...new Set(tds.map((td) => getComputedStyle(td).textAlign))]);
      expect(aligns).toEqual(['right']);
      await page.screenshot({ path: path.join(ARTIFACTS, 'html-portfolio.png'), fullPage: true });
      await page.close();
      expect(problems).toEqual([]);
    });

    it('escapes every string from the PDFs: a holding named <script>... is text', async () => {
      const r = await cas(['portfolio', '--json', '--password', 'ABCPM1234K', FILES[0]]);
      const p = Portfolio.parse(JSON.parse(r.stdout));
      const evil = `<script>alert(1)</script><img src="https://example.invalid/x.png" onerror="alert(2)">`;
      p.holdings[0].name = evil;
      p.totals.by_amc[0].amc = `"><svg onload=alert(3)>`;
      const file = path.join(dir, 'hostile.html');
      writeFileSync(file, renderPortfolioHtml(p));
      const { page, problems } = await openPage(browser, file);
      expect(await page.innerText('body')).toContain(evil);
      expect(await page.$$eval('script, img, main svg svg', (els) => els.length)).toBe(0);
      await page.close();
      expect(problems).toEqual([]);
    });
  },
);
