#!/usr/bin/env bash
# --coalesce: a stream of one-rule --noflush blocks, grouped into
# transactions, must leave the kernel exactly as the same stream committed
# block by block (fastrestore without --coalesce, and iptables-nft-restore):
# the same exit status, the same message, the same tables. Streams: all
# valid; a block the kernel refuses in the middle; a jump to a missing
# chain in the middle; a block that does not parse in the middle; every
# tenth block refused by the kernel; blocks that need the kernel's rules
# (-D, -I N) among appends; chains made and deleted.
#   coalesce_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"

base='*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:web - [0:0]
-A INPUT -p tcp -m tcp --dport 80 -j web
COMMIT'

block() { printf '*filter\n%s\nCOMMIT\n' "$1"; }
stream_valid() {
  # More blocks than one sendmsg takes iovecs (1024): several groups.
  for i in $(seq 1 1500); do block "-A web -s 10.0.$((i / 250)).$((i % 250))/32 -j ACCEPT"; done
}
stream_kernel_error() { # SNAT in the filter table (the kernel refuses it), block 25
  for i in $(seq 1 40); do
    if [ "$i" = 25 ]; then block "-A web -j SNAT --to-source 192.0.2.1"; else block "-A web -s 10.1.0.$i/32 -j DROP"; fi
  done
}
stream_jump_error() { # a jump to a chain the kernel lacks, in block 25
  for i in $(seq 1 40); do
    if [ "$i" = 25 ]; then block "-A web -j nosuch"; else block "-A web -s 10.4.0.$i/32 -j web2"; fi
    [ "$i" = 1 ] && block "-N web2"
  done
}
stream_parse_error() { # an unknown option in block 30
  for i in $(seq 1 40); do
    if [ "$i" = 30 ]; then block "-A web --bogus"; else block "-A web -s 10.2.0.$i/32 -j DROP"; fi
  done
}
stream_every_tenth() { # every tenth block refused by the kernel (the
  # first of them ends the stream, as in iptables-restore)
  for i in $(seq 1 100); do
    if [ $((i % 10)) = 0 ]; then block "-A web -j DNAT --to-destination 192.0.2.$i"; else block "-A web -s 10.5.0.$i/32 -j ACCEPT"; fi
  done
}
stream_mixed() { # appends, then blocks that read the kernel's rules
  for i in $(seq 1 20); do block "-A web -s 10.3.0.$i/32 -j ACCEPT"; done
  block "-D web -s 10.3.0.5/32 -j ACCEPT"
  block "-I web 3 -s 10.3.1.1/32 -j DROP"
  block "-D web 1"
  for i in $(seq 21 30); do block "-A web -s 10.3.0.$i/32 -j ACCEPT"; done
  block "-N extra"
  block "-A extra -j RETURN"
  block "-A INPUT -j extra"
  block "-F extra"
  block "-D INPUT -j extra"
  block "-X extra"
  block "-N extra"
  for i in $(seq 31 35); do block "-A extra -s 10.3.2.$i/32 -j ACCEPT"; done
}

run() { # OUT STREAM COMMAND...: the state and status after the stream
  local out=$1 stream=$2
  shift 2
  unshare -n bash -c '
    out=$1 stream=$2 base=$3; shift 3
    echo "$base" | iptables-nft-restore || exit 99
    $stream | "$@" > /dev/null 2> "$out.err"
    echo $? > "$out.status"
    iptables-nft-save | grep -v "^#" > "$out.save"
    nft list ruleset > "$out.nft"
  ' _ "$out" "$stream" "$base" "$@"
}
export -f block stream_valid stream_kernel_error stream_jump_error \
  stream_parse_error stream_every_tenth stream_mixed

