/** Start and stop the service: database, worker pool, HTTP listener, graceful SIGTERM. */
import path from 'node:path';
import { openDb } from './db.js';
import { ParsePool } from '../core/pool.js';
import { buildApp } from './app.js';
import { FileStore } from './files.js';
import { makeProviders } from './providers.js';
import { startInbound } from './inbound.js';
import type { ServerConfig } from './context.js';
import { DEFAULT_SANDBOX_KEY } from './sandbox.js';

export { DEFAULT_SANDBOX_KEY };

export function defaultConfig(over: Partial<ServerConfig> = {}): ServerConfig {
  const dataDir = over.dataDir ?? process.env.CAS_DATA_DIR ?? path.resolve('cas-data');
  return {
    host: '127.0.0.1',
    port: 8080,
    dbPath: path.join(dataDir, 'cas.db'),
    dataDir,
    sandboxKey: process.env.CAS_SANDBOX_KEY || DEFAULT_SANDBOX_KEY,
    sandboxRate: Number(process.env.CAS_SANDBOX_RATE ?? 10),
    names: process.env.CAS_NAMES === 'real' ? 'real' : 'spec',
    maxUploadBytes: 20 * 1024 * 1024,
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
    },
    locker: { url: process.env.CAS_LOCKER_URL || undefined, clientId: process.env.CAS_LOCKER_CLIENT_ID ?? 'cas', clientSecret: process.env.CAS_LOCKER_CLIENT_SECRET ?? '' },
    kyc: {
      provider: (process.env.CAS_KYC_PROVIDER as 'sandbox' | 'recorded' | 'none') || 'none',
      dir: process.env.CAS_KYC_RECORDED_DIR || undefined,
      timeoutMs: Number(process.env.CAS_KYC_TIMEOUT_MS ?? 10_000),
    },
    fetch: { maxBytes: 20 * 1024 * 1024, timeoutMs: 15_000, maxRedirects: 3, allowHosts: (process.env.CAS_FETCH_ALLOW_HOSTS ?? '').split(',').map((s) => s.trim()).filter(Boolean) },
    ...over,
  };
}

export async function startServer(config: ServerConfig, log: (m: string) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const db = openDb(config.dbPath);
  const pool = new ParsePool({ warm: true });
  const files = new FileStore(db, config.dataDir);
  const app = await buildApp({ db, pool, config, files, providers: makeProviders(config.providers) });
  await app.listen({ host: config.host, port: config.port });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const inbound = await startInbound({ db, pool, config, files, providers: makeProviders(config.providers) }, { smtpPort: config.mail.smtpPort, smtpHost: config.host, baseUrl: () => config.publicUrl ?? url, log });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      inbound.stopWebhooks();
      if (inbound.smtp) await new Promise<void>((r) => inbound.smtp!.close(() => r()));
      await app.close();
      await pool.close();
      db.close();
    })();
    return closing;
  };
  log(`cas serve: listening on ${url} (database ${config.dbPath})`);
  return { url, close };
}
