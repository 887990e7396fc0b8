/**
 * The one bounded reader of files a user names (a PDF, a folder's PDFs, stdin, --password-file,
 * --scheme-types, --fmv, the config file, --api-key-file). Whatever a file claims (a size of 0 for
 * /dev/zero or /proc files, a FIFO, a growing file), bytes are counted as they are read and the read
 * stops at the limit plus one byte. What it refuses, each with one line and a documented exit code:
 *
 * - a name that cannot be found (missing, a dangling link, a symlink loop): NotFound, exit 8;
 * - a folder, a device (/dev/zero, a terminal), a socket, a file it may not read: usage, exit 2;
 * - more bytes than the limit: the caller's error (a PDF's `TooLarge`, exit 3; else usage, exit 2);
 * - a FIFO (or a pipe such as bash's `<(...)`) is opened without blocking and must deliver all of its
 *   content within CAS_FIFO_TIMEOUT seconds (default 30): a FIFO with no writer never hangs.
 *
 * Paths may be Buffers: a file name that is not valid UTF-8 is opened by its bytes and shown with
 * the invalid bytes escaped (`\xff`), and remembered by that name (`shownName`, `inputPath`).
 */
import { closeSync, constants, fstatSync, openSync, readSync, promises as fsp, type Stats } from 'node:fs';
import { CasError, DocumentError, NotFoundError, UsageError } from '../errors.js';

/** A path as the user gave it: a string, or the raw bytes of a name that is not valid UTF-8. */
export type InputPath = string | Uint8Array;

export interface ReadLimits {
  /** Most bytes accepted; one more is an error. */
  limit: number;
  /** How the message names the file's role, e.g. `--password-file` (empty for a PDF named as input). */
  what?: string;
  /** The error for more than `limit` bytes (default: a usage error naming the limit). */
  tooLarge?: (name: string, limit: number) => Error;
  /** Deadline for a FIFO's whole content, in ms (default CAS_FIFO_TIMEOUT seconds, else 30 s). */
  fifoTimeoutMs?: number;
}

const DEFAULT_FIFO_SECONDS = 30;
const CHUNK = 64 * 1024;

/** The deadline of a FIFO read: CAS_FIFO_TIMEOUT seconds (at least 0.1), else 30 s. */
export function fifoTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.CAS_FIFO_TIMEOUT;
  if (raw === undefined || raw === '') return DEFAULT_FIFO_SECONDS * 1000;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0.1) throw new UsageError(`CAS_FIFO_TIMEOUT must be a number of at least 0.1 (got '${raw}')`);
  return Math.round(n * 1000);
}

/** A name for messages: valid UTF-8 as it is, other bytes as `\xNN`; control characters escaped too. */
export function displayPath(p: InputPath): string {
  const s = typeof p === 'string' ? p : utf8OrEscaped(Buffer.from(p.buffer, p.byteOffset, p.byteLength));
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Decode UTF-8, escaping each byte of an invalid sequence as `\xNN` (so the name is unambiguous). */
function utf8OrEscaped(b: Buffer): string {
  let out = '';
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    const n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    let ok = n > 0 && i + n <= b.length;
    for (let k = 1; ok && k < n; k++) ok = (b[i + k] & 0xc0) === 0x80;
    if (ok && n > 1) {
      // Overlong, surrogate and beyond-U+10FFFF forms are invalid too.
      const s = b.subarray(i, i + n).toString('utf8');
      ok = !s.includes('\ufffd') && Buffer.from(s, 'utf8').equals(b.subarray(i, i + n));
    }
    if (ok) {
      out += b.subarray(i, i + n).toString('utf8');
      i += n;
    } else {
      out += `\\x${c.toString(16).padStart(2, '0')}`;
      i++;
    }
  }
  return out;
}

/** The path Node's fs takes (a structured clone turns a Buffer into a plain Uint8Array). */
export function fsPath(p: InputPath): string | Buffer {
  return typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength);
}

function label(name: string, what?: string): string {
  return what ? `${what} ${name}` : name;
}

