#!/usr/bin/env bash
# --optimize against the literal rules, by the packets they let in: random
# rule files with runs (optimize_probe.py) loaded literally into one
# namespace and with --optimize into another, the same probe packets
# (addresses in and out of every run, to every destination, each protocol)
# sent to both over veth pairs from a third, and the probes each let in
# compared; IPv4 and IPv6, nf_tables and legacy. Then: a commit the kernel
# refuses leaves no set behind; a run killed at random moments leaves
# sets the next --optimize run destroys; sets of the user's are never
# touched; --incremental reloads converge and keep what stays; concurrent
# loads need the lock; save --expand prints the literal rules again.
# Traffic flows only between the namespaces the test makes (the
# receivers own every destination probed and have no route for the
# probes' sources).
#   optimize_test.sh FASTRESTORE [SEEDS]
# (OPTIMIZE_WALK_STEPS sets the length of the --incremental walk: 12.)
set -u
. "$(dirname "$0")/common.sh"
seeds=${2:-2}
probe=$(realpath "$(dirname "$0")/optimize_probe.py")
if ! command -v ipset >/dev/null; then
  echo "SKIP: no ipset"
  exit 77
fi
ns=fropt$$
S=$ns-s R1=$ns-r1 R2=$ns-r2
cleanup() {
  for n in $S $R1 $R2; do ip netns del "$n" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT

# One receiver: its end of a veth from S, up, owning the probes'
# destinations, taking packets from any source.
receiver() { # NS IFACE PEER FAMILY
  local n=$1 dev=$2 peer=$3 family=$4
  ip netns add "$n"
  ip -n "$S" link add "$peer" type veth peer name "$dev" netns "$n"
  ip -n "$S" link set "$peer" up
  ip -n "$n" link set lo up
  ip -n "$n" link set "$dev" up
  ip netns exec "$n" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
    net.ipv4.conf."$dev".rp_filter=0
  sed -n '/^dst$/,$p' "$tmp/p" | tail -n +2 | while read -r d; do
    if [ "$family" = 6 ]; then
      echo "address add $d/128 dev $dev nodad"
    else
      echo "address add $d/32 dev $dev"
    fi
  done | ip -n "$n" -batch -
}

round() { # FAMILY BACKEND SEED
  local family=$1 backend=$2 seed=$3 flags=""
  [ "$family" = 6 ] && flags="-6"
  [ "$backend" = legacy ] && flags="$flags --legacy"
  python3 "$probe" rules "$family" "$seed" "$tmp/r" "$tmp/p" || return 1
  ip netns add "$S"
  receiver "$R1" b1 a1 "$family" && receiver "$R2" b2 a2 "$family" || return 1
  ip netns exec "$R1" "$fr" $flags <"$tmp/r" || return 1
  ip netns exec "$R2" "$fr" $flags --optimize --stats <"$tmp/r" 2>"$tmp/stats" ||
    { cat "$tmp/stats"; return 1; }
  # The runs were merged: the optimized chain is shorter and uses sets.
  if ! grep -q "optimize: [1-9][0-9]* rules merged into [1-9]" "$tmp/stats"; then
    echo "nothing merged:"; cat "$tmp/stats"; return 1
  fi
  rm -f "$tmp"/got*
  ip netns exec "$R1" python3 "$probe" receive "$family" 30 "$tmp/got1" &
  ip netns exec "$R2" python3 "$probe" receive "$family" 30 "$tmp/got2" &
  for i in $(seq 100); do
    [ -e "$tmp/got1.ready" ] && [ -e "$tmp/got2.ready" ] && break
    sleep 0.05
  done
  local mac1 mac2
  mac1=$(ip netns exec "$R1" cat /sys/class/net/b1/address)
  mac2=$(ip netns exec "$R2" cat /sys/class/net/b2/address)
  ip netns exec "$S" python3 "$probe" send "$family" a1 "$mac1" "$tmp/p" &&
    ip netns exec "$S" python3 "$probe" send "$family" a2 "$mac2" "$tmp/p"
  local sent=$?
  sleep 0.5
  touch "$tmp/got1.stop" "$tmp/got2.stop"
  wait
  local rc=0
  local probes got1
  probes=$(sed '/^dst$/,$d' "$tmp/p" | wc -l)
  got1=$(wc -l <"$tmp/got1")
  if [ "$sent" != 0 ]; then
    echo "the probes could not be sent"; rc=1
  elif ! cmp -s "$tmp/got1" "$tmp/got2"; then
    echo "the literal rules let in other probes than the optimized ones:"
    diff "$tmp/got1" "$tmp/got2" | head -20
    ip netns exec "$R2" iptables-save 2>/dev/null | head -30
    rc=1
  elif [ "$got1" = 0 ] || [ "$got1" = "$probes" ]; then
    # Both let all in, or none: the probes tell nothing.
    echo "the probes tell nothing: $got1 of $probes let in"; rc=1
  fi
  for n in $S $R1 $R2; do ip netns del "$n"; done
  return $rc
}

for family in 4 6; do
  for backend in nft legacy; do
    for seed in $(seq "$seeds"); do
      check "probes: IPv$family, $backend, seed $seed" \
        round "$family" "$backend" "$((seed * 10 + ${#backend}))"
    done
  done
done

# The kernel refuses the commit after the sets were made: none is left,
# and nothing changed.
refused() {
  {
    printf '*filter\n'
    for i in $(seq 10); do printf -- '-A INPUT -s 10.0.0.%d -j DROP\n' "$i"; done
    printf -- '-A INPUT -j SNAT --to-source 1.2.3.4\nCOMMIT\n'
  } >"$tmp/bad"
  unshare -n bash -c "
    '$fr' --optimize <'$tmp/bad' 2>/dev/null; st=\$?
    [ \$st = 4 ] && [ -z \"\$(ipset list -n)\" ]"
}
check "a refused commit leaves no set" refused

# A run killed at random moments: the next --optimize run leaves only the
# sets its rules use, and never a set of the user's.
killed() {
  python3 "$probe" rules 4 7 "$tmp/k" "$tmp/kp" || return 1
  unshare -n bash -c "
    ipset create mine hash:ip || exit 1
    for d in 0.001 0.005 0.01 0.02 0.05; do
      timeout -s KILL \$d '$fr' --optimize <'$tmp/k'
    done
    '$fr' --optimize <'$tmp/k' || exit 1
    used=\$(iptables-save | grep -o 'fastrestore-[0-9a-f]*' | sort -u)
    have=\$(ipset list -n | grep '^fastrestore-' | sort)
    [ \"\$used\" = \"\$have\" ] && [ -n \"\$have\" ] &&
      ipset list -n | grep -qx mine"
}
check "a killed run's sets go with the next --optimize run" killed

# Loaded again: the same sets (swapped, not made anew), and a rule that
# changes shape gets a set of its own; -t makes none.
again() {
  python3 "$probe" rules 4 9 "$tmp/a" "$tmp/ap" || return 1
  sed 's/-j DROP/-j REJECT/' "$tmp/a" >"$tmp/a2"
  unshare -n bash -c "
    '$fr' --optimize <'$tmp/a' || exit 1
    first=\$(ipset list -n | sort)
    '$fr' --optimize <'$tmp/a' || exit 1
    [ \"\$(ipset list -n | sort)\" = \"\$first\" ] || exit 1
    '$fr' --optimize <'$tmp/a2' || exit 1
    [ \"\$(ipset list -n | sort)\" != \"\$first\" ] || exit 1
    '$fr' <'$tmp/a2' && '$fr' --optimize -t <'$tmp/a' || exit 1
    n=\$(ipset list -n | wc -l)
    '$fr' --optimize -t <'$tmp/a' && [ \"\$(ipset list -n | wc -l)\" = \$n ] ||
      exit 1
    # A load whose table has no run left: its old sets go too.
    '$fr' --optimize <'$tmp/a' || exit 1
    printf '*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n' | '$fr' --optimize || exit 1
    [ -z \"\$(ipset list -n)\" ]"
}
check "loaded again: the same sets; -t makes none; no run left, no set" again

# --incremental --optimize: a random walk of reloads (rules deleted,
# moved, retargeted, addresses and comments changed), each loaded over the
# one before with the state journal; after each, the table, the sets
# (expanded: every member and comment) and the list of sets are those of a
# full --optimize load of the same file into a fresh namespace.
walk() { # FAMILY SEED
  local family=$1 seed=$2 flags="" steps=${OPTIMIZE_WALK_STEPS:-12}
  [ "$family" = 6 ] && flags="-6"
  local save=iptables-save
  [ "$family" = 6 ] && save=ip6tables-save
  python3 "$probe" rules "$family" "$seed" "$tmp/w0" "$tmp/wp" || return 1
  for k in $(seq 1 $steps); do
    python3 "$probe" mutate "$family" "$seed$k" "$tmp/w$((k - 1))" "$tmp/w$k" ||
      return 1
  done
  rm -rf "$tmp/wj" && mkdir -m 700 "$tmp/wj"
  unshare -n env FASTRESTORE_JOURNAL_DIR="$tmp/wj" bash -c "
    for k in \$(seq 0 $steps); do
      '$fr' $flags --incremental --optimize <'$tmp/w'\$k || exit 1
      { $save; '$fr' save $flags --expand; ipset list -n | sort; } |
        grep -v '^#' >'$tmp/wgot'\$k
    done" || return 1
  for k in $(seq 0 $steps); do
    unshare -n bash -c "
      '$fr' $flags --optimize <'$tmp/w$k' || exit 1
      { $save; '$fr' save $flags --expand; ipset list -n | sort; } |
        grep -v '^#'" >"$tmp/wref" || return 1
    if ! diff "$tmp/wref" "$tmp/wgot$k"; then
      echo "step $k of the walk (family $family, seed $seed) differs"
      return 1
    fi
  done
}
walks() {
  for seed in $(seq 1 "$seeds"); do
    walk 4 "$seed" && walk 6 "$seed" || return 1
  done
}
check "--incremental --optimize: each reload of a walk ends as a full load" walks

# --incremental --optimize keeps what stays: a set whose members are the
# same is not touched (the journal knows it), members that stay in a
# refilled set keep their counters, the set rule keeps its handle; a set
# changed by hand is read back and repaired; plain loads afterwards leave
# the literal rules and no set of fastrestore's.
keeps() {
  python3 "$probe" rules 4 5 "$tmp/k0" "$tmp/kp" || return 1
  sed 's/^-A/[7:700] -A/' "$tmp/k0" >"$tmp/k0c"
  # One member of the first source run changed.
  local first
  first=$(grep -m1 -n -E '^-A INPUT -s [0-9.]+ ' "$tmp/k0" | cut -d: -f1)
  [ -n "$first" ] || return 1
  sed "${first}s/-s [0-9.]*/-s 10.250.250.250/" "$tmp/k0" >"$tmp/k1"
  # ... and the run one member longer than its set takes.
  sed "${first}p" "$tmp/k1" | sed "$((first + 1))s/-s [0-9.]*/-s 10.250.250.251/" >"$tmp/k2"
  rm -rf "$tmp/kj" && mkdir -m 700 "$tmp/kj"
  unshare -n env FASTRESTORE_JOURNAL_DIR="$tmp/kj" bash -c "
    set -e
    no() { ! grep -q \"\$@\"; } # (set -e ignores a command under !)
    '$fr' -c --incremental --optimize <'$tmp/k0c'
    handles() { nft -a list chain ip filter INPUT 2>/dev/null | grep -o 'handle [0-9]*'; }
    h0=\$(handles)
    '$fr' --incremental --optimize -v <'$tmp/k0' >'$tmp/kv0'
    grep -q 'members unchanged' '$tmp/kv0'
    no 'members refilled\|; made' '$tmp/kv0'
    '$fr' --incremental --optimize -v --stats <'$tmp/k1' >'$tmp/kv1' 2>'$tmp/ks1'
    [ \$(grep -c '; 1 members removed, 1 added' '$tmp/kv1') = 1 ]
    no 'members refilled\|; made' '$tmp/kv1'
    grep -q '1 edited, 0 refilled, 0 made)' '$tmp/ks1'
    [ \"\$(handles)\" = \"\$h0\" ]
    set=\$(grep -o '(lines $first-.*' '$tmp/kv1' | grep -o 'fastrestore-[0-9a-f]*')
    ipset save \$set | grep -q '10.250.250.250 packets 0 bytes 0'
    [ \$(ipset save \$set | grep -c 'packets 7 bytes 700') = \$((\$(ipset save \$set | grep -c '^add') - 1)) ]
    # Loaded again: the edited set read back, found the same, untouched
    # (and its digest recorded).
    '$fr' --incremental --optimize -v <'$tmp/k1' >'$tmp/kv2'
    no 'members refilled\|; made\|members removed' '$tmp/kv2'
    # A run longer than its set takes: refilled, the counters carried.
    '$fr' --incremental --optimize -v <'$tmp/k2' >'$tmp/kv3'
    [ \$(grep -c 'members refilled' '$tmp/kv3') = 1 ]
    [ \$(ipset save \$set | grep -c 'packets 7 bytes 700') = \$((\$(ipset save \$set | grep -c '^add') - 2)) ]
    # Back (edited), and again (the digest recorded).
    '$fr' --incremental --optimize <'$tmp/k1'
    '$fr' --incremental --optimize <'$tmp/k1'
    kept=\$(ipset save \$set | grep -c 'packets 7 bytes 700')
    # diff does not compare such a table from the journal (its copy
    # expands the sets).
    '$fr' diff -v '$tmp/k1' 2>&1 >/dev/null | grep -q \"match --optimize's sets\"
    # Changed by hand: read back (the size differs from the record).
    ipset del \$set 10.250.250.250
    '$fr' --incremental --optimize <'$tmp/k1'
    ipset test \$set 10.250.250.250 2>/dev/null
    # Comments changed: those members deleted and added again, their
    # counters with them.
    sed 's/--comment \"r1 /--comment \"x1 /' '$tmp/k1' >'$tmp/k1c'
    '$fr' --incremental --optimize -v <'$tmp/k1c' | grep -q 'members removed'
    ipset save \$set | grep -q 'comment \"x1 '
    [ \$(ipset save \$set | grep -c 'packets 7 bytes 700') = \$kept ]
    # Without --optimize: the literal rules, and the sets go.
    '$fr' --incremental <'$tmp/k1'
    ipset list -n | no fastrestore-
    iptables-save | grep -q -- '-A INPUT -s 10.250.250.250/32 '"
}
check "--incremental --optimize: unchanged sets untouched, counters kept, hand edits repaired" keeps

# Another program commits while --incremental --optimize loads run (the
# generation moves under them: a block is planned again from its text,
# which must be read as --optimize first read it).
interfered() {
  python3 "$probe" rules 4 7 "$tmp/x0" "$tmp/xp" || return 1
  python3 "$probe" mutate 4 71 "$tmp/x0" "$tmp/x1" || return 1
  rm -rf "$tmp/xj" && mkdir -m 700 "$tmp/xj"
  unshare -n env FASTRESTORE_JOURNAL_DIR="$tmp/xj" bash -c "
    # (Paced: a block planned more slowly than the commits come, under the
    # sanitizers, gives up after 50 attempts.)
    (while :; do
      nft add table ip other; nft delete table ip other; sleep 0.1
    done) &
    busy=\$!
    trap 'kill \$busy 2>/dev/null' EXIT
    # After every load, each run matches its set (none was loaded literally).
    runs0=\$('$fr' -t -v --optimize <'$tmp/x0' | grep -c '^# --optimize')
    runs1=\$('$fr' -t -v --optimize <'$tmp/x1' | grep -c '^# --optimize')
    for r in \$(seq 1 30); do
      '$fr' --incremental --optimize <'$tmp/x'\$((r % 2)) || exit 1
      want=\$runs0 && [ \$((r % 2)) = 1 ] && want=\$runs1
      [ \$(iptables-save | grep -c match-set) = \$want ] || exit 1
    done
    kill \$busy; wait \$busy 2>/dev/null
    { iptables-save; ipset list -n | sort; } | grep -v '^#' >'$tmp/xgot'" ||
    return 1
  unshare -n bash -c "'$fr' --optimize <'$tmp/x0' &&
    { iptables-save; ipset list -n | sort; } | grep -v '^#'" >"$tmp/xref"
  diff "$tmp/xref" "$tmp/xgot"
}
check "--incremental --optimize while another program commits" interfered

# diff --optimize previews an --optimize load in the expanded form: the
# file loaded gives 0; another, the change, which applied to the expanded
# save gives the expanded save after its load.
diffs() {
  python3 "$probe" rules 4 13 "$tmp/d" "$tmp/dp" || return 1
  # The first address of a run changed, the third rule keyed by a source
  # removed.
  awk '/^-A INPUT -s 10\./ && ++k == 1 { sub(/-s 10\.[0-9.]*/, "-s 10.255.255.254") }
       /^-A INPUT -s 10\./ && k == 3 { k++; next }
       { print }' "$tmp/d" >"$tmp/d2"
  cmp -s "$tmp/d" "$tmp/d2" && return 1
  # The file with its first run reversed: the same without --optimize too
  # (the kernel's set has no order).
  awk '/^-A INPUT -s 10\./ && ++k <= 5 { held[k] = $0; if (k == 5)
         for (i = 5; i >= 1; i--) print held[i]; next } { print }' \
    "$tmp/d" >"$tmp/d_rev"
  cmp -s "$tmp/d" "$tmp/d_rev" && return 1
  unshare -n bash -c "
    '$fr' --optimize <'$tmp/d' || exit 1
    '$fr' diff --optimize '$tmp/d' >'$tmp/d_same' || exit 1
    [ ! -s '$tmp/d_same' ] || exit 1
    '$fr' diff '$tmp/d_rev' >'$tmp/d_same' || exit 1
    [ ! -s '$tmp/d_same' ] || exit 1
    '$fr' diff --optimize '$tmp/d2' >'$tmp/d_change'
    [ \$? = 1 ] || exit 1
    '$fr' save --expand | grep -v '^# ' >'$tmp/d_before'
    '$fr' --optimize <'$tmp/d2' || exit 1
    '$fr' save --expand | grep -v '^# ' >'$tmp/d_after'" || return 1
  patch -s "$tmp/d_before" <"$tmp/d_change" && cmp "$tmp/d_before" "$tmp/d_after"
}
check "diff --optimize: the change in the expanded form" diffs

# -v names each run and its set (-t: the set it would match), --stats
# counts them, --optimize-min sets the shortest run; misuse is refused.
reports() {
  printf '*filter\n' >"$tmp/v"
  for i in $(seq 12); do printf -- '-A INPUT -s 10.0.0.%d -j DROP\n' "$i"; done >>"$tmp/v"
  printf 'COMMIT\n' >>"$tmp/v"
  unshare -n bash -c "
    '$fr' -t -v --optimize <'$tmp/v' | grep -q '^# --optimize: 12 rules of chain INPUT (lines 2-13) would match set fastrestore-[0-9a-f]* (hash:ip, src)' || exit 1
    [ -z \"\$(ipset list -n)\" ] || exit 1
    '$fr' --optimize --optimize-min 13 --stats <'$tmp/v' 2>&1 | grep -q 'optimize: 0 rules merged into 0 sets' || exit 1
    '$fr' --optimize --optimize-min 12 --stats <'$tmp/v' 2>&1 | grep -q 'optimize: 12 rules merged into 1 sets' || exit 1
    # (Misuse: the command line's status, as for every other option.)
    '$fr' --optimize -n <'$tmp/v' 2>/dev/null; [ \$? = 1 ] || exit 1
    '$fr' --optimize --optimize-min 1 <'$tmp/v' 2>/dev/null; [ \$? = 1 ] || exit 1
    '$fr' --optimize --all-or-nothing <'$tmp/v' 2>/dev/null; [ \$? = 1 ] || exit 1
    '$fr' --bridge --optimize </dev/null 2>/dev/null; [ \$? = 1 ]"
}
check "-v, --stats, --optimize-min; --noflush, --all-or-nothing and ebtables refused" reports

# A swap the kernel refuses (a set of fastrestore's name but another type,
# made by hand): the load says so, status 4.
swap_refused() {
  printf '*filter\n' >"$tmp/w"
  for i in $(seq 8); do printf -- '-A INPUT -s 10.0.1.%d -j DROP\n' "$i"; done >>"$tmp/w"
  printf 'COMMIT\n' >>"$tmp/w"
  unshare -n bash -c "
    name=\$('$fr' -t -v --optimize <'$tmp/w' | grep -o 'fastrestore-[0-9a-f]*')
    [ -n \"\$name\" ] && ipset create \$name hash:net || exit 1
    '$fr' --optimize <'$tmp/w' 2>'$tmp/w_err'
    [ \$? = 4 ]" && grep -q "could not take its new members" "$tmp/w_err"
}
check "a refused swap is an error (status 4)" swap_refused

# Concurrent loads of different files, with and without --optimize: each
# succeeds, and the sets left after a last --optimize load are exactly the
# ones its rules use.
concurrent() {
  for k in 1 2 3 4; do
    python3 "$probe" rules 4 "$((30 + k))" "$tmp/c$k" "$tmp/cp$k" || return 1
  done
  # (Without the lock one load destroys another's sets before its commit
  # uses them: that load fails.)
  unshare -n bash -c "
    pids=
    for k in 1 2 3 4; do
      (for r in \$(seq 1 10); do
        '$fr' --optimize <'$tmp/c'\$k || exit 1
        '$fr' <'$tmp/c'\$k || exit 1
      done) &
      pids=\"\$pids \$!\"
    done
    for p in \$pids; do wait \$p || exit 1; done
    '$fr' --optimize <'$tmp/c1' || exit 1
    used=\$(iptables-save | grep -o 'fastrestore-[0-9a-f]*' | sort -u)
    have=\$(ipset list -n | sort)
    [ -n \"\$used\" ] && [ \"\$used\" = \"\$have\" ] || exit 1
    iptables-save | grep -v '^#' >'$tmp/c_end'" || return 1
  unshare -n bash -c "'$fr' --optimize <'$tmp/c1' && iptables-save" |
    grep -v '^#' | cmp -s - "$tmp/c_end"
}
check "concurrent loads with and without --optimize: each succeeds; the sets used only" concurrent

# save --expand gives the literal rules back: loaded without --optimize,
# the same rules, counters and comments as the literal file's (the order
# within a run aside: no packet matches two of its rules).
expanded() { # FAMILY SEED
  local flags=""
  [ "$1" = 6 ] && flags=-6
  python3 "$probe" rules "$1" "$2" "$tmp/x" "$tmp/xp" || return 1
  # Counters on every rule.
  awk '/^-A/ { printf "[%d:%d] ", NR, NR * 100 } { print }' "$tmp/x" >"$tmp/xc"
  unshare -n bash -c "
    '$fr' $flags -c --optimize <'$tmp/xc' || exit 1
    '$fr' save $flags -c --expand >'$tmp/xe' || exit 1
    ! grep -q 'match-set' '$tmp/xe'" || return 1
  unshare -n bash -c "'$fr' $flags -c <'$tmp/xe' && '$fr' save $flags -c" |
    grep -v '^#' | sort >"$tmp/x1"
  unshare -n bash -c "'$fr' $flags -c <'$tmp/xc' && '$fr' save $flags -c" |
    grep -v '^#' | sort >"$tmp/x2"
  [ -s "$tmp/x1" ] && diff "$tmp/x2" "$tmp/x1"
}
check "save --expand: the literal rules again (IPv4)" expanded 4 21
check "save --expand: the literal rules again (IPv6)" expanded 6 22

exit $fail
