#!/usr/bin/env bash
# Eight fastrestore processes at once, 50 rounds each, in one private
# network namespace, on nf_tables and on legacy x_tables:
# - --noflush blocks into one shared chain: each process appends its own
#   rules, deletes one of its earlier rules by specification and inserts at
#   a position (both need the kernel's rules, so the block is planned from
#   what it read: on nf_tables it is sent with that generation and planned
#   again when another commit came first; on legacy the xtables lock
#   orders them). No rule may be lost or duplicated.
# - full restores of eight different files: the final tables must be
#   exactly one of the inputs.
#   concurrency_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"
procs=8
rounds=50
# Under the sanitizers (FASTRESTORE_TEST_QUICK=1) each process starts
# slowly: fewer rounds.
[ "${FASTRESTORE_TEST_QUICK:-}" = 1 ] && rounds=10

# The block process P sends in round R.
block() { # P R
  local p=$1 r=$2
  echo '*filter'
  echo "-A shared -s 10.$p.$r.1/32 -j ACCEPT"
  echo "-A shared -s 10.$p.$r.2/32 -j ACCEPT"
  [ "$r" -gt 0 ] && echo "-D shared -s 10.$p.$((r - 1)).2/32 -j ACCEPT"
  echo "-I shared 2 -s 10.$p.$r.3/32 -j DROP"
  echo 'COMMIT'
}
for p in $(seq 1 $procs); do
  for r in $(seq 0 $((rounds - 1))); do block "$p" "$r" >"$tmp/block.$p.$r"; done
done
# What the shared chain must hold at the end, as sorted source addresses.
for p in $(seq 1 $procs); do
  for r in $(seq 0 $((rounds - 1))); do
    echo "10.$p.$r.1/32"
    echo "10.$p.$r.3/32"
  done
  echo "10.$p.$((rounds - 1)).2/32"
done | sort >"$tmp/expected_noflush"

# Full restores: process P's file.
for p in $(seq 1 $procs); do
  {
    echo '*filter'
    echo ':INPUT ACCEPT [0:0]'
    echo ':FORWARD ACCEPT [0:0]'
    echo ':OUTPUT ACCEPT [0:0]'
    echo ":owner$p - [0:0]"
    for i in $(seq 1 $((p * 10))); do echo "-A owner$p -s 10.$p.0.$i/32 -j ACCEPT"; done
    echo "-A INPUT -j owner$p"
    echo 'COMMIT'
  } >"$tmp/full.$p"
done

run() { # BACKEND
  local backend=$1 opt="" save=iptables-nft-save
  [ "$backend" = legacy ] && { opt=--legacy; save=iptables-legacy-save; }
  # Each input alone, as the save tool prints it.
  for p in $(seq 1 $procs); do
    unshare -n bash -c '"$1" $2 <"$3" && $4 | grep -v "^#"' _ "$fr" "$opt" "$tmp/full.$p" "$save" \
      >"$tmp/$backend.alone.$p"
  done
  unshare -n bash -s -- "$fr" "$opt" "$save" "$tmp" "$backend" "$procs" "$rounds" <<'SCRIPT'
fr=$1 opt=$2 save=$3 tmp=$4 backend=$5 procs=$6 rounds=$7
printf '*filter\n:shared - [0:0]\nCOMMIT\n' | "$fr" $opt || exit 1
for p in $(seq 1 "$procs"); do
  (
    for r in $(seq 0 $((rounds - 1))); do
      "$fr" $opt --noflush <"$tmp/block.$p.$r" 2>>"$tmp/$backend.noflush.err" ||
        echo "process $p round $r: exit $?" >>"$tmp/$backend.noflush.failed"
    done
  ) &
done
wait
$save | grep -- '-A shared' | sed 's/.* -s \([^ ]*\) .*/\1/' | sort >"$tmp/$backend.noflush.got"
for p in $(seq 1 "$procs"); do
  (
    for r in $(seq 1 "$rounds"); do
      "$fr" $opt <"$tmp/full.$p" 2>>"$tmp/$backend.full.err" ||
        echo "process $p round $r: exit $?" >>"$tmp/$backend.full.failed"
    done
  ) &
done
wait
$save | grep -v '^#' >"$tmp/$backend.full.got"
SCRIPT
  check "$backend: every --noflush block applied" test ! -e "$tmp/$backend.noflush.failed"
  [ -e "$tmp/$backend.noflush.failed" ] && head -5 "$tmp/$backend.noflush.failed" "$tmp/$backend.noflush.err"
  check "$backend: the shared chain holds every rule once ($(wc -l <"$tmp/expected_noflush") rules)" \
    cmp -s "$tmp/$backend.noflush.got" "$tmp/expected_noflush"
  cmp -s "$tmp/$backend.noflush.got" "$tmp/expected_noflush" ||
    diff "$tmp/expected_noflush" "$tmp/$backend.noflush.got" | head -10
  check "$backend: every full restore applied" test ! -e "$tmp/$backend.full.failed"
  local match=0
  for p in $(seq 1 $procs); do
    cmp -s "$tmp/$backend.full.got" "$tmp/$backend.alone.$p" && match=$((match + 1))
  done
  check "$backend: the final tables are exactly one of the inputs" test $match = 1
}

run nft
run legacy
[ $fail = 0 ] && echo "ok: concurrency"
exit $fail
