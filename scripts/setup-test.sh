#!/usr/bin/env bash
# `npm run setup:test`: install the system tools some tests need (Debian/Ubuntu, apt-get).
# Without them `npm test` still passes: each test that needs a missing tool is skipped and names it.
#   qpdf           re-saved and AES-256 R6 PDFs      poppler-utils  an independent text extractor (pdftotext)
#   dovecot-imapd  the IMAP peer of the inbox tests  openssl        certificates for STARTTLS and the locker
#   jq             the `cas parse | jq` pipe test    chromium       the second layout renderer, the HTML report
#   fonts-liberation fonts-dejavu-core               the fonts the Chromium renderer lays out with
#   postgresql     initdb/postgres for the server suite's second run on PostgreSQL (the tests start their
#                  own throwaway cluster on a loopback port; no system service is needed or started by them)
set -euo pipefail

need=()
command -v qpdf >/dev/null 2>&1 || need+=(qpdf)
command -v jq >/dev/null 2>&1 || need+=(jq)
command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
command -v dovecot >/dev/null 2>&1 || need+=(dovecot-imapd)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
fc-list 2>/dev/null | grep -qi 'Liberation Sans' || need+=(fonts-liberation fonts-dejavu-core)
# Debian keeps initdb and pg_ctl in /usr/lib/postgresql/<major>/bin, off PATH.
have_pg() {
  local d
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && return 0; done
  command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1
}
have_pg || need+=(postgresql)

if [ ${#need[@]} -eq 0 ]; then
  echo "setup:test: every test tool is installed"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup:test: no apt-get here; install these (Debian package names) with your package manager: ${need[*]}" >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "setup:test: run as root, or install: apt-get install ${need[*]}" >&2
    exit 1
  fi
fi
echo "setup:test: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo "setup:test: done"
