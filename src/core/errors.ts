/**
 * The one error map of a parse job: error code -> CLI exit code, HTTP status and the message an
 * API caller reads. The CLI prints `message`; the server answers `{status: 'failed', msg: apiMessage}`
 * with `httpStatus`.
 */
import { CasError, ExitCode } from '../errors.js';

export interface JobError {
  code: string;
  /** One line for the CLI (may name CLI flags). */
  message: string;
  exitCode: number;
  httpStatus: number;
  /** One line for an API caller (never names CLI flags, never a stack). */
  apiMessage: string;
}

/** How a CLI user gives a password (in the CLI's password messages). */
export const PASSWORD_HINT = 'give it with --password-file FILE, CAS_PDF_PASSWORD, --password, or `cas config set pan <PAN>`';

interface Entry {
  exitCode: number;
  httpStatus: number;
  /** A fixed API message; otherwise the CLI message is used. */
  api?: string;
}

const DOC: Entry = { exitCode: ExitCode.DOCUMENT, httpStatus: 400 };

export const ERROR_MAP: Record<string, Entry> = {
  PasswordRequired: { ...DOC, api: 'the PDF is password-protected: give its password' },
  IncorrectPassword: { ...DOC, api: 'invalid password for this PDF' },
  NotAPdf: DOC,
  DamagedPdf: DOC,
  NoTextLayer: DOC,
  UnsupportedDocument: DOC,
  TypeMismatch: DOC,
  ParseFailed: DOC,
  /** More bytes or pages than the limits allow. */
  TooLarge: DOC,
  /** The job ran out of its wall-clock budget (the worker was stopped). */
  Timeout: DOC,
  /** The job needed more memory than a worker may use (the worker was stopped). */
  ResourceLimit: DOC,
  /** The worker died for another reason; it was replaced. */
  WorkerCrashed: {
    exitCode: ExitCode.UNEXPECTED,
    httpStatus: 500,
    api: 'the document could not be parsed (the parser stopped unexpectedly)',
  },
  NotFound: { exitCode: ExitCode.USAGE, httpStatus: 400 },
  NotReadable: { exitCode: ExitCode.UNEXPECTED, httpStatus: 500 },
  UsageError: { exitCode: ExitCode.USAGE, httpStatus: 400 },
  Cancelled: { exitCode: ExitCode.INTERRUPTED, httpStatus: 500 },
  Unexpected: { exitCode: ExitCode.UNEXPECTED, httpStatus: 500, api: 'the document could not be parsed' },
};

/** A job error from a code and a one-line message. */
export function jobError(code: string, message: string, exitCode?: number): JobError {
  const e = ERROR_MAP[code];
  const exit = exitCode ?? e?.exitCode ?? ExitCode.UNEXPECTED;
  const httpStatus = e?.httpStatus ?? (exit === ExitCode.DOCUMENT || exit === ExitCode.USAGE ? 400 : 500);
  const line = message.split('\n')[0];
  return { code, message: line, exitCode: exit, httpStatus, apiMessage: e?.api ?? (httpStatus >= 500 ? ERROR_MAP.Unexpected.api! : line) };
}

/** Any thrown value as a job error (typed errors keep their code; file-system errors get theirs). */
export function errorInfo(err: unknown): JobError {
  if (err instanceof CasError) return jobError(err.code, err.message, err.exitCode);
  const e = err as NodeJS.ErrnoException;
  // The caller names the file (`cas: FILE: no such file`), so the message does not repeat it.
  if (e?.code === 'ENOENT') return jobError('NotFound', 'no such file');
  if (e?.code === 'EACCES') return jobError('NotReadable', 'permission denied');
  if (e?.code === 'EISDIR') return jobError('NotAPdf', 'a folder, not a PDF');
  return jobError('Unexpected', String(e?.message ?? err));
}
