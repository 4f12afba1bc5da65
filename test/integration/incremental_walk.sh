#!/usr/bin/env bash
# --incremental converges: the passing integration cases of one family
# (those without a pre file or other options than -c), in an order drawn
# from a seed, are loaded one after the other into one namespace with
# --incremental and into another with full restores; after each, the two
# namespaces' saves (iptables-nft-save of the family, counters aside) and
# `nft list ruleset` (handles, counters and the order of tables and chains
# aside) are the same.
#
# Four steps in ten load the last file with a few random edits instead of
# another file (mutate_rules.py). The walk keeps a state journal in its own directory (journal.h). Drawn
# from the seed, some steps first let another tool change both namespaces
# alike (a rule added or deleted with iptables-nft or nft, another table
# or family changed, the whole ruleset flushed), which makes the journal
# stale, and some remove the journal's index, so that every load path
# runs: from the journal, from reading the table, a replacement.
#
#
# With NOFLUSH=1 every load is a --noflush load (both namespaces alike:
# what the files append to chains they do not declare accumulates).
#
#   incremental_walk.sh FASTRESTORE FAMILY [SEED [STEPS [DIR]]]
#     FAMILY: 4, 6 or bridge
#     DIR: rule files to walk instead (*.rules for IPv4, *.rules6 for IPv6,
#          *.ebrules for the bridge: ../shared/realworld/files); a file
#          the full restore refuses must be refused alike, and change
#          neither namespace.
#          "kube": kube-proxy's own --noflush input, a cluster changing
#          step by step (kube_states.py), in order, with the jumps from
#          the base chains added with iptables-nft after the first load
#          (as kube-proxy adds them), other tools interfering as above.
set -u
. "$(dirname "$0")/common.sh"
family=$2
seed=${3:-1}
steps=${4:-0} # 0: every case once
dir=${5:-}
noflush=${NOFLUSH:-}
kube=""
if [ "$dir" = kube ]; then
  kube=1 noflush=1 dir=$tmp/kube
  python3 "$(dirname "$0")/kube_states.py" "$seed" \
    "$([ "$steps" -gt 0 ] && echo "$steps" || echo 100)" "$dir" || exit 1
fi
if [ -n "$dir" ] && [ ! -d "$dir" ]; then
  echo "SKIP: no $dir"
  exit 77
fi
cases_dir=$(realpath "$(dirname "$0")/../cases")
norm=$(dirname "$0")/normalize_ruleset.py
mutate=$(dirname "$0")/mutate_rules.py

case $family in
4) opt=-4 save="iptables-nft-save" ;;
6) opt=-6 save="ip6tables-nft-save" ;;
bridge) opt=--bridge save="ebtables-nft-save" ;;
*) echo "family: 4, 6 or bridge"; exit 2 ;;
esac

header() { sed -n "s/^# $1: *//p" "$2" | head -n1; }

# The cases of this family that load alone and pass, or DIR's files.
list=()
if [ -n "$dir" ]; then
  ext=$(case $family in 4) echo rules ;; 6) echo rules6 ;; *) echo ebrules ;; esac)
  for f in "$dir"/*."$ext"; do list+=("$f"); done
else
  for f in "$cases_dir"/*/*_0.rules; do
    fam=$(header family "$f")
    [ "${fam:-4}" = "$family" ] || continue
    [ -z "$(header pre "$f")" ] || continue
    [ -z "$(header ref-status "$f")" ] || continue
    args=$(header args "$f")
    [ -z "$args" ] || [ "$args" = "-c" ] || continue
    list+=("$f")
  done
fi
[ ${#list[@]} -gt 1 ] || { echo "too few cases"; exit 1; }
if [ -n "$kube" ]; then
  order=("${list[@]}") # the cluster's steps, in order
else
  mapfile -t order < <(printf '%s\n' "${list[@]}" |
    awk -v seed="$seed" 'BEGIN { srand(seed) } { print rand() "\t" $0 }' |
    sort -k1,1 | cut -f2-)
fi
[ "$steps" -gt 0 ] || steps=${#order[@]}
# Under the sanitizers every allocation unwinds slowly: a shorter walk.
if [ -n "${FASTRESTORE_TEST_QUICK:-}" ] && [ "$steps" -gt 15 ]; then
  steps=15
fi

# The state a namespace holds, in the form compared.
state() {
  $save | grep -v '^#' | sed -E 's/\[[0-9]+:[0-9]+\]/[0:0]/g; s/ -c [0-9]+ [0-9]+$//'
  echo "----"
  nft list ruleset 2>/dev/null | python3 "$norm"
}

# Each namespace lives as long as its sleep.
unshare -n sleep 100000 &
walk=$!
unshare -n sleep 100000 &
full=$!
trap 'kill $walk $full 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 0.2
in_walk() { nsenter -t "$walk" -n "$@"; }
in_full() { nsenter -t "$full" -n "$@"; }

# Another tool's change, the same in both namespaces.
interfere() {
  case $1 in
  0) iptables-nft -A INPUT -s 192.0.2.1 -j DROP ;;
  1) iptables-nft -D INPUT 1 ;;
  2) nft add table ip extra \; add chain ip extra c \; add rule ip extra c counter ;;
  3) nft flush ruleset ;;
  4) ip6tables-nft -A FORWARD -j ACCEPT ;;
  5) ebtables-nft -A FORWARD -j ACCEPT ;;
  6) nft add rule ip filter INPUT counter accept ;;
  7) ebtables-nft -D FORWARD 1 ;;
  esac
}

