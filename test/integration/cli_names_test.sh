#!/usr/bin/env bash
# The command line under each program name fastrestore answers to, against
# the tool of that name: bad options, missing and extra arguments give the
# same message and exit status (compared byte for byte, both invoked as
# ./NAME), as do -w and -W with every kind of value; -V names the backend the program would use, also when it is
# reached through links named as update-alternatives names them; under a
# tool's name there are no subcommands.
#   cli_names_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"
mkdir -p "$tmp/ref" "$tmp/fr" "$tmp/work"
run() { # DIR NAME ARGS...: output and status, invoked as ./NAME
  local dir=$1 name=$2
  shift 2
  (cd "$dir" && unshare -n "./$name" "$@" < /dev/null 2>&1; echo "status $?")
}
for name in iptables-nft-restore iptables-legacy-restore \
  ip6tables-nft-restore ip6tables-legacy-restore iptables-nft-save \
  iptables-legacy-save ip6tables-nft-save ip6tables-legacy-save \
  ebtables-nft-restore ebtables-nft-save; do
  ln -s "/usr/sbin/$name" "$tmp/ref/$name"
  ln -s "$fr" "$tmp/fr/$name"
  argsets=("--bogus" "-cx" "--bogus=1" "--table" "-T")
  case $name in
    *-restore) argsets+=("--noflush=1") ;;
  esac
  # -w and -W take the next word unless it starts with - or !: the
  # nf_tables tool ignores it, the legacy tool reads a number.
  case $name in
    ip*tables-*-restore)
      argsets+=("-w $tmp/work/none1" "-w abc $tmp/work/none1" "-w"
        "-w !x $tmp/work/none1" "--wait=abc" "-W abc" "-W" "-W 5"
        "-w 0x5 -W 1000000" "-w 2 -W 5 $tmp/work/none1") ;;
  esac
  case $name in
    ebtables-*-restore) ;; # it ignores arguments that are no options
    *-save) argsets+=("a b") ;;
    *) argsets+=("$tmp/work/none1 $tmp/work/none2") ;;
  esac
  for args in "${argsets[@]}"; do
    # shellcheck disable=SC2086
    want=$(run "$tmp/ref" "$name" $args)
    # shellcheck disable=SC2086
    got=$(run "$tmp/fr" "$name" $args)
    check "$name $args: as the original" test "$got" = "$want"
    [ "$got" = "$want" ] || diff <(echo "$want") <(echo "$got")
  done
  case $name in
    *legacy*) backend="(legacy)" ;;
    *) backend="(nf_tables)" ;;
  esac
  check "$name -V names the backend $backend" \
    grep -qF "$backend" <<< "$(run "$tmp/fr" "$name" -V)"
done

# Under fastrestore's own name, bad options exit 1 too.
for args in "--bogus" "save --bogus" "commit --bogus" "a b"; do
  # shellcheck disable=SC2086
  out=$(run "$tmp/fr" fastrestore $args 2>&1)
  ln -sf "$fr" "$tmp/fr/fastrestore"
  # shellcheck disable=SC2086
  out=$(run "$tmp/fr" fastrestore $args)
  check "fastrestore $args: exits 1" grep -qx "status 1" <<< "$out"
done
check "fastrestore --legacy -V: (legacy)" grep -qF "(legacy)" <<< "$(run "$tmp/fr" fastrestore --legacy -V)"
check "fastrestore -V: (nf_tables)" grep -qF "(nf_tables)" <<< "$(run "$tmp/fr" fastrestore -V)"
check "fastrestore save --legacy -V: (legacy)" grep -qF "(legacy)" <<< "$(run "$tmp/fr" fastrestore save --legacy -V)"
check "fastrestore commit -V: (nf_tables)" grep -qF "(nf_tables)" <<< "$(run "$tmp/fr" fastrestore commit -V)"
check "fastrestore commit --legacy -V: (legacy)" grep -qF "(legacy)" <<< "$(run "$tmp/fr" fastrestore commit --legacy -V)"

