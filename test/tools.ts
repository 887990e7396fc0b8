/**
 * System tools that some tests need (installed by `npm run setup:test`, which `.ci/run` calls).
 * A test that needs a missing tool is skipped, never failed: its title says which tool, and one
 * line on stderr names the tool and the Debian package that provides it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pgBinDir } from './pg.js';

export type Tool = 'qpdf' | 'dovecot' | 'openssl' | 'pdftotext' | 'jq' | 'chromium' | 'postgres';

/** How to ask each tool for its version, and the Debian package that installs it. */
const TOOLS: Record<Tool, { probe: string[]; pkg: string }> = {
  qpdf: { probe: ['--version'], pkg: 'qpdf' },
  dovecot: { probe: ['--version'], pkg: 'dovecot-imapd' },
  openssl: { probe: ['version'], pkg: 'openssl' },
  pdftotext: { probe: ['-v'], pkg: 'poppler-utils' },
  jq: { probe: ['--version'], pkg: 'jq' },
  chromium: { probe: ['--version'], pkg: 'chromium' },
  // Debian keeps initdb/pg_ctl/postgres in /usr/lib/postgresql/<major>/bin, off PATH: test/pg.ts finds them.
  postgres: { probe: [], pkg: 'postgresql' },
};

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

const known = new Map<Tool, boolean>();

function present(tool: Tool): boolean {
  if (tool === 'postgres') return pgBinDir() !== null;
  if (tool === 'chromium' && process.env.CAS_CHROMIUM) return existsSync(process.env.CAS_CHROMIUM);
  const cmd = tool === 'chromium' ? (CHROMIUM.find((p) => existsSync(p)) ?? 'chromium') : tool;
  const r = spawnSync(cmd, TOOLS[tool].probe, { stdio: 'ignore', timeout: 20_000 });
  return !r.error && r.status === 0;
}

/**
 * Whether the tools are all present. `skip` goes to `describe.skipIf`/`it.skipIf`, `note` at the end
 * of the title: "" when present, " (skipped: needs qpdf)" when not. A missing tool is reported once
 * per test process on stderr.
 */
export function needs(...tools: Tool[]): { skip: boolean; note: string } {
  const missing = tools.filter((t) => {
    if (!known.has(t)) {
      const ok = present(t);
      known.set(t, ok);
      if (!ok)
        process.stderr.write(
          `skipped: tests that need ${t} (Debian package ${TOOLS[t].pkg}; \`npm run setup:test\` installs the test tools)\n`,
        );
    }
    return !known.get(t);
  });
  return { skip: missing.length > 0, note: missing.length ? ` (skipped: needs ${missing.join(', ')})` : '' };
}

/** The Debian packages of every tool the tests use (scripts/setup-test.sh installs these). */
export const TEST_PACKAGES: readonly string[] = Object.values(TOOLS).map((t) => t.pkg);
