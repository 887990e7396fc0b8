/**
 * The local parse pipeline the CLI shares: read a file, open it with password candidates,
 * detect and parse; batches on a worker pool sized to the cores.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CasError, DocumentError } from '../errors.js';
import { openPdf, readSource } from '../pdf/open.js';
import type { PdfDocument } from '../pdf/model.js';
import { detect, parseDocument, type AnyResult, type Detection, type ParseOptions } from '../parsers/index.js';

export interface PasswordPlan {
  /** Explicit password (flag, file or CAS_PDF_PASSWORD). */
  explicit?: string;
  /** Candidates from config (the PAN in capitals). */
  candidates: string[];
}

export interface FileOutcome {
  file: string;
  ok: boolean;
  result?: AnyResult;
  detection?: Detection;
  error?: { code: string; message: string; exitCode: number };
}

function passwordList(plan: PasswordPlan): (string | undefined)[] {
  const list: (string | undefined)[] = plan.explicit !== undefined ? [plan.explicit] : [undefined];
  for (const c of plan.candidates) if (!list.includes(c)) list.push(c);
  return list;
}

export const PASSWORD_HINT = 'give it with --password-file FILE, CAS_PDF_PASSWORD, --password, or `cas config set pan ABCDE1234F`';

/** Open with each candidate in turn; the last password error is reported with a hint. */
export async function openWithPasswords(bytes: Uint8Array, plan: PasswordPlan): Promise<PdfDocument> {
  let last: unknown;
  for (const pw of passwordList(plan)) {
    try {
      return await openPdf(bytes, { password: pw });
    } catch (err) {
      if (err instanceof DocumentError && (err.code === 'PasswordRequired' || err.code === 'IncorrectPassword')) {
        last = err;
        continue;
      }
      throw err;
    }
  }
  const tried = passwordList(plan).filter((p) => p !== undefined).length;
  if (tried && last instanceof DocumentError && last.code === 'IncorrectPassword') {
    throw new DocumentError('IncorrectPassword', `the password is incorrect for this PDF (${tried} candidate${tried > 1 ? 's' : ''} tried); ${PASSWORD_HINT}`);
  }
  throw new DocumentError('PasswordRequired', `the PDF is password-protected; ${PASSWORD_HINT}`);
}

export async function parseBytes(bytes: Uint8Array, plan: PasswordPlan, opts: ParseOptions): Promise<AnyResult> {
  const doc = await openWithPasswords(bytes, plan);
  return parseDocument(doc, opts);
}

export async function detectBytes(bytes: Uint8Array, plan: PasswordPlan): Promise<Detection> {
  return detect(await openWithPasswords(bytes, plan));
}

export function errorInfo(err: unknown): { code: string; message: string; exitCode: number } {
  if (err instanceof CasError) return { code: err.code, message: err.message, exitCode: err.exitCode };
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'ENOENT') return { code: 'NotFound', message: `no such file: ${e.path ?? ''}`, exitCode: 2 };
  if (e?.code === 'EACCES') return { code: 'NotReadable', message: `permission denied: ${e.path ?? ''}`, exitCode: 1 };
  return { code: 'Unexpected', message: String(e?.message ?? err), exitCode: 1 };
}

/** Expand folders into the PDFs inside them (sorted); keep files and `-` as given. */
export async function expandInputs(inputs: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const i of inputs) {
    if (i === '-') {
      out.push(i);
      continue;
    }
    const st = await fs.stat(i).catch(() => null);
    if (st?.isDirectory()) {
      const entries = await fs.readdir(i, { recursive: true, withFileTypes: true });
      const pdfs = entries.filter((e) => e.isFile() && /\.pdf$/i.test(e.name)).map((e) => path.join(e.parentPath ?? i, e.name)).sort();
      out.push(...pdfs);
    } else out.push(i);
  }
  return out;
}

export async function parseOne(file: string, plan: PasswordPlan, opts: ParseOptions & { detectOnly?: boolean }, stdinBytes?: Uint8Array): Promise<FileOutcome> {
  try {
    const bytes = file === '-' && stdinBytes ? stdinBytes : await readSource(file);
    if (opts.detectOnly) return { file, ok: true, detection: await detectBytes(bytes, plan) };
    const result = await parseBytes(bytes, plan, opts);
    return { file, ok: true, result, detection: result.detection };
  } catch (err) {
    return { file, ok: false, error: errorInfo(err) };
  }
}

/** Parse many files on a pool of worker threads; results come back in input order. */
export async function parseMany(files: string[], plan: PasswordPlan, opts: ParseOptions & { detectOnly?: boolean }, jobs: number, onDone: (o: FileOutcome, done: number) => void): Promise<FileOutcome[]> {
  const size = Math.max(1, Math.min(jobs, files.length));
  const results: FileOutcome[] = new Array(files.length);
  let next = 0;
  let done = 0;
  const workerUrl = new URL('./parse-worker.js', import.meta.url);
  await Promise.all(Array.from({ length: size }, () => new Promise<void>((resolve) => {
    const w = new Worker(workerUrl, { workerData: { plan, opts } });
    const feed = (): void => {
      if (next >= files.length) {
        void w.terminate().then(() => resolve());
        return;
      }
      const idx = next++;
      w.once('message', (o: FileOutcome) => {
        results[idx] = o;
        onDone(o, ++done);
        feed();
      });
      w.postMessage({ file: files[idx] });
    };
    w.once('error', (err) => {
      for (let i = 0; i < files.length; i++) if (!results[i]) results[i] = { file: files[i], ok: false, error: errorInfo(err) };
      resolve();
    });
    feed();
  })));
  return results;
}

export function defaultJobs(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

/**
 * Parse files that a command just saved (fetch, inbox download) and write one compact JSON
 * document per line; errors go to stderr. Returns the exit code (3 when any file failed).
 */
export async function parseSaved(files: string[], plan: PasswordPlan, write: (text: string) => Promise<void>): Promise<number> {
  const docs: string[] = [];
  let failed = 0;
  for (const file of files) {
    const o = await parseOne(file, plan, {});
    if (o.ok) docs.push(`${JSON.stringify(o.result!.data)}\n`);
    else {
      failed++;
      process.stderr.write(`error: ${file}: ${o.error?.message}\n`);
    }
  }
  await write(docs.join(''));
  return failed ? 3 : 0;
}
