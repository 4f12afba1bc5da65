#!/usr/bin/env python3
"""Differential fuzzing of the iptables command line.

Random sequences of iptables commands (every command fastrestore's command
line takes, with and without -v, on the filter, nat, mangle and raw
tables, rules from a pool of common matches and targets, and bad input of
each kind: unknown options and matches, missing arguments, missing chains,
numbers out of range, two commands at once) run through iptables-nft
1.8.9 and through `fastrestore iptables`, each sequence in two fresh
private network namespaces, one process per command. After every command
the exit status, standard output and standard error must be the same, and
so must the tables and chains nft lists (a built-in chain made too eagerly
shows there); after the sequence, iptables-nft-save and nft list ruleset.
Half the sequences start with a filter table loaded (iptables-nft-restore;
fastrestore --incremental, whose journal record the commands then use),
and a load comes now and then mid-sequence.

    fuzz_commands.py SECONDS [--seed N] [--length N] [--max-sequences N]

A sequence that differs is written to build/fuzz-commands/findings/ with
both tools' records, and the run exits 1. Commands whose difference
docs/CONFORMANCE.md lists (-h, -E of a built-in chain, -4/-6 after a bad
rule word) are not generated.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
FR = os.path.join(ROOT, "build", "fastrestore")
FINDINGS = os.path.join(ROOT, "build", "fuzz-commands", "findings")

# Each command of a sequence, in a namespace of its own: the status, the
# output, the error output and the tables' and chains' names after it.
# A line `load FILE' loads a filter table with the tool's restore
# (fastrestore's with --incremental, which makes the journal's record the
# commands then use) in place of the table there was (deleted first: an
# incremental load would change it in place, its chains in another order
# than the reference's new ones), the journal in a directory of the run's
# own.
RUNNER = r'''
tool=$1 commands=$2 out=$3 loader=$4
export FASTRESTORE_JOURNAL_DIR=$out/journal
n=0
while IFS= read -r line; do
  n=$((n + 1))
  case "$line" in
    "load "*)
      nft delete table ip filter 2> /dev/null
      eval "$loader < ${line#load }" > "$out/$n.out" 2> "$out/$n.err" ;;
    *) eval "$tool $line" > "$out/$n.out" 2> "$out/$n.err" ;;
  esac
  echo $? > "$out/$n.status"
  nft list ruleset 2>/dev/null | grep -o "^[[:space:]]*\(table\|chain\) [^{]*" \
    | tr -d "\t" > "$out/$n.chains"
done < "$commands"
iptables-nft-save 2>/dev/null | grep -v "^#" > "$out/save"
nft list ruleset > "$out/nft" 2>&1
'''

TABLES = {
    "filter": ["INPUT", "FORWARD", "OUTPUT"],
    "nat": ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"],
    "mangle": ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"],
    "raw": ["PREROUTING", "OUTPUT"],
}
USER = ["a", "b", "c"]
MISSING = ["nochain"]

MATCHES = [
    "-s 10.0.0.1", "-s 10.0.0.2/32", "! -s 10.0.0.3", "-d 192.0.2.0/24",
    "-p tcp --dport 22", "-p tcp -m tcp --dport 80", "-p udp --sport 53",
    "-p tcp ! --syn", "-i eth0", "! -o lo", "-i veth+",
    '-m comment --comment "x y"', "-m conntrack --ctstate ESTABLISHED,RELATED",
    "-m limit --limit 5/s", "-m state --state NEW", "-p icmp --icmp-type 8",
    "-m mark --mark 0x1", "-p udp -m multiport --dports 53,123", "-f",
    "-c 3 300", "-c 123456 98765432",
]
TARGETS = [
    "-j ACCEPT", "-j DROP", "-j RETURN", "-j LOG --log-prefix fw:",
    "-j REJECT", "-j MARK --set-mark 2", "-j CT --notrack", "-j MASQUERADE",
    "", "-g a",
]
BAD = [
    "--bogus", "-m bogus", "-s 999.1.1.1", "-p tcp --dport 99999", "-j",
    "-p", "-m", "! !", "extra",
]
NUMBERS = ["1", "1", "2", "3", "9", "0", "x"]
# Matches of a loaded ruleset (valid in any chain of the filter table).
LOAD_MATCHES = [
    "-s 10.0.0.1/32", "-s 10.0.0.2/32", "-d 192.0.2.0/24", "-p tcp -m tcp "
    "--dport 22", "-p udp -m udp --sport 53",
    '-m comment --comment "x y"', "-m conntrack --ctstate "
    "RELATED,ESTABLISHED", "-m mark --mark 0x1",
]


class Generator:
    def __init__(self, rng):
        self.r = rng

    def chain(self, table):
        x = self.r.random()
        if x < 0.5:
            return self.r.choice(TABLES[table])
        if x < 0.93:
            return self.r.choice(USER)
        return self.r.choice(MISSING)

    def rule(self, table):
        words = []
        for _ in range(self.r.choice([0, 1, 1, 2])):
            words.append(self.r.choice(MATCHES))
        if self.r.random() < 0.08:
            words.insert(self.r.randrange(len(words) + 1), self.r.choice(BAD))
        target = self.r.choice(TARGETS)
        if self.r.random() < 0.15:
            target = "-j " + self.r.choice(USER + MISSING)
        if target:
            words.append(target)
        return " ".join(words)

    def command(self):
        r = self.r
        table = r.choice(["filter"] * 6 + ["nat", "mangle", "raw"])
        chain = self.chain(table)
        kind = r.choice("AAAACCDDDIIRSSLLLFFZNNNXXPEV")
        words = []
        if kind in "ACDIR":
            words = ["-" + kind, chain]
            if kind == "D" and r.random() < 0.4:
                words.append(r.choice(NUMBERS))
            elif kind == "I" and r.random() < 0.5:
                words.append(r.choice(NUMBERS))
            elif kind == "R":
                words.append(r.choice(NUMBERS))
            if not (kind == "D" and len(words) == 3):
                words.append(self.rule(table))
        elif kind in "SL":
            words = ["-" + kind]
            if r.random() < 0.7:
                words.append(chain)
                if r.random() < 0.3:
                    words.append(r.choice(NUMBERS))
            if kind == "L":
                for option in ["-n", "-x", "--line-numbers"]:
                    if r.random() < 0.4:
                        words.insert(r.randrange(len(words) + 1), option)
            if r.random() < 0.1:
                # (The listing, then the counters zeroed.)
                words.insert(r.choice([0, len(words)]), "-Z")
        elif kind in "FX":
            words = ["-" + kind]
            if r.random() < 0.7:
                words.append(chain)
        elif kind == "Z":
            words = ["-Z"]
            if r.random() < 0.6:
                words.append(chain)
                if r.random() < 0.3:
                    words.append(r.choice(NUMBERS))
        elif kind == "N":
            words = ["-N", r.choice(USER + USER + MISSING + ["INPUT"])]
        elif kind == "P":
            words = ["-P", chain, r.choice(["ACCEPT", "DROP", "ACCEPT",
                                            "RETURN", "BOGUS"])]
        elif kind == "E":
            # (Not a built-in chain: iptables-nft renames it and leaves a
            # table it cannot list; fastrestore refuses, docs/CONFORMANCE.md.)
            words = ["-E", r.choice(USER + MISSING),
                     r.choice(USER + ["d", "INPUT"])]
        elif kind == "V":
            words = ["-V"]
        if r.random() < 0.15:
            words.insert(0, "-v")
        if r.random() < 0.03:
            words.insert(r.randrange(len(words) + 1),
                         r.choice(["-n", "-x", "-w", "-A b"]))
        if r.random() < 0.02:
            # (First: after a bad rule word the reference names that
            # word, fastrestore the family; docs/CONFORMANCE.md.)
            words.insert(0, r.choice(["-4", "-6"]))
        if r.random() < 0.05:
            words = words[:1]  # a command without its arguments
        if table != "filter" or r.random() < 0.05:
            words = ["-t", table] + words
        return " ".join(w for w in words if w)

    def ruleset(self):
        """A filter table as a restore file: every line valid."""
        r = self.r
        lines = ["*filter"]
        for chain in TABLES["filter"]:
            lines.append(f":{chain} {r.choice(['ACCEPT', 'ACCEPT', 'DROP'])}"
                         " [0:0]")
        users = USER[:r.randrange(len(USER) + 1)]
        lines += [f":{u} - [0:0]" for u in users]
        for chain in TABLES["filter"] + users:
            for _ in range(r.choice([0, 1, 2, 3, 5])):
                words = ["-A", chain]
                words += r.sample(LOAD_MATCHES, r.choice([0, 1, 1, 2]))
                if len({w[:2] for w in words[2:]}) < len(words) - 2:
                    words.pop()  # (-p, -s once a rule)
                words.append(r.choice(["-j ACCEPT", "-j DROP", "-j RETURN",
                                       "-j LOG", ""] +
                                      # (no loop: a user chain jumps
                                      # only to those after it)
                                      [f"-j {u}" for u in users
                                       if chain not in users or
                                       u > chain]))
                lines.append(" ".join(w for w in words if w))
        lines.append("COMMIT")
        return "\n".join(lines) + "\n"

    def sequence(self, length, loads):
        """Commands, and now and then (first, in half the sequences) a
        ruleset loaded: `loads` gets each file's text, the line names it."""
        out = []
        for n in range(length):
            if (n == 0 and self.r.random() < 0.5) or self.r.random() < 0.04:
                loads.append(self.ruleset())
                out.append(f"load {{load{len(loads) - 1}}}")
            else:
                out.append(self.command())
        return out


