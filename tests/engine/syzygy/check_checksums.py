#!/usr/bin/env python3
"""Checks the Syzygy test tables in data/syzygy/ against the SHA-256 sums
listed in data/README.md (its "Syzygy test tables" block), both ways: every
listed file is present with its sum, and every table present is listed."""
import hashlib
import os
import re
import sys

data = sys.argv[1]
text = open(os.path.join(data, "README.md"), encoding="utf-8").read()
listed = dict((name, digest) for digest, name in
              re.findall(r"^([0-9a-f]{64})  syzygy/(\S+)$", text, re.M))
present = sorted(f for f in os.listdir(os.path.join(data, "syzygy")) if f.endswith((".rtbw", ".rtbz")))
bad = []
if not listed:
    bad.append("data/README.md lists no syzygy/ checksums")
for name in present:
    if name not in listed:
        bad.append(f"syzygy/{name} is not listed in data/README.md")
for name, digest in listed.items():
    path = os.path.join(data, "syzygy", name)
    if not os.path.exists(path):
        bad.append(f"syzygy/{name} is listed but missing")
        continue
    got = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if got != digest:
        bad.append(f"syzygy/{name}: sha256 {got}, README says {digest}")
for line in bad:
    print(line)
print(f"{len(listed)} tables listed, {len(present)} present, {len(bad)} problems")
sys.exit(1 if bad else 0)
