/** Section reader: the note header (broker, client, contract note number and dates). */
import type { Line } from '../../pdf/model.js';
import { parseDate } from '../../pdf/numbers.js';
import type { ContractNote } from '../../schema/index.js';
import { labelValue, labelWords } from '../common/labels.js';
import { GENERIC_FACTS } from './layouts/generic.js';
import type { BrokerLayout, FactKey } from './layouts/types.js';

const FIRST = (v: string): string => v.split(/\s+/)[0];
const dateOf = (v: string): string | null => {
  const t = v.split(/\s+/);
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(t[0]);
  if (compact) return parseDate(`${compact[1]}-${compact[2]}-${compact[3]}`);
  for (const n of [1, 3, 2]) {
    const d = parseDate(t.slice(0, n).join(' '));
    if (d) return d;
  }
  return null;
};
const ACCEPT: Record<FactKey, (v: string) => string | null> = {
  cn: (v) => (/\d/.test(FIRST(v)) ? FIRST(v) : null),
  tradeDate: dateOf,
  settlementNo: (v) => (/\d/.test(FIRST(v)) ? FIRST(v) : null),
  settlementDate: dateOf,
  name: (v) => (/[A-Za-z]/.test(v) ? v : null),
  ucc: (v) => (/^[A-Za-z0-9/-]+$/.test(FIRST(v)) ? FIRST(v) : null),
  pan: (v) => (/^[A-Z]{5}\d{4}[A-Z]$/.test(FIRST(v)) ? FIRST(v) : null),
  address: (v) => v,
  pos: (v) => (/[A-Za-z]/.test(v) ? v : null),
  stateCode: (v) => (/^\d{1,2}$/.test(FIRST(v)) ? FIRST(v) : null),
};

const COMPANY = /\b(limited|ltd\.?|private|pvt\.?|llp)(?=\W|$)/i;

export interface NoteHeader {
  broker: Omit<ContractNote['broker_info'], 'broker_type'>;
  client: ContractNote['client_info'];
  info: ContractNote['contract_note_info'];
}

/** Read the header facts from the lines before the trade table (any label style). */
export function readNoteHeader(lines: Line[], layout: BrokerLayout | undefined): NoteHeader {
  const labels: Record<FactKey, string[][]> = {} as Record<FactKey, string[][]>;
  for (const k of Object.keys(GENERIC_FACTS) as FactKey[]) labels[k] = labelWords([...(layout?.facts[k] ?? []), ...GENERIC_FACTS[k]]);
  const all = Object.values(labels).flat();
  const get = (k: FactKey): string | null => labelValue(lines, labels[k], all, ACCEPT[k]);
  const text = lines.map((l) => l.text).join('\n');
  let name = '';
  for (const l of lines.slice(0, 15)) {
    // The name may share a run with the heading (`... Limited CONTRACT NOTE CUM TAX INVOICE`).
    const t = l.pieces
      .map((x) =>
        x.text
          .split(/\bcontract note\b/i)[0]
          .split(',')[0]
          .trim(),
      )
      .find((x) => COMPANY.test(x));
    if (t) {
      name = t;
      break;
    }
  }
  return {
    broker: { name, regulator_registration: /\b(INZ\d{9})\b/.exec(text)?.[1] ?? null },
    client: {
      name: get('name') ?? '',
      pan: get('pan'),
      ucc: get('ucc'),
      address: get('address'),
      gst_state_code: get('stateCode'),
      place_of_supply: get('pos'),
    },
    info: {
      contract_note_number: get('cn') ?? '',
      settlement_number: get('settlementNo'),
      trade_date: get('tradeDate') ?? '',
      settlement_date: get('settlementDate'),
    },
  };
}
