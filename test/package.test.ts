/**
 * Issue 20 items 1, 2 and 10: what the npm package is called and what it ships. The installed
 * tarball itself is exercised by `npm run test:installed` (scripts/test-installed.sh, a CI step).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  files: string[];
  engines: { node: string };
  dependencies: Record<string, string>;
};

describe('the npm package (issue 20)', () => {
  it('is published as cas-cli (cas is an unrelated package) and installs the command cas', () => {
    expect(pkg.name).toBe('cas-cli');
    expect(pkg.bin).toEqual({ cas: 'bin/cas.js' });
    expect(pkg.engines.node).toBe('>=20.19');
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`npx -p ${pkg.name} cas parse statement.pdf`);
    expect(readme).toContain(`npm install -g ${pkg.name}`);
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
});
