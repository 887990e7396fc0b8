/**
 * The PostgreSQL store (`CAS_DATABASE_URL=postgres://...` or `--database`): a `pg` pool, the same SQL
 * as SQLite with `?` turned into `$n`, 64-bit integers and sums read as JS numbers, and the
 * migrations run at start-up under an advisory lock (instances starting together apply each once).
 * Loaded only when a PostgreSQL URL is configured.
 */
import pg from 'pg';
import { DatabaseUnavailable, type Db, type Queries } from './sql.js';
import { MIGRATIONS, postgresDdl } from './migrations.js';

/** Advisory lock key of the migrations ("cas" in ASCII, then a version of the lock's meaning). */
const MIGRATION_LOCK = 0x636173_01;

const numeric = (v: string | null): number | null => (v === null ? null : Number(v));
/** int8 (COUNT, BIGINT columns) and numeric (SUM of BIGINT) as numbers: every value here is far below 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 || oid === 1700 ? numeric : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

const converted = new Map<string, string>();
/** `?` placeholders as `$1, $2, ...` (none of our statements has a `?` inside a string literal). */
export function numbered(sql: string): string {
  let out = converted.get(sql);
  if (out === undefined) {
    let n = 0;
    out = sql.replace(/\?/g, () => `$${++n}`);
    converted.set(sql, out);
  }
  return out;
}

/** The URL without its password, for logs and messages. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unreadable URL)';
  }
}

/** Statements on the pool (each on any free connection) or on one connection (inside a transaction). */
function queries(c: pg.Pool | pg.PoolClient, tx: Queries['tx']): Queries {
  return {
    all: async <T>(sql: string, ...p: unknown[]) => (await c.query(numbered(sql), p)).rows as T[],
    get: async <T>(sql: string, ...p: unknown[]) => (await c.query(numbered(sql), p)).rows[0] as T | undefined,
    run: async (sql: string, ...p: unknown[]) => (await c.query(numbered(sql), p)).rowCount ?? 0,
    tx,
  };
}

class PostgresDb implements Db {
  readonly dialect = 'postgres';
  readonly exclusive = false;
  readonly file = null;
  private closed = false;
  private readonly outside: Queries;
  constructor(
    private readonly pool: pg.Pool,
    readonly label: string,
  ) {
    this.outside = queries(pool, (fn) => this.tx(fn));
  }
  get open(): boolean {
    return !this.closed;
  }
  all<T>(sql: string, ...p: unknown[]): Promise<T[]> {
    return this.outside.all<T>(sql, ...p);
  }
  get<T>(sql: string, ...p: unknown[]): Promise<T | undefined> {
    return this.outside.get<T>(sql, ...p);
  }
  run(sql: string, ...p: unknown[]): Promise<number> {
    return this.outside.run(sql, ...p);
  }
  /** BEGIN and `fn` on one connection (nested transactions join it); rolled back and released when `fn` throws. */
  private async begin<T>(fn: (q: Queries) => Promise<T>): Promise<{ c: pg.PoolClient; v: T }> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const q: Queries = queries(c, (inner) => inner(q));
      return { c, v: await fn(q) };
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      c.release();
      throw err;
    }
  }
  async tx<T>(fn: (q: Queries) => Promise<T>): Promise<T> {
    const { c, v } = await this.begin(fn);
    try {
      await c.query('COMMIT');
      return v;
    } finally {
      c.release();
    }
  }
  async txBeforeAnswer<T>(fn: (q: Queries) => Promise<T>, late: (err: Error) => void): Promise<T> {
    const { c, v } = await this.begin(fn);
    // Sent now (the connection is idle: pg writes it to the socket in this turn), acknowledged later.
    c.query('COMMIT').then(
      () => c.release(),
      (err: Error) => {
        c.release(err);
        late(err);
      },
    );
    return v;
  }
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

export async function openPostgres(url: string): Promise<Db> {
  const label = maskUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: Number(process.env.CAS_DATABASE_POOL ?? 10),
    connectionTimeoutMillis: Number(process.env.CAS_DATABASE_CONNECT_TIMEOUT_MS ?? 10_000),
    types,
  });
  // A connection dropped while idle (a database restart) is logged; the pool opens a new one on demand.
  pool.on('error', (err) => process.stderr.write(`cas serve: database connection lost (${label}): ${err.message}\n`));
  let c: pg.PoolClient;
  try {
    c = await pool.connect();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new DatabaseUnavailable(`cannot reach the database ${label}: ${(err as Error).message || String(err)}`);
  }
  try {
    await c.query('BEGIN');
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await c.query('CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at TEXT NOT NULL)');
    const applied = new Set(
      (await c.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => Number(r.version)),
    );
    for (const [i, sql] of MIGRATIONS.entries()) {
      const version = i + 1;
      if (applied.has(version)) continue;
      await c.query(postgresDdl(sql));
      await c.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [version, new Date().toISOString()]);
    }
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    c.release();
    await pool.end().catch(() => undefined);
    throw new DatabaseUnavailable(`cannot prepare the database ${label}: ${(err as Error).message}`);
  }
  c.release();
  return new PostgresDb(pool, label);
}
