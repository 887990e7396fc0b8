/**
 * Typed errors shared by every layer. Each carries the CLI exit code it maps to, so the one
 * central handler in the CLI can print a one-line message and exit without a stack trace.
 *
 * Exit codes: 0 ok; 1 unexpected; 2 usage; 3 document; 4 auth/credits; 5 service; 130 interrupted.
 */
export const ExitCode = {
  OK: 0,
  UNEXPECTED: 1,
  USAGE: 2,
  DOCUMENT: 3,
  AUTH: 4,
  SERVICE: 5,
  INTERRUPTED: 130,
} as const;

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

export class CancelledError extends CasError {
  constructor(message = 'cancelled') {
    super('Cancelled', message, ExitCode.INTERRUPTED);
  }
}
