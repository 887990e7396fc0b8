/**
 * Stored statement files and their signed, expiring download links.
 * Files are content-addressed under the files folder (`--files-dir`, default DATA_DIR/files) as
 * <sha256>.pdf, each stored once; several instances mount one folder and share the link key (derived
 * from the configured secret key, or kept in the shared store), so a link one instance made opens on any.
 * A link is `/files/<sha256>/<name>?exp=<unix seconds>&sig=<hex>` where
 * sig = HMAC-SHA256(server secret, "<path>?exp=<exp>"); a tampered or expired link is refused.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { promises as fs, chmodSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { privateDir, secret, type Queries } from './db.js';

export class FileStore {
  private constructor(
    private readonly dir: string,
    private readonly key: Buffer,
  ) {}

  /**
   * The link key comes from the configured secret key when there is one (every instance of a shared
   * store has the same: CAS_SECRET_KEY), else from a random key kept in the store.
   */
  static async open(db: Queries, dir: string, configuredKey: Buffer | null = null): Promise<FileStore> {
    // Statements are private: the folder 0700, each file 0600 (files of earlier versions tightened).
    privateDir(dir, true);
    for (const name of readdirSync(dir)) if (name.endsWith('.pdf')) chmodSync(path.join(dir, name), 0o600);
    const key = configuredKey
      ? createHmac('sha256', configuredKey).update('cas file links v1').digest()
      : await secret(db, 'link_signing_key');
    return new FileStore(dir, key);
  }

  /** Store bytes once; returns their sha256. Written atomically (temp file + rename). */
  async put(bytes: Uint8Array): Promise<string> {
    const sha = createHash('sha256').update(bytes).digest('hex');
    const file = path.join(this.dir, `${sha}.pdf`);
    try {
      await fs.access(file);
    } catch {
      const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
      await fs.writeFile(tmp, bytes, { mode: 0o600 });
      await fs.chmod(tmp, 0o600);
      await fs.rename(tmp, file);
    }
    return sha;
  }

  private sign(p: string, exp: number): string {
    return createHmac('sha256', this.key).update(`${p}?exp=${exp}`).digest('hex');
  }

  link(base: string, sha: string, name: string, ttlSeconds: number): string {
    const p = `/files/${sha}/${encodeURIComponent(name)}`;
    const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
    return `${base}${p}?exp=${exp}&sig=${this.sign(p, exp)}`;
  }

  check(p: string, exp: string | undefined, sig: string | undefined): 'ok' | 'expired' | 'invalid' {
    if (!exp || !sig || !/^\d+$/.test(exp) || !/^[0-9a-f]{64}$/.test(sig)) return 'invalid';
    const want = Buffer.from(this.sign(p, Number(exp)), 'hex');
    if (!timingSafeEqual(want, Buffer.from(sig, 'hex'))) return 'invalid';
    return Number(exp) < Date.now() / 1000 ? 'expired' : 'ok';
  }

  /** The stored bytes of a file, or null when gone. */
  read(sha: string): Promise<Buffer | null> {
    return fs.readFile(path.join(this.dir, `${sha}.pdf`)).catch(() => null);
  }
}

/**
 * The base of every link the service hands out: the configured public URL (CAS_PUBLIC_URL), else
 * the address it listens on. Never the request's Host header (a forged one would poison links).
 */
export function baseUrl(app: { config: { publicUrl?: string; port: number }; listenUrl?: string }): string {
  return app.config.publicUrl ?? app.listenUrl ?? `http://127.0.0.1:${app.config.port}`;
}
