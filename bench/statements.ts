/**
 * The bench's inputs: registrar (CAMS/KFintech detailed) statements of a given page count, made
 * deterministically by the fixture generator (test/fixtures/registrar-*.ts) and cached under
 * bench/out/statements, keyed by the generator's source, so a second run reuses them.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildRegistrarStatement, type BuildOptions } from '../test/fixtures/registrar-data.js';
import { renderRegistrarDetailed, STYLE_A } from '../test/fixtures/registrar-render.js';

export interface Statement {
  file: string;
  pages: number;
  bytes: number;
}

interface Spec extends BuildOptions {
  /** Keep only the first N folios (the 1-page statement). */
  folios?: number;
}

/** The page count a PDF declares (the generator writes one uncompressed page tree). */
export function pageCount(pdf: Buffer): number {
  const counts = [...pdf.toString('latin1').matchAll(/\/Count (\d+)/g)].map((m) => Number(m[1]));
  if (!counts.length) throw new Error('bench: no page count in a generated statement');
  return Math.max(...counts);
}

async function render(spec: Spec): Promise<Buffer> {
  const st = buildRegistrarStatement(spec);
  if (spec.folios) st.folios = st.folios.slice(0, spec.folios);
  return renderRegistrarDetailed(st, STYLE_A);
}

let generatorKey: string | undefined;
/** A hash of the generator's source: a change to it makes new statements. */
function sourceKey(root: string): string {
  if (!generatorKey) {
    const dir = path.join(root, 'test', 'fixtures');
    const files = [
      'registrar-data.ts',
      'registrar-render.ts',
      'registrar-layout.ts',
      ...readdirSync(path.join(dir, 'lib')).map((f) => `lib/${f}`),
    ];
    const h = createHash('sha256');
    for (const f of files.sort()) if (existsSync(path.join(dir, f))) h.update(f).update(readFileSync(path.join(dir, f)));
    generatorKey = h.digest('hex').slice(0, 10);
  }
  return generatorKey;
}

/** The folder of this generator version's statements. */
export function statementsDir(root: string, outDir: string): string {
  return path.join(outDir, 'statements', sourceKey(root));
}

async function cached(root: string, outDir: string, rel: string, make: () => Promise<Buffer>): Promise<Statement> {
  const file = path.join(statementsDir(root, outDir), rel);
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.tmp`, await make());
    renameSync(`${file}.tmp`, file);
  }
  const pdf = readFileSync(file);
  return { file, pages: pageCount(pdf), bytes: pdf.length };
}

/**
 * A statement of `target` pages, at most (the parser's default page limit is 500). 1 and 3 pages
 * are fixed shapes; larger ones repeat the folio set (about 3.4 pages a copy of 24-month SIPs), then
 * lengthen the SIP series to come as close to the target as the layout allows.
 */
export async function statementOf(root: string, outDir: string, target: number): Promise<Statement> {
  return cached(root, outDir, `registrar-${target}p.pdf`, async () => {
    if (target <= 1) return render({ sipMonths: 1, folios: 3 });
    if (target <= 3) return render({ sipMonths: 6 });
    let repeat = Math.max(1, Math.floor(target / 3.4));
    const tried = new Set<number>();
    const fits = new Map<number, Buffer>();
    // The largest repeat whose statement still fits in `target` pages.
    for (;;) {
      const pdf = await render({ sipMonths: 24, repeat });
      const pages = pageCount(pdf);
      tried.add(repeat);
      if (pages <= target) fits.set(repeat, pdf);
      const next =
        pages <= target
          ? repeat + Math.max(1, Math.floor((target - pages) / 3.4))
          : repeat - Math.max(1, Math.ceil((pages - target) / 3.4));
      if (pages === target || next < 1 || tried.has(next)) break;
      repeat = next;
    }
    repeat = Math.max(...fits.keys(), 1);
    let best = fits.get(repeat);
    // Then longer SIP series on that repeat, while it still fits.
    for (let months = 25; best && pageCount(best) < target && months < 60; months++) {
      const pdf = await render({ sipMonths: months, repeat });
      if (pageCount(pdf) > target) break;
      best = pdf;
    }
    return best ?? render({ sipMonths: 24, repeat: 1 });
  });
}

/** `count` different 3-page statements (seeds 1..count), for the batch. */
export async function batchOf(root: string, outDir: string, count: number): Promise<Statement[]> {
  const out: Statement[] = [];
  for (let i = 1; i <= count; i++)
    out.push(await cached(root, outDir, `batch/s${String(i).padStart(2, '0')}.pdf`, () => render({ seed: i, sipMonths: 6 })));
  return out;
}
