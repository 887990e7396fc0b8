/**
 * Investors remove a statement's password by saving it again (macOS Preview: `Quartz PDFContext`;
 * Chrome: `Skia/PDF`; a broker's own notes say `Skia/PDF m65; modified using iText`). A copy that
 * keeps its text layer parses like the original (issue 24); only a PDF with no text gets an error,
 * and that error says so.
 *
 * Each committed fixture is decrypted and rewritten by qpdf (new object streams, new xref), once
 * as is and once with the producer and creator of each re-saving tool written into its Info
 * dictionary, then parsed by the built `cas`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cas, expectedJson, fixture, manifest, tmpDir } from '../helpers/cas.js';
import { needs } from '../helpers/tools.js';

const qpdf = needs('qpdf');

const TOOLS: [string, string, string][] = [
  ['qpdf rewrite', '', ''],
  ['macOS Preview', 'macOS Version 15.1 (Build 24B83) Quartz PDFContext', 'Preview'],
  [
    'Chrome save as PDF',
    'Skia/PDF m131',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  ],
  ["a broker's own iText pass", 'Skia/PDF m65; modified using iText® 5.5.13.1 ©2000-2019 iText Group NV (AGPL-version)', ''],
  ['Microsoft Print to PDF', 'Microsoft: Print To PDF', 'Microsoft Word'],
];

/** Decrypt and rewrite with qpdf; optionally put another producer/creator into the Info dictionary. */
function resave(src: string, password: string | null, producer: string, creator: string, dir: string, name: string): string {
  const plain = path.join(dir, `${name}-plain.pdf`);
  execFileSync('qpdf', [...(password ? [`--password=${password}`, '--decrypt'] : []), '--object-streams=generate', src, plain]);
  if (!producer) return plain;
  const json = JSON.parse(execFileSync('qpdf', ['--json-output', '--json-stream-data=none', plain]).toString()) as {
    qpdf: [unknown, Record<string, { value: unknown }>];
  };
  const info = (json.qpdf[1].trailer.value as Record<string, string>)['/Info'];
  const patch = {
    qpdf: [
      { jsonversion: 2, pushedinheritedpageresources: false, calledgetallpages: false, maxobjectid: Object.keys(json.qpdf[1]).length + 1 },
      { [`obj:${info}`]: { value: { '/Producer': `u:${producer}`, '/Creator': `u:${creator}` } } },
    ],
  };
  const patchFile = path.join(dir, `${name}-patch.json`);
  writeFileSync(patchFile, JSON.stringify(patch));
  const out = path.join(dir, `${name}.pdf`);
  // Exit 3 is qpdf's "succeeded with warnings".
  const r = spawnSync('qpdf', [plain, `--update-from-json=${patchFile}`, out]);
  if (r.status !== 0 && r.status !== 3) throw new Error(`qpdf: ${r.stderr.toString()}`);
  return out;
}

const entries = manifest().filter((m) => m.kind !== 'bad' && !/encrypted\//.test(m.path));

describe.skipIf(qpdf.skip)(`re-saved PDFs parse like the original${qpdf.note}`, () => {
  const dir = tmpDir('cas-resave-');
  for (const [tool, producer, creator] of TOOLS) {
    it.each(entries.map((m) => [m.path, m] as const))(`${tool}: %s`, async (_p, m) => {
      const file = resave(
        fixture(m.path),
        m.password,
        producer,
        creator,
        dir,
        `${path.basename(m.path, '.pdf')}-${tool.replace(/\W+/g, '-')}`,
      );
      if (producer) {
        const info = execFileSync('qpdf', ['--json-output', '--json-stream-data=none', file]).toString();
        expect(info).toContain(producer.slice(0, 20));
      }
      const r = await cas(['parse', '--json', file]);
      expect(r.stderr).not.toMatch(/re-?print/i);
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(expectedJson(m.expected));
    });
  }

  it('a PDF with no text layer is refused with an error that says so (exit 3), whatever its producer', async () => {
    const file = resave(
      fixture('bad/image-only.pdf'),
      null,
      'macOS Version 15.1 (Build 24B83) Quartz PDFContext',
      'Preview',
      dir,
      'image-only-quartz',
    );
    for (const f of [fixture('bad/image-only.pdf'), file]) {
      const r = await cas(['parse', f]);
      expect(r.exitCode).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/no text layer/i);
    }
  });
});
