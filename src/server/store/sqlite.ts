/**
 * The SQLite store (better-sqlite3, embedded, the default: one server per database file). Opened by
 * `openStore` (store/open.ts); the interface it implements is `Db` (store/sql.ts).
 */
import Database from 'better-sqlite3';
import { chmodSync, existsSync } from 'node:fs';
import path from 'node:path';
import { DatabaseUnavailable, type Db, type Queries } from './sql.js';
import { MIGRATIONS } from './migrations.js';
import { privateDir, privateFile } from './private.js';

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
  /** The statements, once no transaction holds the connection. */
  private async ready(): Promise<Queries> {
    await this.turn();
    return this.inside;
  }
  async all<T>(sql: string, ...p: unknown[]): Promise<T[]> {
    return (await this.ready()).all<T>(sql, ...p);
  }
  async get<T>(sql: string, ...p: unknown[]): Promise<T | undefined> {
    return (await this.ready()).get<T>(sql, ...p);
  }
  async run(sql: string, ...p: unknown[]): Promise<number> {
    return (await this.ready()).run(sql, ...p);
  }
  async tx<T>(fn: (q: Queries) => Promise<T>): Promise<T> {
    // The gate is taken in the same turn as it is found free (awaiting `turn()` first let two
    // waiters both see it free and both BEGIN: "cannot start a transaction within a transaction").
    while (this.gate) await this.gate;
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
  txBeforeAnswer<T>(fn: (q: Queries) => Promise<T>): Promise<T> {
    return this.tx(fn);
  }
  async close(): Promise<void> {
    await this.turn();
    if (this.raw.open) this.raw.close();
  }
}

export function openSqlite(file: string): Db {
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
