import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { pgBinDir } from './test/helpers/pg.js';

/**
 * The server suite on PostgreSQL (issue 22): the test files that start `cas serve` (through
 * test/helpers/server.ts) and exercise its store run a second time, with CAS_TEST_STORE=postgres, on one
 * throwaway cluster for the run (test/helpers/pg-setup.ts), one database per data folder. Left out (SQLite only):
 * files whose servers use no stored state beyond start-up or test something else through them:
 * openapi (the route table and document), registry (format registry: sandbox-key answers), tables
 * (terminal rendering of `cas fetch --parse`), commands (CLI completion; its two server tests repeat
 * inbound's routes), and the CLI, parser and PDF files that start no server.
 */
export const POSTGRES_FILES = [
  'test/server/server.test.ts',
  'test/server/retrieval.test.ts',
  'test/server/verification.test.ts',
  'test/server/locker.test.ts',
  'test/server/inbound.test.ts',
  'test/server/inbox.test.ts',
  'test/server/sandbox.test.ts',
  'test/server/security.test.ts',
  'test/server/ssrf.test.ts',
  'test/server/gains-server.test.ts',
  'test/server/sdk-conformance.test.ts',
  'test/cli/exit-codes.test.ts',
  'test/server/hostile.test.ts',
  'test/server/load.test.ts',
  'test/server/portfolio-server.test.ts',
  'test/server/slow-store.test.ts',
];

/**
 * The long files first (the layout suite's four files, the fuzz run): started last, as vitest does by
 * default in a fresh clone (no timings cached: larger files first, and these are small), they leave
 * one worker running alone for minutes at the end of the run.
 */
class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const long = (f: TestSpecification): boolean => /test\/(layouts\/[^/]*|core\/fuzz)\.test\.ts$/.test(f.moduleId);
    return [...sorted.filter(long), ...sorted.filter((f) => !long(f))];
  }
}

/** Without PostgreSQL the project holds one skipped test that names the missing tool. */
const MISSING = 'test/repo/pg-missing.test.ts';
const havePostgres = pgBinDir() !== null;

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two test files at a time (vitest's default is one less than the cores: 1 on CI's 2-core machine).
    // Most files wait on child processes and servers, so two share the cores well; the suite must pass
    // on a busy machine anyway. CAS_TEST_WORKERS sets another number (1 runs the files one by one).
    maxWorkers: Number(process.env.CAS_TEST_WORKERS ?? 2),
    sequence: { sequencer: LongFirst },
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'], exclude: [MISSING] } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: havePostgres ? POSTGRES_FILES : [MISSING],
          env: { CAS_TEST_STORE: 'postgres' },
          globalSetup: havePostgres ? ['test/helpers/pg-setup.ts'] : [],
        },
      },
    ],
  },
});
