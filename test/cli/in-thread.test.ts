/**
 * A small file parsed on its own runs in the CLI's own thread (issue 36, src/core/inline.ts), with
 * the limits a worker would have had: a PDFium call that does not return in time is stopped by the
 * watchdog (Timeout, the pool's message), a FlateDecode bomb stops at the WebAssembly heap cap
 * (ResourceLimit), the next file of the same process still parses, and every fixture gives the
 * same JSON as on a worker (CAS_PARSE_IN_THREAD=0). Runs the built `cas`.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { cas, fixture, manifest, tmpDir, type RunResult } from '../helpers/cas.js';
import { flateBomb, onePagePdf } from '../load/hostile.js';

const dir = tmpDir('cas-in-thread-');
/**
 * 120 MB of `q Q` in a page's content, 120 KB deflated: PDFium spends seconds inside one call on it
 * (no text; 4.7 s on an idle 2-core machine here with its optimised code, 7 s in its first tier).
 * Twelve pages show it, so whatever the machine's speed, the time limit falls inside one of them.
 */
function spinPdf(): string {
  const file = path.join(dir, 'spin.pdf');
  writeFileSync(file, onePagePdf(zlib.deflateSync(Buffer.alloc(120_000_000, 'q Q\n'), { level: 9 }), '/FlateDecode', 12));
  return file;
}

function oneLine(r: RunResult): string {
  expect(r.stderr).not.toMatch(/\n\s+at |^Error|\n/);
  return r.stderr.trim();
}

describe('cas parse of one small file, in its own thread', () => {
  it('a PDFium call that runs past the time limit is stopped there: Timeout (exit 3), one line; the next file still parses', async () => {
    const spin = spinPdf();
    const env = { CAS_PARSE_TIMEOUT: '0.5' };
    const r = await cas(['parse', spin], { env });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
    expect(oneLine(r)).toBe(`cas: ${spin}: reading the PDF took longer than the limit of 0.5 s; it was stopped`);
    // One at a time in one process: the stopped PDFium instance is dropped, a new one reads the next file.
    const plain = fixture('registrar/cams-detailed-plain.pdf');
    const both = await cas(['parse', spin, plain, '--jobs', '1', '--json'], { env: { CAS_PARSE_TIMEOUT: '5' } });
    expect(both.exitCode).toBe(3);
    const docs = both.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { source_file: string; meta: { cas_type: string } });
    expect(docs.map((d) => [d.source_file, d.meta.cas_type])).toEqual([[plain, 'REGISTRAR_A_REGISTRAR_B']]);
    expect(both.stderr).toMatch(/spin\.pdf: reading the PDF took longer than the limit of 5 s; it was stopped/);
  }, 120_000);

  it('a FlateDecode bomb stops at the memory limit of a parse: ResourceLimit (exit 3), one line', async () => {
    const bomb = path.join(dir, 'bomb.pdf');
    writeFileSync(bomb, flateBomb());
    const r = await cas(['parse', bomb], { env: { CAS_PARSE_MAX_MEMORY_MB: '96' } });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
    expect(oneLine(r)).toBe(`cas: ${bomb}: reading the PDF needed more memory than the limit of 96 MB`);
  }, 120_000);

  it('every fixture gives the same JSON and exit code in this thread as on a worker', async () => {
    const entries = manifest();
    expect(entries.length).toBeGreaterThan(8);
    for (const e of entries) {
      const args = ['parse', fixture(e.path), '--json', ...(e.password ? ['--password-file', passwordFile(e.password)] : [])];
      const here = await cas(args);
      const worker = await cas(args, { env: { CAS_PARSE_IN_THREAD: '0' } });
      const seen = (r: RunResult) => ({ file: e.path, exit: r.exitCode, out: r.stdout, err: r.stderr });
      expect(seen(here)).toEqual(seen(worker));
      // A statement, or one line naming what is wrong with a bad file.
      if (e.path.startsWith('bad/')) expect(oneLine(here)).toMatch(/^cas: .*bad\/.*: /);
      else expect(here.stdout.length, e.path).toBeGreaterThan(100);
    }
  }, 300_000);
});

function passwordFile(pw: string): string {
  const f = path.join(dir, `pw-${Buffer.from(pw).toString('hex')}`);
  writeFileSync(f, pw);
  return f;
}
