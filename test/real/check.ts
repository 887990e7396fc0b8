/**
 * `npm run check:real -- DIR [--peer DIR] [--show N]`: a local check on genuine statements that are
 * never committed (issue 24). Parses every PDF under DIR with the built `cas`, one line per file
 * and totals by kind. Not part of CI.
 *
 * Passwords: passwords.txt in DIR or up to two folders above it, lines `FILE<TAB>PASSWORD` (FILE relative to
 * that folder or a bare name;
 * `*` for every other file), else CAS_PDF_PASSWORD.
 * Registrar and depository results are compared with the reference parser (casparser) when it is
 * built (default ~/.cache/cas-peer, see ../shared/peer/README.md): its check.py runs on a manifest
 * whose "truth" is what cas printed, so the agreement it reports is cas against casparser.
 * Contract notes are checked for a number, a trade date, trades, and reconciled totals (cas's own
 * self-checks, printed as warnings, plus: net amount and obligation differ by about the listed charges).
 */
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin', 'cas.js');

interface Row {
  file: string;
  kind: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  warnings: string[];
  json?: string;
  password?: string;
  peer?: string;
  /** The reference parser's first disagreements (what it read, what cas read). */
  peerDiffs?: string[];
}

function pdfsUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && /\.pdf$/i.test(e.name)) out.push(path.join(e.parentPath, e.name));
  }
  return out.sort();
}

/** passwords.txt in DIR or one of its two parents (keys relative to the folder that holds it, or bare names). */
function passwords(dir: string): (file: string) => string | undefined {
  const map = new Map<string, string>();
  let base = dir;
  for (let up = 0, d = dir; up < 3; up++, d = path.dirname(d)) {
    if (existsSync(path.join(d, 'passwords.txt'))) {
      base = d;
      break;
    }
  }
  const f = path.join(base, 'passwords.txt');
  if (existsSync(f)) {
    for (const line of readFileSync(f, 'utf8').split(/\r?\n/)) {
      const m = /^(\S+)\s+(\S.*?)\s*$/.exec(line);
      if (m && !line.startsWith('#')) map.set(m[1], m[2]);
    }
  }
  return (file) => map.get(path.relative(base, file)) ?? map.get(path.basename(file)) ?? map.get('*') ?? process.env.CAS_PDF_PASSWORD;
}

const KIND: Record<string, string> = { REGISTRAR_A_REGISTRAR_B: 'registrar', DEPOSITORY_A: 'depository_a', DEPOSITORY_B: 'depository_b' };

function describeStatement(d: any): string {
  const mfs = (d.mutual_funds ?? []) as any[];
  const schemes = mfs.reduce((s, f) => s + f.schemes.length, 0);
  const txns = mfs.reduce((s, f) => s + f.schemes.reduce((t: number, sc: any) => t + sc.transactions.length, 0), 0);
  const accts = (d.demat_accounts ?? []) as any[];
  const holdings = accts.reduce(
    (s, a) => s + Object.values(a.holdings ?? {}).reduce((h: number, list: any) => h + (Array.isArray(list) ? list.length : 0), 0),
    0,
  );
  const parts = [];
  if (accts.length) parts.push(`${accts.length} demat accounts, ${holdings} holdings`);
  parts.push(`${mfs.length} folios, ${schemes} schemes${txns ? `, ${txns} transactions` : ''}`);
  parts.push(`total ${d.summary?.total_value}`);
  return parts.join('; ');
}

