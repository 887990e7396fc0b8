/**
 * The store: one small async interface (`Db`) with two implementations, SQLite (better-sqlite3,
 * embedded, the default: one server per database file) and PostgreSQL (`pg`, db-postgres.ts: several
 * `cas serve` instances on one database). Both run the same versioned migrations at start-up and the
 * same SQL, written in their common subset: `?` placeholders (turned into `$n` for PostgreSQL),
 * `RETURNING`, `ON CONFLICT`, ISO-8601 UTC text for times, integers for flags. The few places that
 * need a dialect's own statement (`FOR UPDATE SKIP LOCKED`, advisory locks) ask `db.dialect`.
 * Credits are kept as integer milli-credits so that 0.2 and 0.25 add up exactly.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { CasError, ExitCode } from '../errors.js';

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
  close(): Promise<void>;
}

/** A database that cannot be reached or opened: exit 7 (service unavailable), one line. */
export class DatabaseUnavailable extends CasError {
  constructor(message: string) {
    super('DatabaseUnavailable', message, ExitCode.UNAVAILABLE);
  }
}

export const MIGRATIONS: string[] = [
  // 1: keys, tokens, usage log.
  `CREATE TABLE api_keys (
     id INTEGER PRIMARY KEY,
     key_hash TEXT NOT NULL UNIQUE,
     prefix TEXT NOT NULL,
     name TEXT,
     credits_milli INTEGER NOT NULL DEFAULT 0,
     used_milli INTEGER NOT NULL DEFAULT 0,
     unlimited INTEGER NOT NULL DEFAULT 0,
     rate_per_min INTEGER,
     revoked_at TEXT,
     created_at TEXT NOT NULL
   );
   CREATE TABLE access_tokens (
     id INTEGER PRIMARY KEY,
     token_hash TEXT NOT NULL UNIQUE,
     key_id INTEGER NOT NULL,
     expires_at TEXT NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE TABLE usage_log (
     id INTEGER PRIMARY KEY,
     key_id INTEGER NOT NULL,
     request_id TEXT NOT NULL,
     feature TEXT NOT NULL,
     path TEXT NOT NULL,
     status_code INTEGER NOT NULL,
     credits_milli INTEGER NOT NULL,
     timestamp TEXT NOT NULL
   );
   CREATE INDEX usage_log_key_time ON usage_log(key_id, timestamp);`,
  // 2: server secrets and depository_a fetch sessions.
  `CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE fetch_sessions (
     id TEXT PRIMARY KEY,
     key_id INTEGER NOT NULL,
     provider TEXT NOT NULL,
     upstream_ref TEXT NOT NULL,
     pan TEXT NOT NULL,
     state TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     expires_at TEXT NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );`,
  // 3: the regulator's registry of intermediaries.
  `CREATE TABLE registry (
     id INTEGER PRIMARY KEY,
     category TEXT NOT NULL,
     registration_number TEXT NOT NULL,
     number_norm TEXT NOT NULL,
     name TEXT NOT NULL,
     name_norm TEXT NOT NULL,
     address TEXT,
     email TEXT,
     telephone TEXT,
     contact_person TEXT,
     valid_from TEXT,
     valid_to TEXT,
     imported_at TEXT NOT NULL,
     UNIQUE (category, number_norm)
   );
   CREATE INDEX registry_name ON registry(category, name_norm);`,
  // 4: document-locker sessions.
  `CREATE TABLE locker_sessions (
     id TEXT PRIMARY KEY,
     key_id INTEGER NOT NULL,
     state TEXT NOT NULL UNIQUE,
     code_verifier TEXT NOT NULL,
     redirect_url TEXT NOT NULL,
     purpose TEXT NOT NULL,
     documents TEXT NOT NULL,
     status TEXT NOT NULL,
     access_token TEXT,
     consented_at TEXT,
     expires_at TEXT NOT NULL,
     created_at TEXT NOT NULL
   );`,
  // 5: forwarding addresses, their files, and the webhook delivery queue.
  `CREATE TABLE inbound_emails (
     id TEXT PRIMARY KEY,
     key_id INTEGER NOT NULL,
     email TEXT NOT NULL UNIQUE,
     reference TEXT,
     callback_url TEXT,
     allowed_sources TEXT NOT NULL,
     metadata TEXT NOT NULL,
     webhook_secret TEXT NOT NULL,
     status TEXT NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE TABLE inbound_files (
     id INTEGER PRIMARY KEY,
     inbound_email_id TEXT NOT NULL,
     message_id TEXT NOT NULL,
     filename TEXT NOT NULL,
     original_filename TEXT NOT NULL,
     message_date TEXT NOT NULL,
     cas_type TEXT NOT NULL,
     sender_email TEXT NOT NULL,
     forwarded_by TEXT NOT NULL,
     size INTEGER NOT NULL,
     sha256 TEXT NOT NULL,
     content_check TEXT NOT NULL,
     authentication TEXT NOT NULL,
     received_at TEXT NOT NULL
   );
   CREATE INDEX inbound_files_email ON inbound_files(inbound_email_id, id);
   CREATE TABLE webhook_deliveries (
     id TEXT PRIMARY KEY,
     inbound_email_id TEXT NOT NULL,
     url TEXT NOT NULL,
     payload TEXT NOT NULL,
     status TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at TEXT NOT NULL,
     last_error TEXT,
     created_at TEXT NOT NULL
   );
   CREATE TABLE webhook_attempts (
     id INTEGER PRIMARY KEY,
     delivery_id TEXT NOT NULL,
     attempt INTEGER NOT NULL,
     status_code INTEGER,
     error TEXT,
     at TEXT NOT NULL
   );`,
  // 6: connected mailboxes and their OAuth states.
  `CREATE TABLE inbox_connections (
     id TEXT PRIMARY KEY,
     key_id INTEGER NOT NULL,
     provider TEXT NOT NULL,
     email TEXT NOT NULL,
     credentials TEXT,
     status TEXT NOT NULL,
     created_at TEXT NOT NULL,
     revoked_at TEXT
   );
   CREATE TABLE inbox_oauth_states (
     state TEXT PRIMARY KEY,
     key_id INTEGER NOT NULL,
     provider TEXT NOT NULL,
     code_verifier TEXT NOT NULL,
     redirect_uri TEXT NOT NULL,
     client_state TEXT,
     expires_at TEXT NOT NULL
   );`,
  // 7: credits held by requests still running, so that a crash cannot keep them (refunded at start-up).
  `CREATE TABLE credit_reservations (
     id INTEGER PRIMARY KEY,
     key_id INTEGER NOT NULL,
     milli INTEGER NOT NULL,
     unlimited INTEGER NOT NULL,
     created_at TEXT NOT NULL
   );`,
  // 8: free calls of one key, feature, path and status within a minute share one usage row (its
  // request count); a webhook attempt is recorded before its POST and completed after it.
  `ALTER TABLE usage_log ADD COLUMN requests INTEGER NOT NULL DEFAULT 1;
   ALTER TABLE webhook_attempts ADD COLUMN completed_at TEXT;
   UPDATE webhook_attempts SET completed_at = at;
   CREATE INDEX usage_log_time ON usage_log(timestamp);`,
  // 9: several instances on one database (PostgreSQL): each instance's heartbeat, the instance holding a
  // reservation, webhook leases, and per-key rate-limit hits shared by every instance.
  `CREATE TABLE instances (id TEXT PRIMARY KEY, started_at TEXT NOT NULL, heartbeat_at TEXT NOT NULL);
   ALTER TABLE credit_reservations ADD COLUMN instance_id TEXT;
   ALTER TABLE webhook_deliveries ADD COLUMN claimed_by TEXT;
   ALTER TABLE webhook_deliveries ADD COLUMN lease_until TEXT;
   CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
   CREATE TABLE rate_hits (who TEXT NOT NULL, at TEXT NOT NULL);
   CREATE INDEX rate_hits_who ON rate_hits(who, at);`,
];