/** A file-system error on a named file as one line with a documented exit code. */
export function inputError(err: unknown, p: InputPath, what?: string): Error {
  if (err instanceof CasError) return err;
  const e = err as NodeJS.ErrnoException;
  const name = label(displayPath(p), what);
  const role = what ? ` (${what})` : '';
  switch (e?.code) {
    case 'ENOENT':
      return new NotFoundError(`no such file: ${displayPath(p)}${role}`);
    case 'ENOTDIR':
      return new NotFoundError(`no such file: ${displayPath(p)}${role} (a part of the path is not a folder)`);
    case 'ELOOP':
      return new NotFoundError(`cannot open ${name}: too many symbolic links (a link loop)`);
    case 'EACCES':
    case 'EPERM':
      return new UsageError(`cannot read ${name}: permission denied`);
    case 'EISDIR':
      return new UsageError(`${name} is a folder, not a file`);
    case 'ENAMETOOLONG':
      return new UsageError(`cannot open ${name}: the name is too long`);
    case 'ENXIO':
    case 'ENODEV':
    case 'EOPNOTSUPP':
      return new UsageError(`${name} is a socket or device, not a file`);
    case 'EIO':
      return new UsageError(`cannot read ${name}: input/output error`);
    default:
      return err instanceof Error ? err : new Error(String(err));
  }
}

/** Refuse what is not a regular file or a FIFO (folders, devices, sockets), naming what it is. */
function checkKind(st: Stats, p: InputPath, what: string | undefined, fifoOk: boolean): void {
  if (st.isFile()) return;
  const name = label(displayPath(p), what);
  if (st.isDirectory()) throw new UsageError(`${name} is a folder, not a file`);
  if (st.isFIFO()) {
    if (fifoOk) return;
    throw new UsageError(`${name} is a FIFO (named pipe), not a file`);
  }
  if (st.isCharacterDevice() || st.isBlockDevice())
    throw new UsageError(`${name} is a device, not a file${what ? '' : ' (to read from a pipe or a terminal, give - for stdin)'}`);
  throw new UsageError(`${name} is a socket or other special file, not a file`);
}

function tooLarge(p: InputPath, opts: ReadLimits): Error {
  const name = label(displayPath(p), opts.what);
  return opts.tooLarge ? opts.tooLarge(name, opts.limit) : new UsageError(`${name} is larger than the limit of ${opts.limit} bytes`);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Read a named file within the limit. Regular files are read chunk by chunk until they end (never
 * trusting their reported size); a FIFO is polled without blocking until its writer closes it, or
 * refused at the deadline.
 */
export async function readInputFile(p: InputPath, opts: ReadLimits): Promise<Buffer> {
  let fh: fsp.FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
    fh = await fsp.open(fsPath(p), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    throw inputError(err, p, opts.what);
  }
  try {
    const st = await fh.stat();
    checkKind(st, p, opts.what, true);
    const chunks: Buffer[] = [];
    let size = 0;
    const fifo = st.isFIFO();
    const deadline = fifo ? Date.now() + (opts.fifoTimeoutMs ?? fifoTimeoutMs()) : Infinity;
    let writerSeen = false;
    for (;;) {
      const buf = Buffer.allocUnsafe(CHUNK);
      let n: number;
      try {
        ({ bytesRead: n } = await fh.read(buf, 0, CHUNK, null));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || !fifo) throw inputError(err, p, opts.what);
        // A writer is there but has sent nothing yet.
        writerSeen = true;
        if (Date.now() > deadline) throw fifoTimeout(p, opts);
        await sleep(20);
        continue;
      }
      if (n === 0) {
        // The end of a file; for a FIFO, the end once a writer has come (no writer yet: wait for one).
        if (!fifo || writerSeen || size > 0) break;
        if (Date.now() > deadline) throw fifoTimeout(p, opts);
        await sleep(20);
        continue;
      }
      writerSeen = true;
      size += n;
      if (size > opts.limit) throw tooLarge(p, opts);
      chunks.push(buf.subarray(0, n));
    }
    return Buffer.concat(chunks, size);
  } finally {
    await fh.close().catch(() => undefined);
  }
}

function fifoTimeout(p: InputPath, opts: ReadLimits): Error {
  const s = (opts.fifoTimeoutMs ?? fifoTimeoutMs()) / 1000;
  return new UsageError(
    `${label(displayPath(p), opts.what)} is a FIFO (named pipe) that sent no complete content within ${s} s (no writer, or it never closed); CAS_FIFO_TIMEOUT sets the wait`,
  );
}

