#!/usr/bin/env python3
"""Differential fuzzer: fastrestore against the tool it replaces.

Mutates valid restore inputs and runs every mutant through fastrestore and
through the reference tool of the same mode, each in a fresh private
network namespace, then compares what they did:

    mode     reference                  fastrestore              state read with
    nft4     iptables-nft-restore       fastrestore              iptables-nft-save, nft list ruleset
    nft6     ip6tables-nft-restore      fastrestore -6           ip6tables-nft-save, nft list ruleset
    bridge   ebtables-nft-restore       fastrestore --bridge     ebtables-nft-save, nft list ruleset
    legacy4  iptables-legacy-restore    fastrestore --legacy     iptables-legacy-save
    legacy6  ip6tables-legacy-restore   fastrestore --legacy -6  ip6tables-legacy-save

A finding is a mutant where the two differ in success against refusal, in
the exit status of a refusal, in the saved ruleset after both succeed or
after both refuse (a refusal that changed the kernel where the reference's
did not), or where fastrestore crashed or hung. Differences that
docs/CONFORMANCE.md lists as the reference's own defects are recognised by
explain() and counted apart, each under its reason. Every finding is
reduced (lines dropped while the same finding stays) and written to the
findings directory.

    fuzz_diff.py SECONDS [--seed N] [--max-inputs N] [--modes m,m]
                 [--findings DIR] [--fastrestore PATH]
    fuzz_diff.py --replay FILE...   (each FILE names its modes in a
                                     "# modes:" line; exits 1 on a finding)
    fuzz_diff.py --rejudge DIR...   (the findings an earlier run wrote, run
                                     again; exits 1 on one left unexplained)

Exits 0 when no unexplained finding was made, 1 otherwise. The closing
line counts inputs, findings and explained differences.
"""
import argparse
import glob
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)
import mutate  # noqa: E402

MODES = {
    "nft4": ("iptables-nft-restore", "", ["iptables-nft-save"], True),
    "nft6": ("ip6tables-nft-restore", "-6", ["ip6tables-nft-save"], True),
    "bridge": ("ebtables-nft-restore", "--bridge", ["ebtables-nft-save"],
               True),
    "legacy4": ("iptables-legacy-restore", "--legacy",
                ["iptables-legacy-save"], False),
    "legacy6": ("ip6tables-legacy-restore", "--legacy -6",
                ["ip6tables-legacy-save"], False),
}
KIND = {"nft4": "4", "nft6": "6", "bridge": "b", "legacy4": "4",
        "legacy6": "6"}
TIMEOUT = 30  # seconds for one tool on one input


# ---------------------------------------------------------------- running

class Outcome:
    def __init__(self, status, state, stderr):
        self.status = status  # exit status; 124/137 for a hang
        self.state = state    # the saved ruleset, comments dropped
        self.stderr = stderr

    def key(self):
        return (self.status, self.state)


def run_side(tool_cmd, mode, data, args, pre, work):
    """Runs tool_cmd ARGS < data in a fresh namespace (after loading `pre`
    with the reference tool, if given) and reads the ruleset back."""
    ref, _, saves, nft = MODES[mode]
    inp = os.path.join(work, "input")
    with open(inp, "wb") as f:
        f.write(data)
    prefile = os.path.join(work, "pre")
    if pre is not None:
        with open(prefile, "wb") as f:
            f.write(pre)
    save_c = "-c" if "-c" in args.split() else ""
    dumps = "".join("%s %s 2>&1 | grep -v '^#'; " % (s, save_c)
                    for s in saves)
    if nft:
        dumps += "nft list ruleset 2>&1; "
    script = (
        "set -u; "
        + ("%s < %s > /dev/null 2>&1 || exit 97; " % (ref, prefile)
           if pre is not None else "")
        + "timeout -s KILL %d %s %s < %s > /dev/null 2> %s/stderr; "
          "echo $? > %s/status; " % (TIMEOUT, tool_cmd, args, inp, work, work)
        + dumps)
    r = subprocess.run(["unshare", "-n", "bash", "-c", script],
                       capture_output=True, timeout=TIMEOUT * 3)
    if r.returncode == 97:
        return None  # the pre state could not be loaded: not a case
    with open(os.path.join(work, "status")) as f:
        status = int(f.read().strip() or "-1")
    with open(os.path.join(work, "stderr"), "rb") as f:
        stderr = f.read().decode("utf-8", "replace")
    return Outcome(status, r.stdout.decode("utf-8", "replace"), stderr)


