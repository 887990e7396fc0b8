/**
 * Statement detection from the document itself (REAL-WORLD.md section 2): watermarks,
 * headings, PDF metadata and broker markers, with the evidence used. Never guesses: an
 * unrecognised document is an error listing what is supported.
 */
import { DocumentError } from '../../errors.js';
import { headText, type PdfDocument } from '../../pdf/model.js';
import type { BrokerType } from '../../schema/index.js';

export type StatementKind = 'registrar' | 'depository_a' | 'depository_b' | 'contract_note';

export interface Detection {
  type: StatementKind;
  /** SPEC.md name of the issuer: registrar_a, registrar_b, depository_a, depository_b, broker_a..d, unknown. */
  issuer: string;
  form: 'detailed' | 'summary' | null;
  broker: BrokerType | null;
  evidence: string[];
}

export const SUPPORTED = 'registrar statements (registrar_a / registrar_b, detailed or summary), depository_a and depository_b statements, and broker contract notes';

const BROKERS: { type: BrokerType; re: RegExp; label: string }[] = [
  { type: 'broker_a', re: /Zerodha/i, label: 'Zerodha' },
  { type: 'broker_b', re: /Groww|Nextbillion Technology/i, label: 'Groww' },
  { type: 'broker_c', re: /Upstox|RKSV Securities/i, label: 'Upstox' },
  { type: 'broker_d', re: /ICICI\s+Securities|ICICI\s*direct/i, label: 'ICICI Securities' },
];

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
  return p && REPRINT.test(p) ? ` (the PDF's producer is '${p}', a tool that also re-saves and prints PDFs: if this is a re-saved or printed copy, try the original file from the issuer)` : '';
}

export function detect(doc: PdfDocument): Detection {
  const text = headText(doc, 2);
  const md = doc.metadata;
  const meta = [md.producer, md.creator, md.title].filter(Boolean).join(' | ');
  const evidence: string[] = [];
  const found = (type: StatementKind, issuer: string, form: Detection['form'] = null, broker: BrokerType | null = null): Detection => {
    if (md.producer && REPRINT.test(md.producer)) evidence.push(`producer "${md.producer}"`);
    return { type, issuer, form, broker, evidence };
  };

  // Contract notes first: they can mention depositories and registrars in their terms.
  // A contract note: its heading with `cum Tax Invoice` or a `Contract Note No` label, or (older and
  // foreign brokers' notes) the words `Contract Note` with a broker registration or a trade date.
  const reg = /\b(IN[ZBF]\s?\d{9})\b/.exec(text);
  if (/Contract\s+Note\s+cum\s+Tax\s+Invoice|Contract\s+Note\s+No/i.test(text) || (/\bContract\s+Note\b/i.test(text) && (reg || /\bTrade\s+Date\b/i.test(text)))) {
    evidence.push('heading "Contract note"');
    if (/\bUCC\b|Unique Client Code/i.test(text)) evidence.push('label "UCC"');
    if (reg) evidence.push(`broker registration ${reg[1].replace(/\s/g, '')}`);
    const b = BROKERS.find((x) => x.re.test(text));
    if (b) evidence.push(`broker name "${b.label}"`);
    return found('contract_note', b?.type ?? 'unknown', null, b?.type ?? 'unknown');
  }
  if (/NSDL\s+Consolidated\s+Account\s+Statement|National\s+Securities\s+Depository\s+Limited|NSDL\s+ID\s*:|About\s+NSDL/i.test(text) || /NSDL-(Consolidated Account Statement|CAS)/i.test(meta)) {
    if (/NSDL ID\s*:/i.test(text)) evidence.push('label "NSDL ID:"');
    if (/National\s+Securities\s+Depository\s+Limited/i.test(text)) evidence.push('name "National Securities Depository Limited"');
    if (/NSDL-/i.test(meta)) evidence.push(`metadata "${meta}"`);
    if (!evidence.length) evidence.push('heading "NSDL Consolidated Account Statement"');
    return found('depository_b', 'depository_b');
  }
  if (/Central\s+Depository\s+Services\s+\(India\)\s+Limited|CAS\)\s+FOR\s+SECURITIES\s+HELD\s+IN\s+DEMAT\s+FORM/i.test(text)) {
    if (/Central\s+Depository\s+Services/i.test(text)) evidence.push('name "Central Depository Services (India) Limited"');
    if (/SECURITIES\s+HELD\s+IN\s+DEMAT\s+FORM/i.test(text)) evidence.push('heading "CONSOLIDATED ACCOUNT STATEMENT (CAS) FOR SECURITIES HELD IN DEMAT FORM"');
    return found('depository_a', 'depository_a');
  }
  const summary = /Consolidated\s+Account\s+Summary/i.test(text);
  const form = summary ? 'summary' : 'detailed';
  if (/CAMSCASWS/.test(text)) {
    evidence.push('watermark "CAMSCASWS"');
    return found('registrar', 'registrar_a', form);
  }
  if (/KFINCASWS/.test(text)) {
    evidence.push('watermark "KFINCASWS"');
    return found('registrar', 'registrar_b', form);
  }
  if (md.producer && /Stimulsoft/i.test(md.producer) && /Consolidated\s+Account/i.test(text)) {
    evidence.push(`producer "${md.producer}"`);
    return found('registrar', 'registrar_a', form);
  }
  if (md.producer && /ActiveReports/i.test(md.producer) && /Consolidated\s+Account/i.test(text)) {
    evidence.push(`producer "${md.producer}"`);
    return found('registrar', 'registrar_b', form);
  }
  if (/Consolidated\s+Account\s+(Statement|Summary)/i.test(text) && /Folio\s*No/i.test(text)) {
    evidence.push(`heading "Consolidated Account ${summary ? 'Summary' : 'Statement'}"`, 'label "Folio No"');
    return found('registrar', /KFINTECH|KFin/i.test(text) && !/CAMS/.test(text) ? 'registrar_b' : 'registrar_a', form);
  }
  throw new DocumentError('UnsupportedDocument', `not a supported statement: no registrar, depository or contract-note markers found. Supported: ${SUPPORTED}`);
}

/** Statement type names accepted by `--type`, with real-name aliases. */
export const TYPE_ALIASES: Record<string, StatementKind> = {
  registrar: 'registrar', registrar_a: 'registrar', registrar_b: 'registrar', registrar_a_registrar_b: 'registrar',
  cams: 'registrar', kfintech: 'registrar', kfin: 'registrar', karvy: 'registrar', cams_kfintech: 'registrar', mf: 'registrar',
  depository_a: 'depository_a', cdsl: 'depository_a',
  depository_b: 'depository_b', nsdl: 'depository_b',
  contract_note: 'contract_note', 'contract-note': 'contract_note', cn: 'contract_note',
};

export function resolveType(name: string): StatementKind | undefined {
  return TYPE_ALIASES[name.toLowerCase().replace(/-/g, '_')] ?? TYPE_ALIASES[name.toLowerCase()];
}
