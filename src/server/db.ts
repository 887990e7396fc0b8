/**
 * The embedded store: SQLite (better-sqlite3) in WAL mode with versioned migrations.
 * Credits are kept as integer milli-credits so that 0.2 and 0.25 add up exactly.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';

export type DB = Database.Database;

const MIGRATIONS: string[] = [
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
];

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

export function openDb(file: string): DB {
  // SQLite gives the -wal and -shm files the database file's mode: the file is made 0600 first.
  if (file !== ':memory:') {
    privateDir(path.dirname(path.resolve(file)));
    privateFile(file);
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  if (file !== ':memory:') for (const side of ['-wal', '-shm']) if (existsSync(file + side)) chmodSync(file + side, 0o600);
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
  return db;
}

const statements = new WeakMap<DB, Map<string, Database.Statement>>();

/** A prepared statement, prepared once per database and reused (hot paths call this per request). */
export function stmt(db: DB, sql: string): Database.Statement {
  let m = statements.get(db);
  if (!m) statements.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(sql)));
  return s;
}

/** A named server secret, made once (random 32 bytes) and kept in the database. */
export function secret(db: DB, name: string): Buffer {
  const row = db.prepare('SELECT value FROM settings WHERE name = ?').get(name) as { value: string } | undefined;
  if (row) return Buffer.from(row.value, 'base64');
  const value = randomBytes(32);
  db.prepare('INSERT OR IGNORE INTO settings (name, value) VALUES (?, ?)').run(name, value.toString('base64'));
  return secret(db, name);
}

export const toMilli = (credits: number): number => Math.round(credits * 1000);
export const fromMilli = (milli: number): number => Math.round(milli) / 1000;
