/** broker_d (ICICI Securities): `Security Name`, `Exch`, `Market Rate`, dd-mm-yyyy dates. */
import { defineBroker } from '../types.js';

export const brokerD = defineBroker({
  id: 'broker_d',
  name: 'ICICI Securities',
  display: 'ICICI Direct',
  realValue: 'icici',
  aliases: ['icici', 'icicidirect', 'icici_direct'],
  markers: [/ICICI\s+Securities/i, /ICICI\s*direct/i],
  family: 'contract-note-broker-d',
  sample: 'contract-note-broker_d',
  labels: {
    trades: [
      ['orderNo+orderTime', ['Order No / Order Time']], ['orderNo', ['Order No']], ['orderTime', ['Order Time']], ['tradeNo+tradeTime', ['Trade No / Trade Time']], ['tradeNo', ['Trade No']], ['tradeTime', ['Trade Time']],
      ['security', ['Security Name']], ['bs', ['B/S']], ['exchange', ['Exch']], ['qty', ['Qty']], ['rate', ['Market Rate', 'Premium / Market Rate']], ['bpu', ['Brokerage Per Unit']], ['netRate', ['Net Rate']], ['closing', ['Closing Rate']], ['netTotal', ['Net Amount']], ['remarks', ['Remarks']],
    ],
    facts: { cn: ['Contract Note No'], tradeDate: ['Trade Date'], settlementNo: ['Settlement No'], settlementDate: ['Settlement Date'], name: ['Name'], ucc: ['Unique Client Code'], pan: ['PAN'], address: ['Address'], pos: ['Place of Supply'], stateCode: ['State Code'] },
    charges: [['obligation', ['Pay in/Pay out obligation']], ['brokerage', ['Taxable value of Supply (Brokerage)']], ['exchange', ['Exchange transaction charges']], ['clearing', ['Clearing charges']], ['cgst', ['CGST']], ['sgst', ['SGST']], ['igst', ['IGST']], ['stt', ['Securities transaction tax']], ['sebi', ['SEBI turnover fees']], ['stamp', ['Stamp duty']], ['net', ['Net amount receivable']]],
  },
});
