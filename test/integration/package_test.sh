#!/usr/bin/env bash
# The Debian package: built with CPack from the build tree, installed with
# apt-get, its binary running the README's example (and its multi-call
# links acting as the tools they are named after), registered with
# update-alternatives and unregistered (scripts/alternatives), then
# removed cleanly. lintian finds no error or warning in it; the unit is not
# enabled at install, and enabled by the admin its links go on remove.
# Runs in a private mount namespace (sandbox.sh): the machine's packages
# and alternatives are never touched.
#   package_test.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/sandbox.sh"
build=$(realpath "$1")
src=$(realpath "$2")
if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null ||
   ! command -v apt-get >/dev/null || ! command -v cpack >/dev/null; then
  echo "SKIP: needs root, network namespaces, apt-get and cpack"
  exit 77
fi
if dpkg-query -W -f='${Status}' fastrestore 2>/dev/null | grep -q "ok installed"; then
  echo "SKIP: a fastrestore package is installed already; not touching it"
  exit 77
fi
tmp=$(mktemp -d)
cleanup() {
  "$src/scripts/alternatives" remove >/dev/null 2>&1
  dpkg-query -W fastrestore >/dev/null 2>&1 &&
    apt-get remove -y -q fastrestore >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
. "$(dirname "$0")/check.sh"

"$src/scripts/package" "$tmp" "$build" > /dev/null 2>&1
deb=$(ls "$tmp"/fastrestore_*_*.deb 2>/dev/null | head -n1)
check "scripts/package builds a .deb" test -n "$deb"
[ -n "$deb" ] || exit 1
if command -v lintian > /dev/null; then
  lintian --pedantic "$deb" > "$tmp/lintian" 2>&1
  check "lintian: no errors or warnings" sh -c "! grep -E '^(E|W):' '$tmp/lintian'"
  grep -E '^(E|W):' "$tmp/lintian"
fi
size=$(dpkg-deb -f "$deb" Installed-Size)
check "Installed-Size counts the payload ($size KiB)" test "$size" -lt 4096
depends=$(dpkg-deb -f "$deb" Depends)
check "the package depends on iptables and its libraries ($depends)" \
  sh -c "echo '$depends' | grep -q 'iptables (' && echo '$depends' | grep -q 'libxtables12' && echo '$depends' | grep -q 'libip4tc2' && echo '$depends' | grep -q 'libip6tc2'"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" > "$tmp/install.log" 2>&1
check "apt-get installs it" test -x /usr/sbin/fastrestore
check "the installed binary runs" sh -c '/usr/sbin/fastrestore --version | grep -q "^fastrestore v"'
check "the man pages are installed" sh -c 'man -w fastrestore >/dev/null 2>&1 &&
  man -w fastrestore-boot >/dev/null 2>&1 && man -w fastrestore-alternatives >/dev/null 2>&1'
check "copyright and changelog are installed" \
  test -f /usr/share/doc/fastrestore/copyright -a -f /usr/share/doc/fastrestore/changelog.gz
check "the defaults file and the example configuration are conffiles" \
  sh -c "dpkg-query -W -f='\${Conffiles}' fastrestore | grep -q /etc/default/fastrestore &&
    dpkg-query -W -f='\${Conffiles}' fastrestore | grep -q /etc/fastrestore.conf"
check "the example configuration sets nothing" \
  sh -c "! grep -v '^#' /etc/fastrestore.conf | grep -q '[^[:space:]]'"
wants=/etc/systemd/system/multi-user.target.wants/fastrestore.service
check "the unit is not enabled at install" test ! -e "$wants" -a ! -L "$wants"
check "the unit, the boot script and the completion are installed" \
  test -f /usr/lib/systemd/system/fastrestore.service -a \
       -x /usr/libexec/fastrestore/fastrestore-boot -a \
       -f /usr/share/bash-completion/completions/fastrestore
out=$(unshare -n sh -c "/usr/sbin/fastrestore -v '$src/examples/web-server.rules' >/dev/null &&
  iptables-nft-save | grep -v '^#' > '$tmp/ref' &&
  /usr/libexec/fastrestore/iptables-save | grep -v '^#' > '$tmp/got' && echo done")
check "the README example loads" test "$out" = done
check "iptables-save (a link to it) prints what iptables-nft-save prints" \
  cmp -s "$tmp/ref" "$tmp/got"
out=$(unshare -n sh -c '/usr/libexec/fastrestore/ebtables -A FORWARD -j DROP &&
  /usr/libexec/fastrestore/ebtables -L FORWARD')
check "ebtables (a link to it) acts as ebtables" grep -q -- "^-j DROP$" <<< "$out"
# The boot script as installed, on the installed paths (/etc/iptables,
# /var/lib/fastrestore, /run/fastrestore: the sandbox's): save keeps
# IPv4, IPv6 and the bridge; in a fresh namespace start loads them,
# status says what start loaded and that the tables changed since, and
# reload (the unit's ExecReload) loads them again.
boot=/usr/libexec/fastrestore/fastrestore-boot
check "the unit reloads with the boot script" \
  grep -qx "ExecReload=$boot reload" /usr/lib/systemd/system/fastrestore.service
out=$(unshare -n sh -c "/usr/sbin/fastrestore '$src/examples/web-server.rules' &&
  ebtables-nft -A FORWARD -p ARP -j DROP && $boot save >/dev/null 2>&1 && echo saved")
check "boot: save writes the rules of IPv4, IPv6 and the bridge" \
  test "$out" = saved -a -f /etc/iptables/rules.v4 -a -f /etc/iptables/rules.v6 -a \
       -f /etc/iptables/rules.bridge -a -f /var/lib/fastrestore/rules.bridge.snap
out=$(unshare -n sh -c "$boot start >/dev/null 2>&1 && iptables-nft -F INPUT &&
  $boot status 2>&1 && $boot reload >/dev/null 2>&1 &&
  iptables-nft-save | grep -v '^#' && ebtables-nft-save | grep -v '^#'")
check "boot: status says what start loaded, and that INPUT changed since" \
  grep -q "IPv4: start at .*: loaded /var/lib/fastrestore/rules.v4.snap; the tables have changed since" <<< "$out"
check "boot: status says what a start would load" \
  grep -q "bridge: a start would load /var/lib/fastrestore/rules.bridge.snap" <<< "$out"
grep -- '^-A INPUT' "$tmp/ref" > "$tmp/ref-input"
check "boot: reload loads the saved rules again (INPUT's are back)" \
  sh -c "test -s '$tmp/ref-input' && grep -- '^-A INPUT' | cmp -s - '$tmp/ref-input'" <<< "$out"
check "boot: start and reload load the bridge tables" \
  grep -qx -- '-A FORWARD -p ARP -j DROP' <<< "$out"
# The machine-readable outputs, installed: --stats=json, diff --json.
out=$(unshare -n sh -c "/usr/sbin/fastrestore --stats=json '$src/examples/web-server.rules' 2>&1 >/dev/null;
  /usr/sbin/fastrestore diff --json '$src/examples/web-server.rules'")
check "--stats=json and diff --json, installed" \
  bash -c 'grep -q "^{\"table\":\"filter\",.*\"status\":\"sent\"" <<< "$1" && grep -qx "{\"changed\":false,\"tables\":\[\]}" <<< "$1"' _ "$out"
# apply, installed (its state in /run/fastrestore/apply, the sandbox's):
# not confirmed, the tables go back.
out=$(unshare -n sh -c "iptables-nft -A INPUT -s 192.0.2.9 -j ACCEPT &&
  /usr/sbin/fastrestore apply --confirm 1 '$src/examples/web-server.rules' </dev/null >/dev/null 2>&1 &&
  sleep 2.5 && iptables-nft-save | grep -c -- '-A INPUT'")
check "apply: not confirmed, the tables are put back" test "$out" = 1
rm -rf /etc/iptables /var/lib/fastrestore /run/fastrestore
# Registered with update-alternatives, the system's names are fastrestore;
# iptables itself stays iptables-nft; unregistered, all is as before.
before=$(readlink -f /usr/sbin/iptables-restore /usr/sbin/iptables /usr/sbin/ebtables-save)
"$src/scripts/alternatives" install > "$tmp/alt.log" 2>&1
check "alternatives: iptables-restore is fastrestore" \
  test "$(readlink -f /usr/sbin/iptables-restore)" = /usr/sbin/fastrestore
check "alternatives: ip6tables-save and ebtables are fastrestore" \
  test "$(readlink -f /usr/sbin/ip6tables-save)" = /usr/sbin/fastrestore -a \
       "$(readlink -f /usr/sbin/ebtables)" = /usr/sbin/fastrestore
check "alternatives: iptables is still iptables-nft" \
  sh -c 'iptables -V | grep -q "nf_tables"'
out=$(unshare -n sh -c "iptables-restore '$src/examples/web-server.rules' &&
  iptables-save | grep -v '^#'")
check "alternatives: iptables-restore and iptables-save work" \
  test "$out" = "$(cat "$tmp/ref")"
"$src/scripts/alternatives" remove >> "$tmp/alt.log" 2>&1
check "alternatives: removed, the names are as before" \
  test "$(readlink -f /usr/sbin/iptables-restore /usr/sbin/iptables /usr/sbin/ebtables-save)" = "$before"
# With --commands (nf_tables chosen), iptables and ip6tables are
# fastrestore's command line too; removed, all is as before. On legacy
# the command stays iptables-legacy.
"$src/scripts/alternatives" install --commands >> "$tmp/alt.log" 2>&1
check "alternatives --commands: iptables and ip6tables are fastrestore" \
  test "$(readlink -f /usr/sbin/iptables)" = /usr/sbin/fastrestore -a \
       "$(readlink -f /usr/sbin/ip6tables)" = /usr/sbin/fastrestore -a \
       "$(readlink -f /usr/sbin/iptables-restore)" = /usr/sbin/fastrestore
check "alternatives --commands: iptables -V is the reference's line" \
  test "$(iptables -V)" = "iptables v1.8.9 (nf_tables)"
out=$(unshare -n sh -c 'iptables -N f2b && iptables -A f2b -s 192.0.2.1 -j DROP &&
  iptables -C f2b -s 192.0.2.1 -j DROP && ip6tables -A INPUT -j ACCEPT &&
  iptables-nft -S f2b && ip6tables-nft -S INPUT')
check "alternatives --commands: the commands work" \
  test "$out" = "$(printf -- '-N f2b\n-A f2b -s 192.0.2.1/32 -j DROP\n-P INPUT ACCEPT\n-A INPUT -j ACCEPT')"
"$src/scripts/alternatives" remove >> "$tmp/alt.log" 2>&1
check "alternatives --commands: removed, the names are as before" \
  test "$(readlink -f /usr/sbin/iptables-restore /usr/sbin/iptables /usr/sbin/ebtables-save)" = "$before"
chosen=$(update-alternatives --query iptables | sed -n 's/^Value: //p')
update-alternatives --quiet --set iptables /usr/sbin/iptables-legacy
"$src/scripts/alternatives" install --commands > "$tmp/alt-legacy.log" 2>&1
check "alternatives --commands on legacy: iptables stays iptables-legacy" \
  test "$(readlink -f /usr/sbin/iptables)" = "$(readlink -f /usr/sbin/iptables-legacy)"
check "alternatives --commands on legacy: it says why" \
  grep -q "not offered on legacy" "$tmp/alt-legacy.log"
"$src/scripts/alternatives" remove >> "$tmp/alt.log" 2>&1
update-alternatives --quiet --set iptables "$chosen"
check "alternatives: back to the backend chosen before" \
  test "$(readlink -f /usr/sbin/iptables-restore /usr/sbin/iptables /usr/sbin/ebtables-save)" = "$before"
# Registered again and the unit enabled, then the package removed: its
# prerm unregisters it, its postrm disables the unit.
/usr/libexec/fastrestore/fastrestore-alternatives install >> "$tmp/alt.log" 2>&1
systemctl enable fastrestore > "$tmp/enable.log" 2>&1
check "the admin enables the unit" test -L "$wants"
check "alternatives: the installed script registers it" \
  test "$(readlink -f /usr/sbin/iptables-restore)" = /usr/sbin/fastrestore
apt-get remove -y -q fastrestore > "$tmp/remove.log" 2>&1
check "removing the package unregisters it" \
  test "$(readlink -f /usr/sbin/iptables-restore /usr/sbin/iptables /usr/sbin/ebtables-save)" = "$before"
check "apt-get removes it" test ! -e /usr/sbin/fastrestore
check "and its links" test ! -e /usr/libexec/fastrestore
check "and the unit's links" test ! -e "$wants" -a ! -L "$wants"
# The boot's saves (a save's leftovers too) and the alternatives' state
# go on purge; an admin's own file in /var/lib/fastrestore stays, and the
# directory with it; without one, the directory goes.
lib=/var/lib/fastrestore
mkdir -p $lib
touch $lib/rules.v4.snap $lib/rules.v4.snap.source $lib/rules.v6.snap.new \
  $lib/.rules.v6.snap.new.AbC123 $lib/alternatives.state $lib/mine.rules
apt-get purge -y -q fastrestore > "$tmp/purge.log" 2>&1
check "purged, nothing of it is left in /etc" \
  sh -c "! find /etc -name 'fastrestore*' | grep -q ."
check "purged, its files in $lib go and the admin's stays" \
  test "$(ls -A $lib)" = mine.rules
rm $lib/mine.rules
touch $lib/rules.v6.snap $lib/rules.v6.snap.source.new
sh "$src/packaging/postrm" purge
check "purged with only its files there, $lib goes" test ! -e $lib
[ $fail = 0 ] && echo "ok: package"
exit $fail
