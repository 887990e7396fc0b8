/** Start and stop the service: database, worker pool, HTTP listener, graceful SIGTERM. */
import path from 'node:path';
import { openDb } from './db.js';
import { ParsePool } from './pool.js';
import { buildApp } from './app.js';
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
    sandboxRate: 10,
    maxUploadBytes: 20 * 1024 * 1024,
    fetch: { maxBytes: 20 * 1024 * 1024, timeoutMs: 15_000, maxRedirects: 3, allowHosts: (process.env.CAS_FETCH_ALLOW_HOSTS ?? '').split(',').map((s) => s.trim()).filter(Boolean) },
    ...over,
  };
}

export async function startServer(config: ServerConfig, log: (m: string) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const db = openDb(config.dbPath);
  const pool = new ParsePool();
  const app = await buildApp({ db, pool, config });
  await app.listen({ host: config.host, port: config.port });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await app.close();
      await pool.close();
      db.close();
    })();
    return closing;
  };
  log(`cas serve: listening on ${url} (database ${config.dbPath})`);
  return { url, close };
}
