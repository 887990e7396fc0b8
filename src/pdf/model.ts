/**
 * The document model the parsers see. It hides the text engine (PDFium-WASM by default, pdf.js as
 * the second engine: engine.ts), so either gives the parsers the same lines, pieces and words.
 */

/** One run of text with its horizontal extent; y is measured from the top of the page. */
export interface TextPiece {
  text: string;
  x0: number;
  x1: number;
  y: number;
  /** Font size (height of the text matrix). */
  size: number;
}

/** One whitespace-separated word with its horizontal extent (estimated inside its text item). */
export interface Word {
  text: string;
  x0: number;
  x1: number;
}

export interface Line {
  /** Baseline, from the top of the page. */
  y: number;
  /** Pieces in reading order; each is a run separated from the next by a visible gap. */
  pieces: TextPiece[];
  /**
   * The same text as words, left to right, whatever the text operators were (a cell, a line, a
   * word or a glyph each): parsers that must not trust pieces as cells read these.
   */
  words: Word[];
  /** Pieces joined: one space inside a run, two spaces between pieces. */
  text: string;
  /** Page number, 1-based. */
  page: number;
}

export interface Page {
  number: number;
  width: number;
  height: number;
  lines: Line[];
  /** Rotated or vertical text (watermarks), kept apart from the body. */
  rotated: string[];
}

export interface DocumentMetadata {
  producer: string | null;
  creator: string | null;
  title: string | null;
  author: string | null;
  subject: string | null;
}

export interface PdfDocument {
  pages: Page[];
  metadata: DocumentMetadata;
}

/** All body lines of the document in reading order. */
export function allLines(doc: PdfDocument): Line[] {
  return doc.pages.flatMap((p) => p.lines);
}

/** Text of the first n pages, body and rotated, for detection. */
export function headText(doc: PdfDocument, n = 2): string {
  return doc.pages
    .slice(0, n)
    .map((p) => [...p.lines.map((l) => l.text), ...p.rotated].join('\n'))
    .join('\n');
}
