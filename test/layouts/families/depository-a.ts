/** Layout family depository_a (CDSL): seeded statements under seeded layout styles, both renderers. */
import { makeDepositoryFamily } from '../../fixtures/depository-family.js';

export const family = makeDepositoryFamily('depository_a');
