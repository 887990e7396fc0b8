/**
 * The one way through the house (README, "Architecture"): cli -> client | server -> core -> parsers
 * -> pdf -> schema. Read from the sources: every import (static, type-only, re-export or dynamic)
 * must point to the same room or a lower one, the CLI reaches
 * server code only from the commands that run the service, and no module imports itself back.
 * Inside the server: only the store (`server/store/**`, or a feature's `store.ts`) runs SQL, the
 * store imports nothing of the server outside it, and a feature's service imports no Fastify.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(__dirname, '../../src');

/** Rooms and their floors: a room may use rooms on its own floor or below. */
const FLOOR: Record<string, number> = {
  schema: 0,
  formats: 0,
  shared: 0,
  'errors.ts': 0,
  pdf: 1,
  parsers: 2,
  gains: 3,
  portfolio: 3,
  core: 3,
  client: 4,
  server: 4,
  cli: 5,
};
/** The only CLI modules that may load server code: the commands that run or describe the service. */
const SERVER_FROM_CLI = /^cli\/commands\/(serve|openapi)(\/|\.ts$)/;

interface Edge {
  from: string;
  to: string;
  dynamic: boolean;
  line: number;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

function edges(): Edge[] {
  const out: Edge[] = [];
  for (const f of files(SRC)) {
    const from = path.relative(SRC, f).split(path.sep).join('/');
    const text = readFileSync(f, 'utf8');
    const re = /(^|\n)\s*(import|export)\s+(type\s+)?[^;'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const spec = m[4] ?? m[5];
      const to = path
        .relative(SRC, path.resolve(path.dirname(f), spec))
        .split(path.sep)
        .join('/')
        .replace(/\.js$/, '.ts');
      if (to.startsWith('..')) continue;
      out.push({ from, to, dynamic: Boolean(m[5]), line: text.slice(0, m.index).split('\n').length + (m[1] ? 1 : 0) });
    }
  }
  return out;
}

const room = (p: string): string => (p.includes('/') ? p.split('/')[0] : p);

describe('architecture', () => {
  const all = edges();

  it('reads the imports of every source file', () => {
    expect(all.length).toBeGreaterThan(100);
    for (const e of all) expect(Object.keys(FLOOR), `${e.from} is in no room`).toContain(room(e.from));
  });

  it('every import goes to the same room or a lower one', () => {
    const bad = all.filter((e) => {
      const a = room(e.from);
      const b = room(e.to);
      if (a === b) return false;
      if (a === 'cli' && b === 'server') return !SERVER_FROM_CLI.test(e.from) || !e.dynamic;
      if ((a === 'client' && b === 'server') || (a === 'server' && b === 'client')) return true;
      return FLOOR[b] === undefined || FLOOR[b] > FLOOR[a];
    });
    expect(bad.map((e) => `${e.from}:${e.line} -> ${e.to}${e.dynamic ? ' (dynamic)' : ''}`)).toEqual([]);
  });

  it('no import cycles', () => {
    const next = new Map<string, string[]>();
    for (const e of all) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (n: string): void => {
      state.set(n, 'open');
      stack.push(n);
      for (const m of next.get(n) ?? []) {
        if (state.get(m) === 'open') cycles.push([...stack.slice(stack.indexOf(m)), m].join(' -> '));
        else if (!state.has(m)) visit(m);
      }
      stack.pop();
      state.set(n, 'done');
    };
    for (const n of [...next.keys()].sort()) if (!state.has(n)) visit(n);
    expect(cycles).toEqual([]);
  });

  describe('inside the server', () => {
    const server = files(path.join(SRC, 'server')).map((f) => ({
      rel: path.relative(SRC, f).split(path.sep).join('/'),
      text: readFileSync(f, 'utf8'),
    }));
    const isStore = (rel: string): boolean => rel.startsWith('server/store/') || rel.endsWith('/store.ts');
    const lineOf = (text: string, i: number): number => text.slice(0, i).split('\n').length;

    it('finds the store and the features', () => {
      expect(server.filter((f) => isStore(f.rel)).length).toBeGreaterThan(5);
      expect(server.length).toBeGreaterThan(30);
    });

    it('only the store runs SQL (.get/.all/.run/.tx on a database, or a statement written out)', () => {
      const call = /\b(?:db|q|tx|\w+\.db)\.(?:get|all|run|tx|txBeforeAnswer)\s*[<(]/g;
      const sql = /['"`]\s*(?:SELECT\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX)\s)/g;
      const bad: string[] = [];
      for (const f of server.filter((x) => !isStore(x.rel)))
        for (const re of [call, sql]) for (const m of f.text.matchAll(re)) bad.push(`${f.rel}:${lineOf(f.text, m.index)} ${m[0].trim()}`);
      expect(bad).toEqual([]);
    });

    it('the store imports nothing of the server outside it', () => {
      const bad = all.filter((e) => isStore(e.from) && e.to.startsWith('server/') && !isStore(e.to));
      expect(bad.map((e) => `${e.from}:${e.line} -> ${e.to}`)).toEqual([]);
    });

    it('services import no Fastify', () => {
      const bad = server
        .filter((f) => f.rel.endsWith('/service.ts'))
        .filter((f) => /(?:from|import\()\s*'(?:fastify|@fastify\/[^']+|fastify-[^']+)'/.test(f.text))
        .map((f) => f.rel);
      expect(bad).toEqual([]);
    });
  });
});
