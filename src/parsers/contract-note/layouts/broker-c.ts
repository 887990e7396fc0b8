/** broker_c (Upstox / RKSV): `Instrument`, `Side` BUY/SELL, ISO dates, `Derivatives` segment. */
import { left, right, type BrokerLayout } from './types.js';

export const brokerC: BrokerLayout = {
  type: 'broker_c',
  trades: [left('orderNo', 'Order Number'), left('orderTime', 'Order Time'), left('tradeNo', 'Trade Number'), left('tradeTime', 'Trade Time'), left('security', 'Instrument'), left('bs', 'Side'), left('exchange', 'Exchange'), right('qty', 'Quantity'), right('rate', 'Price'), right('bpu', 'Brokerage'), right('netRate', 'Net Price'), right('closing', 'Closing Price'), right('netTotal', 'Net Value'), left('remarks', 'Remarks')],
  charges: [['obligation', 'Obligation'], ['brokerage', 'Brokerage'], ['exchange', 'Transaction Charges'], ['clearing', 'Clearing Charges'], ['cgst', 'CGST'], ['sgst', 'SGST'], ['igst', 'IGST'], ['stt', 'Securities Transaction Tax'], ['sebi', 'SEBI Turnover Fees'], ['stamp', 'Stamp Duty'], ['net', 'Net Amount']],
};
