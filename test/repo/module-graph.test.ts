/**
 * The module graph of the built `cas`: which files a command loads. A small recorder (written to a
 * temp dir and passed with `node --import`) logs every ES module the loader resolves (a
 * `module.register` resolve hook) and, at exit, every CommonJS module in `require.cache`; the
 * tests assert that local commands never load the service (SQLite, Fastify, mail), that `cas parse`
 * loads only the PDF engine it uses, and that help loads no PDF engine, parsers or handlers' dependencies.
 * `bin/cas.js` runs the bundle (dist/bundle/, a few chunks), which hides which source module is
 * which: the rules about dist/ folders run the unbundled tree it is built from (dist/cli/main.js),
 * and the bundle is checked on its own for what it must never load (packages are the same files
 * either way).
 */
import { describe, expect, it } from 'vitest';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { signWebhook } from '../../src/shared/webhook-signature.js';
import { BIN, cleanEnv, fixture, ROOT, tmpDir } from '../helpers/cas.js';

const dir = tmpDir('cas-modgraph-');
writeFileSync(
  path.join(dir, 'hooks.mjs'),
  `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (log) appendFileSync(log, r.url + '\\n');
  return r;
}
`,
);
writeFileSync(
  path.join(dir, 'register.mjs'),
  `import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
const log = process.env.CAS_MODULE_LOG;
register(new URL('./hooks.mjs', import.meta.url), { data: { log } });
const require = createRequire(import.meta.url);
process.on('exit', () => { if (log) appendFileSync(log, Object.keys(require.cache).map((f) => f + '\\n').join('')); });
`,
);

// The unbundled tree, started as bin/cas.js starts the bundle.
const UNBUNDLED = path.join(dir, 'unbundled.mjs');
writeFileSync(
  UNBUNDLED,
  `import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/cli/main.js')).href)}).then((m) => m.main(process.argv));\n`,
);

/** The plain registrar fixture under another name (a second file for a batch). */
function copyOfPlain(): string {
  const f = path.join(dir, 'plain-copy.pdf');
  copyFileSync(fixture('registrar/cams-detailed-plain.pdf'), f);
  return f;
}

let runs = 0;
/** Run the built cas (unbundled; `bundled`: bin/cas.js) with the recorder; the files it loaded (absolute paths, node: builtins left out). */
async function loaded(
  args: string[],
  env: Record<string, string> = {},
  input?: string,
  bundled = false,
): Promise<{ files: string[]; exitCode: number; stdout: string }> {
  const log = path.join(dir, `run-${++runs}.log`);
  writeFileSync(log, '');
  const r = await execa('node', ['--import', path.join(dir, 'register.mjs'), bundled ? BIN : UNBUNDLED, ...args], {
    reject: false,
    extendEnv: false,
    env: { ...cleanEnv(), CAS_MODULE_LOG: log, ...env },
    ...(input === undefined ? { stdin: 'ignore' } : { input }),
  });
  const files = [
    ...new Set(
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('file://') || l.startsWith('/'))
        .map((l) => (l.startsWith('file://') ? fileURLToPath(l) : l)),
    ),
  ];
  return { files, exitCode: r.exitCode ?? 1, stdout: String(r.stdout) };
}

const pkg =
  (name: string) =>
  (f: string): boolean =>
    f.split(path.sep).join('/').includes(`/node_modules/${name}/`);
const under =
  (rel: string) =>
  (f: string): boolean =>
    f.startsWith(path.join(ROOT, rel) + path.sep);

