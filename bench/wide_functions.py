#!/usr/bin/env python3
"""Counts the function definitions of the library and the front end (every
.c file one folder down, tests/ and bench/ left out) that take six or more
parameters: the figure issue 35's closing note gives before and after.
Usage: bench/wide_functions.py [TOP] [-v]   (-v: each one, FILE:NAME:COUNT)"""
import glob
import os
import re
import sys

args = [a for a in sys.argv[1:] if a != "-v"]
top = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DEF = re.compile(r"^(?:static\s+)?(?:inline\s+)?[A-Za-z_][\w \*]*?\b(\w+)\s*"
                 r"\(([^;{)]*(?:\([^)]*\)[^;{)]*)*)\)\s*\{", re.M)
found = []
for f in sorted(glob.glob(os.path.join(top, "*", "*.c"))):
    rel = os.path.relpath(f, top)
    if rel.split(os.sep)[0] in ("tests", "bench", "build"):
        continue
    src = re.sub(r"/\*.*?\*/", "", open(f, encoding="utf-8", errors="replace").read(), flags=re.S)
    for m in DEF.finditer(src):
        name, params = m.group(1), m.group(2).strip()
        if name in ("if", "while", "for", "switch"):
            continue
        n, depth = (0, 0) if params in ("", "void") else (1, 0)
        for ch in params if n else "":
            depth += ch == "("
            depth -= ch == ")"
            n += ch == "," and depth == 0
        if n >= 6:
            found.append(f"{rel}:{name}:{n}")
print(len(found))
if "-v" in sys.argv:
    print("\n".join(found))
