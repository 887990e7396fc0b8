/** Test helpers: run the built `cas` binary with execa in an isolated config dir. */
import { execa, type Options } from 'execa';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin', 'cas.js');
export const FIXTURES = path.join(ROOT, 'fixtures');

export function tmpDir(prefix = 'cas-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * A clean environment: no inherited CAS_* settings, no colour forcing, own config dir, and no CI
 * marker (the CLI never prompts when CI=true, so a CI runner's own CI=true must not leak into the
 * terminal tests; tests that want it set it explicitly).
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('CAS_') && k !== 'FORCE_COLOR' && k !== 'NO_COLOR' && k !== 'CI') env[k] = v;
  return { ...env, CAS_CONFIG_DIR: tmpDir('cas-config-'), ...extra };
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export async function cas(args: string[], opts: Options & { env?: Record<string, string | undefined> } = {}): Promise<RunResult> {
  const r = await execa('node', [BIN, ...args], {
    reject: false,
    extendEnv: false,
    env: cleanEnv(),
    stdin: 'ignore',
    ...opts,
    ...(opts.env ? { env: { ...cleanEnv(), ...opts.env } } : {}),
  });
  return { exitCode: r.exitCode ?? 1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
}

export interface ManifestEntry {
  path: string;
  kind: string;
  password: string | null;
  expected: string;
  traits: string[];
}

export function manifest(): ManifestEntry[] {
  return JSON.parse(readFileSync(path.join(FIXTURES, 'manifest.json'), 'utf8')) as ManifestEntry[];
}

export function expectedJson(rel: string): unknown {
  return JSON.parse(readFileSync(path.join(FIXTURES, rel), 'utf8'));
}

export function fixture(rel: string): string {
  return path.join(FIXTURES, rel);
}
