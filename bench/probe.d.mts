/** Types of bench/probe.mjs (plain JavaScript, so that `node --import` loads it without a compiler). */
export declare function installProbe(note: (sign: 'pdfjs' | 'wasm') => void): void;
export declare function engineFromSigns(signs: string[]): 'pdfium' | 'pdfjs' | 'both' | 'none';
