#!/usr/bin/env python3
"""Probe packets for --optimize's equivalence test (optimize_test.sh).

    optimize_probe.py rules FAMILY SEED OUT_RULES OUT_PROBES
        random rules with runs --optimize merges (sources, destinations,
        prefixes, mixed targets around them, rules that must not merge),
        and the probes: addresses in and out of every run, each protocol
        the rules name; the probes' destinations one per line after them
        (the receiver owns them all)
    optimize_probe.py receive FAMILY SECONDS OUT
        in the receiving namespace: every probe delivered locally (after
        the INPUT chain) noted by its id, until OUT.stop exists (or SECONDS
        pass); OUT.ready says it listens
    optimize_probe.py mutate FAMILY SEED IN OUT
        IN with a few random edits as a reloaded file has them: a rule
        deleted, an address or a comment changed, two rules swapped, a
        target changed (for --incremental --optimize's walk)
    optimize_probe.py send FAMILY IFACE DSTMAC PROBES
        in the sending namespace: each probe as an Ethernet frame on IFACE

Probes carry their id in their payload; raw sockets see a packet after
the kernel's INPUT hook, so the ids received are the probes the rules let
in.
"""
import ipaddress
import os
import random
import select
import socket
import struct
import sys
import time


def rules(family, seed, out_rules, out_probes):
    rnd = random.Random(seed)
    v6 = family == "6"
    base = ipaddress.ip_network("2001:db8::/32" if v6 else "10.0.0.0/8")
    dsts = [ipaddress.ip_address("2001:db9::1" if v6 else "192.168.50.1")]
    used = set()

    def fresh(prefix=None):
        full = 128 if v6 else 32
        plen = prefix or full
        span = full - base.prefixlen  # bits below the base prefix
        while True:
            offset = rnd.getrandbits(span) >> (full - plen) << (full - plen)
            n = ipaddress.ip_network("%s/%d" % (base.network_address + offset,
                                                plen))
            if not any(n.overlaps(u) for u in used):
                used.add(n)
                return n

    lines, probes = [], []
    srcs = []
    targets = ["DROP", "ACCEPT", "RETURN", "LOG --log-prefix x"]
    lines.append("-A INPUT -i lo -j ACCEPT")
    for run in range(rnd.randint(4, 7)):
        kind = rnd.choice(["src", "src", "dst", "srcnet"])
        n = rnd.randint(8, 30)
        proto = rnd.choice(["", "-p tcp --dport 22 ", "-p udp --dport 53 "])
        target = rnd.choice(targets)
        for i in range(n):
            if kind == "src":
                k = fresh()
                key = "-s %s" % k.network_address
            elif kind == "srcnet":
                k = fresh(rnd.choice([24, 28]) if not v6 else rnd.choice([64, 96]))
                key = "-s %s" % k
            else:
                k = fresh()
                dsts.append(k.network_address)
                key = "-d %s" % k.network_address
            comment = '-m comment --comment "r%d %d" ' % (run, i) if rnd.random() < 0.5 else ""
            lines.append("-A INPUT %s %s%s-j %s" % (key, proto, comment, target))
            (srcs if kind != "dst" else []).append(k)
        # Rules that must not merge: the same key again, a prefix around
        # one, a negated key, between the runs.
        if rnd.random() < 0.5 and kind == "src":
            lines.append("-A INPUT -s %s %s-j %s" % (k.network_address, proto,
                                                     rnd.choice(targets)))
        lines.append("-A INPUT -p udp --dport %d -j ACCEPT" % rnd.randint(1000, 2000))
    lines.append("-A INPUT -p tcp -j DROP")
    lines.append("-A INPUT -p udp --dport 9 -j DROP")
    with open(out_rules, "w") as f:
        f.write("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
                ":OUTPUT ACCEPT [0:0]\n")
        f.write("\n".join(lines) + "\nCOMMIT\n")
    # Probes: each source key (an address inside it) and addresses outside
    # every run, to each destination, each protocol and port the rules use.
    outside = [fresh().network_address for _ in range(10)]
    inside = [k.network_address + (rnd.randrange(k.num_addresses) if k.num_addresses > 1 else 0)
              for k in srcs]
    ports = [("tcp", 22), ("udp", 53), ("udp", 9), ("tcp", 80), ("udp", 1500)]
    pid = 0
    with open(out_probes, "w") as f:
        for s in inside + outside:
            for d in rnd.sample(dsts, min(len(dsts), 4)) + [dsts[0]]:
                proto, port = rnd.choice(ports)
                f.write("%d %s %s %s %d\n" % (pid, s, d, proto, port))
                pid += 1
        for d in dsts:
            for proto, port in ports[:3]:
                f.write("%d %s %s %s %d\n" % (pid, rnd.choice(outside + inside), d, proto, port))
                pid += 1
        f.write("dst\n")
        for d in sorted(set(dsts), key=str):
            f.write("%s\n" % d)


