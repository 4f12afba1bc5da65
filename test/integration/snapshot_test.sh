#!/usr/bin/env bash
# Binary snapshots against the real kernel, each part in its own private
# network namespace: load a ruleset with the upstream tool, `fastrestore
# save --binary`, empty the kernel, `fastrestore commit`, and compare what
# the upstream save tools and `nft list ruleset` print with the original.
#   snapshot_test.sh FASTRESTORE PART
# PART: cases4 cases6 rich bridge counters table legacy4 legacy6 bad
set -u
fr=$(realpath "$1")
part=$2
here=$(cd "$(dirname "$0")" && pwd)
cases=$here/../cases/restore
patch=$here/snapshot_patch.py
if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
  echo "SKIP: needs root and network namespaces"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export fr cases patch tmp
fail=0
pass=0
skipped=0

# check NAME: runs the rest of the arguments; counts the result.
check() {
  local name=$1
  shift
  "$@" > "$tmp/out" 2>&1
  local rc=$?
  if [ $rc = 0 ]; then
    pass=$((pass + 1))
  elif [ $rc = 77 ]; then
    skipped=$((skipped + 1))
  else
    fail=$((fail + 1))
    echo "FAILED: $part/$name"
    sed 's/^/  /' "$tmp/out" | head -40
  fi
}

# The state the comparisons look at (set with STATE="..." per part).
state_nft() { # FAMILY (4, 6)
  local v=""
  [ "$1" = 6 ] && v=6
  ip${v}tables-nft-save -c 2>/dev/null | grep -v '^#'
  nft list ruleset | sed 's/ expires [0-9a-z]*//'
}
state_bridge() {
  for t in filter nat broute; do ebtables-nft-save -c -t $t 2>/dev/null; done |
    grep -v '^#'
  nft list ruleset
}
state_legacy() { # FAMILY
  local v=""
  [ "$1" = 6 ] && v=6
  ip${v}tables-legacy-save -c | grep -v '^#'
}
export -f state_nft state_bridge state_legacy

# roundtrip LOAD STATE SAVE-ARGS EMPTY: in a fresh namespace, run LOAD,
# record STATE, save with SAVE-ARGS, run EMPTY, commit, compare STATE.
roundtrip() {
  unshare -n bash -c '
    set -u
    load=$1 state=$2 args=$3 empty=$4
    eval "$load" > /dev/null 2>&1
    eval "$state" > "$tmp/before"
    $fr save $args --binary "$tmp/snap" 2> "$tmp/save.err" ||
      { cat "$tmp/save.err"; exit 1; }
    eval "$empty" > /dev/null 2>&1
    eval "$state" > "$tmp/empty"
    # A case that loads nothing (it needs a pre file) proves nothing.
    cmp -s "$tmp/before" "$tmp/empty" && exit 77
    commit_args=$(echo " $args " | sed -e "s/ -c / /" -e "s/ -T [^ ]* / /")
    $fr commit $commit_args "$tmp/snap" || exit 1
    eval "$state" > "$tmp/after"
    diff -u "$tmp/before" "$tmp/after"
  ' _ "$1" "$2" "$3" "$4"
}

# Every integration case of the family, loaded by the upstream tool.
family_cases() { # FAMILY
  for f in "$cases"/*_0.rules; do
    if grep -q '^# family: 6' "$f"; then
      [ "$1" = 6 ] && echo "$f"
    else
      [ "$1" = 4 ] && echo "$f"
    fi
  done
}

case $part in
cases4 | cases6)
  fam=${part#cases}
  v=""
  [ "$fam" = 6 ] && v=6
  for f in $(family_cases "$fam"); do
    args=$(sed -n 's/^# args: *//p' "$f" | head -n1 | sed 's/-[nT] *[a-z]*//g')
    check "$(basename "$f")" roundtrip \
      "ip${v}tables-nft-restore -c < $f" "state_nft $fam" "-$fam -c" \
      "nft flush ruleset"
  done
  ;;
rich)
  # Sets, maps, verdict maps, intervals, concatenations, named objects,
  # anonymous sets, timeouts: a ruleset that nft, not iptables, wrote.
  cat > "$tmp/rich.nft" <<'EOF'
