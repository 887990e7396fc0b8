/**
 * The PDFium text engine: PDFium compiled to WebAssembly (`@embedpdf/pdfium`, MIT; the .wasm ships
 * in the package). One instance per thread: the module is compiled and instantiated on first use
 * and reused for every document after; each document, page and text page is closed (and its
 * memory freed) before `extract` returns, whatever happened.
 *
 * PDFium gives per-character data (unicode, origin, advance box, matrix, font). The parsers expect
 * pdf.js's text runs, so the characters are merged into runs by the rules of pdf.js's
 * `getTextContent` (evaluator.js, `buildTextContentItem` / `compareWithLastPosition`): a run goes
 * on while the next glyph sits on the same baseline less than 0.6 em after the last one; a gap of
 * 0.102-0.6 em inside a run becomes one space; space glyphs are not kept but turn into one space
 * between two other glyphs; a change of font or size, a form or image XObject, a jump back of more
 * than 0.2 em or a vertical shift ends the run. Positions are PDF user space mapped to the page
 * as shown (pdf.js's viewport at scale 1: /Rotate and the crop box applied, y from the top).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import { DocumentError } from '../errors.js';
import type { DocumentMetadata } from './model.js';
import { standardWidths, widthOf, type WidthTable } from './std-widths.js';
import {
  checkDeadline,
  checkItemCount,
  metaValue,
  shownItem,
  withinDeadline,
  type EngineLimits,
  type PageSink,
  type TextEngine,
} from './engine.js';

/** The raw Emscripten module: the PDFium C API (`_FPDF...`), its allocator and heap views. */
export interface PdfiumModule {
  HEAPU8: Uint8Array;
  HEAPU16: Uint16Array;
  HEAPF32: Float32Array;
  HEAPF64: Float64Array;
  _malloc(size: number): number;
  _free(ptr: number): void;
  [fn: `_FPDF${string}`]: (...args: number[]) => number;
}

const require = createRequire(import.meta.url);

let modulePromise: Promise<PdfiumModule> | undefined;
let compiled: Promise<WebAssembly.Module> | undefined;

/**
 * PDFium's heap is WebAssembly memory, outside the JS heap limits of a worker: a FlateDecode bomb
 * would grow it to gigabytes inside one synchronous call. Growth past this cap is refused (PDFium's
 * allocation fails; the document fails with ResourceLimit). The parse workers set it to their memory
 * limit (CAS_PARSE_MAX_MEMORY_MB).
 */
let heapCap = Infinity;
let heapCapHit = false;
export function capPdfiumHeap(bytes: number): void {
  heapCap = bytes;
}

/**
 * The .wasm, read and compiled once per thread. Its functions are compiled on first call (V8's
 * default) and validated then too (`--wasm-lazy-validation`): the module is the package's own,
 * not input, and validating all of PDFium up front is 8-10 ms of every cold start (issue 36).
 */
function compiledWasm(): Promise<WebAssembly.Module> {
  if (!compiled) {
    v8.setFlagsFromString('--wasm-lazy-validation');
    compiled = WebAssembly.compile(readFileSync(require.resolve('@embedpdf/pdfium/pdfium.wasm')));
  }
  return compiled;
}

/**
 * For a process that reads one small document and ends (`cas parse FILE`): PDFium's functions stay
 * in V8's first WebAssembly tier (Liftoff), with no optimising recompile of hot functions, which a
 * few pages never repay (its compile threads compete for the cores, its code adds 12-19 MB of RSS).
 * Only before the module is compiled; long-lived processes (a batch, `cas serve`) keep the default.
 */
export function pdfiumForOneDocument(): void {
  if (!compiled) v8.setFlagsFromString('--liftoff-only');
}

