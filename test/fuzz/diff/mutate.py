"""Seeds and mutations for the differential fuzzer (fuzz_diff.py).

A seed is a valid restore input of one kind: "4" (iptables, IPv4), "6"
(IPv6) or "b" (ebtables), with the options and the state it expects
before it. Seeds come from the integration cases (test/cases), the real
rule files in ../shared/realworld/files (read there, never copied), and,
when scripts/conformance has fetched them, iptables' extension test
vectors (build/conformance).

A mutation edits the lines of an input as bytes, so NUL, CR and other
control bytes can be put anywhere.
"""
import glob
import os
import re

KINDS_OF_MODE = {"nft4": "4", "nft6": "6", "bridge": "b", "legacy4": "4",
                 "legacy6": "6"}


class Seed:
    def __init__(self, kind, data, args="", pre=None, origin=""):
        self.kind, self.data, self.args, self.pre = kind, data, args, pre
        self.origin = origin


def header(data, name):
    m = re.search(rb"(?m)^# " + name.encode() + rb": *(.*)$", data)
    return m.group(1).decode().strip() if m else ""


def case_seeds(root):
    out = []
    for path in sorted(glob.glob(os.path.join(root, "test", "cases", "*",
                                              "*.rules"))):
        with open(path, "rb") as f:
            data = f.read()
        fam = header(data, "family")
        kind = {"6": "6", "bridge": "b"}.get(fam, "4")
        pre = None
        pre_name = header(data, "pre")
        if pre_name:
            p = os.path.join(os.path.dirname(path), pre_name)
            if os.path.exists(p):
                with open(p, "rb") as f:
                    pre = f.read()
        out.append(Seed(kind, data, header(data, "args"), pre, path))
    return out


def realworld_seeds(root):
    out = []
    d = os.path.join(os.path.dirname(root), "shared", "realworld", "files")
    for path in sorted(glob.glob(os.path.join(d, "*"))):
        kind = {".rules": "4", ".rules6": "6", ".ebrules": "b"}.get(
            os.path.splitext(path)[1])
        if kind is None:
            continue
        with open(path, "rb") as f:
            out.append(Seed(kind, f.read(), origin=path))
    return out


def vector_seeds(root):
    """One block per extension test file: its OK rules in its first chain
    (setup lines, which need commands run first, are left out)."""
    out = []
    ext = os.path.join(root, "build", "conformance", "iptables-1.8.9",
                       "extensions")
    for path in sorted(glob.glob(os.path.join(ext, "*.t"))):
        name = os.path.basename(path)
        kinds = []
        if name.startswith(("libxt_", "libipt_")) or name == "iptables.t":
            kinds.append("4")
        if name.startswith(("libxt_", "libip6t_")):
            kinds.append("6")
        if name.startswith("libebt_"):
            kinds.append("b")
        table, chain, rules = "filter", None, []
        with open(path, "rb") as f:
            for line in f.read().split(b"\n"):
                if line.startswith(b"*"):
                    table = line[1:].decode().strip()
                elif line.startswith(b":") and chain is None:
                    chain = line[1:].split(b",")[0].strip().decode()
                elif b";" in line and not line.startswith((b"#", b"%",
                                                           b"@")):
                    parts = line.split(b";")
                    if len(parts) > 1 and parts[1].strip() == b"OK":
                        rules.append(parts[0])
        if chain is None or not rules:
            continue
        body = b"*" + table.encode() + b"\n"
        body += b"".join(b"-A " + chain.encode() + b" " + r + b"\n"
                         for r in rules[:40])
        if "b" not in kinds:
            body += b"COMMIT\n"
        for k in kinds:
            out.append(Seed(k, body, origin=path))
    return out


def load_seeds(root, modes):
    kinds = {KINDS_OF_MODE[m] for m in modes}
    seeds = case_seeds(root) + realworld_seeds(root) + vector_seeds(root)
    return [s for s in seeds if s.kind in kinds]


# ------------------------------------------------------------ mutations

NAMES = [b"ACCEPT", b"DROP", b"RETURN", b"QUEUE", b"LOG", b"REJECT",
         b"CONTINUE", b"INPUT", b"FORWARD", b"OUTPUT", b"PREROUTING",
         b"a\x0bb", b"a\x0cb", b"a\rb", b"x" * 28, b"x" * 29, b"-x", b"!x",
         b"x", b"y", b"", b"a b", b"standard", b"MARK", b"*x", b"#x"]
