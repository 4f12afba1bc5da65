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
# mandoc's checks, style hints included, when mandoc is there.
if command -v mandoc >/dev/null; then
  lint=$(mandoc -Tlint -Wstyle "$page" 2>&1)
  if [ -n "$lint" ]; then
    echo "mandoc -Tlint:"
    echo "$lint"
    fail=1
  fi
fi
text=$(MANWIDTH=200 man -l "$page" 2>/dev/null)
# The sections a user looks for.
for section in ENVIRONMENT "EXIT STATUS" BOOT FILES; do
  grep -q "^.SH $section" "$page" || { echo "no $section section"; fail=1; }
done
# Every exit status the programs use.
for status in 0 1 2 3 4; do
  sed -n '/^.SH EXIT STATUS/,/^.SH DIAG/p' "$page" | grep -qx ".B $status" ||
    { echo "exit status $status is not documented"; fail=1; }
done
# The environment variables the code reads.
for var in XTABLES_LOCKFILE EBTABLES_ATOMIC_FILE EBTABLES_SAVE_COUNTER; do
  grep -q "^.B $var" "$page" || { echo "$var is not in ENVIRONMENT"; fail=1; }
done
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
