/** Section reader: the note header (broker, client, contract note number and dates). */
import type { Line, Word } from '../../pdf/model.js';
import { parseDate } from '../../pdf/numbers.js';
import type { ContractNote } from '../../schema/index.js';
import { findLabels, labelValue, labelWords, normText } from '../common/labels.js';
import { lineSize } from '../common/table/index.js';
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

/** Settlement number and date under one label (`Settlement No / Date   2026063 / 02-04-2026`). */
const SETTLEMENT_BOTH = [
  'Settlement No / Date',
  'Settlement No & Date',
  'Settlement No and Date',
  'Sett No / Date',
  'Settlement Number / Date',
];

/**
 * The lines an address value wraps onto: the words that start under its first value word on the
 * lines below, while nothing stands in the label column to their left and no other label starts there.
 */
function wrappedAddress(lines: Line[], labels: string[][], all: string[][], first: string): string {
  const head = normText(first).split(' ')[0];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const hit = findLabels(line, labels)[0];
    if (!hit) continue;
    const start = line.words.slice(hit.end + 1).find((w) => normText(w.text).split(' ')[0] === head);
    if (!start) continue;
    const size = lineSize(line);
    // Word positions inside a text run are estimates: a continuation starts right of the label's
    // start (indented) and not far right of the first value word.
    const x0 = start.x0;
    const labelX0 = line.words[hit.start].x0;
    const out = [first];
    let prev = line;
    for (let j = i + 1; j < lines.length && j <= i + 4; j++) {
      const l = lines[j];
      if (l.page !== prev.page || l.y - prev.y > size * 2.4) break;
      const w0 = l.words[0];
      if (!w0 || w0.x0 <= labelX0 + size || w0.x0 > x0 + size * 2) break;
      const labelsThere = findLabels(l, all).filter((h) => h.start === 0);
      if (labelsThere.length) break;
      const got: Word[] = [];
      for (const w of l.words) {
        if (got.length && w.x0 - got[got.length - 1].x1 > size * 1.5) break;
        got.push(w);
      }
      out.push(got.map((w) => w.text).join(' '));
      prev = l;
    }
    return out.join(' ');
  }
  return first;
}

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
  const address = get('address');
  const both = labelValue(lines, labelWords(SETTLEMENT_BOTH), all, (v) => {
    const t = v.split(/\s+/).filter((w) => !/^[/&-]$/.test(w));
    return /\d/.test(t[0] ?? '') && dateOf(t.slice(1).join(' ')) ? `${t[0]} ${dateOf(t.slice(1).join(' '))}` : null;
  });
  return {
    broker: { name, regulator_registration: /\b(INZ\d{9})\b/.exec(text)?.[1] ?? null },
    client: {
      name: get('name') ?? '',
      pan: get('pan'),
      ucc: get('ucc'),
      address: address ? wrappedAddress(lines, labels.address, all, address) : null,
      gst_state_code: get('stateCode'),
      place_of_supply: get('pos'),
    },
    info: {
      contract_note_number: get('cn') ?? '',
      settlement_number: both?.split(' ')[0] ?? get('settlementNo'),
      trade_date: get('tradeDate') ?? '',
      settlement_date: both?.split(' ')[1] ?? get('settlementDate'),
    },
  };
}
