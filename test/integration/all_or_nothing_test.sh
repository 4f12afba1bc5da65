#!/usr/bin/env bash
# --all-or-nothing: every block of the input goes to the kernel as one
# transaction at the end, so a broken block anywhere (one that does not
# parse, one the checks refuse, one the kernel refuses) leaves every table
# as it was, while the same input without the option commits the blocks
# before the broken one, as iptables-nft-restore does. A valid input gives
# the same tables with and without the option.
#   all_or_nothing_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"

cat >"$tmp/pre" <<'EOF'
*filter
:INPUT DROP [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:old - [0:0]
-A INPUT -j old
-A old -s 192.0.2.1/32 -j ACCEPT
COMMIT
*mangle
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A PREROUTING -j MARK --set-xmark 0x7/0xffffffff
COMMIT
EOF
good='*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
COMMIT
*mangle
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A PREROUTING -j MARK --set-xmark 0x1/0xffffffff
COMMIT'

# Loads pre with the upstream tool, then INPUT through COMMAND in the same
# namespace; OUT gets the status, the messages and the tables after.
run() { # OUT INPUT COMMAND...
  local out=$1 input=$2
  shift 2
  unshare -n bash -c '
    out=$1 pre=$2 input=$3
    shift 3
    iptables-nft-restore <"$pre" || exit 9
    "$@" <"$input" >"$out.stdout" 2>"$out.err"
    echo $? >"$out.rc"
    iptables-nft-save | grep -v "^#" >"$out.save"
  ' _ "$out" "$tmp/pre" "$input" "$@"
}
# The tables as pre leaves them, as iptables-nft-save lists them.
run "$tmp/before" /dev/null true
undated_pre() { cat "$tmp/before.save"; }

case_file() { # NAME TEXT
  printf '%s\n' "$2" >"$tmp/$1.rules"
}
# Broken last blocks: a line that does not parse, a check failure (a jump to
# a missing chain) and a rule the kernel refuses.
case_file parse "$good
*filter
-A INPUT -p tcp --dport 99999 -j ACCEPT
COMMIT"
case_file check "$good
*filter
-A INPUT -j nosuch
COMMIT"
case_file kernel "$good
*filter
-A INPUT -j SNAT --to-source 192.0.2.9
COMMIT"
case_file valid "$good"
expect_rc() { case $1 in parse) echo 2 ;; check) echo 2 ;; kernel) echo 4 ;; valid) echo 0 ;; esac; }
expect_line() { case $1 in parse | check | kernel) echo 16 ;; esac; }

for c in parse check kernel valid; do
  run "$tmp/$c.aon" "$tmp/$c.rules" "$fr" --all-or-nothing
  run "$tmp/$c.plain" "$tmp/$c.rules" "$fr"
  run "$tmp/$c.ref" "$tmp/$c.rules" iptables-nft-restore
  check "$c: exit status $(expect_rc $c) with --all-or-nothing" \
    test "$(cat "$tmp/$c.aon.rc")" = "$(expect_rc $c)"
  check "$c: the same exit status without it" \
    test "$(cat "$tmp/$c.plain.rc")" = "$(expect_rc $c)"
  check "$c: without it, the tables iptables-nft-restore leaves" \
    cmp -s "$tmp/$c.plain.save" "$tmp/$c.ref.save"
  if [ "$c" = valid ]; then
    check "$c: with it, the same tables as without" \
      cmp -s "$tmp/$c.aon.save" "$tmp/$c.plain.save"
  else
    check "$c: with it, every table as before" \
      cmp -s "$tmp/$c.aon.save" <(undated_pre)
    check "$c: without it, the earlier blocks were committed" \
      grep -q -- '--dport 22' "$tmp/$c.plain.save"
    check "$c: the message names line $(expect_line $c)" \
      grep -q "line $(expect_line $c)" "$tmp/$c.aon.err"
  fi
done
check "kernel: the message says nothing was changed" \
  grep -q 'nothing was changed' "$tmp/kernel.aon.err"

# Many small --noflush blocks (more than one sendmsg takes as iovecs), the
# kernel refusing block 1700 of 2000: nothing of the 1699 before is there.
for i in $(seq 1 2000); do
  if [ "$i" = 1700 ]; then r="-A old -j SNAT --to-source 192.0.2.9"; else r="-A old -s 10.$((i / 250)).$((i % 250)).1/32 -j ACCEPT"; fi
  printf '*filter\n%s\nCOMMIT\n' "$r"
