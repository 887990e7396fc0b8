/**
 * Any broker: trade-table columns, header facts and charge rows recognised by the words brokers
 * use for them (every known broker's labels are special cases of these).
 */
import { memoByText } from '../../../shared/memo.js';
import type { ChargeKey, ColKey, FactKey } from './types.js';

const columns = memoByText((label: string): readonly ColKey[] => Object.freeze(readColumn(label)), 5000);

/** A trade-table column label (normalised: lower case, punctuation as spaces) -> the values it holds (read once per label). */
export function genericColumn(label: string): ColKey[] {
  return columns(label) as ColKey[];
}

function readColumn(label: string): ColKey[] {
  const l = ` ${label
    .replace(/\b(rs|inr)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()} `;
  const no = (w: string): boolean => new RegExp(` ${w} (no|nos|number|id|ref)( |$)`).test(l);
  const time = (w: string): boolean =>
    new RegExp(` ${w} (time|no time|number time|no and time|no order time|no trade time)( |$)`).test(l) || (no(w) && / time /.test(l));
  const out: ColKey[] = [];
  if (no('order')) out.push('orderNo');
  if (time('order')) out.push('orderTime');
  if (no('trade')) out.push('tradeNo');
  if (time('trade')) out.push('tradeTime');
  if (out.length) return out;
  // One header run may name several columns (`B/S Quantity Gross Rate/Trade`, `Buy(B) Quantity`):
  // every column phrase claims its words, in priority order, and the keys come out left to right.
  const claimed: [number, number][] = [];
  const found: { key: ColKey; at: number }[] = [];
  const claim = (key: ColKey, re: RegExp): boolean => {
    for (const m of l.matchAll(re)) {
      const at = m.index;
      const e = at + m[0].length;
      if (claimed.some(([a, b]) => at < b && e > a)) continue;
      claimed.push([at, e]);
      found.push({ key, at });
      return true;
    }
    return false;
  };
  claim('closing', / closing( rate| price)?(?= )/g);
  claim('netRate', / net (rate|price)(?= )/g);
  claim('bpu', / brokerage(?= )/g);
  const bs = / (buy)( b)?( [a-z]+)? (sell)( s)?(?= )/.exec(l);
  if (bs) {
    const at = bs.index + 1;
    claimed.push([at, at + 3 + (bs[2]?.length ?? 0)]);
    const sell = bs.index + bs[0].lastIndexOf(' sell');
    claimed.push([sell, sell + 5 + (bs[5]?.length ?? 0)]);
    found.push({ key: 'bs', at });
  } else claim('bs', / (b s|bs|side|b or s|buy or sell)(?= )/g);
  claim('security', / (security|scrip|instrument|contract|description|stock)(?= )/g);
  claim('exchange', /^ (exchange|exch)(?= )/g);
  claim('qty', / (quantity|qty)(?= )/g);
  claim('rate', / (rate|price|premium)(?= )/g);
  claim('netTotal', / (total|amount|value)(?= )/g);
  claim('remarks', /^ remarks?(?= )/g);
  return found.sort((a, b) => a.at - b.at).map((f) => f.key);
}

/** Header facts: every label seen across brokers and template versions. */
export const GENERIC_FACTS: Record<FactKey, string[]> = {
  cn: ['Contract Note No', 'Contract Note Number', 'Contract Note Ref No', 'CN No', 'Contract No'],
  tradeDate: ['Trade Date', 'Date of Trade', 'Trading Date'],
  settlementNo: ['Settlement No', 'Settlement Number', 'Sett No'],
  settlementDate: ['Settlement Date', 'Sett Date', 'Pay in Date'],
  name: ['Name of the Client', 'Client Name', 'Name of Client', 'Name'],
  ucc: [
    'UCC',
    'Client Code (UCC)',
    'Unique Client Code',
    'Client Code',
    'Client ID',
    'UCC Code',
    'Client UCC',
    'UCC of Client',
    'Trading Code',
    'Client Code / UCC',
    'Unique Client Code (UCC)',
  ],
  pan: ['PAN', 'Client PAN', 'PAN of Client', 'PAN No', 'Income Tax PAN'],
  address: ['Address', 'Client Address', 'Address of the Client'],
  pos: ['Place of Supply'],
  stateCode: ['GST State Code', 'State Code'],
};

/** A charge row's label (normalised) -> what it is. */
export function genericCharge(label: string): ChargeKey | 'ignore' | null {
  const l = label;
  // Rate rows (`CGST Rate *`) and cess carry no amount the schema keeps.
  if (
    /^(cgst|sgst|igst|ugst|utgst|utt|cess|gst) rate( rs)?$|^(ugst|utgst|utt|cess|gst)\b|^total taxable value|^(scrip |sub ?|grand )?total\b(?! brokerage| before levies)|^(buy|sell|service tax)\b/.test(
      l,
    )
  )
    return 'ignore';
  if (/^(cgst|central gst)/.test(l)) return 'cgst';
  if (/^(sgst|state gst)/.test(l)) return 'sgst';
  if (/^(igst|integrated gst)/.test(l)) return 'igst';
  // `Taxable value of supply (Exchange Transaction Charges)`: the words in brackets decide.
  if (/^taxable value.*\bexchange\b|^taxable value.*transaction charges/.test(l)) return 'exchange';
  if (/^taxable value.*\bsebi\b/.test(l)) return 'sebi';
  if (/^taxable value.*\bclearing\b/.test(l)) return 'clearing';
  if (
    /^(pay ?in ?(and )?\/? ?pay ?out|pay in pay out|payin payout|obligation|net obligation|pay in out|pay ?in obligation|pay ?out obligation|total before levies)/.test(
      l,
    )
  )
    return 'obligation';
  if (/^(taxable value|(total )?brokerage)/.test(l)) return 'brokerage';
  if (/^(exchange )?(transaction|txn) charges?|^exchange (charges|turnover charges|transaction)/.test(l)) return 'exchange';
  if (/^clearing/.test(l)) return 'clearing';
  if (/^(securities transaction tax|stt|security transaction tax)/.test(l)) return 'stt';
  if (/^sebi/.test(l)) return 'sebi';
  if (/^stamp/.test(l)) return 'stamp';
  if (/^net (amount|receivable|payable)/.test(l)) return 'net';
  return null;
}
