// `npm run build`, step 2 (after tsc): the CLI and the parse worker as a few bundled files in
// dist/bundle/ (issue 36). Loading ~200 small modules one by one (resolution, a file read and a
// compile each) was a large part of a cold `cas parse` of a small statement, in the main thread and
// again in the worker; a bundle is read and compiled at once. Packages stay outside (they load from
// node_modules as before), but for the few below. Both entries sit in the same folder, so the pool's
// `new URL('./worker.js', import.meta.url)` finds the bundled worker from the bundled CLI, and every
// path the code reads relative to itself (`../../package.json`) is as deep as in dist/cli/. Shared
// code is split into chunks beside them (one copy per thread), and the commands the CLI loads on
// demand stay on demand. The unbundled dist/ tree stays what the library exports and the tests import.
import { build } from 'esbuild';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// The small packages every command starts with are bundled too (commander is CommonJS: Node would
// read eight files and scan them for their exports on each start); the others stay in node_modules.
const INLINE = new Set(['commander', 'chalk', 'env-paths']);
const deps = Object.keys(JSON.parse(readFileSync(`${root}package.json`, 'utf8')).dependencies);
const external = deps.filter((d) => !INLINE.has(d)).flatMap((d) => [d, `${d}/*`]);
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
  external,
  chunkNames: 'chunk-[hash]',
  legalComments: 'none',
  // The bundled CommonJS (commander) calls require() for Node's own modules: ES modules have none.
  banner: { js: "import { createRequire as __casRequire } from 'node:module';\nconst require = __casRequire(import.meta.url);" },
  logLevel: 'warning',
});
// The bundled packages' licences travel with their code.
const licences = [...INLINE].map((name) => {
  const dir = `${root}node_modules/${name}`;
  const file = ['LICENSE', 'license', 'LICENSE.md', 'license.md'].map((f) => `${dir}/${f}`).find((f) => existsSync(f));
  const { version } = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
  return `${name} ${version}\n\n${file ? readFileSync(file, 'utf8').trim() : '(no licence file)'}\n`;
});
writeFileSync(`${outdir}/THIRD-PARTY-LICENSES.txt`, `Packages bundled into these files:\n\n${licences.join('\n---\n\n')}`);
