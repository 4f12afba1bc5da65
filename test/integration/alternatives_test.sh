#!/usr/bin/env bash
# fastrestore-alternatives (scripts/alternatives) on three kinds of host:
# iptables on nf_tables in auto mode, on nf_tables chosen by hand, and on
# legacy x_tables chosen by hand. On each: install keeps the admin's
# iptables command and backend, iptables-restore and iptables-save (run by
# those names, as callers do) are fastrestore on that backend, and remove
# gives back update-alternatives --query exactly as it was; a selection the
# admin changes after install is left as the admin set it. Runs in a
# private mount namespace (sandbox.sh): the machine's alternatives are
# never touched.
#   alternatives_test.sh FASTRESTORE SOURCE_DIR
set -u
. "$(dirname "$0")/sandbox.sh"
src=$(realpath "$2")
. "$(dirname "$0")/common.sh"
command -v update-alternatives >/dev/null || { echo "SKIP: no update-alternatives"; exit 77; }
links=$tmp/links
mkdir -p "$links"
for n in iptables-restore ip6tables-restore iptables-save ip6tables-save \
  iptables-legacy-restore ip6tables-legacy-restore iptables-legacy-save \
  ip6tables-legacy-save iptables-nft-restore ip6tables-nft-restore \
  iptables-nft-save ip6tables-nft-save ebtables ebtables-restore ebtables-save; do
  ln -s "$fr" "$links/$n"
done
alt() { "$src/scripts/alternatives" "$@" "$links"; }
queries() {
  for g in iptables ip6tables ebtables; do update-alternatives --query $g; done
}
rules='*filter
-A INPUT -s 192.0.2.44/32 -j DROP
COMMIT'
# Loads $rules with iptables-restore (by name, along PATH) in a private
# network namespace; prints "legacy", "nft" or "none" for where it went,
# then what iptables-save and iptables -V say.
load() {
  unshare -n bash -c '
    iptables-restore <<< "$1" || echo "restore failed"
    where=
    iptables-legacy-save 2>/dev/null | grep -q 192.0.2.44 && where=legacy
    iptables-nft-save 2>/dev/null | grep -q 192.0.2.44 && where=$where${where:+,}nft
    echo "${where:-none}"
    iptables-save | grep -c 192.0.2.44
    iptables -V' _ "$rules"
}

# Never installed: remove changes nothing and succeeds.
queries > "$tmp/none.before"
alt remove > "$tmp/none.remove" 2>&1
check "remove without install: status 0" test $? = 0
queries > "$tmp/none.after"
check "remove without install: nothing changed" cmp -s "$tmp/none.before" "$tmp/none.after"

for host in auto-nft manual-nft manual-legacy; do
  case $host in
    auto-nft) update-alternatives --quiet --auto iptables; update-alternatives --quiet --auto ip6tables; backend=nft ;;
    manual-nft) update-alternatives --quiet --set iptables /usr/sbin/iptables-nft; update-alternatives --quiet --set ip6tables /usr/sbin/ip6tables-nft; backend=nft ;;
    manual-legacy) update-alternatives --quiet --set iptables /usr/sbin/iptables-legacy; update-alternatives --quiet --set ip6tables /usr/sbin/ip6tables-legacy; backend=legacy ;;
  esac
  queries > "$tmp/$host.before"
  alt install > "$tmp/$host.install" 2>&1
  check "$host: install succeeds" test $? = 0
  check "$host: iptables-restore is fastrestore" \
    test "$(readlink -f /usr/sbin/iptables-restore)" = "$(readlink -f "$fr")"
  check "$host: ip6tables-save and ebtables are fastrestore" \
    test "$(readlink -f /usr/sbin/ip6tables-save)" = "$(readlink -f "$fr")" -a \
         "$(readlink -f /usr/sbin/ebtables)" = "$(readlink -f "$fr")"
  out=$(load)
  check "$host: iptables-restore loads into $backend" test "$(sed -n 1p <<< "$out")" = "$backend"
  check "$host: iptables-save reads $backend" test "$(sed -n 2p <<< "$out")" = 1
  [ $backend = legacy ] && label="(legacy)" || label="(nf_tables)"
  check "$host: iptables stays iptables-$backend" grep -qF "$label" <<< "$(sed -n 3p <<< "$out")"
  check "$host: ip6tables-restore -V says $backend" \
    grep -qF "$label" <<< "$(ip6tables-restore -V)"
  alt remove > "$tmp/$host.remove" 2>&1
  queries > "$tmp/$host.after"
  check "$host: remove gives back the selections byte for byte" \
    cmp -s "$tmp/$host.before" "$tmp/$host.after"
  cmp -s "$tmp/$host.before" "$tmp/$host.after" ||
    diff "$tmp/$host.before" "$tmp/$host.after"
  out=$(load)
  check "$host: after remove, iptables-restore is the original on $backend" \
    test "$(sed -n 1p <<< "$out")" = "$backend"
done

# The admin changes the selection after install: remove leaves it so.
update-alternatives --quiet --set iptables /usr/sbin/iptables-legacy
alt install > /dev/null 2>&1
update-alternatives --quiet --set iptables /usr/sbin/iptables-nft
alt remove > "$tmp/changed.remove" 2>&1
check "a selection changed after install stays (manual)" \
  test "$(update-alternatives --query iptables | sed -n 's/^Status: //p')" = manual
check "a selection changed after install stays (iptables-nft)" \
  test "$(update-alternatives --query iptables | sed -n 's/^Value: //p')" = /usr/sbin/iptables-nft
check "and fastrestore is unregistered" \
  sh -c "! update-alternatives --query iptables | grep -q '$links'"
check "remove says it left the selection" grep -q "left as it is" "$tmp/changed.remove"
# divert: the tools' own names become fastrestore, each on its backend;
# remove puts the originals back.
dpkg-divert --list > "$tmp/diversions.before"
ref_v=$(iptables-legacy-restore -V)
alt divert > "$tmp/divert.log" 2>&1
check "divert: iptables-legacy-restore is fastrestore on legacy" \
  grep -q "^fastrestore .*(legacy)" <<< "$(iptables-legacy-restore -V)"
check "divert: ip6tables-nft-save is fastrestore on nf_tables" \
  grep -q "^fastrestore .*(nf_tables)" <<< "$(ip6tables-nft-save -V)"
out=$(unshare -n bash -c 'iptables-legacy-restore <<< "$1" && xtables-legacy-multi iptables-legacy-save' _ "$rules")
check "divert: iptables-legacy-restore loads into x_tables" grep -q 192.0.2.44 <<< "$out"
alt remove > "$tmp/undivert.log" 2>&1
check "remove undoes the diversions" \
  test "$(iptables-legacy-restore -V)" = "$ref_v"
dpkg-divert --list > "$tmp/diversions.after"
check "and dpkg's diversions are as before" cmp -s "$tmp/diversions.before" "$tmp/diversions.after"
[ $fail = 0 ] && echo "ok: alternatives"
exit $fail
