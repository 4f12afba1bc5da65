#!/usr/bin/env bash
# fastrestore-boot against the real netfilter-persistent (with its
# iptables, ip6tables and ipset plugins, and the upstream tools), side by
# side in fresh network namespaces from the same files and settings: save
# writes the same rules.v4, rules.v6 (mode 0640 both) and ipsets; start
# from those files makes the same tables and sets; flush leaves the same
# tables and no sets; stop with FLUSH_ON_STOP=1 in
# /etc/default/netfilter-persistent flushes alike, and with 0 leaves the
# tables alike. Runs in a private mount namespace (sandbox.sh: /etc
# is the sandbox's), skipped without netfilter-persistent's ipset plugin.
#   np_side_by_side_test.sh FASTRESTORE SOURCE_DIR
set -u
. "$(dirname "$0")/sandbox.sh"
fr=$(realpath "$1")
src=$(realpath "$2")
plugins=/usr/share/netfilter-persistent/plugins.d
if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null ||
   ! command -v netfilter-persistent >/dev/null ||
   ! ls "$plugins"/*ipset* >/dev/null 2>&1 || ! command -v ipset >/dev/null; then
  echo "SKIP: needs root, network namespaces, netfilter-persistent and ipset-persistent"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
. "$(dirname "$0")/check.sh"
# netfilter-persistent runs the upstream tools (the sandbox's iptables
# alternative: nf_tables); fastrestore-boot the build, on the same backend.
export FASTRESTORE=$fr FASTRESTORE_RULES_DIR=$tmp/fr FASTRESTORE_SNAPSHOT_DIR=$tmp/snap \
  FASTRESTORE_RUN_DIR=$tmp/run FASTRESTORE_DEFAULTS=$tmp/defaults \
  FASTRESTORE_NP_DEFAULTS=/etc/default/netfilter-persistent \
  FASTRESTORE_IPTABLES=/usr/sbin/iptables-nft
boot=$src/packaging/fastrestore-boot
mkdir -p /etc/iptables "$tmp/fr" "$tmp/snap"
rm -f /etc/iptables/* /etc/default/netfilter-persistent
# A ruleset with a set, user chains, two tables and both families.
load() {
  ipset create blocked hash:ip && ipset add blocked 192.0.2.1 &&
  printf '%s\n' '*filter' ':INPUT DROP [0:0]' ':f2b - [0:0]' ':LOGDROP - [0:0]' \
    '-A INPUT -i lo -j ACCEPT' '-A INPUT -m set --match-set blocked src -j f2b' \
    '-A f2b -j LOGDROP' '-A LOGDROP -j DROP' 'COMMIT' '*nat' \
    '-A POSTROUTING -o eth0 -j MASQUERADE' 'COMMIT' | iptables-nft-restore &&
  printf '%s\n' '*filter' ':FORWARD DROP [0:0]' '-A INPUT -s 2001:db8::1/128 -j ACCEPT' \
    'COMMIT' | ip6tables-nft-restore
}
state() {
  for save in iptables-nft-save ip6tables-nft-save; do
    $save | grep -v '^#' | sed -E 's/\[[0-9]+:[0-9]+\]/[0:0]/'
  done
  ipset save | sort | sets
}
# A set's hash seed (initval) is drawn when it is made: not compared.
sets() { sed -E 's/ initval 0x[0-9a-f]+//'; }
body() { grep -v '^#' "$1"; }
ns() { unshare -n bash -c "$(declare -f load state sets); $1" 2>&1; }

# save: the same files.
ns "load && netfilter-persistent save >/dev/null 2>&1" >/dev/null
ns "load && '$boot' save >/dev/null" >/dev/null
for f in rules.v4 rules.v6; do
  check "save: $f as netfilter-persistent writes it" \
    test "$(body /etc/iptables/$f)" = "$(body "$tmp/fr/$f")"
  check "save: $f mode 0640 both" \
    test "$(stat -c %a /etc/iptables/$f) $(stat -c %a "$tmp/fr/$f")" = "640 640"
done
check "save: the sets as ipset-persistent writes them" \
  test "$(sort /etc/iptables/ipsets | sets)" = "$(sort "$tmp/fr/ipsets" | sets)"

# start: the same tables and sets from netfilter-persistent's own files
# (fastrestore-boot reads /etc/iptables here, without snapshots).
rm -f "$tmp/snap"/*
want=$(ns "netfilter-persistent start >/dev/null 2>&1; state")
got=$(FASTRESTORE_RULES_DIR=/etc/iptables ns "'$boot' start >/dev/null 2>&1; state")
check "start: the same tables and sets" test "$want" = "$got"
check "start: the tables hold the rules" grep -q -- "-A f2b -j LOGDROP" <<< "$got"

# flush, and stop with FLUSH_ON_STOP.
want=$(ns "load && netfilter-persistent flush >/dev/null 2>&1; state")
got=$(ns "load && '$boot' flush >/dev/null 2>&1; state")
check "flush: the same tables, no sets" test "$want" = "$got"
check "flush: no rule is left" bash -c '! grep -q "^-A" <<< "$1"' _ "$got"
for n in 0 1; do
  echo "FLUSH_ON_STOP=$n" > /etc/default/netfilter-persistent
  want=$(ns "load && netfilter-persistent stop >/dev/null 2>&1; state")
  got=$(ns "load && '$boot' stop >/dev/null 2>&1; state")
  check "stop, FLUSH_ON_STOP=$n: the same" test "$want" = "$got"
done
check "stop, FLUSH_ON_STOP=1: flushed" bash -c '! grep -q "^-A" <<< "$1"' _ "$got"
rm -f /etc/default/netfilter-persistent /etc/iptables/*
[ $fail = 0 ] && echo "ok: netfilter-persistent side by side"
exit $fail