/** Never loaded by a local command: the service and its mail stack. */
const SERVICE: [string, (f: string) => boolean][] = [
  ['better-sqlite3', pkg('better-sqlite3')],
  ['fastify', pkg('fastify')],
  ['@fastify/*', pkg('@fastify')],
  ['smtp-server', pkg('smtp-server')],
  ['imapflow', pkg('imapflow')],
  ['mailparser', pkg('mailparser')],
  ['mailauth', pkg('mailauth')],
  ['nodemailer', pkg('nodemailer')],
  ['dist/server/', under('dist/server')],
];
/** Never loaded by help: what the handlers need. */
const HANDLERS: [string, (f: string) => boolean][] = [
  ['pdfjs-dist', pkg('pdfjs-dist')],
  ['@embedpdf/pdfium', pkg('@embedpdf/pdfium')],
  ['dist/parsers/', under('dist/parsers')],
  ['dist/pdf/', under('dist/pdf')],
  ['dist/cli/commands/', under('dist/cli/commands')],
  ['zod', pkg('zod')],
  ['@inquirer/prompts', pkg('@inquirer')],
  ['ora', pkg('ora')],
  ['cli-table3', pkg('cli-table3')],
];

function offending(files: string[], rules: [string, (f: string) => boolean][]): string[] {
  return rules.filter(([, hit]) => files.some(hit)).map(([name]) => name);
}

describe('module graph of the built cas', () => {
  it('cas parse loads its PDF engine (PDFium by default, pdf.js when asked) and the parsers, and nothing of the service', async () => {
    for (const [engine, uses, not] of [
      ['', '@embedpdf/pdfium', 'pdfjs-dist'],
      ['pdfjs', 'pdfjs-dist', '@embedpdf/pdfium'],
    ] as const) {
      const r = await loaded(['parse', fixture('registrar/cams-detailed-plain.pdf')], engine ? { CAS_PDF_ENGINE: engine } : {});
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout).meta.cas_type).toBe('REGISTRAR_A_REGISTRAR_B');
      // The recorder sees what a parse needs (so the absences below mean something) ...
      expect(r.files.some(pkg(uses)), uses).toBe(true);
      expect(r.files.some(under('dist/parsers'))).toBe(true);
      // ... only the one engine, and none of the service.
      expect(r.files.some(pkg(not)), not).toBe(false);
      expect(offending(r.files, SERVICE)).toEqual([]);
      // The HTML report's renderer loads only with --format html.
      expect(r.files).not.toContain(path.join(ROOT, 'dist/cli/render-html.js'));
    }
  });

  it('bin/cas.js runs the bundle: cas parse and help load dist/bundle/ only, and no package of the service', async () => {
    const parse = await loaded(['parse', fixture('registrar/cams-detailed-plain.pdf')], {}, undefined, true);
    expect(parse.exitCode).toBe(0);
    expect(JSON.parse(parse.stdout).meta.cas_type).toBe('REGISTRAR_A_REGISTRAR_B');
    const help = await loaded(['--help'], {}, undefined, true);
    expect(help.exitCode).toBe(0);
    const ours = (files: string[]): string[] => files.filter(under('dist')).map((f) => path.relative(ROOT, f).split(path.sep)[1]);
    for (const r of [parse, help]) {
      // The bundled CLI and (for the parse) its bundled worker, never the tree it was built from.
      expect(new Set(ours(r.files))).toEqual(new Set(['bundle']));
      expect(offending(r.files, SERVICE.slice(0, -1))).toEqual([]);
    }
    // One small statement is parsed in the CLI's own thread (src/core/inline.ts): no worker; two with --jobs 2 go to workers.
    expect(parse.files).not.toContain(path.join(ROOT, 'dist/bundle/worker.js'));
    const two = await loaded(['parse', fixture('registrar/cams-detailed-plain.pdf'), copyOfPlain(), '--jobs', '2'], {}, undefined, true);
    expect(two.exitCode).toBe(0);
    expect(two.files).toContain(path.join(ROOT, 'dist/bundle/worker.js'));
    expect(parse.files.some(pkg('@embedpdf/pdfium'))).toBe(true);
    expect(
      offending(
        help.files,
        HANDLERS.filter(([name]) => !name.startsWith('dist/')),
      ),
    ).toEqual([]);
  });

  it('cas --help and cas parse --help load no handler dependencies and nothing of the service', async () => {
    for (const args of [['--help'], ['parse', '--help'], ['serve', '--help']]) {
      const r = await loaded(args);
      expect(r.exitCode).toBe(0);
      expect(r.files.some(under('dist/cli/definitions'))).toBe(true);
      expect({ args, loaded: offending(r.files, [...SERVICE, ...HANDLERS]) }).toEqual({ args, loaded: [] });
    }
  });

  it('cas credits (service unreachable) talks through src/client only', async () => {
    const r = await loaded(['credits', '--api-key', 'k', '--base-url', 'http://127.0.0.1:9'], { CAS_RETRIES: '0' });
    expect(r.exitCode).toBe(6);
    expect(r.files.some(under('dist/client'))).toBe(true);
    expect(offending(r.files, SERVICE)).toEqual([]);
  });

  it('cas inbound verify-signature checks an HMAC without the mail stack', async () => {
    const body = '{"event":"x"}';
    const secretFile = path.join(dir, 'whsec.txt');
    writeFileSync(secretFile, 'whsec_test');
    const r = await loaded(
      ['inbound', 'verify-signature', '--secret-file', secretFile, '--header', signWebhook('whsec_test', body)],
      {},
      body,
    );
    expect(r.exitCode).toBe(0);
    expect(r.files.some(under('dist/shared'))).toBe(true);
    expect(offending(r.files, SERVICE)).toEqual([]);
  });

  it('cas openapi is the one command besides serve that loads server code (the recorder sees it)', async () => {
    const r = await loaded(['openapi']);
    expect(r.exitCode).toBe(0);
    expect((JSON.parse(r.stdout) as { openapi: string }).openapi).toMatch(/^3\./);
    expect(r.files.some(under('dist/server'))).toBe(true);
  });
});

