/**
 * The store's versioned migrations, applied in order at start-up by both drivers (each once), and
 * their PostgreSQL form. A new table or column is a new entry at the end; an entry never changes.
 */

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
  // 10: free calls are counted per instance (instances never share a usage row).
  `ALTER TABLE usage_log ADD COLUMN instance_id TEXT;`,
  // 11: each email received on a forwarding address, once: a sender's retry of the same Message-ID is
  // recognised (recorded in the transaction that records the email's files and its delivery).
  `CREATE TABLE inbound_messages (
     inbound_email_id TEXT NOT NULL,
     message_id TEXT NOT NULL,
     received_at TEXT NOT NULL,
     PRIMARY KEY (inbound_email_id, message_id)
   );
   INSERT INTO inbound_messages (inbound_email_id, message_id, received_at)
     SELECT inbound_email_id, message_id, MIN(received_at) FROM inbound_files GROUP BY inbound_email_id, message_id;`,
  // 12: the free calls of one key, feature, path, status and instance in one clock minute are one row,
  // found by a unique key and counted with one upsert (concurrent calls on PostgreSQL no longer each
  // insert a row of their own after finding none).
  `ALTER TABLE usage_log ADD COLUMN bucket TEXT;
   CREATE UNIQUE INDEX usage_log_free_bucket ON usage_log(key_id, feature, path, status_code, instance_id, bucket) WHERE bucket IS NOT NULL;`,
];

/** The PostgreSQL form of a migration: SQLite's integer row ids become identity columns, integers 64-bit. */
export function postgresDdl(sql: string): string {
  return sql.replace(/INTEGER PRIMARY KEY/g, 'BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY').replace(/\bINTEGER\b/g, 'BIGINT');
}
