/** broker_a (Zerodha): the layout REAL-WORLD.md section 4 describes. */
import { left, right, type BrokerLayout } from './types.js';

export const brokerA: BrokerLayout = {
  type: 'broker_a',
  trades: [left('orderNo', 'Order No.'), left('orderTime', 'Order time'), left('tradeNo', 'Trade No.'), left('tradeTime', 'Trade Time'), left('security', 'Security / Contract Description'), left('bs', 'Buy(B) / Sell(S)'), left('exchange', 'Exchange'), right('qty', 'Quantity'), right('rate', 'Gross Rate'), right('bpu', 'Brokerage per unit'), right('netRate', 'Net rate per unit'), right('closing', 'Closing Rate per Unit'), right('netTotal', 'Net Total'), left('remarks', 'Remarks')],
  charges: [['obligation', 'Pay in/Pay out obligation'], ['brokerage', 'Taxable value of Supply (Brokerage)'], ['exchange', 'Exchange transaction charges'], ['clearing', 'Clearing charges'], ['cgst', 'CGST'], ['sgst', 'SGST'], ['igst', 'IGST'], ['stt', 'Securities transaction tax'], ['sebi', 'SEBI turnover fees'], ['stamp', 'Stamp duty'], ['net', 'Net amount receivable/(payable by client)']],
};
