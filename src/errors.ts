/**
 * Typed errors shared by every layer. Each carries the CLI exit code it maps to, so the one
 * central handler in the CLI can print a one-line message and exit without a stack trace.
 *
 * Exit codes (the README's table; EXIT_CODES below is the same list as data):
 *   0 ok; 1 unexpected; 2 usage; 3 document; 4 auth/credits; 5 service error; 6 network (the service
 *   cannot be reached); 7 service unavailable or not configured (HTTP 503); 8 not found (a file, or
 *   an id the service does not know); 130 interrupted.
 */
export const ExitCode = {
  OK: 0,
  UNEXPECTED: 1,
  USAGE: 2,
  DOCUMENT: 3,
  AUTH: 4,
  SERVICE: 5,
  NETWORK: 6,
  UNAVAILABLE: 7,
  NOT_FOUND: 8,
  INTERRUPTED: 130,
} as const;

/** Every exit code and what it means, in order: help and the README print this table. */
export const EXIT_CODES: readonly [code: number, meaning: string][] = [
  [ExitCode.OK, 'success'],
  [ExitCode.UNEXPECTED, 'unexpected error (a bug: please report it with CAS_DEBUG=1)'],
  [
    ExitCode.USAGE,
    'usage: unknown command or flag, bad flag value, invalid --base-url, or a request the service refused as invalid (HTTP 400, 422)',
  ],
  [ExitCode.DOCUMENT, 'document: not a PDF, damaged, wrong or missing password, unsupported statement'],
  [ExitCode.AUTH, 'auth or credits: no API key, invalid or revoked key, credits used up, access refused'],
  [ExitCode.SERVICE, 'service error: the service failed (HTTP 5xx other than 503) or answered what it should not'],
  [ExitCode.NETWORK, 'network: the service could not be reached (connection refused, DNS, timeout), after retries'],
  [ExitCode.UNAVAILABLE, 'service unavailable or not configured (HTTP 503): the message names the setting'],
  [ExitCode.NOT_FOUND, 'not found: a file named on the command line, or an id the service does not know (HTTP 404)'],
  [ExitCode.INTERRUPTED, 'interrupted (Ctrl-C) or a prompt cancelled'],
];

export class CasError extends Error {
  readonly exitCode: number;
  /** Stable machine-readable name, e.g. `PasswordRequired`. */
  readonly code: string;
  constructor(code: string, message: string, exitCode: number = ExitCode.UNEXPECTED) {
    super(message);
    this.name = code;
    this.code = code;
    this.exitCode = exitCode;
  }
}

export class UsageError extends CasError {
  constructor(message: string) {
    super('UsageError', message, ExitCode.USAGE);
  }
}

/** Anything wrong with the document itself: exit code 3, HTTP 400. */
export class DocumentError extends CasError {
  constructor(code: DocumentErrorCode, message: string) {
    super(code, message, ExitCode.DOCUMENT);
  }
}

export type DocumentErrorCode =
  | 'PasswordRequired'
  | 'IncorrectPassword'
  | 'NotAPdf'
  | 'DamagedPdf'
  | 'NoTextLayer'
  | 'TooLarge'
  | 'Timeout'
  | 'ResourceLimit'
  | 'UnsupportedDocument'
  | 'TypeMismatch'
  | 'ParseFailed';

export class AuthError extends CasError {
  constructor(message: string) {
    super('AuthError', message, ExitCode.AUTH);
  }
}

export class ServiceError extends CasError {
  constructor(message: string) {
    super('ServiceError', message, ExitCode.SERVICE);
  }
}

/** A CasError class of its own (for `instanceof`) with a fixed code and exit code. */
function errorClass(code: string, exitCode: number) {
  return class extends CasError {
    constructor(message: string) {
      super(code, message, exitCode);
    }
  };
}

/** The service could not be reached (connection refused, DNS, timeout): exit 6. */
export const NetworkError = errorClass('NetworkError', ExitCode.NETWORK);
/** The service answered 503: not configured for this feature, or unavailable for now: exit 7. */
export const UnavailableError = errorClass('Unavailable', ExitCode.UNAVAILABLE);
/** A file named on the command line does not exist, or the service does not know an id: exit 8. */
export const NotFoundError = errorClass('NotFound', ExitCode.NOT_FOUND);

/**
 * The exit code of a failed file's error info (parse-core's FileOutcome): a missing file is
 * `NotFound` (exit 8) whatever code the parse pipeline attached to it.
 */
export function outcomeExitCode(error: { code?: string; exitCode?: number } | undefined): number {
  if (error?.code === 'NotFound') return ExitCode.NOT_FOUND;
  return error?.exitCode ?? ExitCode.UNEXPECTED;
}

export class CancelledError extends CasError {
  constructor(message = 'cancelled') {
    super('Cancelled', message, ExitCode.INTERRUPTED);
  }
}