export FASTRESTORE_JOURNAL_DIR=$tmp/journal
RANDOM=$seed
prev=""
refused=0
for ((i = 0; i < steps; i++)); do
  # Each file once in the drawn order, then files drawn at random (so
  # that a long walk does not repeat the same transitions); four steps in
  # ten edit the last file loaded instead (mutate_rules.py: rules deleted,
  # duplicated, moved, changed; chains added, deleted, renamed; policies).
  if [ -z "$kube" ] && [ -n "$prev" ] && [ $((RANDOM % 10)) -lt 4 ]; then
    python3 "$mutate" "$prev" $((seed * 100000 + i)) "$family" >"$tmp/mut$i.rules"
    cur=$tmp/mut$i.rules
    echo "edit" >>"$tmp/paths"
  elif [ $i -lt ${#order[@]} ]; then
    cur=${order[$i]}
  else
    cur=${order[$((RANDOM % ${#order[@]}))]}
  fi
  args=$(header args "$cur")
  [ -z "$noflush" ] || args="$args --noflush"
  name=$(basename "$cur" .rules)
  draw=$((RANDOM % 10))
  if [ -n "$kube" ] && [ $i = 1 ]; then
    jumps="iptables-nft -t nat -A PREROUTING -j KUBE-SERVICES &&
      iptables-nft -t nat -A OUTPUT -j KUBE-SERVICES &&
      iptables-nft -t nat -A POSTROUTING -j KUBE-POSTROUTING &&
      iptables-nft -A FORWARD -j KUBE-FORWARD"
    in_full bash -c "$jumps" && in_walk bash -c "$jumps" || { echo "FAILED: jumps"; exit 1; }
    echo "kube-proxy's jumps" >>"$tmp/paths"
  elif [ $draw -lt 2 ]; then
    what=$((RANDOM % 8))
    in_full bash -c "$(declare -f interfere); interfere $what" >/dev/null 2>&1
    in_walk bash -c "$(declare -f interfere); interfere $what" >/dev/null 2>&1
    echo "interference $what" >>"$tmp/paths"
  elif [ $draw = 2 ]; then
    rm -f "$tmp"/journal/*.index
  fi
  in_full "$fr" $opt $args <"$cur" >/dev/null 2>"$tmp/err_full"
  st_full=$?
  in_walk "$fr" $opt $args --incremental --stats <"$cur" >/dev/null 2>"$tmp/err"
  st_walk=$?
  grep -o 'incremental, [a-z]*\|kernel state from [a-z ]*' "$tmp/err" >>"$tmp/paths"
  grep -o '[1-9][0-9]* lines unparsed' "$tmp/err" | sed 's/ .*//' >>"$tmp/unparsed"
  grep -v '^fastrestore: stats: ' "$tmp/err" >"$tmp/err.msg"
  mv "$tmp/err.msg" "$tmp/err"
  if [ $st_full != $st_walk ]; then
    echo "FAILED: step $i ($name): status $st_walk, a full restore $st_full"
    cat "$tmp/err" "$tmp/err_full"
    fail=1; break
  fi
  [ $st_full = 0 ] || ((refused++))
  in_walk bash -c "$(declare -f state); save='$save' norm='$norm' state" >"$tmp/got"
  in_full bash -c "$(declare -f state); save='$save' norm='$norm' state" >"$tmp/want"
  if ! diff -u "$tmp/want" "$tmp/got" >"$tmp/diff"; then
    echo "FAILED: step $i ($name after ${prev:+$(basename "$prev" .rules)})"
    head -40 "$tmp/diff"
    fail=1
    break
  fi
  prev=$cur
done
echo "$family: $i steps of ${#order[@]} files, seed $seed ($refused refused by both)"
echo "blocks and steps:" $(sort "$tmp/paths" 2>/dev/null | uniq -c | tr '\n' ' ')
echo "rule lines taken unparsed: $(awk '{ s += $1 } END { print s + 0 }' "$tmp/unparsed" 2>/dev/null) in $(wc -l <"$tmp/unparsed" 2>/dev/null || echo 0) blocks"
[ $fail = 0 ] && echo "ok: incremental walk"
exit $fail
