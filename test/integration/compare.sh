#!/usr/bin/env bash
# Runs one integration case against the real kernel, in private network
# namespaces, and compares fastrestore with iptables-nft-restore.
#
#   compare.sh FASTRESTORE CASE.rules
#
# The case's file name ends in _N: N is the exit status both tools must
# return. Header lines of the case set the rest:
#   # args: -c --noflush     options for both tools
#   # family: 6              feed ip6tables-nft-restore / fastrestore -6
#   # family: bridge         feed ebtables-nft-restore / fastrestore --bridge
#                            (and compare ebtables-nft-save too)
#   # pre: other.rules       load this first with iptables-nft-restore
#   # pre-args: -c           options for loading the pre file
#   # error-line: N          (failing cases) the message must name line N
#   # legacy-error-line: N   the same with BACKEND=legacy, where it differs
#   # error-text: TEXT      (failing cases) the message must hold TEXT
#   # legacy-error-text: T  the same with BACKEND=legacy, where it differs
#   # ref-status: X          iptables-nft-restore returns X instead of N
#                            (a documented difference, see docs/CONFORMANCE.md);
#                            a passing case then compares the save output
#                            with NAME.save4 (or .save6) beside the case;
#                            a crash X (above 128) that the legacy tool
#                            shares holds BACKEND=legacy to N as well
# A NAME.save4 (.save6) file beside a passing case also replaces the
# comparison with the reference where fastrestore differs on purpose.
#   # save-identity: no      the end state is one no save can express
#                            (save_check.sh skips save | restore)
# A passing case (N = 0) must leave exactly the same iptables-nft-save,
# ip6tables-nft-save and nft list ruleset output as the reference tool, and
# the same expressions in every rule (nft --debug=netlink, handles removed). A
# failing case must leave the kernel exactly as the pre file left it.
# When the reference tool leaves a state other than the one the case
# started from, fastrestore save is checked on it there (save_check.sh);
# save_test.sh checks the states cases start from.
set -u
here=$(dirname "$(realpath "$0")")
fr=$(realpath "$1")
case_file=$(realpath "$2")
dir=$(dirname "$case_file")
name=$(basename "$case_file" .rules)
want=${name##*_}
[[ $want =~ ^[0-9]+$ ]] || { echo "case name must end in _N: $name"; exit 2; }

if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
  echo "SKIP: needs root and network namespaces"
  exit 77
fi

header() { sed -n "s/^# $1: *//p" "$case_file" | head -n1; }
args=$(header args)
family=$(header family)
pre=$(header pre)
pre_args=$(header pre-args)
error_line=$(header error-line)
error_text=$(header error-text)
ref_status=$(header ref-status)
ref_status=${ref_status:-$want}

# BACKEND=legacy compares fastrestore --legacy with iptables-legacy-restore
# instead, through iptables-legacy-save; the exit status must then equal
# the reference tool's (the names' statuses are those of nf_tables).
backend=${BACKEND:-nft}
if [ "$backend" = legacy ] && [ -n "$(header legacy-error-line)" ]; then
  error_line=$(header legacy-error-line)
fi
if [ "$backend" = legacy ] && [ -n "$(header legacy-error-text)" ]; then
  error_text=$(header legacy-error-text)
fi
ref_tool=iptables-$backend-restore
fr_cmd="$fr"
[ "$backend" = legacy ] && fr_cmd="$fr --legacy"
if [ "$family" = 6 ]; then
  ref_tool=ip6tables-$backend-restore
  fr_cmd="$fr_cmd -6"
fi
if [ "$family" = bridge ]; then
  # This kernel has no legacy ebtables: bridge rules are nf_tables only.
  [ "$backend" = legacy ] && { echo "SKIP: no legacy ebtables"; exit 77; }
  ref_tool=ebtables-nft-restore
  fr_cmd="$fr --bridge"
fi
save_c=""
[[ " $args " == *" -c "* || " $args " == *" --counters "* ]] && save_c="-c"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

SAVE_IDENTITY=$(header save-identity)
export SAVE_IDENTITY

# run_in_ns OUTDIR COMMAND [SAVE_CHECK]: fresh namespace; pre file;
# command; dumps; with SAVE_CHECK, save_check.sh on a changed state.
run_in_ns() {
  local out=$1 cmd=$2 save_check=${3:-}
  mkdir -p "$out"
  unshare -n bash -c '
    set -u
    out=$1; cmd=$2; pre=$3; case_file=$4; save_c=$5; pre_tool=$6; backend=$7
    pre_args=$8; save_check=$9
    if [ -n "$pre" ]; then
      $pre_tool $pre_args < "$pre" || { echo "pre file failed" >&2; exit 99; }
    fi
    snap() {
      iptables-$backend-save $save_c | grep -v "^#" > "$out/$1.save4"
      ip6tables-$backend-save $save_c | grep -v "^#" > "$out/$1.save6"
      ebtables-nft-save $save_c 2>/dev/null | grep -v "^#" > "$out/$1.saveb"
      nft list ruleset > "$out/$1.nft" 2>/dev/null
      # The exact expressions of every rule, without kernel handles.
      # (A hashed set lists its elements in a per-set random order: sort
      # each run of element lines.)
      nft --debug=netlink list ruleset 2>/dev/null |
        sed -E "s/^((ip|ip6|bridge) [^ ]+ [^ ]+) [0-9]+( [0-9]+)?$/\1/" |
        awk "/^\telement /{ print | \"sort\"; next }
             { close(\"sort\"); print }" > "$out/$1.netlink"
      # An empty listing of a non-empty ruleset would make every
      # comparison pass.
      if [ -s "$out/$1.nft" ] && [ ! -s "$out/$1.netlink" ]; then
        echo "netlink listing failed" >&2
        exit 98
      fi
    }
    # The whole state, counters too.
    state() {
      {
        iptables-$backend-save -c
        ip6tables-$backend-save -c
        if [ "$backend" = nft ]; then
          ebtables-nft-save -c
          nft list ruleset
        fi
      } 2>/dev/null | grep -v "^#"
    }
    snap before
    [ -n "$save_check" ] && state > "$out/state.before"
    $cmd < "$case_file" > "$out/stdout" 2> "$out/stderr"
    echo $? > "$out/status"
    snap after
    if [ -n "$save_check" ] &&
       ! state | cmp -s - "$out/state.before"; then
      mkdir -p "$out/save"
      $save_check > "$out/save_check" 2>&1
      echo $? > "$out/save_status"
    fi
  ' _ "$out" "$cmd" "${pre:+$dir/$pre}" "$case_file" "$save_c" "$ref_tool" \
    "$backend" "$pre_args" \
    "${save_check:+$here/save_check.sh $fr $backend $out/save}"
}

# The reference's state is also where fastrestore save is checked.
run_in_ns "$tmp/ref" "$ref_tool $args" check
run_in_ns "$tmp/fr" "$fr_cmd $args"

fail=0
if [ -f "$tmp/ref/save_status" ] && [ "$(cat "$tmp/ref/save_status")" != 0 ]; then
  echo "fastrestore save on the state $ref_tool left:"
  cat "$tmp/ref/save_check"
  fail=1
fi
ref_got=$(cat "$tmp/ref/status")
fr_got=$(cat "$tmp/fr/status")
if [ "$backend" = legacy ] && [ "$ref_got" -gt 128 ] &&
   [ "$ref_got" = "$ref_status" ]; then
  : # The case documents this crash, which the legacy tool shares.
elif [ "$backend" = legacy ]; then
  # Held to the legacy tool's own status; goldens are nf_tables-only.
  want=$ref_got
  ref_status=$ref_got
  [ "$want" = 139 ] && { echo "SKIP: $ref_tool crashes on this case"; exit 77; }
fi
if [ "$ref_got" != "$ref_status" ]; then
  echo "reference $ref_tool returned $ref_got, the case expects $ref_status"
  sed 's/^/  ref stderr: /' "$tmp/ref/stderr"
  fail=1
fi
if [ "$fr_got" != "$want" ]; then
  echo "fastrestore returned $fr_got, expected $want"
  sed 's/^/  stderr: /' "$tmp/fr/stderr"
  fail=1
fi
if [ "$want" = 0 ] && [ "$backend" = nft ] &&
   { [ "$ref_status" != 0 ] || [ -f "$dir/$name.save${family:-4}" ]; }; then
  # The reference tool fails this input, or does something else on
  # purpose (see docs/CONFORMANCE.md): the expected save output is written
  # down next to the case instead.
  golden="$dir/$name.save4"
  [ "$family" = 6 ] && golden="$dir/$name.save6"
  if ! diff -u "$golden" "$tmp/fr/after.save${family:-4}" > "$tmp/diff"; then
    echo "save output differs from $golden:"
    cat "$tmp/diff"
    fail=1
  fi
elif [ "$want" = 0 ]; then
  for f in save4 save6 saveb nft netlink; do
    if ! diff -u "$tmp/ref/after.$f" "$tmp/fr/after.$f" > "$tmp/diff"; then
      echo "$f differs from $ref_tool (--- reference, +++ fastrestore):"
      cat "$tmp/diff"
      fail=1
    fi
  done
else
  # A failing block changes nothing; blocks committed before it stay, as
  # with the reference tool.
  commits=$(grep -c '^COMMIT$' "$case_file")
  for f in save4 save6 saveb nft netlink; do
    # (x_tables instantiates a table when it is first read, so on legacy
    # only the comparison with the reference tool below applies.)
    if [ "$commits" -le 1 ] && [ "$backend" = nft ] &&
       ! diff -u "$tmp/fr/before.$f" "$tmp/fr/after.$f" > "$tmp/diff"; then
      echo "failed restore changed the kernel ($f):"
      cat "$tmp/diff"
      fail=1
    fi
    # (A reference that crashed kept the blocks it committed before.)
    if { [ "$ref_status" = "$want" ] || [ "$ref_got" -gt 128 ]; } &&
       ! diff -u "$tmp/ref/after.$f" "$tmp/fr/after.$f" > "$tmp/diff"; then
      echo "$f after the failure differs from $ref_tool:"
      cat "$tmp/diff"
      fail=1
    fi
  done
  if [ -n "$error_line" ] && ! grep -q "line $error_line\b" "$tmp/fr/stderr"; then
    echo "message does not name line $error_line:"
    sed 's/^/  stderr: /' "$tmp/fr/stderr"
    fail=1
  fi
  if [ -n "$error_text" ] && ! grep -qF -- "$error_text" "$tmp/fr/stderr"; then
    echo "message does not say: $error_text"
    sed 's/^/  stderr: /' "$tmp/fr/stderr"
    fail=1
  fi
  if [ ! -s "$tmp/fr/stderr" ]; then
    echo "no error message"
    fail=1
  fi
fi
[ $fail = 0 ] && echo "ok: $name"
exit $fail
