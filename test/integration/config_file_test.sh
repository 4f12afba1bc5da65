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
check "a setting with no value is refused, not taken as on" \
  refused '\nincremental =\n' 2 "has no value"

# A file that is not the admin's: refused with the reason, status 2, within
# a second (a FIFO is never read), nothing changed.
untrusted() { # PATH WORDS
  unshare -n env FASTRESTORE_CONFIG="$1" bash -c "
    timeout 5 '$tmp/iptables-restore' <'$tmp/rules' 2>'$tmp/err'
    st=\$?
    [ \$st = 2 ] && [ -z \"\$(nft list ruleset)\" ]" &&
    grep -qF "$1: $2" "$tmp/err"
}
mkfifo "$tmp/fifo.conf"
check "a FIFO is refused without waiting for a writer" \
  untrusted "$tmp/fifo.conf" "not a regular file"
check "/dev/zero is refused without reading it" \
  untrusted /dev/zero "not a regular file"
printf 'incremental = true\n' >"$tmp/open.conf"
chmod 666 "$tmp/open.conf"
check "a file others may write is refused" \
  untrusted "$tmp/open.conf" "not owned by root and writable by root alone"
printf 'incremental = true\n' >"$tmp/group.conf"
chmod 660 "$tmp/group.conf"
check "a file its group may write is refused" \
  untrusted "$tmp/group.conf" "not owned by root and writable by root alone"
printf 'incremental = true\n' >"$tmp/owned.conf"
chown nobody "$tmp/owned.conf"
check "a file another user owns is refused" \
  untrusted "$tmp/owned.conf" "not owned by root and writable by root alone"
printf 'incremental = true\n' >"$tmp/good.conf"
ln -s "$tmp/good.conf" "$tmp/link.conf"
chown -h nobody "$tmp/link.conf"
check "a symlink another user owns is refused" \
  untrusted "$tmp/link.conf" "reached through $tmp/link.conf, a symlink owned by another user"
ln -s "$tmp/good.conf" "$tmp/rootlink.conf"
root_link() {
  unshare -n env FASTRESTORE_CONFIG="$tmp/rootlink.conf" bash -c "
    '$tmp/iptables-restore' <'$tmp/rules' || exit 1
    '$tmp/iptables-restore' --stats <'$tmp/rules'" 2>"$tmp/err" &&
    grep -q 'incremental, nothing: 1 rules kept' "$tmp/err"
}
check "a root-owned symlink to a root-owned file is obeyed" root_link

exit $fail