def run(tool, loader, commands, out):
    os.makedirs(out)
    path = os.path.join(out, "commands")
    with open(path, "w") as f:
        f.write("\n".join(commands) + "\n")
    subprocess.run(["unshare", "-n", "bash", "-c", RUNNER, "_", tool, path,
                    out, loader], check=True)


def read(out, name):
    try:
        with open(os.path.join(out, name), errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return None


def by_table(text):
    """`nft list ruleset`'s text with nft's warnings (written to stderr,
    so placed as the buffers flush) last."""
    if text is None:
        return None
    lines = text.splitlines(keepends=True)
    notes = [line for line in lines if line.startswith("# ")]
    return "".join(line for line in lines
                   if not line.startswith("# ")) + "".join(sorted(notes))


def compare(commands, ref, fr):
    """The first difference: (command number, what, reference, fastrestore),
    or None."""
    for n in range(1, len(commands) + 1):
        for what in ("status", "out", "err", "chains"):
            a, b = read(ref, f"{n}.{what}"), read(fr, f"{n}.{what}")
            if a != b:
                return n, what, a, b
    for what in ("save", "nft"):
        a, b = read(ref, what), read(fr, what)
        if what == "nft":
            a, b = by_table(a), by_table(b)
        if a != b:
            return len(commands), what, a, b
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("seconds", type=float)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--length", type=int, default=25)
    p.add_argument("--max-sequences", type=int, default=0)
    a = p.parse_args()
    rng = random.Random(a.seed)
    gen = Generator(rng)
    end = time.monotonic() + a.seconds
    done = 0
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() < end and (a.max_sequences == 0 or
                                          done < a.max_sequences):
            loads = []
            commands = gen.sequence(a.length, loads)
            for i, text in enumerate(loads):
                path = os.path.join(tmp, f"{done}.load{i}")
                with open(path, "w") as f:
                    f.write(text)
                commands = [c.replace(f"{{load{i}}}", path)
                            for c in commands]
            ref = os.path.join(tmp, f"{done}.ref")
            fr = os.path.join(tmp, f"{done}.fr")
            run("iptables-nft", "iptables-nft-restore", commands, ref)
            run(FR + " iptables", FR + " --incremental", commands, fr)
            diff = compare(commands, ref, fr)
            done += 1
            if diff is None:
                continue
            n, what, x, y = diff
            os.makedirs(FINDINGS, exist_ok=True)
            name = os.path.join(FINDINGS, f"seed{a.seed}-{done}.txt")
            with open(name, "w") as f:
                f.write("\n".join(commands[:n]) + "\n\n")
                for i, text in enumerate(loads):
                    f.write(f"load{i}:\n{text}\n")
                f.write(f"command {n} ({commands[n - 1]}): {what}\n")
                f.write(f"--- iptables-nft\n{x}\n--- fastrestore iptables\n{y}\n")
            print(f"fuzz-commands: seed {a.seed}, sequence {done}: command "
                  f"{n} `{commands[n - 1]}' differs in {what} ({name})")
            print(f"  iptables-nft: {x!r}\n  fastrestore:  {y!r}")
            return 1
    print(f"fuzz-commands: seed {a.seed}, {done} sequences of {a.length} "
          f"commands, no difference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
