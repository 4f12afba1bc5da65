#!/usr/bin/env python3
"""The folders of lib/ in layers: no folder's objects use a symbol that a
folder above it defines (read from the built objects with nm, so a call
counts, an include alone does not).

    layers.py BUILD_DIR
"""
import collections
import glob
import os
import subprocess
import sys

# Top to bottom; a folder may use the folders after it.
LAYERS = [
    "lib/diff",
    "lib/driver",
    "lib/optimize",
    "lib/save", "lib/snapshot",
    "lib/nft_writer",
    "lib/incremental",
    "lib/backend/legacy", "lib/backend/nft",
    "lib/journal", "lib/ipset",
    "lib/check", "lib/ext",
    "lib/expr",
    "lib/print",
    "lib/parse",
    "lib/xtables",
    "lib/lex", "lib/diag", "lib/sys",
]
# Folders on one line of LAYERS share a layer: neither uses the other.
SAME = [{"lib/save", "lib/snapshot"}, {"lib/journal", "lib/ipset"},
        {"lib/lex", "lib/diag", "lib/sys"}]


def symbols(obj, flags):
    out = subprocess.run(["nm", "-C"] + flags + [obj], capture_output=True,
                         text=True, check=True).stdout
    return out.splitlines()


def main():
    build, root = sys.argv[1], os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    objdir = os.path.join(build, "CMakeFiles", "fastrestore_lib.dir")
    objs = [o for o in glob.glob(objdir + "/lib/**/*.o", recursive=True)
            if os.path.exists(os.path.join(root, os.path.relpath(o, objdir)[:-2]))]
    if not objs:
        print("no objects under " + objdir)
        return 2
    folder = lambda o: os.path.dirname(os.path.relpath(o, objdir))
    defined = {}
    for o in objs:
        for line in symbols(o, ["--defined-only", "-g"]):
            parts = line.split(" ", 2)
            if len(parts) == 3 and parts[1] in "TDBRVW":
                defined.setdefault(parts[2], folder(o))
    rank = {f: i for i, f in enumerate(LAYERS)}
    for group in SAME:
        top = min(rank[f] for f in group)
        for f in group:
            rank[f] = top
    bad = collections.defaultdict(set)
    for o in objs:
        user = folder(o)
        if user not in rank:
            print("folder not in LAYERS: " + user)
            return 1
        for line in symbols(o, ["-u"]):
            sym = line.strip()[2:].strip()
            owner = defined.get(sym)
            if owner is None or owner == user:
                continue
            if rank[owner] <= rank[user]:
                bad[(user, owner)].add(sym)
    for (user, owner), syms in sorted(bad.items()):
        print("%s uses %s, which is not below it: %s" %
              (user, owner, ", ".join(sorted(syms)[:3])))
    print("%d objects in %d folders; %d upward uses" %
          (len(objs), len({folder(o) for o in objs}), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
