/** Folders and files only the owner can use: the database, its key file, the stored files. */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';

/**
 * Make a folder only the owner can use (0700, whatever the umask), with the parents it needs; a
 * folder that exists already is left as it is unless `own` (a folder that is entirely ours).
 */
export function privateDir(dir: string, own = false): void {
  const abs = path.resolve(dir);
  const first = existsSync(abs) ? undefined : mkdirSync(abs, { recursive: true, mode: 0o700 });
  if (first) for (let d = abs; d.length >= first.length; d = path.dirname(d)) chmodSync(d, 0o700);
  else if (own) chmodSync(abs, 0o700);
}

/** Make a file (or tighten one) readable and writable by the owner only. */
export function privateFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}
