/**
 * The layout property suite (issue 16): every statement family is rendered under many seeded
 * layout styles by two independent renderers (pdfkit, and HTML printed by headless Chromium),
 * the built `cas parse` reads each PDF, and each result must equal the expected JSON, which the
 * family builds from the same data (never from a parser).
 *
 * A family is a module in test/layouts/families/ exporting `family: LayoutFamily`.
 */
import { execa } from 'execa';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromiumPath, htmlToPdf, qpdfEncrypt } from '../fixtures/lib/html.js';

export type Renderer = 'pdfkit' | 'chromium';
export const RENDERERS: Renderer[] = ['pdfkit', 'chromium'];

export interface LayoutCase {
  /** renderer 'pdfkit': the PDF bytes. */
  pdf?: Buffer;
  /** renderer 'chromium': a whole HTML document, printed by the harness. */
  html?: string;
  /** Page size in points for the HTML renderer (default A4 portrait). */
  page?: { width: number; height: number };
  /** The PDF's password (the harness encrypts Chromium output with qpdf when one is given). */
  password?: string;
  /** The expected JSON, built from the same data as the document. */
  expected: unknown;
  /** The style actually used (printed when a seed fails). */
  axes: Record<string, unknown>;
}

export interface LayoutFamily {
  id: string;
  /** `--type` for `cas parse`; undefined tests detection too. */
  type?: string;
  make(seed: number, renderer: Renderer): Promise<LayoutCase>;
}

export interface SeedResult {
  family: string;
  renderer: Renderer;
  seed: number;
  ok: boolean;
  /** The first differing paths (`path: got X, want Y`), or the parse error. */
  problems: string[];
  axes: Record<string, unknown>;
  /** Where the failing PDF was kept. */
  pdf?: string;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '../..');
const BIN = path.join(ROOT, 'bin', 'cas.js');
export const KEEP_DIR = path.join(ROOT, 'test-output', 'layouts');

