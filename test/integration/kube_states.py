#!/usr/bin/env python3
"""kube-proxy's own iptables-restore --noflush input, one file a step, for
the incremental walk:

    kube_states.py SEED STEPS OUTDIR

Writes OUTDIR/0000.rules ... : the nat and filter tables of a cluster
whose services come and go and whose endpoints change from step to step
(drawn from SEED). As kube-proxy writes them: every chain it writes is
declared (which flushes it), rules follow, and the chains it no longer
needs are declared and deleted with -X. Most steps write every chain; some
write only the chains of the services that changed, as kube-proxy does
when it minimizes its input (the other chains stay as the kernel has
them). Jumps from the base chains are not in the input: kube-proxy adds
them with iptables.
"""
import os
import random
import sys


def svc_chain(s):
    return "KUBE-SVC-%08X" % (s * 2654435761 % (1 << 32))


def sep_chain(s, e):
    return "KUBE-SEP-%08X" % ((s * 40503 + e * 2654435761) % (1 << 32))


def endpoint(e):
    return "10.244.%d.%d" % (e // 250 % 250, e % 250 + 2)


def cluster_ip(s):
    return "10.96.%d.%d" % (s // 250 % 250, s % 250 + 1)


def step(rng, services, next_ids):
    """Changes `services` (service -> endpoint list) in place; returns the
    services changed."""
    changed = set()
    for _ in range(rng.randint(1, 4)):
        what = rng.random()
        if what < 0.25 or not services:
            s = next_ids["svc"]
            next_ids["svc"] += 1
            services[s] = []
            for _ in range(rng.randint(0, 3)):
                services[s].append(next_ids["ep"])
                next_ids["ep"] += 1
            changed.add(s)
        elif what < 0.4:
            s = rng.choice(sorted(services))
            del services[s]
            changed.add(s)
        else:
            s = rng.choice(sorted(services))
            eps = services[s]
            if eps and rng.random() < 0.4:
                eps.pop(rng.randrange(len(eps)))
            if not eps or rng.random() < 0.6:
                eps.insert(rng.randint(0, len(eps)), next_ids["ep"])
                next_ids["ep"] += 1
            changed.add(s)
    return changed


def chains_of(services):
    out = set()
    for s, eps in services.items():
        if eps:
            out.add(svc_chain(s))
        for e in eps:
            out.add(sep_chain(s, e))
    return out


def nat_block(services, written, stale):
    fixed = ["KUBE-SERVICES", "KUBE-POSTROUTING", "KUBE-MARK-MASQ",
             "KUBE-NODEPORTS"]
    lines = ["*nat"]
    mine = sorted(c for c in chains_of(services) if c in written)
    for c in fixed + mine + sorted(stale):
        lines.append(":%s - [0:0]" % c)
    lines += [
        "-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN",
        "-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000",
        "-A KUBE-POSTROUTING -m comment --comment \"kubernetes service "
        "traffic requiring SNAT\" -j MASQUERADE --random-fully",
        "-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000",
    ]
    for s in sorted(services):
        eps = services[s]
        if not eps:
            continue
        name = "ns%d/svc%d:http" % (s % 7, s)
        lines.append(
            "-A KUBE-SERVICES -m comment --comment \"%s cluster IP\" -d %s/32 "
            "-p tcp -m tcp --dport %d -j %s" %
            (name, cluster_ip(s), 80 + s % 50, svc_chain(s)))
        if svc_chain(s) not in written:
            continue
        for i, e in enumerate(eps):
            left = len(eps) - i
            prob = "" if left == 1 else (
                " -m statistic --mode random --probability %.11f" % (1 / left))
            lines.append("-A %s -m comment --comment \"%s -> %s:8080\"%s -j %s" %
                         (svc_chain(s), name, endpoint(e), prob, sep_chain(s, e)))
        for e in eps:
            lines.append("-A %s -m comment --comment %s -s %s/32 -j KUBE-MARK-MASQ"
                         % (sep_chain(s, e), name, endpoint(e)))
            lines.append("-A %s -m comment --comment %s -m tcp -p tcp -j DNAT "
                         "--to-destination %s:8080" %
                         (sep_chain(s, e), name, endpoint(e)))
    lines.append("-A KUBE-SERVICES -m comment --comment \"kubernetes service "
                 "nodeports\" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS")
    for c in sorted(stale):
        lines.append("-X %s" % c)
    lines.append("COMMIT")
    return lines


def filter_block(services):
    lines = ["*filter", ":KUBE-FORWARD - [0:0]", ":KUBE-SERVICES - [0:0]",
             "-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP",
             "-A KUBE-FORWARD -m mark --mark 0x4000/0x4000 -j ACCEPT"]
    for s in sorted(services):
        if not services[s]:
            lines.append(
                "-A KUBE-SERVICES -m comment --comment \"ns%d/svc%d:http has no "
                "endpoints\" -d %s/32 -p tcp -m tcp --dport %d -j REJECT "
                "--reject-with icmp-port-unreachable" %
                (s % 7, s, cluster_ip(s), 80 + s % 50))
    lines.append("COMMIT")
    return lines


def main():
    seed, steps, outdir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    os.makedirs(outdir, exist_ok=True)
    services, next_ids = {}, {"svc": 0, "ep": 0}
    for _ in range(12):
        step(rng, services, next_ids)
    before = set()
    for i in range(steps):
        changed = step(rng, services, next_ids) if i else set(services)
        now = chains_of(services)
        if i and rng.random() < 0.3:
            written = {c for c in now
                       if any(c in chains_of({s: services.get(s, [])})
                              for s in changed)}
        else:
            written = now
        stale = before - now
        with open(os.path.join(outdir, "%04d.rules" % i), "w") as f:
            f.write("\n".join(nat_block(services, written, stale) +
                              filter_block(services)) + "\n")
        before = now


if __name__ == "__main__":
    main()
