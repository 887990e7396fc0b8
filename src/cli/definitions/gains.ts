/** `cas gains`: the definition. */
import { defineSpec } from '../command.js';
import { ENGINE_OPTION, PASSWORD_OPTIONS } from './parse.js';

export const gainsSpec = defineSpec({
  name: 'gains',
  args: ['<files...>'],
  examples: [
    'cas gains cas.pdf --fy 2025-26 --table',
    'cas gains cas.pdf --fy 2025-26 --format csv -o 112a.csv',
    'cas gains cas.pdf --fmv nav-2018-01-31.txt --scheme-types types.csv --json',
  ],
  options: [
    { flags: '--fy <year>', description: 'one financial year, e.g. 2025-26' },
    {
      flags: '--format <format>',
      description: 'json, table, or csv (Schedule 112A; with -o FILE the other rows go to FILE-other.csv)',
      choices: ['json', 'table', 'csv'] as const,
      strict: true,
    },
    { flags: '--scheme-types <file>', description: 'CSV of ISIN,equity|debt|other for schemes the name does not settle' },
    { flags: '--fmv <file>', description: 'NAV history download holding the NAVs of 31 Jan 2018 (grandfathering)' },
    PASSWORD_OPTIONS[0],
    ...ENGINE_OPTION,
    { flags: '--password-file <file>', description: 'read the PDF password from a file' },
  ],
});
