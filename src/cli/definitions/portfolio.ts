/** `cas portfolio`: the definition. */
import { defineSpec } from '../command.js';
import { ENGINE_OPTION, FORMAT_CHOICES, PASSWORD_OPTIONS } from './parse.js';

export const portfolioSpec = defineSpec({
  name: 'portfolio',
  args: ['<files...>'],
  examples: [
    'cas portfolio cas.pdf statements/ --table',
    'cas portfolio statements/ --json | jq .returns.portfolio.since_inception',
    'cas portfolio statements/ --format csv -o holdings.csv',
    'cas portfolio statements/ --format html -o portfolio.html',
  ],
  options: [
    {
      flags: '--format <format>',
      description: 'json, table, csv (one line per holding) or html (a page with allocation, value over time and XIRR; -o FILE)',
      choices: FORMAT_CHOICES,
      strict: true,
    },
    { flags: '--allow-mixed-investors', description: 'merge statements of different investors (different PANs) instead of refusing' },
    ...PASSWORD_OPTIONS,
    ...ENGINE_OPTION,
  ],
});
