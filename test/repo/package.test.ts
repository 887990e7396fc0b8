/**
 * Issue 20 items 1, 2 and 10: what the npm package is called and what it ships. The installed
 * tarball itself is exercised by `npm run test:installed` (scripts/test-installed.sh, a CI step),
 * which also runs every command block of the README and docs/ (issue 33). Here: the documentation
 * stands on its own in a clone (every relative link resolves, nothing points outside the
 * repository) and the dependency set users install is the tested one.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cas.js';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  files: string[];
  engines: { node: string };
  dependencies: Record<string, string>;
  overrides?: Record<string, string>;
};

describe('the npm package (issue 20)', () => {
  it('is published as cas-cli (cas is an unrelated package) and installs the command cas', () => {
    expect(pkg.name).toBe('cas-cli');
    expect(pkg.bin).toEqual({ cas: 'bin/cas.js' });
    expect(pkg.engines.node).toBe('>=20.19');
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    // Not on the registry yet (issue 33): the tarball path first, the registry lines marked "not run".
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(readme).toContain(`npm install -g --allow-scripts=better-sqlite3 ./${pkg.name}-${version}.tgz`);
    expect(readme).toContain(`<!-- not run: ${pkg.name} is not on the npm registry yet -->\n\`\`\`sh\nnpm install -g ${pkg.name} `);
  });

  it('ships the built CLI, completions and every sandbox file the service reads, and nothing of the tests', async () => {
    const r = await execa('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT });
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
    for (const f of ['bin/cas.js', 'dist/cli/main.js', 'dist/server/index.js', 'completions/cas.bash', 'LICENSE', 'README.md'])
      expect(files, f).toContain(f);
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'fixtures/sandbox/manifest.json'), 'utf8')) as Record<string, unknown>;
    const listed = Object.values(manifest)
      .filter(Array.isArray)
      .flat()
      .flatMap((e) => [(e as { path?: string }).path, (e as { expected?: string }).expected])
      .filter((p): p is string => typeof p === 'string');
    expect(listed.length).toBeGreaterThan(6);
    for (const p of listed) expect(files, p).toContain(`fixtures/sandbox/${p}`);
    expect(files.filter((f) => /^(test|src|bench|scripts)\//.test(f) || f.endsWith('.log'))).toEqual([]);
  });

  it('the PDF engines are runtime dependencies (the wasm ships inside @embedpdf/pdfium)', () => {
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['@embedpdf/pdfium', 'pdfjs-dist']));
    expect(Object.keys(pkg.dependencies)).not.toContain('@hyzyla/pdfium');
  });

  it('installs the dependency set CI tests: no overrides (they do not reach users), light-my-request pinned for Node 20 (issue 33)', () => {
    expect(pkg.overrides).toBeUndefined();
    expect(pkg.dependencies['light-my-request']).toBe('6.6.0');
  });
});

/** The Markdown files of the clone: README.md, ARCHITECTURE.md, docs/*.md, bench/README.md. */
const DOCS = [
  'README.md',
  'ARCHITECTURE.md',
  'bench/README.md',
  ...(existsSync(path.join(ROOT, 'docs'))
    ? readdirSync(path.join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`)
    : []),
].filter((f) => existsSync(path.join(ROOT, f)));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

describe('the documentation of a clone (issue 33)', () => {
  it('README.md is short and links to the docs/ pages', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(200);
    for (const page of [
      'service',
      'configuration',
      'exit-codes',
      'development',
      'security',
      'portfolio',
      'statements-registrar',
      'statements-depository',
      'statements-contract-notes',
    ])
      expect(readme, page).toContain(`](docs/${page}.md)`);
  });

  it.each(DOCS)('%s: every relative link resolves, and nothing points outside the repository', (file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
    // README and docs/ are read in a clone: nothing there may point to ../shared or SPEC.md (not in a clone).
    if (file === 'README.md' || file.startsWith('docs/')) {
      expect(text, 'a clone has no ../shared').not.toMatch(/\.\.\/shared\b|\bSPEC\.md\b/);
      expect(text, 'measurement notes belong in bench/ output').not.toMatch(/this (2-core )?VM|\b20\d\d-\d\d-\d\d, idle/);
    }
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/i.test(target)) continue;
      const [rel, hash] = target.split('#');
      const dest = rel ? path.resolve(path.dirname(path.join(ROOT, file)), rel) : path.join(ROOT, file);
      expect(dest.startsWith(ROOT + path.sep) || dest === ROOT, `${target} leaves the repository`).toBe(true);
      expect(existsSync(dest), `${file}: ${target} does not exist`).toBe(true);
      if (hash && dest.endsWith('.md')) {
        const headings = readFileSync(dest, 'utf8')
          .split('\n')
          .filter((l) => /^#{1,6} /.test(l))
          .map((l) => anchor(l.replace(/^#+ /, '')));
        expect(headings, `${file}: ${target}: no such heading`).toContain(hash);
      }
    }
  });
});
