/** What `cas serve` checks of the SMTP receiver's settings before it binds anything (src/cli/commands/serve.ts). */
export { mailTlsProblem } from './mail/smtp.js';