NUMBERS = [b"0", b"-1", b"1", b"255", b"256", b"65535", b"65536",
           b"4294967295", b"4294967296", b"18446744073709551616",
           b"99999999999999999999", b"0x10", b"010", b"1e3", b"+5", b"33",
           b"129", b"/33", b"2147483648"]
JUNK = [b"\x00", b"\r", b"\x0b", b"\x0c", b"\t", b'"', b"\\", b"!", b"#",
        b"*", b":", b"[", b"]", b"-", b"--", b" ", b"'", b"\xff", b"\x80",
        b"=", b",", b"/"]
OPTIONS = [b"-A", b"-I", b"-D", b"-R", b"-N", b"-X", b"-F", b"-Z", b"-P",
           b"-E", b"-C", b"-L", b"-S", b"-j", b"-g", b"-m", b"-p", b"-s",
           b"-d", b"-i", b"-o", b"-f", b"-c", b"-t", b"-v", b"-h", b"-V",
           b"--comment", b"--dport", b"--sport", b"!", b"--to-destination",
           b"--goto", b"--jump", b"--set-counters", b"--logical-in",
           b"--among-dst", b"--ip-proto"]
TABLES = [b"*filter", b"*nat", b"*mangle", b"*raw", b"*security",
          b"*broute", b"*natXX", b"*", b"* filter", b"*FILTER"]


def words(line):
    return [m for m in re.finditer(rb"[^ \t]+", line)]


def pick_line(rng, lines, pred=None):
    idx = [i for i, l in enumerate(lines) if pred is None or pred(l)]
    return rng.choice(idx) if idx else None


def m_delete(rng, lines):
    if len(lines) > 1:
        del lines[rng.randrange(len(lines))]


def m_duplicate(rng, lines):
    i = rng.randrange(len(lines))
    j = i + 1 if rng.random() < 0.5 else rng.randrange(len(lines) + 1)
    lines.insert(j, lines[i])


def m_swap(rng, lines):
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]


def m_drop_commit(rng, lines):
    i = pick_line(rng, lines, lambda l: l.strip() == b"COMMIT")
    if i is not None:
        del lines[i]


def m_rename_chain(rng, lines):
    chains = set()
    for l in lines:
        if l.startswith(b":"):
            w = l[1:].split()
            if w:
                chains.add(w[0])
        for m in re.finditer(rb"-(?:[NXEjg]|A|I|D|F|P) +([^ \t]+)", l):
            chains.add(m.group(1))
    if not chains:
        return
    old = rng.choice(sorted(chains))
    new = rng.choice(NAMES + sorted(chains))
    pat = re.compile(rb"(?<![^ \t:])" + re.escape(old) + rb"(?![^ \t])")
    if rng.random() < 0.5:
        for i, l in enumerate(lines):
            lines[i] = pat.sub(lambda _: new, l)
    else:
        i = pick_line(rng, lines, lambda l: pat.search(l) is not None)
        if i is not None:
            lines[i] = pat.sub(lambda _: new, lines[i], count=1)


def m_move_bang(rng, lines):
    i = pick_line(rng, lines, lambda l: l.startswith((b"-", b"[")))
    if i is None:
        return
    l = lines[i]
    ws = words(l)
    bangs = [w for w in ws if w.group() == b"!"]
    if bangs and rng.random() < 0.5:
        w = rng.choice(bangs)
        l = l[:w.start()] + l[w.end():]
    if ws:
        w = rng.choice(ws)
        at = w.start() if rng.random() < 0.7 else w.end()
        l = l[:at] + (b"! " if at == w.start() else b" !") + l[at:]
    lines[i] = l


def m_truncate_word(rng, lines):
    i = pick_line(rng, lines, lambda l: l.strip() != b"")
    if i is None:
        return
    ws = words(lines[i])
    w = rng.choice(ws)
    cut = rng.randrange(len(w.group()) + 1)
    lines[i] = lines[i][:w.start() + cut] + lines[i][w.end():]


def m_number(rng, lines):
    idx = [(i, m) for i, l in enumerate(lines)
           for m in re.finditer(rb"\d+", l)]
    if not idx:
        return
    i, m = rng.choice(idx)
    lines[i] = lines[i][:m.start()] + rng.choice(NUMBERS) + lines[i][m.end():]


def m_junk(rng, lines):
    i = rng.randrange(len(lines))
    l = lines[i]
    at = rng.randrange(len(l) + 1)
    junk = b"".join(rng.choice(JUNK) for _ in range(rng.randint(1, 3)))
    lines[i] = l[:at] + junk + l[at:]


