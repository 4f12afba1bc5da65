#!/usr/bin/env bash
# --incremental and names whose meaning lives outside the rule's text: a
# line whose parsing looked a name up (a user, a group, a device group or
# realm name from /etc/iproute2) is parsed again on every load, so that
# when the name's number changed between two loads of the same file the
# kernel holds the new one, as after a full restore; a rule the kernel
# settles when it is made (-m cgroup --path) is made again on every load
# while the rules around it keep their handles. Each case runs in private
# mount and network namespaces; the name files are bind-mounted there.
#   incremental_lookups_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"
export FASTRESTORE_JOURNAL_DIR=$tmp/journal

# renamed TARGET A B RULES: RULES loaded with --incremental while A is
# bind-mounted over TARGET, then again over B; the save must equal a full
# restore's under B (and differ from one under A, so that the case tests
# something).
renamed() {
  local target=$1 a=$2 b=$3 rules=$4
  # A full restore's save, printed with the machine's own name files (the
  # save would print the names back under A or B alike).
  local full="unshare -m -n sh -c \"'$fr' '$rules' && umount '$target' &&
    iptables-nft-save\" | grep -v '^#'"
  unshare -m -n bash -c "
    mount --bind '$a' '$target' || exit 1
    '$fr' --incremental '$rules' || exit 1
    $full >'$tmp/under_a'
    umount '$target'; mount --bind '$b' '$target' || exit 1
    '$fr' --incremental '$rules' || exit 1
    $full >'$tmp/want'
    umount '$target'
    iptables-nft-save | grep -v '^#' >'$tmp/got'" || return 1
  ! cmp -s "$tmp/under_a" "$tmp/want" && diff "$tmp/want" "$tmp/got"
}

cp /etc/passwd "$tmp/passwd.a"
echo "frtest:x:1234:1234::/nonexistent:/usr/sbin/nologin" >>"$tmp/passwd.a"
sed s/1234:1234/5678:5678/ "$tmp/passwd.a" >"$tmp/passwd.b"
cp /etc/group "$tmp/group.a"
echo "frgroup:x:2345:" >>"$tmp/group.a"
sed s/2345/6789/ "$tmp/group.a" >"$tmp/group.b"
cat >"$tmp/uid.rules" <<'RULES'
*filter
:OUTPUT ACCEPT [0:0]
-A OUTPUT -o lo -j ACCEPT
-A OUTPUT -m owner --uid-owner frtest -j DROP
COMMIT
RULES
sed 's/--uid-owner frtest/--gid-owner frgroup/' "$tmp/uid.rules" >"$tmp/gid.rules"
check "a user's new uid is loaded" \
  renamed /etc/passwd "$tmp/passwd.a" "$tmp/passwd.b" "$tmp/uid.rules"
check "a group's new gid is loaded" \
  renamed /etc/group "$tmp/group.a" "$tmp/group.b" "$tmp/gid.rules"

printf '0\tdefault\n5\tlab\n' >"$tmp/devgroup.a"
printf '0\tdefault\n7\tlab\n' >"$tmp/devgroup.b"
cat >"$tmp/devgroup.rules" <<'RULES'
*filter
:FORWARD ACCEPT [0:0]
-A FORWARD -i lo -j ACCEPT
-A FORWARD -m devgroup --src-group lab -j ACCEPT
COMMIT
RULES
check "a device group's new number (/etc/iproute2/group) is loaded" \
  renamed /etc/iproute2/group "$tmp/devgroup.a" "$tmp/devgroup.b" \
  "$tmp/devgroup.rules"

printf '0\tcosmos\n5\tlab\n' >"$tmp/realms.a"
printf '0\tcosmos\n7\tlab\n' >"$tmp/realms.b"
sed 's/-m devgroup --src-group lab/-m realm --realm lab/' \
  "$tmp/devgroup.rules" >"$tmp/realm.rules"
check "a realm's new number (/etc/iproute2/rt_realms) is loaded" \
  renamed /etc/iproute2/rt_realms "$tmp/realms.a" "$tmp/realms.b" \
  "$tmp/realm.rules"

# The cgroup rule is made again on a reload (its counters start from
# zero, as after a full restore); the rules before and after it are kept
# with their counters.
cat >"$tmp/cgroup.rules" <<'RULES'
*filter
:OUTPUT ACCEPT [0:0]
-A OUTPUT -o lo -j ACCEPT
-A OUTPUT -m cgroup --path / -j DROP
-A OUTPUT -p udp -j ACCEPT
COMMIT
RULES
sed 's/^-A/[7:700] -A/' "$tmp/cgroup.rules" >"$tmp/cgroup_counted.rules"
made_again() {
  unshare -n bash -c "
    '$fr' -c --incremental '$tmp/cgroup_counted.rules' || exit 1
    '$fr' -v --incremental '$tmp/cgroup.rules' || exit 1
    iptables-nft-save -c" >"$tmp/out" 2>&1 &&
    grep -qF "chain \`OUTPUT': 2 kept, 1 added, 1 removed" "$tmp/out" &&
    grep -qxF -- '[7:700] -A OUTPUT -o lo -j ACCEPT' "$tmp/out" &&
    grep -qxF -- '[0:0] -A OUTPUT -m cgroup --path "/" -j DROP' "$tmp/out" &&
    grep -qxF -- '[7:700] -A OUTPUT -p udp -j ACCEPT' "$tmp/out"
}
check "a -m cgroup --path rule is made again, its neighbours kept" made_again

exit $fail
