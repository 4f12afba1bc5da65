#!/usr/bin/env python3
"""What "the same rule" is for -C and -D by rule specification, held to the
reference tools: for each pair (A, B), rule A is put in the kernel and -C
of rule B asked, in both directions of encoding:

  1. A made by the reference's command line (iptables-nft, ip6tables-nft,
     ebtables-nft, iptables-legacy, ip6tables-legacy); -C B (ebtables: --check) asked of the
     reference and of fastrestore --noflush: same status (0: the same rule,
     1: not);
  2. A made by fastrestore --noflush; -C B asked of the reference: the
     status of 1 (fastrestore encodes A as the reference recognises it);
  3. one replaced table whose block appends A, then asks -C B (the
     whole-block model's comparison of parsed rules): the reference's
     restore and fastrestore, same status;
  4. (nf_tables) the table with A loaded --incremental, then the table
     with B loaded --incremental, with the journal's record current and
     made stale in between: the reference's save prints what it prints
     after the reference's restore loads B alone (the delta never keeps A
     for a B that saves otherwise, whatever -C says).

Each pair also states the status the reference gives, so that a pair the
reference no longer reads as written fails instead of passing vacuously.
Runs in a private network namespace of its own (unshare -n).

    same_rule_test.py FASTRESTORE
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

# mode: (reference command line, fastrestore's options, reference restore)
MODES = {
    "nft4": ("iptables-nft", [], "iptables-nft-restore"),
    "nft6": ("ip6tables-nft", ["-6"], "ip6tables-nft-restore"),
    "bridge": ("ebtables-nft", ["--bridge"], "ebtables-nft-restore"),
    "legacy4": ("iptables-legacy", ["--legacy"], "iptables-legacy-restore"),
    "legacy6": ("ip6tables-legacy", ["--legacy", "-6"],
                "ip6tables-legacy-restore"),
}

# (table, chain, rule in the kernel, rule asked, the reference's -C status
# [, fastrestore's, where the reference's is a defect CONFORMANCE lists])
INET = [
    ("filter", "INPUT", "-p tcp --dport 22 -j ACCEPT",
     "-p tcp -m tcp --dport 22 -j ACCEPT", 0),
    ("filter", "INPUT", "-p tcp -m tcp --dport 22 -j ACCEPT",
     "-p 6 -m tcp --dport ssh -j ACCEPT", 0),
    ("filter", "INPUT", "-p tcp -m tcp --dport 22 -j ACCEPT",
     "-p tcp -m tcp --dport 23 -j ACCEPT", 1),
    ("filter", "INPUT", "-p tcp -m tcp --dport 22 -j ACCEPT",
     "-p tcp -m tcp --dport 22 -j DROP", 1),
    ("filter", "INPUT", "-p tcp --syn -j DROP",
     "-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j DROP", 0),
    ("filter", "INPUT", "-p udp --sport 53 -j ACCEPT",
     "-p udp -m udp --sport 53:53 -j ACCEPT", 0),
    ("filter", "INPUT", "-m comment --comment web -j ACCEPT",
     "-m comment --comment web -j ACCEPT", 0),
    ("filter", "INPUT", "-m comment --comment web -j ACCEPT",
     "-m comment --comment mail -j ACCEPT", 1),
    ("filter", "INPUT", "-m comment --comment web -j ACCEPT", "-j ACCEPT", 1),
    ("filter", "INPUT", "-p tcp -m tcp --dport 22 -m comment --comment x "
     "-j ACCEPT", "-p tcp -m comment --comment x -m tcp --dport 22 -j ACCEPT",
     1),
    ("filter", "INPUT", "-m limit --limit 5/min -j ACCEPT",
     "-m limit --limit 5/min --limit-burst 5 -j ACCEPT", 0),
    ("filter", "INPUT", "-m limit --limit 5/min -j ACCEPT",
     "-m limit --limit 6/min -j ACCEPT", 1),
    ("filter", "INPUT", "-m limit --limit 5/min -j ACCEPT",
     "-m limit --limit 5/min --limit-burst 6 -j ACCEPT", 1),
    ("filter", "INPUT", "-m mark --mark 0x1 -j DROP",
     "-m mark --mark 1/0xffffffff -j DROP", 0),
    ("filter", "INPUT", "-m mark --mark 0x1/0xff -j DROP",
     "-m mark --mark 0x1/0xf -j DROP", 1),
    ("filter", "INPUT", "-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT",
     "-m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT", 0),
    ("filter", "INPUT", "-m state --state ESTABLISHED -j ACCEPT",
     "-m conntrack --ctstate ESTABLISHED -j ACCEPT", 1),
    ("filter", "INPUT", "-p tcp -m multiport --dports 80,443 -j ACCEPT",
     "-p tcp -m multiport --dports 443,80 -j ACCEPT", 1),
    ("filter", "INPUT", "-i eth0 -j ACCEPT", "-i eth0+ -j ACCEPT", 1),
    ("filter", "INPUT", "-i eth+ -j ACCEPT", "-i eth+ -j ACCEPT", 0),
    ("filter", "INPUT", "! -i lo -j ACCEPT", "-i lo -j ACCEPT", 1),
    ("filter", "INPUT", "-j LOG", "-j LOG --log-level 4", 0),
    ("filter", "INPUT", "-j LOG --log-prefix x", "-j LOG --log-prefix y", 1),
    ("filter", "INPUT", "-j NFLOG --nflog-group 2",
     "-j NFLOG --nflog-group 3", 1),
    ("filter", "INPUT", "-j NFLOG --nflog-group 2 --nflog-prefix x",
     "-j NFLOG --nflog-prefix x --nflog-group 2", 0),
    ("filter", "INPUT", "-j NFLOG --nflog-group 2 --nflog-size 100",
     "-j NFLOG --nflog-group 2 --nflog-size 200", 1),
    ("filter", "INPUT", "-j NFLOG --nflog-group 2 --nflog-threshold 2",
     "-j NFLOG --nflog-group 2 --nflog-threshold 3", 1),
    ("filter", "INPUT", "-j NFLOG --nflog-group 2",
     "-j NFLOG --nflog-group 2 --nflog-size 0", 1),
    ("filter", "INPUT", "-j LOG --log-level 4", "-j LOG --log-level 5", 1),
    ("filter", "INPUT", "-j LOG --log-tcp-options", "-j LOG", 1),
    ("filter", "INPUT", "-m limit --limit 5/min --limit-burst 10 -j ACCEPT",
     "-m limit --limit 5/min --limit-burst 10 -j ACCEPT", 0),
    ("filter", "INPUT", "-m mark --mark 0x1/0x1 -j DROP",
     "-m mark --mark 0x1/0x3 -j DROP", 1),
    ("filter", "INPUT", "-p udp -m udp --sport 1:1024 -j DROP",
     "-p udp -m udp --sport 1:1023 -j DROP", 1),
    ("filter", "INPUT", "-p udp -m udp ! --sport 53 -j DROP",
     "-p udp -m udp ! --dport 53 -j DROP", 1),
    ("filter", "INPUT", "-p tcp -m tcp --sport 80 --dport 80 -j DROP",
     "-p tcp -m tcp --sport 80 ! --dport 80 -j DROP", 1),
    ("filter", "INPUT", "-m hashlimit --hashlimit-above 10/sec "
     "--hashlimit-name h -j DROP", "-m hashlimit --hashlimit-above 10/sec "
     "--hashlimit-name g -j DROP", 1),
    ("filter", "INPUT", "-m addrtype --dst-type LOCAL -j ACCEPT",
     "-m addrtype --dst-type LOCAL -j ACCEPT", 0),
    ("filter", "OUTPUT", "-m owner --uid-owner 0 -j ACCEPT",
     "-m owner --uid-owner root -j ACCEPT", 0),
    ("filter", "FORWARD", "-m physdev --physdev-in eth0 -j ACCEPT",
     "-m physdev --physdev-in eth1 -j ACCEPT", 1),
    ("nat", "POSTROUTING", "-o eth0 -j MASQUERADE",
     "-o eth0 -j MASQUERADE --random", 1),
    ("mangle", "PREROUTING", "-j MARK --set-mark 1",
     "-j MARK --set-xmark 0x1/0xffffffff", 0),
    ("mangle", "PREROUTING", "-j MARK --set-mark 1", "-j MARK --set-mark 2",
     1),
    ("filter", "INPUT", "-p tcp -m tcp --dport 22 -j ACCEPT",
     "-p tcp -m tcp --dport 22:22 -j ACCEPT", 0),
    ("filter", "INPUT", "-p tcp -m tcp ! --dport 22 -j ACCEPT",
     "-p tcp -m tcp --dport 22 -j ACCEPT", 1),
    ("filter", "INPUT", "-p tcp -m tcp --tcp-flags ALL NONE -j DROP",
     "-p tcp -m tcp --tcp-flags FIN,SYN,RST,PSH,ACK,URG NONE -j DROP", 0),
    ("filter", "INPUT", "-p tcp -m tcp --syn -j DROP",
     "-p tcp -m tcp ! --syn -j DROP", 1),
    ("filter", "INPUT", "-p tcp -m tcp --tcp-option 2 -j DROP",
     "-p tcp -m tcp --tcp-option 3 -j DROP", 1),
    ("filter", "INPUT", "-p tcp -m multiport --ports 80 -j ACCEPT",
     "-p tcp -m multiport --dports 80 -j ACCEPT", 1),
    ("filter", "INPUT", "-m limit --limit 1/s -j ACCEPT",
     "-m limit --limit 1/sec -j ACCEPT", 0),
    ("filter", "INPUT", "-m limit --limit 60/min -j ACCEPT",
     "-m limit --limit 1/sec -j ACCEPT", 0),
    ("filter", "INPUT", "-m mark ! --mark 0x1 -j DROP",
     "-m mark --mark 0x1 -j DROP", 1),
    ("filter", "INPUT", "-m string --algo bm --string foo -j DROP",
     "-m string --algo bm --string bar -j DROP", 1),
    ("filter", "INPUT", "-m length --length 100:200 -j DROP",
     "-m length --length 100:201 -j DROP", 1),
    ("filter", "INPUT", "-m recent --name x --rcheck -j DROP",
     "-m recent --name y --rcheck -j DROP", 1),
    ("filter", "INPUT", "-m pkttype --pkt-type broadcast -j DROP",
     "-m pkttype --pkt-type broadcast -j DROP", 0),
    ("filter", "INPUT", "-m hashlimit --hashlimit-upto 5/sec --hashlimit-mode "
     "srcip --hashlimit-name h -j ACCEPT", "-m hashlimit --hashlimit-upto "
     "5/sec --hashlimit-name h -j ACCEPT", 1),
    ("filter", "INPUT", "-m conntrack --ctstate NEW -j ACCEPT",
     "-m conntrack --ctstate NEW,ESTABLISHED -j ACCEPT", 1),
    ("filter", "INPUT", "-j ACCEPT", "-j RETURN", 1),
    ("filter", "INPUT", "-j web", "-g web", 1),
    ("filter", "INPUT", "-j web", "-j web", 0),
    ("filter", "INPUT", "-i eth0 -j web", "-j web", 1),
    ("filter", "OUTPUT", "-o eth0 -j ACCEPT", "-o eth1 -j ACCEPT", 1),
    ("filter", "FORWARD", "-i eth0 -o eth1 -j ACCEPT",
     "-o eth1 -i eth0 -j ACCEPT", 0),
    ("nat", "POSTROUTING", "-p tcp -j MASQUERADE --to-ports 1024-2048",
     "-p tcp -j MASQUERADE --to-ports 1024-2049", 1),
    ("mangle", "FORWARD", "-p tcp --tcp-flags SYN,RST SYN -j TCPMSS "
     "--clamp-mss-to-pmtu", "-p tcp -m tcp --tcp-flags SYN,RST SYN -j TCPMSS "
     "--clamp-mss-to-pmtu", 0),
    ("mangle", "PREROUTING", "-j CONNMARK --set-mark 1",
     "-j CONNMARK --set-xmark 0x1/0xffffffff", 0),
    ("mangle", "PREROUTING", "-j CONNMARK --restore-mark",
     "-j CONNMARK --save-mark", 1),
    ("filter", "INPUT", "-m dscp --dscp 10 -j DROP",
     "-m dscp --dscp-class AF11 -j DROP", 0),
    ("filter", "INPUT", "-m dscp --dscp 10 -j DROP", "-m dscp --dscp 11 -j DROP",
     1),
    ("filter", "INPUT", "-m ecn --ecn-tcp-cwr -p tcp -j DROP",
     "-m ecn --ecn-tcp-ece -p tcp -j DROP", 1),
    ("filter", "INPUT", "-p esp -m esp --espspi 10 -j DROP",
     "-p esp -m esp --espspi 11 -j DROP", 1),
    # libxt_helper declares no userspacesize, so every reference compares
    # none of the match's bytes and takes these for the same rule: a
    # reference defect (docs/CONFORMANCE.md); fastrestore compares them (the
    # delta must: it kept a --helper ftp rule for --helper sip).
    ("filter", "INPUT", "-m helper --helper ftp -j ACCEPT",
     "-m helper --helper sip -j ACCEPT", 0, 1),
    ("filter", "INPUT", "-m helper --helper ftp -j ACCEPT",
     "-m helper --helper ftp -j ACCEPT", 0),
    ("filter", "INPUT", "-m mac --mac-source 00:11:22:33:44:55 -j DROP",
     "-m mac --mac-source 00:11:22:33:44:55 -j DROP", 0),
    ("filter", "INPUT", "-m mac --mac-source 00:11:22:33:44:55 -j DROP",
     "-m mac --mac-source 00:11:22:33:44:56 -j DROP", 1),
    ("filter", "INPUT", "-m quota --quota 1000 -j ACCEPT",
     "-m quota --quota 1001 -j ACCEPT", 1),
    ("filter", "INPUT", "-m statistic --mode random --probability 0.5 -j DROP",
     "-m statistic --mode random --probability 0.25 -j DROP", 1),
    ("filter", "INPUT", "-m statistic --mode nth --every 2 --packet 0 -j DROP",
     "-m statistic --mode nth --every 2 --packet 1 -j DROP", 1),
    ("filter", "INPUT", "-p tcp -m tcpmss --mss 1000:1500 -j DROP",
     "-p tcp -m tcpmss --mss 1000:1501 -j DROP", 1),
    ("filter", "INPUT", "-m time --timestart 10:00 -j DROP",
     "-m time --timestart 10:00 --timestop 23:59:59 -j DROP", 0),
    ("filter", "INPUT", "-m time --weekdays Mon -j DROP",
     "-m time --weekdays Tue -j DROP", 1),
    ("filter", "INPUT", "-p sctp -m sctp --dport 80 -j DROP",
     "-p sctp -m sctp --dport 81 -j DROP", 1),
    ("filter", "INPUT", "-m u32 --u32 \"0>>22&0x3C@0>>16=0x50\" -j DROP",
     "-m u32 --u32 \"0>>22&0x3C@0>>16=0x51\" -j DROP", 1),
    ("filter", "INPUT", "-m devgroup --src-group 1 -j DROP",
     "-m devgroup --src-group 2 -j DROP", 1),
    ("filter", "INPUT", "-m cpu --cpu 0 -j DROP", "-m cpu --cpu 1 -j DROP", 1),
    ("filter", "INPUT", "-m policy --dir in --pol ipsec -j ACCEPT",
     "-m policy --dir in --pol none -j ACCEPT", 1),
    ("raw", "PREROUTING", "-m rpfilter -j DROP",
     "-m rpfilter --invert -j DROP", 1),
    ("filter", "INPUT", "-m socket -j ACCEPT", "-m socket --transparent -j "
     "ACCEPT", 1),
    ("filter", "INPUT", "-j NFQUEUE --queue-num 1",
     "-j NFQUEUE --queue-num 2", 1),
    ("filter", "INPUT", "-j NFQUEUE --queue-num 1 --queue-bypass",
     "-j NFQUEUE --queue-bypass --queue-num 1", 0),
    ("filter", "INPUT", "-j AUDIT --type accept", "-j AUDIT --type drop", 1),
    ("mangle", "POSTROUTING", "-j CLASSIFY --set-class 1:1",
     "-j CLASSIFY --set-class 1:2", 1),
    ("mangle", "PREROUTING", "-j DSCP --set-dscp 10",
     "-j DSCP --set-dscp-class AF11", 0),
    ("mangle", "PREROUTING", "-j TOS --set-tos 0x10",
     "-j TOS --set-tos 0x08", 1),
    ("mangle", "POSTROUTING", "-p udp -j CHECKSUM --checksum-fill",
     "-p udp -m udp -j CHECKSUM --checksum-fill", 1),
    ("nat", "PREROUTING", "-p tcp -j REDIRECT --to-ports 8080",
     "-p tcp -j REDIRECT --to-ports 8081", 1),
    ("raw", "PREROUTING", "-j CT --zone 1", "-j CT --zone 2", 1),
    ("raw", "PREROUTING", "-j CT --helper ftp -p tcp", "-p tcp -j CT --helper "
     "ftp", 0),
    # A wildcard's compare is shorter than the name and its NUL: the same
    # 4 bytes of "eth" either way but the length.
    ("filter", "INPUT", "-i eth+ -j ACCEPT", "-i eth -j ACCEPT", 1),
    ("filter", "INPUT", "-i eth -j ACCEPT", "-i eth+ -j ACCEPT", 1),
    ("filter", "INPUT", "-i + -j ACCEPT", "-i + -j ACCEPT", 0),
    ("filter", "INPUT", "! -i + -j ACCEPT", "-j ACCEPT", 1),
    ("filter", "INPUT", "-m conntrack --ctstatus ASSURED -j ACCEPT",
     "-m conntrack --ctstatus SEEN_REPLY -j ACCEPT", 1),
    ("filter", "INPUT", "-m conntrack --ctproto tcp -j ACCEPT",
     "-m conntrack --ctproto 6 -j ACCEPT", 0),
    ("filter", "INPUT", "-m conntrack ! --ctstate NEW -j ACCEPT",
     "-m conntrack --ctstate NEW -j ACCEPT", 1),
    ("filter", "OUTPUT", "-m owner --gid-owner 0 -j ACCEPT",
     "-m owner --gid-owner 1 -j ACCEPT", 1),
    ("filter", "INPUT", "-m addrtype --dst-type LOCAL --limit-iface-in "
     "-j ACCEPT", "-m addrtype --dst-type LOCAL -j ACCEPT", 1),
    ("filter", "INPUT", "-p tcp -m multiport --dports 1:100,200 -j ACCEPT",
     "-p tcp -m multiport --dports 1:100,201 -j ACCEPT", 1),
    ("filter", "INPUT", "-m limit --limit 7/min -j ACCEPT",
     "-m limit --limit 420/hour -j ACCEPT", 0),
    ("filter", "INPUT", "-m limit --limit 2/day -j ACCEPT",
     "-m limit --limit 2/d -j ACCEPT", 0),
    ("filter", "INPUT", "-m connbytes --connbytes 10 --connbytes-dir both "
     "--connbytes-mode bytes -j ACCEPT", "-m connbytes --connbytes 11 "
     "--connbytes-dir both --connbytes-mode bytes -j ACCEPT", 1),
    ("filter", "INPUT", "-g web", "-j web", 1),
    ("mangle", "OUTPUT", "-j MARK --and-mark 0x3",
     "-j MARK --set-xmark 0x0/0xfffffffc", 0),
    ("mangle", "OUTPUT", "-j MARK --or-mark 0x3",
     "-j MARK --set-xmark 0x3/0x3", 0),
    # iptables writes `-i +` (any interface) as a meta load nothing reads,
    # and reads it back as no interface.
    ("filter", "INPUT", "-i + -j ACCEPT", "-j ACCEPT", 0),
    ("filter", "INPUT", "-j ACCEPT", "-i + -j ACCEPT", 0),
    ("filter", "INPUT", "! -i eth0 -j ACCEPT", "! -i eth1 -j ACCEPT", 1),
    ("filter", "INPUT", "-i eth0 -j ACCEPT",
     "-i eth0 -m comment --comment x -j ACCEPT", 1),
    ("filter", "INPUT", "! -p tcp -j ACCEPT", "-p tcp -j ACCEPT", 1),
    ("filter", "INPUT", "-p tcp -m tcp --dport 0:65535 -j ACCEPT",
     "-p tcp -j ACCEPT", 1),
    ("filter", "INPUT", "-p tcp -m tcp --sport 0:65535 --dport 22 -j ACCEPT",
     "-p tcp -m tcp --dport 22 -j ACCEPT", 0),
    ("filter", "INPUT", "-p tcp -m tcp --tcp-flags NONE NONE -j ACCEPT",
     "-p tcp -j ACCEPT", 1),
    ("filter", "INPUT", "-p udp -m udp -j ACCEPT", "-p udp -j ACCEPT", 1),
    ("filter", "INPUT", "-p tcp -m tcp -j ACCEPT", "-p tcp -j ACCEPT", 1),
    ("filter", "INPUT", "-m mark --mark 0/0 -j ACCEPT", "-j ACCEPT", 1),
    ("filter", "INPUT", "-m limit --limit 10000/sec -j ACCEPT",
     "-m limit --limit 10000/s -j ACCEPT", 0),
    ("filter", "INPUT", "-m comment --comment x",
     "-m comment --comment x -j ACCEPT", 1),
    ("raw", "PREROUTING", "-j TRACE", "-j TRACE", 0),
    ("raw", "PREROUTING", "-j CT --notrack", "-j CT --notrack", 0),
]
V4_ONLY = [
    ("filter", "INPUT", "-p icmp -m icmp --icmp-type 3/1 -j ACCEPT",
     "-p icmp -m icmp --icmp-type host-unreachable -j ACCEPT", 0),
    ("filter", "INPUT", "-j REJECT --reject-with icmp-host-prohibited",
     "-j REJECT --reject-with icmp-host-unreachable", 1),
    ("filter", "INPUT", "-s 0.0.0.0/0 -j ACCEPT", "-j ACCEPT", 0),
    ("filter", "INPUT", "-d 10.0.0.0/255.255.255.0 -j ACCEPT",
     "-d 10.0.0.0/24 -j ACCEPT", 0),
    ("filter", "INPUT", "-m realm --realm 1 -j DROP",
     "-m realm --realm 2 -j DROP", 1),
    ("mangle", "PREROUTING", "-j TEE --gateway 10.0.0.1",
     "-j TEE --gateway 10.0.0.2", 1),
    ("nat", "PREROUTING", "-d 10.0.0.0/24 -j NETMAP --to 10.1.0.0/24",
     "-d 10.0.0.0/24 -j NETMAP --to 10.2.0.0/24", 1),
    ("filter", "INPUT", "-p tcp -j REJECT --reject-with tcp-reset",
     "-p tcp -j REJECT --reject-with tcp-rst", 0),
    ("filter", "INPUT", "-s 10.0.0.1 -d 10.0.0.2 -j DROP",
     "-d 10.0.0.2 -s 10.0.0.1 -j DROP", 0),
    ("filter", "INPUT", "-m iprange --src-range 10.0.0.1-10.0.0.5 -j DROP",
     "-m iprange --src-range 10.0.0.1-10.0.0.6 -j DROP", 1),
    ("filter", "INPUT", "-m connlimit --connlimit-above 10 -j DROP",
     "-m connlimit --connlimit-above 10 --connlimit-mask 32 -j DROP", 1),
    ("filter", "INPUT", "-m ttl --ttl-eq 64 -j DROP",
     "-m ttl --ttl-gt 64 -j DROP", 1),
    ("nat", "PREROUTING", "-p tcp -j DNAT --to-destination 10.0.0.2",
     "-p tcp -j DNAT --to 10.0.0.2", 0),
    ("nat", "POSTROUTING", "-j SNAT --to-source 192.0.2.1 --random",
     "-j SNAT --to-source 192.0.2.1", 1),
    ("filter", "INPUT", "-s 10.0.0.1 -j DROP", "-s 10.0.0.1/32 -j DROP", 0),
    ("filter", "INPUT", "-s 10.0.0.0/8 -j DROP", "-s 10.1.2.3/8 -j DROP", 0),
    ("filter", "INPUT", "-s 10.0.0.0/8 -j DROP", "-s 10.0.0.0/16 -j DROP", 1),
    ("filter", "INPUT", "! -s 10.0.0.0/8 -j DROP", "-s 10.0.0.0/8 -j DROP", 1),
    ("nat", "POSTROUTING", "-o eth0 -j SNAT --to-source 192.0.2.1",
     "-o eth0 -j SNAT --to-source 192.0.2.1", 0),
    ("nat", "PREROUTING", "-p tcp --dport 80 -j DNAT --to-destination "
     "10.0.0.2:8080", "-p tcp -m tcp --dport 80 -j DNAT --to-destination "
     "10.0.0.2:8080", 0),
    ("nat", "PREROUTING", "-p tcp --dport 80 -j DNAT --to-destination "
     "10.0.0.2:8080", "-p tcp --dport 80 -j DNAT --to-destination "
     "10.0.0.2:8081", 1),
    ("filter", "INPUT", "-p icmp --icmp-type echo-request -j ACCEPT",
     "-p icmp -m icmp --icmp-type 8 -j ACCEPT", 0),
    ("filter", "INPUT", "-p icmp --icmp-type echo-request -j ACCEPT",
     "-p icmp -m icmp --icmp-type 0 -j ACCEPT", 1),
    ("filter", "INPUT", "-f -j DROP", "-f -j DROP", 0),
    ("filter", "INPUT", "-f -j DROP", "! -f -j DROP", 1),
    ("filter", "INPUT", "-j REJECT",
     "-j REJECT --reject-with icmp-port-unreachable", 0),
]
V6 = [
    ("filter", "INPUT", "-s ::/0 -j DROP", "-j DROP", 0),
    ("filter", "INPUT", "-s 2001:db8::/ffff:ffff:: -j DROP",
     "-s 2001:db8::/32 -j DROP", 0),
    ("filter", "INPUT", "-p icmpv6 --icmpv6-type 1/3 -j ACCEPT",
     "-p icmpv6 --icmpv6-type 1/4 -j ACCEPT", 1),
    ("filter", "INPUT", "-m frag --fraglast -j DROP",
     "-m frag --fragfirst -j DROP", 1),
    ("filter", "INPUT", "-m dst --dst-len 8 -j DROP",
     "-m dst --dst-len 16 -j DROP", 1),
    ("nat", "PREROUTING", "-p tcp -j DNAT --to-destination [2001:db8::1]:80",
     "-p tcp -j DNAT --to-destination [2001:db8::1]:81", 1),
    ("filter", "INPUT", "-m ipv6header --header frag -j DROP",
     "-m ipv6header --header hop -j DROP", 1),
    ("filter", "INPUT", "-m rt --rt-type 0 -j DROP",
     "-m rt --rt-type 2 -j DROP", 1),
    ("filter", "INPUT", "-m hbh --hbh-len 8 -j DROP",
     "-m hbh --hbh-len 16 -j DROP", 1),
    ("filter", "INPUT", "-p ipv6-mh -m mh --mh-type 1 -j DROP",
     "-p ipv6-mh -m mh --mh-type 2 -j DROP", 1),
    ("filter", "INPUT", "-m eui64 -j ACCEPT", "-m eui64 -j ACCEPT", 0),
    ("mangle", "PREROUTING", "-j HL --hl-set 64", "-j HL --hl-set 63", 1),
    ("mangle", "PREROUTING", "-j HL --hl-dec 1", "-j HL --hl-inc 1", 1),
    ("filter", "INPUT", "-m hl --hl-eq 64 -j DROP", "-m hl --hl-eq 63 -j DROP",
     1),
    ("filter", "INPUT", "-m frag --fragid 1 -j DROP",
     "-m frag --fragid 1:1 -j DROP", 0),
    ("filter", "INPUT", "-p tcp -j REJECT --reject-with tcp-reset",
     "-p tcp -j REJECT --reject-with tcp-reset", 0),
    ("filter", "INPUT", "-s 2001:db8::1 -j DROP", "-s 2001:db8::1/128 -j DROP",
     0),
    ("filter", "INPUT", "! -s 2001:db8::/32 -j DROP",
     "-s 2001:db8::/32 -j DROP", 1),

    ("filter", "INPUT", "-p ipv6-icmp --icmpv6-type 128 -j ACCEPT",
     "-p icmpv6 -m icmp6 --icmpv6-type echo-request -j ACCEPT", 0),
    ("filter", "INPUT", "-p tcp -m tcp --dport 22 -j ACCEPT",
     "-p tcp --dport 22 -j ACCEPT", 0),
    ("filter", "INPUT", "-j REJECT",
     "-j REJECT --reject-with icmp6-port-unreachable", 0),
    ("filter", "INPUT", "-m comment --comment a -j ACCEPT",
     "-m comment --comment b -j ACCEPT", 1),
]
# `-p all` is no protocol at all, but ip6tables-legacy records that -p was
# given (IP6T_F_PROTO) and compares it.
PROTO_ALL = [("filter", "INPUT", "-p all -j ACCEPT", "-j ACCEPT", 0),
             ("filter", "INPUT", "-p 0 -j ACCEPT", "-j ACCEPT", 0)]
PROTO_ALL_LEGACY6 = [p[:4] + (1,) for p in PROTO_ALL]

# ip6tables-nft 1.8.9 compares an IPv6 rule's addresses, not their prefix
# lengths: a reference defect (docs/CONFORMANCE.md), since ip6tables-legacy
# and iptables-nft (IPv4) tell them apart.
V6_PREFIX_NFT = [("filter", "INPUT", "-s 2001:db8::/32 -j DROP",
                  "-s 2001:db8::/48 -j DROP", 0, 1)]
V6_PREFIX_LEGACY = [("filter", "INPUT", "-s 2001:db8::/32 -j DROP",
                     "-s 2001:db8::/48 -j DROP", 1)]
BRIDGE = [
    ("filter", "INPUT", "-p IPv4 --ip-proto tcp --ip-dport 22 -j ACCEPT",
     "-p IPv4 --ip-proto 6 --ip-dport 22 -j ACCEPT", 0),
    ("filter", "INPUT", "-p IPv4 --ip-proto tcp --ip-dport 22 -j ACCEPT",
     "-p IPv4 --ip-proto tcp --ip-dport 23 -j ACCEPT", 1),
    ("filter", "INPUT", "--pkttype-type broadcast -j DROP",
     "--pkttype-type multicast -j DROP", 1),
    ("filter", "INPUT", "-p 802_1Q --vlan-id 1 -j ACCEPT",
     "-p 802_1Q --vlan-id 2 -j ACCEPT", 1),
    ("filter", "INPUT", "-d ff:ff:ff:ff:ff:ff -j DROP",
     "-d Broadcast -j DROP", 0),
    ("filter", "FORWARD", "-j mark --mark-set 1", "-j mark --mark-set 0x1", 0),
    ("filter", "INPUT", "-p IPv4 --ip-tos 0x10 -j ACCEPT",
     "-p IPv4 --ip-tos 0x08 -j ACCEPT", 1),
    ("filter", "INPUT", "-p IPv4 --ip-proto udp --ip-sport 1:1024 -j ACCEPT",
     "-p IPv4 --ip-proto udp --ip-sport 1:1023 -j ACCEPT", 1),
    ("filter", "INPUT", "-p IPv6 --ip6-proto tcp --ip6-dport 22 -j ACCEPT",
     "-p IPv6 --ip6-proto tcp --ip6-dport 23 -j ACCEPT", 1),
    ("filter", "INPUT", "-p IPv6 --ip6-src 2001:db8::1 -j ACCEPT",
     "-p IPv6 --ip6-src 2001:db8::1/128 -j ACCEPT", 0),
    ("filter", "INPUT", "-p ARP --arp-op Request -j ACCEPT",
     "-p ARP --arp-op 1 -j ACCEPT", 0),
    ("filter", "INPUT", "-p ARP --arp-op Request -j ACCEPT",
     "-p ARP --arp-op Reply -j ACCEPT", 1),
    ("filter", "INPUT", "-p ARP --arp-ip-src 10.0.0.1 -j ACCEPT",
     "-p ARP --arp-ip-src 10.0.0.2 -j ACCEPT", 1),
    ("filter", "INPUT", "-p 802_1Q --vlan-prio 1 -j ACCEPT",
     "-p 802_1Q --vlan-prio 2 -j ACCEPT", 1),
    ("filter", "INPUT", "--mark 0x1/0xff -j ACCEPT", "--mark 0x1/0xf -j ACCEPT",
     1),
    ("filter", "INPUT", "! -i eth0 -j ACCEPT", "-i eth0 -j ACCEPT", 1),
    ("filter", "INPUT", "-s 00:11:22:33:44:55/ff:ff:ff:00:00:00 -j ACCEPT",
     "-s 00:11:22:00:00:00/ff:ff:ff:00:00:00 -j ACCEPT", 0),
    ("filter", "FORWARD", "--nflog-group 2 -j ACCEPT",
     "--nflog-group 3 -j ACCEPT", 0, 1),
    ("filter", "FORWARD", "--log-level info -j ACCEPT",
     "--log-level notice -j ACCEPT", 0, 1),
    ("nat", "PREROUTING", "-p IPv4 -j redirect --redirect-target ACCEPT",
     "-p IPv4 -j redirect --redirect-target DROP", 1),
    ("nat", "POSTROUTING", "-j snat --to-src 00:11:22:33:44:55",
     "-j snat --to-src 00:11:22:33:44:55 --snat-arp", 1),
    # libebt_stp declares no userspacesize either (see -m helper).
    ("filter", "INPUT", "-d BGA --stp-type config -j DROP",
     "-d BGA --stp-type tcn -j DROP", 0, 1),
    ("filter", "FORWARD", "-j mark --mark-set 1", "-j mark --mark-or 1", 1),
    ("filter", "INPUT", "-p IPv4 -j ACCEPT", "-p 0x0800 -j ACCEPT", 0),
    ("filter", "INPUT", "-p IPv4 -j ACCEPT", "-p IPv6 -j ACCEPT", 1),
    ("filter", "INPUT", "-s 00:11:22:33:44:55 -j DROP",
     "-s 0:11:22:33:44:55 -j DROP", 0),
    ("filter", "INPUT", "-s 00:11:22:33:44:55 -j DROP",
     "-s 00:11:22:33:44:56 -j DROP", 1),
    ("filter", "INPUT", "-i eth0 -j ACCEPT", "-i eth1 -j ACCEPT", 1),
    ("filter", "INPUT", "-p IPv4 --ip-src 10.0.0.1 -j ACCEPT",
     "-p IPv4 --ip-src 10.0.0.1/32 -j ACCEPT", 0),
    ("filter", "INPUT", "--limit 5/min -j ACCEPT",
     "--limit 5/min --limit-burst 5 -j ACCEPT", 0),
    ("filter", "INPUT", "--mark 0x1 -j ACCEPT", "--mark 0x2 -j ACCEPT", 1),
    # ebtables-nft 1.8.9 leaves a rule's watchers (--log, --nflog) out of
    # the comparison, ebtables (legacy, libebtc) compares them: a
    # reference defect (docs/CONFORMANCE.md).
    ("filter", "FORWARD", "--log-prefix x -j ACCEPT", "-j ACCEPT", 0, 1),
    ("filter", "FORWARD", "--log-prefix x -j ACCEPT",
     "--log-prefix x -j ACCEPT", 0),
    ("nat", "PREROUTING", "-p IPv4 -j dnat --to-dst 00:11:22:33:44:55",
     "-p IPv4 -j dnat --to-dst 0:11:22:33:44:55", 0),
]
# Each mode's user chains, made first with the reference's command line
# (and declared in a replaced table).
USER_CHAINS = {"nft4": ["web"], "nft6": ["web"], "legacy4": ["web"],
               "legacy6": ["web"], "bridge": []}
# Run each of these first, with the reference's command line: ebtables-nft
# keeps a user chain's DROP policy as the chain's last rule, which -C never
# finds.
BRIDGE_SETUP = [["-N", "dropper", "-P", "DROP"]]
BRIDGE_POLICY = [("filter", "dropper", "-p ARP -j ACCEPT", "-j DROP", 1)]

# ip6tables-legacy 1.8.9's -C compares the extensions' names but not (all
# of) their data (its own -D, and iptables-legacy's -C, compare both): a
# reference defect (docs/CONFORMANCE.md). For these pairs it says 0,
# fastrestore 1.
LEGACY6_CHECK_DEFECT = {
    ("-p tcp -m tcp --dport 22 -j ACCEPT", "-p tcp -m tcp --dport 23 -j ACCEPT"),
    ("-m limit --limit 5/min -j ACCEPT", "-m limit --limit 6/min -j ACCEPT"),
    ("-m limit --limit 5/min -j ACCEPT",
     "-m limit --limit 5/min --limit-burst 6 -j ACCEPT"),
    ("-m mark --mark 0x1/0xff -j DROP", "-m mark --mark 0x1/0xf -j DROP"),
    ("-m state --state ESTABLISHED -j ACCEPT",
     "-m conntrack --ctstate ESTABLISHED -j ACCEPT"),
    ("-p tcp -m multiport --dports 80,443 -j ACCEPT",
     "-p tcp -m multiport --dports 443,80 -j ACCEPT"),
    ("-j LOG --log-prefix x", "-j LOG --log-prefix y"),
    ("-j NFLOG --nflog-group 2", "-j NFLOG --nflog-group 3"),
    ("-m physdev --physdev-in eth0 -j ACCEPT",
     "-m physdev --physdev-in eth1 -j ACCEPT"),
    ("-o eth0 -j MASQUERADE", "-o eth0 -j MASQUERADE --random"),
    ("-j MARK --set-mark 1", "-j MARK --set-mark 2"),
    ("-p tcp -m tcp ! --dport 22 -j ACCEPT", "-p tcp -m tcp --dport 22 -j ACCEPT"),
    ("-p tcp -m tcp --syn -j DROP", "-p tcp -m tcp ! --syn -j DROP"),
    ("-p tcp -m tcp --tcp-option 2 -j DROP",
     "-p tcp -m tcp --tcp-option 3 -j DROP"),
    ("-p tcp -m multiport --ports 80 -j ACCEPT",
     "-p tcp -m multiport --dports 80 -j ACCEPT"),
    ("-m mark ! --mark 0x1 -j DROP", "-m mark --mark 0x1 -j DROP"),
    ("-m length --length 100:200 -j DROP", "-m length --length 100:201 -j DROP"),
    ("-m hashlimit --hashlimit-upto 5/sec --hashlimit-mode srcip "
     "--hashlimit-name h -j ACCEPT",
     "-m hashlimit --hashlimit-upto 5/sec --hashlimit-name h -j ACCEPT"),
    ("-m conntrack --ctstate NEW -j ACCEPT",
     "-m conntrack --ctstate NEW,ESTABLISHED -j ACCEPT"),
    ("-j CONNMARK --restore-mark", "-j CONNMARK --save-mark"),
    ("-m hl --hl-eq 64 -j DROP", "-m hl --hl-eq 63 -j DROP"),
    ("-p tcp -j MASQUERADE --to-ports 1024-2048",
     "-p tcp -j MASQUERADE --to-ports 1024-2049"),
    ("-p tcp -m tcp --dport 22 -j ACCEPT", "-p tcp -m tcp --dport 23 -j ACCEPT"),
    ("-m dscp --dscp 10 -j DROP", "-m dscp --dscp 11 -j DROP"),
    ("-m ecn --ecn-tcp-cwr -p tcp -j DROP", "-m ecn --ecn-tcp-ece -p tcp -j DROP"),
    ("-p esp -m esp --espspi 10 -j DROP", "-p esp -m esp --espspi 11 -j DROP"),
    ("-m mac --mac-source 00:11:22:33:44:55 -j DROP",
     "-m mac --mac-source 00:11:22:33:44:56 -j DROP"),
    ("-m quota --quota 1000 -j ACCEPT", "-m quota --quota 1001 -j ACCEPT"),
    ("-m statistic --mode random --probability 0.5 -j DROP",
     "-m statistic --mode random --probability 0.25 -j DROP"),
    ("-m statistic --mode nth --every 2 --packet 0 -j DROP",
     "-m statistic --mode nth --every 2 --packet 1 -j DROP"),
    ("-p tcp -m tcpmss --mss 1000:1500 -j DROP",
     "-p tcp -m tcpmss --mss 1000:1501 -j DROP"),
    ("-m time --weekdays Mon -j DROP", "-m time --weekdays Tue -j DROP"),
    ("-m devgroup --src-group 1 -j DROP", "-m devgroup --src-group 2 -j DROP"),
    ("-m cpu --cpu 0 -j DROP", "-m cpu --cpu 1 -j DROP"),
    ("-m policy --dir in --pol ipsec -j ACCEPT",
     "-m policy --dir in --pol none -j ACCEPT"),
    ("-m socket -j ACCEPT", "-m socket --transparent -j ACCEPT"),
    ("-j NFQUEUE --queue-num 1", "-j NFQUEUE --queue-num 2"),
    ("-j AUDIT --type accept", "-j AUDIT --type drop"),
    ("-j CLASSIFY --set-class 1:1", "-j CLASSIFY --set-class 1:2"),
    ("-j TOS --set-tos 0x10", "-j TOS --set-tos 0x08"),
    ("-p tcp -j REDIRECT --to-ports 8080", "-p tcp -j REDIRECT --to-ports 8081"),
    ("-j CT --zone 1", "-j CT --zone 2"),
    ("-m rpfilter -j DROP", "-m rpfilter --invert -j DROP"),
    ("-j NFLOG --nflog-group 2 --nflog-size 100",
     "-j NFLOG --nflog-group 2 --nflog-size 200"),
    ("-j NFLOG --nflog-group 2 --nflog-threshold 2",
     "-j NFLOG --nflog-group 2 --nflog-threshold 3"),
    ("-j NFLOG --nflog-group 2", "-j NFLOG --nflog-group 2 --nflog-size 0"),
    ("-j LOG --log-level 4", "-j LOG --log-level 5"),
    ("-j LOG --log-tcp-options", "-j LOG"),
    ("-m mark --mark 0x1/0x1 -j DROP", "-m mark --mark 0x1/0x3 -j DROP"),
    ("-p udp -m udp --sport 1:1024 -j DROP", "-p udp -m udp --sport 1:1023 -j DROP"),
    ("-p udp -m udp ! --sport 53 -j DROP", "-p udp -m udp ! --dport 53 -j DROP"),
    ("-p tcp -m tcp --sport 80 --dport 80 -j DROP",
     "-p tcp -m tcp --sport 80 ! --dport 80 -j DROP"),
    ("-m ipv6header --header frag -j DROP", "-m ipv6header --header hop -j DROP"),
    ("-m hbh --hbh-len 8 -j DROP", "-m hbh --hbh-len 16 -j DROP"),
    ("-p ipv6-mh -m mh --mh-type 1 -j DROP", "-p ipv6-mh -m mh --mh-type 2 -j DROP"),
    ("-j HL --hl-set 64", "-j HL --hl-set 63"),
    ("-j HL --hl-dec 1", "-j HL --hl-inc 1"),
    ("-p icmpv6 --icmpv6-type 1/3 -j ACCEPT", "-p icmpv6 --icmpv6-type 1/4 -j ACCEPT"),
    ("-m frag --fraglast -j DROP", "-m frag --fragfirst -j DROP"),
    ("-m dst --dst-len 8 -j DROP", "-m dst --dst-len 16 -j DROP"),
    ("-p tcp -j DNAT --to-destination [2001:db8::1]:80",
     "-p tcp -j DNAT --to-destination [2001:db8::1]:81"),
    ("-m conntrack --ctstatus ASSURED -j ACCEPT",
     "-m conntrack --ctstatus SEEN_REPLY -j ACCEPT"),
    ("-m conntrack ! --ctstate NEW -j ACCEPT", "-m conntrack --ctstate NEW -j ACCEPT"),
    ("-m owner --gid-owner 0 -j ACCEPT", "-m owner --gid-owner 1 -j ACCEPT"),
    ("-m addrtype --dst-type LOCAL --limit-iface-in -j ACCEPT",
     "-m addrtype --dst-type LOCAL -j ACCEPT"),
    ("-p tcp -m multiport --dports 1:100,200 -j ACCEPT",
     "-p tcp -m multiport --dports 1:100,201 -j ACCEPT"),
    ("-m connbytes --connbytes 10 --connbytes-dir both --connbytes-mode bytes "
     "-j ACCEPT", "-m connbytes --connbytes 11 --connbytes-dir both "
     "--connbytes-mode bytes -j ACCEPT"),
}


def legacy6(pairs):
    return [p[:4] + (0, 1) if (p[2], p[3]) in LEGACY6_CHECK_DEFECT else p
            for p in pairs]


PAIRS = {
    "nft4": INET + V4_ONLY + PROTO_ALL,
    "nft6": INET + V6 + V6_PREFIX_NFT + PROTO_ALL,
    "bridge": BRIDGE + BRIDGE_POLICY,
    "legacy4": INET + V4_ONLY + PROTO_ALL,
    "legacy6": legacy6(INET + V6 + V6_PREFIX_LEGACY) + PROTO_ALL_LEGACY6,
}


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    return p.returncode, p.stderr.strip()


def check_word(mode):
    """ebtables' -C changes counters; its check is --check."""
    return "--check" if mode == "bridge" else "-C"


