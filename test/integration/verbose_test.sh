#!/usr/bin/env bash
# -v prints what iptables-nft-restore -v prints (with BACKEND=legacy:
# fastrestore --legacy -v against iptables-legacy-restore -v): for each
# case, both tools load it with -v into fresh namespaces (after a first
# plain load, so that there are chains to flush) and their standard output
# must be identical.
#   [BACKEND=legacy] verbose_test.sh FASTRESTORE CASE.rules...
set -u
fr=$(realpath "$1")
shift
if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
  echo "SKIP: needs root and network namespaces"
  exit 77
fi
pass=0 fail=0
for f in "$@"; do
  kind=nft opt=""
  if [ "${BACKEND:-nft}" = legacy ]; then
    kind=legacy opt=" --legacy"
  fi
  ref=iptables-$kind-restore mine="$fr$opt"
  if grep -q '^# family: 6' "$f"; then
    ref=ip6tables-$kind-restore mine="$fr -6$opt"
  fi
  if grep -q '^# family: bridge' "$f"; then
    ref=ebtables-nft-restore mine="$fr --bridge"
  fi
  a=$(unshare -n sh -c "$ref < '$f' >/dev/null 2>&1; $ref -v < '$f' 2>/dev/null")
  b=$(unshare -n sh -c "$mine < '$f' >/dev/null 2>&1; $mine -v < '$f' 2>/dev/null")
  if [ "$a" = "$b" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAILED: $(basename "$f") (--- $ref -v, +++ fastrestore -v)"
    diff -u <(echo "$a") <(echo "$b") | head -20
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
