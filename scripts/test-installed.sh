#!/usr/bin/env bash
# `npm run test:installed` (a step of .ci/run): pack the package, install the tarball into an empty
# directory, and run the installed `cas` from there: --help, parse on a shipped sample, and
# `cas serve` + `cas fetch` + `cas verify-otp --parse` against its sandbox. Nothing from the work tree
# is used after `npm pack`, so a file the package needs but does not ship fails here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cas-installed-XXXXXX")
serve_pid=
cleanup() {
  if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
step() { printf '\ntest:installed: %s\n' "$*" >&2; }
fail() {
  printf 'test:installed: FAILED: %s\n' "$*" >&2
  exit 1
}

# The example investor of the README and the sandbox (fixtures/sandbox/).
PAN=ABCPM1234K
BO_ID=1208160000123456
DOB=1990-01-31

step "packing $(node -p "require('$root/package.json').name")"
cd "$root"
[ -f dist/cli/main.js ] || npm run build >/dev/null
tgz=$(npm pack --silent --pack-destination "$work" | tail -n 1)
[ -f "$work/$tgz" ] || fail "npm pack wrote no tarball"
echo "tarball: $tgz ($(du -h "$work/$tgz" | cut -f1), $(tar -tzf "$work/$tgz" | wc -l) files)" >&2

step "installing it into an empty directory"
app="$work/app"
mkdir -p "$app"
cd "$app"
printf '{ "name": "cas-installed-check", "version": "1.0.0", "private": true }\n' > package.json
npm install --no-audit --no-fund --prefer-offline --loglevel=error "$work/$tgz" >&2
cas() { "$app/node_modules/.bin/cas" "$@" </dev/null; }
pkg="$app/node_modules/$(node -p "require('$root/package.json').name")"

step "cas --help"
cas --help | grep -q 'Usage: cas' || fail "cas --help printed no usage line"
cas --version

step "cas parse on a shipped sample"
sample=$(node -e '
const fs = require("fs"), path = require("path"), dir = path.join(process.argv[1], "fixtures/sandbox");
try { console.log(path.join(dir, JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")).depository_a[0].path)); } catch {}
' "$pkg")
[ -n "$sample" ] && [ -f "$sample" ] || fail "the package ships no sandbox sample (fixtures/sandbox/manifest.json)"
CAS_PDF_PASSWORD=$PAN cas parse "$sample" > "$work/parsed.json" || fail "cas parse exited $?"
node -e '
const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
if (!j.investor || !j.investor.name) { console.error("test:installed: FAILED: no investor in the parsed JSON"); process.exit(1); }
console.error(`parsed: ${j.meta?.cas_type} ${j.meta?.statement_period?.from}..${j.meta?.statement_period?.to}, ${j.investor.name}`);
' "$work/parsed.json"

step "cas serve, then cas fetch and cas verify-otp --parse against its sandbox"
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
"$app/node_modules/.bin/cas" serve --port "$port" --data-dir "$work/data" </dev/null >"$work/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 1 100); do
  grep -q 'listening on' "$work/serve.log" 2>/dev/null && break
  kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log" >&2; fail "cas serve stopped"; }
  sleep 0.1
done
grep -q 'listening on' "$work/serve.log" || { cat "$work/serve.log" >&2; fail "cas serve did not start"; }
export CAS_BASE_URL="http://127.0.0.1:$port" CAS_API_KEY=cas_sandbox_public_key
session=$(cas fetch --pan "$PAN" --bo-id "$BO_ID" --dob "$DOB" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).session_id))')
[ -n "$session" ] || fail "cas fetch returned no session"
code=0
CAS_PDF_PASSWORD=$PAN cas verify-otp "$session" --otp 123456 --periods 3 --out-dir "$work/statements" --parse > "$work/fetched.json" || code=$?
[ "$code" -eq 0 ] || { cat "$work/serve.log" >&2; fail "cas verify-otp --parse exited $code"; }
node -e '
const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n");
const files = require("fs").readdirSync(process.argv[2]).filter((f) => f.endsWith(".pdf"));
if (files.length < 1) { console.error("test:installed: FAILED: no statement written"); process.exit(1); }
console.error(`fetched: ${files.join(", ")}`);
console.error(`parsed: ${lines.length} statements, ${lines.map((l) => JSON.parse(l).meta.statement_period.from.slice(0, 7)).join(", ")}`);
if (lines.length !== files.length) { console.error("test:installed: FAILED: not every saved statement parsed"); process.exit(1); }
' "$work/fetched.json" "$work/statements"
grep -q '"status":500' "$work/serve.log" && { cat "$work/serve.log" >&2; fail "the service answered 500"; }

step "ok: the installed package parses, serves, fetches and verifies"
