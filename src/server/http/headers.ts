/** What every answer carries: its request id, and the headers that keep statements and secrets out of sniffers and caches. */
import { randomBytes } from 'node:crypto';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export function newRequestId(): string {
  const b = randomBytes(20);
  return `req_${Array.from(b, (x) => ALNUM[x % ALNUM.length]).join('')}`;
}

/** Headers every answer carries: statements, tokens and secrets are never sniffed, never cached. */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' } as const;
