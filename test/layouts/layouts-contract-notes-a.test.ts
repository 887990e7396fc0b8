/** The layout property suite (issue 16), the contract-notes-a group (test/layouts/suite.ts says how and why). */
import { layoutSuite } from './suite.js';

await layoutSuite('contract-notes-a');