function checkNote(d: any): { problems: string[]; detail: string } {
  const problems: string[] = [];
  const info = d.contract_note_info ?? {};
  if (!info.contract_note_number) problems.push('no contract note number');
  if (!info.trade_date) problems.push('no trade date');
  const trades = (d.detailed_trades?.length ?? 0) + (d.equity_transactions?.length ?? 0) + (d.derivatives_transactions?.length ?? 0);
  if (!trades) problems.push('no trades');
  const c = d.charges_summary ?? {};
  const charges = [
    'cgst',
    'sgst',
    'igst',
    'exchange_transaction_charges',
    'regulator_turnover_fees',
    'securities_transaction_tax',
    'stamp_duty',
    'taxable_value_brokerage',
  ].reduce((s, k) => s + Math.abs(Number(c[k] ?? 0)), 0);
  const obligation = Number(c.pay_in_pay_out_obligation ?? 0);
  const net = Number(c.net_amount_receivable_payable ?? 0);
  // The schema has no field for every charge a broker prints (clearing, other levies), so this is a
  // plausibility check beside cas's own self-checks: net and obligation differ by about the charges.
  const gap = Math.abs(Math.abs(net) - Math.abs(obligation));
  if ((obligation || net) && gap > charges * 1.25 + 1)
    problems.push(`totals do not reconcile: obligation ${obligation}, listed charges ${charges.toFixed(2)}, net ${net}`);
  return {
    problems,
    detail: `${d.broker_info?.broker_type ?? '?'} ${info.contract_note_number ?? '-'} ${info.trade_date ?? '-'}: ${d.detailed_trades?.length ?? 0} trades, ${d.equity_transactions?.length ?? 0} equity and ${d.derivatives_transactions?.length ?? 0} derivatives rows`,
  };
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  let dir: string | undefined;
  let peerDir = process.env.CAS_PEER ?? path.join(os.homedir(), '.cache', 'cas-peer');
  let show = 3;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--peer') peerDir = argv[++i];
    else if (argv[i] === '--show') show = Number(argv[++i]);
    else if (argv[i] === '-h' || argv[i] === '--help') {
      process.stdout.write('usage: npm run check:real -- DIR [--peer PEER_DIR] [--show N]\n');
      return 0;
    } else dir = argv[i];
  }
  if (!dir || !existsSync(dir) || !statSync(dir).isDirectory()) {
    process.stderr.write('check:real: give a folder of PDFs (kept outside the repository): npm run check:real -- DIR\n');
    return 2;
  }
  dir = path.resolve(dir);
  if (dir.startsWith(`${ROOT}${path.sep}`))
    process.stderr.write('check:real: warning: DIR is inside the repository; genuine statements must never be committed\n');
  const pw = passwords(dir);
  const files = pdfsUnder(dir);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'cas-real-'));
  const rows: Row[] = [];
  try {
    for (const [i, file] of files.entries()) {
      const password = pw(file);
      const env: Record<string, string> = {
        ...(process.env as Record<string, string>),
        CAS_CONFIG_DIR: path.join(scratch, 'config'),
        NO_COLOR: '1',
      };
      delete env.CAS_PDF_PASSWORD;
      if (password) env.CAS_PDF_PASSWORD = password;
      const r = await execa('node', [BIN, '--no-input', 'parse', '--json', file], {
        reject: false,
        env,
        extendEnv: false,
        stdin: 'ignore',
        timeout: 120_000,
      });
      const rel = path.relative(dir, file);
      const warnings = String(r.stderr)
        .split('\n')
        .filter((l) => /^warning:/i.test(l))
        .map((l) => l.replace(/^warning:\s*/i, '').replace(`${file}: `, ''));
      if (r.exitCode !== 0) {
        const err =
          String(r.stderr)
            .split('\n')
            .find((l) => /^error:/.test(l)) ??
          String(r.stderr).trim().split('\n')[0] ??
          `exit ${r.exitCode}`;
        rows.push({
          file: rel,
          kind: '?',
          status: 'fail',
          detail: `exit ${r.exitCode}: ${err.replace(/^error:\s*/, '').replace(`${file}: `, '')}`,
          warnings,
        });
        continue;
      }
      const data = JSON.parse(String(r.stdout)) as any;
      const json = path.join(scratch, `${i}.json`);
      writeFileSync(json, String(r.stdout));
      if (data.meta?.cas_type) {
        const kind = KIND[data.meta.cas_type] ?? data.meta.cas_type;
        rows.push({ file: rel, kind, status: warnings.length ? 'warn' : 'ok', detail: describeStatement(data), warnings, json, password });
      } else {
        const { problems, detail } = checkNote(data);
        rows.push({
          file: rel,
          kind: 'contract_note',
          status: problems.length ? 'fail' : warnings.length ? 'warn' : 'ok',
          detail: problems.length ? `${detail}; ${problems.join('; ')}` : detail,
          warnings,
        });
      }
    }

    // The reference parser on the statements, through its own check.py (cas's output as the truth).
    const py = path.join(peerDir, 'bin', 'python');
    const checkPy = process.env.CAS_PEER_CHECK ?? path.resolve(ROOT, '..', 'shared', 'peer', 'check.py');
    const statements = rows.filter((r) => r.json && ['registrar', 'depository_a', 'depository_b'].includes(r.kind));
    let peerTotal = '';
    if (statements.length && existsSync(py) && existsSync(checkPy)) {
      writeFileSync(
        path.join(scratch, 'manifest.json'),
        JSON.stringify(
          statements.map((s) => ({ path: path.join(dir!, s.file), kind: s.kind, password: s.password ?? null, truth: s.json })),
        ),
      );
      const p = await execa(py, [checkPy, '--hidden', scratch, '--show', String(show)], {
        reject: false,
        env: { ...process.env, PEER_MIN: '0' },
      });
      let last: Row | undefined;
      for (const line of String(p.stdout).split('\n')) {
        const m = /^peer reads (.+?): (.*)$/.exec(line);
        if (m) {
          last = statements.find((s) => path.join(dir!, s.file) === m[1]);
          if (last) last.peer = m[2].replace(/\s*\(\d+\.\d+s.*$/, '').replace(/ \(\d+\.\d+s;.*$/, '');
        } else if (last && /^ {2}(-|\.\.\.) /.test(line)) (last.peerDiffs ??= []).push(line.trim());
        if (/^peer agrees on/.test(line)) peerTotal = line;
      }
    } else if (statements.length) {
      peerTotal = `reference parser not built (${py} missing): no comparison`;
    }

    for (const r of rows) {
      process.stdout.write(
        `${r.status.toUpperCase().padEnd(4)}  ${r.kind.padEnd(13)}  ${r.file}: ${r.detail}${r.peer ? `; casparser: ${r.peer}` : ''}${r.warnings.length ? `; ${r.warnings.length} warning(s)` : ''}\n`,
      );
      for (const w of r.warnings.slice(0, show)) process.stdout.write(`        warning: ${w}\n`);
      for (const d of r.peerDiffs ?? []) process.stdout.write(`        casparser: ${d.replace(/^- /, '')}\n`);
    }
    const kinds = [...new Set(rows.map((r) => r.kind))].sort();
    process.stdout.write('\n');
    for (const k of kinds) {
      const of = rows.filter((r) => r.kind === k);
      process.stdout.write(
        `${k.padEnd(13)} ${of.length} files: ${of.filter((r) => r.status === 'ok').length} clean, ${of.filter((r) => r.status === 'warn').length} with self-check warnings, ${of.filter((r) => r.status === 'fail').length} failed\n`,
      );
    }
    if (peerTotal) process.stdout.write(`${peerTotal}\n`);
    const failed = rows.filter((r) => r.status === 'fail').length;
    process.stdout.write(
      `check:real: ${rows.length} files, ${rows.length - failed} parsed, ${rows.filter((r) => r.status === 'ok').length} clean, ${failed} failed\n`,
    );
    return 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  (c) => process.exit(c),
  (err: unknown) => {
    process.stderr.write(`check:real: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
