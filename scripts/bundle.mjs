// `npm run build`, step 2 (after tsc): the CLI and the parse worker as a few bundled files in
// dist/bundle/ (issue 36). Loading ~200 small modules one by one (resolution, a file read and a
// compile each) was a large part of a cold `cas parse` of a small statement, in the main thread and
// again in the worker; a bundle is read and compiled at once. Packages stay outside (they load from
// node_modules as before). Both entries sit in the same folder, so the pool's
// `new URL('./worker.js', import.meta.url)` finds the bundled worker from the bundled CLI, and every
// path the code reads relative to itself (`../../package.json`) is as deep as in dist/cli/. Shared
// code is split into chunks beside them (one copy per thread), and the commands the CLI loads on
// demand stay on demand. The unbundled dist/ tree stays what the library exports and the tests import.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bundle`;
rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { cli: 'dist/cli/main.js', worker: 'dist/core/worker.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: 'chunk-[hash]',
  legalComments: 'none',
  logLevel: 'warning',
});
