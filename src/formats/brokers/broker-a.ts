/** broker_a (Zerodha): REAL-WORLD.md section 4 and genuine notes (labels with or without colons). */
import { defineBroker } from '../types.js';

export const brokerA = defineBroker({
  id: 'broker_a',
  name: 'Zerodha',
  display: 'Zerodha',
  realValue: 'zerodha',
  aliases: ['zerodha'],
  markers: [/Zerodha/i],
  family: 'contract-note-broker-a',
  sample: 'contract-note-broker_a',
  labels: {
    trades: [
      ['orderNo+orderTime', ['Order No. / Order time', 'Order No. & Time']], ['orderNo', ['Order No.']], ['orderTime', ['Order time']], ['tradeNo+tradeTime', ['Trade No. / Trade Time']], ['tradeNo', ['Trade No.']], ['tradeTime', ['Trade Time']],
      ['security', ['Security / Contract Description', 'Security/Contract Description']], ['bs', ['Buy(B) / Sell(S)']], ['exchange', ['Exchange']], ['qty', ['Quantity']],
      ['rate', ['Gross Rate/Trade Price Per unit', 'Gross Rate', 'Premium/Gross Rate']], ['bpu', ['Brokerage per unit']], ['netRate', ['Net rate per unit']], ['closing', ['Closing Rate per Unit']],
      ['netTotal', ['Net Total']], ['remarks', ['Remarks']],
    ],
    facts: { cn: ['Contract Note No.', 'Contract note no'], tradeDate: ['Trade Date'], settlementNo: ['Settlement No.'], settlementDate: ['Settlement Date'], name: ['Name of the Client'], ucc: ['UCC'], pan: ['PAN'], address: ['Address'], pos: ['Place of Supply'], stateCode: ['GST State Code'] },
    charges: [['obligation', ['Pay in/Pay out obligation']], ['brokerage', ['Taxable value of Supply (Brokerage)']], ['exchange', ['Exchange transaction charges']], ['clearing', ['Clearing charges']], ['cgst', ['CGST']], ['sgst', ['SGST']], ['igst', ['IGST']], ['stt', ['Securities transaction tax']], ['sebi', ['SEBI turnover fees']], ['stamp', ['Stamp duty']], ['net', ['Net amount receivable/(payable by client)', 'Net amount receivable']]],
  },
});
