#!/usr/bin/env python3
"""Every file and folder a document names exists.

    doc_paths.py ROOT DOC.md [DOC.md ...]

A name in backquotes that looks like a path (lib/driver/, tools/cli.cpp,
test/structure/layers.py) must exist under ROOT; a bare file name
(block_writer.cpp, plan.h) must be the name of a file somewhere in the
project's own folders. A name with a wildcard (xt_*.cpp) or a
placeholder in capitals (match_NAME.cpp, regressions/TARGET/) must match
one; {a,b} names each.
Prints each missing name with its line; exit status 1 if any.
"""
import fnmatch
import os
import re
import sys

EXTENSIONS = (".cpp", ".h", ".py", ".sh", ".md", ".txt", ".awk", ".supp",
              ".rules", ".8", ".service", ".conf")
FOLDERS = ("lib", "tools", "include", "test", "scripts", "docs", "man",
           "packaging", "examples", ".ci")


def project_files(root):
    names = set()
    for top in FOLDERS:
        for base, _, files in os.walk(os.path.join(root, top)):
            names.update(files)
    names.update(os.listdir(root))
    return names


def expand(word):
    """The names a word stands for: {a,b} each, capitals as wildcards."""
    m = re.search(r"\{([^}]*)\}", word)
    if m:
        return [w for part in m.group(1).split(",")
                for w in expand(word[:m.start()] + part + word[m.end():])]
    return [re.sub(r"(?<![A-Za-z])[A-Z]+(?![A-Za-z])", "*", word)]


def exists(root, files, word):
    is_path = word.split("/")[0] in FOLDERS and "/" in word
    if not is_path:
        return any(fnmatch.fnmatch(n, word) for n in files) \
            if "*" in word else word in files
    return walk(root, word.rstrip("/").split("/"))


def walk(here, parts):
    """Whether parts (with wildcards) name something under here."""
    if not parts:
        return True
    if not os.path.isdir(here):
        return False
    return any(walk(os.path.join(here, n), parts[1:])
               for n in os.listdir(here) if fnmatch.fnmatch(n, parts[0]))


def main():
    root = sys.argv[1]
    files = project_files(root)
    missing = 0
    for doc in sys.argv[2:]:
        with open(doc, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for word in re.findall(r"`([^`\s]+)`", line):
                    word = word.rstrip(".,:;")
                    if word.startswith(("-", "/", "http")) or "=" in word:
                        continue  # an option, an absolute path, a setting
                    is_path = word.split("/")[0] in FOLDERS and "/" in word
                    is_file = "/" not in word and word.endswith(EXTENSIONS)
                    if not is_path and not is_file:
                        continue
                    ok = all(exists(root, files, w) for w in expand(word))
                    if not ok:
                        print(f"{doc}:{number}: `{word}` does not exist")
                        missing += 1
    if missing:
        sys.exit(1)
    print("every path named exists")


if __name__ == "__main__":
    main()
