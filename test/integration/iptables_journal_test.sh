#!/usr/bin/env bash
# The iptables command line and the journal (issue 40, item 3): where a
# table's record is current (loaded with --incremental), a command finds
# its chain's rules in the record, without asking the kernel for any rule
# (strace sees no NFT_MSG_GETRULE), and a command that changes the table
# keeps the record current: the next --incremental load is served from
# the journal and converges (a rule a command added is gone again); -E
# forgets it (and reads no rule either way). Without a current record
# nothing is read or written to make one.
#   iptables_journal_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"
{
  echo "*filter"
  echo ":INPUT ACCEPT [0:0]"
  echo ":FORWARD ACCEPT [0:0]"
  echo ":OUTPUT ACCEPT [0:0]"
  echo ":small - [0:0]"
  for i in $(seq 1 300); do
    echo "-A INPUT -s 10.0.$((i / 250)).$((i % 250))/32 -p tcp -m tcp --dport $i -j ACCEPT"
  done
  echo "-A INPUT -j small"
  echo "-A small -s 192.0.2.1/32 -j DROP"
  echo "-A small -s 192.0.2.2/32 -j DROP"
  echo "COMMIT"
} > "$tmp/T"
cat > "$tmp/run.sh" <<'SH'
set -u
fr=$1 T=$2 out=$3
mkdir -p "$out"
export FASTRESTORE_JOURNAL_DIR=$out/journal
ipt() { "$fr" iptables "$@"; }
# What the netlink requests of a command ask for (message types).
asks() {
  # (LeakSanitizer cannot run under ptrace: off for a sanitizer build.)
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    strace -f -e trace=sendto,sendmsg -o "$out/strace" "$fr" iptables "$@"
  local rc=$?
  grep -o "NFT_MSG_[A-Z]*" "$out/strace" | sort -u | tr '\n' ' '
  return $rc
}
served() { # the next load's --stats says the journal served it
  "$fr" --incremental --stats < "$T" 2> "$out/stats"
  grep -q "kernel state from the journal" "$out/stats"
}
# No record: a command reads and writes no journal file.
ipt -N before
if ls "$out/journal" 2> /dev/null | grep -q "\.table$"; then
  echo "record made without a load" >> "$out/errors"
fi
ipt -X before
"$fr" --incremental < "$T"
# -C on the big chain and on the small one: no rule asked of the kernel.
r=$(asks -C INPUT -s 10.0.0.1/32 -p tcp -m tcp --dport 1 -j ACCEPT)
[ $? = 0 ] || echo "-C INPUT failed" >> "$out/errors"
case "$r" in *GETRULE*) echo "-C INPUT read rules: $r" >> "$out/errors" ;; esac
r=$(asks -C small -s 192.0.2.1/32 -j DROP)
case "$r" in *GETRULE*) echo "-C small read rules: $r" >> "$out/errors" ;; esac
# (A rule the record lacks is looked for in the chain read: the record
# keys a rule by the bytes that were sent, and a rule iptables takes for
# the same may have been sent otherwise.)
ipt -C small -s 192.0.2.9/32 -j DROP 2> /dev/null
[ $? = 1 ] || echo "-C of a missing rule did not fail" >> "$out/errors"
# -D by rule and by number from the record.
r=$(asks -D small -s 192.0.2.2/32 -j DROP)
case "$r" in *GETRULE*) echo "-D read rules: $r" >> "$out/errors" ;; esac
served || echo "not served after -D" >> "$out/errors"
# The issue's test: a rule added by a command, gone after the load.
ipt -A small -s 192.0.2.3/32 -j DROP
ipt -C small -s 192.0.2.3/32 -j DROP || echo "-A not found by -C" >> "$out/errors"
served || echo "not served after -A" >> "$out/errors"
grep -q "1 removed" "$out/stats" || echo "-A's rule not removed: $(cat "$out/stats")" >> "$out/errors"
ipt -C small -s 192.0.2.3/32 -j DROP 2> /dev/null &&
  echo "-A's rule still there after the load" >> "$out/errors"
# Every kind of change, each followed by a load served from the journal
# (which puts the file's table back).
for cmd in "-I small 1 -j ACCEPT" "-R small 1 -j RETURN" "-D INPUT 300" \
  "-Z small 1" "-N extra" "-F small" "-P FORWARD DROP" \
  "-A INPUT -p udp -m multiport --dports 53,123 -j ACCEPT" "-Z" \
  "-I INPUT 2 -m comment --comment x -j LOG"; do
  ipt $cmd || echo "$cmd failed" >> "$out/errors"
  served || echo "not served after $cmd: $(cat "$out/stats")" >> "$out/errors"
done
# -E forgets the record (the rules that jump to the chain change their
# keys with its name): the next load reads the table, and converges. -E
# asks the kernel for the two names alone, with a record and without, and
# for no rule.
r=$(asks -E small other)
case "$r" in *GETRULE*) echo "-E read rules: $r" >> "$out/errors" ;; esac
r=$(asks -E other small2)
case "$r" in *GETRULE*) echo "-E without a record read rules: $r" >> "$out/errors" ;; esac
ipt -L small2 -n > /dev/null || echo "-E did not rename" >> "$out/errors"
"$fr" --incremental < "$T"
iptables-nft-save | grep -v "^#" > "$out/save"
SH
unshare -n bash "$tmp/run.sh" "$fr" "$tmp/T" "$tmp/fr"
unshare -n bash -c 'iptables-nft-restore < "$1"; iptables-nft-save | grep -v "^#" > "$2"' _ "$tmp/T" "$tmp/ref.save"
check "commands use the record and keep it current" \
  test ! -s "$tmp/fr/errors"
[ -s "$tmp/fr/errors" ] && cat "$tmp/fr/errors"
check "the last load converges to the file" \
  diff -u "$tmp/ref.save" "$tmp/fr/save"
exit $fail
