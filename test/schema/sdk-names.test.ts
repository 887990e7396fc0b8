/**
 * The names table (src/schema/names.ts) and its one consumer layer (src/schema/dialect.ts):
 * invertible, complete for the values the schemas can hold, off the parse path's heavy modules,
 * and used by `cas parse --names real`.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as S from '../../src/schema/index.js';
import {
  DISPLAY,
  neutralValue,
  pathDialect,
  PATHS,
  realPath,
  realText,
  realValue,
  VALUES,
  type ValueDomain,
} from '../../src/schema/names.js';
import { requestFromReal, toReal } from '../../src/schema/dialect.js';
import { cas, fixture } from '../helpers/cas.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'fixtures/manifest.json'), 'utf8')) as { path: string; password: string | null }[];
const passwordOf = (rel: string): string => manifest.find((m) => m.path === rel)!.password!;

describe('the names table', () => {
  it('is one-to-one in every domain and reads back case-insensitively', () => {
    for (const [domain, table] of Object.entries(VALUES) as [ValueDomain, Record<string, string>][]) {
      const reals = Object.values(table);
      expect(new Set(reals).size, `${domain}: real names are distinct`).toBe(reals.length);
      for (const [n, r] of Object.entries(table)) {
        expect(realValue(domain, n)).toBe(r);
        expect(neutralValue(domain, r)).toBe(n);
        expect(neutralValue(domain, r.toUpperCase())).toBe(n);
        expect(neutralValue(domain, n)).toBe(n);
      }
      expect(neutralValue(domain, 'no-such-name')).toBeUndefined();
    }
  });

  it('covers every neutral value the schemas can hold', () => {
    const enumOf = (schema: { options: readonly string[] }): string[] => [...schema.options];
    expect(Object.keys(VALUES.cas_type).sort()).toEqual(enumOf(S.CasType).sort());
    expect(Object.keys(VALUES.demat_type).sort()).toEqual(enumOf(S.DematType).sort());
    expect(Object.keys(VALUES.source).sort()).toEqual(enumOf(S.StatementSource).sort());
    expect(Object.keys(VALUES.broker).sort()).toEqual(enumOf(S.BrokerType).sort());
    expect(Object.keys(VALUES.kra).sort()).toEqual(enumOf(S.Kra).sort());
    expect(Object.keys(VALUES.kyc_mode).sort()).toEqual(enumOf(S.KycMode).sort());
  });

  it('maps real-name paths to SPEC.md paths and back, with path parameters and query strings', () => {
    for (const [neutral, real] of PATHS) {
      expect(pathDialect(real)).toEqual({ names: 'real', neutral });
      expect(pathDialect(neutral).names).toBe('spec');
    }
    expect(pathDialect('/v4/cdsl/fetch/fs_1/verify')).toEqual({ names: 'real', neutral: '/v4/depository_a/fetch/fs_1/verify' });
    expect(pathDialect('/v1/kyc/digilocker/result/lk_1')).toEqual({ names: 'real', neutral: '/v1/kyc/locker/result/lk_1' });
    expect(pathDialect('/v4/smart/parse').names).toBe('shared');
    expect(pathDialect('/v4/cdslx/parse').names).toBe('shared');
    expect(realPath('/v4/depository_b/parse')).toBe('/v4/nsdl/parse');
  });

  it('turns neutral answers into real ones without touching the input, and real requests into neutral ones', () => {
    const note = {
      broker_info: { broker_type: 'broker_c', name: 'X', regulator_registration: null },
      charges_summary: { regulator_turnover_fees: 1.5 },
      client_info: { pan: null },
    };
    const frozen = JSON.stringify(note);
    const out = toReal('contract_note', note) as any;
    expect(JSON.stringify(note)).toBe(frozen);
    expect(out).toEqual({
      status: 'success',
      msg: 'success',
      data: {
        broker_info: { broker_type: realValue('broker', 'broker_c'), name: 'X' },
        charges_summary: { sebi_turnover_fees: 1.5 },
        client_info: {},
      },
    });
    const files = toReal('email_files', {
      status: 'success',
      files: [{ cas_type: 'registrar_b', filename: 'registrar_b_20260101_ab12.pdf' }],
      count: 1,
      cursor: null,
    }) as any;
    expect(files.files[0]).toEqual({
      cas_type: realValue('source', 'registrar_b'),
      filename: `${realValue('source', 'registrar_b')}_20260101_ab12.pdf`,
    });
    expect(files.cursor).toBeNull();
    expect(requestFromReal('inbox_search', { cas_types: ['CDSL', 'kfintech', 'registrar_a'] })).toEqual({
      cas_types: ['depository_a', 'registrar_b', 'registrar_a'],
    });
    expect(
      requestFromReal('locker_session', {
        consent: true,
        consent_purpose: 'p'.repeat(20),
        documents: ['aadhaar', 'email'],
        user_flow: 'signin',
      }),
    ).toEqual({ consent: true, purpose: 'p'.repeat(20), documents: ['national_id'] });
    expect(requestFromReal('inbound_create', { allowed_sources: ['nsdl'], callback_url: null })).toEqual({
      allowed_sources: ['depository_b'],
    });
  });

  it('names institutions in messages by their real names, whole words only', () => {
    expect(realText('--type depository_a was given, but the document is a depository_b statement')).toBe(
      `--type ${DISPLAY.depository_a} was given, but the document is a ${DISPLAY.depository_b} statement`,
    );
    expect(realText('registrar_b will email it; kra_a said so; broker_d')).toBe(
      `${DISPLAY.registrar_b} will email it; ${DISPLAY.kra_a} said so; ${DISPLAY.broker_d}`,
    );
    expect(realText('/v4/depository_a_x/parse and depository_c stay')).toBe('/v4/depository_a_x/parse and depository_c stay');
    for (const d of ['source', 'broker', 'kra'] as const)
      for (const n of Object.keys(VALUES[d])) if (n !== 'unknown') expect(DISPLAY[n], `${n} has a display name`).toBeTruthy();
  });

  it("stays off the parse path's heavy modules: names.ts imports nothing, dialect.ts only names.ts", () => {
    const imports = (file: string): string[] =>
      [...readFileSync(path.join(ROOT, 'src/schema', file), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    expect(imports('names.ts')).toEqual(['../formats/index.js']);
    expect(imports('dialect.ts')).toEqual(['./names.js']);
  });
});

describe('cas parse --names real', () => {
  it.each([
    ['depository_a/cdsl-cas.pdf', (d: any) => [d.meta.cas_type, ...d.demat_accounts.map((a: any) => a.demat_type)]],
    ['registrar/cams-detailed.pdf', (d: any) => [d.meta.cas_type]],
    ['contract_note/broker_a.pdf', (d: any) => [d.data.broker_info.broker_type, d.status]],
  ])(
    '%s prints real names; --names spec (the default) the neutral ones',
    async (file, pick) => {
      const password = passwordOf(file);
      const r = await cas(['parse', '--json', '--names', 'real', '--password', password, fixture(file)]);
      expect(r.exitCode, r.stderr).toBe(0);
      const n = await cas(['parse', '--json', '--password', password, fixture(file)]);
      const neutral = JSON.parse(n.stdout);
      const realOut = JSON.parse(r.stdout);
      expect(realOut).toEqual(toReal(neutral.broker_info ? 'contract_note' : 'statement', neutral));
      const values = pick(realOut) as string[];
      expect(values.length).toBeGreaterThan(0);
      for (const v of values)
        expect(
          Object.values(VALUES)
            .flatMap((d) => Object.values(d as Record<string, string>))
            .concat('success'),
        ).toContain(v);
      expect(r.stdout).not.toMatch(/DEPOSITORY_|REGISTRAR_A|broker_[a-d]"/);
    },
    30_000,
  );

  it('accepts a real broker name for --broker', async () => {
    const file = 'contract_note/broker_b.pdf';
    const r = await cas(['parse', '--json', '--broker', realValue('broker', 'broker_b'), '--password', passwordOf(file), fixture(file)]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).broker_info.broker_type).toBe('broker_b');
    const bad = await cas(['parse', '--names', 'sometimes', fixture(file)]);
    expect(bad.exitCode).toBe(2);
  }, 30_000);
});
