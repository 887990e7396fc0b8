/** `cas parse` and `cas smart`: the definitions. `--type` and `--broker` read the format registry. */
import { UsageError } from '../../errors.js';
import { BROKERS, FORMATS, resolveBroker, resolveFormat } from '../../formats/index.js';
import { ENGINES } from '../../shared/pdf-engines.js';
import { defineOptions, defineSpec } from '../command.js';

const unique = (list: readonly string[]): string[] => [...new Set(list)];

/** Every `--type` value: the format ids, then their aliases. */
export const TYPE_CHOICES: readonly string[] = unique([...FORMATS.map((f) => f.id), ...FORMATS.flatMap((f) => f.aliases)]);
/** Every `--broker` value: the broker ids, then their real values and aliases. */
export const BROKER_CHOICES: readonly string[] = unique([
  ...BROKERS.map((b) => b.id),
  ...BROKERS.flatMap((b) => [b.realValue, ...b.aliases]),
]);

const aliasesOf = (ids: readonly string[], all: readonly string[]): string => all.filter((c) => !ids.includes(c)).join(', ');
const TYPE_LIST = `${FORMATS.map((f) => f.id).join(' | ')} (aliases: ${aliasesOf(
  FORMATS.map((f) => f.id),
  TYPE_CHOICES,
)})`;
const BROKER_LIST = `${BROKERS.map((b) => b.id).join(' | ')} (or ${aliasesOf(
  BROKERS.map((b) => b.id),
  BROKER_CHOICES,
)})`;

/** The PDF password options of every command that opens statements. */
export const PASSWORD_OPTIONS = defineOptions([
  { flags: '-p, --password <password>', description: 'PDF password (prefer --password-file or CAS_PDF_PASSWORD)' },
  { flags: '--password-file <file>', description: 'read the PDF password from a file (- for stdin)' },
]);

export const NAMES_CHOICES = ['spec', 'real'] as const;

/** `--engine`: the PDF text engine of every command that opens statements (flag > CAS_PDF_ENGINE > pdfium). */
export const ENGINE_OPTION = defineOptions([
  {
    flags: '--engine <engine>',
    description: `PDF text engine: ${ENGINES.join(' or ')} (default pdfium; env CAS_PDF_ENGINE); both give the same JSON`,
    choices: ENGINES,
    strict: true,
  },
]);
/** `--format`: the output formats of `cas parse` (json, table and csv are also `--json`, `--table` and `--csv`). */
export const FORMAT_CHOICES = ['json', 'table', 'csv', 'html'] as const;

const PARSE_OPTIONS = defineOptions([
  {
    flags: '-t, --type <type>',
    description: `statement type, skipping detection: ${TYPE_LIST}`,
    choices: TYPE_CHOICES,
    parse: (raw: string) => resolveFormat(raw) ?? fail(`unknown --type '${raw}'; use one of: ${TYPE_CHOICES.join(', ')}`),
  },
  {
    flags: '--broker <broker>',
    description: `contract-note broker, overriding detection: ${BROKER_LIST}`,
    choices: BROKER_CHOICES,
    parse: (raw: string) => resolveBroker(raw) ?? fail(`unknown --broker '${raw}'; use ${BROKER_LIST}`),
  },
  {
    flags: '--names <names>',
    description: "names in the JSON: spec (SPEC.md's neutral names) or real (CDSL, NSDL, CAMS_KFINTECH, zerodha, ...)",
    choices: NAMES_CHOICES,
    strict: true,
    default: 'spec',
  },
  ...PASSWORD_OPTIONS,
  ...ENGINE_OPTION,
  {
    flags: '--format <format>',
    description:
      'json (as --json), table (as --table), csv (as --csv holdings), or html: one self-contained page with charts and tables (-o report.html)',
    choices: FORMAT_CHOICES,
    strict: true,
  },
  { flags: '--csv <what>', description: 'write CSV instead of JSON', choices: ['holdings', 'transactions'] as const, strict: true },
  { flags: '--transactions', description: 'include transactions in table output' },
  { flags: '-j, --jobs <n>', description: 'parallel workers for several files (default: number of cores; at most 4 per core)' },
  { flags: '--out-dir <dir>', description: "write each file's JSON to DIR/<name>.json (atomically) instead of stdout" },
  { flags: '--debug-layout', description: 'print the text lines with their positions instead of parsing (to report a layout)' },
  { flags: '--redact', description: 'with --debug-layout: mask digits and words that are not statement labels' },
]);

function fail(message: string): never {
  throw new UsageError(message);
}

export const parseSpec = defineSpec({
  name: 'parse',
  args: ['<files...>'],
  examples: [
    'cas parse statement.pdf',
    'cas parse statement.pdf | jq .summary.total_value',
    'cas parse --type cams --password-file pw.txt cas.pdf',
    'cas parse statements/ --csv transactions --output tx.csv',
    'cas parse statement.pdf --format html -o report.html',
    'cas parse statements/ --out-dir parsed/',
    'cas parse --debug-layout --redact statement.pdf > layout.txt',
    'cat cas.pdf | cas parse -',
  ],
  options: PARSE_OPTIONS,
});

export const smartSpec = defineSpec({
  name: 'smart',
  args: ['<files...>'],
  examples: ['cas smart statement.pdf', 'cas smart --detect-only statement.pdf'],
  options: [...PARSE_OPTIONS, { flags: '--detect-only', description: 'print only the detection as JSON' }],
});
