#!/usr/bin/env bash
# /etc/fastrestore.conf (FASTRESTORE_CONFIG here): `incremental = true`
# turns --incremental on for a caller that runs fastrestore under
# iptables-restore's name; comments and blank lines are skipped; a setting
# that changes what a restore means (noflush), an unknown name and a bad
# value are refused with the file's line, status 2, nothing changed; a
# missing file is no error.
#   config_file_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"
export FASTRESTORE_JOURNAL_DIR=$tmp/journal

ln -s "$fr" "$tmp/iptables-restore"
printf '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -i lo -j ACCEPT\nCOMMIT\n' >"$tmp/rules"
conf=$tmp/fastrestore.conf

turns_on() {
  printf '# reloads keep counters\n\nincremental = true\n' >"$conf"
  unshare -n env FASTRESTORE_CONFIG="$conf" bash -c "
    '$tmp/iptables-restore' <'$tmp/rules' || exit 1
    '$tmp/iptables-restore' --stats <'$tmp/rules'" 2>"$tmp/err" &&
    grep -q 'incremental, nothing: 1 rules kept' "$tmp/err"
}
check "incremental = true turns it on" turns_on

off_by_default() {
  unshare -n env FASTRESTORE_CONFIG="$tmp/missing.conf" \
    "$tmp/iptables-restore" --stats <"$tmp/rules" 2>"$tmp/err" &&
    ! grep -q 'incremental' "$tmp/err"
}
check "a missing file is no error, and nothing is on" off_by_default

refused() { # CONTENT LINE WORDS
  printf "$1" >"$conf"
  unshare -n env FASTRESTORE_CONFIG="$conf" bash -c "
    '$tmp/iptables-restore' <'$tmp/rules' 2>'$tmp/err'
    st=\$?
    [ \$st = 2 ] && [ -z \"\$(nft list ruleset)\" ]" &&
    grep -qF "$conf, line $2: " "$tmp/err" && grep -qF "$3" "$tmp/err"
}
check "noflush is refused, naming its line" \
  refused '# x\nstats = false\nnoflush = true\n' 3 "changes what a restore means"
check "optimize is refused: other tools would see its sets" \
  refused 'optimize = true\n' 1 "changes what a restore means"
check "an unknown name is refused" refused 'bogus = 1\n' 1 "is no setting"
check "a bad value is refused" refused '\nincremental = maybe\n' 2 "incremental"

exit $fail
