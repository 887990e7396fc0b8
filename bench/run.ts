/**
 * `npm run bench`: the speed figures of issue 19, each as a ratio to its peers measured in the same
 * run: cold `cas parse` (whole process) on 1 to 500-page registrar statements with both PDF engines
 * and the reference parser (CAS_BENCH_PEER), warm parse per page, `cas serve` parses/s, a batch with
 * one and two workers, `cas --help` and /v1/credits, with peak RSS for each; and (issue 22) the serve
 * figures on PostgreSQL with one and two instances beside SQLite's. A script, not a test: it prints a
 * table and writes bench/out/results.json. See bench/README.md.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { engineFromSigns } from './probe.mjs';
import { batchOf, statementOf, statementsDir } from './statements.js';
import { pgBinDir, startCluster } from '../test/helpers/pg.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'cas.js');
const PROBE = path.join(ROOT, 'bench', 'probe.mjs');
const NODE = process.execPath;
const ENGINES = ['pdfium', 'pdfjs'] as const;
type Engine = (typeof ENGINES)[number];
const SECTIONS = ['help', 'cold', 'warm', 'sections', 'serve', 'batch', 'postgres'] as const;
const TIME = '/usr/bin/time';

const USAGE = `usage: npm run bench -- [--quick] [--runs N] [--runs-large N] [--sizes 1,3,20,100,500] [--only ${SECTIONS.join(',')}] [--out DIR]
  --quick         a short run (about 2 minutes): fewer runs, no 500-page statement, shorter load runs
  --runs N        timed runs of each cold command under 100 pages (default 5; --quick 3), after one untimed run
  --runs-large N  the same for 100 pages and more (default 3; --quick 1)
  --sizes LIST    statement sizes in pages for the cold parses (default 1,3,20,100,500; --quick 1,3,20,100)
  --only LIST     run only these sections (default all)
  --warm-pages N  the statement size of the warm parse (default 20)
  --out DIR       where statements, scratch files and results.json go (default bench/out)
  (postgres: the serve figures on a throwaway PostgreSQL cluster, one and two instances; skipped without PostgreSQL)
env: CAS_BENCH_PEER=DIR  a peer built with ../shared/peer/build.sh DIR: its run-casparser.sh is timed on the same files`;

// ---------------------------------------------------------------- options

const { values: argv } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    'runs-large': { type: 'string' },
    sizes: { type: 'string' },
    only: { type: 'string' },
    out: { type: 'string' },
    'warm-pages': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (argv.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
function positive(name: string, raw: string | undefined, dflt: number): number {
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) usage(`${name} must be a whole number >= 1, not ${raw}`);
  return n;
}
function usage(msg: string): never {
  process.stderr.write(`bench: ${msg}\n${USAGE}\n`);
  process.exit(2);
}
const QUICK = argv.quick;
const OPTS = {
  quick: QUICK,
  runs: positive('--runs', argv.runs, QUICK ? 3 : 5),
  runsLarge: positive('--runs-large', argv['runs-large'], QUICK ? 1 : 3),
  sizes: (argv.sizes ?? (QUICK ? '1,3,20,100' : '1,3,20,100,500')).split(',').map((s) => positive('--sizes', s.trim(), 1)),
  only: new Set((argv.only ?? SECTIONS.join(',')).split(',').map((s) => s.trim())),
  serveSeconds: QUICK ? 3 : 10,
  batchRuns: QUICK ? 1 : 3,
  warm: QUICK ? { rounds: 2, warmup: 3, runs: 8 } : { rounds: 4, warmup: 5, runs: 12 },
  sections: QUICK ? { warmup: 3, runs: 7 } : { warmup: 8, runs: 21 },
  warmPages: positive('--warm-pages', argv['warm-pages'], 20),
};
for (const s of OPTS.only) if (!(SECTIONS as readonly string[]).includes(s)) usage(`unknown section ${s}`);
if ([...OPTS.sizes, OPTS.warmPages].some((s) => s > 500)) usage('sizes above 500 pages exceed the parser default page limit');
const OUT = path.resolve(argv.out ?? path.join(ROOT, 'bench', 'out'));
const SCRATCH = path.join(OUT, 'scratch');

// ---------------------------------------------------------------- helpers

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
const say = (msg: string): boolean => process.stderr.write(`bench: ${msg}\n`);

/** The environment of every measured process: no inherited CAS_* settings, an empty config dir. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CAS_') && k !== 'NODE_OPTIONS') out[k] = v;
  return { ...out, CAS_CONFIG_DIR: path.join(SCRATCH, 'config'), ...extra };
}

interface Cmd {
  label: string;
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}
interface Run {
  ms: number;
  rss_mb: number | null;
  status: number | null;
  stdout: string;
  stderr: string;
}

const HAVE_TIME = existsSync(TIME);
/** One whole process: wall time from here, peak RSS from the kernel (GNU time's %M, in KiB). */
function runOnce(cmd: Cmd, capture = false): Run {
  const rssFile = path.join(SCRATCH, 'rss.txt');
  rmSync(rssFile, { force: true });
  const [file, args] = HAVE_TIME ? [TIME, ['-f', '%M', '-o', rssFile, cmd.file, ...cmd.args]] : [cmd.file, cmd.args];
  const t0 = performance.now();
  const r: SpawnSyncReturns<string> = spawnSync(file, args, {
    env: cmd.env,
    encoding: 'utf8',
    stdio: ['ignore', capture ? 'pipe' : 'ignore', 'pipe'],
    maxBuffer: 1 << 30,
  });
  const ms = performance.now() - t0;
  let rss: number | null = null;
  if (HAVE_TIME && existsSync(rssFile)) {
    const last = readFileSync(rssFile, 'utf8').trim().split('\n').pop() ?? '';
    if (/^\d+$/.test(last)) rss = Number(last) / 1024;
  }
  return { ms, rss_mb: rss, status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

interface Timing {
  ms: number;
  runs: number;
  rss_mb: number | null;
  all_ms: number[];
}
/** N timed runs of each command, interleaved (A B C A B C ...) so machine noise hits all alike. */
function interleaved(cmds: Cmd[], runs: number): Timing[] {
  const ms: number[][] = cmds.map(() => []);
  const rss: number[][] = cmds.map(() => []);
  for (let i = 0; i < runs; i++)
    cmds.forEach((c, k) => {
      const r = runOnce(c);
      if (r.status !== 0) throw new Error(`${c.label} failed (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
      ms[k].push(r.ms);
      if (r.rss_mb !== null) rss[k].push(r.rss_mb);
    });
  return cmds.map((_, k) => ({ ms: median(ms[k]), runs, rss_mb: rss[k].length ? median(rss[k]) : null, all_ms: ms[k] }));
}

/** A / B as the median of the ratios run by run (the runs were interleaved, so each pair saw the same machine). */
function ratio(a: Timing, b: Timing): number {
  return median(a.all_ms.map((ms, i) => ms / b.all_ms[i]));
}

/** How many `transactions` entries a JSON document holds, at any depth (cas and casparser both name them so). */
function countTransactions(json: unknown): number {
  if (Array.isArray(json)) return json.reduce((n: number, x) => n + countTransactions(x), 0);
  if (!json || typeof json !== 'object') return 0;
  let n = 0;
  for (const [k, v] of Object.entries(json)) n += k === 'transactions' && Array.isArray(v) ? v.length : countTransactions(v);
  return n;
}

const casCmd = (engine: Engine, args: string[], extra: Record<string, string> = {}): Cmd => ({
  label: `cas ${args[0]} (${engine})`,
  file: NODE,
  args: [BIN, ...args],
  env: env({ CAS_PDF_ENGINE: engine, ...extra }),
});

/** Which engine a `cas` process actually used when asked for `engine` (one untimed run with the probe). */
function probeCas(engine: Engine, file: string): string {
  const probeFile = path.join(SCRATCH, `probe-${engine}.txt`);
  rmSync(probeFile, { force: true });
  const r = spawnSync(NODE, ['--import', PROBE, BIN, 'parse', file], {
    env: env({ CAS_PDF_ENGINE: engine, CAS_BENCH_PROBE: probeFile }),
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`cas parse with CAS_PDF_ENGINE=${engine} failed (exit ${r.status}): ${r.stderr.trim()}`);
  return engineFromSigns(existsSync(probeFile) ? readFileSync(probeFile, 'utf8').split('\n').filter(Boolean) : []);
}

// ---------------------------------------------------------------- the peer

interface Peer {
  dir: string;
  runner: string;
  version: string | null;
}
function findPeer(): Peer | { error: string } | null {
  const dir = process.env.CAS_BENCH_PEER;
  if (!dir) return null;
  const runner = path.join(path.resolve(dir), 'run-casparser.sh');
  if (!existsSync(runner)) return { error: `CAS_BENCH_PEER=${dir} has no run-casparser.sh (build it with ../shared/peer/build.sh ${dir})` };
  const v = spawnSync(path.join(path.resolve(dir), 'bin', 'python'), ['-c', 'import casparser; print(casparser.__version__)'], {
    encoding: 'utf8',
  });
  return { dir: path.resolve(dir), runner, version: v.status === 0 ? v.stdout.trim() : null };
}
const NOT_MEASURED = 'not measured (set CAS_BENCH_PEER)';
/** The encrypted statement's password (user and owner). */
const BENCH_PASSWORD = 'ABCPM1234K';

// ---------------------------------------------------------------- report

type Row = [what: string, figure: string, target?: string];
const table: { title: string; rows: Row[] }[] = [];
function section(title: string): Row[] {
  const rows: Row[] = [];
  table.push({ title, rows });
  return rows;
}
const fmtMs = (ms: number): string => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);
const fmtMb = (mb: number | null): string => (mb === null ? 'RSS n/a' : `${mb.toFixed(0)} MB`);
const x = (r: number): string => `${r.toFixed(2)}x`;

/** The engine that actually ran for each requested one (from the probes), and whether pdfium ran at all. */
const ran: Partial<Record<Engine, string>> = {};
const pdfiumRan = (): boolean => ran.pdfium === 'pdfium';
/** A verdict against a target; n/a while the PDFium engine is not in the build (its rows then measure pdf.js). */
function verdict(ok: boolean, needsPdfium = true): string {
  if (needsPdfium && !pdfiumRan()) return 'n/a: pdfium did not run';
  return ok ? 'met' : 'MISSED';
}

// ---------------------------------------------------------------- sections

const results: Record<string, unknown> = {
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? null, node: process.version, loadavg_at_start: os.loadavg() },
  at: new Date().toISOString(),
  options: { quick: OPTS.quick, runs: OPTS.runs, runs_large: OPTS.runsLarge, sizes: OPTS.sizes, sections: [...OPTS.only] },
};

function helpSection(): void {
  const [t] = interleaved([{ label: 'cas --help', file: NODE, args: [BIN, '--help'], env: env() }], Math.max(OPTS.runs, 5) + 2);
  results.help = { ms: t.ms, rss_mb: t.rss_mb, runs: t.runs };
  section('cas --help').push([
    'cas --help, whole process',
    `${fmtMs(t.ms)}, ${fmtMb(t.rss_mb)}`,
    `< 150 ms: ${verdict(t.ms < 150, false)}`,
  ]);
}

async function coldSection(peer: Peer | { error: string } | null): Promise<void> {
  const rows = section('cold cas parse, whole process (median wall, median peak RSS)');
  const cold: unknown[] = [];
  results.cold = cold;
  // Each size, then the 3-page statement encrypted with AES-256 (what registrars send; qpdf encrypts it).
  const cases: { target: number; aes?: boolean }[] = OPTS.sizes.map((target) => ({ target }));
  if (OPTS.sizes.includes(3)) cases.push({ target: 3, aes: true });
  for (const { target, aes } of cases) {
    let st = await statementOf(ROOT, OUT, target);
    if (aes) {
      const file = st.file.replace(/\.pdf$/, '-aes256.pdf');
      const q = spawnSync('qpdf', ['--encrypt', BENCH_PASSWORD, BENCH_PASSWORD, '256', '--', st.file, file], { encoding: 'utf8' });
      if (q.error || q.status !== 0) {
        rows.push([
          `${st.pages} pages, AES-256`,
          `not measured: qpdf ${q.error ? 'not found (Debian package qpdf)' : `failed: ${q.stderr.trim()}`}`,
        ]);
        continue;
      }
      st = { ...st, file };
    }
    const runs = target >= 100 ? OPTS.runsLarge : OPTS.runs;
    say(`cold parse, ${st.pages} page(s)${aes ? ', AES-256' : ''}, ${runs} run(s) each`);
    const pw: Record<string, string> = aes ? { CAS_PDF_PASSWORD: BENCH_PASSWORD } : {};
    const cmds: Cmd[] = ENGINES.map((e) => casCmd(e, ['parse', st.file], pw));
    const entry: Record<string, unknown> = {
      target_pages: target,
      pages: st.pages,
      aes256: Boolean(aes),
      file: path.relative(ROOT, st.file),
      runs,
    };
    // One untimed run of each (disk cache, and the check that each reads the statement).
    const txs = cmds.map((c) => {
      const r = runOnce(c, true);
      if (r.status !== 0) throw new Error(`${c.label} failed on ${st.file} (exit ${r.status}): ${r.stderr.trim()}`);
      return countTransactions(JSON.parse(r.stdout));
    });
    const casTx = txs[0];
    if (txs.some((n) => n !== casTx))
      throw new Error(`the engines read different statements from ${st.file}: ${txs.join(' vs ')} transactions`);
    entry.transactions = casTx;
    let peerNote: string | null = null;
    if (peer && 'runner' in peer) {
      const pc: Cmd = { label: 'casparser', file: peer.runner, args: aes ? [st.file, BENCH_PASSWORD] : [st.file], env: env() };
      const r = runOnce(pc, true);
      let tx: number;
      try {
        tx = r.status === 0 ? countTransactions(JSON.parse(r.stdout)) : -1;
      } catch {
        tx = -1;
      }
      if (r.status !== 0 || tx < 0) {
        peerNote = `failed: exit ${r.status}, ${(r.stderr.trim().split('\n').pop() ?? '').slice(0, 120)}`;
      } else {
        cmds.push(pc);
        if (tx !== casTx) peerNote = `peer reads ${tx} transactions, cas ${casTx}`;
      }
      entry.peer_check = { status: r.status, transactions: tx, note: peerNote };
    }
    const t = interleaved(cmds, runs);
    const [pdfium, pdfjs, peerT] = t;
    entry.pdfium = { ...pdfium, ran: ran.pdfium };
    entry.pdfjs = { ...pdfjs, ran: ran.pdfjs };
    const vsPdfjs = ratio(pdfium, pdfjs);
    const ratios: Record<string, number> = { pdfium_vs_pdfjs: vsPdfjs };
    const label = `${st.pages} page${st.pages === 1 ? '' : 's'}${aes ? ', AES-256' : ''}`;
    // Issue 36: a small statement in under 80 MiB.
    const rssTarget = st.pages <= 3 ? `RSS < 80 MiB: ${verdict(pdfium.rss_mb !== null && pdfium.rss_mb < 80)}` : undefined;
    rows.push([`${label}: pdfium`, `${fmtMs(pdfium.ms)}, ${fmtMb(pdfium.rss_mb)}`, rssTarget]);
    rows.push([`${label}: pdf.js`, `${fmtMs(pdfjs.ms)}, ${fmtMb(pdfjs.rss_mb)}`]);
    const tgt = st.pages >= 20 ? 0.5 : st.pages <= 1 ? 0.8 : null;
    rows.push([`${label}: pdfium / pdf.js`, x(vsPdfjs), tgt ? `< ${tgt}x: ${verdict(vsPdfjs < tgt)}` : undefined]);
    if (!peer) {
      entry.peer = NOT_MEASURED;
      rows.push([`${label}: casparser`, NOT_MEASURED]);
    } else if ('error' in peer || !peerT) {
      entry.peer = 'error' in peer ? peer.error : peerNote;
      rows.push([`${label}: casparser`, `not measured: ${'error' in peer ? peer.error : peerNote}`]);
    } else {
      entry.peer = peerT;
      ratios.pdfium_vs_peer = ratio(pdfium, peerT);
      ratios.pdfjs_vs_peer = ratio(pdfjs, peerT);
      rows.push([`${label}: casparser`, `${fmtMs(peerT.ms)}, ${fmtMb(peerT.rss_mb)}${peerNote ? ` (${peerNote})` : ''}`]);
      rows.push([`${label}: cas (pdfium) / casparser`, x(ratios.pdfium_vs_peer), `<= 1.00x: ${verdict(ratios.pdfium_vs_peer <= 1)}`]);
      rows.push([`${label}: cas (pdf.js) / casparser`, x(ratios.pdfjs_vs_peer)]);
    }
    entry.ratios = ratios;
    cold.push(entry);
  }
}

/**
 * Issue 31: what the section readers add to reading the document. Every shipped statement and
 * contract note (fixtures/manifest.json) and the 20-page registrar statement, in one warm process
 * (bench/sections-child.mjs, PDFium): `raw` is opening the PDF into the document model (its
 * lines), `parse` the same plus detection and every section reader; the ratio parse / raw, the
 * median of the round-by-round ratios, must stay <= 1.30x for every file.
 */
async function sectionsSection(): Promise<void> {
  const st = await statementOf(ROOT, OUT, OPTS.warmPages);
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'fixtures', 'manifest.json'), 'utf8')) as {
    path: string;
    kind: string;
    password?: string | null;
  }[];
  const specs = [
    ...manifest
      .filter((m) => m.kind !== 'bad' && !m.path.startsWith('encrypted/'))
      .map((m) => `${path.join(ROOT, 'fixtures', m.path)}::${m.password ?? ''}`),
    `${st.file}::${BENCH_PASSWORD}`,
  ];
  say(`parse against raw document model, ${specs.length} files`);
  const r = spawnSync(
    NODE,
    [path.join(ROOT, 'bench', 'sections-child.mjs'), 'pdfium', String(OPTS.sections.warmup), String(OPTS.sections.runs), ...specs],
    {
      env: env(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (r.status !== 0) throw new Error(`sections bench failed (exit ${r.status}): ${r.stderr.trim()}`);
  const o = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as {
    files: { file: string; pages: number; type: string | null; raw_ms: number[]; parse_ms: number[] }[];
  };
  const files = o.files.map((f) => ({
    file: path.relative(ROOT, f.file),
    type: f.type,
    pages: f.pages,
    raw_ms: median(f.raw_ms),
    parse_ms: median(f.parse_ms),
    ratio: median(f.parse_ms.map((ms, i) => ms / f.raw_ms[i])),
  }));
  const worst = Math.max(...files.map((f) => f.ratio));
  results.sections = { engine: ran.pdfium, runs: OPTS.sections.runs, files, worst };
  const rows = section(
    `parse / raw in one warm process (PDFium; raw: the document model; median of ${OPTS.sections.runs} interleaved rounds)`,
  );
  for (const f of files)
    rows.push([
      `${f.file} (${f.type ?? 'not detected'}, ${f.pages} p.)`,
      `raw ${f.raw_ms.toFixed(1)} ms, parse ${f.parse_ms.toFixed(1)} ms: ${x(f.ratio)}`,
      `<= 1.30x: ${verdict(f.ratio <= 1.3)}`,
    ]);
}

async function warmSection(): Promise<void> {
  const st = await statementOf(ROOT, OUT, OPTS.warmPages);
  say(`warm parse, ${st.pages} pages`);
  const per: Record<Engine, { ms: number[]; rss: number[]; ran: string; rounds: number[] }> = {
    pdfium: { ms: [], rss: [], ran: '', rounds: [] },
    pdfjs: { ms: [], rss: [], ran: '', rounds: [] },
  };
  // Rounds of one process per engine, in turn (A B A B ...): the speed-up is the median of the
  // rounds' ratios, so a drift of the shared machine's speed between rounds does not move it.
  for (let round = 0; round < OPTS.warm.rounds; round++)
    for (const e of ENGINES) {
      const r = spawnSync(
        NODE,
        [path.join(ROOT, 'bench', 'warm-child.mjs'), st.file, e, String(OPTS.warm.warmup), String(OPTS.warm.runs)],
        {
          env: env(),
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      if (r.status !== 0) throw new Error(`warm parse (${e}) failed (exit ${r.status}): ${r.stderr.trim()}`);
      const o = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as {
        ms: number[];
        rss_mb: number;
        ran: string;
        cas_type: string | null;
      };
      if (!o.cas_type) throw new Error(`warm parse (${e}) did not read the statement`);
      per[e].ms.push(...o.ms);
      per[e].rounds.push(median(o.ms));
      per[e].rss.push(o.rss_mb);
      per[e].ran = o.ran;
    }
  const fig = (e: Engine) => ({
    ms: median(per[e].ms),
    ms_per_page: median(per[e].ms) / st.pages,
    rss_mb: Math.max(...per[e].rss),
    ran: per[e].ran,
    runs: per[e].ms.length,
  });
  const w = { pages: st.pages, pdfium: fig('pdfium'), pdfjs: fig('pdfjs'), speedup: 0, round_speedups: [] as number[] };
  w.round_speedups = per.pdfium.rounds.map((ms, i) => per.pdfjs.rounds[i] / ms);
  w.speedup = median(w.round_speedups);
  results.warm = w;
  const rows = section(
    `warm parse in one process (open + parse, ${st.pages} pages, median of ${w.pdfium.runs} after a warm-up; speed-up: median of ${OPTS.warm.rounds} rounds' ratios)`,
  );
  for (const e of ENGINES)
    rows.push([
      `${e === 'pdfjs' ? 'pdf.js' : e}${w[e].ran !== e ? ` (ran: ${w[e].ran})` : ''}`,
      `${w[e].ms_per_page.toFixed(2)} ms/page (${fmtMs(w[e].ms)}), peak RSS ${fmtMb(w[e].rss_mb)}`,
    ]);
  rows.push([
    'pdfium speed-up over pdf.js',
    x(w.speedup),
    `>= 2.5x: ${w.pdfium.ran === 'pdfium' ? (w.speedup >= 2.5 ? 'met' : 'MISSED') : 'n/a: pdfium did not run'}`,
  ]);
}

interface Load {
  rps: number;
  p99: number;
  non2xx: number;
  /** The status codes answered (autocannon's statusCodeStats), to name what a failed run got. */
  codes?: string;
  errors: number;
  /** Requests answered in the run. */
  total: number;
}
/** Where a server keeps its data: its own SQLite file (no args), or a shared database (`--database URL --files-dir DIR` and the secret key). */
interface Store {
  args: string[];
  env: Record<string, string>;
}
const SQLITE: Store = { args: [], env: {} };

/** An unlimited API key made with `cas serve keys create` in the data folder `dataDir` on `store`. */
function createKey(dataDir: string, store: Store): string {
  const made = spawnSync(NODE, [BIN, 'serve', 'keys', 'create', '--unlimited', '--data-dir', dataDir, ...store.args, '--json'], {
    env: env(store.env),
    encoding: 'utf8',
  });
  if (made.status !== 0) throw new Error(`cas serve keys create failed: ${made.stderr}`);
  return (JSON.parse(made.stdout) as { api_key: string }).api_key;
}

interface Server {
  url: string;
  key: string;
  pid: number;
  stop: () => Promise<{ rss_mb: number | null; ran: string }>;
}
/**
 * A `cas serve` with CAS_PDF_ENGINE=engine in the data folder `svc-<name>` on `store` (SQLite there by
 * default), with `key` or a new unlimited one; returns its URL, API key, a stop() that answers its
 * peak RSS, and the engine it ran.
 */
async function startServer(engine: Engine, o: { name?: string; store?: Store; key?: string } = {}): Promise<Server> {
  const name = o.name ?? engine;
  const store = o.store ?? SQLITE;
  const dataDir = path.join(SCRATCH, `svc-${name}`);
  rmSync(dataDir, { recursive: true, force: true });
  const key = o.key ?? createKey(dataDir, store);
  const probeFile = path.join(SCRATCH, `probe-serve-${name}.txt`);
  rmSync(probeFile, { force: true });
  const proc = spawn(NODE, ['--import', PROBE, BIN, 'serve', '--port', '0', '--data-dir', dataDir, ...store.args], {
    // Throughput is measured, not the per-key guards: the upload caps and the failed-parse and body-rate limits are lifted.
    env: env({
      CAS_PDF_ENGINE: engine,
      CAS_BENCH_PROBE: probeFile,
      CAS_MAX_UPLOADS: '64',
      CAS_MAX_UPLOADS_PER_KEY: '64',
      CAS_MAX_FAILED_PARSES: '0',
      CAS_BODY_MIN_RATE: '0',
      ...store.env,
    }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer): void => {
      buf += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(buf);
      if (!m) return;
      // From here on the request log is only drained, never kept or scanned.
      proc.stderr.off('data', onData);
      proc.stderr.resume();
      resolve(m[1]);
    };
    proc.stderr.on('data', onData);
    void exited.then(() => reject(new Error(`cas serve exited before it listened: ${buf}`)));
  });
  const stop = async (): Promise<{ rss_mb: number | null; ran: string }> => {
    let rss: number | null = null;
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'));
      if (m) rss = Number(m[1]) / 1024;
    } catch {
      rss = null;
    }
    proc.kill('SIGTERM');
    await exited;
    return { rss_mb: rss, ran: engineFromSigns(existsSync(probeFile) ? readFileSync(probeFile, 'utf8').split('\n').filter(Boolean) : []) };
  };
  return { url, key, pid: proc.pid!, stop };
}

async function load(url: string, key: string, opts: { connections: number; duration: number; body: string }): Promise<Load> {
  const autocannon = (await import('autocannon')).default;
  const res = await new Promise<any>((resolve, reject) =>
    autocannon(
      { url, method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, ...opts },
      (err: Error | null, r: any) => (err ? reject(err) : resolve(r)),
    ),
  );
  return {
    rps: res.requests.average,
    p99: res.latency.p99,
    non2xx: res.non2xx,
    errors: res.errors + res.timeouts,
    total: res.requests.total,
    codes: Object.keys(res.statusCodeStats ?? {}).join(','),
  };
}

async function serveSection(): Promise<void> {
  const st = await statementOf(ROOT, OUT, 3);
  const body = JSON.stringify({ pdf_file: readFileSync(st.file).toString('base64') });
  const rows = section(`cas serve (autocannon on loopback; parse: ${st.pages}-page statement, 4 connections, ${OPTS.serveSeconds} s)`);
  const serve: Record<string, unknown> = { pages: st.pages, connections: 4, seconds: OPTS.serveSeconds };
  results.serve = serve;
  const parse: Partial<Record<Engine, Load & { rss_mb: number | null; ran: string; cpu_ms_per_parse: number }>> = {};
  for (const e of ENGINES) {
    say(`cas serve (${e})`);
    const s = await startServer(e);
    const parseUrl = `${s.url}/v4/registrar_a_registrar_b/parse`;
    if (e === ENGINES[0]) {
      const warm = QUICK ? 1 : 2;
      await load(`${s.url}/v1/credits`, s.key, { connections: 10, duration: warm, body: '{}' });
      const c = await load(`${s.url}/v1/credits`, s.key, { connections: 10, duration: QUICK ? 2 : 5, body: '{}' });
      serve.credits = c;
      if (c.non2xx || c.errors) throw new Error(`/v1/credits load run: ${c.non2xx} non-2xx answers, ${c.errors} errors`);
      rows.push([
        '/v1/credits, 10 connections',
        `${c.rps.toFixed(0)} req/s, p99 ${c.p99} ms`,
        `>= 3000 req/s: ${verdict(c.rps >= 3000, false)}`,
      ]);
    }
    await load(parseUrl, s.key, { connections: 4, duration: QUICK ? 1 : 2, body });
    // The server's CPU per parse (its threads, from /proc) depends far less on the shared machine's speed than parses/s.
    const cpu0 = cpuMs(s.pid);
    const p = await load(parseUrl, s.key, { connections: 4, duration: OPTS.serveSeconds, body });
    const cpuPerParse = p.total ? (cpuMs(s.pid) - cpu0) / p.total : 0;
    const { rss_mb, ran: serveRan } = await s.stop();
    if (p.non2xx || p.errors) throw new Error(`parse load run (${e}): ${p.non2xx} non-2xx answers, ${p.errors} errors`);
    parse[e] = { ...p, rss_mb, ran: serveRan, cpu_ms_per_parse: cpuPerParse };
    rows.push([
      `parse, ${e === 'pdfjs' ? 'pdf.js' : e}${serveRan !== e ? ` (ran: ${serveRan})` : ''}`,
      `${p.rps.toFixed(1)} parses/s, p99 ${p.p99} ms, ${cpuPerParse.toFixed(1)} CPU ms/parse, server peak RSS ${fmtMb(rss_mb)}`,
      e === 'pdfium' ? `>= 150/s: ${serveRan === 'pdfium' ? (p.rps >= 150 ? 'met' : 'MISSED') : 'n/a: pdfium did not run'}` : undefined,
    ]);
  }
  serve.parse = parse;
  if (parse.pdfium && parse.pdfjs) {
    serve.pdfium_vs_pdfjs = parse.pdfium.rps / parse.pdfjs.rps;
    rows.push(['parses/s, pdfium / pdf.js', x(parse.pdfium.rps / parse.pdfjs.rps)]);
  }
}

/** CPU time (ms) a process has used so far: its threads, and its children that have ended (`/proc/PID/stat`). */
const TICK_MS = 1000 / 100; // USER_HZ: 100 on Linux
function cpuMs(pid: number, withChildren = false): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // Fields 14-17 of stat (utime, stime, cutime, cstime), counted from the state field (3).
    return (Number(f[11]) + Number(f[12]) + (withChildren ? Number(f[13]) + Number(f[14]) : 0)) * TICK_MS;
  } catch {
    return 0;
  }
}
/** CPU time of a PostgreSQL cluster: the postmaster, the backends it reaped, and those alive (its children). */
function clusterCpuMs(postmaster: number): number {
  let ms = cpuMs(postmaster, true);
  for (const d of readdirSync('/proc'))
    if (/^\d+$/.test(d))
      try {
        if (Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === postmaster) ms += cpuMs(Number(d));
      } catch {
        /* gone meanwhile */
      }
  return ms;
}

/** One set-up's load run: req/s summed over its servers, p99 the worst, failures added up, CPU per request. */
interface Figure extends Load {
  per_instance?: number[];
  /** CPU ms per request: the cas servers, the PostgreSQL cluster (null on SQLite), the load generator. */
  cpu_ms_per_request: { cas: number; postgres: number | null; client: number };
}

/**
 * One load run on each of `servers` at once (one autocannon run per server, each with the serve
 * section's connections and duration), with the CPU time the servers, the cluster (`postmaster` pid)
 * and this process (autocannon) used meanwhile.
 */
async function measure(
  servers: Server[],
  route: string,
  o: { connections: number; duration: number; body: string },
  postmaster: number | null,
): Promise<Figure> {
  const cpu = (): number[] => [
    servers.reduce((n, s) => n + cpuMs(s.pid), 0),
    postmaster ? clusterCpuMs(postmaster) : 0,
    (process.cpuUsage().user + process.cpuUsage().system) / 1000,
  ];
  const before = cpu();
  const runs = await Promise.all(servers.map((s) => load(`${s.url}${route}`, s.key, o)));
  const used = cpu().map((v, i) => v - before[i]);
  const total = runs.reduce((n, r) => n + r.total, 0);
  const fig: Figure = {
    rps: runs.reduce((n, r) => n + r.rps, 0),
    p99: Math.max(...runs.map((r) => r.p99)),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    codes: [...new Set(runs.flatMap((r) => (r.codes ? r.codes.split(',') : [])))].join(','),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    total,
    cpu_ms_per_request: { cas: used[0] / total, postgres: postmaster ? used[1] / total : null, client: used[2] / total },
  };
  if (runs.length > 1) fig.per_instance = runs.map((r) => r.rps);
  return fig;
}

/**
 * Issue 22: `cas serve` on PostgreSQL (a throwaway cluster, test/helpers/pg.ts) with one instance and with two
 * on the same database (same key, CAS_SECRET_KEY and --files-dir), beside one on SQLite, all started
 * at once and measured one after the other, route by route, so the three see the same machine. One
 * PostgreSQL instance is the first of the two alone (the other idles). Two instances: two autocannon
 * runs at once, one per instance, each with the one-instance connections (so twice the connections in
 * all); their req/s are added up. CPU per request says what each set-up costs whatever the machine's
 * load (which on a shared 2-core machine decides the req/s).
 */
async function postgresSection(): Promise<void> {
  const bin = pgBinDir();
  if (!bin) {
    const why = 'no PostgreSQL server binaries (initdb, postgres) found: install the Debian package postgresql';
    results.postgres = { skipped: why };
    section('cas serve on PostgreSQL').push(['PostgreSQL', `skipped: ${why}`]);
    say(`cas serve on PostgreSQL: skipped (${why})`);
    return;
  }
  const engine = ENGINES[0];
  const st = await statementOf(ROOT, OUT, 3);
  const body = JSON.stringify({ pdf_file: readFileSync(st.file).toString('base64') });
  say('cas serve on SQLite and PostgreSQL (one instance, two)');
  const cluster = await startCluster();
  const servers: Server[] = [];
  const figures: Record<'sqlite' | 'pg1' | 'pg2', Partial<Record<'credits' | 'parse', Figure>>> = { sqlite: {}, pg1: {}, pg2: {} };
  const rss: (number | null)[] = [];
  try {
    // The postmaster's pid (first line of the data folder's postmaster.pid), for its CPU time; unknown: not counted.
    const pidFile = path.join(cluster.dir, 'data', 'postmaster.pid');
    const postmaster = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) || null : null;
    const filesDir = path.join(SCRATCH, 'pg-files');
    rmSync(filesDir, { recursive: true, force: true });
    mkdirSync(filesDir, { recursive: true });
    const store: Store = {
      args: ['--database', await cluster.createDatabase('cas_bench'), '--files-dir', filesDir],
      env: { CAS_SECRET_KEY: randomBytes(32).toString('base64') },
    };
    const key = createKey(path.join(SCRATCH, 'svc-pg-admin'), store);
    servers.push(await startServer(engine, { name: 'sqlite-1' }));
    servers.push(await startServer(engine, { name: 'pg-a', store, key }));
    servers.push(await startServer(engine, { name: 'pg-b', store, key }));
    const [sqlite, pgA, pgB] = servers;
    const setups = [
      ['sqlite', [sqlite], null],
      ['pg1', [pgA], postmaster],
      ['pg2', [pgA, pgB], postmaster],
    ] as const;
    for (const [kind, route, connections, payload, seconds] of [
      ['credits', '/v1/credits', 10, '{}', QUICK ? 2 : 5],
      ['parse', '/v4/registrar_a_registrar_b/parse', 4, body, OPTS.serveSeconds],
    ] as const) {
      await measure(servers, route, { connections, duration: QUICK ? 1 : 2, body: payload }, null);
      for (const [name, set, pm] of setups) {
        const f = await measure([...set], route, { connections, duration: seconds, body: payload }, pm);
        if (f.non2xx || f.errors)
          throw new Error(`${name}: ${route} load run: ${f.non2xx} non-2xx answers (status ${f.codes}), ${f.errors} errors`);
        figures[name][kind] = f;
      }
    }
  } finally {
    for (const s of servers) rss.push((await s.stop()).rss_mb);
    await cluster.stop();
  }
  const rows = section(
    `cas serve on PostgreSQL beside SQLite (${engine}; /v1/credits 10 connections, parse of the ${st.pages}-page statement 4 connections, ${OPTS.serveSeconds} s; two instances: one autocannon run per instance at once, req/s added up; CPU per request: cas + PostgreSQL)`,
  );
  const ratios: Record<string, number> = {};
  for (const [kind, name, unit, digits] of [
    ['credits', '/v1/credits', 'req/s', 0],
    ['parse', 'parse', 'parses/s', 1],
  ] as const) {
    const [sq, one, two] = (['sqlite', 'pg1', 'pg2'] as const).map((k) => figures[k][kind]!);
    const fig = (f: Figure): string => {
      const c = f.cpu_ms_per_request;
      const per = f.per_instance ? ` (${f.per_instance.map((r) => r.toFixed(digits)).join(' + ')})` : '';
      const cpu = `${c.cas.toFixed(2)}${c.postgres === null ? '' : ` + ${c.postgres.toFixed(2)}`} CPU ms/request`;
      return `${f.rps.toFixed(digits)} ${unit}${per}, p99 ${f.p99} ms, ${cpu}`;
    };
    ratios[`${kind}_pg1_vs_sqlite`] = one.rps / sq.rps;
    ratios[`${kind}_pg2_vs_pg1`] = two.rps / one.rps;
    ratios[`${kind}_pg2_vs_sqlite`] = two.rps / sq.rps;
    rows.push([`${name}, SQLite, 1 instance`, fig(sq)]);
    rows.push([`${name}, PostgreSQL, 1 instance`, `${fig(one)}; ${x(ratios[`${kind}_pg1_vs_sqlite`])} SQLite`]);
    rows.push([
      `${name}, PostgreSQL, 2 instances`,
      `${fig(two)}; ${x(ratios[`${kind}_pg2_vs_pg1`])} one instance, ${x(ratios[`${kind}_pg2_vs_sqlite`])} SQLite`,
    ]);
  }
  rows.push(['server peak RSS', `SQLite ${fmtMb(rss[0])}; PostgreSQL ${fmtMb(rss[1])}, ${fmtMb(rss[2])}`]);
  results.postgres = {
    engine,
    pages: st.pages,
    method:
      'all three set-ups started at once, measured one after the other per route; two instances: one autocannon run per instance at once, each with the one-instance connections; req/s summed, p99 the worst; CPU ms per request from /proc (cas servers; PostgreSQL postmaster and backends; the autocannon process)',
    sqlite: { ...figures.sqlite, instances: 1 },
    pg1: { ...figures.pg1, instances: 1 },
    pg2: { ...figures.pg2, instances: 2 },
    rss_mb: { sqlite: rss[0], pg_a: rss[1], pg_b: rss[2] },
    ratios,
  };
}

async function batchSection(): Promise<void> {
  const files = await batchOf(ROOT, OUT, 40);
  const dir = path.dirname(files[0].file);
  const pages = files.reduce((n, f) => n + f.pages, 0);
  say(`batch of ${files.length} (${pages} pages), ${OPTS.batchRuns} run(s) each`);
  const cmds = ENGINES.flatMap((e) =>
    [1, 2].map((j) => ({ ...casCmd(e, ['parse', dir, '--jobs', String(j)]), label: `cas parse --jobs ${j} (${e})` })),
  );
  for (const c of cmds) {
    const r = runOnce(c, true);
    const lines = r.stdout.trim().split('\n').filter(Boolean).length;
    if (r.status !== 0 || lines !== files.length)
      throw new Error(`${c.label} failed (exit ${r.status}, ${lines} results): ${r.stderr.trim()}`);
  }
  const t = interleaved(cmds, OPTS.batchRuns);
  const rows = section(`batch: cas parse FOLDER of ${files.length} statements (${pages} pages), whole process`);
  const batch: Record<string, unknown> = { files: files.length, pages, runs: OPTS.batchRuns, cpus: os.cpus().length };
  ENGINES.forEach((e, k) => {
    const [j1, j2] = [t[2 * k], t[2 * k + 1]];
    const speedup = ratio(j1, j2);
    batch[e] = { jobs1: j1, jobs2: j2, speedup, ran: ran[e] };
    const name = e === 'pdfjs' ? 'pdf.js' : e;
    rows.push([`${name}, --jobs 1`, `${fmtMs(j1.ms)} (${((files.length / j1.ms) * 1000).toFixed(1)} files/s), ${fmtMb(j1.rss_mb)}`]);
    rows.push([
      `${name}, --jobs 2`,
      `${fmtMs(j2.ms)} (${x(speedup)}), ${fmtMb(j2.rss_mb)}`,
      e === 'pdfium' ? `>= 1.7x: ${verdict(speedup >= 1.7)}` : undefined,
    ]);
  });
  results.batch = batch;
}

// ---------------------------------------------------------------- main

function print(): void {
  const w = Math.max(...table.flatMap((s) => s.rows.map((r) => r[0].length)));
  const fw = Math.min(48, Math.max(...table.flatMap((s) => s.rows.filter((r) => r[2]).map((r) => r[1].length))));
  const lines: string[] = [];
  for (const s of table) {
    lines.push('', s.title);
    for (const [what, fig, target] of s.rows) lines.push(`  ${what.padEnd(w)}  ${target ? `${fig.padEnd(fw)}  target ${target}` : fig}`);
  }
  process.stdout.write(`${lines.join('\n')}\n\nwrote ${path.relative(process.cwd(), path.join(OUT, 'results.json')) || 'results.json'}\n`);
}

async function main(): Promise<void> {
  const t0 = performance.now();
  mkdirSync(path.join(SCRATCH, 'config'), { recursive: true });
  if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('no dist/: run `npm run build` first (npm run bench does)');
  const peer = OPTS.only.has('cold') ? findPeer() : null;
  say(`statements in ${path.relative(ROOT, statementsDir(ROOT, OUT))} (made once, then reused)`);
  const one = await statementOf(ROOT, OUT, 1);
  // Which engine each setting really runs: until the PDFium engine is in the build, both are pdf.js.
  for (const e of ENGINES) ran[e] = probeCas(e, one.file);
  results.engines = { requested: [...ENGINES], ran: { ...ran } };
  const head = section(
    `machine: ${os.cpus().length} cores, Node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const e of ENGINES)
    head.push([
      `CAS_PDF_ENGINE=${e}`,
      `ran ${ran[e]}${ran[e] !== e ? ' (this build does not have that engine: its rows measure ' + ran[e] + ')' : ''}`,
    ]);
  if (peer && 'runner' in peer) {
    results.peer = { dir: peer.dir, version: peer.version };
    head.push(['reference parser', `casparser ${peer.version ?? '(version unknown)'} in ${peer.dir}`]);
  } else {
    results.peer = peer ? { error: peer.error } : NOT_MEASURED;
    head.push(['reference parser', peer ? `not measured: ${peer.error}` : NOT_MEASURED]);
  }
  if (OPTS.only.has('help')) helpSection();
  if (OPTS.only.has('cold')) await coldSection(peer);
  if (OPTS.only.has('warm')) await warmSection();
  if (OPTS.only.has('sections')) await sectionsSection();
  if (OPTS.only.has('batch')) await batchSection();
  if (OPTS.only.has('serve')) await serveSection();
  if (OPTS.only.has('postgres')) await postgresSection();
  results.seconds = (performance.now() - t0) / 1000;
  mkdirSync(OUT, { recursive: true });
  writeFileSync(path.join(OUT, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  print();
  say(`done in ${(results.seconds as number).toFixed(0)} s`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