def mutate(family, seed, path_in, path_out):
    rnd = random.Random(seed)
    v6 = family == "6"
    lines = open(path_in).read().split("\n")
    rules = [i for i, l in enumerate(lines) if l.startswith("-A ")]
    for _ in range(rnd.randint(1, 4)):
        i = rnd.choice(rules)
        words = lines[i].split(" ")
        kind = rnd.randrange(5)
        if kind == 0 and len(rules) > 2:
            lines[i] = ""  # deleted (a blank line)
        elif kind == 1 and ("-s" in words or "-d" in words):
            k = words.index("-s" if "-s" in words else "-d") + 1
            prefix = words[k].partition("/")[2]
            if v6:
                a = "2001:db8:%x::%x" % (rnd.randrange(1, 0xffff),
                                         rnd.randrange(1, 0xffff))
            else:
                a = "10.%d.%d.%d" % (rnd.randrange(256), rnd.randrange(256),
                                     rnd.randrange(1, 255))
            if prefix:
                a = str(ipaddress.ip_network(a + "/" + prefix, strict=False))
            words[k] = a
            lines[i] = " ".join(words)
        elif kind == 2 and "--comment" in lines[i]:
            lines[i] = lines[i].replace('--comment "', '--comment "edited ', 1)
        elif kind == 3:
            j = rnd.choice(rules)
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 4 and "-j" in words:
            k = words.index("-j") + 1
            if words[k] in ("ACCEPT", "DROP"):
                words[k] = "DROP" if words[k] == "ACCEPT" else "ACCEPT"
                lines[i] = " ".join(words)
    with open(path_out, "w") as f:
        f.write("\n".join(l for l in lines if l != "") + "\n")


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def frame(family, src, dst, proto, port, payload):
    num = 6 if proto == "tcp" else 17
    if proto == "tcp":
        l4 = struct.pack("!HHIIBBHHH", 40000, port, 1, 0, 5 << 4, 0x02, 65535, 0, 0) + payload
    else:
        l4 = struct.pack("!HHHH", 40000, port, 8 + len(payload), 0) + payload
    s, d = ipaddress.ip_address(src).packed, ipaddress.ip_address(dst).packed
    if family == "6":
        pseudo = s + d + struct.pack("!IxxxB", len(l4), num)
    else:
        pseudo = s + d + struct.pack("!xBH", num, len(l4))
    c = checksum(pseudo + l4)
    at = 16 if proto == "tcp" else 6
    l4 = l4[:at] + struct.pack("!H", c or 0xFFFF) + l4[at + 2:]
    if family == "6":
        ip = struct.pack("!IHBB", 6 << 28, len(l4), num, 64) + s + d
        etype = 0x86DD
    else:
        hdr = struct.pack("!BBHHHBBH", 0x45, 0, 20 + len(l4), 0, 0, 64, num, 0) + s + d
        ip = hdr[:10] + struct.pack("!H", checksum(hdr)) + hdr[12:]
        etype = 0x0800
    return ip + l4, etype


def send(family, iface, dstmac, probes):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((iface, 0))
    mac = bytes.fromhex(dstmac.replace(":", ""))
    with open(probes) as f:
        for line in f:
            if line.strip() == "dst":
                break
            pid, src, dst, proto, port = line.split()
            packet, etype = frame(family, src, dst, proto, int(port),
                                  b"probe:%s;" % pid.encode())
            sock.send(mac + b"\x02\0\0\0\0\x01" + struct.pack("!H", etype) + packet)
            time.sleep(0.0005)


def receive(family, seconds, out):
    af = socket.AF_INET6 if family == "6" else socket.AF_INET
    socks = [socket.socket(af, socket.SOCK_RAW, p) for p in (6, 17)]
    ids = set()
    end = time.time() + float(seconds)
    with open(out + ".ready", "w"):
        pass
    while time.time() < end and not os.path.exists(out + ".stop"):
        ready, _, _ = select.select(socks, [], [], 0.2)
        for s in ready:
            data = s.recv(65535)
            at = data.find(b"probe:")
            if at >= 0:
                ids.add(int(data[at + 6:data.index(b";", at)]))
    with open(out, "w") as f:
        f.write("".join("%d\n" % i for i in sorted(ids)))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "rules":
        rules(*sys.argv[2:6])
    elif cmd == "mutate":
        mutate(*sys.argv[2:6])
    elif cmd == "send":
        send(*sys.argv[2:6])
    elif cmd == "receive":
        receive(*sys.argv[2:5])
