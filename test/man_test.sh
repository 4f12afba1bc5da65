#!/usr/bin/env bash
# The man page renders without warnings and documents every long option
# that --help lists.
#   man_test.sh FASTRESTORE MANPAGE
set -u
fr=$1 page=$2
fail=0
warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
if [ -n "$warnings" ]; then
  echo "man --warnings:"
  echo "$warnings"
  fail=1
fi
text=$(MANWIDTH=200 man -l "$page" 2>/dev/null)
for opt in $({ "$fr" --help; "$fr" save --help; "$fr" commit --help;
  "$fr" ebtables --help; } |
  grep -o -- '--[a-z][a-z-]*' | sort -u); do
  if ! grep -q -- "$opt" <<< "$text"; then
    echo "option $opt is not in the man page"
    fail=1
  fi
done
[ $fail = 0 ] && echo "ok: man page"
exit $fail
