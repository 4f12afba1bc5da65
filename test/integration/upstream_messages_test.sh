#!/usr/bin/env bash
# Under an upstream tool's name (iptables-nft-restore, ip6tables-nft-restore,
# iptables-legacy-restore, ip6tables-legacy-restore, ebtables-nft-restore),
# fastrestore prints a failure's lines as that tool prints them, prefix,
# version and hint included, so that callers that read them (firehol greps
# "Error occurred at line: N") work: for every failing case of
# test/cases/errors and test/cases/bridge whose exit status is the tool's,
# standard error must be the tool's, except that the line numbers are
# fastrestore's (sometimes more precise: the tool names COMMIT's line for
# what fails there) and that fastrestore's caret display follows. Without
# CAP_NET_ADMIN, save, diff, --incremental, ebtables -L and a restore say
# that they need it, with the reference's statuses.
#   upstream_messages_test.sh FASTRESTORE CASES_DIR
set -u
. "$(dirname "$0")/common.sh"
cases=$(realpath "$2")
mkdir -p "$tmp/fr"
compared=0

# run TOOL CASE: the case's stderr and status (its pre file loaded first
# by the reference tool), in a fresh namespace.
run() {
  local tool=$1 f=$2 dir pre pre_args args name
  dir=$(dirname "$f")
  pre=$(sed -n 's/^# pre: *//p' "$f" | head -n1)
  pre_args=$(sed -n 's/^# pre-args: *//p' "$f" | head -n1)
  args=$(sed -n 's/^# args: *//p' "$f" | head -n1)
  name=$(basename "$tool")
  unshare -n bash -c "
    [ -z '$pre' ] || /usr/sbin/$name $pre_args <'$dir/$pre' >/dev/null 2>&1
    cd '$tmp' && '$tool' $args <'$f' 2>&1 >/dev/null
    echo \"status \$?\"" | tr -d '\0'
}
# Line numbers as N; fastrestore's caret display (and its hint) left out.
norm() { sed -E 's/line:? [0-9]+/line N/g' | grep -v '^ *[0-9]* | \|^ *| \|^ *= hint: '; }

same_words() { # TOOL CASE
  local name=$1 f=$2 want got
  ln -sf "$fr" "$tmp/fr/$name"
  want=$(run "/usr/sbin/$name" "$f")
  got=$(run "$tmp/fr/$name" "$f")
  # A different status is a documented difference (docs/CONFORMANCE.md),
  # which compare.sh holds the case to.
  [ "${want##*status }" = "${got##*status }" ] || return 0
  compared=$((compared + 1))
  if [ "$(norm <<<"$want")" != "$(norm <<<"$got")" ]; then
    echo "$name $(basename "$f"):"
    diff <(echo "$want") <(echo "$got")
    return 1
  fi
}

for f in "$cases"/errors/*.rules "$cases"/bridge/*_[1-9].rules; do
  fam=$(sed -n 's/^# family: *//p' "$f" | head -n1)
  case $fam in
    bridge) tools=(ebtables-nft-restore) ;;
    6) tools=(ip6tables-nft-restore ip6tables-legacy-restore) ;;
    *) tools=(iptables-nft-restore iptables-legacy-restore) ;;
  esac
  for t in "${tools[@]}"; do
    same_words "$t" "$f" || { echo "FAILED: $t $(basename "$f")"; fail=1; }
  done
done
# Without CAP_NET_ADMIN (as nobody): each command says that it needs it,
# with the reference's status; under iptables-nft-restore's name, the
# tool's own line.
pub=$(mktemp -d /tmp/fastrestore-nonroot.XXXXXX)
trap 'rm -rf "$tmp" "$pub"' EXIT
chmod 755 "$pub"
cp "$fr" "$pub/fastrestore"
ln -s fastrestore "$pub/iptables-nft-restore"
printf '*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n' >"$pub/rules"
chmod 644 "$pub/rules"
as_nobody() { # STATUS TEXT COMMAND...
  local want=$1 text=$2 got
  shift 2
  unshare -n setpriv --reuid=nobody --regid=nogroup --clear-groups \
    --inh-caps=-all "$@" >/dev/null 2>"$tmp/err"
  got=$?
  [ "$got" = "$want" ] && grep -qF -- "$text" "$tmp/err" ||
    { echo "$*: status $got:"; cat "$tmp/err"; return 1; }
}
needs='needs CAP_NET_ADMIN (run as root)'
for c in "4 save" "2 diff $pub/rules" "4 --incremental $pub/rules" \
  "4 ebtables -L" "4 $pub/rules"; do
  # shellcheck disable=SC2086
  as_nobody ${c%% *} "$needs" "$pub/fastrestore" ${c#* } ||
    { echo "FAILED: as nobody: fastrestore ${c#* }"; fail=1; }
done
as_nobody 4 "iptables-nft-restore v$(iptables-nft -V | sed 's/.* v//'): Could not fetch rule set generation id: Permission denied (you must be root)" \
  "$pub/iptables-nft-restore" "$pub/rules" ||
  { echo "FAILED: as nobody: iptables-nft-restore"; fail=1; }

echo "compared $compared failures with the tools' own words"
[ "$compared" -gt 100 ] || { echo "FAILED: too few cases compared"; fail=1; }
[ $fail = 0 ] && echo "ok: every failure in the tool's words"
exit $fail