/** The PostgreSQL form of a migration: SQLite's integer row ids become identity columns, integers 64-bit. */
export function postgresDdl(sql: string): string {
  return sql.replace(/INTEGER PRIMARY KEY/g, 'BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY').replace(/\bINTEGER\b/g, 'BIGINT');
}

export const isPostgresUrl = (target: string): boolean => /^postgres(ql)?:\/\//i.test(target);

/** Open the store a target names: a `postgres://` URL, else a SQLite file (or `:memory:`). Migrations run first. */
export async function openStore(target: string): Promise<Db> {
  if (isPostgresUrl(target)) return (await import('./db-postgres.js')).openPostgres(target);
  return openSqlite(target);
}

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

class SqliteDb implements Db {
  readonly dialect = 'sqlite';
  readonly exclusive = true;
  private readonly statements = new Map<string, Database.Statement>();
  /** Held while a transaction runs: other statements wait for it (one connection, one writer). */
  private gate: Promise<void> | null = null;
  /** The statements of the running transaction (no gate). */
  private readonly inside: Queries;
  constructor(
    readonly raw: Database.Database,
    readonly file: string | null,
  ) {
    const q: Queries = {
      all: async <T>(sql: string, ...p: unknown[]) => this.prep(sql).all(...p) as T[],
      get: async <T>(sql: string, ...p: unknown[]) => this.prep(sql).get(...p) as T | undefined,
      run: async (sql: string, ...p: unknown[]) => this.prep(sql).run(...p).changes,
      tx: (fn) => fn(q),
    };
    this.inside = q;
  }
  get label(): string {
    return this.file ?? ':memory:';
  }
  get open(): boolean {
    return this.raw.open;
  }
  /** A prepared statement, prepared once and reused (hot paths run the same few per request). */
  private prep(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.raw.prepare(sql)));
    return s;
  }
  private async turn(): Promise<void> {
    while (this.gate) await this.gate;
  }
  async all<T>(sql: string, ...p: unknown[]): Promise<T[]> {
    if (this.gate) await this.turn();
    return this.prep(sql).all(...p) as T[];
  }
  async get<T>(sql: string, ...p: unknown[]): Promise<T | undefined> {
    if (this.gate) await this.turn();
    return this.prep(sql).get(...p) as T | undefined;
  }
  async run(sql: string, ...p: unknown[]): Promise<number> {
    if (this.gate) await this.turn();
    return this.prep(sql).run(...p).changes;
  }
  async tx<T>(fn: (q: Queries) => Promise<T>): Promise<T> {
    await this.turn();
    let done!: () => void;
    this.gate = new Promise((r) => (done = r));
    try {
      this.raw.exec('BEGIN IMMEDIATE');
      try {
        const v = await fn(this.inside);
        this.raw.exec('COMMIT');
        return v;
      } catch (err) {
        if (this.raw.inTransaction) this.raw.exec('ROLLBACK');
        throw err;
      }
    } finally {
      this.gate = null;
      done();
    }
  }
  async close(): Promise<void> {
    await this.turn();
    if (this.raw.open) this.raw.close();
  }
}