table ip fw {
  counter c1 { packets 5 bytes 500 }
  quota q1 { over 100 mbytes }
  set blocked { type ipv4_addr; flags interval; elements = { 10.0.0.0/8, 192.168.1.1 } }
  set tmp { type ipv4_addr; flags timeout; timeout 1h; }
  map ports { type inet_service : verdict; elements = { 22 : accept, 80 : jump web } }
  map marks { type ipv4_addr . inet_service : mark; elements = { 1.2.3.4 . 80 : 0x10 } }
  chain web {
    counter accept
  }
  chain input {
    type filter hook input priority 0; policy drop;
    ip saddr @blocked drop
    tcp dport vmap @ports
    ip saddr { 1.1.1.1, 2.2.2.2 } counter name c1 accept
    meta mark set ip saddr . tcp dport map @marks
    quota name q1 drop
    tcp dport { 1000-2000, 3000 } log prefix "x " accept
    ct state established,related accept
    iifname "lo" accept
  }
  chain out {
    type filter hook output priority 10; policy accept;
    counter
  }
}
table ip other {
  chain c {
    type filter hook forward priority 5; policy accept;
    ip daddr 10.9.9.9 drop
  }
}
EOF
  check rich roundtrip \
    "nft -f $tmp/rich.nft && nft add element ip fw tmp { 5.5.5.5 timeout 30m }" \
    "state_nft 4" "-4 -c" "nft flush ruleset"
  ;;
bridge)
  load='ebtables-nft -N foo
    ebtables-nft -A FORWARD -p IPv4 --ip-proto tcp --ip-dport 22 -j ACCEPT
    ebtables-nft -A FORWARD -p IPv6 -j foo
    ebtables-nft -A foo --among-dst 00:11:22:33:44:55,00:11:22:33:44:66 -j DROP
    ebtables-nft -A INPUT -i eth0 --log-prefix x --log -j ACCEPT
    ebtables-nft -A INPUT -p ARP --arp-op Request -c 3 300 -j ACCEPT
    ebtables-nft -P FORWARD DROP
    ebtables-nft -t nat -A PREROUTING -p ARP --arp-op Request -j ACCEPT
    ebtables-nft -t nat -A POSTROUTING -s 00:11:22:33:44:55 -j snat --to-source 00:11:22:33:44:77'
  check bridge roundtrip "$load" state_bridge "--bridge -c" "nft flush ruleset"
  ;;
counters)
  # With -c the counters come back; without, every counter is zero.
  check with-c roundtrip "iptables-nft-restore -c < $cases/counters_0.rules" \
    "state_nft 4" "-c" "nft flush ruleset"
  check without-c unshare -n bash -c '
    iptables-nft-restore -c < "$cases/counters_0.rules"
    iptables-nft-save -c | grep -v "^#" |
      sed "s/\[[0-9]*:[0-9]*\]/[0:0]/g" > "$tmp/want"
    grep -q "\[0:0\] -A" "$tmp/want" || exit 1
    $fr save --binary "$tmp/snap" 2>/dev/null || exit 1
    nft flush ruleset
    $fr commit "$tmp/snap" || exit 1
    iptables-nft-save -c | grep -v "^#" | diff -u "$tmp/want" -'
  ;;
table)
  # -T saves one table; the commit replaces that table and no other.
  check one-table unshare -n bash -c '
    iptables-nft-restore < "$cases/all_tables_0.rules"
    $fr save -T filter --binary "$tmp/snap" 2>/dev/null || exit 1
    iptables-nft-save -t filter | grep -v "^#" > "$tmp/filter"
    iptables-nft -F INPUT
    iptables-nft -t nat -A OUTPUT -j ACCEPT
    iptables-nft-save -t nat | grep -v "^#" > "$tmp/nat"
    $fr commit "$tmp/snap" || exit 1
    iptables-nft-save -t filter | grep -v "^#" | diff -u "$tmp/filter" - &&
    iptables-nft-save -t nat | grep -v "^#" | diff -u "$tmp/nat" -'
  # "-" is standard input: a pipe (read whole) and a redirected file
  # (mapped) commit as the file itself does.
  check stdin unshare -n bash -c '
    iptables-nft-restore < "$cases/all_tables_0.rules"
    iptables-nft-save | grep -v "^#" > "$tmp/all"
    $fr save --binary "$tmp/snap" 2>/dev/null || exit 1
    nft flush ruleset
    cat "$tmp/snap" | $fr commit - || exit 1
    iptables-nft-save | grep -v "^#" | diff -u "$tmp/all" - || exit 1
    nft flush ruleset
    $fr commit - < "$tmp/snap" || exit 1
    iptables-nft-save | grep -v "^#" | diff -u "$tmp/all" -'
  check missing-table unshare -n bash -c '
    $fr save -T nosuch --binary "$tmp/none" 2> "$tmp/err"; rc=$?
    [ $rc = 1 ] && grep -q "no ipv4 table .nosuch." "$tmp/err" &&
      [ -z "$(ls -A "$tmp" | grep none)" ] ||
      { echo "rc=$rc"; cat "$tmp/err"; ls -a "$tmp"; exit 1; }'
  ;;
