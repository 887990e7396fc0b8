/**
 * One parse job: read -> open (with password candidates) -> detect -> parse -> self-check ->
 * outcome. The same job runs in-process (`runParseJob`) or on the shared worker pool (pool.ts),
 * for `cas parse` and for `cas serve` alike. It never throws: every failure is an outcome with a
 * code from the one error map (errors.ts).
 */
import { DocumentError } from '../errors.js';
import { openPdf } from '../pdf/open.js';
import { readPdfFile, type InputPath } from './input.js';
import { withinDeadline, type EngineName } from '../pdf/engine.js';
import type { PdfDocument } from '../pdf/model.js';
import { detect, parseDocument, type Detection, type StatementKind } from '../parsers/index.js';
import type { BrokerType, ParseWarning } from '../schema/index.js';
import { errorInfo, jobError, PASSWORD_HINT, type JobError } from './errors.js';
import { parseLimits, type ParseLimits } from './limits.js';

/** The passwords a job tries, as a command builds them once: the job carries them as they are. */
export interface PasswordPlan {
  /** The password to try first (a flag, a file or CAS_PDF_PASSWORD; none: try without one first). */
  password?: string;
  /** Further passwords to try in turn (a PAN given to the command, the configured PAN). */
  candidates?: string[];
}

export interface ParseJob extends PasswordPlan {
  /** The PDF; or `file`, a path the job reads (within the byte limit; bytes for a name that is not UTF-8). */
  bytes?: Uint8Array;
  file?: InputPath;
  type?: StatementKind;
  broker?: BrokerType;
  /** Stop after detection (the outcome's data is null). */
  detectOnly?: boolean;
  /** Limits of this job; unset ones come from the environment and defaults. */
  limits?: Partial<ParseLimits>;
  /** The PDF text engine (unset: CAS_PDF_ENGINE, else pdfium). */
  engine?: EngineName;
}

export type ParseSuccess = { ok: true; data: unknown; warnings: ParseWarning[]; detection: Detection };
export type ParseFailure = { ok: false } & JobError;
/** The one outcome of a parse job. */
export type ParseOutcome = ParseSuccess | ParseFailure;

function passwordList(plan: PasswordPlan): (string | undefined)[] {
  const list: (string | undefined)[] = [plan.password];
  for (const c of plan.candidates ?? []) if (!list.includes(c)) list.push(c);
  return list;
}

const isPasswordError = (err: unknown): err is DocumentError =>
  err instanceof DocumentError && (err.code === 'PasswordRequired' || err.code === 'IncorrectPassword');

/** Open with each candidate in turn; the last password error is reported with a hint. */
export async function openWithPasswords(
  bytes: Uint8Array,
  plan: PasswordPlan,
  limits: Partial<ParseLimits> = {},
  engine?: EngineName,
  timing: InThread = {},
): Promise<PdfDocument> {
  const l = parseLimits(limits);
  let last: unknown;
  for (const pw of passwordList(plan)) {
    try {
      return await openPdf(bytes, { password: pw, maxBytes: l.maxBytes, maxPages: l.maxPages, timeoutMs: l.timeoutMs, engine, ...timing });
    } catch (err) {
      if (!isPasswordError(err)) throw err;
      last = err;
    }
  }
  const tried = passwordList(plan).filter((p) => p !== undefined).length;
  if (tried && last instanceof DocumentError && last.code === 'IncorrectPassword') {
    throw new DocumentError(
      'IncorrectPassword',
      `the password is incorrect for this PDF (${tried} candidate${tried > 1 ? 's' : ''} tried); ${PASSWORD_HINT}`,
    );
  }
  throw new DocumentError('PasswordRequired', `the PDF is password-protected; ${PASSWORD_HINT}`);
}

/** How a job run in a thread nobody else can stop is bounded (see inline.ts): its end, and the watchdog on. */
export interface InThread {
  deadline?: number;
  selfTimed?: boolean;
}

/**
 * Run one job in this thread. Without `timing`, nothing here can stop a synchronous spin: the pool
 * puts its limits around it. With `timing.selfTimed`, the engine and the parser run under a
 * watchdog that ends them at `timing.deadline` (Timeout).
 */
export async function runParseJob(job: ParseJob, timing: InThread = {}): Promise<ParseOutcome> {
  try {
    const limits = parseLimits(job.limits);
    const bytes = job.bytes ?? (job.file !== undefined ? await readPdfFile(job.file, limits.maxBytes) : undefined);
    if (!bytes) return { ok: false, ...jobError('UsageError', 'a parse job needs the PDF bytes or a file') };
    const doc = await openWithPasswords(bytes, job, limits, job.engine, timing);
    const { deadline } = timing;
    const bounded = <T>(fn: () => T): T =>
      timing.selfTimed && deadline !== undefined ? withinDeadline(deadline, limits.timeoutMs, fn) : fn();
    if (job.detectOnly) return { ok: true, data: null, warnings: [], detection: bounded(() => detect(doc)) };
    const r = bounded(() => parseDocument(doc, { type: job.type, broker: job.broker }));
    return selfCheck({ ok: true, data: r.data, warnings: r.warnings, detection: r.detection });
  } catch (err) {
    return { ok: false, ...errorInfo(err) };
  }
}

/** The outcome leaves the job as plain data: a parser result that is not an object is a parse failure. */
function selfCheck(o: ParseSuccess): ParseOutcome {
  if (!o.data || typeof o.data !== 'object') return { ok: false, ...jobError('ParseFailed', 'the parser returned no statement') };
  if (!o.detection || typeof o.detection.type !== 'string')
    return { ok: false, ...jobError('ParseFailed', 'the parser returned no detection') };
  return o;
}