def restore(fr, mode, table, line):
    text = "*%s\n%s\nCOMMIT\n" % (table, line)
    return run([fr] + MODES[mode][1] + ["--noflush"], text)


def declarations(mode, chain):
    """A replaced table's chain lines: the dropper's policy, the user
    chains."""
    decl = ":%s DROP\n" % chain if chain == "dropper" else ""
    return decl + "".join(":%s - [0:0]\n" % c for c in USER_CHAINS[mode])


def replaced(tool, mode, table, chain, a, b, check):
    """The status of one table replacement: A appended, then -C B."""
    decl = declarations(mode, chain)
    text = "*%s\n%s-A %s %s\n%s %s %s\nCOMMIT\n" % (table, decl, chain, a,
                                                     check, chain, b)
    return run(tool, text)


# mode: the reference's save, for the incremental way (nf_tables only)
SAVES = {"nft4": "iptables-nft-save", "nft6": "ip6tables-nft-save",
         "bridge": "ebtables-nft-save"}


def saved(mode, table):
    out = subprocess.run([SAVES[mode], "-t", table], capture_output=True,
                         text=True).stdout
    return "\n".join(l for l in out.splitlines() if not l.startswith("#"))


def incremental_way(fr, ref_restore, mode, table, chain, a, b, reset,
                    stale=False):
    """'' when loading A then B --incremental saves as B loaded alone;
    else what differs. `stale`: the journal made stale after A."""
    decl = declarations(mode, chain)
    block = "*%s\n%s-A %s %%s\nCOMMIT\n" % (table, decl, chain)
    reset()
    run([ref_restore], block % b)
    want = saved(mode, table)
    reset()
    journal = tempfile.mkdtemp(prefix="same_rule.")
    try:
        env = dict(os.environ, FASTRESTORE_JOURNAL_DIR=journal)
        for rule in (a, b):
            p = subprocess.run([fr] + MODES[mode][1] + ["--incremental"],
                               input=block % rule, capture_output=True,
                               text=True, env=env)
            if p.returncode != 0:
                return "status %d: %s" % (p.returncode, p.stderr.strip())
            if stale:
                # Another program's commit: the journal's record is stale,
                # and the delta is planned from the table read back (rules
                # compared by rule_identity, not by their bytes).
                run(["nft", "add table netdev same_rule_stale"])
                run(["nft", "delete table netdev same_rule_stale"])
    finally:
        shutil.rmtree(journal, ignore_errors=True)
    got = saved(mode, table)
    return "" if got == want else "saved\n%s\nwant\n%s" % (got, want)


