/**
 * vitest globalSetup of the `postgres` project (vitest.config.ts): one throwaway PostgreSQL cluster
 * for the whole run (test/helpers/pg.ts), its admin URL given to the test processes as `inject('casPgUrl')`;
 * test/helpers/server.ts makes one database per data folder on it. Stopped when the run ends.
 */
import type { TestProject } from 'vitest/node';
import { startCluster } from './pg.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the run's PostgreSQL cluster (database `postgres`, superuser, no password). */
    casPgUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const t0 = performance.now();
  const cluster = await startCluster();
  process.stderr.write(`postgres project: cluster on 127.0.0.1:${cluster.port} in ${Math.round(performance.now() - t0)} ms\n`);
  project.provide('casPgUrl', cluster.url());
  return () => cluster.stop();
}
