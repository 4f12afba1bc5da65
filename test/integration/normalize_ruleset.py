#!/usr/bin/env python3
"""`nft list ruleset` on stdin, printed with rule handles, counters and
anonymous set names left out, the tables sorted and, in each table, its
chains and sets sorted: two rulesets that differ only in those print the
same."""
import re
import sys

text = sys.stdin.read()
text = re.sub(r" # handle \d+", "", text)
text = re.sub(r"counter packets \d+ bytes \d+", "counter", text)
text = re.sub(r"__set\d+", "__set", text)
tables = []
for table in re.split(r"(?m)^(?=table )", text):
    lines = [l for l in table.splitlines() if l.strip()]
    if not lines:
        continue
    head, body, tail = lines[0], lines[1:-1], lines[-1:]
    items = []  # a table's chains and sets, each from its first line
    for line in body:
        if re.match(r"\t\S", line) or not items:
            items.append([])
        items[-1].append(line)
    tables.append("\n".join([head] + ["\n".join(i) for i in sorted(items)] +
                            tail))
print("\n".join(sorted(tables)))
