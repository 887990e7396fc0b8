/**
 * The statement-format registry (src/formats) is the single source of the formats and brokers:
 * this file enumerates FORMATS and BROKERS and checks each place that lists them against it.
 *
 * The first describe blocks check what this part of the code owns (detection by the built `cas`,
 * the schema enums, the real-dialect names, the layout families, the fixtures). The last block,
 * "contracts of the CLI and the server", checks places other parts implement (`cas parse --help`,
 * `cas completion bash`, `cas serve` and its OpenAPI document) against the same registry.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROKER_IDS, BROKERS, FORMATS, resolveBroker, resolveFormat, type BrokerId } from '../../src/formats/index.js';
import { BrokerType, CasType, DematType, StatementSource } from '../../src/schema/index.js';
import { DISPLAY, realText, VALUES } from '../../src/schema/names.js';
import { loadFamilies } from '../layouts/harness.js';
import { renderPdf } from '../fixtures/lib/pdf.js';
import { cas, expectedJson, FIXTURES, manifest, ROOT, tmpDir } from '../helpers/cas.js';
import { post, serve, type Served } from '../helpers/server.js';

const SRC_FORMATS = path.join(ROOT, 'src', 'formats');
const sorted = <T>(xs: Iterable<T>): T[] => [...xs].sort();
/** `name` as a whole word (not part of a longer id or alias). */
const word = (name: string): RegExp => new RegExp(`(?<![\\w-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`);
const password = (rel: string): string | null => manifest().find((m) => m.path === rel)?.password ?? null;

