#!/usr/bin/env bash
# fastrestore ebtables against ebtables-nft: the same commands, one
# process each, into two fresh namespaces; every command must exit with the
# same status and print the same (-L listings, -v), and the tables must end up
# the same (ebtables-nft-save and
# nft list ruleset). A program named ebtables (a symlink) must act alike.
#   ebtables_cli_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"
ln -s "$fr" "$tmp/ebtables"
cat > "$tmp/commands" <<'CMDS'
-A INPUT -p IPv4 -i eth0 -j ACCEPT
-A INPUT --log-prefix "a b" --log -j DROP
-N foo
-A foo -p ARP --arp-op Request -j ACCEPT
-A INPUT -j foo
-L
-L foo --Ln
-I INPUT 2 -s 00:11:22:33:44:55 -j DROP
-P FORWARD DROP
-t nat -A POSTROUTING -o eth1 -j snat --to-source 00:11:22:33:44:66
-D INPUT -p IPv4 -i eth0 -j ACCEPT
-E foo bar
-Z
-A INPUT --among-src 00:11:22:33:44:55,00:11:22:33:44:77 -j DROP
-L --Lc
-t nat -L --Ln --Lc
-L nosuch
--Lc
-L --Lx --Ln
-L --Lmac2 --Lx
-F bar
-A bar -p IPv6 -j DROP
-X bar
-A nochain -j ACCEPT
-A INPUT --bogus
-I INPUT 9 -j ACCEPT
-D INPUT -p ARP -j DROP
-t nat -A PREROUTING -j DROP
-N baz
-P baz DROP
-A baz -j CONTINUE
-I baz 2 -p ARP -j ACCEPT
-I baz 4 -j ACCEPT
-D baz 3
-D baz 2
-D baz 1
-L baz
-X baz
-N pol
-N pol
-A pol -j ACCEPT
-X pol
-A FORWARD --among-dst 00:11:22:33:44:55 -j DROP
-Z
-t nat --init-table
-t nat -A OUTPUT -j ACCEPT
--init-table
-A FORWARD -j DROP
--concurrent -A FORWARD -j ACCEPT
-A FORWARD --concurrent -p ARP -j ACCEPT
-v -L
-L -v
-L FORWARD -Z
-Z FORWARD -L FORWARD
-C FORWARD 1 10 20
-C FORWARD 10 20
-C FORWARD 10
-C FORWARD 1 x 20
--check FORWARD -j ACCEPT
--check FORWARD -p ARP -j ACCEPT
--check FORWARD -j RETURN
--check nosuch -j ACCEPT
-N newc -P DROP
-v -A FORWARD -p IPv4 -j ACCEPT
-v -I FORWARD 2 -j ACCEPT
-L FORWARD INPUT
-A FORWARD -L
--bogus
-A FORWARD -j DROP extra
--lis
-t nat --lis
--tab nat --list
--verb -L
--list=FORWARD
--Ln -L
-Lv
-vL
--zero=FORWARD -L
--app FORWARD -p ARP -j DROP
-L --Ln
-N zzz
-N aaa
-v -Z
-v -Z FORWARD
-v -F FORWARD
-v -F
-F
-v -F nosuch
--init
CMDS
run() { # OUT COMMAND...
  local out=$1
  shift
  unshare -n bash -c '
    out=$1; shift
    while IFS= read -r line; do
      eval "$* $line" >> "$out.stdout" 2>> "$out.stderr"
      echo "$? $line" >> "$out.status"
      # The chains after each command, not only at the end.
      echo "$line: $(nft list ruleset 2>/dev/null | grep -o "^[[:space:]]*chain [^ ]*" | tr -d "\t" | tr "\n" " ")" >> "$out.chains"
    done < "$0"
    ebtables-nft-save | grep -v "^#" > "$out.save"
    nft list ruleset > "$out.nft"
  ' "$tmp/commands" "$out" "$@"
}
run "$tmp/ref" ebtables-nft
run "$tmp/fr" "$fr" ebtables
run "$tmp/link" "$tmp/ebtables"
fail=0
for v in fr link; do
  for f in status stdout chains save nft; do
    if ! diff -u "$tmp/ref.$f" "$tmp/$v.$f"; then
      echo "FAILED: $v $f differs from ebtables-nft"
      fail=1
    fi
  done
done
# Errors on the command line speak of the command line.
if grep -n "restore input" "$tmp/fr.stderr" "$tmp/link.stderr"; then
  echo "FAILED: a message speaks of restore input"
  fail=1
fi
# An unknown option names itself (ebtables says '(null)' when it is the
# last word), and a bad command line points to the help, as ebtables does.
unshare -n "$tmp/ebtables" -A INPUT --bogus 2> "$tmp/bogus.err"
rc=$?
if [ $rc != 2 ] || ! diff -u - "$tmp/bogus.err" << 'EOF'; then
ebtables: Unknown argument: '--bogus'
Try `ebtables -h' or 'ebtables --help' for more information.
EOF
  echo "FAILED: ebtables -A INPUT --bogus (status $rc)"
  fail=1
fi
unshare -n "$fr" ebtables -P INPUT BOGUS 2> "$tmp/policy.err"
rc=$?
if [ $rc != 2 ] || ! grep -qx "Try \`fastrestore ebtables -h' or 'fastrestore ebtables --help' for more information." "$tmp/policy.err"; then
  echo "FAILED: fastrestore ebtables -P INPUT BOGUS gives no hint (status $rc)"
  cat "$tmp/policy.err"
  fail=1
fi
[ $fail = 0 ] && echo "ok: ebtables command line"
exit $fail
