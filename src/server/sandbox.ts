/**
 * The sandbox's data, read from the package itself (so an installed copy finds it as the work tree
 * does): the shipped fixtures' expected JSON (`fixtures/expected/`, what the sandbox key's parse
 * and gains requests return) and the sandbox set (`fixtures/sandbox/`: six monthly depository_a
 * statements and the mailbox's files of one example investor, with `manifest.json`; made by
 * `npm run fixtures`, test/fixtures/sandbox-data.ts). A file missing from the installation answers
 * 503 naming it, never a stack trace.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError } from './context.js';

/** The package's root: the nearest folder above this module that holds package.json (work tree or node_modules/<name>). */
export const PACKAGE_ROOT = ((): string => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(here, '../..');
  }
})();

/** A path inside the package, relative to its root (e.g. `fixtures/sandbox/manifest.json`). */
export const packagePath = (rel: string): string => path.join(PACKAGE_ROOT, rel);

/** The bytes of a file of the package, or a 503 naming the file when this installation lacks it. */
function packageFile(rel: string): Buffer {
  try {
    return readFileSync(packagePath(rel));
  } catch {
    throw new ApiError(
      503,
      `the sandbox data is missing from this installation: ${rel} (looked in ${PACKAGE_ROOT}); reinstall the package, or run \`npm run fixtures\` in a clone`,
    );
  }
}

const cache = new Map<string, unknown>();
function packageJson<T>(rel: string): T {
  if (!cache.has(rel)) cache.set(rel, JSON.parse(packageFile(rel).toString('utf8')));
  return structuredClone(cache.get(rel)) as T;
}

/** Sample data the sandbox key returns (fixtures/expected/<name>.json). */
export function sample(name: string): unknown {
  return packageJson(`fixtures/expected/${name}.json`);
}

const SANDBOX_DIR = 'fixtures/sandbox';

/** fixtures/sandbox/manifest.json (written by test/fixtures/sandbox-data.ts). */
export interface SandboxManifest {
  investor: { name: string; pan: string; bo_id: string; dob: string; email: string; mobile: string };
  /** Every sandbox PDF opens with this password (the investor's PAN). */
  password: string;
  /** Monthly depository_a statements, newest first; paths relative to fixtures/sandbox. */
  depository_a: { path: string; expected: string; period: { from: string; to: string } }[];
  /** What the sandbox mailbox finds. */
  inbox: { path: string; expected: string; source: 'registrar_a' | 'depository_a'; sender: string; filename: string }[];
}

export function sandboxManifest(): SandboxManifest {
  return packageJson<SandboxManifest>(`${SANDBOX_DIR}/manifest.json`);
}

/** A file of the sandbox set by its manifest path (e.g. `depository_a/MAR2026_AA07602549_TXN.pdf`). */
export function sandboxFile(rel: string): Buffer {
  return packageFile(`${SANDBOX_DIR}/${rel}`);
}

/** The documented default sandbox key (override with --sandbox-key or CAS_SANDBOX_KEY). */
export const DEFAULT_SANDBOX_KEY = 'cas_sandbox_public_key';