describe('registry', () => {
  it('ids, aliases and broker names are unique and each resolves to its own descriptor', () => {
    // No two formats share a name (`-` and `_` are one).
    const names = FORMATS.flatMap((f) => [...new Set([f.id, ...f.aliases].map((n) => n.toLowerCase().replace(/-/g, '_')))]);
    expect(new Set(names).size).toBe(names.length);
    for (const f of FORMATS)
      for (const n of [f.id, ...f.aliases, f.id.toUpperCase(), f.id.replace(/_/g, '-')]) expect(resolveFormat(n), n).toBe(f.id);
    const brokerNames = BROKERS.flatMap((b) => [
      ...new Set([b.id, b.realValue, ...b.aliases].map((n) => n.toLowerCase().replace(/-/g, '_'))),
    ]);
    expect(new Set(brokerNames).size).toBe(brokerNames.length);
    for (const b of BROKERS)
      for (const n of [b.id, b.realValue, ...b.aliases, b.realValue.toUpperCase()]) expect(resolveBroker(n), n).toBe(b.id);
    expect(resolveFormat('no-such-type')).toBeUndefined();
    expect(resolveBroker('no-such-broker')).toBeUndefined();
  });

  it('is pure data: it imports nothing outside src/formats (no parser, pdf.js or zod), and a broker is one file listed once', () => {
    const files = readdirSync(SRC_FORMATS, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    for (const f of files) {
      const src = readFileSync(path.join(SRC_FORMATS, f), 'utf8');
      for (const m of src.matchAll(/^\s*(?:import|export)\b[^;]*?from\s+'([^']+)'/gm))
        expect(m[1], `${f} imports ${m[1]}`).toMatch(/^\.\.?\/(?!\.\.)/);
      expect(src, f).not.toMatch(/\bimport\(/);
    }
    const brokerFiles = readdirSync(path.join(SRC_FORMATS, 'brokers')).filter((f) => f.endsWith('.ts'));
    expect(brokerFiles).toHaveLength(BROKERS.length);
    const ids = brokerFiles.map((f) => /\bid: '([a-z0-9_]+)'/.exec(readFileSync(path.join(SRC_FORMATS, 'brokers', f), 'utf8'))?.[1]);
    expect(sorted(ids)).toEqual(sorted(BROKER_IDS));
  });
});

describe('detection by the built cas reads the registry', () => {
  const canonical = FORMATS.flatMap((f) =>
    readdirSync(path.join(FIXTURES, f.fixtureDir))
      .filter((n) => n.endsWith('.pdf'))
      .map((n) => [`${f.fixtureDir}/${n}`, f] as const),
  );

  it('every format has canonical fixtures in fixtures/<fixtureDir>/', () => {
    for (const f of FORMATS) expect(canonical.filter(([, g]) => g === f).length, f.id).toBeGreaterThan(0);
  });

  it.each(canonical)('cas smart --detect-only %s gives its format (and broker)', async (rel, f) => {
    const pw = password(rel);
    const r = await cas(['smart', '--detect-only', path.join(FIXTURES, rel)], { env: { CAS_PDF_PASSWORD: pw ?? undefined } });
    expect(r.exitCode, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout) as { type: string; issuer: string; broker: string | null };
    expect(d.type).toBe(f.id);
    expect(f.issuers).toContain(d.issuer);
    if (f.id === 'contract_note') {
      // A broker's note is fixtures/contract_note/<id>.pdf; any other note is read by the generic vocabulary.
      const stem = path.basename(rel, '.pdf');
      expect(d.broker).toBe(BROKER_IDS.includes(stem as BrokerId) ? stem : 'unknown');
    } else expect(d.broker).toBeNull();
  });

  it.each(FORMATS.map((f) => [f.id, f] as const))(
    "cas parse --type %s runs its parser: the endpoint sample's fixture parses to the sample",
    async (id, f) => {
      const m = manifest().find((e) => e.expected === `expected/${f.endpoint.sample}.json` && e.path.startsWith(`${f.fixtureDir}/`));
      expect(m, f.endpoint.sample).toBeDefined();
      const r = await cas(['parse', '--type', id, path.join(FIXTURES, m!.path)], { env: { CAS_PDF_PASSWORD: m!.password ?? undefined } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(expectedJson(m!.expected));
    },
  );

  it('every broker has a canonical note whose expected JSON is its sample', () => {
    for (const b of BROKERS) {
      const m = manifest().find((e) => e.path === `contract_note/${b.id}.pdf`);
      expect(m?.expected, b.id).toBe(`expected/${b.sample}.json`);
      expect((expectedJson(`expected/${b.sample}.json`) as { broker_info: { broker_type: string } }).broker_info.broker_type).toBe(b.id);
    }
  });
});

describe('schema enums and names come from the registry', () => {
  it('BrokerType = the broker ids + unknown', () => {
    expect(BrokerType.options).toEqual([...BROKER_IDS, 'unknown']);
  });
  it("CasType = the formats' cas types, DematType = the depositories' demat types", () => {
    expect(sorted(CasType.options)).toEqual(sorted(FORMATS.flatMap((f) => (f.casType ? [f.casType] : []))));
    expect(sorted(DematType.options)).toEqual(sorted(FORMATS.flatMap((f) => (f.dematType ? [f.dematType] : []))));
  });
  it('StatementSource = the issuers of the statement formats', () => {
    expect(sorted(StatementSource.options)).toEqual(sorted(new Set(FORMATS.filter((f) => f.casType).flatMap((f) => f.issuers))));
  });
  it('the real dialect names each broker from its registry file', () => {
    for (const b of BROKERS) {
      expect((VALUES.broker as Record<string, string>)[b.id]).toBe(b.realValue);
      expect(DISPLAY[b.id]).toBe(b.display);
      expect(realText(`a ${b.id} note`)).toBe(`a ${b.display} note`);
    }
    expect(Object.keys(VALUES.broker)).toEqual([...BROKER_IDS, 'unknown']);
  });
});

describe('layout families and fixtures listed by the registry exist', () => {
  it('every registry family is in test/layouts/families and every family there is in the registry', async () => {
    const loaded = (await loadFamilies()).map((f) => f.id);
    const listed = [...FORMATS.flatMap((f) => f.families), ...BROKERS.map((b) => b.family)];
    expect(sorted(new Set(listed))).toEqual(sorted(loaded));
    for (const b of BROKERS) expect(FORMATS.find((f) => f.id === 'contract_note')!.families).toContain(b.family);
  });
  it('every endpoint.sample and broker sample is in fixtures/expected', () => {
    for (const s of [...FORMATS.map((f) => f.endpoint.sample), ...BROKERS.map((b) => b.sample)])
      expect(existsSync(path.join(FIXTURES, 'expected', `${s}.json`)), s).toBe(true);
  });
});

describe("a document with a statement's words but no statement is refused (issue 18 item 14)", () => {
  const dir = tmpDir('cas-registry-');
  let seed = 7;
  const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const garbage = (): string[] =>
    Array.from({ length: 30 }, () => Array.from({ length: 60 }, () => String.fromCharCode(33 + Math.floor(rnd() * 90))).join(''));
  const write = async (name: string, lines: string[]): Promise<string> => {
    const pdf = await renderPdf({ title: 'x', producer: 'pdfkit', creator: 'test', created: new Date(Date.UTC(2026, 0, 5)) }, (c) => {
      c.setFont(9);
      lines.forEach((l, i) => c.left(l, 40, 40 + i * 12));
    });
    const file = path.join(dir, `${name}.pdf`);
    writeFileSync(file, pdf);
    return file;
  };
  const cases: [string, string[], string[], RegExp][] = [
    ['random printable text', garbage(), [], /not a supported statement/],
    [
      'random text read as a registrar statement (--type)',
      garbage(),
      ['--type', 'registrar'],
      /no statement period .* registrar statement/,
    ],
    [
      'a registrar heading and a folio line, no period',
      ['Consolidated Account Statement', 'CAMSCASWS', 'Folio No: 12345 / 67', ...garbage()],
      [],
      /no statement period .* registrar statement/,
    ],
    [
      'a registrar heading, a period and a folio line, no schemes',
      ['Consolidated Account Statement', 'CAMSCASWS', '01-Jan-2026 To 31-Jan-2026', 'Folio No: 12345 / 67', ...garbage()],
      [],
      /no schemes under the folios found/,
    ],
    [
      'a registrar summary heading, no As On date',
      ['Consolidated Account Summary', 'CAMSCASWS', 'Folio No: 12345 / 67', ...garbage()],
      [],
      /no statement period \("As On .* registrar summary/,
    ],
    [
      'an NSDL heading, id and account line, no period',
      [
        'NSDL Consolidated Account Statement',
        'NSDL ID: 12345678',
        'JOHN DOE',
        'NSDL Demat Account',
        'DP ID: IN300000 Client ID: 12345678',
        ...garbage(),
      ],
      [],
      /no statement period .* depository_b statement/,
    ],
    [
      'a CDSL heading and account line, no period',
      ['Central Depository Services (India) Limited', 'DP Name : ABC BO ID : 1234567812345678', ...garbage()],
      [],
      /no statement period .* depository_a statement/,
    ],
    ['a contract-note heading, no trade table', ['Contract Note cum Tax Invoice', 'Zerodha', ...garbage()], [], /no trade table found/],
  ];
  it.each(cases)('%s: exit 3, one clear line, nothing on stdout', async (name, lines, args, msg) => {
    const file = await write(name.replace(/\W+/g, '-'), lines);
    const r = await cas(['parse', ...args, file]);
    expect(r.exitCode, r.stdout).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(msg);
    expect(r.stderr).not.toMatch(/1970-01-01|\n\s+at /);
  });
  it('garbage bytes after a PDF header: exit 3', async () => {
    const file = path.join(dir, 'header-only.pdf');
    writeFileSync(file, `%PDF-1.4\n${garbage().join('\n')}`);
    const r = await cas(['parse', file]);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
  });
});

/**
 * Contracts of the CLI and the server (issue 17): implemented by the CLI and server work of this
 * session in their own worktrees; these pass once the coordinator has merged them.
 */
describe('contracts of the CLI and the server (implemented elsewhere; pass after the merge)', () => {
  const formatNames = FORMATS.flatMap((f) => [f.id, ...f.aliases]);
  const brokerNames = BROKERS.flatMap((b) => [b.id, b.realValue, ...b.aliases]);

  it('cas parse --help lists every format id and alias as a --type choice and every broker name as a --broker choice', async () => {
    const r = await cas(['parse', '--help']);
    expect(r.exitCode).toBe(0);
    // An option's block: from its flag to the next option's line.
    const lines = r.stdout.split('\n');
    const block = (flag: string): string => {
      const at = lines.findIndex((l) => new RegExp(`^\\s+(-\\w, )?${flag}\\b`).test(l));
      expect(at, flag).toBeGreaterThanOrEqual(0);
      const end = lines.findIndex((l, k) => k > at && /^\s+-/.test(l));
      return lines.slice(at, end < 0 ? undefined : end).join('\n');
    };
    const type = block('--type');
    for (const n of formatNames) expect(type, n).toMatch(word(n));
    const broker = block('--broker');
    for (const n of brokerNames) expect(broker, n).toMatch(word(n));
  });

  it('cas completion bash completes every format id and alias and every broker id', async () => {
    const r = await cas(['completion', 'bash']);
    expect(r.exitCode).toBe(0);
    for (const n of [...formatNames, ...BROKER_IDS]) expect(r.stdout, n).toMatch(word(n));
  });

  describe('cas serve', () => {
    let srv: Served;
    beforeAll(async () => {
      srv = await serve();
    }, 30_000);
    afterAll(async () => {
      await srv?.stop();
    });

    it("GET /openapi.json lists every format's endpoint with its operationId", async () => {
      const doc = (await (await fetch(`${srv.url}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { operationId?: string }>>;
      };
      for (const f of FORMATS) {
        const op = doc.paths[f.endpoint.path]?.post;
        expect(op, f.endpoint.path).toBeDefined();
        expect(op?.operationId).toBe(f.endpoint.operationId);
      }
    });

    it.each(FORMATS.map((f) => [f.endpoint.path, f] as const))('POST %s with the sandbox key answers its sample', async (p, f) => {
      const r = await post(srv.url, p, { key: 'cas_sandbox_public_key', json: { pdf_url: 'https://example.com/x.pdf', password: 'x' } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toEqual(expectedJson(`expected/${f.endpoint.sample}.json`));
    });
  });
});
