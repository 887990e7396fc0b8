/** `cas credits`, `cas usage`, `cas token create|verify`: the definitions. */
import { defineSpec } from '../command.js';

export const creditsSpec = defineSpec({
  name: 'credits',
  examples: ['cas credits', 'cas credits --json | jq .remaining'],
});

export const usageSpec = defineSpec({
  name: 'usage',
  examples: ['cas usage --limit 20', 'cas usage --from 2026-04-01 --to 2026-04-30 --summary'],
  options: [
    { flags: '--from <date>', description: 'start (YYYY-MM-DD or ISO date-time)' },
    { flags: '--to <date>', description: 'end (YYYY-MM-DD or ISO date-time)' },
    { flags: '--limit <n>', description: 'at most n entries (1-1000)' },
    { flags: '--summary', description: 'aggregate by feature' },
  ],
});

export const tokenCreateSpec = defineSpec({
  name: 'create',
  summary: 'create an access token (usable in place of the key on /v4/*)',
  examples: ['cas token create --expiry 15'],
  options: [{ flags: '--expiry <minutes>', description: 'lifetime in minutes, 1-60 (default 60)' }],
});

export const tokenVerifySpec = defineSpec({
  name: 'verify',
  summary: 'check an access token (argument or stdin)',
  args: ['[token]'],
  examples: ['cas token verify at_abc', 'printf %s "$TOKEN" | cas token verify -'],
});

export const tokenSpec = defineSpec({
  name: 'token',
  examples: ['cas token create --expiry 30', 'cas token verify at_...'],
  subcommands: [tokenCreateSpec, tokenVerifySpec],
});
