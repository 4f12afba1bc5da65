#!/usr/bin/env python3
"""A rules file with a few random edits, for the incremental walk:

    mutate_rules.py FILE SEED [bridge]

Edits (one to three, drawn from SEED), each inside one table block:
delete a rule, duplicate a rule, move a rule within its chain, modify a
rule (a comment added), change a base chain's policy, add a chain with a
rule and a jump to it, delete a chain with its rules (the jumps to it stay:
both tools refuse that alike), rename a chain. Lines outside blocks and
COMMIT lines stay as they are. Works for iptables and ebtables files.
"""
import random
import re
import sys


def blocks(lines):
    """(start, end) of each table block: its '*table' line to its COMMIT."""
    out, start = [], None
    for i, line in enumerate(lines):
        if line.startswith("*"):
            start = i
        elif line.strip() == "COMMIT" and start is not None:
            out.append((start, i))
            start = None
    return out


def rule_lines(lines, b):
    return [i for i in range(b[0] + 1, b[1]) if lines[i].startswith("-A ")]


def chain_of(line):
    parts = line.split()
    return parts[1] if len(parts) > 1 else ""


def mutate(lines, rnd, n, ebtables):
    bs = blocks(lines)
    if not bs:
        return lines
    b = rnd.choice(bs)
    rules = rule_lines(lines, b)
    what = rnd.choice(["delete", "duplicate", "move", "modify", "policy",
                       "add_chain", "delete_chain", "rename_chain"])
    if what in ("delete", "duplicate", "move", "modify") and not rules:
        what = "add_chain"
    if what == "delete":
        del lines[rnd.choice(rules)]
    elif what == "duplicate":
        i = rnd.choice(rules)
        lines.insert(i + 1, lines[i])
    elif what == "move":
        i = rnd.choice(rules)
        same = [j for j in rules if chain_of(lines[j]) == chain_of(lines[i])]
        j = rnd.choice(same)
        lines[i], lines[j] = lines[j], lines[i]
    elif what == "modify":
        i = rnd.choice(rules)
        parts = lines[i].split(" ", 2)
        if len(parts) == 3:
            extra = ("--log-prefix walk%d --log" if ebtables else
                     "-m comment --comment walk%d") % n
            lines[i] = "%s %s %s %s" % (parts[0], parts[1], extra, parts[2])
    elif what == "policy":
        heads = [i for i in range(b[0] + 1, b[1])
                 if re.match(r":[A-Z]+ (ACCEPT|DROP)", lines[i])]
        if heads:
            i = rnd.choice(heads)
            lines[i] = (lines[i].replace(" ACCEPT", " DROP", 1)
                        if " ACCEPT" in lines[i]
                        else lines[i].replace(" DROP", " ACCEPT", 1))
    elif what == "add_chain":
        name = "walk%d" % n
        decl = (":%s ACCEPT" % name) if ebtables else (":%s - [0:0]" % name)
        heads = [i for i in range(b[0] + 1, b[1]) if lines[i].startswith(":")]
        at = (heads[-1] + 1) if heads else b[0] + 1
        lines.insert(at, decl)
        body = ("-A %s -j ACCEPT" % name) if ebtables else \
               ("-A %s -p tcp --dport %d -j ACCEPT" % (name, 1000 + n))
        end = blocks(lines)[bs.index(b)][1]
        lines.insert(end, body)
        if rules:
            src = chain_of(lines[rnd.choice(rule_lines(lines, (b[0], end)))])
            lines.insert(end + 1, "-A %s -j %s" % (src, name))
    elif what in ("delete_chain", "rename_chain"):
        heads = [i for i in range(b[0] + 1, b[1])
                 if lines[i].startswith(":") and
                 re.match(r":\S+ (-|RETURN|ACCEPT|DROP)", lines[i]) and
                 not re.match(r":[A-Z_]+ ", lines[i])]
        if not heads:
            return lines
        i = rnd.choice(heads)
        name = lines[i][1:].split()[0]
        if what == "delete_chain":
            keep = [l for k, l in enumerate(lines)
                    if not (b[0] < k < b[1] and
                            (k == i or (l.startswith("-A ") and
                                        chain_of(l) == name)))]
            lines[:] = keep
        else:
            new = name + "x"
            pat = re.compile(r"(?<=[\s:])%s(?=\s|$)" % re.escape(name))
            for k in range(b[0] + 1, b[1]):
                lines[k] = pat.sub(new, lines[k])
    return lines


def main():
    path, seed = sys.argv[1], int(sys.argv[2])
    ebtables = len(sys.argv) > 3 and sys.argv[3] == "bridge"
    rnd = random.Random(seed)
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().split("\n")
    for k in range(rnd.randint(1, 3)):
        lines = mutate(lines, rnd, seed * 10 + k, ebtables)
    sys.stdout.write("\n".join(lines))


if __name__ == "__main__":
    main()
