/** What a broker's layout module tells the contract-note parser: only labels and synonyms. */
import type { BrokerType } from '../../../schema/index.js';

export type ChargeKey = 'obligation' | 'brokerage' | 'exchange' | 'clearing' | 'cgst' | 'sgst' | 'igst' | 'stt' | 'sebi' | 'stamp' | 'net';

/** Trade table columns. */
export type ColKey = 'orderNo' | 'orderTime' | 'tradeNo' | 'tradeTime' | 'security' | 'bs' | 'exchange' | 'qty' | 'rate' | 'bpu' | 'netRate' | 'closing' | 'netTotal' | 'remarks';

/** Header facts of a note. */
export type FactKey = 'cn' | 'tradeDate' | 'settlementNo' | 'settlementDate' | 'name' | 'ucc' | 'pan' | 'address' | 'pos' | 'stateCode';

export interface BrokerLayout {
  type: BrokerType;
  /**
   * Trade table header labels, every template version's synonyms (a column's label, all its
   * stacked lines joined, must start with one of them, case and punctuation aside). A column
   * may hold two values (`orderNo+orderTime`).
   */
  trades: [ColKey | `${ColKey}+${ColKey}`, string[]][];
  /** Labels of the header facts. */
  facts: Partial<Record<FactKey, string[]>>;
  /** The broker's own charge-row labels (matched at the start of the row). */
  charges: [ChargeKey, string[]][];
}
