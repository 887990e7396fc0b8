import { describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { FIXTURES, ROOT, manifest, tmpDir } from '../helpers/cas.js';

function walk(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? walk(p, base) : [path.relative(base, p)];
  });
}

describe('fixture factory', () => {
  it('regenerates byte-identical files (the committed fixtures are the generator output)', async () => {
    const out = tmpDir('cas-fixtures-');
    // qpdf salts R6 files at random: the generator keeps an R6 file whose source hash still matches.
    mkdirSync(path.join(out, 'encrypted'), { recursive: true });
    for (const f of ['encrypted/cams-detailed-aes-256-r6.pdf', 'encrypted/cams-detailed-aes-256-r6.pdf.source-sha256'])
      copyFileSync(path.join(FIXTURES, f), path.join(out, f));
    const r = await execa('npx', ['tsx', 'test/fixtures/generate.ts'], { cwd: ROOT, env: { FIXTURES_OUT: out }, reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    const committed = walk(FIXTURES).sort();
    expect(walk(out).sort()).toEqual(committed);
    for (const f of committed) expect(readFileSync(path.join(out, f)).equals(readFileSync(path.join(FIXTURES, f))), f).toBe(true);
  });

  it('the manifest lists every fixture with kind, password, expected and traits', () => {
    const m = manifest();
    const pdfs = walk(FIXTURES)
      // the sandbox set has its own manifest (fixtures/sandbox/manifest.json, test/server/sandbox.test.ts)
      .filter((f) => f.endsWith('.pdf') && !f.startsWith('sandbox/'))
      .sort();
    expect(m.map((e) => e.path).sort()).toEqual(pdfs);
    for (const e of m) {
      expect(['depository_a', 'depository_b', 'registrar', 'contract_note', 'bad']).toContain(e.kind);
      expect(e.traits.length).toBeGreaterThan(0);
      if (e.kind !== 'bad') expect(statSync(path.join(FIXTURES, e.expected)).isFile()).toBe(true);
    }
  });
});
