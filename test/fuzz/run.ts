/**
 * The fuzz runner: mutated PDFs from every fixture family (fixtures/**\/*.pdf, encrypted ones
 * with their passwords) through the parse core's worker pool and through the built `cas parse`
 * (batches of files: even batches with --jobs on workers, odd ones with --jobs 1, where each small
 * file is parsed in the CLI's own thread under its watchdog). Each must be answered within the
 * budget with a result or a typed error: the runner counts hangs, crashes, unhandled rejections
 * and `Unexpected` codes.
 *
 *   npm run fuzz -- --n 20000 [--seed 7] [--cli 2000] [--jobs 2]
 *
 * Prints one summary line; exits 1 when any of those counts is not zero. test/core/fuzz.test.ts runs
 * the same with n = 3000.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rng } from '../helpers/prng.js';
import { anatomy, mutate, type Anatomy, type MutationKind } from './mutate.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURES = path.join(ROOT, 'fixtures');
/** GNU time (Debian package time), for the `cas parse` batches' peak RSS. */
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

export interface FuzzOptions {
  /** Mutants through the library (the pool). */
  n: number;
  /** Mutants through `cas parse` (default n / 5). */
  cli?: number;
  /** Mutants each read by a `cas parse FILE` process of its own (default cli / 20). */
  single?: number;
  seed?: number;
  jobs?: number;
  /** Every file must be answered within this (ms); the job limit is set below it. */
  budgetMs?: number;
  batch?: number;
  log?: (line: string) => void;
}

export interface FuzzSummary {
  library: number;
  cli: number;
  /** Of `cli`, the files of the batches run one at a time (in the CLI's own thread when small). */
  cliInThread: number;
  /** Mutants read by a `cas parse FILE` process of their own (the one-document tuning of src/core/inline.ts: PDFium in its first tier). */
  single: number;
  /** Of `single`, those answered with a document (the rest with exit 3 and one error line). */
  singleOk: number;
  sources: number;
  hangs: number;
  crashes: number;
  unhandledRejections: number;
  unexpected: number;
  rejectionsCaughtInWorkers: number;
  slowestMs: number;
  /** Peak resident memory (KB) of this process (the library run and its worker threads), and of the largest `cas parse` batch process (GNU time; null without it). */
  peakRssKb: { library: number; cli: number | null };
  outcomes: Record<string, number>;
  problems: string[];
  line: string;
}

interface Source {
  rel: string;
  pdf: Buffer;
  password?: string;
  anatomy: Anatomy;
}

export function sources(): Source[] {
  const manifest = JSON.parse(readFileSync(path.join(FIXTURES, 'manifest.json'), 'utf8')) as { path: string; password: string | null }[];
  const pw = new Map(manifest.map((m) => [m.path, m.password ?? undefined]));
  const sbx = JSON.parse(readFileSync(path.join(FIXTURES, 'sandbox/manifest.json'), 'utf8')) as {
    password: string;
    depository_a: { path: string }[];
    inbox: { path: string }[];
  };
  for (const e of [...sbx.depository_a, ...sbx.inbox]) pw.set(`sandbox/${e.path}`, sbx.password);
  const files = (readdirSync(FIXTURES, { recursive: true }) as string[]).filter((f) => f.endsWith('.pdf')).sort();
  return files.map((rel) => {
    const pdf = readFileSync(path.join(FIXTURES, rel));
    return { rel, pdf, password: pw.get(rel), anatomy: anatomy(pdf) };
  });
}

export function* mutants(src: Source[], n: number, seed: number): Generator<{ i: number; src: Source; kind: MutationKind; pdf: Buffer }> {
  for (let i = 0; i < n; i++) {
    const r = rng(seed * 1_000_003 + i);
    const s = src[i % src.length];
    const m = mutate(s.pdf, s.anatomy, r);
    yield { i, src: s, kind: m.kind, pdf: m.pdf };
  }
}

const count = (h: Record<string, number>, k: string): void => {
  h[k] = (h[k] ?? 0) + 1;
};

