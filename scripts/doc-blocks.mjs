#!/usr/bin/env node
// Runs the shell blocks of the README and the docs/ pages as written (issue 33): a part of
// `npm run test:installed` (scripts/test-installed.sh).
//
//   node scripts/doc-blocks.mjs list FILE...           every block, its line and how it is run
//   node scripts/doc-blocks.mjs run MODE DIR FILE...   run MODE's blocks of each FILE in DIR
//
// A ```sh block runs with the installed `cas` on PATH (mode `installed`) unless the line before its
// fence says otherwise: `<!-- run: clone -->` (run in a copy of the repository, where it needs the
// clone's files: `npm ci`, fixtures/registrar/...) or `<!-- not run: REASON -->` (printed, with the
// reason). The blocks of one file run in order in ONE bash session (`set -eo pipefail`), so what one
// block exports or starts (a `cas serve ... &`) the next one uses; the session's background jobs are
// stopped at its end. Two things differ from a copy-paste, both so that the run is reliable on a
// shared machine: each port a block names (`--port N`, `--smtp-port N`, `127.0.0.1:N`) becomes a free
// one, and after a line that starts `cas serve` in the background the run waits until its port
// answers. Any block that exits non-zero, and any `npm warn` line, fails the run (exit 1).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The shell blocks of a Markdown file: { line, mode: 'installed'|'clone'|null, reason, text }. */
export function blocks(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```(\w*)\s*$/.exec(lines[i]);
    if (!fence) continue;
    const start = i;
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j])) j++;
    const lang = fence[2];
    if (lang === 'sh' || lang === 'bash' || lang === 'shell') {
      let k = start - 1;
      while (k >= 0 && lines[k].trim() === '') k--;
      const marker = k >= 0 ? /^<!--\s*(run|not run):\s*(.*?)\s*-->$/.exec(lines[k].trim()) : null;
      let mode = 'installed';
      let reason = '';
      if (marker?.[1] === 'not run') {
        mode = null;
        reason = marker[2];
      } else if (marker?.[1] === 'run') {
        mode = marker[2];
        if (mode !== 'clone' && mode !== 'installed') throw new Error(`${file}:${k + 1}: unknown run mode "${mode}"`);
      }
      out.push({ line: start + 1, mode, reason, text: lines.slice(start + 1, j).join('\n') });
    }
    i = j;
  }
  return out;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function script(file, list) {
  // The same port number means the same server in every block of a file.
  const ports = new Map();
  for (const b of list)
    for (const m of b.text.matchAll(/(?:--(?:smtp-)?port[ =]|127\.0\.0\.1:|localhost:)(\d{2,5})\b/g))
      if (!ports.has(m[1])) ports.set(m[1], String(await freePort()));
  const swap = (s) => s.replace(/(--(?:smtp-)?port[ =]|127\.0\.0\.1:|localhost:)(\d{2,5})\b/g, (all, pre, n) => pre + (ports.get(n) ?? n));
  const parts = [
    'set -eo pipefail',
    'trap \'for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done\' EXIT',
    '__cas_wait() { for _ in $(seq 1 600); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.2; done; echo "docs: cas serve never answered on port $1" >&2; return 1; }',
  ];
  for (const b of list) {
    const where = `${path.relative(process.cwd(), file)}:${b.line}`;
    parts.push(`printf '\\ndocs: running the block at %s\\n' ${JSON.stringify(where)} >&2`);
    parts.push(`trap 'echo "docs: FAILED: the block at ${where} exited $? (line: $BASH_COMMAND)" >&2' ERR`);
    for (const line of swap(b.text).split('\n')) {
      parts.push(line);
      const serve = /^\s*(?:npx\s+)?cas\s+serve\b(?!\s+(?:keys|credits|registry)\b).*&\s*(?:#.*)?$/.exec(line);
      if (serve) {
        const port = /--port[ =](\d+)/.exec(line)?.[1] ?? '8080';
        parts.push(`__cas_wait ${port}`);
      }
    }
  }
  return parts.join('\n') + '\n';
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'list') {
  for (const f of args)
    for (const b of blocks(f)) console.log(`${f}:${b.line}\t${b.mode ?? `not run (${b.reason})`}\t${b.text.split('\n')[0]}`);
} else if (cmd === 'run') {
  const [mode, dir, ...files] = args;
  let failed = false;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'cas-doc-blocks-'));
  for (const file of files) {
    const all = blocks(file);
    for (const b of all) if (b.mode === null && mode === 'installed') console.error(`docs: not run: ${file}:${b.line}: ${b.reason}`);
    const list = all.filter((b) => b.mode === mode);
    if (!list.length) continue;
    const sh = path.join(tmp, `${path.basename(file)}.${mode}.sh`);
    writeFileSync(sh, await script(path.resolve(file), list));
    console.error(`\ndocs: ${list.length} ${mode} block(s) of ${file} in ${dir}`);
    const r = spawnSync('bash', [sh], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 256 << 20 });
    process.stdout.write(r.stdout);
    process.stderr.write(r.stderr);
    const warns = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => /^npm warn/i.test(l));
    if (r.status !== 0) {
      console.error(`docs: FAILED: ${file} (${mode}) exited ${r.status ?? r.signal}`);
      failed = true;
    }
    if (warns.length) {
      console.error(`docs: FAILED: npm warned while running the blocks of ${file}:\n${warns.join('\n')}`);
      failed = true;
    }
  }
  process.exit(failed ? 1 : 0);
} else {
  console.error('usage: node scripts/doc-blocks.mjs list FILE... | run installed|clone DIR FILE...');
  process.exit(2);
}
