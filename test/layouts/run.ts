/**
 * `npm run test:layouts -- [--seeds N] [--from S] [--family ID]... [--renderer pdfkit|chromium] [--seed K]...`
 * Runs the layout property suite outside vitest, with as many seeds as asked, and prints one line
 * per family and renderer plus every failing seed. Exit 1 when any seed fails.
 */
import { closeBrowser } from '../fixtures/lib/html.js';
import { chromiumMissing, describeFailure, loadFamilies, RENDERERS, runFamily, type Renderer, type SeedResult } from './harness.js';

function args(argv: string[]): { seeds: number[]; families: string[]; renderers: Renderer[]; jobs: number } {
  let n = 100;
  let from = 1;
  const explicit: number[] = [];
  const families: string[] = [];
  const renderers: Renderer[] = [];
  let jobs = 2;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = (): string => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${a} needs a value`);
      return x;
    };
    if (a === '--seeds') n = Number(v());
    else if (a === '--from') from = Number(v());
    else if (a === '--seed') explicit.push(...v().split(',').map(Number));
    else if (a === '--family') families.push(...v().split(','));
    else if (a === '--renderer') renderers.push(v() as Renderer);
    else if (a === '--jobs') jobs = Number(v());
    else if (a === '--help' || a === '-h') {
      process.stdout.write(
        'usage: npm run test:layouts -- [--seeds N] [--from S] [--seed K[,K]] [--family ID[,ID]] [--renderer pdfkit|chromium] [--jobs N]\n',
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  if (!Number.isInteger(n) || n < 1) throw new Error('--seeds takes a whole number of 1 or more');
  for (const r of renderers) if (!(RENDERERS as string[]).includes(r)) throw new Error(`--renderer is pdfkit or chromium, not ${r}`);
  const seeds = explicit.length ? explicit : Array.from({ length: n }, (_, i) => from + i);
  return { seeds, families, renderers: renderers.length ? renderers : RENDERERS, jobs };
}

async function main(): Promise<number> {
  const o = args(process.argv.slice(2));
  const all = await loadFamilies();
  const chosen = o.families.length ? all.filter((f) => o.families.includes(f.id)) : all;
  if (!chosen.length) throw new Error(`no such family; known: ${all.map((f) => f.id).join(', ')}`);
  const missing = chromiumMissing();
  const failures: SeedResult[] = [];
  const lines: string[] = [];
  const t0 = Date.now();
  for (const f of chosen) {
    for (const r of o.renderers) {
      if (r === 'chromium' && missing) {
        lines.push(`${f.id} / chromium: skipped (needs ${missing})`);
        process.stderr.write(`${lines[lines.length - 1]}\n`);
        continue;
      }
      const t = Date.now();
      const res = await runFamily(f, r, { seeds: o.seeds, jobs: o.jobs });
      const bad = res.filter((x) => !x.ok);
      failures.push(...bad);
      lines.push(
        `${f.id} / ${r}: ${res.length - bad.length}/${res.length} seeds pass, ${bad.length} fail${bad.length ? ` (seeds ${bad.map((b) => b.seed).join(', ')})` : ''} [${((Date.now() - t) / 1000).toFixed(0)} s]`,
      );
      process.stderr.write(`${lines[lines.length - 1]}\n`);
    }
  }
  closeBrowser();
  for (const f of failures.slice(0, 40)) process.stdout.write(`${describeFailure(f)}\n\n`);
  if (failures.length > 40)
    process.stdout.write(`... and ${failures.length - 40} more failing seeds (each kept under test-output/layouts/)\n`);
  process.stdout.write(`${lines.join('\n')}\n`);
  process.stdout.write(`layout suite: ${failures.length} failing seed(s) in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  return failures.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`test:layouts: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
