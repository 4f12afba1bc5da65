#!/usr/bin/env bash
# --incremental under faults and contention, with its state journal:
#  - 8 processes x ROUNDS rounds of concurrent incremental loads, each of
#    its own one-table input, into one namespace: the table ends equal to
#    exactly one of the inputs, and a last load converges;
#  - SIGKILL at random points of incremental loads (KILLS times, before,
#    during and after the commit and the journal's writing): the table is
#    the old or the new one, and the next load converges; then the same
#    (KILLS/2 times) with kube-proxy's kind of --noflush input.
#   incremental_faults.sh FASTRESTORE [ROUNDS [KILLS]]
set -u
. "$(dirname "$0")/common.sh"
rounds=${2:-50}
kills=${3:-40}
if [ -n "${FASTRESTORE_TEST_QUICK:-}" ]; then
  rounds=5
  kills=8
fi
export FASTRESTORE_JOURNAL_DIR=$tmp/journal

# Input K: a filter table whose rules depend on K (N rules).
input() {
  awk -v k="$1" -v n="$2" 'BEGIN {
    print "*filter"; print ":INPUT ACCEPT [0:0]"
    printf ":FORWARD %s [0:0]\n", k % 2 ? "DROP" : "ACCEPT"
    print ":OUTPUT ACCEPT [0:0]"; printf ":c%d - [0:0]\n", k % 3
    for (i = 0; i < n; i++)
      if (i % 7 != k % 7)
        printf "-A %s -s 10.%d.%d.%d/32 -j ACCEPT\n", i % 2 ? "INPUT" : "c" k % 3,
          k, int(i / 256) % 256, i % 256
    printf "-A INPUT -j c%d\n", k % 3
    print "COMMIT" }'
}
state() {
  iptables-nft-save | grep -v '^#' | sed -E 's/\[[0-9]+:[0-9]+\]/[0:0]/g'
}

# The save each input makes with a full restore.
for k in 0 1 2 3 4 5 6 7 8 9; do
  input $k 300 >"$tmp/in$k"
  unshare -n bash -c "'$fr' <'$tmp/in$k' && $(declare -f state); state" \
    >"$tmp/wantin$k"
done
input 20 3000 >"$tmp/big0"
input 21 3000 >"$tmp/big1"
for k in 0 1; do
  unshare -n bash -c "'$fr' <'$tmp/big$k' && $(declare -f state); state" \
    >"$tmp/wantbig$k"
done

# Which input's save a state is ("none" when it is none of them).
which_input() {
  for w in "$tmp"/want*; do
    if cmp -s "$1" "$w"; then
      basename "$w"
      return
    fi
  done
  echo none
}

unshare -n sleep 100000 &
ns=$!
trap 'kill $ns 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 0.2
in_ns() { nsenter -t "$ns" -n "$@"; }

# Concurrent loads.
for p in 0 1 2 3 4 5 6 7; do
  (for ((r = 0; r < rounds; r++)); do
    in_ns "$fr" --incremental <"$tmp/in$p" 2>>"$tmp/err$p" || echo "status $?" >>"$tmp/err$p"
  done) &
done
wait_loads() { for j in $(jobs -p); do [ "$j" = "$ns" ] || wait "$j"; done; }
wait_loads
in_ns bash -c "$(declare -f state); state" >"$tmp/got"
got=$(which_input "$tmp/got")
check "8 x $rounds concurrent loads leave exactly one input ($got)" \
  bash -c "[ '$got' != none ] && [ -z \"\$(cat '$tmp'/err? 2>/dev/null)\" ]"
in_ns "$fr" --incremental <"$tmp/in8"
in_ns bash -c "$(declare -f state); state" >"$tmp/got"
check "a load after them converges" cmp -s "$tmp/got" "$tmp/wantin8"

# SIGKILL at random points: KILLS loads of $tmp/BIG0 and BIG1 in turn,
# with OPTIONS, each killed after 0-59 ms (before, during or after the
# commit and the journal's writing), leave the old table or the new one;
# after each, a load of one of the N inputs $tmp/SMALL0... converges.
# (want* names the save each input makes.)
kill_loads() { # KILLS BIG SMALL N OPTIONS...
  local kills=$1 big=$2 small=$3 n=$4 prev i next pid got k
  shift 4
  in_ns "$fr" "$@" <"$tmp/${big}0"
  prev=want${big}0
  for ((i = 0; i < kills; i++)); do
    next=$((i % 2 ? 0 : 1))
    # nsenter executes fastrestore itself: $! is the process killed.
    nsenter -t "$ns" -n "$fr" "$@" <"$tmp/$big$next" &
    pid=$!
    sleep "0.0$((RANDOM % 60))"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    in_ns bash -c "$(declare -f state); state" >"$tmp/got"
    got=$(which_input "$tmp/got")
    if [ "$got" != "$prev" ] && [ "$got" != "want$big$next" ]; then
      echo "after kill $i: the table is $got, neither $prev nor want$big$next"
      return 1
    fi
    # The next load converges, whatever the kill left.
    k=$((RANDOM % n))
    in_ns "$fr" "$@" <"$tmp/$small$k" || return 1
    in_ns bash -c "$(declare -f state); state" >"$tmp/got"
    if ! cmp -s "$tmp/got" "$tmp/want$small$k"; then
      echo "after kill $i: a load of $small$k did not converge"
      diff "$tmp/want$small$k" "$tmp/got" | head -20
      return 1
    fi
    in_ns "$fr" "$@" <"$tmp/$big$next" || return 1
    prev=want$big$next
  done
}
check "SIGKILL at $kills random points: old or new table, then convergence" \
  kill_loads "$kills" big in 10 --incremental

# The same with --noflush input as kube-proxy writes it: every user chain
# declared and filled, a stale one declared and deleted, the base chains
# (which jump to them) left alone.
nf_input() {
  awk -v k="$1" -v n="$2" 'BEGIN {
    print "*filter"; print ":u0 - [0:0]"; print ":u1 - [0:0]"
    print ":u2 - [0:0]"; print ":stale - [0:0]"
    for (i = 0; i < n; i++)
      if (i % 7 != k % 7)
        printf "-A u%d -s 10.%d.%d.%d/32 -j ACCEPT\n", i % 3, k,
          int(i / 256) % 256, i % 256
    print "-X stale"; print "COMMIT" }'
}
printf '*filter\n:INPUT ACCEPT [0:0]\n:u0 - [0:0]\n:u1 - [0:0]\n:u2 - [0:0]\n:stale - [0:0]\n-A INPUT -j u0\n-A INPUT -j u1\n-A INPUT -j u2\nCOMMIT\n' >"$tmp/nfbase"
for k in 0 1 2 3; do nf_input $k 300 >"$tmp/nf$k"; done
nf_input 20 3000 >"$tmp/nfbig0"
nf_input 21 3000 >"$tmp/nfbig1"
rm -f "$tmp"/want*
for f in nf0 nf1 nf2 nf3 nfbig0 nfbig1; do
  unshare -n bash -c "'$fr' <'$tmp/nfbase' && '$fr' --noflush <'$tmp/$f' &&
    $(declare -f state); state" >"$tmp/want$f"
done
in_ns "$fr" <"$tmp/nfbase"
check "--noflush: SIGKILL at $((kills / 2)) random points: old or new table, then convergence" \
  kill_loads $((kills / 2)) nfbig nf 4 --noflush --incremental

exit $fail