def m_nul(rng, lines):
    r = rng.random()
    quoted = [i for i, l in enumerate(lines) if b'"' in l]
    if r < 0.3:
        lines.insert(rng.randrange(len(lines) + 1),
                     b"\x00" * rng.randint(1, 4))
    elif r < 0.5 and quoted:
        # Right after an opening quote (or a closed empty one): the line
        # ends there with an option left without its argument.
        i = rng.choice(quoted)
        at = lines[i].index(b'"') + 1
        lines[i] = lines[i][:at] + rng.choice([b"", b'"']) + b"\x00" + \
            lines[i][at:]
    else:
        i = rng.randrange(len(lines))
        at = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:at] + b"\x00" + lines[i][at:]


def m_crlf(rng, lines):
    if rng.random() < 0.5:
        for i in range(len(lines)):
            lines[i] += b"\r"
    else:
        lines[rng.randrange(len(lines))] += b"\r"


def m_long_line(rng, lines):
    i = pick_line(rng, lines, lambda l: l.startswith(b"-A"))
    size = rng.choice([1000, 1022, 1023, 1024, 1025, 4096, 8000, 10300])
    if i is None or rng.random() < 0.3:
        lines.insert(rng.randrange(len(lines) + 1), b"#" + b"c" * size)
        return
    if rng.random() < 0.5:
        lines[i] += b' -m comment --comment "' + b"c" * size + b'"'
    else:
        lines[i] += b" -s 10.0.0.1" * (size // 12)


def m_repeat_table(rng, lines):
    starts = [i for i, l in enumerate(lines) if l.startswith(b"*")]
    if not starts or rng.random() < 0.3:
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(TABLES))
        return
    s = rng.choice(starts)
    e = s + 1
    while e < len(lines) and lines[e].strip() != b"COMMIT" and \
            not lines[e].startswith(b"*"):
        e += 1
    block = lines[s:e + 1]
    at = rng.choice([e + 1, s, len(lines)])
    lines[at:at] = block


def m_option(rng, lines):
    i = pick_line(rng, lines, lambda l: l.startswith((b"-", b"[")))
    if i is None:
        return
    ws = [w for w in words(lines[i]) if w.group().startswith(b"-")]
    if not ws:
        return
    w = rng.choice(ws)
    lines[i] = lines[i][:w.start()] + rng.choice(OPTIONS) + lines[i][w.end():]


def m_splice(rng, lines, other):
    o = other.split(b"\n")
    if not o:
        return
    s = rng.randrange(len(o))
    piece = o[s:s + rng.randint(1, 4)]
    at = rng.randrange(len(lines) + 1)
    lines[at:at] = piece


MUTATIONS = [m_delete, m_duplicate, m_swap, m_drop_commit, m_rename_chain,
             m_move_bang, m_truncate_word, m_number, m_junk, m_nul, m_crlf,
             m_long_line, m_repeat_table, m_option]


def mutate(rng, data, others):
    """1 to 3 mutations of `data`; `others` are seeds of the same kind
    (for splicing)."""
    end_nl = data.endswith(b"\n")
    lines = data.split(b"\n")
    if end_nl:
        lines.pop()
    if not lines:
        lines = [b""]
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        if others and rng.random() < 0.08:
            m_splice(rng, lines, rng.choice(others).data)
        else:
            rng.choice(MUTATIONS)(rng, lines)
        if not lines:
            lines = [b""]
    out = b"\n".join(lines)
    if end_nl and rng.random() > 0.05:
        out += b"\n"
    return out


def make_case(rng, seeds, modes):
    """(mode, data, args, pre) of a mutant of a random seed, for one of
    `modes` that reads the seed's kind."""
    seed = rng.choice(seeds)
    mode = rng.choice([m for m in modes if KINDS_OF_MODE[m] == seed.kind])
    others = [s for s in seeds if s.kind == seed.kind]
    data = mutate(rng, seed.data, others)
    args = seed.args.split()
    pre = seed.pre
    r = rng.random()
    # (ebtables-restore takes no -c: its rules carry their counters.)
    if (r < 0.12 and seed.kind != "b" and "-c" not in args and
            "--counters" not in args):
        args.append("-c")
    elif r < 0.24 and "--noflush" not in args and "-n" not in args:
        args.append("--noflush")
        if pre is None and rng.random() < 0.5:
            pre = rng.choice(others).data
    return mode, data, " ".join(args), pre
