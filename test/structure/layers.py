#!/usr/bin/env python3
"""The folders of lib/ in layers: no folder's objects use a symbol that a
folder above it defines (read from the built objects with nm, so a call
counts; an include of a folder above does not compile, since each folder's
library sees only the headers of the folders it links, CMakeLists.txt).

    layers.py BUILD_DIR
"""
import collections
import glob
import os
import re
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


def target_folder(target):
    """fr_FOLDER's folder: fr_nft is lib/backend/nft, fr_parse lib/parse."""
    name = target[len("fr_"):]
    for f in LAYERS:
        if f.split("/")[-1] == name:
            return f
    return None


def link_checks(root, rank):
    """Each folder's library links only folders below it (CMakeLists.txt),
    so its sources see no header of a folder above."""
    text = open(os.path.join(root, "CMakeLists.txt")).read()
    bad = 0
    for m in re.finditer(r"target_link_libraries\((fr_\w+) PUBLIC([^)]*)\)",
                         text):
        user = target_folder(m.group(1))
        for dep in re.findall(r"\bfr_\w+", m.group(2)):
            if dep == "fr_headers":
                continue
            owner = target_folder(dep)
            if user is None or owner is None or rank[owner] <= rank[user]:
                print("%s links %s, which is not below it" % (m.group(1), dep))
                bad += 1
    return bad


def main():
    build, root = sys.argv[1], os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    # Each folder's library (CMakeLists.txt: fr_FOLDER) builds its objects
    # under CMakeFiles/fr_FOLDER.dir/lib/...
    objdirs = glob.glob(os.path.join(build, "CMakeFiles", "fr_*.dir"))
    source = {}
    for objdir in objdirs:
        for o in glob.glob(objdir + "/lib/**/*.o", recursive=True):
            rel = os.path.relpath(o, objdir)[:-2]
            if os.path.exists(os.path.join(root, rel)):
                source[o] = rel
    objs = sorted(source)
    if not objs:
        print("no objects under " + os.path.join(build, "CMakeFiles"))
        return 2
    folder = lambda o: os.path.dirname(source[o])
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
    bad_links = link_checks(root, rank)
    print("%d objects in %d folders; %d upward uses; %d upward links" %
          (len(objs), len({folder(o) for o in objs}), len(bad), bad_links))
    return 1 if bad or bad_links else 0


if __name__ == "__main__":
    sys.exit(main())
