/** The registry import as `cas serve registry import` loads it (src/cli/commands/serve.ts): see verification/registry.ts. */
export { importRegistry, type ImportReport } from './verification/registry-import.js';
