#!/usr/bin/env node
// Thin shim: everything lives in dist/bundle/cli.js (built by `npm run build`: dist/cli/main.js bundled).
// Node's on-disk compile cache (Node >= 22.1) keeps the compiled JavaScript of cas and its packages
// between runs; on older Node the call does not exist and nothing changes.
import module from 'node:module';

module.enableCompileCache?.();
import('../dist/bundle/cli.js')
  .then((m) => m.main(process.argv))
  .catch((err) => {
    process.stderr.write(
      `cas: could not start (${err && err.code === 'ERR_MODULE_NOT_FOUND' ? 'run `npm run build` first' : String(err && err.message)})\n`,
    );
    process.exitCode = 1;
  });
