/**
 * Issue 20 item 6 and issue 33 item 1: on a machine without the test tools, `npm test` skips what needs them and says
 * which tool is missing, instead of failing with assertions that mean nothing. Two test files that
 * need qpdf and openssl run under vitest with a PATH that holds only `node`.
 */
import { readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ROOT, tmpDir } from '../helpers/cas.js';
import { TEST_PACKAGES } from '../helpers/tools.js';

describe('missing system tools (issue 20 item 6)', () => {
  it('skips the tests that need qpdf and openssl, names the tools and passes', async () => {
    const bin = tmpDir('cas-bare-path-');
    symlinkSync(process.execPath, path.join(bin, 'node'));
    const r = await execa(
      process.execPath,
      [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', 'test/pdf/resave.test.ts', 'test/server/locker.test.ts'],
      {
        cwd: ROOT,
        env: { ...process.env, PATH: bin, NO_COLOR: '1', FORCE_COLOR: '0' },
        reject: false,
      },
    );
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.exitCode, out).toBe(0);
    expect(out).toMatch(/skipped: tests that need qpdf \(Debian package qpdf; `npm run setup:test` installs the test tools\)/);
    expect(out).toMatch(/skipped: tests that need openssl \(Debian package openssl;/);
    expect(out).toMatch(/Tests\s+\d+ skipped/);
    expect(out).not.toMatch(/\d+ failed/);
  });

  it('CAS_TEST_HIDE_TOOLS hides tools: each skipped tool is named once per run, however many files need it (issue 33)', async () => {
    // pg, store and multi-instance all need postgres (three test processes, one line); resave needs qpdf.
    const r = await execa(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--project',
        'sqlite',
        'test/pdf/resave.test.ts',
        'test/repo/pg.test.ts',
        'test/server/store.test.ts',
        'test/server/multi-instance.test.ts',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, CAS_TEST_HIDE_TOOLS: 'qpdf,postgres', NO_COLOR: '1', FORCE_COLOR: '0' },
        reject: false,
      },
    );
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.exitCode, out).toBe(0);
    expect(out.match(/skipped: tests that need qpdf \(Debian package qpdf;/g), out).toHaveLength(1);
    expect(out.match(/skipped: tests that need postgres \(Debian package postgresql;/g), out).toHaveLength(1);
    expect(out).not.toMatch(/\d+ failed/);
  }, 300_000);

  it('scripts/setup-test.sh installs the package of every tool the tests name', () => {
    const script = readFileSync(path.join(ROOT, 'scripts/setup-test.sh'), 'utf8');
    for (const pkg of TEST_PACKAGES) expect(script, pkg).toMatch(new RegExp(`need\\+=\\(${pkg}\\b`));
  });
});
