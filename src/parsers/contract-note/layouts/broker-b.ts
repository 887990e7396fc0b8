/** broker_b (Groww): trade number first, `Scrip Name`, Buy/Sell words, `F&O` segment. */
import { left, right, type BrokerLayout } from './types.js';

export const brokerB: BrokerLayout = {
  type: 'broker_b',
  trades: [left('tradeNo', 'Trade No.'), left('tradeTime', 'Trade Time'), left('orderNo', 'Order No.'), left('orderTime', 'Order Time'), left('security', 'Scrip Name'), left('exchange', 'Exchange'), left('bs', 'Buy/Sell'), right('qty', 'Qty'), right('rate', 'Trade Price'), right('bpu', 'Brokerage'), right('netRate', 'Net Price'), right('closing', 'Closing Rate'), right('netTotal', 'Net Amount'), left('remarks', 'Remarks')],
  charges: [['obligation', 'Pay In / Pay Out Obligation'], ['brokerage', 'Brokerage (Taxable Value)'], ['exchange', 'Exchange Transaction Charges'], ['clearing', 'Clearing Charges'], ['cgst', 'CGST'], ['sgst', 'SGST'], ['igst', 'IGST'], ['stt', 'STT'], ['sebi', 'SEBI Fees'], ['stamp', 'Stamp Duty'], ['net', 'Net Amount Receivable / (Payable)']],
};