/** The same read for callers that cannot wait (the config file, --api-key-file): regular files only. */
export function readInputFileSync(p: InputPath, opts: ReadLimits): Buffer {
  let fd: number;
  try {
    fd = openSync(fsPath(p), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    throw inputError(err, p, opts.what);
  }
  try {
    checkKind(fstatSync(fd), p, opts.what, false);
    return readFdSync(fd, p, opts);
  } catch (err) {
    throw inputError(err, p, opts.what);
  } finally {
    closeSync(fd);
  }
}

/** Read an open descriptor to its end within the limit (EAGAIN on a non-blocking pipe: wait a little). */
export function readFdSync(fd: number, p: InputPath, opts: ReadLimits): Buffer {
  const chunks: Buffer[] = [];
  let size = 0;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const buf = Buffer.allocUnsafe(CHUNK);
    let n: number;
    try {
      n = readSync(fd, buf, 0, CHUNK, null);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
        Atomics.wait(pause, 0, 0, 20);
        continue;
      }
      if ((err as NodeJS.ErrnoException).code === 'EOF') break;
      throw err;
    }
    if (n === 0) break;
    size += n;
    if (size > opts.limit) throw tooLarge(p, opts);
    chunks.push(buf.subarray(0, n));
  }
  return Buffer.concat(chunks, size);
}

/** A PDF named as input: within the byte limit (`TooLarge`, exit 3, past it). */
export async function readPdfFile(p: InputPath, maxBytes: number): Promise<Uint8Array> {
  const b = await readInputFile(p, {
    limit: maxBytes,
    tooLarge: (name, limit) => new DocumentError('TooLarge', `${name} is larger than the limit of ${limit} bytes`),
  });
  // A plain Uint8Array (pdf.js refuses a Buffer): a view when the bytes have their own memory, else a copy.
  return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? new Uint8Array(b.buffer, 0, b.byteLength) : new Uint8Array(b);
}

/**
 * Files whose names are not valid UTF-8: the name shown (invalid bytes escaped, `\xff`) -> the
 * bytes the file is opened by. Every other file is opened by the name shown.
 */
const rawPaths = new Map<string, Uint8Array>();

/** The name to show for a path a user gave (and, when it is not valid UTF-8, its bytes kept for `inputPath`). */
function shownName(p: InputPath): string {
  if (typeof p === 'string') return p;
  const name = displayPath(p);
  const b = Buffer.from(p);
  if (b.toString('utf8') === name && !name.includes('\\x')) return name;
  rawPaths.set(name, b);
  return name;
}

/** What a file is opened by: its bytes when its name (as `shownName` gave it) is not valid UTF-8, else the name itself. */
export function inputPath(file: string): InputPath {
  return rawPaths.get(file) ?? file;
}

/** The PDFs under a folder, by their bytes (names need not be UTF-8); links are not followed. */
async function pdfsIn(dir: Buffer): Promise<Buffer[]> {
  const out: Buffer[] = [];
  const walk = async (d: Buffer): Promise<void> => {
    let entries;
    try {
      entries = await fsp.readdir(d, { withFileTypes: true, encoding: 'buffer' });
    } catch (err) {
      throw inputError(err, d);
    }
    for (const e of entries) {
      const name = e.name as unknown as Buffer;
      const full = Buffer.concat([d, d[d.length - 1] === 0x2f ? Buffer.alloc(0) : Buffer.from('/'), name]);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile() && /\.pdf$/i.test(name.toString('latin1'))) out.push(full);
    }
  };
  await walk(dir);
  return out;
}

/**
 * The PDFs a command is given (its arguments as `argPath` read them, cli/io.ts): folders expanded
 * into the PDFs inside them (sorted), files and `-` kept as given, each by the name it is shown by.
 * A name that is not valid UTF-8 (on the command line or in a folder) is shown escaped and opened by
 * its bytes (`inputPath`).
 */
export async function expandInputs(inputs: InputPath[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of inputs) {
    if (p === '-') {
      out.push(p);
      continue;
    }
    const st = await fsp.stat(fsPath(p)).catch(() => null);
    if (st?.isDirectory()) {
      let dir = Buffer.from(fsPath(p));
      while (dir.length > 1 && dir[dir.length - 1] === 0x2f) dir = dir.subarray(0, -1);
      const names = (await pdfsIn(dir)).map(shownName);
      out.push(...names.sort());
    } else out.push(shownName(p));
  }
  return out;
}
