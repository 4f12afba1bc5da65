#!/usr/bin/env bash
# fastrestore iptables against iptables-nft (and ip6tables against
# ip6tables-nft): the same commands, one process each, into two fresh
# namespaces; every command must exit with the same status and print the
# same on stdout and stderr, the chains must be the same after each command
# (nft list ruleset, which shows a built-in chain made too eagerly), and
# the tables must end up the same (iptables-nft-save, nft list ruleset).
# Programs named iptables and ip6tables-nft (symlinks) must act alike.
#   iptables_cli_test.sh FASTRESTORE
set -u
. "$(dirname "$0")/common.sh"
ln -s "$fr" "$tmp/iptables"
ln -s "$fr" "$tmp/ip6tables-nft"
cat > "$tmp/commands4" <<'CMDS'
-N f2b
-A f2b -s 192.0.2.1 -j DROP
-C f2b -s 192.0.2.2 -j DROP
-D f2b -s 192.0.2.2 -j DROP
-D f2b 5
-I f2b 5 -j DROP
-R f2b 5 -j DROP
-A nochain -j DROP
-A f2b -j nochain
-N f2b
-X nochain
-E f2b INPUT
-E nochain x
-P INPUT BOGUS
-S nochain
-Z nochain
-F nochain
-V
-S f2b
-S INPUT
-S
-C f2b -s 192.0.2.1 -j DROP
-S f2b 1
-S f2b 2
-S f2b 0
-t bogus -S
-A INPUT --bogus
-A INPUT -m bogus
-A INPUT -j BOGUS
-L -A
-A INPUT -D INPUT
-A
-A INPUT 3 -j DROP
-D INPUT 1 -j DROP
-F INPUT extra
-A INPUT -c 5 10 -j ACCEPT
-v -S
-S INPUT -v
-s 10.0.0.1 -A INPUT -p tcp --dport 22 -j ACCEPT
-A INPUT -m comment --comment "a -j b" -j ACCEPT
-v -S INPUT
-X f2b
-P f2b DROP
-6 -A INPUT -j ACCEPT
-4 -A INPUT -j ACCEPT
-w -A INPUT -j ACCEPT
-w 5 -A INPUT -j ACCEPT
-D f2b 1
-X f2b
-X
-F
-Z
-nvS
-t nat -A POSTROUTING -o eth0 -j MASQUERADE
-t nat -S
-n -A INPUT -j ACCEPT
-x -S
--line-numbers -F
-v -N x
-v -A x -s 1.2.3.4 -p tcp --dport 80 -j DROP
-v -I x 1 -d 10.0.0.0/8 -j RETURN
-v -D x 1
-v -C x -s 1.2.3.4 -p tcp --dport 80 -j DROP
-v -R x 1 -j ACCEPT
-A INPUT -j x
-X x
-F x
-X x
-E x y
-v -E x y
-P x DROP
-P FORWARD DROP
-S FORWARD
-v -P FORWARD ACCEPT
-A y -j LOG --log-prefix "hello world "
-S y
-A y -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
-A y ! -s 1.2.3.4 -j REJECT --reject-with tcp-reset
-A y -p tcp ! --syn -j DROP
-C y -p tcp ! --syn -j DROP
-D y -p tcp ! --syn -j DROP
-S y
-D y 9
-I y 2 -j ACCEPT
-S y 2
-R y 2 -s 5.6.7.8 -j DROP
-S y
-N KUBE-SERVICES
-C PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-t nat -N KUBE-SERVICES
-t nat -C PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-t nat -A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-t nat -C PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-t nat -S PREROUTING
-t mangle -A PREROUTING -j MARK --set-mark 1
-t raw -A PREROUTING -j CT --notrack
-t security -S
-F y
-X y
-Z
-Z INPUT
-F
-X
-W 100 -S INPUT
--table=nat -S POSTROUTING
-tnat -S POSTROUTING
--append INPUT -j ACCEPT
--delete INPUT -j ACCEPT
--list-rules INPUT
-AINPUT -j DROP
-A INPUT -p udp -m multiport --dports 53,123 -j ACCEPT
-A INPUT -m set --match-set nosuchset src -j DROP
-A INPUT -p icmp --icmp-type echo-request -m limit --limit 5/s -j ACCEPT
-I INPUT -i lo -j ACCEPT
-A INPUT -m state --state INVALID -j DROP
-D INPUT -i lo -j ACCEPT
-S INPUT
-A OUTPUT -o eth0 -p tcp -m tcp --sport 1024:65535 -j ACCEPT
-A FORWARD -m physdev --physdev-is-bridged -j ACCEPT
-t mangle -A POSTROUTING -p tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu
-t nat -A PREROUTING -p tcp --dport 8080 -j DNAT --to-destination 10.0.0.2:80
-t nat -A POSTROUTING -s 10.0.0.0/24 ! -d 10.0.0.0/24 -j SNAT --to-source 192.0.2.1
-A INPUT -p tcp -c 5 10 -j ACCEPT
-A INPUT -c 123456789 98765432100 -j DROP
-N jumped
-A INPUT -j jumped
-A FORWARD -g jumped
-L
-L -n
-L -v
-nvL --line-numbers
-L -v -x
-L INPUT
-L INPUT 2 -v
-L INPUT 99
-L jumped
-L nochain
-t nat -L -n
-t raw -L
-t mangle -L POSTROUTING -n -v
-L -p tcp
-L -m tcp --dport 22
-L -n -n
-L -c 1 2
-L -Z -L
-L -S
-Z INPUT 1
-Z INPUT 99
-Z nochain 1
-Z INPUT 1 -n
-I INPUT 1 -c 7 7
-Z INPUT 1
-S INPUT -v
-Z INPUT 2 -L -v
-L -Z INPUT 2
-S -v INPUT
-L INPUT -Z -v
-S -Z
-L -Z -v
-t raw -L -Z
-t security -L -Z -v
-t nat -S
-t mangle -S
-v -F
-v -Z
-F INPUT
-X
-N b
-N a
-v -F
-v -Z
-v -F b
-v -Z a
-t security -v -Z
-v -F nosuch
-X
CMDS
cat > "$tmp/commands6" <<'CMDS'
-A INPUT -s 2001:db8::1 -j DROP
-C INPUT -s 2001:db8::1/128 -j DROP
-N f2b
-A f2b -p tcp --dport 22 -j REJECT --reject-with icmp6-port-unreachable
-I INPUT 1 -j f2b
-S
-4 -A INPUT -j ACCEPT
-6 -A INPUT -j ACCEPT
-A INPUT -p ipv6-icmp --icmpv6-type echo-request -j ACCEPT
-D INPUT 9
-V
-t nat -A POSTROUTING -o eth0 -j MASQUERADE
-t nat -S
-S f2b 1
-L
-L -n -v --line-numbers
-L f2b -x -v
-Z f2b 1
-t nat -L -Z
-D f2b -p tcp --dport 22 -j REJECT --reject-with icmp6-port-unreachable
-X f2b
-D INPUT 1
-X f2b
CMDS
run() { # COMMANDS OUT COMMAND...
  local commands=$1 out=$2
  shift 2
  unshare -n bash -c '
    out=$1; shift
    while IFS= read -r line; do
      eval "$* $line" >> "$out.stdout" 2>> "$out.stderr"
      echo "$? $line" >> "$out.status"
      echo "$line: $(nft list ruleset 2>/dev/null | grep -o "^[[:space:]]*\(table\|chain\) [^{]*" | tr -d "\t" | tr "\n" " ")" >> "$out.chains"
    done < "$0"
    iptables-nft-save | grep -v "^#" > "$out.save"
    ip6tables-nft-save | grep -v "^#" >> "$out.save"
    nft list ruleset > "$out.nft"
  ' "$commands" "$out" "$@"
}
run "$tmp/commands4" "$tmp/ref4" iptables-nft
run "$tmp/commands4" "$tmp/fr4" "$fr" iptables
run "$tmp/commands4" "$tmp/link4" "$tmp/iptables"
run "$tmp/commands6" "$tmp/ref6" ip6tables-nft
run "$tmp/commands6" "$tmp/fr6" "$fr" ip6tables
run "$tmp/commands6" "$tmp/link6" "$tmp/ip6tables-nft"
for v in fr4 link4 fr6 link6; do
  for f in status stdout stderr chains save nft; do
    if ! diff -u "$tmp/ref${v: -1}.$f" "$tmp/$v.$f"; then
      echo "FAILED: $v $f differs from the reference"
      fail=1
    fi
  done
done
[ $fail = 0 ] && echo "ok: iptables command line"
exit $fail
