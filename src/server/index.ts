/** Start and stop the service: store, instance heartbeat, worker pool, HTTP listener, graceful SIGTERM. */
import path from 'node:path';
import { isPostgresUrl, type Db } from './store/sql.js';
import { openStore } from './store/open.js';
import { keepFirst } from './store/settings.js';
import { ParsePool } from '../core/pool.js';
import { buildApp } from './http/app.js';
import { FileStore } from './files/file-store.js';
import { makeProviders, SERVICES, unconfigured } from './retrieval/providers.js';
import { startInbound } from './inbound/start.js';
import type { App, ServerConfig } from './context.js';
import { DEFAULT_SANDBOX_KEY } from './sandbox.js';
import { pruneRateHits, pruneUsage } from './store/usage.js';
import { heartbeat, liveInstances, newInstanceId, reapInstances, registerInstance, removeInstance } from './store/instances.js';
import { migrateSecrets, parseSecretKey, useSecretKey } from './store/secrets.js';
import { UsageError } from '../errors.js';
import { readFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';

export { DEFAULT_SANDBOX_KEY };

export function defaultConfig(over: Partial<ServerConfig> = {}): ServerConfig {
  const dataDir = over.dataDir ?? process.env.CAS_DATA_DIR ?? path.resolve('cas-data');
  return {
    host: '127.0.0.1',
    port: 8080,
    dbPath: process.env.CAS_DATABASE_URL || path.join(dataDir, 'cas.db'),
    dataDir,
    filesDir: process.env.CAS_FILES_DIR ? path.resolve(process.env.CAS_FILES_DIR) : undefined,
    instanceId: process.env.CAS_INSTANCE_ID || undefined,
    heartbeatMs: Number(process.env.CAS_HEARTBEAT_MS ?? 5000),
    sandboxKey: process.env.CAS_SANDBOX_KEY || DEFAULT_SANDBOX_KEY,
    sandboxRate: Number(process.env.CAS_SANDBOX_RATE ?? 10),
    names: process.env.CAS_NAMES === 'real' ? 'real' : 'spec',
    maxUploadBytes: Number(process.env.CAS_MAX_UPLOAD_BYTES ?? 20 * 1024 * 1024),
    publicUrl: process.env.CAS_PUBLIC_URL || undefined,
    secretKey: process.env.CAS_SECRET_KEY || undefined,
    secretKeyFile: process.env.CAS_SECRET_KEY_FILE || undefined,
    usageRetentionDays: Number(process.env.CAS_USAGE_RETENTION_DAYS ?? 90),
    maxUploads: Number(process.env.CAS_MAX_UPLOADS ?? 8),
    maxUploadsPerKey: Number(process.env.CAS_MAX_UPLOADS_PER_KEY ?? 4),
    sandboxMaxUploads: Number(process.env.CAS_SANDBOX_MAX_UPLOADS ?? 2),
    bodyTimeoutMs: Number(process.env.CAS_BODY_TIMEOUT_SECONDS ?? 120) * 1000,
    bodyMinRate: Number(process.env.CAS_BODY_MIN_RATE ?? 4096),
    maxFailedParses: Number(process.env.CAS_MAX_FAILED_PARSES ?? 20),
    providers: {
      fetch: (process.env.CAS_FETCH_PROVIDER as 'sandbox' | 'http' | 'none') || 'none',
      mailback: (process.env.CAS_MAILBACK_PROVIDER as 'sandbox' | 'http' | 'none') || 'none',
      upstreamUrl: process.env.CAS_UPSTREAM_URL || undefined,
      timeoutMs: Number(process.env.CAS_UPSTREAM_TIMEOUT_MS ?? 20_000),
    },
    sessionTtlSeconds: Number(process.env.CAS_SESSION_TTL_SECONDS ?? 600),
    linkTtlSeconds: Number(process.env.CAS_LINK_TTL_SECONDS ?? 3600),
    maxOtpAttempts: 3,
    gmail: {
      authUrl: process.env.CAS_GMAIL_AUTH_URL || 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: process.env.CAS_GMAIL_TOKEN_URL || 'https://oauth2.googleapis.com/token',
      apiUrl: process.env.CAS_GMAIL_API_URL || 'https://gmail.googleapis.com',
      revokeUrl: process.env.CAS_GMAIL_REVOKE_URL || 'https://oauth2.googleapis.com/revoke',
      clientId: process.env.CAS_GMAIL_CLIENT_ID ?? '',
      clientSecret: process.env.CAS_GMAIL_CLIENT_SECRET ?? '',
    },
    mail: {
      smtpPort: process.env.CAS_SMTP_PORT ? Number(process.env.CAS_SMTP_PORT) : undefined,
      inboundDomain: process.env.CAS_INBOUND_DOMAIN || 'inbound.cas.local',
      maxMessageBytes: Number(process.env.CAS_SMTP_MAX_BYTES ?? 25 * 1024 * 1024),
      tlsKeyFile: process.env.CAS_SMTP_TLS_KEY || undefined,
      tlsCertFile: process.env.CAS_SMTP_TLS_CERT || undefined,
      requireTls: process.env.CAS_SMTP_REQUIRE_TLS === '1',
      // Lifetime of inbound file links: 48 h in webhooks (and lists of addresses with a callback), 30 min
      // otherwise; CAS_INBOUND_LINK_TTL_SECONDS replaces both.
      linkTtlSeconds: process.env.CAS_INBOUND_LINK_TTL_SECONDS ? Number(process.env.CAS_INBOUND_LINK_TTL_SECONDS) : undefined,
      offlineDns: process.env.CAS_DNS_OFFLINE === '1',
      webhookBackoffMs: Number(process.env.CAS_WEBHOOK_BACKOFF_MS ?? 1000),
      webhookRetryForMs: Number(process.env.CAS_WEBHOOK_RETRY_FOR_MS ?? 86_400_000),
      webhookConcurrency: Number(process.env.CAS_WEBHOOK_CONCURRENCY ?? 8),
      webhookTimeoutMs: Number(process.env.CAS_WEBHOOK_TIMEOUT_MS ?? 10_000),
    },
    locker: {
      url: process.env.CAS_LOCKER_URL || undefined,
      clientId: process.env.CAS_LOCKER_CLIENT_ID ?? 'cas',
      clientSecret: process.env.CAS_LOCKER_CLIENT_SECRET ?? '',
    },
    kyc: {
      provider: (process.env.CAS_KYC_PROVIDER as 'sandbox' | 'recorded' | 'none') || 'none',
      dir: process.env.CAS_KYC_RECORDED_DIR || undefined,
      timeoutMs: Number(process.env.CAS_KYC_TIMEOUT_MS ?? 10_000),
    },
    fetch: {
      maxBytes: 20 * 1024 * 1024,
      timeoutMs: 15_000,
      maxRedirects: 3,
      allowHosts: (process.env.CAS_FETCH_ALLOW_HOSTS ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    },
    ...over,
  };
}

/** Settings `cas serve` refuses to start with (a usage error names the setting). */
function checkSettings(config: ServerConfig): void {
  if (config.publicUrl !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(config.publicUrl);
    } catch {
      /* reported below */
    }
    if (!u || !/^https?:$/.test(u.protocol) || u.search || u.hash || u.username || u.password)
      throw new UsageError(
        `the public URL (CAS_PUBLIC_URL / --public-url) must be an http(s) URL without query, fragment or credentials, such as https://cas.example.com; got ${config.publicUrl}`,
      );
    config.publicUrl = `${u.origin}${u.pathname}`.replace(/\/+$/, '');
  }
  const whole = (v: number, name: string, min: number): void => {
    if (!Number.isInteger(v) || v < min) throw new UsageError(`${name} takes a whole number of ${min} or more; got ${v}`);
  };
  whole(config.maxUploadBytes, 'CAS_MAX_UPLOAD_BYTES', 1024);
  whole(config.usageRetentionDays, 'CAS_USAGE_RETENTION_DAYS', 0);
  whole(config.maxUploads, 'CAS_MAX_UPLOADS', 1);
  whole(config.maxUploadsPerKey, 'CAS_MAX_UPLOADS_PER_KEY', 1);
  whole(config.sandboxMaxUploads, 'CAS_SANDBOX_MAX_UPLOADS', 1);
  whole(config.bodyTimeoutMs / 1000, 'CAS_BODY_TIMEOUT_SECONDS', 1);
  whole(config.bodyMinRate, 'CAS_BODY_MIN_RATE', 0);
  whole(config.maxFailedParses, 'CAS_MAX_FAILED_PARSES', 0);
  whole(config.mail.webhookConcurrency, 'CAS_WEBHOOK_CONCURRENCY', 1);
  whole(config.mail.webhookTimeoutMs, 'CAS_WEBHOOK_TIMEOUT_MS', 100);
  whole(config.heartbeatMs, 'CAS_HEARTBEAT_MS', 100);
  const oneOf = (v: string, name: string, allowed: readonly string[]): void => {
    if (!allowed.includes(v)) throw new UsageError(`${name} takes ${allowed.join(', ')}; got ${v}`);
  };
  oneOf(config.providers.fetch, 'CAS_FETCH_PROVIDER', ['sandbox', 'http', 'none']);
  oneOf(config.providers.mailback, 'CAS_MAILBACK_PROVIDER', ['sandbox', 'http', 'none']);
  oneOf(config.kyc.provider, 'CAS_KYC_PROVIDER', ['sandbox', 'recorded', 'none']);
  if (config.kyc.provider === 'recorded' && !config.kyc.dir)
    throw new UsageError('CAS_KYC_PROVIDER=recorded needs CAS_KYC_RECORDED_DIR (or --kyc-dir)');
}

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
