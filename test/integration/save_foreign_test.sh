#!/usr/bin/env bash
# fastrestore save against the upstream save tools on rules written by
# other tools: iptables-nft, ip6tables-nft and ebtables-nft commands, and
# nft rules (some of which iptables-nft-save reads, some it flags as
# incompatible). Each scenario runs in a fresh network namespace; every
# family is compared, with and without counters.
#   save_foreign_test.sh FASTRESTORE
set -u
fr=$(realpath "$1")
if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
  echo "SKIP: needs root and network namespaces"
  exit 77
fi

scenarios=(
# iptables-nft commands, appended and inserted one by one.
'iptables-nft -A INPUT -s 192.0.2.0/24 -p tcp --dport 22 -j ACCEPT
 iptables-nft -I INPUT -m state --state NEW -m tcp -p tcp --syn -j LOG --log-level 3
 iptables-nft -N web; iptables-nft -A web -p udp --sport 53 -j RETURN
 iptables-nft -A FORWARD ! -i eth0 -o eth+ -j web
 iptables-nft -t nat -A POSTROUTING -o eth0 -j MASQUERADE
 iptables-nft -t mangle -A PREROUTING -j MARK --set-mark 7
 iptables-nft -t raw -A OUTPUT -p icmp --icmp-type echo-request -j TRACE
 iptables-nft -P FORWARD DROP
 ip6tables-nft -A INPUT -s 2001:db8::/32 -p ipv6-icmp -j ACCEPT
 ip6tables-nft -A OUTPUT -d fe80::1/128 -m hl --hl-eq 255 -j DROP'
# nft rules in iptables-nft tables that iptables-nft-save can read.
'printf "*filter\\n:INPUT ACCEPT [0:0]\\nCOMMIT\\n" | iptables-nft-restore
 printf "*filter\\n:INPUT ACCEPT [0:0]\\nCOMMIT\\n" | ip6tables-nft-restore
 nft add rule ip filter INPUT tcp dport 22 counter accept
 nft add rule ip filter INPUT ip saddr 10.0.0.0/8 ip daddr 10.1.2.3 drop
 nft add rule ip filter INPUT iifname "eth*" oifname "lo" counter
 nft add rule ip filter INPUT meta mark 0x10 counter accept
 nft add rule ip filter INPUT meta mark and 0xff == 0x2 counter
 nft add rule ip filter INPUT udp sport 1000-2000 counter
 nft add rule ip filter INPUT tcp dport != 80 counter
 nft add rule ip filter INPUT tcp sport lt 1024 counter
 nft add rule ip filter INPUT tcp dport gt 1000 counter
 nft add rule ip filter INPUT tcp flags syn / syn,ack counter
 nft add rule ip filter INPUT ip ttl 64 counter
 nft add rule ip filter INPUT ip ttl gt 5 counter
 nft add rule ip filter INPUT icmp type echo-reply counter accept
 nft add rule ip filter INPUT limit rate 10/second counter
 nft add rule ip filter INPUT log group 2 prefix \"nft: \"
 nft add rule ip filter INPUT meta pkttype broadcast counter drop
 nft add rule ip filter INPUT meta nftrace set 1
 nft add rule ip filter INPUT ip protocol gre counter
 nft add chain ip filter user1
 nft add rule ip filter INPUT jump user1
 nft add rule ip filter INPUT goto user1
 nft add rule ip6 filter INPUT ip6 saddr fe80::/10 tcp dport 22 accept
 nft add rule ip6 filter INPUT ip6 hoplimit 1 counter
 nft add rule ip6 filter INPUT icmpv6 type echo-request counter'
# nft rules iptables-nft-save cannot express: the table is incompatible.
'iptables-nft -A INPUT -j ACCEPT
 iptables-nft -t nat -A PREROUTING -j ACCEPT
 nft add rule ip filter INPUT ct state established accept'
# Rules iptables-nft cannot read back although it accepts every
# expression: the save stops there, with status 3.
'iptables-nft -A INPUT -j ACCEPT
 nft add rule ip filter INPUT ip dscp 0x10 counter
 nft add rule ip filter INPUT counter'
'printf "*filter\\n:INPUT ACCEPT [0:0]\\nCOMMIT\\n" | ip6tables-nft-restore
 nft add rule ip6 filter INPUT ip6 nexthdr 6 counter
 nft add rule ip6 filter INPUT meta iif lo counter'
# A base chain iptables does not know: the table is tainted.
'iptables-nft -A INPUT -j ACCEPT
 nft add chain ip filter other "{ type filter hook input priority 10; }"
 nft add rule ip filter other counter'
# Tables iptables does not list at all.
'nft add table ip mine
 nft add chain ip mine c "{ type filter hook input priority 0; }"
 nft add rule ip mine c counter
 iptables-nft -A OUTPUT -j ACCEPT'
# ebtables-nft commands: matches and watchers (ebtables-nft lists only the
# first and the last), among, user chains with policies, the nat table.
'ebtables-nft -A FORWARD -p IPv4 --ip-src 1.2.3.4 --limit 5/sec --log -j ACCEPT
 ebtables-nft -A FORWARD -p ARP --arp-op Request -j DROP
 ebtables-nft -A INPUT --among-src 00:11:22:33:44:55=10.0.0.1,00:11:22:33:44:66 -j ACCEPT
 ebtables-nft -A INPUT -s 00:11:22:33:44:55/ff:ff:ff:00:00:00 -d Broadcast -j DROP
 ebtables-nft -N user -P DROP; ebtables-nft -A user -p 802_1Q --vlan-id 3 -j RETURN
 ebtables-nft -A OUTPUT -j user
 ebtables-nft -t nat -A PREROUTING -i eth0 -j dnat --to-dst 00:11:22:33:44:55 --dnat-target ACCEPT
 ebtables-nft -t nat -A POSTROUTING -p IPv6 -o eth+ -j snat --to-src 00:11:22:33:44:66'
# nft rules in the bridge family.
'printf "*filter\\n:INPUT ACCEPT\\n" | ebtables-nft-restore
 nft add rule bridge filter INPUT ether type ip counter accept
 nft add rule bridge filter INPUT ether saddr 00:01:02:03:04:05 counter drop
 nft add rule bridge filter INPUT iifname "veth*" counter
 nft add rule bridge filter INPUT meta ibrname "br0" counter'
)

