/**
 * The store: one small async interface (`Db`) with two implementations, SQLite (better-sqlite3,
 * embedded, the default: one server per database file) and PostgreSQL (`pg`, db-postgres.ts: several
 * `cas serve` instances on one database). Both run the same versioned migrations at start-up and the
 * same SQL, written in their common subset: `?` placeholders (turned into `$n` for PostgreSQL),
 * `RETURNING`, `ON CONFLICT`, ISO-8601 UTC text for times, integers for flags. The few places that
 * need a dialect's own statement (`FOR UPDATE SKIP LOCKED`, advisory locks) ask `db.dialect`.
 * Credits are kept as integer milli-credits so that 0.2 and 0.25 add up exactly.
 */
import { isPostgresUrl, type Db } from './sql.js';
import { openSqlite } from './sqlite.js';

/** Open the store a target names: a `postgres://` URL, else a SQLite file (or `:memory:`). Migrations run first. */
export async function openStore(target: string): Promise<Db> {
  if (isPostgresUrl(target)) return (await import('./postgres.js')).openPostgres(target);
  return openSqlite(target);
}
