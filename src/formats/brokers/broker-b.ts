/** broker_b (Groww): trade number first, `Scrip Name`, Buy/Sell words, `F&O` segment. */
import { defineBroker } from '../types.js';

export const brokerB = defineBroker({
  id: 'broker_b',
  name: 'Groww',
  display: 'Groww',
  realValue: 'groww',
  aliases: ['groww'],
  markers: [/Groww/i, /Nextbillion Technology/i],
  family: 'contract-note-broker-b',
  sample: 'contract-note-broker_b',
  labels: {
    trades: [
      ['tradeNo+tradeTime', ['Trade No. / Trade Time']], ['tradeNo', ['Trade No.']], ['tradeTime', ['Trade Time']], ['orderNo+orderTime', ['Order No. / Order Time']], ['orderNo', ['Order No.']], ['orderTime', ['Order Time']],
      ['security', ['Scrip Name', 'Scrip']], ['exchange', ['Exchange']], ['bs', ['Buy/Sell']], ['qty', ['Qty']], ['rate', ['Trade Price', 'Premium / Trade Price']], ['bpu', ['Brokerage']], ['netRate', ['Net Price']], ['closing', ['Closing Rate']], ['netTotal', ['Net Amount']], ['remarks', ['Remarks']],
    ],
    facts: { cn: ['Contract Note Number'], tradeDate: ['Trade Date'], settlementNo: ['Settlement Number'], settlementDate: ['Settlement Date'], name: ['Client Name'], ucc: ['Client Code (UCC)'], pan: ['Client PAN'], address: ['Client Address'], pos: ['Place of Supply'], stateCode: ['State Code'] },
    charges: [['obligation', ['Pay In / Pay Out Obligation']], ['brokerage', ['Brokerage (Taxable Value)']], ['exchange', ['Exchange Transaction Charges']], ['clearing', ['Clearing Charges']], ['cgst', ['CGST']], ['sgst', ['SGST']], ['igst', ['IGST']], ['stt', ['STT']], ['sebi', ['SEBI Fees']], ['stamp', ['Stamp Duty']], ['net', ['Net Amount Receivable / (Payable)']]],
  },
});
