/**
 * The store as `cas serve` and its key commands open it (src/cli/commands/serve.ts): the drivers and
 * every statement live in store/ (store/sql.ts is the interface, store/open.ts picks the driver).
 */
export type { Db, Queries } from './store/sql.js';
export { DatabaseUnavailable, isPostgresUrl } from './store/sql.js';
export { openStore } from './store/open.js';
