/**
 * One engine's warm parse, in a fresh process (run by bench/run.ts, never part of `cas`):
 *   node bench/warm-child.mjs FILE ENGINE WARMUP RUNS
 * opens and parses FILE with `openPdf(bytes, { engine: ENGINE })` from the built dist, WARMUP times
 * untimed, then RUNS times timed, and prints one JSON line: each run's ms, the page count, the
 * process's peak RSS and which engine's signs were seen (bench/probe.mjs) during the first open.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { engineFromSigns, installProbe } from './probe.mjs';

const [file, engine, warmup, runs] = process.argv.slice(2);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const signs = [];
installProbe((s) => signs.push(s));
const { openPdf } = await import(pathToFileURL(path.join(root, 'dist/pdf/open.js')).href);
const { parseDocument } = await import(pathToFileURL(path.join(root, 'dist/parsers/index.js')).href);
const bytes = readFileSync(file);
// A fresh copy each time: an engine may take (transfer or detach) the buffer it is given.
const once = async () => parseDocument(await openPdf(new Uint8Array(bytes), { engine }));

const first = await once();
const ran = engineFromSigns(signs);
const doc = await openPdf(new Uint8Array(bytes), { engine });
for (let i = 1; i < Number(warmup); i++) await once();
const ms = [];
for (let i = 0; i < Number(runs); i++) {
  const t0 = performance.now();
  await once();
  ms.push(performance.now() - t0);
}
process.stdout.write(
  `${JSON.stringify({ engine, ran, signs, pages: doc.pages.length, cas_type: first.data?.meta?.cas_type ?? null, ms, rss_mb: process.resourceUsage().maxRSS / 1024 })}\n`,
);
