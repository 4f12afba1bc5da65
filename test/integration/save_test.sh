#!/usr/bin/env bash
# Text save against the upstream save tools (save_check.sh) on the state a
# case starts from: its "# pre:" file loaded with "# pre-args:" by the
# reference restore tool ("# family:" picks it; BACKEND=legacy uses the
# legacy tools), or nothing when the case has no pre file. A case's own
# end state is checked by compare.sh, in the namespace the reference
# tool loaded it into.
#
#   save_test.sh FASTRESTORE CASE.rules
set -u
fr=$(realpath "$1")
case_file=$(realpath "$2")
dir=$(dirname "$case_file")
here=$(dirname "$(realpath "$0")")

if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
  echo "SKIP: needs root and network namespaces"
  exit 77
fi

header() { sed -n "s/^# $1: *//p" "$case_file" | head -n1; }
family=$(header family)
pre=$(header pre)
pre_args=$(header pre-args)
backend=${BACKEND:-nft}
[ "$family" = bridge ] && [ "$backend" = legacy ] && {
  echo "SKIP: no legacy ebtables"
  exit 77
}
restore=iptables-$backend-restore
[ "$family" = 6 ] && restore=ip6tables-$backend-restore
[ "$family" = bridge ] && restore=ebtables-nft-restore
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

unshare -n bash -c '
  if [ -n "$3" ]; then $4 $5 < "$3" > /dev/null 2>&1 || exit 99; fi
  exec "$6/save_check.sh" "$1" "$2" "$7"
' _ "$fr" "$backend" "${pre:+$dir/$pre}" "$restore" "$pre_args" "$here" "$tmp"
rc=$?
[ $rc = 99 ] && echo "the pre file failed to load"
[ $rc = 0 ] && echo "ok: the state $(basename "$case_file") starts from"
exit $rc