/** Every family module under test/layouts/families, sorted by id. */
export async function loadFamilies(): Promise<LayoutFamily[]> {
  const dir = path.join(HERE, 'families');
  if (!existsSync(dir)) return [];
  const out: LayoutFamily[] = [];
  for (const f of readdirSync(dir).sort()) {
    if (!/\.ts$/.test(f) || f.endsWith('.d.ts')) continue;
    const mod = (await import(pathToFileURL(path.join(dir, f)).href)) as { family?: LayoutFamily; families?: LayoutFamily[] };
    if (mod.family) out.push(mod.family);
    if (mod.families) out.push(...mod.families);
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/** Chromium is a system tool: when it is missing the Chromium half is skipped, naming the tool. */
export function chromiumMissing(): string | null {
  return chromiumPath() ? null : 'chromium (apt-get install chromium)';
}

/** `path: got X, want Y` for the first `limit` differences between two JSON values. */
export function jsonDiff(got: unknown, want: unknown, limit = 8): string[] {
  const out: string[] = [];
  const show = (v: unknown): string => {
    const s = JSON.stringify(v);
    return s === undefined ? 'undefined' : s.length > 90 ? `${s.slice(0, 87)}...` : s;
  };
  const walk = (g: unknown, w: unknown, at: string): void => {
    if (out.length >= limit) return;
    if (Object.is(g, w)) return;
    if (Array.isArray(w) && Array.isArray(g)) {
      if (g.length !== w.length) out.push(`${at || '.'}: ${g.length} items, want ${w.length}`);
      for (let i = 0; i < Math.min(g.length, w.length); i++) walk(g[i], w[i], `${at}[${i}]`);
      return;
    }
    if (w && g && typeof w === 'object' && typeof g === 'object' && !Array.isArray(w) && !Array.isArray(g)) {
      const keys = new Set([...Object.keys(w), ...Object.keys(g)]);
      for (const k of keys) walk((g as Record<string, unknown>)[k], (w as Record<string, unknown>)[k], `${at}.${k}`);
      return;
    }
    out.push(`${at || '.'}: got ${show(g)}, want ${show(w)}`);
  };
  walk(got, want, '');
  return out;
}

export interface RunOptions {
  seeds: number[];
  renderers?: Renderer[];
  /** Parallel `cas` workers (default 2). */
  jobs?: number;
  /** Called as each family/renderer batch finishes. */
  progress?: (msg: string) => void;
}

/**
 * Render every seed, parse them all with the built CLI in one batch per password, compare.
 * Passing seeds leave nothing behind; a failing seed keeps its PDF (and the parse output)
 * under test-output/layouts/<family>/.
 */
export async function runFamily(family: LayoutFamily, renderer: Renderer, o: RunOptions): Promise<SeedResult[]> {
  const work = path.join(os.tmpdir(), `cas-layouts-${family.id}-${renderer}-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    const cases = new Map<number, LayoutCase>();
    const results: SeedResult[] = [];
    const byPassword = new Map<string, string[]>();
    // Chromium prints several seeds at once (each in its own tab); results keep the seeds' order.
    const rendered = await mapLimit(o.seeds, renderer === 'chromium' ? 3 : 1, async (seed) => {
      let c: LayoutCase;
      let pdf: Buffer;
      try {
        c = await family.make(seed, renderer);
        if (renderer === 'chromium') {
          if (!c.html) throw new Error('the family made no HTML for the chromium renderer');
          pdf = await htmlToPdf(c.html, c.page ?? {});
          if (c.password) {
            const enc = qpdfEncrypt(pdf, c.password);
            if (enc) pdf = enc;
          }
        } else {
          if (!c.pdf) throw new Error('the family made no PDF for the pdfkit renderer');
          pdf = c.pdf;
        }
      } catch (err) {
        const failed: SeedResult = {
          family: family.id,
          renderer,
          seed,
          ok: false,
          problems: [`rendering failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`],
          axes: {},
        };
        return { seed, failed };
      }
      return { seed, c, pdf };
    });
    for (const r of rendered) {
      if ('failed' in r) {
        results.push(r.failed!);
        continue;
      }
      const { seed, c, pdf } = r as { seed: number; c: LayoutCase; pdf: Buffer };
      cases.set(seed, c);
      const file = path.join(work, `${family.id}-${renderer}-${seed}.pdf`);
      writeFileSync(file, pdf);
      const key = c.password ?? '';
      byPassword.set(key, [...(byPassword.get(key) ?? []), file]);
    }

    const outDir = path.join(work, 'json');
    const errors = new Map<string, string>();
    for (const [password, files] of byPassword) {
      const args = [
        BIN,
        '--no-input',
        'parse',
        ...(family.type ? ['--type', family.type] : []),
        '--out-dir',
        outDir,
        '--jobs',
        String(o.jobs ?? 2),
        ...files,
      ];
      const env: Record<string, string> = {
        ...(process.env as Record<string, string>),
        CAS_CONFIG_DIR: path.join(work, 'config'),
        NO_COLOR: '1',
      };
      delete env.CAS_PAN;
      delete env.CI;
      if (password) env.CAS_PDF_PASSWORD = password;
      else delete env.CAS_PDF_PASSWORD;
      const r = await execa('node', args, { reject: false, env, extendEnv: false, stdin: 'ignore' });
      // Failures are reported on stderr as `cas: FILE: message`.
      for (const line of String(r.stderr).split('\n')) {
        const m = /^(?:cas|error): (.+?\.pdf): (.*)$/.exec(line);
        if (m) errors.set(path.basename(m[1]), m[2]);
      }
    }

    for (const [seed, c] of cases) {
      const base = `${family.id}-${renderer}-${seed}`;
      const jsonFile = path.join(outDir, `${base}.json`);
      let problems: string[];
      if (existsSync(jsonFile)) {
        const got = JSON.parse(readFileSync(jsonFile, 'utf8')) as unknown;
        problems = jsonDiff(got, c.expected);
      } else {
        problems = [`cas parse failed: ${errors.get(`${base}.pdf`) ?? 'no output'}`];
      }
      const res: SeedResult = { family: family.id, renderer, seed, ok: problems.length === 0, problems, axes: c.axes };
      if (!res.ok) {
        const keep = path.join(KEEP_DIR, family.id);
        mkdirSync(keep, { recursive: true });
        res.pdf = path.join(keep, `${base}.pdf`);
        writeFileSync(res.pdf, readFileSync(path.join(work, `${base}.pdf`)));
        writeFileSync(path.join(keep, `${base}.expected.json`), `${JSON.stringify(c.expected, null, 2)}\n`);
        if (existsSync(jsonFile)) writeFileSync(path.join(keep, `${base}.got.json`), readFileSync(jsonFile));
        writeFileSync(
          path.join(keep, `${base}.txt`),
          [
            `family ${family.id}, renderer ${renderer}, seed ${seed}`,
            `password: ${c.password ?? '(none)'}`,
            `axes: ${JSON.stringify(c.axes)}`,
            ...problems,
          ].join('\n') + '\n',
        );
      }
      results.push(res);
    }
    o.progress?.(`${family.id} / ${renderer}: ${results.filter((r) => r.ok).length}/${results.length} seeds equal their expected JSON`);
    return results.sort((a, b) => a.seed - b.seed);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** One failing seed, as a test or the runner prints it. */
export function describeFailure(r: SeedResult): string {
  return [
    `${r.family} / ${r.renderer} / seed ${r.seed} (reproduce: npm run test:layouts -- --family ${r.family} --renderer ${r.renderer} --seed ${r.seed})`,
    r.pdf ? `  PDF kept at ${path.relative(ROOT, r.pdf)}` : '',
    `  axes: ${JSON.stringify(r.axes)}`,
    ...r.problems.map((p) => `  ${p}`),
  ]
    .filter(Boolean)
    .join('\n');
}

/** Run `fn` over `items` with at most `limit` calls in flight; the answers keep the items' order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}
