#!/usr/bin/env bash
# Under a limit on its address space (ulimit -v) fastrestore takes the heap
# region it can get, or none: a four-rule file loads under 100 MB, as
# iptables-nft-restore loads it, with and without --test. An allocation
# that fails ends with one message and status 1, never an abort, and the
# kernel keeps what it had.
#   memory_limit_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"
# AddressSanitizer's shadow memory alone is terabytes of address space.
if [ -n "${ASAN_OPTIONS:-}" ]; then
  echo "SKIP: no address-space limit under AddressSanitizer"
  exit 77
fi

cat >"$tmp/four" <<'RULES'
*filter
:INPUT ACCEPT [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A INPUT -j DROP
COMMIT
RULES

small_file_loads() {
  unshare -n sh -c "iptables-nft-restore '$tmp/four' && iptables-nft-save" |
    grep -v '^#' >"$tmp/want"
  unshare -n bash -c "
    (ulimit -v 100000; '$fr' --test '$tmp/four') || exit 1
    (ulimit -v 100000; '$fr' '$tmp/four') || exit 1
    iptables-nft-save" 2>"$tmp/err" | grep -v '^#' >"$tmp/got" &&
    [ ! -s "$tmp/err" ] && diff "$tmp/want" "$tmp/got"
}
check "a four-rule file loads under ulimit -v 100000" small_file_loads

awk 'BEGIN { print "*filter"; print ":INPUT ACCEPT [0:0]"; print ":big - [0:0]"
  for (i = 0; i < 300000; i++)
    printf "-A big -s 10.%d.%d.%d/32 -p tcp -m tcp --dport %d -j ACCEPT\n",
      int(i / 62500) % 256, int(i / 250) % 250, i % 250, 1 + i % 60000
  print "COMMIT" }' >"$tmp/big"
out_of_memory() {
  unshare -n bash -c "
    iptables-nft -A INPUT -s 192.0.2.1 -j DROP || exit 9
    iptables-nft-save | grep -v '^#' >'$tmp/before'
    (ulimit -v 60000; exec '$fr' '$tmp/big')
    echo \$? >'$tmp/status'
    iptables-nft-save | grep -v '^#' >'$tmp/after'" 2>"$tmp/err"
  [ "$(cat "$tmp/status")" = 1 ] &&
    [ "$(cat "$tmp/err")" = "fastrestore: can't alloc memory! (out of memory)" ] &&
    diff "$tmp/before" "$tmp/after"
}
check "running out of memory ends with a message, status 1, kernel unchanged" \
  out_of_memory

exit $fail
