/**
 * The store's interface (`Db`, `Queries`): what both implementations share (sqlite.ts: SQLite;
 * postgres.ts: PostgreSQL), with no driver loaded; their versioned migrations are migrations.ts.
 */
import { CasError, ExitCode } from '../../errors.js';

/** Statements any connection runs: outside a transaction, or inside one (`tx`). */
export interface Queries {
  all<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]>;
  get<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T | undefined>;
  /** Rows changed. */
  run(sql: string, ...params: unknown[]): Promise<number>;
  /** Run `fn` in one transaction (committed when it returns, rolled back when it throws); nested calls join the outer one. `fn` does database work only. */
  tx<T>(fn: (q: Queries) => Promise<T>): Promise<T>;
}

export interface Db extends Queries {
  readonly dialect: 'sqlite' | 'postgres';
  /** SQLite: this process is the only server of the database (start-up takes back what a previous run held). */
  readonly exclusive: boolean;
  /** Where the data is, for logs (a PostgreSQL URL without its password). */
  readonly label: string;
  /** The SQLite file (the local key file sits beside it); null for PostgreSQL and in-memory SQLite. */
  readonly file: string | null;
  readonly open: boolean;
  /**
   * A transaction whose COMMIT is sent but not awaited: the caller writes its answer in the same turn,
   * so a crash cannot fall between a charge being kept and its answer being written (SQLite commits
   * at once). A COMMIT that fails after that is reported to `late` (the caller undoes what it can).
   */
  txBeforeAnswer<T>(fn: (q: Queries) => Promise<T>, late: (err: Error) => void): Promise<T>;
  close(): Promise<void>;
}

/** A database that cannot be reached or opened: exit 7 (service unavailable), one line. */
export class DatabaseUnavailable extends CasError {
  constructor(message: string) {
    super('DatabaseUnavailable', message, ExitCode.UNAVAILABLE);
  }
}

export const isPostgresUrl = (target: string): boolean => /^postgres(ql)?:\/\//i.test(target);

/**
 * Whether an error means the store cannot be reached right now (PostgreSQL down, restarting, out of
 * connections; SQLite busy past its timeout): the request is answered 503 "retry later", not 500.
 */
export function storeUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (
    typeof e?.code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|SQLITE_BUSY|SQLITE_LOCKED|08\w{3}|57P0[1-3]|53300)$/.test(e.code)
  )
    return true;
  return /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/.test(
    e?.message ?? '',
  );
}

/** Credits are kept as integer milli-credits so that 0.2 and 0.25 add up exactly. */
export const toMilli = (credits: number): number => Math.round(credits * 1000);
export const fromMilli = (milli: number): number => Math.round(milli) / 1000;