class Case:
    def __init__(self, mode, data, args="", pre=None):
        self.mode, self.data, self.args, self.pre = mode, data, args, pre


def run_case(case, fr, work):
    ref, fr_args, _, _ = MODES[case.mode]
    a = run_side(ref, case.mode, case.data, case.args, case.pre, work)
    if a is None:
        return None
    b = run_side("%s %s" % (fr, fr_args), case.mode, case.data, case.args,
                 case.pre, work)
    if b is None:
        return None
    return a, b


# ---------------------------------------------------------- judging

def kind_of(a, b):
    """The finding two outcomes make, or None when they agree."""
    if b.status in (124, 137) or b.status >= 128:
        return "fastrestore crashed or hung (status %d)" % b.status
    if (a.status == 0) != (b.status == 0):
        return "success against refusal (reference %d, fastrestore %d)" % (
            a.status, b.status)
    if a.status != b.status:
        return "refusal status (reference %d, fastrestore %d)" % (
            a.status, b.status)
    if a.state != b.state:
        return ("ruleset after both succeeded" if a.status == 0 else
                "ruleset after both refused")
    return None


def lines_of(data):
    return data.split(b"\n")


def strip_counters(text):
    text = re.sub(r"\[\d+:\d+\]", "[0:0]", text)
    text = re.sub(r"counter packets \d+ bytes \d+", "counter", text)
    return text


def strip_policies(text):
    """A state with every chain policy the same (save and nft lines)."""
    text = re.sub(r"(?m)^(:\S+) (ACCEPT|DROP)\b", r"\1 POLICY", text)
    return re.sub(r"policy (accept|drop);", "policy POLICY;", text)


HANDLE_DEFECT = re.compile(
    r"(CHAIN_RENAME|RULE_INSERT|RULE_DELETE|RULE_REPLACE) failed "
    r"\(No such file or directory\)")