fail=0
for s in stream_valid stream_kernel_error stream_jump_error stream_parse_error \
  stream_every_tenth stream_mixed; do
  run "$tmp/ref" $s iptables-nft-restore --noflush
  run "$tmp/alone" $s "$fr" --noflush
  run "$tmp/group" $s "$fr" --noflush --coalesce 50 -v
  for f in status save nft; do
    for v in alone group; do
      if ! diff -u "$tmp/ref.$f" "$tmp/$v.$f" > "$tmp/diff"; then
        echo "$s: $f of fastrestore ($v) differs from iptables-nft-restore:"
        cat "$tmp/diff"
        fail=1
      fi
    done
  done
  # The same failure message, with the same line, as without --coalesce.
  if ! diff <(grep -v '^fastrestore: coalesce:' "$tmp/group.err") "$tmp/alone.err" > "$tmp/diff"; then
    echo "$s: the message differs with --coalesce:"
    cat "$tmp/diff"
    fail=1
  fi
  # -v names each block's outcome; the groups really were groups.
  if [ $s = stream_valid ] &&
     ! grep -q '^fastrestore: coalesce: \*filter (lines 1-3): applied, one of [0-9]* blocks in one transaction$' "$tmp/group.err"; then
    echo "$s: no block went in a group:"
    head -3 "$tmp/group.err"
    fail=1
  fi
  if [ $s = stream_kernel_error ] &&
     ! grep -q 'applied alone (its group.s transaction failed)' "$tmp/group.err"; then
    echo "$s: the failed group was not sent again block by block"
    fail=1
  fi
done
[ $fail = 0 ] && echo "ok: coalesced streams"

# A coalesced stream's memory stays flat in its length: 10,000 one-rule
# blocks end within a few MiB of 1,000 blocks' peak (each held block keeps
# only its bytes; what a block leaves to the exit goes when the next one
# begins), with and without --incremental, and far below a batch's room
# for each block held.
peak_kib() { # BLOCKS OPTIONS...
  local n=$1
  shift
  awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++)
    printf "*filter\n-A zixia -s 10.%d.%d.%d/32 -j ACCEPT\nCOMMIT\n",
      int(i / 62500) % 256, int(i / 250) % 250, i % 250 }' >"$tmp/stream"
  # (AddressSanitizer's quarantine keeps freed memory a while: off, so
  # that the peak is what the program holds.)
  local asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:quarantine_size_mb=0:thread_local_quarantine_size_kb=0}
  ASAN_OPTIONS=$asan FASTRESTORE_JOURNAL_DIR=$tmp/journal.$n unshare -n bash -c "
    iptables-nft -N zixia || exit 1
    /usr/bin/time -f %M -o '$tmp/peak' '$fr' $* <'$tmp/stream' || exit 1
    [ \$(iptables-nft-save | grep -c -- '-A zixia') = $n ]" || return 1
  cat "$tmp/peak"
}
flat() { # OPTIONS...
  local small large
  small=$(peak_kib 1000 "$@") && large=$(peak_kib 10000 "$@") || return 1
  echo "  $*: peak $small KiB after 1,000 blocks, $large KiB after 10,000"
  # (Each held block kept its batch's 2 MiB of room before: 2 GiB for a
  # group of a thousand.)
  [ "$large" -le $((small + 4096)) ] && [ "$large" -le 65536 ]
}
# Without --noflush there is nothing to group (each table is replaced in
# a transaction of its own): refused, naming what is missing, and nothing
# is loaded.
refused_alone() {
  unshare -n bash -c "
    printf '*filter\n-A INPUT -j ACCEPT\nCOMMIT\n' |
      '$fr' --coalesce 5 2>'$tmp/alone.err'
    status=\$?
    [ \$status = 1 ] && [ -z \"\$(iptables-nft-save)\" ]" &&
    grep -q -- '--coalesce groups --noflush blocks into transactions; add --noflush' "$tmp/alone.err"
}
check "--coalesce without --noflush is refused" refused_alone
check "a coalesced stream's peak memory stays flat" flat --noflush --coalesce 5
check "an incremental coalesced stream's too" \
  flat --noflush --coalesce 5 --incremental
exit $fail
