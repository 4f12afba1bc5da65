#!/usr/bin/env bash
# Command-line behaviour of fastrestore against the real kernel, each check
# in a private network namespace.
#   cli_test.sh FASTRESTORE
set -u
fr=$(realpath "$1")
if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
  echo "SKIP: needs root and network namespaces"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # NAME CONDITION-COMMAND...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else
    echo "FAILED: $name"
    fail=$((fail + 1))
  fi
}

cat > "$tmp/v4.rules" <<'R'
*filter
:INPUT DROP [0:0]
-A INPUT -s 192.0.2.1/32 -j ACCEPT
COMMIT
R
cat > "$tmp/v6.rules" <<'R'
*filter
:INPUT DROP [0:0]
-A INPUT -s 2001:db8::1/128 -j ACCEPT
COMMIT
R

out=$("$fr" --version); rc=$?
check "--version prints the version" test "$rc" = 0 -a "${out#fastrestore v}" != "$out"
out=$("$fr" -h); rc=$?
check "-h prints usage" test "$rc" = 0 -a -n "$(grep -e --noflush <<< "$out")"
"$fr" --bogus < /dev/null 2> "$tmp/err"; rc=$?
check "an unknown option exits 1, as iptables-restore does" test "$rc" = 1
check "an unknown option is named" grep -q -e "--bogus" "$tmp/err"
"$fr" /nonexistent/file 2> "$tmp/err"; rc=$?
check "a missing file exits 1 and is named" test "$rc" = 1 -a -n "$(grep nonexistent "$tmp/err")"

out=$(unshare -n sh -c "'$fr' '$tmp/v4.rules' && iptables-nft-save")
check "a FILE argument is read" grep -q -- "-A INPUT -s 192.0.2.1/32 -j ACCEPT" <<< "$out"

ln -s "$fr" "$tmp/ip6tables-restore"
out=$(unshare -n sh -c "'$tmp/ip6tables-restore' < '$tmp/v6.rules' && ip6tables-nft-save")
check "invoked as ip6tables-restore it reads IPv6" grep -q -- "-A INPUT -s 2001:db8::1/128 -j ACCEPT" <<< "$out"
out=$(unshare -n sh -c "'$fr' -6 < '$tmp/v6.rules' && ip6tables-nft-save")
check "-6 reads IPv6" grep -q -- "2001:db8::1/128" <<< "$out"

out=$(unshare -n sh -c "'$fr' < '$tmp/v4.rules' && '$fr' -v < '$tmp/v4.rules'")
check "-v names each flushed chain" grep -q "^Flushing chain \`INPUT'" <<< "$out"
check "-v lists each added rule" grep -q "^ACCEPT  all opt -- in \* out \*  192.0.2.1  -> 0.0.0.0/0" <<< "$out"

unshare -n sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all '$fr' < '$tmp/v4.rules'" 2> "$tmp/err"; rc=$?
check "without CAP_NET_ADMIN: exit 4" test "$rc" = 4
check "without CAP_NET_ADMIN: one line naming it" test "$(wc -l < "$tmp/err")" = 1 -a -n "$(grep CAP_NET_ADMIN "$tmp/err")"

# A COMMIT is applied when it is read: the first block is in the kernel
# while the second has not arrived yet.
out=$(unshare -n bash -c "
  mkfifo '$tmp/pipe'
  '$fr' < '$tmp/pipe' &
  exec 3> '$tmp/pipe'
  cat '$tmp/v4.rules' >&3
  for i in \$(seq 50); do
    iptables-nft-save | grep -q 192.0.2.1 && break
    sleep 0.1
  done
  iptables-nft-save | grep -c 192.0.2.1
  printf '*filter\n-A INPUT -s 192.0.2.2/32 -j ACCEPT\nCOMMIT\n' >&3
  exec 3>&-
  wait
  iptables-nft-save | grep -c '192.0.2.[12]'
")
check "each COMMIT is applied as it arrives" test "$(echo $out)" = "1 1"

# --stats: one line per COMMIT on stderr, with the block's rules and bytes.
printf '*filter\n-A INPUT -j ACCEPT\n-A INPUT -j DROP\nCOMMIT\n*nat\n-A OUTPUT -j ACCEPT\nCOMMIT\n' > "$tmp/two.rules"
unshare -n "$fr" --stats < "$tmp/two.rules" 2> "$tmp/err" > /dev/null; rc=$?
check "--stats: one line per COMMIT" test "$rc" = 0 -a "$(grep -c '^fastrestore: stats: ' "$tmp/err")" = 2
check "--stats: the rules and phases of a block" grep -q '^fastrestore: stats: \*filter (lines 1-4): 2 rules; read and parse [0-9.]* ms, extensions [0-9.]* ms, batch [0-9.]* ms, kernel [0-9.]* ms, total [0-9.]* ms; [1-9][0-9]* bytes sent; peak RSS [1-9][0-9]* KiB$' "$tmp/err"
unshare -n "$fr" --legacy --stats < "$tmp/two.rules" 2> "$tmp/err" > /dev/null; rc=$?
check "--stats with --legacy" test "$rc" = 0 -a "$(grep -c '^fastrestore: stats: \*nat (lines 5-7): 1 rules' "$tmp/err")" = 1

# --legacy takes the xtables lock as iptables-legacy-restore does: -w N
# gives up after N seconds (status 4), without -w it waits.
export XTABLES_LOCKFILE="$tmp/xtables.lock"
flock "$XTABLES_LOCKFILE" sleep 3 &
sleep 0.3
start=$(date +%s%N)
unshare -n "$fr" --legacy -w 1 < "$tmp/v4.rules" 2> "$tmp/err"; rc=$?
took=$(( ($(date +%s%N) - start) / 1000000 ))
check "--legacy -w 1 on a held lock: exit 4" test "$rc" = 4
check "--legacy -w 1 on a held lock: waits about 1 s" test "$took" -ge 900 -a "$took" -lt 2500
check "--legacy -w 1 on a held lock: iptables' message" grep -q "Stopped waiting after 1s" "$tmp/err"
out=$(unshare -n sh -c "'$fr' --legacy < '$tmp/v4.rules' && iptables-legacy-save")
check "--legacy without -w waits for the lock" grep -q -- "-A INPUT -s 192.0.2.1/32 -j ACCEPT" <<< "$out"
wait

# A kernel without a rule's extension: the refusal names the line and the
# extension (when this kernel lacks ipvs, as these machines do).
if ! grep -qx ipvs /proc/net/ip_tables_matches; then
  printf '*mangle\n-A PREROUTING -j ACCEPT\n-A PREROUTING -m ipvs --ipvs\n-A PREROUTING -j ACCEPT\nCOMMIT\n' > "$tmp/ipvs.rules"
  unshare -n "$fr" --legacy "$tmp/ipvs.rules" 2> "$tmp/err"; rc=$?
  check "--legacy, a missing extension: status 1" test "$rc" = 1
  check "--legacy, a missing extension: named, at its line" \
    grep -q "line 3: kernel refused table mangle: No chain/target/match by that name: match \`ipvs' is not in this kernel" "$tmp/err"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