export async function fuzz(opts: FuzzOptions): Promise<FuzzSummary> {
  const seed = opts.seed ?? 1;
  const jobs = opts.jobs ?? 2;
  const budgetMs = opts.budgetMs ?? 2000;
  const timeoutMs = budgetMs - 500;
  const cliN = opts.cli ?? Math.round(opts.n / 5);
  const log = opts.log ?? (() => undefined);
  const src = sources();
  const s: FuzzSummary = {
    library: 0,
    cli: 0,
    cliInThread: 0,
    single: 0,
    singleOk: 0,
    sources: src.length,
    hangs: 0,
    crashes: 0,
    unhandledRejections: 0,
    unexpected: 0,
    rejectionsCaughtInWorkers: 0,
    slowestMs: 0,
    peakRssKb: { library: 0, cli: null },
    outcomes: {},
    problems: [],
    line: '',
  };
  // Slow answers are listed up to 20; a crash, an Unexpected or a rejection always (each must be named).
  let slowListed = 0;
  const problem = (p: string): void => {
    if (!/: answered after \d+ ms$/.test(p)) s.problems.push(p);
    else if (slowListed++ < 20) s.problems.push(p);
  };
  const onRejection = (reason: unknown): void => {
    s.unhandledRejections++;
    problem(`unhandled rejection in the runner: ${String((reason as Error)?.message ?? reason)}`);
  };
  process.on('unhandledRejection', onRejection);
  const t0 = performance.now();
  try {
    // 1. The library: the core's pool, `jobs` parses in flight.
    const core = (await import(pathToFileURL(path.join(ROOT, 'dist/core/index.js')).href)) as typeof import('../../src/core/index.js');
    const pool = new core.ParsePool({ size: jobs, limits: { timeoutMs } });
    const it = mutants(src, opts.n, seed);
    const lane = async (): Promise<void> => {
      for (let m = it.next(); !m.done; m = it.next()) {
        const { i, src: from, kind, pdf } = m.value;
        const start = performance.now();
        const o = await pool.run({ bytes: new Uint8Array(pdf), password: from.password });
        const ms = performance.now() - start;
        s.library++;
        s.slowestMs = Math.max(s.slowestMs, ms);
        const code = o.ok ? 'ok' : o.code;
        count(s.outcomes, code);
        const what = `#${i} ${kind} of ${from.rel}`;
        if (ms > budgetMs) {
          s.hangs++;
          problem(`${what}: answered after ${ms.toFixed(0)} ms`);
        }
        if (code === 'WorkerCrashed') {
          s.crashes++;
          problem(`${what}: ${o.ok ? '' : o.message}`);
        }
        if (code === 'Unexpected') {
          s.unexpected++;
          problem(`${what}: Unexpected: ${o.ok ? '' : o.message}`);
        }
        if (s.library % 500 === 0) log(`library: ${s.library}/${opts.n}`);
      }
    };
    await Promise.all(Array.from({ length: jobs }, lane));
    s.rejectionsCaughtInWorkers = pool.stats.rejectionsCaught;
    await pool.close();
    s.peakRssKb.library = process.resourceUsage().maxRSS;

    // 2. The built `cas parse`: batches of files in a folder, --jobs, --out-dir.
    const batch = opts.batch ?? 100;
    const dir = path.join(os.tmpdir(), `cas-fuzz-${process.pid}`);
    const cliIt = mutants(src, cliN, seed + 7919);
    // What every `cas parse` process of the run gets: the job limit, the fixtures' password, its own config.
    const cliEnv = (): NodeJS.ProcessEnv => ({
      ...process.env,
      CAS_PARSE_TIMEOUT: String(timeoutMs / 1000),
      CAS_PDF_PASSWORD: 'ABCPM1234K',
      CAS_CONFIG_DIR: path.join(dir, 'config'),
      NO_COLOR: '1',
    });
    const mutantName = (m: { i: number; kind: MutationKind; src: Source }): string =>
      `m${String(m.i).padStart(6, '0')}-${m.kind}-${path.basename(m.src.rel, '.pdf')}.pdf`;
    for (let b = 0; b * batch < cliN; b++) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(path.join(dir, 'in'), { recursive: true });
      const names: string[] = [];
      for (let k = 0; k < batch; k++) {
        const m = cliIt.next();
        if (m.done) break;
        const name = mutantName(m.value);
        writeFileSync(path.join(dir, 'in', name), m.value.pdf);
        names.push(name);
      }
      // Odd batches one file at a time: small files in the CLI's own thread (src/core/inline.ts).
      const batchJobs = b % 2 === 1 ? 1 : jobs;
      const start = performance.now();
      const r = await new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) => {
        const env = cliEnv();
        const allowed = Math.ceil(names.length / batchJobs) * budgetMs + 10_000;
        const argv = [
          'node',
          path.join(ROOT, 'bin/cas.js'),
          'parse',
          path.join(dir, 'in'),
          '--jobs',
          String(batchJobs),
          '--out-dir',
          path.join(dir, 'out'),
        ];
        // GNU time writes the batch process's peak RSS to a file (stderr stays the CLI's own).
        if (GNU_TIME) argv.unshift(GNU_TIME, '-f', '%M', '-o', path.join(dir, 'rss'));
        execFile(argv[0]!, argv.slice(1), { env, timeout: allowed, maxBuffer: 64 * 1024 * 1024 }, (err, _out, stderr) => {
          const e = err as (Error & { code?: number; signal?: string; killed?: boolean }) | null;
          resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, signal: e?.signal ?? null, stderr: String(stderr) });
        });
      });
      const ms = performance.now() - start;
      s.cli += names.length;
      if (batchJobs === 1) s.cliInThread += names.length;
      if (GNU_TIME && existsSync(path.join(dir, 'rss'))) {
        const kb = Number(readFileSync(path.join(dir, 'rss'), 'utf8').trim().split('\n').at(-1));
        if (Number.isFinite(kb)) s.peakRssKb.cli = Math.max(s.peakRssKb.cli ?? 0, kb);
      }
      const what = `cas parse batch ${b} (${names.length} files, --jobs ${batchJobs})`;
      if (r.signal || r.code === null) {
        s.hangs++;
        problem(`${what}: killed after ${ms.toFixed(0)} ms (${r.signal})`);
        continue;
      }
      if (![0, 1, 3].includes(r.code)) {
        s.crashes++;
        problem(`${what}: exit ${r.code}: ${r.stderr.slice(-300)}`);
      }
      if (/\n\s+at |Unhandled|node:internal|uncaught/i.test(r.stderr)) {
        s.unhandledRejections++;
        problem(`${what}: stack trace on stderr: ${r.stderr.slice(0, 300)}`);
      }
      const lines = r.stderr.trim().split('\n');
      const summary = lines.at(-1) ?? '';
      const m = /^(\d+) of (\d+) files parsed/.exec(summary);
      if (!m || Number(m[2]) !== names.length) {
        s.crashes++;
        problem(`${what}: no summary for every file: ${summary}`);
        continue;
      }
      const okN = Number(m[1]);
      for (let k = 0; k < okN; k++) count(s.outcomes, 'ok');
      for (const f of summary.matchAll(/\(([A-Za-z]+)\)/g)) {
        count(s.outcomes, f[1]);
        if (f[1] === 'Unexpected') s.unexpected++;
        if (f[1] === 'WorkerCrashed') s.crashes++;
      }
      const errors = lines.filter((l) => /^(cas|error): /.test(l)).length;
      if (errors !== names.length - okN) problem(`${what}: ${errors} error lines for ${names.length - okN} failures`);
      if (r.code === 1 && !/\((Unexpected|WorkerCrashed|NotReadable)\)/.test(summary)) {
        // Mixed exit codes answer 1; that is fine only when the files' own codes differ.
        const codes = new Set([...summary.matchAll(/\(([A-Za-z]+)\)/g)].map((x) => x[1]));
        if (!codes.size) problem(`${what}: exit 1 with no failed file`);
      }
      log(`cas parse: ${s.cli}/${cliN}`);
    }

    // 3. One file per process (`cas parse FILE`, `jobs` processes at once): the process a user's
    // one statement gets, tuned for one document (src/core/inline.ts).
    const singleN = opts.single ?? Math.ceil(cliN / 20);
    const singleIt = mutants(src, singleN, seed + 104_729);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const singleLane = async (): Promise<void> => {
      for (let m = singleIt.next(); !m.done; m = singleIt.next()) {
        const file = path.join(dir, mutantName(m.value));
        writeFileSync(file, m.value.pdf);
        const start = performance.now();
        const r = await new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
          const env = cliEnv();
          execFile(
            'node',
            [path.join(ROOT, 'bin/cas.js'), 'parse', file, '--json'],
            { env, timeout: budgetMs + 10_000, maxBuffer: 64 * 1024 * 1024 },
            (err, stdout, stderr) => {
              const e = err as (Error & { code?: number; signal?: string }) | null;
              resolve({
                code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
                signal: e?.signal ?? null,
                stdout: String(stdout),
                stderr: String(stderr),
              });
            },
          );
        });
        const ms = performance.now() - start;
        s.single++;
        const what = `cas parse ${path.basename(file)}`;
        if (r.signal || r.code === null) {
          s.hangs++;
          problem(`${what}: killed after ${ms.toFixed(0)} ms (${r.signal})`);
          continue;
        }
        if (/\n\s+at |Unhandled|node:internal|uncaught/i.test(r.stderr)) {
          s.unhandledRejections++;
          problem(`${what}: stack trace on stderr: ${r.stderr.slice(0, 300)}`);
        }
        if (r.code === 0) {
          try {
            JSON.parse(r.stdout);
            s.singleOk++;
          } catch {
            s.crashes++;
            problem(`${what}: exit 0 without one JSON document on stdout`);
          }
        } else if (r.code !== 3 || r.stdout !== '' || !/^cas: [^\n]+: [^\n]+$/.test(r.stderr.trim())) {
          s.crashes++;
          problem(`${what}: exit ${r.code}: ${r.stderr.slice(-300)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: jobs }, singleLane));
    log(`cas parse FILE: ${s.single}/${singleN}`);
    rmSync(dir, { recursive: true, force: true });
  } finally {
    process.off('unhandledRejection', onRejection);
  }
  const secs = ((performance.now() - t0) / 1000).toFixed(0);
  const outcomes = Object.entries(s.outcomes)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  s.line = `fuzz seed ${seed}: ${s.library + s.cli} mutants of ${s.sources} fixtures (library ${s.library}, cas parse ${s.cli}, of them ${s.cliInThread} one at a time in its own thread; ${s.single} one per process, ${s.singleOk} of them read) in ${secs} s: ${s.hangs} hangs, ${s.crashes} crashes, ${s.unhandledRejections} unhandled rejections, ${s.unexpected} Unexpected; slowest library answer ${s.slowestMs.toFixed(0)} ms (budget ${budgetMs}); peak RSS ${s.peakRssKb.library} KB (library process), ${s.peakRssKb.cli === null ? 'n/a (no GNU time)' : `${s.peakRssKb.cli} KB`} (largest cas parse batch); ${s.rejectionsCaughtInWorkers} engine rejections caught in workers; outcomes: ${outcomes}`;
  return s;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const n = Number(arg('n') ?? 3000);
  const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));
  fuzz({
    n,
    cli: num(arg('cli')),
    seed: num(arg('seed')),
    jobs: num(arg('jobs')),
    single: num(arg('single')),
    budgetMs: num(arg('budget-ms')),
    log: (l) => process.stderr.write(`${l}\n`),
  }).then(
    (s) => {
      for (const p of s.problems) process.stderr.write(`problem: ${p}\n`);
      process.stdout.write(`${s.line}\n`);
      process.exit(s.hangs || s.crashes || s.unhandledRejections || s.unexpected ? 1 : 0);
    },
    (err: unknown) => {
      process.stderr.write(`fuzz: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
