#!/usr/bin/env bash
# The helper scripts' man pages render without warnings, pass mandoc's
# checks (style included), and document what the scripts take: every verb
# of fastrestore-boot's usage line, every setting its defaults file
# names, every verb of fastrestore-alternatives' usage.
#   man_pages_test.sh SOURCE_DIR
set -u
src=$1
fail=0
for page in "$src"/man/fastrestore-boot.8 "$src"/man/fastrestore-alternatives.8; do
  warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  [ -z "$warnings" ] || { echo "$page: man --warnings:"; echo "$warnings"; fail=1; }
  if command -v mandoc >/dev/null; then
    lint=$(mandoc -Tlint -Wstyle "$page" 2>&1)
    [ -z "$lint" ] || { echo "$page: mandoc -Tlint:"; echo "$lint"; fail=1; }
  fi
done
boot=$(MANWIDTH=200 man -l "$src/man/fastrestore-boot.8" 2>/dev/null)
verbs=$(sed -n 's/.*echo "usage: fastrestore-boot \([a-z|]*\)".*/\1/p' \
  "$src/packaging/fastrestore-boot" | tr '|' ' ')
[ -n "$verbs" ] || { echo "no usage line in fastrestore-boot"; fail=1; }
for verb in $verbs; do
  grep -qE "^ +$verb$|^ +$verb " <<< "$boot" || { echo "fastrestore-boot.8: no $verb"; fail=1; }
done
for setting in $(sed -n 's/^#\([A-Z0-9_]*\)=.*/\1/p' "$src/packaging/fastrestore.default" | sort -u); do
  grep -q "$setting" <<< "$boot" || { echo "fastrestore-boot.8: no $setting"; fail=1; }
done
alt=$(MANWIDTH=200 man -l "$src/man/fastrestore-alternatives.8" 2>/dev/null)
for verb in install remove divert undivert --commands; do
  grep -q -- "$verb" <<< "$alt" || { echo "fastrestore-alternatives.8: no $verb"; fail=1; }
done
[ $fail = 0 ] && echo "ok: the helper scripts' man pages"
exit $fail
