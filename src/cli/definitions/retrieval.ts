/** `cas fetch`, `cas verify-otp`, `cas mailback`: the definitions. */
import { defineOptions, defineSpec } from '../command.js';

/** Where fetched statements go, and whether to parse them. */
const SAVE_OPTIONS = defineOptions([
  { flags: '--periods <n>', description: 'monthly statements, 1-6 (default 6)' },
  { flags: '--out-dir <dir>', description: 'where to save the PDFs (default .)' },
  { flags: '--parse', description: 'parse each PDF: tables on a terminal, one JSON document per line otherwise (or with --json)' },
]);

export const fetchSpec = defineSpec({
  name: 'fetch',
  examples: [
    'cas fetch --pan ABCPM1234K --bo-id 1208160000123456 --dob 1990-01-31 --out-dir statements --parse',
    'cas --no-input fetch --pan ABCPM1234K --bo-id 1208160000123456 --dob 1990-01-31   # prints the session',
  ],
  options: [
    { flags: '--pan <pan>', description: 'PAN of the first holder' },
    { flags: '--bo-id <id>', description: '16-digit BO ID' },
    { flags: '--dob <date>', description: 'date of birth, YYYY-MM-DD' },
    ...SAVE_OPTIONS,
  ],
});

export const verifyOtpSpec = defineSpec({
  name: 'verify-otp',
  args: ['<session_id>'],
  examples: [
    'cas verify-otp fs_0123abcd --otp 123456 --out-dir statements --parse --pan ABCPM1234K',
    'printf 123456 | cas verify-otp fs_0123abcd --otp -',
  ],
  options: [
    { flags: '--otp <otp>', description: 'the OTP (- reads stdin)' },
    ...SAVE_OPTIONS,
    { flags: '--pan <pan>', description: 'PAN, the password of the PDFs (for --parse)' },
  ],
});

export const mailbackSpec = defineSpec({
  name: 'mailback',
  examples: [
    'cas mailback --email me@example.com --from 2025-04-01 --to 2026-03-31 --password-file pw.txt',
    'printf %s "$PW" | cas mailback --email me@example.com --from 2025-04-01 --to 2026-03-31',
  ],
  options: [
    { flags: '--email <email>', description: 'where the statement is sent' },
    { flags: '--from <date>', description: 'period start, YYYY-MM-DD' },
    { flags: '--to <date>', description: 'period end, YYYY-MM-DD' },
    { flags: '--pan <pan>', description: 'PAN (optional)' },
    { flags: '--password-file <file>', description: 'the PDF password to set (- for stdin; otherwise stdin or a hidden prompt)' },
  ],
});