async function loadModule(): Promise<PdfiumModule> {
  const [{ init }, wasm] = await Promise.all([import('@embedpdf/pdfium'), compiledWasm()]);
  // Instantiate the module compiled above (Emscripten's own loader would read and compile the file again).
  let fail: (err: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  const wrapped = await Promise.race([
    init({
      // PDFium's own messages (an abort's "Aborted(...)") become typed errors, not lines on stderr.
      print: () => undefined,
      printErr: () => undefined,
      instantiateWasm: (imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => {
        const env = imports.env as Record<string, unknown>;
        const grow = env.emscripten_resize_heap as (size: number) => number;
        env.emscripten_resize_heap = (size: number): number => {
          if (size >>> 0 > heapCap) {
            heapCapHit = true;
            return 0;
          }
          return grow(size);
        };
        WebAssembly.instantiate(wasm, imports).then((instance) => done(instance, wasm), fail);
        return {};
      },
    } as never),
    failed,
  ]);
  wrapped.PDFiumExt_Init();
  // The package's `_FPDF...` functions are wrappers that assert on every call (an assertions build of
  // the Emscripten glue); the module's raw exports are the same functions without that cost. The heap
  // views stay on the module (it replaces them when memory grows), read through the prototype.
  const raw = wrapped.pdfium as unknown as PdfiumModule & { wasmExports?: Record<string, unknown> };
  const fast = Object.create(raw) as Record<string, unknown>;
  for (const [name, fn] of Object.entries(raw.wasmExports ?? {})) if (typeof fn === 'function') fast[`_${name}`] = fn;
  // Hundreds of properties added one by one make an object a dictionary to V8 (every `m._FPDF...`
  // a hash lookup); a prototype is kept in fast mode, so the module handed out is an empty object
  // on top of them.
  return Object.create(fast) as PdfiumModule;
}

/** Use another build of the same PDFium API in this thread (another package's module, for comparisons). */
export function usePdfiumModule(m: PdfiumModule): void {
  modulePromise = Promise.resolve(m);
}

/** This thread's PDFium instance (loaded on first use). */
export function pdfiumModule(): Promise<PdfiumModule> {
  modulePromise ??= loadModule().catch((err: unknown) => {
    modulePromise = undefined;
    throw err;
  });
  return modulePromise;
}

// FPDF_GetLastError
const ERR_FORMAT = 3;
const ERR_PASSWORD = 4;
const ERR_SECURITY = 5;
// FPDFPageObj_GetType
const OBJ_TEXT = 1;
const OBJ_IMAGE = 3;
const OBJ_FORM = 5;

const TRACKING_SPACE_FACTOR = 0.102;
const NOT_A_SPACE_FACTOR = 0.03;
const NEGATIVE_SPACE_FACTOR = -0.2;
const SPACE_IN_FLOW_MIN_FACTOR = 0.102;
const SPACE_IN_FLOW_MAX_FACTOR = 0.6;
const VERTICAL_SHIFT_RATIO = 0.25;

const SPECIAL = /^(\s)|(\p{Mn})|(\p{Cf})$/u;
const NORMALIZE =
  /([\u00a0\u00b5\u037e\u0eb3\u2000-\u200a\u202f\u2126\ufb00-\ufb04\ufb06\ufb20-\ufb36\ufb38-\ufb3c\ufb3e\ufb40-\ufb41\ufb43-\ufb44\ufb46-\ufba1\ufba4-\ufba9\ufbae-\ufbb1\ufbd3-\ufbdc\ufbde-\ufbe7\ufbea-\ufbf8\ufbfc-\ufbfd\ufc00-\ufc5d\ufc64-\ufcf1\ufcf5-\ufd3d\ufd88\ufdf4\ufdfa-\ufdfb\ufe71\ufe77\ufe79\ufe7b\ufe7d]+)|(\ufb05+)/gu;

/** pdf.js's unicode normalisation of a run (`normalizeUnicode`: NFKC for ligatures and compatibility spaces). */
function normalize(s: string): string {
  return s.replace(NORMALIZE, (_, p1: string | undefined) => (p1 ? p1.normalize('NFKC') : '\u017ft'));
}

const UNMAPPED_ONLY = /^[\ufffd\s]+$/;

let textCodes = new Uint16Array(1024);

/** A scratch buffer of UTF-16 codes of at least `n` (one per thread, grown as needed). */
function textBuffer(n: number): Uint16Array {
  if (textCodes.length < n) textCodes = new Uint16Array(n);
  return textCodes;
}

/** The string of `codes[from, to)`. */
function codesToString(codes: Uint16Array, from: number, to: number): string {
  if (to - from <= 2048) return String.fromCharCode.apply(null, codes.subarray(from, to) as unknown as number[]);
  let out = '';
  for (let i = from; i < to; i += 2048)
    out += String.fromCharCode.apply(null, codes.subarray(i, Math.min(to, i + 2048)) as unknown as number[]);
  return out;
}

/** The length of (a, b): text matrices are small numbers, so no `Math.hypot` (its overflow guard made it a tenth of the run builder's time). */
const norm = (a: number, b: number): number => Math.sqrt(a * a + b * b);

type Category = 0 | 1 | 2 | 3; // plain, whitespace, zero-width diacritic, invisible format mark
/** Each BMP code point's category once known, plus one (0: not looked up yet); the rest in a map. */
const bmpCategories = new Uint8Array(0x10000);
const categories = new Map<number, Category>();
function category(cp: number): Category {
  if (cp < 0x10000) {
    const known = bmpCategories[cp];
    if (known) return (known - 1) as Category;
  } else {
    const known = categories.get(cp);
    if (known !== undefined) return known;
  }
  const m = SPECIAL.exec(String.fromCodePoint(cp));
  const c: Category = !m ? 0 : m[1] ? 1 : m[2] ? 2 : 3;
  if (cp < 0x10000) bmpCategories[cp] = c + 1;
  else categories.set(cp, c);
  return c;
}

/** Scratch memory in the wasm heap for out-parameters (doubles, floats, strings). */
class Scratch {
  readonly ptr: number;
  constructor(
    private readonly m: PdfiumModule,
    readonly size = 4096,
  ) {
    this.ptr = m._malloc(size);
  }
  f64(i: number): number {
    return this.m.HEAPF64[(this.ptr >> 3) + i];
  }
  f32(i: number): number {
    return this.m.HEAPF32[(this.ptr >> 2) + i];
  }
  free(): void {
    this.m._free(this.ptr);
  }
}

function utf16(m: PdfiumModule, ptr: number, bytes: number): string {
  const n = Math.max(0, (bytes >> 1) - 1);
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(m.HEAPU16[(ptr >> 1) + i]);
  return s;
}

function cString(m: PdfiumModule, s: string): number {
  const bytes = new TextEncoder().encode(s);
  const p = m._malloc(bytes.length + 1);
  m.HEAPU8.set(bytes, p);
  m.HEAPU8[p + bytes.length] = 0;
  return p;
}

/** pdf.js's viewport transform at scale 1 for a view box and a rotation (PageViewport). */
function viewport(view: [number, number, number, number], rotate: number): { t: number[]; width: number; height: number } {
  const cx = (view[2] + view[0]) / 2;
  const cy = (view[3] + view[1]) / 2;
  let a: number, b: number, c: number, d: number;
  switch (((rotate % 360) + 360) % 360) {
    case 180:
      [a, b, c, d] = [-1, 0, 0, 1];
      break;
    case 90:
      [a, b, c, d] = [0, 1, 1, 0];
      break;
    case 270:
      [a, b, c, d] = [0, -1, -1, 0];
      break;
    default:
      [a, b, c, d] = [1, 0, 0, -1];
  }
  const w = Math.abs(view[2] - view[0]);
  const h = Math.abs(view[3] - view[1]);
  const [width, height] = a === 0 ? [h, w] : [w, h];
  const e = width / 2 - a * cx - c * cy;
  const f = height / 2 - b * cx - d * cy;
  return { t: [a, b, c, d, e, f], width, height };
}

interface Run {
  /** Where its text starts in the page's UTF-16 code buffer (`text`); it ends at the buffer's end. */
  begin: number;
  /** A character past ASCII is in its text (only then can it need normalising or be all unmapped glyphs). */
  wide: boolean;
  /** Text rendering matrix of the first glyph (page space): [a, b, c, d, e, f]. */
  trm: number[];
  width: number;
  totalWidth: number;
  height: number;
  scale: number;
  fontSize: number;
}

/** The text runs of one text page, by pdf.js's rules (see the module comment). */
function pageRuns(
  m: PdfiumModule,
  page: number,
  tp: number,
  view: [number, number, number, number],
  s: Scratch,
  fonts: Map<number, FontInfo>,
): { str: string; trm: number[]; width: number }[] {
  const out: { str: string; trm: number[]; width: number }[] = [];
  // Which top-level object each text object is in (itself, or the form XObject holding it), and
  // where images and forms sit in the content order: pdf.js ends a run at every XObject.
  const owner = new Map<number, number>();
  const xobjectAt: number[] = [];
  const nObj = m._FPDFPage_CountObjects(page);
  const walk = (obj: number, top: number, depth: number): void => {
    const type = m._FPDFPageObj_GetType(obj);
    if (type === OBJ_TEXT) owner.set(obj, top);
    else if (type === OBJ_FORM && depth < 32) {
      const n = m._FPDFFormObj_CountObjects(obj);
      for (let j = 0; j < n; j++) walk(m._FPDFFormObj_GetObject(obj, j), top, depth + 1);
    }
  };
  for (let i = 0; i < nObj; i++) {
    const obj = m._FPDFPage_GetObject(page, i);
    const type = m._FPDFPageObj_GetType(obj);
    if (type === OBJ_IMAGE || type === OBJ_FORM) xobjectAt.push(i);
    walk(obj, i, 0);
  }
  const xobjectBetween = (from: number, to: number): boolean => {
    if (from === to) return false;
    const [lo, hi] = from < to ? [from, to] : [to, from];
    for (const x of xobjectAt) if (x >= lo && x <= hi) return true;
    return false;
  };

  let run: Run | undefined;
  // pdf.js reads the thresholds of the last run when the next glyph arrives between runs.
  let lastRun: Run = { begin: 0, wide: false, trm: [1, 0, 0, 1, 0, 0], width: 0, totalWidth: 0, height: 0, scale: 1, fontSize: 0 };
  // Where the last glyph (with a width) ended, and its text rendering matrix's a-d.
  let hasPrev = false;
  let prevEndX = 0;
  let prevEndY = 0;
  let pta = 0;
  let ptb = 0;
  let ptc = 0;
  let ptd = 0;
  // The last two characters seen (code points; 32 is a space), as pdf.js keeps them.
  const last = [32, 32];
  let lastPos = 0;
  let font = -1;
  let fontName = '';
  let widths: FontInfo['widths'] = null;
  let objSize = 0;
  let ma = 1;
  let mb = 0;
  let mc = 0;
  let md = 1;
  let scaleX = 1;
  let fontSize = NaN;
  let top = -1;
  let textObj = 0;
  let glyphObj = 0;
  let glyphComplex = false;
  let glyphX = NaN;
  let glyphY = NaN;

  const saveLastChar = (cp: number): boolean => {
    const next = (lastPos + 1) % 2;
    const ret = last[lastPos] !== 32 && last[next] === 32;
    last[lastPos] = cp;
    lastPos = next;
    return ret;
  };
  const shouldAddWhitespace = (): boolean => last[lastPos] !== 32 && last[(lastPos + 1) % 2] === 32;
  const resetLastChars = (): void => {
    last[0] = last[1] = 32;
    lastPos = 0;
  };

  const c = readChars(m, tp, s);
  // The page's text as UTF-16 codes, run after run: each glyph adds at most two spaces and a surrogate pair.
  const text = textBuffer(c.n * 4 + 16);
  let len = 0;
  const flush = (): void => {
    if (!run) return;
    run.totalWidth += run.width * run.scale;
    // A run of nothing but unmapped glyphs (U+FFFD) is a stray piece of an Indic overlay that PDFium
    // orders apart from its line; pdf.js has it inside the overlay's run, which buildLines drops.
    if (len > run.begin) {
      const str = codesToString(text, run.begin, len);
      if (!(run.wide && UNMAPPED_ONLY.test(str)))
        out.push({ str: run.wide ? normalize(str) : str, trm: run.trm, width: Math.abs(run.totalWidth) });
    }
    len = run.begin;
    run = undefined;
  };

  const n = c.n;
  for (let i = 0; i < n; i++) {
    if (c.gen[i]) continue;
    const cp = c.uni[i];
    if (!cp || cp > 0x10ffff) continue;
    const cat = category(cp);
    if (cat === 3) continue;

    const obj = c.obj[i];
    if (obj !== textObj) {
      textObj = obj;
      // Font size and matrix (text matrix, CTM and form matrix) are the text object's, the same for each of its characters.
      objSize = m._FPDFText_GetFontSize(tp, i);
      m._FPDFText_GetMatrix(tp, i, s.ptr + 16);
      ma = s.f32(4);
      mb = s.f32(5);
      mc = s.f32(6);
      md = s.f32(7);
      scaleX = norm(ma, mb) || 1;
      const o = owner.get(obj) ?? top;
      if (o !== top) {
        if (top >= 0 && (xobjectAt.includes(o) || xobjectAt.includes(top) || xobjectBetween(top, o))) flush();
        top = o;
      }
      const f = m._FPDFTextObj_GetFont(obj);
      if (f !== font) {
        font = f;
        const info = fontInfo(m, f, s, fonts);
        widths = info.widths;
        if (info.name !== fontName) {
          flush();
          fontName = info.name;
        }
      }
    }
    const size = objSize;
    if (size !== fontSize) {
      flush();
      fontSize = size;
    }
    if (cat === 1) {
      saveLastChar(32);
      continue;
    }

    // The glyph's origin, its text matrix (CTM included) and its advance from the loose box.
    const ox = c.x[i];
    const oy = c.y[i];
    // Advance along the baseline, in page space.
    let adv: number;
    const std = widths === null ? undefined : typeof widths === 'number' ? widths : widthOf(widths, cp);
    if (std !== undefined) adv = (std / 1000) * size * scaleX;
    else {
      m._FPDFText_GetLooseCharBox(tp, i, s.ptr + 48);
      const bl = s.f32(12);
      const bt = s.f32(13);
      const br = s.f32(14);
      const bb = s.f32(15);
      // PDFium's loose box measures the glyph with the font program's width, which may differ
      // from the PDF's /Widths (what pdf.js and PDFium's own positioning use). Better measures, in
      // turn: the character PDFium generates after the glyph (a space or line end), which it places
      // at the glyph's /Widths advance (in unscaled text units); the next glyph of the same text
      // object when it is a space, when the box is an ink box, or when it starts within 0.025 em of
      // the box's end (what is left is char spacing or kerning, which pdf.js counts as a gap); else the box.
      const next = nextOrigin(c, i, obj);
      const horizontal = Math.abs(mb) < 1e-6 * scaleX;
      const em = size * scaleX;
      const step = next && !next.generated ? norm(next.x - ox, next.y - oy) : undefined;
      // A sheared matrix (italic made by Tm): the box leans by the shear over its height.
      if (horizontal) adv = Math.abs(br - bl) - (md ? Math.abs(mc / md) * Math.abs(bt - bb) : 0);
      else if (Math.abs(ma) < 1e-6 * scaleX) adv = Math.abs(bt - bb);
      else adv = step || Math.max(Math.abs(br - bl), Math.abs(bt - bb)) * 0.7;
      // (A space PDFium generates for a positioned gap sits on the next glyph instead: not a measure.)
      const generated = horizontal && next?.generated && next.y === oy && next.x > ox && !onNextGlyph(c, i + 2, next);
      // A box that does not start at the origin is PDFium's fallback to the glyph's ink box, no advance.
      const inkBox = horizontal && Math.abs(Math.min(bl, br) - ox) > 0.01;
      if (generated) adv = (next.x - ox) * scaleX;
      else if (step && (next?.space || inkBox || Math.abs(step - adv) < 0.025 * em)) adv = step;
      else if (horizontal && next && !next.generated && step !== undefined && step < 1e-3) adv = ligatureEnd(m, tp, c, i, obj, s) - ox;
    }
    // The glyph's text rendering matrix (its e, f are the origin); an array only when a run starts with it.
    const ta = size * ma;
    const tb = size * mb;
    const tc = size * mc;
    const td = size * md;
    // A ligature (one glyph, several characters: 'ﬁ' as 'f', 'i') comes as characters at one origin;
    // pdf.js has the glyph once, with its width: the characters after the first add nothing.
    const ligature = run !== undefined && obj === glyphObj && Math.abs(ox - glyphX) < 1e-3 && Math.abs(oy - glyphY) < 1e-3;
    glyphX = ox;
    glyphY = oy;
    // Glyph width in text space (pdf.js's scaledDim).
    const scaledDim = cat === 2 || ligature ? 0 : adv / scaleX;

    if (ox + scaledDim < view[0] || ox > view[2] || oy < view[1] || oy > view[3]) continue;

    // Indic text (a Devanagari overlay): PDFium measures its conjunct glyphs by the font program,
    // so their advances overlap and would cut the run where pdf.js keeps one: such a run goes on
    // from Indic glyph to Indic glyph, and within a text object (buildLines drops it whole).
    const complex = (cp >= 0x900 && cp <= 0xdff) || cp === 0xfffd;
    const indicRun = run !== undefined && ((complex && glyphComplex) || (obj === glyphObj && (complex || glyphComplex)));
    glyphObj = obj;
    glyphComplex = complex;
    if (cat !== 2 && !ligature && !indicRun && hasPrev && !(prevEndX === ox && prevEndY === oy)) {
      let posX = ox;
      let posY = oy;
      let lastX = prevEndX;
      let lastY = prevEndY;
      if (ta && tb === 0 && tc === 0) {
        if (ta < 0) {
          posX = -ox;
          posY = -oy;
          lastX = -prevEndX;
          lastY = -prevEndY;
        }
      } else if (tb && ta === 0 && td === 0) {
        if (tb > 0) {
          posX = oy;
          posY = ox;
          lastX = prevEndY;
          lastY = prevEndX;
        } else {
          posX = -oy;
          posY = -ox;
          lastX = -prevEndY;
          lastY = -prevEndX;
        }
      } else {
        // Neither axis-aligned: both points in their own glyph's text space.
        const k = norm(ta, tb);
        posX = (ta * ox + tb * oy) / k;
        posY = (tc * ox + td * oy) / k;
        const pk = norm(pta, ptb);
        lastX = (pta * prevEndX + ptb * prevEndY) / pk;
        lastY = (ptc * prevEndX + ptd * prevEndY) / pk;
      }
      // Thresholds and scale of the run in progress (pdf.js keeps the last run's values between runs).
      const r = run ?? lastRun;
      const advanceX = (posX - lastX) / r.scale;
      const advanceY = posY - lastY;
      const orientation = Math.sign(r.width || r.totalWidth);
      const fs = r.fontSize;
      let handled = false;
      if (advanceX < orientation * fs * NEGATIVE_SPACE_FACTOR) {
        // Back to the left: a new run (on another line when it also moved down).
        resetLastChars();
        flush();
        handled = true;
      } else if (Math.abs(advanceY) > r.height) {
        resetLastChars();
        flush();
        handled = true;
      }
      if (!handled) {
        if (advanceX <= orientation * fs * NOT_A_SPACE_FACTOR) resetLastChars();
        if (advanceX <= orientation * fs * TRACKING_SPACE_FACTOR) {
          if (shouldAddWhitespace()) {
            resetLastChars();
            flush();
          } else if (run) run.width += advanceX;
        } else if (orientation * fs * SPACE_IN_FLOW_MIN_FACTOR <= advanceX && advanceX <= orientation * fs * SPACE_IN_FLOW_MAX_FACTOR) {
          if (run) {
            resetLastChars();
            text[len++] = 32;
            run.width += advanceX;
          } else resetLastChars();
        } else {
          flush();
          resetLastChars();
        }
        if (Math.abs(advanceY) > r.height * VERTICAL_SHIFT_RATIO) flush();
      }
    }

    if (!run) {
      run = {
        begin: len,
        wide: false,
        trm: [ta, tb, tc, td, ox, oy],
        width: 0,
        totalWidth: 0,
        height: norm(tc, td),
        scale: scaleX,
        fontSize: size,
      };
      lastRun = run;
    } else if (scaleX !== run.scale) {
      run.totalWidth += run.width * run.scale;
      run.width = 0;
      run.scale = scaleX;
    }
    run.width += scaledDim;
    if (scaledDim) {
      hasPrev = true;
      prevEndX = ox + (adv * ma) / scaleX;
      prevEndY = oy + (adv * mb) / scaleX;
      pta = ta;
      ptb = tb;
      ptc = tc;
      ptd = td;
    }
    if (saveLastChar(cp)) text[len++] = 32;
    if (cp < 0x10000) text[len++] = cp;
    else {
      text[len++] = 0xd800 + ((cp - 0x10000) >> 10);
      text[len++] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
    }
    if (cp > 0x7f) run.wide = true;
  }
  flush();
  return out;
}

interface FontInfo {
  name: string;
  /** AFM widths when the font is a standard one PDFium substitutes (not embedded). */
  widths: WidthTable | number | null;
}

function fontInfo(m: PdfiumModule, f: number, s: Scratch, fonts: Map<number, FontInfo>): FontInfo {
  let info = fonts.get(f);
  if (!info) {
    const len = m._FPDFFont_GetBaseFontName(f, s.ptr, 256);
    const name = len > 0 ? new TextDecoder('latin1').decode(m.HEAPU8.subarray(s.ptr, s.ptr + Math.min(len, 256) - 1)) : '';
    info = { name, widths: m._FPDFFont_GetIsEmbedded(f) === 1 ? null : standardWidths(name) };
    fonts.set(f, info);
  }
  return info;
}

/** A text page's characters, read once: generated or not, unicode, text object, origin. */
interface Chars {
  n: number;
  gen: Uint8Array;
  uni: Uint32Array;
  obj: Float64Array;
  x: Float64Array;
  y: Float64Array;
}

function readChars(m: PdfiumModule, tp: number, s: Scratch): Chars {
  const n = Math.max(0, m._FPDFText_CountChars(tp));
  const c: Chars = {
    n,
    gen: new Uint8Array(n),
    uni: new Uint32Array(n),
    obj: new Float64Array(n),
    x: new Float64Array(n),
    y: new Float64Array(n),
  };
  // The module holds hundreds of exports (a dictionary to V8): the five read per character are
  // taken once, as is the heap view (these calls allocate nothing, so it cannot be replaced meanwhile).
  const isGenerated = m._FPDFText_IsGenerated;
  const unicode = m._FPDFText_GetUnicode;
  const isHyphen = m._FPDFText_IsHyphen;
  const textObject = m._FPDFText_GetTextObject;
  const origin = m._FPDFText_GetCharOrigin;
  const heap = m.HEAPF64;
  const at = s.ptr >> 3;
  for (let i = 0; i < n; i++) {
    const gen = isGenerated(tp, i) === 1 ? 1 : 0;
    c.gen[i] = gen;
    let cp = unicode(tp, i);
    // PDFium marks a hyphen that ends a line (0x2); pdf.js keeps the '-'.
    if (cp === 2 && isHyphen(tp, i) === 1) cp = 0x2d;
    c.uni[i] = cp;
    c.obj[i] = gen ? 0 : textObject(tp, i);
    origin(tp, i, s.ptr, s.ptr + 8);
    c.x[i] = heap[at];
    c.y[i] = heap[at + 1];
  }
  return c;
}

/** The origin of the character after `i` when it is generated by PDFium or a glyph of the same text object. */
function nextOrigin(c: Chars, i: number, obj: number): { x: number; y: number; generated: boolean; space: boolean } | undefined {
  const j = i + 1;
  if (j >= c.n) return undefined;
  const generated = c.gen[j] === 1;
  if (!generated && c.obj[j] !== obj) return undefined;
  return { x: c.x[j], y: c.y[j], generated, space: !generated && c.uni[j] === 0x20 };
}

/** The right end of a ligature's boxes: the characters from `i` on that share its origin in its text object. */
function ligatureEnd(m: PdfiumModule, tp: number, c: Chars, i: number, obj: number, s: Scratch): number {
  let right = -Infinity;
  for (let j = i; j < c.n && j < i + 8; j++) {
    if (j > i && (c.gen[j] || c.obj[j] !== obj || Math.abs(c.x[j] - c.x[i]) > 1e-3 || Math.abs(c.y[j] - c.y[i]) > 1e-3)) break;
    m._FPDFText_GetLooseCharBox(tp, j, s.ptr + 144);
    right = Math.max(right, s.f32(36), s.f32(38));
  }
  return right;
}

/** The character at `j` is a glyph that starts where `at` (a generated character) is. */
function onNextGlyph(c: Chars, j: number, at: { x: number; y: number }): boolean {
  return j < c.n && !c.gen[j] && Math.abs(c.x[j] - at.x) < 1e-3 && Math.abs(c.y[j] - at.y) < 1e-3;
}

function documentError(code: number, hadPassword: boolean): DocumentError {
  if (code === ERR_PASSWORD) {
    return hadPassword
      ? new DocumentError('IncorrectPassword', 'the password is incorrect for this PDF')
      : new DocumentError(
          'PasswordRequired',
          'the PDF is password-protected; give its password (--password-file, CAS_PDF_PASSWORD or the prompt)',
        );
  }
  if (code === ERR_SECURITY) return new DocumentError('DamagedPdf', 'the PDF is damaged and cannot be read (unsupported security handler)');
  if (code === ERR_FORMAT)
    return new DocumentError('DamagedPdf', 'the PDF is damaged and cannot be read (FormatError: not a readable PDF structure)');
  return new DocumentError('DamagedPdf', `the PDF is damaged and cannot be read (PDFium error ${code})`);
}

const META = ['Producer', 'Creator', 'Title', 'Author', 'Subject'] as const;

function metadata(m: PdfiumModule, doc: number, s: Scratch): DocumentMetadata {
  const out: Record<string, string | null> = {};
  for (const key of META) {
    const tag = cString(m, key);
    try {
      const len = m._FPDF_GetMetaText(doc, tag, s.ptr, s.size);
      out[key] = len > 2 && len <= s.size ? metaValue(utf16(m, s.ptr, len)) : null;
      if (len > s.size) {
        const big = m._malloc(len);
        try {
          m._FPDF_GetMetaText(doc, tag, big, len);
          out[key] = metaValue(utf16(m, big, len));
        } finally {
          m._free(big);
        }
      }
    } finally {
      m._free(tag);
    }
  }
  return { producer: out.Producer, creator: out.Creator, title: out.Title, author: out.Author, subject: out.Subject };
}

/**
 * Open `data` and run `fn` on the document handle; the document and its memory are always released.
 * With `timed` (a thread nobody outside can stop), loading and `fn` run under a watchdog that ends
 * them at its deadline (Timeout; the instance is dropped, as after a trap).
 */
async function withDocument<T>(
  data: Uint8Array,
  password: string | undefined,
  fn: (m: PdfiumModule, doc: number, s: Scratch) => T,
  timed?: { deadline: number; limits: EngineLimits },
): Promise<T> {
  const m = await pdfiumModule();
  const buf = m._malloc(Math.max(1, data.length));
  m.HEAPU8.set(data, buf);
  const pw = password !== undefined ? cString(m, password) : 0;
  const s = new Scratch(m);
  let doc = 0;
  let trapped = false;
  heapCapHit = false;
  const run = (): T => {
    doc = m._FPDF_LoadMemDocument(buf, data.length, pw);
    if (!doc) throw documentError(m._FPDF_GetLastError(), password !== undefined && password !== '');
    return fn(m, doc, s);
  };
  try {
    return timed ? withinDeadline(timed.deadline, timed.limits.timeoutMs, run) : run();
  } catch (err) {
    // PDFium aborted inside WebAssembly (a trap such as `unreachable` on a damaged file), or the
    // watchdog stopped it mid-call: this instance's state can no longer be trusted, so it is dropped
    // (the next document gets a new one) and nothing more is called on it; the caller gets a typed
    // error, never a crash.
    const stopped = timed !== undefined && err instanceof DocumentError && err.code === 'Timeout';
    if (err instanceof WebAssembly.RuntimeError || stopped) {
      trapped = true;
      if (modulePromise && (await modulePromise.catch(() => undefined)) === m) modulePromise = undefined;
      if (stopped) throw err;
      if (heapCapHit)
        throw new DocumentError(
          'ResourceLimit',
          `reading the PDF needed more memory than the limit of ${Math.round(heapCap / 2 ** 20)} MB`,
        );
      throw new DocumentError('DamagedPdf', 'the PDF is damaged and cannot be read (the PDF engine stopped on it)');
    }
    throw err;
  } finally {
    if (!trapped) {
      if (doc) m._FPDF_CloseDocument(doc);
      s.free();
      if (pw) m._free(pw);
      m._free(buf);
    }
  }
}

function readPages(m: PdfiumModule, doc: number, s: Scratch, limits: EngineLimits, deadline: number, sink: PageSink): void {
  const count = m._FPDF_GetPageCount(doc);
  if (count > limits.maxPages) throw new DocumentError('TooLarge', `the PDF has ${count} pages; the limit is ${limits.maxPages}`);
  const fonts = new Map<number, FontInfo>();
  let itemCount = 0;
  for (let i = 0; i < count; i++) {
    checkDeadline(deadline, limits);
    const page = m._FPDF_LoadPage(doc, i);
    if (!page) throw new DocumentError('DamagedPdf', `the PDF is damaged and cannot be read (page ${i + 1} cannot be loaded)`);
    let tp = 0;
    try {
      // The view box: the crop box within the media box (what pdf.js calls page.view).
      m._FPDF_GetPageBoundingBox(page, s.ptr);
      const [l, t, r, b] = [s.f32(0), s.f32(1), s.f32(2), s.f32(3)];
      const view: [number, number, number, number] = [Math.min(l, r), Math.min(t, b), Math.max(l, r), Math.max(t, b)];
      const vp = viewport(view, m._FPDFPage_GetRotation(page) * 90);
      tp = m._FPDFText_LoadPage(page);
      const runs = tp ? pageRuns(m, page, tp, view, s, fonts) : [];
      itemCount += runs.length;
      checkItemCount(i + 1, runs.length, itemCount, limits);
      const items = runs.map((it) => shownItem(vp.t, it.trm, it.str, it.width, norm(it.trm[2], it.trm[3])));
      sink(i + 1, vp.width, vp.height, items);
    } finally {
      if (tp) m._FPDFText_ClosePage(tp);
      m._FPDF_ClosePage(page);
    }
  }
}

export const pdfiumEngine: TextEngine = {
  name: 'pdfium',
  async extract(data, password, limits, deadline, sink) {
    return withDocument(
      data,
      password,
      (m, doc, s) => {
        readPages(m, doc, s, limits, deadline, sink);
        return metadata(m, doc, s);
      },
      limits.selfTimed ? { deadline, limits } : undefined,
    );
  },
  async raw(data, password) {
    return withDocument(data, password, (m, doc) => {
      let n = 0;
      const count = m._FPDF_GetPageCount(doc);
      for (let i = 0; i < count; i++) {
        const page = m._FPDF_LoadPage(doc, i);
        const tp = m._FPDFText_LoadPage(page);
        n += m._FPDFText_CountChars(tp);
        m._FPDFText_ClosePage(tp);
        m._FPDF_ClosePage(page);
      }
      return n;
    });
  },
};
