/**
 * The words the depositories' table headers are made of, as data for the table reader's
 * `readGrid` (common/table/grid.ts): which label gives which column role, every header word, the
 * labels as printed (to split pieces that hold several), and the words a header starts with.
 */
import type { GridVocabulary } from '../common/table/index.js';

export const DEPOSITORY_HEADERS: GridVocabulary = {
  // First match wins: [role, numeric, pattern on the lower-cased label].
  roles: [
    ['isin', false, /^isin( ucc| stock symbol)?$|^stock symbol isin$/],
    ['count', true, /no\.? of isins|isins \/ schemes/],
    ['symbol', false, /symbol/],
    ['ucc', false, /^ucc$/],
    ['folio', false, /folio/],
    ['coupon', true, /coupon/],
    ['maturity', false, /maturity/],
    // Average Total Expense Ratio (TER) (In % Terms), over Regular and Direct (CDSL, from 2025).
    ['ter_direct', true, /(expense ratio|\(ter\)).*\bdirect$/],
    ['ter', true, /expense ratio|\(ter\)/],
    ['commission', true, /commission/],
    ['arn', false, /^arn\b/],
    ['avg', true, /average/],
    ['cost', true, /total cost|invested|cost value/],
    ['ret', true, /return|\(%\)$/],
    ['pnl', true, /unrealised|profit|gain/],
    ['units', true, /^(a\) )?current bal/],
    ['other', true, /frozen|pledge|free bal|lock|lent|safekeep|earmark|pending|transit|demat|remat|confirmed/],
    ['units', true, /closing bal\w*\s*\(?units|^units$|no\.? of units|no\.? of shares|quantity|no\.? of bonds|current bal/],
    ['stamp', true, /stamp duty/],
    ['open', true, /opening bal|^op\.? bal/],
    ['balance', true, /^balance$|closing bal|^cl\.? bal/],
    ['credit', true, /^credit( ?cr\.?)?$/],
    ['debit', true, /^debit( ?dr\.?)?$/],
    ['date', false, /^date$|transaction date|^txn date$/],
    ['order', false, /order/],
    ['face', true, /^face value/],
    ['nav', true, /\bnav\b/],
    ['price', true, /market price|^rate$|price/],
    ['sum', true, /sum assured/],
    ['premium', true, /premium/],
    ['value', true, /valuation|value/],
    ['tier', false, /^tier$/],
    ['manager', false, /manager/],
    ['policy', false, /policy/],
    ['insurer', false, /insurer/],
    ['plan', false, /plan name/],
    ['assured', false, /life assured/],
    ['status', false, /^status$/],
    ['frequency', false, /frequency/],
    ['amc', false, /^amc/],
    ['rta', false, /^rta$|registrar/],
    ['acctype', false, /account type/],
    ['details', false, /account details/],
    ['instruction', false, /instruction/],
    ['desc', false, /particulars|^description$|^transaction description$/],
    ['name', false, /security|company|description|scheme|name/],
  ],
  words: `isin ucc stock symbol company name face value no of shares quantity market price in nav units unit
    description security bonds coupon rate maturity date current bal balance frozen pledge setup free closing opening
    credit debit order transaction particulars scheme folio average cost per total unrealised profitloss profit loss
    annualised return valuation invested cumulative amount tier pension fund manager policy insurer plan life assured
    status frequency sum premium amc rta account type details isins schemes rs inr locked lent pending demat remat transit
    confirmed pledged earmarked safekeep lockin op cl txn stamp duty cr dr instruction a b c d e f
    expense ratio ter terms commission paid to distributors absolute arn code regular direct gross unreal ised`
    .split(/\s+/)
    .filter(Boolean),
  labels: `ISIN|ISIN UCC|UCC|Security|Security Name|ISIN Name|Current Bal|Current Balance|Frozen Bal|Pledge Bal|Pledge Setup Bal|Free Bal
    |Market Price / Face Value|Market Price|Rate|Value in|Market Value|Stock Symbol|Company Name|Face Value|No. of Shares|Quantity|No. of Units|NAV
    |ISIN Description|Security Description|Coupon Rate|Maturity Date|No. of Bonds|Folio No.|Average Cost Per Units|Total Cost|Current NAV per unit
    |Current Value|Unrealised Profit/(Loss)|Annualised Return(%)|Cumulative Amount Invested (in INR)|Date|Transaction Particulars|Description|Particulars|Order No|Credit|Debit
    |Instruction Details|Closing Balance|Opening Balance|Op. Bal|Cl. Bal|Transaction Date|Txn Date|Transaction Description|Stamp Duty|Credit Cr|Debit Dr|Scheme Name|Closing Bal (Units)|Closing Balance Units|Units|Cumulative Amount Invested|Invested Value
    |Valuation|Tier|Pension Fund Manager|Fund Manager|Scheme|Policy No.|Insurer|Plan Name|Life Assured|Status|Frequency|Sum Assured|Premium
    |AMC Name|RTA|Account Type|Account Details|No. of ISINs / Schemes|Value Rs|Value INR
    |ARN Code|Average Total Expense Ratio (TER) (In % Terms)|Regular|Direct|Gross Commission Paid to Distributors (in absolute terms - in INR)
    |Unrealised Profit/Loss|Unrealised Profit/Loss (%)`
    .split('|')
    .map((l) => l.trim())
    .filter(Boolean),
  anchors: ['isin', 'date', 'tier', 'policy', 'account', 'amc'],
};
