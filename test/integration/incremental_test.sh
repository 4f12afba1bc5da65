#!/usr/bin/env bash
# --incremental keeps what stays: rules and base chains that are the same
# before and after keep their handles and counters; with -c a line's
# counters win and a line without any leaves the kept rule's; unchanged
# input sends nothing (the kernel's rules keep their handles, --stats says
# "nothing"); a refused block changes nothing; a table holding a set made
# with nft is replaced (a replacement deletes the set); with --legacy the
# option is accepted and the table replaced whole. With the state journal
# (journal.h): a reload takes the kernel's side from it, counters survive
# as when read, another tool's commit makes it stale, and a directory that
# cannot be written leaves the restore as it was.
#   incremental_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"
export FASTRESTORE_JOURNAL_DIR=$tmp/journal

cat >"$tmp/a" <<'RULES'
*filter
:INPUT DROP [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:web - [0:0]
[10:1000] -A INPUT -i lo -j ACCEPT
[20:2000] -A INPUT -p tcp -m tcp --dport 80 -j web
[30:3000] -A web -s 10.0.0.1/32 -j ACCEPT
[40:4000] -A web -s 10.0.0.2/32 -j ACCEPT
COMMIT
RULES
# b: web's first rule goes, a rule comes before the jump, FORWARD drops.
cat >"$tmp/b" <<'RULES'
*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:web - [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -s 192.0.2.1/32 -j DROP
-A INPUT -p tcp -m tcp --dport 80 -j web
-A web -s 10.0.0.2/32 -j ACCEPT
COMMIT
RULES

counters_of() { iptables-nft-save -c | grep -F -- "$1" | sed 's/ .*//'; }
handles() { nft -a list table ip filter | grep -o 'handle [0-9]*' | tr '\n' ' '; }

kept_counters() {
  unshare -n bash -c "
    '$fr' -c <'$tmp/a' || exit 1
    '$fr' --incremental <'$tmp/b' || exit 1
    [ \"\$(iptables-nft-save -c | grep -c -- '-A INPUT -i lo -j ACCEPT')\" = 1 ] || exit 1
    iptables-nft-save -c" >"$tmp/out" &&
    grep -qxF -- '[10:1000] -A INPUT -i lo -j ACCEPT' "$tmp/out" &&
    grep -qxF -- '[20:2000] -A INPUT -p tcp -m tcp --dport 80 -j web' "$tmp/out" &&
    grep -qxF -- '[40:4000] -A web -s 10.0.0.2/32 -j ACCEPT' "$tmp/out" &&
    grep -qxF -- '[0:0] -A INPUT -s 192.0.2.1/32 -j DROP' "$tmp/out" &&
    grep -qxF -- ':FORWARD DROP [0:0]' "$tmp/out" &&
    ! grep -qF -- '10.0.0.1' "$tmp/out"
}
check "kept rules keep their counters" kept_counters

# -c: the line's counters win; a line without counters keeps the rule's.
given_counters() {
  sed 's/^-A INPUT -i lo/[7:700] -A INPUT -i lo/' "$tmp/b" >"$tmp/b7"
  unshare -n bash -c "
    '$fr' -c <'$tmp/a' || exit 1
    '$fr' -c --incremental <'$tmp/b7' || exit 1
    iptables-nft-save -c" >"$tmp/out" &&
    grep -qxF -- '[7:700] -A INPUT -i lo -j ACCEPT' "$tmp/out" &&
    grep -qxF -- '[40:4000] -A web -s 10.0.0.2/32 -j ACCEPT' "$tmp/out"
}
check "-c: a line's counters win, others stay" given_counters

# ... also when the journal knows the line: a line that gives counters is
# parsed every time (the rule's counters moved since: traffic on lo).
journal_counters() {
  printf '*filter\n:INPUT ACCEPT [0:0]\n:x - [0:0]\n-A INPUT -j x\n-A x -c 5 6 -j ACCEPT\n-A x -s 192.0.2.1/32 -j DROP\nCOMMIT\n' >"$tmp/c1"
  sed 's/192.0.2.1/192.0.2.2/' "$tmp/c1" >"$tmp/c2"
  unshare -n bash -c "
    ip link set lo up
    '$fr' -c --incremental <'$tmp/c1' || exit 1
    for i in 1 2 3; do (echo >/dev/tcp/127.0.0.1/9) 2>/dev/null; done
    iptables-nft-save -c | grep -qxF -- '[5:6] -A x -j ACCEPT' && exit 1
    '$fr' -c --incremental <'$tmp/c2' || exit 1
    iptables-nft-save -c" >"$tmp/out" &&
    grep -qxF -- '[5:6] -A x -j ACCEPT' "$tmp/out" &&
    grep -qxF -- '[0:0] -A x -s 192.0.2.2/32 -j DROP' "$tmp/out"
}
check "-c: a known line's counters win too" journal_counters

# The same input again: nothing sent, every handle as it was.
unchanged() {
  unshare -n bash -c "
    $(declare -f handles)
    '$fr' <'$tmp/b' || exit 1
    before=\$(handles)
    '$fr' --incremental --stats <'$tmp/b' 2>'$tmp/stats' || exit 1
    [ \"\$before\" = \"\$(handles)\" ]" &&
    grep -q 'incremental, nothing: 4 rules kept, 0 added, 0 removed' "$tmp/stats"
}
check "unchanged input sends nothing" unchanged

# A changed block: the kept rules keep their handles.
handles_kept() {
  unshare -n bash -c "
    '$fr' <'$tmp/a' || exit 1
    lo=\$(nft -a list chain ip filter INPUT | grep 'iifname \"lo\"' | grep -o 'handle [0-9]*')
    '$fr' --incremental <'$tmp/b' || exit 1
    [ -n \"\$lo\" ] && nft -a list chain ip filter INPUT | grep 'iifname \"lo\"' | grep -qF \"\$lo\""
}
check "kept rules keep their handles" handles_kept

# A block that fails changes nothing, with the status a full restore has.
refused() {
  printf '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -j nosuch\nCOMMIT\n' >"$tmp/bad"
  unshare -n bash -c "
    '$fr' <'$tmp/a' || exit 1
    before=\$(nft -a list ruleset)
    '$fr' --incremental <'$tmp/bad' 2>'$tmp/err'
    st=\$?
    [ \$st = 2 ] && [ \"\$before\" = \"\$(nft -a list ruleset)\" ]" &&
    grep -q "Chain 'nosuch' does not exist" "$tmp/err"
}
check "a refused block changes nothing" refused

# A set made with nft in the table: a replacement deletes it, so the
# block is sent whole.
nft_set() {
  unshare -n bash -c "
    '$fr' <'$tmp/a' || exit 1
    nft add set ip filter mine '{ type ipv4_addr; }' || exit 1
    '$fr' --incremental --stats <'$tmp/b' 2>'$tmp/stats' || exit 1
    ! nft list sets | grep -q mine" &&
    grep -q 'incremental, replacement' "$tmp/stats"
}
check "a table holding an nft set is replaced" nft_set

# With the journal: the kernel's side from it, counters kept; -c gives a
# kept rule the line's counters, which the journal does not know.
journal_kept() {
  sed 's/^-A INPUT -i lo/[7:700] -A INPUT -i lo/' "$tmp/b" >"$tmp/b7"
  unshare -n bash -c "
    '$fr' -c --incremental <'$tmp/a' || exit 1
    '$fr' --incremental --stats <'$tmp/b' 2>'$tmp/stats' || exit 1
    iptables-nft-save -c >'$tmp/out1'
    '$fr' -c --incremental --stats <'$tmp/b7' 2>'$tmp/stats7' || exit 1
    iptables-nft-save -c" >"$tmp/out" &&
    grep -q 'kernel state from the journal' "$tmp/stats" &&
    grep -q 'kernel state from the journal' "$tmp/stats7" &&
    grep -qxF -- '[10:1000] -A INPUT -i lo -j ACCEPT' "$tmp/out1" &&
    grep -qxF -- '[40:4000] -A web -s 10.0.0.2/32 -j ACCEPT' "$tmp/out1" &&
    grep -qxF -- '[7:700] -A INPUT -i lo -j ACCEPT' "$tmp/out" &&
    grep -qxF -- '[40:4000] -A web -s 10.0.0.2/32 -j ACCEPT' "$tmp/out"
}
check "journal: a reload keeps counters without reading" journal_kept

journal_stale() {
  unshare -n bash -c "
    '$fr' --incremental <'$tmp/a' || exit 1
    iptables-nft -A OUTPUT -j ACCEPT || exit 1
    '$fr' --incremental --stats <'$tmp/b' 2>'$tmp/stats' || exit 1
    iptables-nft-save" >"$tmp/out" &&
    grep -q 'kernel state from reading the table; journal: stale' "$tmp/stats" &&
    ! grep -qF -- '-A OUTPUT' "$tmp/out"
}
check "journal: another tool's commit makes it stale" journal_stale

# The handles of what a reload makes are foretold from the record (which
# is made while the kernel commits). A batch the kernel refused, another
# program's, used a handle without a commit: the record then takes the
# echoed handles, and the next reload deletes the rule by its own handle
# (the lines taken unparsed, the delta sent once: a wrong handle would be
# refused, and the block parsed and planned again from the kernel).
journal_handles() {
  sed 's/^\[[0-9:]*\] //' "$tmp/a" >"$tmp/a0"
  sed 's|^COMMIT|-A web -s 10.0.0.3/32 -j ACCEPT\nCOMMIT|' "$tmp/a0" >"$tmp/a3"
  unshare -n bash -c "
    '$fr' --incremental <'$tmp/a0' || exit 1
    '$fr' --incremental <'$tmp/a3' || exit 1
    '$fr' --incremental <'$tmp/a0' || exit 1
    printf 'add rule ip filter web counter\ndelete rule ip filter web handle 999999\n' |
      nft -f - 2>/dev/null && exit 1
    '$fr' --incremental <'$tmp/a3' || exit 1
    '$fr' --incremental --stats <'$tmp/a0' 2>'$tmp/stats' || exit 1
    iptables-nft-save" >"$tmp/out" &&
    grep -qF 'incremental, changes: 4 rules kept, 0 added, 1 removed, 5 lines unparsed; kernel state from the journal' \
      "$tmp/stats" &&
    ! grep -qF 10.0.0.3 "$tmp/out" &&
    grep -qF -- '-A web -s 10.0.0.2/32 -j ACCEPT' "$tmp/out"
}
check "journal: handles foretold, or echoed after a refused batch" \
  journal_handles

journal_unwritable() {
  FASTRESTORE_JOURNAL_DIR=/proc/no/journal unshare -n bash -c "
    '$fr' --incremental --stats <'$tmp/a' 2>'$tmp/stats' || exit 1
    iptables-nft-save" >"$tmp/out" &&
    grep -q 'journal: not kept: cannot make /proc/no/journal' "$tmp/stats" &&
    grep -qF -- '-A web -s 10.0.0.2/32 -j ACCEPT' "$tmp/out"
}
check "journal: a directory that cannot be written, the restore as before" \
  journal_unwritable

# Rule lines known unchanged from the journal are not parsed again; a line
# that looked a host name up always is, and so is every line once what
# parsing depends on changed (here the plugins' directory).
unparsed() {
  printf '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -i lo -j ACCEPT\n-A INPUT -s localhost -j ACCEPT\n-A INPUT -p tcp --dport 22 -j ACCEPT\nCOMMIT\n' >"$tmp/u"
  mkdir -p "$tmp/plugins"
  cp -a /usr/lib/x86_64-linux-gnu/xtables/. "$tmp/plugins/" 2>/dev/null ||
    cp -a "$(pkg-config --variable=xtlibdir xtables)/." "$tmp/plugins/"
  unshare -n bash -c "
    '$fr' --incremental <'$tmp/u' || exit 1
    '$fr' --incremental --stats <'$tmp/u' 2>'$tmp/stats1' || exit 1
    XTABLES_LIBDIR='$tmp/plugins' '$fr' --incremental --stats <'$tmp/u' 2>'$tmp/stats2' || exit 1
    iptables-nft-save" >"$tmp/out" &&
    grep -q 'nothing: 3 rules kept, 0 added, 0 removed, 2 lines unparsed' "$tmp/stats1" &&
    grep -q 'nothing: 3 rules kept, 0 added, 0 removed, 0 lines unparsed' "$tmp/stats2" &&
    grep -qF -- '-A INPUT -s 127.0.0.1/32 -j ACCEPT' "$tmp/out"
}
check "journal: unchanged lines are not parsed again, host names always" \
  unparsed

# --noflush as kube-proxy writes it: declared chains are state to reach
# (their kept rules keep counters, -X deletes the chains no longer used),
# the chains the block leaves alone keep theirs; after another tool's
# commit, the chains the block leaves are read and the journal is current
# again; unchanged input then sends nothing.
cat >"$tmp/n" <<'RULES'
*filter
:web - [0:0]
:old - [0:0]
-A web -s 10.0.0.2/32 -j ACCEPT
-A web -s 10.0.0.3/32 -j ACCEPT
-X old
COMMIT
RULES
noflush() {
  printf '*filter\n:old - [0:0]\n-A old -j RETURN\nCOMMIT\n' >"$tmp/old"
  unshare -n bash -c "
    '$fr' -c --incremental <'$tmp/a' || exit 1
    '$fr' --noflush --incremental <'$tmp/old' || exit 1
    iptables-nft -A OUTPUT -j ACCEPT || exit 1
    '$fr' --noflush --incremental --stats <'$tmp/n' 2>'$tmp/stats1' || exit 1
    '$fr' --noflush --incremental --stats <'$tmp/n' 2>'$tmp/stats2' || exit 1
    iptables-nft-save -c" >"$tmp/out" &&
    grep -q 'incremental, commands: .*kernel state from reading the chains the block leaves' "$tmp/stats1" &&
    grep -q 'incremental, nothing: 5 rules kept, 0 added, 0 removed.*from the journal' "$tmp/stats2" &&
    grep -qxF -- '[10:1000] -A INPUT -i lo -j ACCEPT' "$tmp/out" &&
    grep -qxF -- '[0:0] -A web -s 10.0.0.3/32 -j ACCEPT' "$tmp/out" &&
    grep -qxF -- '[0:0] -A OUTPUT -j ACCEPT' "$tmp/out" &&
    ! grep -qF -- '10.0.0.1' "$tmp/out" && ! grep -q 'old' "$tmp/out"
}
check "--noflush: declared chains reached, the others kept, then nothing sent" \
  noflush

# --noflush after another tool's commit, the table's chains read: the
# record is kept when the kernel's handles of the block's rules are
# consecutive, rules it deletes again included; not when it makes a chain
# between its rules (the handles of what the block made are not known);
# the next load then reads again and records. A later change then goes
# by the handles recorded.
noflush_remade() {
  printf '*filter\n:web - [0:0]\n:x - [0:0]\n-A x -s 10.0.0.1/32 -j ACCEPT\n-A x -s 10.0.0.2/32 -j ACCEPT\n-F x\n-A x -s 10.0.0.3/32 -j ACCEPT\n:y - [0:0]\n-A y -j RETURN\n-A x -s 10.0.0.4/32 -j ACCEPT\nCOMMIT\n' >"$tmp/r1"
  printf '*filter\n:web - [0:0]\n:x - [0:0]\n:y - [0:0]\n-A x -s 10.0.0.4/32 -j ACCEPT\n-A y -j RETURN\nCOMMIT\n' >"$tmp/r2"
  unshare -n bash -c "
    '$fr' <'$tmp/a' && '$fr' --noflush <'$tmp/r1' && '$fr' --noflush <'$tmp/r2' &&
    iptables-nft-save" >"$tmp/ref" &&
    unshare -n bash -c "
    '$fr' --incremental <'$tmp/a' || exit 1
    nft add table ip other || exit 1
    '$fr' --noflush --incremental --stats <'$tmp/r1' 2>'$tmp/stats1' || exit 1
    '$fr' --noflush --incremental --stats <'$tmp/r1' 2>'$tmp/stats2' || exit 1
    '$fr' --noflush --incremental --stats <'$tmp/r2' 2>'$tmp/stats3' || exit 1
    '$fr' --noflush --incremental --stats <'$tmp/r2' 2>'$tmp/stats4' || exit 1
    iptables-nft-save" >"$tmp/out" &&
    grep -q 'journal: not kept: the kernel.s handles were not consecutive' "$tmp/stats1" &&
    grep -q 'reading the chains the block leaves; journal: no record of this table' "$tmp/stats2" &&
    grep -q 'incremental, changes: 4 rules kept, 0 added, 1 removed.*from the journal' "$tmp/stats3" &&
    grep -q 'incremental, nothing: .*from the journal' "$tmp/stats4" &&
    diff -u <(grep -v '^#' "$tmp/ref") <(grep -v '^#' "$tmp/out")
}
check "--noflush after another tool's commit: the chains read, then recorded" \
  noflush_remade

noflush_kept() {
  unshare -n bash -c "
    '$fr' -c --incremental <'$tmp/a' || exit 1
    '$fr' --noflush --incremental --stats <'$tmp/n' 2>'$tmp/stats' || exit 1
    iptables-nft-save -c" >"$tmp/out" &&
    grep -q 'incremental, changes: 3 rules kept, 1 added, 1 removed.*from the journal' "$tmp/stats" &&
    grep -qxF -- '[40:4000] -A web -s 10.0.0.2/32 -j ACCEPT' "$tmp/out" &&
    grep -qxF -- '[20:2000] -A INPUT -p tcp -m tcp --dport 80 -j web' "$tmp/out"
}
check "--noflush: kept rules of declared chains keep their counters" noflush_kept

# --noflush with the journal: rule lines it knows, and declarations of
# chains it holds, are not parsed again; a block that also deletes or
# inserts by number (planned from the kernel's rules) is parsed whole,
# and ends as without --incremental.
noflush_unparsed() {
  printf '*filter\n:LOG - [0:0]\n:x - [0:0]\n-A LOG -j DROP\n-A x -s 10.0.0.1/32 -j ACCEPT\n-A x -s 10.0.0.2/32 -j ACCEPT\n-A x -s 10.0.0.3/32 -j LOG\nCOMMIT\n' >"$tmp/u1"
  # The changed line, parsed, jumps to the chain LOG, whose declaration
  # was not parsed (not to the LOG target).
  sed 's/10.0.0.3/10.0.0.4/' "$tmp/u1" >"$tmp/u2"
  sed 's/^COMMIT/-D x 2\n-I x 2 -s 10.0.0.9\/32 -j DROP\n-D x -s 10.0.0.1\/32 -j ACCEPT\nCOMMIT/' "$tmp/u1" >"$tmp/u3"
  unshare -n bash -c "
    '$fr' --noflush <'$tmp/u1' && '$fr' --noflush <'$tmp/u3' && iptables-nft-save" >"$tmp/ref" &&
    unshare -n bash -c "
    '$fr' --noflush --incremental <'$tmp/u1' || exit 1
    '$fr' --noflush --incremental --stats <'$tmp/u2' 2>'$tmp/stats1' || exit 1
    nft list chain ip filter x >'$tmp/nft_x' || exit 1
    '$fr' --noflush --incremental <'$tmp/u1' || exit 1
    '$fr' --noflush --incremental --stats <'$tmp/u3' 2>'$tmp/stats2' || exit 1
    iptables-nft-save" >"$tmp/out" &&
    grep -q 'incremental, changes: 3 rules kept, 1 added, 1 removed, 5 lines unparsed; kernel state from the journal' "$tmp/stats1" &&
    grep -q 'ip saddr 10.0.0.4 counter .*jump LOG' "$tmp/nft_x" &&
    grep -q ', 0 lines unparsed' "$tmp/stats2" &&
    diff -u <(grep -v '^#' "$tmp/ref") <(grep -v '^#' "$tmp/out")
}
check "--noflush: known lines unparsed, numbered commands parse the block" \
  noflush_unparsed

# -v with --incremental: iptables-nft-restore -v's lines, then the way the
# block went and each chain changed. (iptables-nft-restore -v keeps a base
# chain whose policy is DROP where a replacement deletes it: such a table
# is sent as it sends it.)
verbose() {
  sed 's/ DROP \[/ ACCEPT [/' "$tmp/a" >"$tmp/va"
  sed 's/ DROP \[/ ACCEPT [/' "$tmp/b" >"$tmp/vb"
  unshare -n bash -c "
    iptables-nft-restore <'$tmp/a' && iptables-nft-restore -v <'$tmp/b'" >"$tmp/ref_drop" &&
    unshare -n bash -c "
    '$fr' --incremental <'$tmp/a' && '$fr' --incremental -v <'$tmp/b'" >"$tmp/out_drop" &&
    diff -u "$tmp/ref_drop" "$tmp/out_drop" &&
    unshare -n bash -c "
    iptables-nft-restore <'$tmp/va' && iptables-nft-restore -v <'$tmp/vb'" >"$tmp/ref" &&
    unshare -n bash -c "
    '$fr' --incremental <'$tmp/va' && '$fr' --incremental -v <'$tmp/vb'" >"$tmp/out" &&
    grep -v '^Incremental\|^  ' "$tmp/out" | diff -u "$tmp/ref" - &&
    grep -qxF "Incremental \`filter': changes, kernel state from the journal: 3 rules kept, 1 added, 1 removed" "$tmp/out" &&
    grep -qxF "  chain \`INPUT': 2 kept, 1 added, 0 removed" "$tmp/out"
}
check "-v: iptables' lines, then what the block kept, added and removed" verbose

# A block that is, line for line, the one that made the table (comments
# aside) is known by its hash: nothing is planned, sent or recorded again,
# and the lines the journal knows go unparsed (the base chains' declarations
# are parsed); another spelling is parsed where the journal does not know
# it, and its hash recorded (the record rewritten, though the table stays);
# --noflush commands that would change the table again (an append to a
# chain they do not declare) are always carried out.
whole_block() {
  record() { cat "$FASTRESTORE_JOURNAL_DIR"/*.table | md5sum; }
  sed 's/^-A web/# web\n-A web/' "$tmp/b" >"$tmp/b_comment"
  sed 's/^-A INPUT -i lo/-A INPUT --in-interface lo/' "$tmp/b" >"$tmp/b_spelt"
  printf '*filter\n-A INPUT -s 192.0.2.9/32 -j DROP\nCOMMIT\n' >"$tmp/append"
  unshare -n bash -c "
    $(declare -f record)
    '$fr' --incremental <'$tmp/b' || exit 1
    record >'$tmp/r0'
    '$fr' --incremental --stats <'$tmp/b' 2>'$tmp/s1' || exit 1
    '$fr' --incremental --stats <'$tmp/b_comment' 2>'$tmp/s2' || exit 1
    record >'$tmp/r2'
    '$fr' --incremental --stats <'$tmp/b_spelt' 2>'$tmp/s3' || exit 1
    record >'$tmp/r3'
    '$fr' --incremental --stats <'$tmp/b_spelt' 2>'$tmp/s5' || exit 1
    record >'$tmp/r5'
    '$fr' --noflush --incremental <'$tmp/append' || exit 1
    '$fr' --noflush --incremental --stats <'$tmp/append' 2>'$tmp/s4' || exit 1
    iptables-nft-save" >"$tmp/out" &&
    grep -q 'nothing: 4 rules kept, 0 added, 0 removed, 5 lines unparsed' "$tmp/s1" &&
    grep -q 'nothing: 4 rules kept, 0 added, 0 removed, 5 lines unparsed' "$tmp/s2" &&
    grep -q 'nothing: 4 rules kept, 0 added, 0 removed, 4 lines unparsed' "$tmp/s3" &&
    grep -q 'nothing: 4 rules kept, 0 added, 0 removed, 5 lines unparsed' "$tmp/s5" &&
    cmp -s "$tmp/r0" "$tmp/r2" && ! cmp -s "$tmp/r2" "$tmp/r3" &&
    cmp -s "$tmp/r3" "$tmp/r5" &&
    grep -q 'incremental, changes: 5 rules kept, 1 added' "$tmp/s4" &&
    [ "$(grep -c -- '-A INPUT -s 192.0.2.9/32 -j DROP' "$tmp/out")" = 2 ]
}
check "journal: the block that made the table is known by its hash" whole_block

# A base chain's policy declared, then -Z in the same block: the delta's
# chain message is -Z's (counters only), and the policy declared still
# reaches the kernel, with and without --noflush.
zero_after_policy() {
  printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n-A INPUT -i lo -j ACCEPT\nCOMMIT\n' >"$tmp/open"
  printf '*filter\n:INPUT DROP [0:0]\n:FORWARD ACCEPT [0:0]\n-A INPUT -i lo -j ACCEPT\n-A INPUT -s 192.0.2.7 -j ACCEPT\n-Z\nCOMMIT\n' >"$tmp/zero"
  unshare -n bash -c "
    '$fr' --incremental <'$tmp/open' || exit 1
    '$fr' --incremental <'$tmp/zero' || exit 1
    iptables-nft-save -t filter | grep '^:INPUT'
    '$fr' --incremental <'$tmp/open' || exit 1
    '$fr' --incremental --noflush <'$tmp/zero' || exit 1
    iptables-nft-save -t filter | grep '^:INPUT'" >"$tmp/out" &&
    [ "$(grep -c '^:INPUT DROP' "$tmp/out")" = 2 ]
}
check "-Z after a declared policy: the policy stays" zero_after_policy

# Changes the kernel refuses (a rule it refuses, a chain deleted that the
# failed transaction leaves busy): the block is sent whole, and the
# messages are those of a full restore.
refused_changes() {
  printf '*filter\n:INPUT ACCEPT [0:0]\n:keep - [0:0]\n-A INPUT -j keep\nCOMMIT\n' >"$tmp/keep"
  printf '*filter\n-A INPUT -j ACCEPT\n-A INPUT -j SNAT --to-source 1.2.3.4\nCOMMIT\n' >"$tmp/snat"
  unshare -n bash -c "
    '$fr' --incremental <'$tmp/keep' || exit 1
    before=\$(nft -a list ruleset)
    '$fr' --incremental <'$tmp/snat' 2>'$tmp/err_inc'
    [ \$? = 4 ] && [ \"\$before\" = \"\$(nft -a list ruleset)\" ] || exit 1
    '$fr' <'$tmp/snat' 2>'$tmp/err_full'
    [ \$? = 4 ]" && [ -s "$tmp/err_full" ] &&
    cmp -s "$tmp/err_inc" "$tmp/err_full"
}
check "changes the kernel refuses: a full restore's messages" refused_changes

legacy() {
  unshare -n bash -c "
    '$fr' --legacy -c <'$tmp/a' || exit 1
    '$fr' --legacy --incremental <'$tmp/b' || exit 1
    iptables-legacy-save -c" >"$tmp/out" &&
    # A whole replacement: no counter survives.
    grep -qxF -- '[0:0] -A INPUT -i lo -j ACCEPT' "$tmp/out" &&
    grep -qxF -- '[0:0] -A INPUT -s 192.0.2.1/32 -j DROP' "$tmp/out"
}
check "--legacy: accepted, the table replaced" legacy

exit $fail
