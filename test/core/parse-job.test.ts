/**
 * The one parse job (src/core): the same outcome in-process and on the worker pool, one error map
 * for the CLI and the server, limits from settings, and a pool that answers every job (a stuck
 * worker is stopped and replaced; a closed pool answers `Cancelled`). The pool is the built one
 * (dist), so its worker file is the one `cas` runs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_MAP, errorInfo, jobError } from '../../src/core/errors.js';
import { parseLimits, DEFAULT_PARSE_LIMITS } from '../../src/core/limits.js';
import { runParseJob } from '../../src/core/parse-job.js';
import { DocumentError, UsageError } from '../../src/errors.js';
import { fixture, ROOT } from '../helpers/cas.js';
import { deepNesting } from '../fuzz/hostile.js';

type Core = typeof import('../../src/core/index.js');
let core: Core;
beforeAll(async () => {
  core = (await import(pathToFileURL(path.join(ROOT, 'dist/core/index.js')).href)) as Core;
});

const bytes = (rel: string): Uint8Array => new Uint8Array(readFileSync(fixture(rel)));

describe('the error map', () => {
  it('maps every document error to exit 3 and HTTP 400, and keeps the API wording of password errors', () => {
    for (const code of [
      'PasswordRequired',
      'IncorrectPassword',
      'NotAPdf',
      'DamagedPdf',
      'NoTextLayer',
      'TooLarge',
      'Timeout',
      'ResourceLimit',
      'UnsupportedDocument',
      'TypeMismatch',
      'ParseFailed',
    ]) {
      expect(ERROR_MAP[code], code).toMatchObject({ exitCode: 3, httpStatus: 400 });
    }
    const pw = errorInfo(new DocumentError('PasswordRequired', 'the PDF is password-protected; give it with --password-file FILE'));
    expect(pw).toMatchObject({
      code: 'PasswordRequired',
      exitCode: 3,
      httpStatus: 400,
      apiMessage: 'the PDF is password-protected: give its password',
    });
    expect(errorInfo(new DocumentError('IncorrectPassword', 'x')).apiMessage).toBe('invalid password for this PDF');
    expect(errorInfo(new UsageError('bad'))).toMatchObject({ code: 'UsageError', exitCode: 2, httpStatus: 400 });
    expect(errorInfo(Object.assign(new Error('nope'), { code: 'ENOENT', path: '/x.pdf' }))).toMatchObject({
      code: 'NotFound',
      exitCode: 2,
      message: 'no such file',
    });
    const unexpected = errorInfo(new TypeError('boom\n    at somewhere (file.js:1:1)'));
    expect(unexpected).toMatchObject({
      code: 'Unexpected',
      exitCode: 1,
      httpStatus: 500,
      message: 'boom',
      apiMessage: 'the document could not be parsed',
    });
    expect(jobError('WorkerCrashed', 'the parser stopped unexpectedly (exit code 1)')).toMatchObject({ exitCode: 1, httpStatus: 500 });
  });
});

describe('limits', () => {
  it('come from defaults, then the environment, then the caller', () => {
    expect(parseLimits({}, {})).toEqual(DEFAULT_PARSE_LIMITS);
    expect(
      parseLimits({}, { CAS_PARSE_TIMEOUT: '2.5', CAS_PARSE_MAX_MEMORY_MB: '300', CAS_PARSE_MAX_PAGES: '20', CAS_PARSE_MAX_BYTES: '1000' }),
    ).toEqual({ timeoutMs: 2500, memoryMb: 300, maxPages: 20, maxBytes: 1000 });
    expect(parseLimits({ timeoutMs: 100 }, { CAS_PARSE_TIMEOUT: '2.5' }).timeoutMs).toBe(100);
    expect(() => parseLimits({}, { CAS_PARSE_MAX_MEMORY_MB: '10' })).toThrow(/CAS_PARSE_MAX_MEMORY_MB must be a number of at least 64/);
  });

  it('pages and bytes are checked by the job', async () => {
    const r = await runParseJob({ bytes: bytes('registrar/cams-detailed-plain.pdf'), limits: { maxPages: 1 } });
    expect(r).toMatchObject({ ok: false, code: 'TooLarge', exitCode: 3, httpStatus: 400 });
    const b = await runParseJob({ file: fixture('registrar/cams-detailed-plain.pdf'), limits: { maxBytes: 100 } });
    expect(b).toMatchObject({ ok: false, code: 'TooLarge' });
  });
});

describe('one job, in-process or on the pool', () => {
  let pool: InstanceType<Core['ParsePool']>;
  beforeAll(() => {
    // The pool keeps its default time limit (60 s), so that a valid file parses however busy the
    // machine is; the spinning job carries a short limit of its own.
    pool = new core.ParsePool({ size: 1 });
  });
  afterAll(async () => {
    await pool.close();
  });

  it('gives the same outcome both ways, with password candidates tried in turn', async () => {
    const job = { bytes: bytes('registrar/kfintech-detailed.pdf'), password: 'wrong', candidates: ['ABCPM1234K'] };
    const here = await runParseJob(job);
    const there = await pool.run(job);
    expect(here.ok).toBe(true);
    expect(there).toEqual(here);
    const detect = await pool.run({ ...job, detectOnly: true });
    expect(detect).toMatchObject({ ok: true, data: null, detection: { type: 'registrar' } });
    const locked = await pool.run({ bytes: bytes('registrar/kfintech-detailed.pdf') });
    expect(locked).toMatchObject({
      ok: false,
      code: 'PasswordRequired',
      httpStatus: 400,
      apiMessage: 'the PDF is password-protected: give its password',
    });
  });

  it('stops a job that spins past its time, replaces the worker, and parses the next job', async () => {
    const t0 = Date.now();
    // pdf.js spins on this file (PDFium reads it in ~70 ms: test/pdf/engines.test.ts), so the limit is proved on pdf.js.
    const stuck = await pool.run({ bytes: new Uint8Array(deepNesting()), engine: 'pdfjs', limits: { timeoutMs: 1500 } });
    // Stopped by its own 1.5 s limit, long before the pool's 60 s (the margin allows a busy machine).
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(stuck).toMatchObject({ ok: false, code: 'Timeout', exitCode: 3, httpStatus: 400 });
    expect(pool.stats.timeouts).toBe(1);
    const next = await pool.run({ bytes: bytes('registrar/cams-detailed-plain.pdf') });
    expect(next.ok).toBe(true);
  });

  it('a closed pool answers every job', async () => {
    const p = new core.ParsePool({ size: 1 });
    const queued = [
      p.run({ bytes: bytes('registrar/cams-detailed-plain.pdf') }),
      p.run({ bytes: bytes('registrar/cams-detailed-plain.pdf') }),
    ];
    await p.close();
    for (const o of await Promise.all(queued)) expect(o).toMatchObject({ ok: false, code: 'Cancelled' });
    expect(await p.run({ bytes: new Uint8Array(1) })).toMatchObject({ ok: false, code: 'Cancelled' });
  });
});