done >"$tmp/many.rules"
head -n $((3 * 1699)) "$tmp/many.rules" >"$tmp/many_valid.rules"
run "$tmp/many.aon" "$tmp/many.rules" "$fr" --noflush --all-or-nothing
check "2000 blocks, the kernel refusing block 1700: status 4" \
  test "$(cat "$tmp/many.aon.rc")" = 4
check "2000 blocks: the message names line $((3 * 1699 + 2))" \
  grep -q "line $((3 * 1699 + 2))" "$tmp/many.aon.err"
check "2000 blocks: every table as before" \
  cmp -s "$tmp/many.aon.save" <(undated_pre)
run "$tmp/manyv.aon" "$tmp/many_valid.rules" "$fr" --noflush --all-or-nothing
run "$tmp/manyv.ref" "$tmp/many_valid.rules" iptables-nft-restore --noflush
check "1699 valid blocks: status 0" test "$(cat "$tmp/manyv.aon.rc")" = 0
check "1699 valid blocks: the tables iptables-nft-restore --noflush leaves" \
  cmp -s "$tmp/manyv.aon.save" "$tmp/manyv.ref.save"

# --noflush commands that read the kernel's rules: fine for a table no
# earlier block changes, refused (nothing changed) for one that is.
printf '*mangle\n-A PREROUTING -j ACCEPT\nCOMMIT\n*filter\n-D old 1\n-I INPUT 1 -j ACCEPT\nCOMMIT\n' >"$tmp/read_ok.rules"
run "$tmp/read_ok.aon" "$tmp/read_ok.rules" "$fr" --noflush --all-or-nothing
run "$tmp/read_ok.ref" "$tmp/read_ok.rules" iptables-nft-restore --noflush
check "reads of an untouched table: status 0" test "$(cat "$tmp/read_ok.aon.rc")" = 0
check "reads of an untouched table: the tables iptables-nft-restore leaves" \
  cmp -s "$tmp/read_ok.aon.save" "$tmp/read_ok.ref.save"
printf '*filter\n-A old -j DROP\nCOMMIT\n*filter\n-D old 1\nCOMMIT\n' >"$tmp/read_held.rules"
run "$tmp/read_held.aon" "$tmp/read_held.rules" "$fr" --noflush --all-or-nothing
check "a read of a table an earlier block changes: status 2" \
  test "$(cat "$tmp/read_held.aon.rc")" = 2
check "a read of a table an earlier block changes: named at line 5" \
  grep -q 'line 5.*--all-or-nothing: this needs the kernel' "$tmp/read_held.aon.err"
check "a read of a table an earlier block changes: every table as before" \
  cmp -s "$tmp/read_held.aon.save" <(undated_pre)

# ebtables-restore input: a broken last table.
printf '*filter\n:INPUT ACCEPT\n:FORWARD ACCEPT\n:OUTPUT ACCEPT\n-A INPUT -p IPv4 -j DROP\n*nat\n:PREROUTING ACCEPT\n:OUTPUT ACCEPT\n:POSTROUTING ACCEPT\n-A PREROUTING --bogus\n' >"$tmp/bridge.rules"
unshare -n bash -c '
  "$1" --bridge --all-or-nothing <"$2" 2>"$3.err"; echo $? >"$3.rc"
  ebtables-nft-save | grep -v "^#" >"$3.save"
' _ "$fr" "$tmp/bridge.rules" "$tmp/bridge"
check "bridge: a broken last table: status 2" test "$(cat "$tmp/bridge.rc")" = 2
check "bridge: a broken last table: the first is not there" \
  bash -c "! grep -q -- '-j DROP' '$tmp/bridge.save'"

# Options that cannot go with it.
"$fr" --all-or-nothing --legacy </dev/null 2>"$tmp/legacy.err"
check "with --legacy: status 1 (a command-line error)" test $? = 1
check "with --legacy: says why" grep -q 'needs nf_tables' "$tmp/legacy.err"
"$fr" --all-or-nothing --noflush --coalesce 5 </dev/null 2>/dev/null
check "with --coalesce: status 1 (a command-line error)" test $? = 1
[ $fail = 0 ] && echo "ok: --all-or-nothing"
exit $fail
