/**
 * System tools that some tests need (installed by `npm run setup:test`, which `.ci/run` calls).
 * Every test that needs one goes through `needs()`: when the tool is missing the test is skipped,
 * never failed; its title says which tool, and ONE line per run on stderr names the tool and the
 * Debian package that provides it (the first test process of a vitest run that finds it missing
 * says so; the others stay quiet).
 *
 * `CAS_TEST_HIDE_TOOLS=qpdf,pdftotext,chromium,dovecot,openssl,jq,postgres` (or `all`) makes the
 * named tools count as missing, to see what a machine without them runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
  // Debian keeps initdb/pg_ctl/postgres in /usr/lib/postgresql/<major>/bin, off PATH: test/helpers/pg.ts finds them.
  postgres: { probe: [], pkg: 'postgresql' },
};

const CHROMIUM = [
  process.env.CAS_CHROMIUM,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

/** The tools CAS_TEST_HIDE_TOOLS names (`all`: every one). test/helpers/pg.ts reads it too, for postgres. */
export function hiddenTools(): Tool[] {
  const names = (process.env.CAS_TEST_HIDE_TOOLS ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.includes('all')) return Object.keys(TOOLS) as Tool[];
  return names.map((n) => (n === 'postgresql' ? 'postgres' : n === 'poppler-utils' ? 'pdftotext' : n)) as Tool[];
}

const known = new Map<Tool, string | null>();

/** The command that runs the tool (chromium: its full path), or null when it is missing or hidden. */
export function toolPath(tool: Tool): string | null {
  if (!known.has(tool)) known.set(tool, find(tool));
  return known.get(tool)!;
}

function find(tool: Tool): string | null {
  if (hiddenTools().includes(tool)) return null;
  if (tool === 'postgres') return pgBinDir();
  const candidates = tool === 'chromium' ? CHROMIUM.filter((c): c is string => Boolean(c)) : [tool];
  for (const cmd of candidates) {
    if (tool === 'chromium' && !existsSync(cmd)) continue;
    const r = spawnSync(cmd, TOOLS[tool].probe, { stdio: 'ignore', timeout: 20_000 });
    if (!r.error && r.status === 0) return cmd;
  }
  return null;
}

/**
 * A folder that lives as long as this test run: named after the vitest process that started the test
 * processes (its pid and start time, so a later run with a reused pid gets another folder).
 */
function runDir(): string {
  let start = '';
  try {
    start = readFileSync(`/proc/${process.ppid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19] ?? '';
  } catch {
    // not Linux: the pid alone
  }
  return path.join(os.tmpdir(), `cas-test-tools-${process.ppid}-${start}`);
}

/** True for the first caller of this vitest run that reports `tool` missing (outside vitest: always). */
function firstReport(tool: Tool): boolean {
  if (!process.env.VITEST) return true;
  try {
    const dir = runDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, tool), '', { flag: 'wx' });
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'EEXIST';
  }
}

/**
 * Whether the tools are all present. `skip` goes to `describe.skipIf`/`it.skipIf`, `note` at the end
 * of the title: "" when present, " (skipped: needs qpdf)" when not. A missing tool is reported once
 * per run on stderr.
 */
export function needs(...tools: Tool[]): { skip: boolean; note: string } {
  const missing = tools.filter((t) => {
    const first = !known.has(t);
    const ok = toolPath(t) !== null;
    if (!ok && first && firstReport(t))
      process.stderr.write(
        `skipped: tests that need ${t} (Debian package ${TOOLS[t].pkg}; \`npm run setup:test\` installs the test tools)\n`,
      );
    return !ok;
  });
  return { skip: missing.length > 0, note: missing.length ? ` (skipped: needs ${missing.join(', ')})` : '' };
}

/** The Debian packages of every tool the tests use (scripts/setup-test.sh installs these). */
export const TEST_PACKAGES: readonly string[] = Object.values(TOOLS).map((t) => t.pkg);
