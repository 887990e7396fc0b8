/**
 * Every file the CLI reads because a user named it goes through here (and src/core/input.ts): the
 * PDFs and folders given to parse, smart, gains and portfolio (their names: `argPath`), stdin, --password-file, --scheme-types, --fmv,
 * --api-key-file, the config file; and the places it writes (-o, --out-dir) are checked here
 * before any work is done. Reads are bounded whatever the file claims, FIFOs have a deadline,
 * devices and folders are refused with one line, and names that are not valid UTF-8 are opened by
 * their bytes (recovered from the command line) and shown escaped.
 */
import { readFileSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { displayPath, fsPath, inputError, readFdSync, readInputFile, readInputFileSync, type InputPath } from '../core/input.js';

export { displayPath, type InputPath };

/** Small files (passwords, keys, scheme lists, the config file): 1 MiB is far more than any needs. */
export const SMALL_FILE_LIMIT = 1024 * 1024;

/** Read stdin within the limit (counted as it arrives; the read stops at the limit plus one). */
export async function readStdin(limit = SMALL_FILE_LIMIT, tooLarge?: (limit: number) => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += b.length;
    if (size > limit) {
      process.stdin.destroy();
      throw tooLarge ? tooLarge(limit) : new UsageError(`stdin is larger than the limit of ${limit} bytes`);
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks, size);
}

let rawArgs: Buffer[] | undefined;

/** This process's arguments as bytes (Linux: /proc/self/cmdline), or none where that cannot be read. */
function commandLineBytes(): Buffer[] {
  if (rawArgs) return rawArgs;
  try {
    const all = readFileSync('/proc/self/cmdline');
    const parts: Buffer[] = [];
    let start = 0;
    for (let i = 0; i < all.length; i++)
      if (all[i] === 0) {
        parts.push(all.subarray(start, i));
        start = i + 1;
      }
    // The user's arguments are the last ones (node, its own flags and the script come first).
    rawArgs = parts.slice(Math.max(0, parts.length - (process.argv.length - 2)));
  } catch {
    rawArgs = [];
  }
  return rawArgs;
}

/**
 * The path a command-line value stands for. Node decodes arguments as UTF-8, replacing bytes that
 * are not (U+FFFD), which would name a file that does not exist: such a value is matched back to
 * its bytes on the command line (`--flag VALUE` or `--flag=VALUE`).
 */
export function argPath(value: string): InputPath {
  if (!value.includes('\ufffd')) return value;
  for (const raw of commandLineBytes()) {
    if (raw.toString('utf8') === value) return raw;
    const eq = raw.indexOf(0x3d);
    if (raw[0] === 0x2d && eq > 0 && raw.subarray(eq + 1).toString('utf8') === value) return raw.subarray(eq + 1);
  }
  return value;
}

/** A small file a flag names (`-` is stdin), as text, within SMALL_FILE_LIMIT. */
export async function readFlagFile(value: string, what: string, limit = SMALL_FILE_LIMIT): Promise<string> {
  if (value === '-') return (await readStdin(limit)).toString('utf8');
  const p = argPath(value);
  return (await readInputFile(p, { limit, what })).toString('utf8');
}

/** The same for callers that cannot wait (regular files and stdin only). */
export function readFlagFileSync(value: string, what: string, limit = SMALL_FILE_LIMIT): string {
  if (value === '-') {
    return readFdSync(0, 'stdin', { limit, what }).toString('utf8');
  }
  return readInputFileSync(argPath(value), { limit, what }).toString('utf8');
}

/**
 * `--password-file` (none: undefined): one bounded read, without its final newline. A missing file
 * is exit 8; a folder, a device or a FIFO that sends nothing is exit 2; `-` is stdin, unless stdin
 * carries the PDF.
 */
export async function readPasswordFile(file: string | undefined, stdinCarriesPdf = false): Promise<string | undefined> {
  if (!file) return undefined;
  if (file === '-' && stdinCarriesPdf) throw new UsageError('stdin cannot carry both the PDF (-) and its password (--password-file -)');
  return (await readFlagFile(file, '--password-file', 64 * 1024)).replace(/\r?\n$/, '');
}

/**
 * Where `-o FILE` will write: refused at once when FILE is a folder, or its folder does not exist
 * or is not a folder (nothing is parsed first, nothing half-written after).
 */
export async function checkOutputFile(file: string, what = '--output'): Promise<void> {
  const p = argPath(file);
  const st = await fs.stat(fsPath(p)).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? null : Promise.reject(err)));
  const name = `${what} ${displayPath(p)}`;
  if (st?.isDirectory()) throw new UsageError(`${name} is a folder: name a file to write`);
  if (st && !st.isFile()) throw new UsageError(`${name} is not a regular file: name a file to write (or give - for stdout)`);
  const dir = path.dirname(path.resolve(file));
  const d = await fs.stat(dir).catch(() => null);
  if (!d) throw new UsageError(`${name}: the folder ${displayPath(dir)} does not exist`);
  if (!d.isDirectory()) throw new UsageError(`${name}: ${displayPath(dir)} is not a folder`);
}

/**
 * `--out-dir DIR` (and the download folders): created when missing (unless `create` is false: the
 * early check before any work); a file (or anything but a folder) in its place is refused.
 */
export async function ensureOutDir(dir: string, what = '--out-dir', create = true): Promise<void> {
  const p = argPath(dir);
  const st = await fs
    .stat(fsPath(p))
    .catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? null : Promise.reject(inputError(err, p, what))));
  if (st?.isDirectory()) return;
  if (st) throw new UsageError(`${what} ${displayPath(p)} is a file, not a folder: name a folder (it is created when missing)`);
  if (!create) return;
  try {
    await fs.mkdir(fsPath(p), { recursive: true });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EEXIST' || e.code === 'ENOTDIR')
      throw new UsageError(`${what} ${displayPath(p)} cannot be created: a part of its path is a file`);
    throw inputError(err, p, what);
  }
}

/** A failed write (-o, --out-dir, a download) as one line: a folder in the way, a missing folder, no permission. */
export function writeError(err: unknown, file: string): Error {
  const e = err as NodeJS.ErrnoException;
  const name = displayPath(file);
  if (e?.code === 'EISDIR') return new UsageError(`cannot write ${name}: it is a folder`);
  if (e?.code === 'ENOENT' || e?.code === 'ENOTDIR') return new UsageError(`cannot write ${name}: its folder does not exist`);
  if (e?.code === 'EACCES' || e?.code === 'EPERM' || e?.code === 'EROFS') return new UsageError(`cannot write ${name}: permission denied`);
  if (e?.code === 'ENOSPC') return new UsageError(`cannot write ${name}: no space left on the device`);
  return err instanceof Error ? err : new Error(String(err));
}
