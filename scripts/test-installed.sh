#!/usr/bin/env bash
# `npm run test:installed` (a step of .ci/run): the README's install path, proved.
#
# 1. Copies the repository's files (what a clone has: `git ls-files`, no node_modules, no dist, no
#    ../shared) to an empty folder and runs there the README's and docs/ pages' blocks marked
#    `<!-- run: clone -->`: `npm ci && npm run build`, a parse of a shipped fixture, `npm pack` and
#    `npm install -g ./cas-cli-<version>.tgz` (under a temporary npm prefix: nothing outside the
#    work folder changes), `cas gains` on the registrar fixture, ...
# 2. Checks the installed package: the dependency set (light-my-request 6.6.0, no cookie 2), `cas
#    --help`, a parse of the shipped sandbox sample, and `cas serve` + `cas fetch` + `cas verify-otp
#    --parse` against its sandbox.
# 3. Runs every other block of the README and the docs/ pages, in order, with the installed `cas`
#    in an empty folder (scripts/doc-blocks.mjs says how).
# Any block that exits non-zero fails the run, and so does any `npm warn` line (EBADENGINE, a
# deprecation, an install script npm would not run): users must get what CI tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cas-installed-XXXXXX")
serve_pid=
cleanup() {
  if [ -n "$serve_pid" ]; then kill "$serve_pid" 2>/dev/null || true; fi
  if [ -n "${CAS_KEEP_INSTALLED:-}" ]; then echo "test:installed: kept $work" >&2; else rm -rf "$work"; fi
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
name=$(node -p "require('$root/package.json').name")

# Global installs go to a prefix inside the work folder; the config file too.
# (`npm run` itself exports npm_config_prefix and npm_config_global_prefix: both are replaced.)
export NPM_CONFIG_PREFIX="$work/global" npm_config_prefix="$work/global" npm_config_global_prefix="$work/global"
export npm_config_update_notifier=false npm_config_prefer_offline=true
mkdir -p "$work/global/lib" "$work/global/bin"
export PATH="$work/global/bin:$PATH" CAS_CONFIG_DIR="$work/config"
unset CAS_API_KEY CAS_BASE_URL CAS_PDF_PASSWORD

# better-sqlite3's binary: CI's own `npm ci` has just built it (this machine reaches the npm registry
# but not GitHub's release downloads, so prebuild-install falls back to a 2-3 minute compile). The two
# installs below (the clone's `npm ci`, the tarball's global install) would compile it twice more; a
# user's machine with network downloads the prebuilt binary instead. Put that binary where
# prebuild-install looks before it downloads (npm's cache, _prebuilds/, under the download's name), so
# both installs take the download path. Skipped (a compile then) when the repository has no build.
seed_prebuild() {
  local mod="$root/node_modules/better-sqlite3"
  [ -f "$mod/build/Release/better_sqlite3.node" ] && [ -d "$root/node_modules/prebuild-install" ] || return 0
  local dest
  dest=$(cd "$mod" && node -e '
const path = require("path"), root = process.argv[1];
const pkg = require(path.join(root, "node_modules/better-sqlite3/package.json"));
const rc = require(path.join(root, "node_modules/prebuild-install/rc"))(pkg);
const util = require(path.join(root, "node_modules/prebuild-install/util"));
console.log(util.cachedPrebuild(util.getDownloadUrl(Object.assign({}, rc, { pkg }))));
' "$root") || return 0
  [ -n "$dest" ] || return 0
  mkdir -p "$(dirname "$dest")"
  [ -f "$dest" ] || tar -C "$mod" -czf "$dest" build/Release/better_sqlite3.node
  step "better-sqlite3's binary cached for prebuild-install at $dest"
}
seed_prebuild

step "copying the repository's files (what a clone has) to $work/clone"
mkdir -p "$work/clone"
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -co --exclude-standard -z | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -xf - -C "$work/clone"
else
  tar --exclude=./node_modules --exclude=./dist --exclude=./.git -cf - . | tar -xf - -C "$work/clone"
fi
[ -e "$work/clone/node_modules" ] && fail "the copy has a node_modules folder"

step "the README's and docs/ pages' clone blocks (npm ci, build, npm pack, npm install -g the tarball)"
cd "$work/clone"
node scripts/doc-blocks.mjs run clone . README.md docs/*.md || fail "a clone block failed (above)"
command -v cas >/dev/null || fail "the README's install block installed no cas command"
[ "$(command -v cas)" = "$work/global/bin/cas" ] || fail "cas is $(command -v cas), not the installed tarball's"
pkg="$(npm root -g)/$name"
[ -f "$pkg/package.json" ] || fail "$name is not installed under $(npm root -g)"

step "the installed dependency set"
(cd "$pkg" && npm ls --omit=dev light-my-request cookie 2>&1 || true) | tee "$work/deps.txt" >&2
grep -q 'light-my-request@6.6.0' "$work/deps.txt" || fail "the installed light-my-request is not 6.6.0 (its newer versions need Node.js 22)"
grep -q 'cookie@2' "$work/deps.txt" && fail "cookie 2 is installed (it needs Node.js 22)"

step "cas --help"
cas() { command cas "$@" </dev/null; }
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
command cas serve --port "$port" --data-dir "$work/data" </dev/null >"$work/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 1 600); do
  grep -q 'listening on' "$work/serve.log" 2>/dev/null && break
  kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log" >&2; fail "cas serve stopped"; }
  sleep 0.2
done
grep -q 'listening on' "$work/serve.log" || { cat "$work/serve.log" >&2; fail "cas serve did not start"; }
session=$(CAS_BASE_URL="http://127.0.0.1:$port" CAS_API_KEY=cas_sandbox_public_key cas fetch --pan "$PAN" --bo-id "$BO_ID" --dob "$DOB" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).session_id))')
[ -n "$session" ] || fail "cas fetch returned no session"
code=0
CAS_BASE_URL="http://127.0.0.1:$port" CAS_API_KEY=cas_sandbox_public_key CAS_PDF_PASSWORD=$PAN \
  cas verify-otp "$session" --otp 123456 --periods 3 --out-dir "$work/statements" --parse > "$work/fetched.json" || code=$?
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
kill "$serve_pid" 2>/dev/null || true
wait "$serve_pid" 2>/dev/null || true
serve_pid=

step "every other block of the README and the docs/ pages, with the installed cas, in an empty folder"
mkdir -p "$work/user"
node scripts/doc-blocks.mjs run installed "$work/user" README.md docs/*.md || fail "a documented command failed (above)"

step "ok: the tarball installs without a warning, and every documented command runs as written"
