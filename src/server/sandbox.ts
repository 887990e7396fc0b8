/** Sample data the sandbox key returns (the shipped fixtures' expected JSON). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/expected');
const cache = new Map<string, unknown>();

export function sample(name: string): unknown {
  if (!cache.has(name)) cache.set(name, JSON.parse(readFileSync(path.join(DIR, `${name}.json`), 'utf8')));
  return structuredClone(cache.get(name));
}

/** The documented default sandbox key (override with --sandbox-key or CAS_SANDBOX_KEY). */
export const DEFAULT_SANDBOX_KEY = 'cas_sandbox_public_key';