undated() { grep -v -e '^# Generated by' -e '^# Completed on'; }
fail=0
n=0
for s in "${scenarios[@]}"; do
  n=$((n + 1))
  out=$(unshare -n bash -c '
    fr=$1
    eval "$2" > /dev/null 2>&1
    undated() { grep -v -e "^# Generated by" -e "^# Completed on"; }
    err=$(mktemp)
    trap "rm -f $err $err.ref $err.got" EXIT
    rc=0
    for f in "iptables-nft-save|-4" "ip6tables-nft-save|-6" \
             "ebtables-nft-save|--bridge"; do
      tool=${f%%|*}; opt=${f##*|}
      for c in "" -c; do
        # stdout, the exit status and the "Error:" and "# Warning" lines
        # of stderr (the last line names the tool).
        ref=$($tool $c 2>$err.ref | undated; echo "status ${PIPESTATUS[0]}"
              grep -e "^Error:" -e "^# Warning" $err.ref)
        got=$($fr save $opt $c 2>$err.got | undated
              echo "status ${PIPESTATUS[0]}"
              grep -e "^Error:" -e "^# Warning" $err.got)
        if [ "$ref" != "$got" ]; then
          echo "fastrestore save $opt $c differs from $tool $c:"
          diff -u <(echo "$ref") <(echo "$got")
          rc=1
        fi
      done
    done
    # A scenario whose commands failed would compare empty output.
    if ! { iptables-nft-save; ip6tables-nft-save; ebtables-nft-save; } 2>&1 |
         grep -q -e "^-A" -e "^# Table"; then
      echo "the scenario left no rules"
      rc=1
    fi
    exit $rc
  ' _ "$fr" "$s")
  if [ $? != 0 ]; then
    echo "scenario $n:"
    echo "$out"
    fail=1
  fi
done
[ $fail = 0 ] && echo "ok: $n scenarios"
exit $fail
