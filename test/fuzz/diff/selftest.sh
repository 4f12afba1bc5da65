#!/usr/bin/env bash
# The differential fuzzer must notice a difference: against a stand-in for
# fastrestore that loads the input and then drops the last rule, the
# replay of a small input has to fail; against fastrestore itself it has
# to pass.
#   selftest.sh FASTRESTORE
set -u
fr=$(realpath "$1")
here=$(dirname "$(realpath "$0")")
if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
  echo "SKIP: needs root and network namespaces"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '# modes: nft4 legacy4\n*filter\n:x - [0:0]\n-A INPUT -j x\n-A x -s 192.0.2.1 -j ACCEPT\nCOMMIT\n' > "$tmp/case.rules"
cat > "$tmp/broken" <<SH
#!/bin/sh
"$fr" "\$@" || exit \$?
[ "\$1" = --legacy ] && exec iptables-legacy -D x 1
exec iptables-nft -D x 1
SH
chmod +x "$tmp/broken"
fail=0
if ! python3 "$here/fuzz_diff.py" --replay "$tmp/case.rules" \
     --fastrestore "$fr" > "$tmp/good.out"; then
  echo "replay against fastrestore found a difference:"
  cat "$tmp/good.out"
  fail=1
fi
if python3 "$here/fuzz_diff.py" --replay "$tmp/case.rules" \
     --fastrestore "$tmp/broken" > "$tmp/bad.out"; then
  echo "replay against a tool that drops a rule found nothing:"
  cat "$tmp/bad.out"
  fail=1
elif [ "$(grep -c '^FAIL .*ruleset after both succeeded' "$tmp/bad.out")" != 2 ]; then
  echo "expected two findings (nft4, legacy4):"
  cat "$tmp/bad.out"
  fail=1
fi
[ $fail = 0 ] && echo "ok: the fuzzer tells a difference from none"
exit $fail
