#!/usr/bin/env node
// Thin shim: everything lives in dist/cli/main.js (built by `npm run build`).
// Node's on-disk compile cache (Node >= 22.1) keeps the compiled JavaScript of cas and its packages
// between runs; on older Node the call does not exist and nothing changes.
import module from 'node:module';

module.enableCompileCache?.();
import('../dist/cli/main.js')
  .then((m) => m.main(process.argv))
  .catch((err) => {
    process.stderr.write(
      `cas: could not start (${err && err.code === 'ERR_MODULE_NOT_FOUND' ? 'run `npm run build` first' : String(err && err.message)})\n`,
    );
    process.exitCode = 1;
  });
