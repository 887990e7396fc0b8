/** The settings of `cas serve`: defaults from the environment, and the checks it refuses to start without. */
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { ServerConfig } from './context.js';
import { DEFAULT_SANDBOX_KEY } from './sandbox.js';

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
export function checkSettings(config: ServerConfig): void {
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
