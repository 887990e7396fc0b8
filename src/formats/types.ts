/**
 * The shapes of the registry's descriptors (src/formats/index.ts). Pure types, no imports.
 */

/** Contract-note trade-table columns. */
export type ColKey =
  | 'orderNo'
  | 'orderTime'
  | 'tradeNo'
  | 'tradeTime'
  | 'security'
  | 'bs'
  | 'exchange'
  | 'qty'
  | 'rate'
  | 'bpu'
  | 'netRate'
  | 'closing'
  | 'netTotal'
  | 'remarks';

/** Header facts of a contract note. */
export type FactKey = 'cn' | 'tradeDate' | 'settlementNo' | 'settlementDate' | 'name' | 'ucc' | 'pan' | 'address' | 'pos' | 'stateCode';

/** Charge rows of a contract note. */
export type ChargeKey = 'obligation' | 'brokerage' | 'exchange' | 'clearing' | 'cgst' | 'sgst' | 'igst' | 'stt' | 'sebi' | 'stamp' | 'net';

/** What a broker's note tells the contract-note parser: only labels and synonyms. */
export interface BrokerLabels {
  /**
   * Trade table header labels, every template version's synonyms (a column's label, all its
   * stacked lines joined, must start with one of them, case and punctuation aside). A column
   * may hold two values (`orderNo+orderTime`).
   */
  trades: [ColKey | `${ColKey}+${ColKey}`, string[]][];
  /** Labels of the header facts. */
  facts: Partial<Record<FactKey, string[]>>;
  /** The broker's own charge-row labels (matched at the start of the row). */
  charges: [ChargeKey, string[]][];
}

/** One contract-note broker (a file under src/formats/brokers/). */
export interface BrokerFormat<Id extends string = string> {
  /** SPEC.md's neutral name (`broker_info.broker_type`, `--broker`). */
  id: Id;
  /** The broker's trade name (detection evidence, messages). */
  name: string;
  /** How messages name it in the real dialect (`--names real`). */
  display: string;
  /** Its `broker_type` value in the real dialect. */
  realValue: string;
  /** Other names `--broker` accepts. */
  aliases: readonly string[];
  /** Text that identifies the broker on a note's first lines (name or legal entity); the first match wins. */
  markers: readonly RegExp[];
  /** Layout family of the property suite (test/layouts/families, `family.id`). */
  family: string;
  /** Expected-JSON fixture of its canonical note (fixtures/expected/<name>.json; fixtures/contract_note/<id>.pdf). */
  sample: string;
  /** Its notes' labels, read by the contract-note parser. */
  labels: BrokerLabels;
}

/** A broker descriptor with its id kept as a literal type. */
export function defineBroker<const Id extends string>(b: BrokerFormat<Id>): BrokerFormat<Id> {
  return b;
}
