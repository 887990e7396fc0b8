/**
 * test/helpers/pg.ts, the throwaway PostgreSQL cluster of the tests and the bench (issue 22): it starts, makes
 * databases that answer, stops (twice is fine) leaving nothing behind, and dies with the process that
 * started it even when that process is SIGKILLed.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cas.js';
import { startCluster } from '../helpers/pg.js';
import { needs } from '../helpers/tools.js';

const postgres = needs('postgres');

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(postgres.skip)(`throwaway PostgreSQL cluster${postgres.note}`, () => {
  it('starts on loopback, creates databases that answer, and stop() (twice) removes it', async () => {
    const cluster = await startCluster();
    const pid = Number(readFileSync(path.join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    try {
      expect(cluster.url()).toBe(`postgres://postgres@127.0.0.1:${cluster.port}/postgres`);
      const named = await cluster.createDatabase('cas_named');
      const fresh = await cluster.createDatabase();
      expect(named).toBe(cluster.url('cas_named'));
      expect(fresh).toMatch(new RegExp(`^postgres://postgres@127\\.0\\.0\\.1:${cluster.port}/cas_[0-9a-f]{12}$`));
      for (const url of [named, fresh]) {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          const r = await client.query("SELECT 1 AS one, current_setting('max_connections') AS max, current_setting('fsync') AS fsync");
          expect(r.rows).toEqual([{ one: 1, max: '200', fsync: 'off' }]);
        } finally {
          await client.end();
        }
      }
    } finally {
      await cluster.stop();
      await cluster.stop();
    }
    expect(alive(pid)).toBe(false);
    expect(existsSync(cluster.dir)).toBe(false);
  });

  it('dies with the process that started it, even on SIGKILL', async () => {
    const script = `import { startCluster } from ${JSON.stringify(path.join(ROOT, 'test', 'helpers', 'pg.ts'))};
const c = await startCluster();
console.log(c.dir);
setInterval(() => {}, 1000);`;
    const child = execa(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, reject: false });
    const dir = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      void child.then((r) => reject(new Error(`the child exited before the cluster started: ${r.stderr}`)));
    });
    const pid = Number(readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(alive(pid)).toBe(true);
    child.kill('SIGKILL');
    await child;
    const t0 = Date.now();
    while (alive(pid) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid), 'the postmaster outlived its parent').toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });
});
