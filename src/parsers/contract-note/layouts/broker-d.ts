/** broker_d (ICICI Securities): `Security Name`, `Exch`, `Market Rate`, dd-mm-yyyy dates. */
import { left, right, type BrokerLayout } from './types.js';

export const brokerD: BrokerLayout = {
  type: 'broker_d',
  trades: [left('orderNo', 'Order No'), left('orderTime', 'Order Time'), left('tradeNo', 'Trade No'), left('tradeTime', 'Trade Time'), left('security', 'Security Name'), left('bs', 'B/S'), left('exchange', 'Exch'), right('qty', 'Qty'), right('rate', 'Market Rate'), right('bpu', 'Brokerage Per Unit'), right('netRate', 'Net Rate'), right('closing', 'Closing Rate'), right('netTotal', 'Net Amount'), left('remarks', 'Remarks')],
  charges: [['obligation', 'Pay in/Pay out obligation'], ['brokerage', 'Taxable value of Supply (Brokerage)'], ['exchange', 'Exchange transaction charges'], ['clearing', 'Clearing charges'], ['cgst', 'CGST'], ['sgst', 'SGST'], ['igst', 'IGST'], ['stt', 'Securities transaction tax'], ['sebi', 'SEBI turnover fees'], ['stamp', 'Stamp duty'], ['net', 'Net amount receivable']],
};