def explain(case, a, b):
    """The documented difference (docs/CONFORMANCE.md) this finding is,
    or None."""
    lines = lines_of(case.data)
    text = case.data.decode("latin-1")
    # Every reference splits a line of over 10 KiB in two (fgets buffer).
    if any(len(l) >= 10239 for l in lines):
        return "line over 10 KiB (the reference splits it)"
    if re.search(r"(?m)^(:standard[ \t]|.*-[NjgE][ \t]+(\S+[ \t]+)?"
                 r"standard([ \t]|$))", text):
        return "a chain or jump named standard"
    # (docs/CONFORMANCE.md: iptables-nft-restore crashes on -R, and on
    # -Z CHAIN N where the rule exists.)
    if (a.status >= 128 and a.status not in (124, 137) and
            re.search(r"(?m)^(\[\d+:\d+\][ \t]*)?(-R|--replace|-Z[ \t]+\S+"
                      r"[ \t]+\d)", text)):
        return "the reference crashed on -R or -Z CHAIN N"
    # (The hashlimit plugin divides by zero on a byte rate under 16b/s with
    # a burst: SIGFPE under every reference.)
    if (a.status == 136 and b.status == 2 and
            "--hashlimit-burst needs a rate of at least" in b.stderr):
        return "the reference crashed on a hashlimit byte rate with a burst"
    # (... and on a byte rate whose 16-byte units fill 32 bits.)
    if (a.status == 136 and b.status == 2 and "hashlimit" in text and
            re.search(r'Rate too high "[^"]*b/s"', b.stderr)):
        return "the reference crashed on a hashlimit byte rate of 2^32 units"
    # iptables-nft-restore's -Z (of all chains or of one) after a block
    # declared a base chain's policy puts the policy the chain had back
    # (docs/CONFORMANCE.md).
    if (MODES[case.mode][3] and case.mode != "bridge" and
            a.status == b.status and
            re.search(r"(?m)^(\[\d+:\d+\][ \t]*)?(-Z|--zero)([ \t]|$)",
                      text) and
            strip_policies(strip_counters(a.state)) ==
            strip_policies(strip_counters(b.state))):
        return "iptables-nft-restore's -Z puts back a declared policy"
    if a.status == 4 and HANDLE_DEFECT.search(a.stderr):
        return ("the reference refers to a rule or chain of the same block "
                "by a kernel handle it does not have yet")
    if (a.status == b.status and
            re.search(r"(?m)^\s*(-F|--flush)\s*$", text)):
        return "-F without a chain while replacing a table"
    # (The reference goes on with the rule, which may then fail for another
    # reason: a missing chain, status 1 or, at an implicit commit, 4.)
    if (case.mode == "bridge" and a.status in (0, 1, 4) and b.status == 2 and
            "No argument after '!'" in b.stderr and
            re.search(rb"(?m)(^|[ \t])![ \t]*\r?$", case.data)):
        return "ebtables-nft-restore ignores a trailing '!'"
    # -C/-D by specification: ip6tables-nft compares IPv6 addresses but not
    # their prefix lengths; ebtables-nft leaves watchers out;
    # ip6tables-legacy's -C compares extensions' names only.
    by_spec = re.search(r"(?m)^(\[\d+:\d+\][ \t]*)?(-C|-D|--check|--delete)"
                        r"[ \t]+\S+[ \t]+-", text)
    if (by_spec and a.status == 0 and b.status == 1 and
            "Bad rule" in b.stderr):
        if case.mode == "nft6" and re.search(r"[0-9a-fA-F:]+/\d+", text):
            return "ip6tables-nft compares IPv6 addresses, not prefix lengths"
        if re.search(r"-m[ \t]+helper|--stp-", text):
            return ("libxt_helper and libebt_stp declare no userspacesize: "
                    "the reference compares none of their bytes")
        if case.mode == "bridge" and re.search(r"--(log|nflog)", text):
            return "ebtables-nft leaves watchers out of -D and --check"
        if case.mode == "legacy6" and re.search(
                r"(?m)^(\[\d+:\d+\][ \t]*)?(-C|--check)[ \t]", text):
            return ("ip6tables-legacy's -C compares extensions' names, not "
                    "their data")
    # ebtables-nft cannot check or delete an among rule by specification.
    if (case.mode == "bridge" and a.status in (1, 4) and
            "Invalid argument" in a.stderr and
            re.search(r"(?m)^(-D|--delete|--check)[ \t]+\S+[ \t]+.*--among-",
                      text)):
        return "ebtables-nft cannot -D or --check an among rule"
    if (case.mode == "nft6" and a.status == b.status and
            strip_counters(a.state) == strip_counters(b.state)):
        return "ip6tables-nft-restore drops -c counters"
    if (case.mode.startswith("legacy") and a.status != 0 and
            "Bad argument `COMMIT'" in a.stderr and
            re.search(rb"(^|\n)COMMIT(\x00|$)", case.data)):
        return ("iptables-legacy-restore refuses a COMMIT a NUL or the end of "
                "input cuts off from its newline")
    if (case.mode.startswith("legacy") and b.status == 2 and
            "not allowed to start with" in b.stderr and
            re.search(r"(?m)^:[ \t]*[-!]", text)):
        return "iptables-legacy-restore creates a chain named -x"
    if (b.status == 2 and "(listing) is not a restore command" in b.stderr):
        return "-L or -S inside restore input"
    # iptables prints its help or version for -h or -V in a rule line and
    # exits 0 there, with nothing of the block applied.
    if (a.status == 0 and b.status == 2 and
            re.search(r"(?m)^(?![#*:])(.*[ \t])?(-h|--help|-V|--version)"
                      r"([ \t]|$)", text)):
        return "-h or -V inside a rule line"
    if (case.mode == "bridge" and b.status == 1 and
            len(re.findall(r"(?m)^\*", text)) > 1 and
            re.search(r"No chain/target/match|Bad policy name|Can't set "
                      r"policy|Chain already exists|Index of \w+ too big",
                      b.stderr)):
        return ("ebtables-nft-restore ignores a failed implicit commit at a "
                "table line")
    if (case.mode == "bridge" and b.status == 2 and
            "Problem with the specified rule number" in b.stderr and
            re.search(r"(?m)^-D[ \t]+\S+[ \t]+(-\d|\d*:|0*[1-9]\d{9})",
                      text)):
        return "ebtables -D with a range, a negative or a 32-bit number"
    # (The reference's rule may then be refused by the kernel: status 4.)
    if (case.mode == "bridge" and a.status in (0, 4) and b.status == 2 and
            re.search(r"--(mark-set|mark-or|mark-and|mark-xor|to-dst|"
                      r"to-src|arpreply-mac|redirect-target)", text)):
        return "ebtables target option without its -j"
    if (MODES[case.mode][3] and b.status == 2 and
            "-Z CHAIN N (one rule's counters)" in b.stderr):
        return "-Z CHAIN N on nf_tables"
    if (a.status == 0 and b.status == 4 and
            "CHAIN_RENAME failed: chain name" in b.stderr):
        return "-E of a kernel chain to a verdict's name"
    # iptables-nft renames a built-in chain (the table becomes one
    # iptables-nft-save calls incompatible); iptables-legacy refuses it.
    # The reference commits that block, so a later block's refusal may
    # give it another status (a bad table line: 2).
    if (b.status == 1 and a.status != 1 and
            "No chain/target/match by that name" in b.stderr and
            re.search(r"(?m)^(\[\d+:\d+\][ \t]*)?(-E|--rename-chain)[ \t]+"
                      r"(INPUT|FORWARD|OUTPUT|PREROUTING|POSTROUTING|"
                      r"BROUTING)[ \t]", text)):
        return "-E of a built-in chain"
    # fastrestore --test also makes the checks iptables-nft-restore makes
    # only when it commits (missing chains, jumps to them, indexes), which
    # its -t skips.
    if (MODES[case.mode][3] and a.status == 0 and b.status in (1, 2) and
            re.search(r"(^|\s)(-t|--test)(\s|$)", case.args) and
            re.search(r"No chain/target/match by that name|Index of "
                      r"\w+ too big|Chain already exists|"
                      r"Chain '[^']*' does not exist", b.stderr)):
        return "--test makes the checks made at COMMIT"
    return None


