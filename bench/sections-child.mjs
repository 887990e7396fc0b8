/**
 * The parsers' share of a warm parse (issue 31), in a fresh process (run by bench/run.ts, never
 * part of `cas`):
 *   node bench/sections-child.mjs ENGINE WARMUP RUNS FILE[::PASSWORD]...
 * For each file, WARMUP untimed rounds, then RUNS rounds, each timing in turn (interleaved, so both
 * see the same machine) `raw`: openPdf + the document model's lines (what every parser reads), and
 * `parse`: openPdf + parseDocument (detection and every section reader). Prints one JSON line:
 * per file its type, pages, and each round's ms of both.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [engine, warmup, runs, ...specs] = process.argv.slice(2);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { openPdf } = await import(pathToFileURL(path.join(root, 'dist/pdf/open.js')).href);
const { allLines } = await import(pathToFileURL(path.join(root, 'dist/pdf/model.js')).href);
const { parseDocument } = await import(pathToFileURL(path.join(root, 'dist/parsers/index.js')).href);

const out = [];
for (const spec of specs) {
  const [file, password] = spec.split('::');
  const bytes = readFileSync(file);
  // A fresh copy each time: an engine may take (transfer or detach) the buffer it is given.
  const open = () => openPdf(new Uint8Array(bytes), { engine, password: password || undefined });
  const raw = async () => allLines(await open()).length;
  const parse = async () => parseDocument(await open());
  const first = await parse();
  const pages = (await open()).pages.length;
  for (let i = 0; i < Number(warmup); i++) {
    await raw();
    await parse();
  }
  const rawMs = [];
  const parseMs = [];
  for (let i = 0; i < Number(runs); i++) {
    let t0 = performance.now();
    await raw();
    rawMs.push(performance.now() - t0);
    t0 = performance.now();
    await parse();
    parseMs.push(performance.now() - t0);
  }
  out.push({
    file,
    pages,
    type: first.data?.meta?.cas_type ?? (first.data?.contract_note_info ? 'contract_note' : null),
    raw_ms: rawMs,
    parse_ms: parseMs,
  });
}
process.stdout.write(`${JSON.stringify({ engine, files: out })}\n`);