# Links as update-alternatives makes them: /usr/sbin/iptables-restore ->
# /etc/alternatives/iptables-restore -> .../iptables-legacy-restore ->
# fastrestore. Called by the name alone (along PATH) or by its path, it
# works on legacy x_tables.
mkdir -p "$tmp/alt" "$tmp/sbin" "$tmp/libexec"
for tool in iptables-legacy-restore iptables-legacy-save ip6tables-legacy-restore iptables-nft-restore; do
  ln -s "$fr" "$tmp/libexec/$tool"
done
ln -s "$tmp/libexec/iptables-legacy-restore" "$tmp/alt/iptables-restore"
ln -s "$tmp/alt/iptables-restore" "$tmp/sbin/iptables-restore"
ln -s "$tmp/libexec/iptables-legacy-save" "$tmp/alt/iptables-save"
ln -s "../alt/iptables-save" "$tmp/sbin/iptables-save"
ln -s "$tmp/libexec/ip6tables-legacy-restore" "$tmp/alt/ip6tables-restore"
ln -s "$tmp/alt/ip6tables-restore" "$tmp/sbin/ip6tables-restore"
check "iptables-restore behind a legacy link: -V says legacy" \
  grep -qF "(legacy)" <<< "$(PATH="$tmp/sbin:$PATH" iptables-restore -V)"
check "iptables-save behind a legacy link (relative): -V says legacy" \
  grep -qF "(legacy)" <<< "$("$tmp/sbin/iptables-save" -V)"
printf '*filter\n-A INPUT -s 192.0.2.5/32 -j DROP\nCOMMIT\n' > "$tmp/work/rules"
out=$(unshare -n sh -c "PATH='$tmp/sbin:$PATH' iptables-restore '$tmp/work/rules' &&
  iptables-legacy-save && echo --- && iptables-nft-save")
check "iptables-restore behind a legacy link loads into x_tables" \
  test "$(sed -n '/^---$/q;/^-A INPUT -s 192.0.2.5\/32 -j DROP$/p' <<< "$out")" = "-A INPUT -s 192.0.2.5/32 -j DROP"
check "and not into nf_tables" \
  test -z "$(sed -n '/^---$/,$p' <<< "$out" | grep -- '192.0.2.5')"
out=$(unshare -n sh -c "'$tmp/sbin/ip6tables-restore' -V")
check "ip6tables-restore behind a legacy link: -V says legacy" grep -qF "(legacy)" <<< "$out"
rm "$tmp/alt/iptables-restore"
ln -s "$tmp/libexec/iptables-nft-restore" "$tmp/alt/iptables-restore"
check "iptables-restore behind an nft link: -V says nf_tables" \
  grep -qF "(nf_tables)" <<< "$("$tmp/sbin/iptables-restore" -V)"

# A name that is no tool's (ip6tables-mine) is fastrestore's own: IPv4
# unless -6 says otherwise.
ln -s "$fr" "$tmp/fr/ip6tables-mine"
out=$(unshare -n sh -c "'$tmp/fr/ip6tables-mine' '$tmp/work/rules' && iptables-nft-save")
check "a name that is no tool's reads IPv4" grep -q -- "-A INPUT -s 192.0.2.5/32 -j DROP" <<< "$out"

# Under a tool's name, save and commit are file names.
ln -s "$fr" "$tmp/fr/iptables-restore"
for file in save commit ebtables; do
  printf '*filter\n-A INPUT -s 192.0.2.7/32 -j ACCEPT\nCOMMIT\n' > "$tmp/work/$file"
  out=$(cd "$tmp/work" && unshare -n sh -c "'$tmp/fr/iptables-restore' $file && iptables-nft-save")
  check "iptables-restore $file loads the file $file" grep -q -- "-A INPUT -s 192.0.2.7/32 -j ACCEPT" <<< "$out"
done
[ $fail = 0 ] && echo "ok: command line under every name"
exit $fail
