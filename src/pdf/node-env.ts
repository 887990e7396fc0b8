/**
 * What pdf.js's legacy build does to Node while it loads, and how `cas` keeps it to what text
 * extraction needs. Two things, both handled by `loadPdfjsModules`:
 *
 * 1. The legacy build bundles core-js and, on Node 20's V8, replaces three built-ins process-wide
 *    with JavaScript polyfills: Array.prototype.push (a non-writable-length edge case), JSON.parse
 *    (source-text access) and JSON.stringify. pdf.js needs none of those edge cases (its modern
 *    build runs on the native ones), and the polyfills slow down every push and every JSON
 *    document this process writes, so the native functions are put back once the modules are in.
 *    The polyfills that only add what Node 20 lacks (Promise.withResolvers, Map#getOrInsert,
 *    Uint8Array base64 ...) stay.
 *
 * 2. On Node, pdf.mjs requires the optional native `@napi-rs/canvas` at load time just to take
 *    `DOMMatrix`, `ImageData` and `Path2D` from it for rendering. `cas` never renders, and loading
 *    the native addon costs a noticeable part of a cold `cas parse` (about 80 ms here), so while
 *    the modules load, that one require answers a stub and the three globals get stand-ins: a
 *    real 2-D `DOMMatrix` (pdf.mjs builds one at load time) and two classes that refuse to be
 *    used. Globals that already exist are left alone, and the hook is removed as soon as the
 *    modules are in, so a later, explicit `require('@napi-rs/canvas')` gets the real one.
 */
import Module from 'node:module';

type Init = number[] | Float32Array | Float64Array | undefined;

/** A 2-D affine matrix with the DOMMatrix names (a-f, m11-m42) and the common operations. */
export class Matrix2D {
  a = 1;
  b = 0;
  c = 0;
  d = 1;
  e = 0;
  f = 0;
  constructor(init?: Init | string) {
    if (Array.isArray(init) || ArrayBuffer.isView(init)) {
      const m = Array.from(init as ArrayLike<number>);
      if (m.length === 6) [this.a, this.b, this.c, this.d, this.e, this.f] = m;
      else if (m.length === 16) [this.a, this.b, this.c, this.d, this.e, this.f] = [m[0], m[1], m[4], m[5], m[12], m[13]];
      else throw new TypeError('DOMMatrix takes 6 or 16 numbers');
    }
  }
  get m11(): number {
    return this.a;
  }
  get m12(): number {
    return this.b;
  }
  get m21(): number {
    return this.c;
  }
  get m22(): number {
    return this.d;
  }
  get m41(): number {
    return this.e;
  }
  get m42(): number {
    return this.f;
  }
  get is2D(): boolean {
    return true;
  }
  get isIdentity(): boolean {
    return this.a === 1 && this.b === 0 && this.c === 0 && this.d === 1 && this.e === 0 && this.f === 0;
  }
  multiplySelf(o: Matrix2D): this {
    const { a, b, c, d, e, f } = this;
    this.a = a * o.a + c * o.b;
    this.b = b * o.a + d * o.b;
    this.c = a * o.c + c * o.d;
    this.d = b * o.c + d * o.d;
    this.e = a * o.e + c * o.f + e;
    this.f = b * o.e + d * o.f + f;
    return this;
  }
  preMultiplySelf(o: Matrix2D): this {
    const m = new Matrix2D([o.a, o.b, o.c, o.d, o.e, o.f]).multiplySelf(this);
    [this.a, this.b, this.c, this.d, this.e, this.f] = [m.a, m.b, m.c, m.d, m.e, m.f];
    return this;
  }
  multiply(o: Matrix2D): Matrix2D {
    return new Matrix2D([this.a, this.b, this.c, this.d, this.e, this.f]).multiplySelf(o);
  }
  translateSelf(x = 0, y = 0): this {
    return this.multiplySelf(new Matrix2D([1, 0, 0, 1, x, y]));
  }
  translate(x = 0, y = 0): Matrix2D {
    return this.multiply(new Matrix2D([1, 0, 0, 1, x, y]));
  }
  scaleSelf(sx = 1, sy = sx): this {
    return this.multiplySelf(new Matrix2D([sx, 0, 0, sy, 0, 0]));
  }
  scale(sx = 1, sy = sx): Matrix2D {
    return this.multiply(new Matrix2D([sx, 0, 0, sy, 0, 0]));
  }
  invertSelf(): this {
    const det = this.a * this.d - this.b * this.c;
    if (!det) {
      [this.a, this.b, this.c, this.d, this.e, this.f] = [NaN, NaN, NaN, NaN, NaN, NaN];
      return this;
    }
    const { a, b, c, d, e, f } = this;
    [this.a, this.b, this.c, this.d, this.e, this.f] = [d / det, -b / det, -c / det, a / det, (c * f - d * e) / det, (b * e - a * f) / det];
    return this;
  }
  inverse(): Matrix2D {
    return new Matrix2D([this.a, this.b, this.c, this.d, this.e, this.f]).invertSelf();
  }
  transformPoint(p: { x?: number; y?: number } = {}): { x: number; y: number; z: number; w: number } {
    const x = p.x ?? 0;
    const y = p.y ?? 0;
    return { x: this.a * x + this.c * y + this.e, y: this.b * x + this.d * y + this.f, z: 0, w: 1 };
  }
  toFloat64Array(): Float64Array {
    return new Float64Array([this.a, this.b, 0, 0, this.c, this.d, 0, 0, 0, 0, 1, 0, this.e, this.f, 0, 1]);
  }
}

function refuse(what: string): new (...args: unknown[]) => object {
  return class {
    constructor() {
      throw new Error(`${what} is not available: cas reads the text of PDFs and does not render them`);
    }
  };
}

const CANVAS = '@napi-rs/canvas';

/** Run `load` (the pdf.js imports) with the stand-ins in place, then put the natives back; see the module comment. */
export async function loadPdfjsModules<T>(load: () => Promise<T>): Promise<T> {
  const natives = { push: Array.prototype.push, parse: JSON.parse, stringify: JSON.stringify };
  const g = globalThis as Record<string, unknown>;
  if (!g.DOMMatrix) g.DOMMatrix = Matrix2D;
  if (!g.ImageData) g.ImageData = refuse('ImageData');
  if (!g.Path2D) g.Path2D = refuse('Path2D');
  const M = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = M._load;
  M._load = function (request: string, ...rest: unknown[]) {
    if (request === CANVAS) return { DOMMatrix: g.DOMMatrix, ImageData: g.ImageData, Path2D: g.Path2D };
    return original.call(this, request, ...rest);
  };
  try {
    return await load();
  } finally {
    M._load = original;
    restore(Array.prototype, 'push', natives.push);
    restore(JSON, 'parse', natives.parse);
    restore(JSON, 'stringify', natives.stringify);
  }
}

function restore(owner: object, name: string, native: unknown): void {
  if ((owner as Record<string, unknown>)[name] !== native)
    Object.defineProperty(owner, name, { value: native, writable: true, configurable: true, enumerable: false });
}