def main():
    fr = os.path.realpath(sys.argv[1])
    if os.environ.get("SAME_RULE_NS") != "1":
        env = dict(os.environ, SAME_RULE_NS="1")
        return subprocess.run(["unshare", "-n", sys.executable,
                               os.path.abspath(__file__), fr],
                              env=env).returncode
    bad = 0
    checked = 0
    for mode, pairs in PAIRS.items():
        ref = MODES[mode][0]
        for pair in pairs:
            table, chain, a, b, want = pair[:5]
            want_fr = pair[5] if len(pair) > 5 else want
            def reset():
                run([ref, "-t", table, "-F"])
                run([ref, "-t", table, "-X"])
                if mode == "bridge":
                    for s in BRIDGE_SETUP:
                        run([ref, "-t", table] + s)
                for c in USER_CHAINS[mode]:
                    run([ref, "-t", table, "-N", c])

            name = "%s %s %s: [%s] -C [%s]" % (mode, table, chain, a, b)
            reset()
            st, err = run([ref, "-t", table, "-A", chain] + shlex.split(a))
            if st != 0:
                print("BAD PAIR %s: the reference refuses A: %s" % (name, err))
                bad += 1
                continue
            check = check_word(mode)
            r, rerr = run([ref, "-t", table, check, chain] + shlex.split(b))
            f, ferr = restore(fr, mode, table, "%s %s %s" % (check, chain, b))
            reset()
            st, err = restore(fr, mode, table, "-A %s %s" % (chain, a))
            r2 = run([ref, "-t", table, check, chain] + shlex.split(b))[0]
            r3 = replaced([MODES[mode][2]], mode, table, chain, a, b,
                          check)[0]
            f3, f3err = replaced([fr] + MODES[mode][1], mode, table, chain, a,
                                 b, check)
            checked += 1
            if st != 0:
                print("FAIL %s: fastrestore refuses A: %s" % (name, err))
                bad += 1
            elif r != want:
                print("BAD PAIR %s: the reference says %d, the pair %d (%s)" %
                      (name, r, want, rerr))
                bad += 1
            elif f != want_fr or r2 != r:
                print("FAIL %s: reference %d, fastrestore %d (%s, want %d); "
                      "reference on fastrestore's A %d" %
                      (name, r, f, ferr, want_fr, r2))
                bad += 1
            elif mode in SAVES and any(
                    incremental_way(fr, MODES[mode][2], mode, table, chain, a,
                                    b, reset, stale) for stale in (False, True)):
                for stale in (False, True):
                    print("FAIL %s, loaded --incremental after A (journal "
                          "%s): %s" % (name, "stale" if stale else "current",
                                       incremental_way(fr, MODES[mode][2],
                                                       mode, table, chain, a,
                                                       b, reset, stale)))
                bad += 1
            elif (r3 != r and len(pair) == 5) or f3 != want_fr:
                # (A reference defect may not show in a replaced table: the
                # comparison there is the whole-block model's.)
                print("FAIL %s in one replaced table: reference %d, "
                      "fastrestore %d (%s, want %d)" %
                      (name, r3, f3, f3err, want_fr))
                bad += 1
    print("%d pairs, %d failed" % (checked, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
