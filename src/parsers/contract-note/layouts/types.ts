/** What a broker's layout module tells the contract-note parser. */
import type { BrokerType } from '../../../schema/index.js';
import type { Label } from '../../depository/shared.js';

export type ChargeKey = 'obligation' | 'brokerage' | 'exchange' | 'clearing' | 'cgst' | 'sgst' | 'igst' | 'stt' | 'sebi' | 'stamp' | 'net';

export interface BrokerLayout {
  type: BrokerType;
  /** Trade table header labels in the broker's own order (names: orderNo, orderTime, tradeNo, tradeTime, security, bs, exchange, qty, rate, bpu, netRate, closing, netTotal, remarks). */
  trades: Label[];
  /** The broker's own charge-row labels (matched case-insensitively at the start of the row). */
  charges: [ChargeKey, string][];
}

const L = (name: string, label: string, align: 'left' | 'right' = 'left'): Label => ({ name, label, align });
export const left = L;
export const right = (name: string, label: string): Label => L(name, label, 'right');
