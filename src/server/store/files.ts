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
import type { Queries } from './sql.js';
import { privateDir } from './private.js';
import { secret } from './settings.js';
import { fileRecorded } from './inbound.js';

/** A file written under a temporary name (`tmp`, null once in place or when it existed already). */
export interface Staged {
  sha: string;
  tmp: string | null;
}

const exists = (file: string): Promise<boolean> =>
  fs.access(file).then(
    () => true,
    () => false,
  );

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

  /**
   * Write bytes under a temporary name (`<sha>.pdf.<pid>.<random>.tmp`) for `place` to rename into
   * place inside the transaction that records them; nothing is written when the file exists already.
   */
  async stage(bytes: Uint8Array): Promise<Staged> {
    const sha = createHash('sha256').update(bytes).digest('hex');
    const file = path.join(this.dir, `${sha}.pdf`);
    if (await exists(file)) return { sha, tmp: null };
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    await fs.writeFile(tmp, bytes, { mode: 0o600 });
    await fs.chmod(tmp, 0o600);
    return { sha, tmp };
  }

  /**
   * Rename staged files into place; call it inside the transaction that records them, before it
   * commits. The files it creates are first listed in a journal (`intake.<instance>.<random>.json`):
   * should the process die before the commit, the next start removes those the store never recorded
   * (`sweep`). Returns the journal, for `settled` to remove once the transaction has committed.
   */
  async place(staged: Staged[], instanceId: string): Promise<string | null> {
    const fresh = staged.filter((s) => s.tmp);
    if (!fresh.length) return null;
    const journal = path.join(this.dir, `intake.${instanceId.replace(/[^\w-]/g, '_')}.${randomBytes(6).toString('hex')}.json`);
    await fs.writeFile(journal, JSON.stringify(fresh.map((s) => s.sha)), { mode: 0o600 });
    for (const s of fresh) {
      await fs.rename(s.tmp!, path.join(this.dir, `${s.sha}.pdf`));
      s.tmp = null;
    }
    return journal;
  }

  /** The transaction that recorded the files committed: their journal goes. */
  async settled(journal: string | null): Promise<void> {
    if (journal) await fs.rm(journal, { force: true });
  }

  /** Temporary files of an intake that was not recorded (refused, a duplicate, an error). */
  async discard(staged: Staged[]): Promise<void> {
    for (const s of staged) if (s.tmp) await fs.rm(s.tmp, { force: true });
  }

  /**
   * At start-up: temporary files left by a process that died are removed (all of them on SQLite, the
   * only server of its files; on a shared store those older than an hour, another instance may be
   * writing the newer ones), and the files of journals of instances no longer running that the store
   * never recorded. Returns how many files were removed.
   */
  async sweep(db: Queries, exclusive: boolean, liveInstances: string[]): Promise<number> {
    let removed = 0;
    const live = new Set(liveInstances.map((i) => i.replace(/[^\w-]/g, '_')));
    for (const name of readdirSync(this.dir)) {
      const full = path.join(this.dir, name);
      if (name.endsWith('.tmp')) {
        const old = exclusive || Date.now() - (await fs.stat(full).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs > 3_600_000;
        if (old) {
          await fs.rm(full, { force: true });
          removed++;
        }
        continue;
      }
      const m = /^intake\.(.+)\.[0-9a-f]{12}\.json$/.exec(name);
      if (!m || (!exclusive && live.has(m[1]))) continue;
      let shas: string[] = [];
      try {
        shas = (JSON.parse(await fs.readFile(full, 'utf8')) as unknown[]).filter((x): x is string => typeof x === 'string');
      } catch {
        /* a journal cut short: its files were not renamed yet */
      }
      for (const sha of shas) {
        if (!/^[0-9a-f]{64}$/.test(sha)) continue;
        if (await fileRecorded(db, sha)) continue;
        await fs.rm(path.join(this.dir, `${sha}.pdf`), { force: true });
        removed++;
      }
      await fs.rm(full, { force: true });
    }
    return removed;
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
