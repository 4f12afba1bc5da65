#!/usr/bin/env bash
# The boot script and unit, and bash completion:
#  - fastrestore-boot start loads netfilter-persistent's text rules, or
#    the binary snapshot when it is newer, for IPv4 and IPv6 (in private
#    network namespaces, with its paths pointed at a temporary directory);
#  - the unit file passes systemd-analyze verify (when systemd is there;
#    the man page it names need not be installed);
#  - the completion offers options, table names and, for the ebtables
#    command, the chain names the kernel has.
#   packaging_files_test.sh FASTRESTORE SOURCE_DIR
set -u
src=$(realpath "$2")
. "$(dirname "$0")/common.sh"
export FASTRESTORE=$fr FASTRESTORE_RULES_DIR=$tmp/etc FASTRESTORE_SNAPSHOT_DIR=$tmp/snap
boot=$src/packaging/fastrestore-boot
mkdir -p "$tmp/etc"
printf '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -s 192.0.2.1/32 -j ACCEPT\nCOMMIT\n' > "$tmp/etc/rules.v4"
printf '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -s 2001:db8::1/128 -j ACCEPT\nCOMMIT\n' > "$tmp/etc/rules.v6"

out=$(unshare -n sh -c "'$boot' start >/dev/null && iptables-nft-save && ip6tables-nft-save")
check "boot: the text rules of both families load" \
  sh -c "grep -q -- '-A INPUT -s 192.0.2.1/32 -j ACCEPT' <<EOF2
$out
EOF2
grep -q -- '-A INPUT -s 2001:db8::1/128 -j ACCEPT' <<EOF2
$out
EOF2"
# A snapshot of another state, newer than the text: it wins.
unshare -n sh -c "printf '*filter\n-A INPUT -s 198.51.100.7/32 -j DROP\nCOMMIT\n' | '$fr' &&
  '$boot' save" > /dev/null 2>&1
touch -d '1 minute ago' "$tmp/etc/rules.v4" "$tmp/etc/rules.v6"
out=$(unshare -n sh -c "'$boot' start && iptables-nft-save")
check "boot: a newer snapshot is preferred" grep -q -- '-A INPUT -s 198.51.100.7/32 -j DROP' <<< "$out"
check "boot: and says so" grep -q "IPv4 from $tmp/snap/rules.v4.snap" <<< "$out"
# Text rules newer than the snapshot: the text wins.
touch "$tmp/etc/rules.v4"
out=$(unshare -n sh -c "'$boot' start >/dev/null && iptables-nft-save")
check "boot: newer text rules are preferred" grep -q -- '-A INPUT -s 192.0.2.1/32 -j ACCEPT' <<< "$out"
if command -v systemd-analyze >/dev/null; then
  mkdir -p "$tmp/unit"
  sed "s|/usr/libexec/fastrestore/fastrestore-boot|$boot|" \
    "$src/packaging/fastrestore.service" > "$tmp/unit/fastrestore.service"
  check "the unit passes systemd-analyze verify" \
    sh -c "systemd-analyze verify '$tmp/unit/fastrestore.service' 2>&1 |
      grep -v -e 'Cannot add dependency job' -e \"Command 'man fastrestore\" |
      { ! grep -q .; }"
fi
check "the unit is ordered before network-pre.target" \
  grep -q '^Before=network-pre.target' "$src/packaging/fastrestore.service"

# Completion, with the build's binary first on PATH.
mkdir -p "$tmp/bin"
ln -s "$fr" "$tmp/bin/fastrestore"
complete_words() { # WORD... (the last one is completed)
  PATH="$tmp/bin:$PATH" bash -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _fastrestore; printf "%s\n" "${COMPREPLY[@]}"' _ \
    "$src/packaging/fastrestore.bash-completion" "$@"
}
check "completion: restore options" grep -qx -- --noflush <<< "$(complete_words fastrestore --nof)"
check "completion: save options" grep -qx -- --binary <<< "$(complete_words fastrestore save --bi)"
check "completion: table names" \
  test "$(complete_words fastrestore save -t "" | tr '\n' ' ')" = "filter nat mangle raw security "
check "completion: bridge table names" \
  test "$(complete_words fastrestore ebtables -t "" | tr '\n' ' ')" = "filter nat "
out=$(unshare -n bash -c "$(declare -f complete_words); tmp='$tmp' src='$src'
  '$fr' ebtables -N mychain && complete_words fastrestore ebtables -A my")
check "completion: the kernel's chain names" test "$out" = mychain
[ $fail = 0 ] && echo "ok: packaging files"
exit $fail
