/** Contract note response (SPEC.md "Contract note response"). */
import { z } from 'zod';
import { BROKER_IDS, type BrokerId } from '../formats/index.js';
import { IsoDate } from './common.js';

/** The registry's brokers (src/formats/brokers), and `unknown` for a note read by the generic vocabulary. */
export const BrokerType = z.enum<readonly [...BrokerId[], 'unknown']>([...BROKER_IDS, 'unknown']);
const num = z.number().finite();

export const EquityTransaction = z.object({
  security_name: z.string(),
  security_symbol: z.string().nullable(),
  isin: z.string().nullable(),
  buy_quantity: num,
  buy_wap: num,
  buy_total_value: num,
  sell_quantity: num,
  sell_wap: num,
  sell_total_value: num,
  net_obligation: num,
});

export const DerivativesTransaction = z.object({
  contract_description: z.string(),
  buy_sell_bf_cf: z.enum(['buy', 'sell', 'bring forward', 'carry forward']),
  quantity: num,
  wap_per_unit: num,
  closing_rate_per_unit: num.nullable(),
  brokerage_per_unit: num,
  net_total: num,
});

export const DetailedTrade = z.object({
  order_number: z.string(),
  order_time: z.string(),
  trade_number: z.string(),
  trade_time: z.string(),
  security_description: z.string(),
  exchange: z.string(),
  remarks: z.string().nullable(),
  buy_sell: z.enum(['B', 'S']),
  quantity: num,
  net_rate_per_unit: num,
  closing_rate_per_unit: num.nullable(),
  brokerage: num,
  net_total: num,
});

export const ChargesSummary = z.object({
  cgst: num,
  sgst: num,
  igst: num,
  exchange_transaction_charges: num,
  regulator_turnover_fees: num,
  securities_transaction_tax: num,
  stamp_duty: num,
  taxable_value_brokerage: num,
  pay_in_pay_out_obligation: num,
  net_amount_receivable_payable: num,
});

export const ContractNote = z.object({
  broker_info: z.object({ broker_type: BrokerType, name: z.string(), regulator_registration: z.string().nullable() }),
  client_info: z.object({
    name: z.string(),
    pan: z.string().nullable(),
    ucc: z.string().nullable(),
    address: z.string().nullable(),
    gst_state_code: z.string().nullable(),
    place_of_supply: z.string().nullable(),
  }),
  contract_note_info: z.object({
    contract_note_number: z.string(),
    settlement_number: z.string().nullable(),
    trade_date: IsoDate,
    settlement_date: IsoDate.nullable(),
  }),
  equity_transactions: z.array(EquityTransaction),
  derivatives_transactions: z.array(DerivativesTransaction),
  detailed_trades: z.array(DetailedTrade),
  charges_summary: ChargesSummary,
});

export type BrokerType = z.infer<typeof BrokerType>;
export type ContractNote = z.infer<typeof ContractNote>;
