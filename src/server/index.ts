/** Start and stop the service: store, instance heartbeat, worker pool, HTTP listener, graceful SIGTERM. */
import path from 'node:path';
import { isPostgresUrl, type Db } from './store/sql.js';
import { openStore } from './store/open.js';
import { keepFirst } from './store/settings.js';
import { ParsePool } from '../core/pool.js';
import { buildApp } from './http/app.js';
import { FileStore } from './store/files.js';
import { makeProviders, SERVICES, unconfigured } from './retrieval/providers.js';
import { startInbound } from './inbound/start.js';
import type { App, ServerConfig } from './context.js';
import { DEFAULT_SANDBOX_KEY } from './sandbox.js';
import { checkSettings, defaultConfig } from './config.js';
import { pruneUsage } from './store/usage.js';
import { pruneRateHits } from './store/rate.js';
import { heartbeat, liveInstances, newInstanceId, reapInstances, registerInstance, removeInstance } from './store/instances.js';
import { migrateSecrets, parseSecretKey, useSecretKey } from './store/secrets.js';
import { UsageError } from '../errors.js';
import { readFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';

export { DEFAULT_SANDBOX_KEY };
export { defaultConfig };

/**
 * The start-up line naming what this server was not configured for: API keys get 503 naming the
 * setting for those (CLI exit 7), the sandbox key gets sample answers.
 */
function unconfiguredLine(config: ServerConfig): string | null {
  const off = unconfigured(config);
  if (!off.length) return null;
  const list = off.map((s) => `${SERVICES[s].label} (${SERVICES[s].setting})`).join(', ');
  return `cas serve: not configured, so API keys get HTTP 503 naming the setting (the sandbox key gets sample data): ${list}`;
}

/** The configured secret key (CAS_SECRET_KEY, or the file CAS_SECRET_KEY_FILE / --secret-key-file), or null. */
function configuredKey(config: ServerConfig): Buffer | null {
  if (config.secretKey && config.secretKeyFile) throw new UsageError('give the secret key once: CAS_SECRET_KEY or a key file, not both');
  try {
    if (config.secretKey) return parseSecretKey(config.secretKey, 'CAS_SECRET_KEY');
    if (config.secretKeyFile) return parseSecretKey(readFileSync(config.secretKeyFile), `the secret key file ${config.secretKeyFile}`);
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/^ENOENT: no such file or directory, open /, 'cannot read the secret key file '));
  }
  return null;
}

/**
 * Every instance of a shared store must seal with the same key: the first one to start records a
 * check value of its key (an HMAC, which does not reveal the key); one started with another key
 * refuses to start rather than seal what the others cannot open.
 */
async function sameKeyEverywhere(db: Db, key: Buffer): Promise<void> {
  const check = createHmac('sha256', key).update('cas secret key check v1').digest('hex');
  if ((await keepFirst(db, 'secret_key_check', check)) !== check)
    throw new UsageError(
      'CAS_SECRET_KEY is not the key the other instances of this database use: give every instance the same key (its secrets are sealed with it)',
    );
}