/** Every import of a source file (static, type-only and dynamic: a cycle through any of them is one). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]);
  return found.map((spec) => path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts'));
}

/** The import graph of src/. */
function sourceGraph(): Map<string, string[]> {
  const src = path.join(ROOT, 'src');
  const files = readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
  return new Map(files.map((f) => [f, importsOf(f).filter((t) => t !== f)]));
}

/** Strongly connected groups of more than one file (Tarjan), as paths relative to the root. */
function cycles(graph: Map<string, string[]>): string[][] {
  const files = [...graph.keys()];
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        group.push(path.relative(ROOT, w));
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return out;
}

describe('import graph of src/', () => {
  it('the CLI, the client and src/shared are in no import cycle (type-only and dynamic imports count)', () => {
    const graph = sourceGraph();
    const at = (rel: string): string => path.join(ROOT, rel);
    // The checker sees the three kinds of edge, and finds a cycle made of them ...
    expect(graph.get(at('src/cli/commands/completion.ts'))).toContain(at('src/cli/definitions/index.ts'));
    expect(graph.get(at('src/cli/handlers.ts'))).toContain(at('src/cli/commands/parse.ts'));
    expect(graph.get(at('src/cli/commands/parse.ts'))).toContain(at('src/cli/definitions/parse.ts'));
    const probe = new Map(graph);
    probe.set(at('src/cli/definitions/parse.ts'), [...graph.get(at('src/cli/definitions/parse.ts'))!, at('src/cli/handlers.ts')]);
    expect(cycles(probe).some((c) => c.includes('src/cli/handlers.ts') && c.includes('src/cli/definitions/parse.ts'))).toBe(true);
    // ... and there is none through the CLI, the client or src/shared (main <-> completion is gone).
    expect(cycles(graph).filter((c) => c.some((f) => /^src\/(cli|client|shared)\//.test(f)))).toEqual([]);
    expect(graph.get(at('src/cli/commands/completion.ts'))).not.toContain(at('src/cli/main.ts'));
  });
});
