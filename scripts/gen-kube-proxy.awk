# kube-proxy's shape (iptables mode) in the nat table: per service one rule
# in KUBE-SERVICES, a KUBE-SVC chain spreading over its endpoints with
# statistic, and per endpoint a KUBE-SEP chain (masquerade mark, DNAT).
BEGIN {
  srand(3); rules = 0; svc = 0
  print "*nat"
  print ":PREROUTING ACCEPT [0:0]"; print ":INPUT ACCEPT [0:0]"
  print ":OUTPUT ACCEPT [0:0]"; print ":POSTROUTING ACCEPT [0:0]"
  print ":KUBE-SERVICES - [0:0]"; print ":KUBE-MARK-MASQ - [0:0]"
  print "-A PREROUTING -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"
  print "-A OUTPUT -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"
  print "-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000"
  while (rules < n) {
    eps = 1 + int(rand() * 4)
    ip = sprintf("10.%d.%d.%d", int(svc / 65536) % 256, int(svc / 256) % 256, svc % 256)
    port = 1 + int(rand() * 65535)
    printf ":KUBE-SVC-%08d - [0:0]\n", svc
    printf "-A KUBE-SERVICES -d %s/32 -p tcp -m comment --comment \"ns%d/svc%d:http cluster IP\" -m tcp --dport %d -j KUBE-SVC-%08d\n", ip, svc % 50, svc, port, svc
    rules++
    for (e = 0; e < eps; e++) {
      ep = sprintf("10.%d.%d.%d", 128 + int(rand() * 64), int(rand() * 256), int(rand() * 256))
      printf ":KUBE-SEP-%08d-%d - [0:0]\n", svc, e
      if (e < eps - 1)
        printf "-A KUBE-SVC-%08d -m comment --comment \"ns%d/svc%d:http -> %s:8080\" -m statistic --mode random --probability %.11f -j KUBE-SEP-%08d-%d\n", svc, svc % 50, svc, ep, 1 / (eps - e), svc, e
      else
        printf "-A KUBE-SVC-%08d -m comment --comment \"ns%d/svc%d:http -> %s:8080\" -j KUBE-SEP-%08d-%d\n", svc, svc % 50, svc, ep, svc, e
      printf "-A KUBE-SEP-%08d-%d -s %s/32 -m comment --comment \"ns%d/svc%d:http\" -j KUBE-MARK-MASQ\n", svc, e, ep, svc % 50, svc
      printf "-A KUBE-SEP-%08d-%d -p tcp -m comment --comment \"ns%d/svc%d:http\" -m tcp -j DNAT --to-destination %s:8080\n", svc, e, svc % 50, svc, ep
      rules += 3
    }
    svc++
  }
  print "COMMIT"
}