legacy4 | legacy6)
  fam=${part#legacy}
  v=""
  [ "$fam" = 6 ] && v=6
  # Empties the tables the case instantiated (x_tables makes a table
  # appear when it is first read).
  empty="for t in \$(cat /proc/net/ip${v}_tables_names); do printf \"*\$t\nCOMMIT\n\"; done | ip${v}tables-legacy-restore"
  for f in $(family_cases "$fam"); do
    check "$(basename "$f")" roundtrip \
      "ip${v}tables-legacy-restore -c < $f" "state_legacy $fam" \
      "-$fam --legacy -c" "$empty"
  done
  ;;
bad)
  # Each bad snapshot: exit 1, a one-line reason, the kernel unchanged.
  # bad NAME EXPECTED-TEXT COMMIT-ARGS... (the snapshot path is in them)
  bad() {
    local name=$1 want=$2
    shift 2
    check "$name" unshare -n bash -c '
      want=$1; shift
      iptables-nft-restore < "$cases/basic_0.rules"
      iptables-legacy-restore < "$cases/basic_0.rules"
      # x_tables makes a table appear when it is first read: read them all
      # first, so that only a real change shows.
      for t in filter nat mangle raw security; do
        iptables-legacy -t $t -S > /dev/null
      done
      before=$(state_nft 4; state_legacy 4)
      $fr commit "$@" > "$tmp/stdout" 2> "$tmp/err"; rc=$?
      after=$(state_nft 4; state_legacy 4)
      [ $rc = 1 ] || { echo "exit $rc, want 1"; cat "$tmp/err"; exit 1; }
      [ "$(wc -l < "$tmp/err")" = 1 ] || { echo "not one line:"; cat "$tmp/err"; exit 1; }
      grep -q -- "$want" "$tmp/err" || { echo "want: $want"; cat "$tmp/err"; exit 1; }
      [ "$before" = "$after" ] || { echo "the kernel changed"; exit 1; }
    ' _ "$want" "$@"
  }
  unshare -n bash -c '
    iptables-nft-restore < "$cases/extensions_0.rules"
    $fr save --binary "$tmp/good" 2>/dev/null
    iptables-legacy-restore < "$cases/all_tables_0.rules"
    iptables-legacy -t security -A INPUT -m comment --comment zz -j ACCEPT
    $fr save --legacy --binary "$tmp/good-legacy" 2>/dev/null'
  printf 'not a snapshot at all, just text\n' > "$tmp/magic"
  : > "$tmp/empty"
  mkdir "$tmp/dir"
  head -c 1000 "$tmp/good" > "$tmp/truncated"
  head -c 50 "$tmp/good" > "$tmp/short-header"
  python3 "$patch" "$tmp/good" "$tmp/version" version 99
  python3 "$patch" "$tmp/good" "$tmp/flipped" flip
  python3 "$patch" "$tmp/good" "$tmp/noext" rename comment commenx
  python3 "$patch" "$tmp/good-legacy" "$tmp/noext-legacy" rename comment commenx
  bad wrong-magic "wrong magic" "$tmp/magic"
  bad empty-file "empty file" "$tmp/empty"
  bad directory "is a directory" "$tmp/dir"
  bad missing-file "cannot open" "$tmp/nosuch"
  bad truncated "truncated snapshot" "$tmp/truncated"
  bad short-header "truncated snapshot" "$tmp/short-header"
  bad version "unsupported snapshot format version 99" "$tmp/version"
  bad checksum "checksum mismatch" "$tmp/flipped"
  bad family "holds ipv4 tables, not ipv6" -6 "$tmp/good"
  bad backend "is of nf_tables, not legacy" --legacy "$tmp/good"
  bad kernel-refuses "kernel refused the snapshot" "$tmp/noext"
  bad kernel-refuses-legacy "kernel refused table" "$tmp/noext-legacy"
  # --test checks and describes, and sends nothing.
  check test-mode unshare -n bash -c '
    $fr commit --test "$tmp/good" > "$tmp/desc" || exit 1
    grep -q "would replace 4 tables in one transaction" "$tmp/desc" &&
      grep -q "table filter: 3 chains" "$tmp/desc" &&
      [ -z "$(nft list ruleset)" ] || { cat "$tmp/desc"; exit 1; }'
  ;;
*)
  echo "unknown part $part"
  exit 2
  ;;
esac
echo "$pass passed, $fail failed ($skipped cases load nothing to save)"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
