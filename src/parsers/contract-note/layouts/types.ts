/**
 * What a broker tells the contract-note parser: only labels and synonyms. A broker's labels live
 * in its registry file (src/formats/brokers/<id>.ts); the generic vocabulary is in generic.ts.
 */
import type { BrokerLabels } from '../../../formats/index.js';

export type { ChargeKey, ColKey, FactKey } from '../../../formats/index.js';

export type BrokerLayout = BrokerLabels;