def judge(case, fr, work):
    """(kind, explanation) of a case, or None when it shows nothing."""
    r = run_case(case, fr, work)
    if r is None:
        return None
    a, b = r
    k = kind_of(a, b)
    if k is None:
        return None
    return k, explain(case, a, b), a, b


# ---------------------------------------------------------- reducing

def reduce_case(case, fr, work, kind, deadline):
    """Drops lines (then bytes of the longest line) while the same kind of
    unexplained finding stays."""
    def same(data):
        c = Case(case.mode, data, case.args, case.pre)
        j = judge(c, fr, work)
        return j is not None and j[0] == kind and j[1] is None

    lines = lines_of(case.data)
    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and time.time() < deadline:
        i, changed = 0, False
        while i < len(lines) and time.time() < deadline:
            trial = lines[:i] + lines[i + chunk:]
            if trial and same(b"\n".join(trial)):
                lines, changed = trial, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return Case(case.mode, b"\n".join(lines), case.args, case.pre)


# ---------------------------------------------------------- driving

def write_finding(dirname, n, case, kind, a, b):
    os.makedirs(dirname, exist_ok=True)
    name = n if isinstance(n, str) else "finding-%04d" % n
    path = os.path.join(dirname, "%s.%s" % (name, case.mode))
    with open(path + ".input", "wb") as f:
        f.write(case.data)
    with open(path + ".txt", "w") as f:
        f.write("mode: %s\nargs: %s\nkind: %s\n" % (case.mode, case.args,
                                                      kind))
        if case.pre is not None:
            f.write("pre (loaded with the reference):\n%s\n" %
                    case.pre.decode("latin-1"))
        for name, o in (("reference", a), ("fastrestore", b)):
            f.write("--- %s: status %d\n%s\n--- state\n%s\n" %
                    (name, o.status, o.stderr, o.state))
    return path


