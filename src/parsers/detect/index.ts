/**
 * Statement detection from the document itself (REAL-WORLD.md section 2): watermarks,
 * headings, PDF metadata and broker markers, with the evidence used. Never guesses: an
 * unrecognised document is an error listing what is supported.
 *
 * One rule per registry format (`RULES`, keyed by FormatId: a format without a rule does not
 * compile); the broker of a contract note comes from the registry's markers.
 */
import { DocumentError } from '../../errors.js';
import { brokerIn, FORMATS, resolveFormat, SUPPORTED, type FormatId } from '../../formats/index.js';
import { headText, type PdfDocument } from '../../pdf/model.js';
import type { BrokerType } from '../../schema/index.js';

export { SUPPORTED } from '../../formats/index.js';

export type StatementKind = FormatId;

export interface Detection {
  type: StatementKind;
  /** SPEC.md name of the issuer: registrar_a, registrar_b, depository_a, depository_b, broker_a..d, unknown. */
  issuer: string;
  form: 'detailed' | 'summary' | null;
  broker: BrokerType | null;
  evidence: string[];
}

/**
 * Producers of tools that re-save or re-print a PDF. A producer proves nothing on its own: brokers'
 * own notes say `Skia/PDF ...; modified using iText`, and investors remove a password by saving again
 * in macOS Preview or Chrome, which keeps the text layer. Such a file is parsed like any other; the
 * producer is only mentioned when parsing fails (`reprintHint`).
 */
const REPRINT = /Microsoft:\s*Print To PDF|Skia\/PDF|Quartz PDFContext|Print to PDF|CamScanner|PDFium/i;

/** ` (the PDF was re-saved by '<producer>'; if parsing fails, try the original file from the issuer)`, or ''. */
export function reprintHint(doc: PdfDocument): string {
  const p = doc.metadata.producer;
  return p && REPRINT.test(p)
    ? ` (the PDF's producer is '${p}', a tool that also re-saves and prints PDFs: if this is a re-saved or printed copy, try the original file from the issuer)`
    : '';
}

/** What a rule reads: the first pages' text, the metadata, and where it writes its evidence. */
interface Seen {
  text: string;
  producer: string | undefined;
  /** Producer, creator and title joined. */
  meta: string;
  evidence: string[];
}
type Found = Pick<Detection, 'issuer'> & Partial<Pick<Detection, 'form' | 'broker'>>;

/**
 * Detection rules, tried in this order: contract notes first (they can mention depositories and
 * registrars in their terms), then the depositories, then registrars. A rule adds evidence only
 * when it matches.
 */
