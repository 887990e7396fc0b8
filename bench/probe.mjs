/**
 * Which PDF engine actually ran, seen from inside a process (the bench's engine check, never part of `cas`).
 *
 * `installProbe(note)` calls `note('pdfjs')` when pdf.js is loaded (src/pdf/open.ts hands pdf.js its
 * in-process worker through `globalThis.pdfjsWorker`) and `note('wasm')` when a WebAssembly module
 * is compiled or instantiated by code outside Node itself (the PDFium engine is WebAssembly; pdf.js's
 * text path uses none; Node's own fetch compiles its HTTP parser, which is not counted).
 *
 * Loaded with `node --import ./bench/probe.mjs` and CAS_BENCH_PROBE=FILE, it installs itself in the
 * main thread and in every worker thread (workers inherit the flag) and appends each sign once per
 * thread to FILE, synchronously, so a worker that is terminated still leaves its line.
 */
import { appendFileSync } from 'node:fs';

/** @param {(sign: 'pdfjs' | 'wasm') => void} note */
export function installProbe(note) {
  const seen = new Set();
  const once = (sign) => {
    if (seen.has(sign)) return;
    seen.add(sign);
    note(sign);
  };
  let worker = globalThis.pdfjsWorker;
  if (worker !== undefined) once('pdfjs');
  Object.defineProperty(globalThis, 'pdfjsWorker', {
    configurable: true,
    get: () => worker,
    set: (v) => {
      worker = v;
      once('pdfjs');
    },
  });
  const W = globalThis.WebAssembly;
  const wasm = () => {
    const caller =
      (new Error().stack ?? '')
        .split('\n')
        .slice(1)
        .find((l) => !l.includes('probe.mjs')) ?? '';
    if (!/\(node:|at node:/.test(caller)) once('wasm');
  };
  for (const name of ['compile', 'compileStreaming', 'instantiate', 'instantiateStreaming']) {
    const fn = W[name];
    if (typeof fn === 'function')
      W[name] = function (...args) {
        wasm();
        return fn.apply(this, args);
      };
  }
  for (const name of ['Module', 'Instance']) {
    W[name] = new Proxy(W[name], {
      construct(target, args, newTarget) {
        wasm();
        return Reflect.construct(target, args, newTarget);
      },
    });
  }
}

/** 'pdfium', 'pdfjs', 'both' or 'none', from the signs seen. */
export function engineFromSigns(signs) {
  const s = new Set(signs);
  if (s.has('wasm') && s.has('pdfjs')) return 'both';
  if (s.has('wasm')) return 'pdfium';
  if (s.has('pdfjs')) return 'pdfjs';
  return 'none';
}

const file = process.env.CAS_BENCH_PROBE;
if (file) installProbe((sign) => appendFileSync(file, `${sign}\n`));
