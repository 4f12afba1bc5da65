#!/usr/bin/env bash
# The boot unit and bash completion:
#  - the unit file passes systemd-analyze verify (when systemd is there;
#    the man page it names need not be installed) and excludes
#    netfilter-persistent's unit (the boot script: boot_test.sh);
#  - the completion offers options, table names and, for the ebtables
#    command, the chain names the kernel has.
#   packaging_files_test.sh FASTRESTORE SOURCE_DIR
set -u
src=$(realpath "$2")
. "$(dirname "$0")/common.sh"
boot=$src/packaging/fastrestore-boot
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
check "the unit and netfilter-persistent's exclude each other" \
  grep -q '^Conflicts=.*netfilter-persistent.service' "$src/packaging/fastrestore.service"

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
# Only options: no words of the usage text (-restore, -save), and no save
# option among the restore options.
all=$(complete_words fastrestore -)
check "completion: only real options" \
  sh -c "! grep -qx -e -restore -e -save -e --binary -e -legacy- <<EOF
$all
EOF"
for opt in $all; do
  case $opt in
    --*) grep -q -- "$opt" <<< "$("$fr" --help)" || { echo "not an option: $opt"; fail=1; } ;;
  esac
done
check "completion: restore's short and long options" \
  sh -c "grep -qx -- -n <<EOF && grep -qx -- --all-or-nothing <<EOF2
$all
EOF
$all
EOF2"
check "completion: diff options" \
  grep -qx -- --color <<< "$(complete_words fastrestore diff --co)"
check "completion: diff's --color values" \
  test "$(complete_words fastrestore diff --color "" | tr '\n' ' ')" = "auto always never "
check "completion: ebtables takes --concurrent" \
  grep -qx -- --concurrent <<< "$(complete_words fastrestore ebtables --con)"
check "completion: table names" \
  test "$(complete_words fastrestore save -t "" | tr '\n' ' ')" = "filter nat mangle raw security "
check "completion: bridge table names" \
  test "$(complete_words fastrestore ebtables -t "" | tr '\n' ' ')" = "filter nat "
out=$(unshare -n bash -c "$(declare -f complete_words); tmp='$tmp' src='$src'
  '$fr' ebtables -N mychain && complete_words fastrestore ebtables -A my")
check "completion: the kernel's chain names" test "$out" = mychain
check "completion: iptables options" \
  grep -qx -- --line-numbers <<< "$(complete_words fastrestore iptables --line)"
check "completion: the subcommands" \
  grep -qx ip6tables <<< "$(complete_words fastrestore ip6)"
out=$(unshare -n bash -c "$(declare -f complete_words); tmp='$tmp' src='$src'
  '$fr' ip6tables -N v6chain && '$fr' iptables -N v4chain &&
  complete_words fastrestore ip6tables -A v")
check "completion: ip6tables chain names (the IPv6 table's)" test "$out" = v6chain
[ $fail = 0 ] && echo "ok: packaging files"
exit $fail