const RULES = {
  // A contract note: its heading with `cum Tax Invoice` or a `Contract Note No` label, or (older and
  // foreign brokers' notes) the words `Contract Note` with a broker registration or a trade date.
  contract_note: ({ text, evidence }: Seen): Found | null => {
    const reg = /\b(IN[ZBF]\s?\d{9})\b/.exec(text);
    if (!(
      /Contract\s+Note\s+cum\s+Tax\s+Invoice|Contract\s+Note\s+No/i.test(text) ||
      (/\bContract\s+Note\b/i.test(text) && (reg || /\bTrade\s+Date\b/i.test(text)))
    ))
      return null;
    evidence.push('heading "Contract note"');
    if (/\bUCC\b|Unique Client Code/i.test(text)) evidence.push('label "UCC"');
    if (reg) evidence.push(`broker registration ${reg[1].replace(/\s/g, '')}`);
    const b = brokerIn(text);
    if (b) evidence.push(`broker name "${b.name}"`);
    return { issuer: b?.id ?? 'unknown', broker: b?.id ?? 'unknown' };
  },
  depository_b: ({ text, meta, evidence }: Seen): Found | null => {
    if (!(
      /NSDL\s+Consolidated\s+Account\s+Statement|National\s+Securities\s+Depository\s+Limited|NSDL\s+ID\s*:|About\s+NSDL/i.test(text) ||
      /NSDL-(Consolidated Account Statement|CAS)/i.test(meta)
    ))
      return null;
    if (/NSDL ID\s*:/i.test(text)) evidence.push('label "NSDL ID:"');
    if (/National\s+Securities\s+Depository\s+Limited/i.test(text)) evidence.push('name "National Securities Depository Limited"');
    if (/NSDL-/i.test(meta)) evidence.push(`metadata "${meta}"`);
    if (!evidence.length) evidence.push('heading "NSDL Consolidated Account Statement"');
    return { issuer: 'depository_b' };
  },
  depository_a: ({ text, evidence }: Seen): Found | null => {
    if (!/Central\s+Depository\s+Services\s+\(India\)\s+Limited|CAS\)\s+FOR\s+SECURITIES\s+HELD\s+IN\s+DEMAT\s+FORM/i.test(text))
      return null;
    if (/Central\s+Depository\s+Services/i.test(text)) evidence.push('name "Central Depository Services (India) Limited"');
    if (/SECURITIES\s+HELD\s+IN\s+DEMAT\s+FORM/i.test(text))
      evidence.push('heading "CONSOLIDATED ACCOUNT STATEMENT (CAS) FOR SECURITIES HELD IN DEMAT FORM"');
    return { issuer: 'depository_a' };
  },
  registrar: ({ text, producer, evidence }: Seen): Found | null => {
    const summary = /Consolidated\s+Account\s+Summary/i.test(text);
    const form = summary ? 'summary' : 'detailed';
    if (/CAMSCASWS/.test(text)) {
      evidence.push('watermark "CAMSCASWS"');
      return { issuer: 'registrar_a', form };
    }
    if (/KFINCASWS/.test(text)) {
      evidence.push('watermark "KFINCASWS"');
      return { issuer: 'registrar_b', form };
    }
    if (producer && /Stimulsoft/i.test(producer) && /Consolidated\s+Account/i.test(text)) {
      evidence.push(`producer "${producer}"`);
      return { issuer: 'registrar_a', form };
    }
    if (producer && /ActiveReports/i.test(producer) && /Consolidated\s+Account/i.test(text)) {
      evidence.push(`producer "${producer}"`);
      return { issuer: 'registrar_b', form };
    }
    if (/Consolidated\s+Account\s+(Statement|Summary)/i.test(text) && /Folio\s*No/i.test(text)) {
      evidence.push(`heading "Consolidated Account ${summary ? 'Summary' : 'Statement'}"`, 'label "Folio No"');
      return { issuer: /KFINTECH|KFin/i.test(text) && !/CAMS/.test(text) ? 'registrar_b' : 'registrar_a', form };
    }
    return null;
  },
} satisfies Record<FormatId, (seen: Seen) => Found | null>;

export function detect(doc: PdfDocument): Detection {
  const md = doc.metadata;
  const seen: Seen = {
    text: headText(doc, 2),
    producer: md.producer || undefined,
    meta: [md.producer, md.creator, md.title].filter(Boolean).join(' | '),
    evidence: [],
  };
  for (const [type, rule] of Object.entries(RULES) as [FormatId, (s: Seen) => Found | null][]) {
    const f = rule(seen);
    if (!f) continue;
    if (md.producer && REPRINT.test(md.producer)) seen.evidence.push(`producer "${md.producer}"`);
    return { type, issuer: f.issuer, form: f.form ?? null, broker: f.broker ?? null, evidence: seen.evidence };
  }
  throw new DocumentError(
    'UnsupportedDocument',
    `not a supported statement: no registrar, depository or contract-note markers found. Supported: ${SUPPORTED}`,
  );
}

/**
 * Statement type names accepted by `--type` (ids and aliases, from the registry).
 * @deprecated read `FORMATS` / `resolveFormat` from src/formats; kept while the CLI still imports it.
 */
export const TYPE_ALIASES: Record<string, StatementKind> = Object.fromEntries(
  FORMATS.flatMap((f) => [f.id, ...f.aliases].map((n) => [n, f.id])),
);

/** @deprecated `resolveFormat` from src/formats. */
export function resolveType(name: string): StatementKind | undefined {
  return resolveFormat(name);
}