function openSqlite(file: string): Db {
  const memory = file === ':memory:';
  // SQLite gives the -wal and -shm files the database file's mode: the file is made 0600 first.
  if (!memory) {
    privateDir(path.dirname(path.resolve(file)));
    privateFile(file);
  }
  let db: Database.Database;
  try {
    db = new Database(file);
  } catch (err) {
    throw new DatabaseUnavailable(`cannot open the database ${file}: ${(err as Error).message}`);
  }
  db.pragma('journal_mode = WAL');
  if (!memory) for (const side of ['-wal', '-shm']) if (existsSync(file + side)) chmodSync(file + side, 0o600);
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
  MIGRATIONS.forEach((sql, i) => {
    const version = i + 1;
    if (applied.has(version)) return;
    db.transaction(() => {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(version, new Date().toISOString());
    })();
  });
  return new SqliteDb(db, memory ? null : path.resolve(file));
}

/** A named server secret, made once (random 32 bytes) and kept in the database (every instance reads the same). */
export async function secret(db: Queries, name: string): Promise<Buffer> {
  await db.run('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', name, randomBytes(32).toString('base64'));
  const row = await db.get<{ value: string }>('SELECT value FROM settings WHERE name = ?', name);
  return Buffer.from(row!.value, 'base64');
}

export const toMilli = (credits: number): number => Math.round(credits * 1000);
export const fromMilli = (milli: number): number => Math.round(milli) / 1000;