export async function startServer(config: ServerConfig, log: (m: string) => void): Promise<{ url: string; close: () => Promise<void> }> {
  checkSettings(config);
  const key = configuredKey(config);
  // Several instances seal and open each other's secrets: they need one key, kept out of the database.
  if (isPostgresUrl(config.dbPath) && !key)
    throw new UsageError(
      'a PostgreSQL store needs the shared secret key: set CAS_SECRET_KEY (make one with: openssl rand -base64 32) or --secret-key-file, the same on every instance',
    );
  const db = await openStore(config.dbPath);
  const instanceId = config.instanceId || newInstanceId();
  const staleMs = 3 * config.heartbeatMs;
  const timers: NodeJS.Timeout[] = [];
  const reap = async (): Promise<void> => {
    const r = await reapInstances(db, instanceId, staleMs, db.exclusive);
    // Credits still held by requests a previous run (SQLite) or a dead instance never finished go back.
    if (r.refunded)
      log(
        db.exclusive
          ? `cas serve: refunded the credits of ${r.refunded} request${r.refunded === 1 ? '' : 's'} a previous run did not finish`
          : `cas serve: refunded the credits of ${r.refunded} request${r.refunded === 1 ? '' : 's'} that ${r.instances || 'a'} stopped instance${r.instances === 1 ? '' : 's'} did not finish`,
      );
  };
  try {
    const localKey = await useSecretKey(db, key);
    if (!db.exclusive && key) await sameKeyEverywhere(db, key);
    if (localKey)
      log(
        `cas serve: warning: stored secrets are encrypted with a key kept beside the database (${localKey}); supply CAS_SECRET_KEY or --secret-key-file to keep it elsewhere`,
      );
    const resealed = await migrateSecrets(db);
    if (resealed) log(`cas serve: sealed ${resealed} stored secret${resealed === 1 ? '' : 's'} with the current key`);
    await registerInstance(db, instanceId);
    await reap();
    // The usage log keeps CAS_USAGE_RETENTION_DAYS days: pruned now and every hour (rate-limit hits after a minute).
    const prune = async (): Promise<void> => {
      if (config.usageRetentionDays) await pruneUsage(db, config.usageRetentionDays);
      await pruneRateHits(db);
    };
    await prune();
    timers.push(
      setInterval(() => prune().catch((err: Error) => log(`cas serve: pruning the usage log failed: ${err.message}`)), 3_600_000),
    );
    // The heartbeat says this instance is alive; each beat also takes back what dead instances held.
    if (!db.exclusive)
      timers.push(
        setInterval(
          () =>
            heartbeat(db, instanceId)
              .then(reap)
              .catch((err: Error) => log(`cas serve: heartbeat failed: ${err.message}`)),
          config.heartbeatMs,
        ),
      );
    for (const t of timers) t.unref();
  } catch (err) {
    for (const t of timers) clearInterval(t);
    await db.close();
    throw err;
  }
  const pool = new ParsePool({ warm: true });
  const files = await FileStore.open(db, config.filesDir ?? path.join(config.dataDir, 'files'), key);
  // What an intake killed mid-way left behind: temporary files, and files its store never recorded.
  const live = await liveInstances(db);
  const swept = await files.sweep(db, db.exclusive, live);
  if (swept) log(`cas serve: removed ${swept} file${swept === 1 ? '' : 's'} an interrupted mail intake left behind`);
  const ctx: App = { db, instanceId, pool, config, files, providers: makeProviders(config.providers) };
  const app = await buildApp(ctx);
  const release = async (): Promise<void> => {
    for (const t of timers) clearInterval(t);
    await pool.close();
    await removeInstance(db, instanceId).catch(() => undefined);
    await db.close();
  };
  // A port that cannot be taken: release what was opened, then one line for the operator.
  const giveUp = async (err: unknown, port: number, flag: string): Promise<never> => {
    await app.close().catch(() => undefined);
    await release();
    throw listenError(err, config.host, port, flag);
  };
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await giveUp(err, config.port, '--port');
  }
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // Links are made on the configured public URL, else on this address (never on a request's Host).
  ctx.listenUrl = url;
  const inbound = await startInbound(ctx, { smtpPort: config.mail.smtpPort, smtpHost: config.host, log }).catch((err: unknown) =>
    giveUp(err, config.mail.smtpPort ?? 0, '--smtp-port'),
  );
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      ctx.closing = true;
      // Connections idle right now are closed at once; busy ones close after their answer (app.ts).
      app.server.closeIdleConnections();
      // Webhook attempts, mail and requests in flight finish together; then the pool, the heartbeat
      // row (other instances stop counting on this one) and the store.
      await Promise.all([inbound.stopWebhooks(), inbound.smtp && new Promise<void>((r) => inbound.smtp!.close(() => r())), app.close()]);
      await release();
    })();
    return closing;
  };
  const off = unconfiguredLine(config);
  if (off) log(off);
  log(`cas serve: listening on ${url} (database ${db.label}${db.exclusive ? '' : `, instance ${instanceId}`})`);
  return { url, close };
}

/** A port that cannot be taken is the operator's setting, said in one line (exit 2), not a stack trace. */
export function listenError(err: unknown, host: string, port: number, flag: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE')
    return new UsageError(`cannot listen on ${where}: the address is already in use (another cas serve?); choose another ${flag}`);
  if (code === 'EACCES')
    return new UsageError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose another ${flag}`);
  if (code === 'EADDRNOTAVAIL') return new UsageError(`cannot listen on ${where}: no such local address; check --host`);
  return err as Error;
}