def fuzz(opts):
    rng = random.Random(opts.seed)
    seeds = mutate.load_seeds(ROOT, opts.modes)
    if not seeds:
        sys.exit("fuzz-diff: no seeds")
    work = tempfile.mkdtemp(prefix="fuzz-diff.")
    start = time.time()
    deadline = start + opts.seconds
    tried = findings = 0
    explained = {}
    reasons = []
    unexplained = []
    seen_kinds = set()
    try:
        while time.time() < deadline and (opts.max_inputs == 0 or
                                          tried < opts.max_inputs):
            case = Case(*mutate.make_case(rng, seeds, opts.modes))
            j = judge(case, opts.fastrestore, work)
            tried += 1
            if tried % 200 == 0:
                print("%d inputs, %d findings, %.0f s" %
                      (tried, findings, time.time() - start), flush=True)
            if j is None:
                continue
            findings += 1
            kind, why, a, b = j
            if why is not None:
                if why not in explained:
                    explained[why] = 0
                    reasons.append(why)
                explained[why] += 1
                if explained[why] <= 2:  # examples, to check the reason
                    write_finding(opts.findings, "explained-%d-%d" % (
                        reasons.index(why), explained[why]), case,
                        kind + "; explained: " + why, a, b)
                continue
            # One reduced copy of each kind of finding per mode.
            key = (case.mode, kind)
            small = case
            if key not in seen_kinds:
                seen_kinds.add(key)
                small = reduce_case(case, opts.fastrestore, work, kind,
                                    time.time() + 120)
                j2 = judge(small, opts.fastrestore, work)
                if j2 is not None:
                    a, b = j2[2], j2[3]
            path = write_finding(opts.findings, len(unexplained), small,
                                 kind, a, b)
            unexplained.append(path)
            print("finding: %s (%s): %s.input" % (kind, case.mode, path),
                  flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    secs = time.time() - start
    for why, n in sorted(explained.items()):
        print("explained: %d x %s" % (n, why))
    print("fuzz-diff: seed %d, %.0f s, modes %s" %
          (opts.seed, secs, ",".join(opts.modes)))
    print("%d inputs, %d findings, %d explained, %d unexplained" %
          (tried, findings, findings - len(unexplained), len(unexplained)))
    return 1 if unexplained else 0


def read_finding(path):
    """The Case a finding's .input and .txt describe."""
    with open(path, "rb") as f:
        data = f.read()
    with open(path[:-len(".input")] + ".txt", "rb") as f:
        txt = f.read().decode("latin-1")
    mode = re.search(r"(?m)^mode: (.*)$", txt).group(1)
    args = re.search(r"(?m)^args: (.*)$", txt).group(1).strip()
    pre = None
    m = re.search(r"(?s)pre \(loaded with the reference\):\n(.*?)\n--- "
                  r"reference", txt)
    if m:
        pre = m.group(1).encode("latin-1")
    return Case(mode, data, args, pre)


def run_cases(opts, named_cases):
    """Judges each (name, Case); a finding not explained fails. Prints a
    line per case and "N passed, M failed"."""
    work = tempfile.mkdtemp(prefix="fuzz-diff.")
    passed = failed = 0
    try:
        for name, case in named_cases:
            j = judge(case, opts.fastrestore, work)
            if j is not None and j[1] is None:
                failed += 1
                print("FAIL %s: %s" % (name, j[0]))
                for who, o in (("reference", j[2]), ("fastrestore", j[3])):
                    print("  %s: status %d\n%s" % (who, o.status, o.stderr))
            else:
                passed += 1
                print("ok %s%s" % (name, " (explained: %s)" % j[1]
                                   if j is not None else ""))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def rejudge(opts):
    """The findings of earlier runs, again: those the current fastrestore
    and explain() still leave unexplained fail."""
    paths = [p for d in opts.rejudge
             for p in sorted(glob.glob(os.path.join(d, "finding-*.input")))]
    return run_cases(opts, ((p, read_finding(p)) for p in paths))


def replay(opts):
    def cases():
        for path in opts.replay:
            with open(path, "rb") as f:
                data = f.read()
            m = re.search(rb"(?m)^# modes: *(.*)$", data)
            modes = m.group(1).decode().split() if m else ["nft4"]
            am = re.search(rb"(?m)^# args: *(.*)$", data)
            args = am.group(1).decode().strip() if am else ""
            for mode in modes:
                yield ("%s [%s]" % (os.path.basename(path), mode),
                       Case(mode, data, args))
    return run_cases(opts, cases())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("seconds", nargs="?", type=int, default=60)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--max-inputs", type=int, default=0)
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--findings",
                   default=os.path.join(ROOT, "build", "fuzz-diff",
                                        "findings"))
    p.add_argument("--fastrestore",
                   default=os.path.join(ROOT, "build", "fastrestore"))
    p.add_argument("--replay", nargs="+", metavar="FILE")
    p.add_argument("--rejudge", nargs="+", metavar="DIR",
                   help="run the findings written to DIR again")
    opts = p.parse_args()
    opts.modes = [m for m in opts.modes.split(",") if m]
    for m in opts.modes:
        if m not in MODES:
            sys.exit("fuzz-diff: unknown mode %s" % m)
    if os.geteuid() != 0 or subprocess.run(
            ["unshare", "-n", "true"]).returncode != 0:
        print("SKIP: needs root and network namespaces")
        return 77
    if not os.access(opts.fastrestore, os.X_OK):
        sys.exit("fuzz-diff: no fastrestore at %s (scripts/setup builds it)"
                 % opts.fastrestore)
    opts.fastrestore = os.path.abspath(opts.fastrestore)
    if opts.rejudge:
        return rejudge(opts)
    return replay(opts) if opts.replay else fuzz(opts)


if __name__ == "__main__":
    sys.exit(main())
