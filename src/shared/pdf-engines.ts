/**
 * The names of the PDF text engines (src/pdf/engine.ts), on their own so that the CLI's option
 * definitions can offer them without loading anything of src/pdf (`cas parse --help` stays light).
 */
export const ENGINES = ['pdfium', 'pdfjs'] as const;
export type EngineName = (typeof ENGINES)[number];
export const DEFAULT_ENGINE: EngineName = 'pdfium';
