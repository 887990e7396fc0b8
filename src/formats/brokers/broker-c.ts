/** broker_c (Upstox / RKSV): `Instrument`, `Side` BUY/SELL, ISO dates, `Derivatives` segment. */
import { defineBroker } from '../types.js';

export const brokerC = defineBroker({
  id: 'broker_c',
  name: 'Upstox',
  display: 'Upstox',
  realValue: 'upstox',
  aliases: ['upstox'],
  markers: [/Upstox/i, /RKSV Securities/i],
  family: 'contract-note-broker-c',
  sample: 'contract-note-broker_c',
  labels: {
    trades: [
      ['orderNo+orderTime', ['Order Number / Order Time']], ['orderNo', ['Order Number']], ['orderTime', ['Order Time']], ['tradeNo+tradeTime', ['Trade Number / Trade Time']], ['tradeNo', ['Trade Number']], ['tradeTime', ['Trade Time']],
      ['security', ['Instrument']], ['bs', ['Side']], ['exchange', ['Exchange']], ['qty', ['Quantity']], ['rate', ['Price', 'Premium / Price']], ['bpu', ['Brokerage']], ['netRate', ['Net Price']], ['closing', ['Closing Price']], ['netTotal', ['Net Value']], ['remarks', ['Remarks']],
    ],
    facts: { cn: ['Contract Note No'], tradeDate: ['Trade Date'], settlementNo: ['Settlement No'], settlementDate: ['Settlement Date'], name: ['Client Name'], ucc: ['UCC'], pan: ['PAN'], address: ['Address'], pos: ['Place of Supply'], stateCode: ['State Code'] },
    charges: [['obligation', ['Obligation']], ['brokerage', ['Brokerage']], ['exchange', ['Transaction Charges']], ['clearing', ['Clearing Charges']], ['cgst', ['CGST']], ['sgst', ['SGST']], ['igst', ['IGST']], ['stt', ['Securities Transaction Tax']], ['sebi', ['SEBI Turnover Fees']], ['stamp', ['Stamp Duty']], ['net', ['Net Amount']]],
  },
});
