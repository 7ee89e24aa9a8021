#!/usr/bin/python3
"""tests/tools/rooms.py [TOP] - the house rules of src/analysis, checked
from the source text (docs/architecture.md, "The analysis wing"):

1. No import circle: a file unit is X.c with its header X.h; unit A
   imports unit B when A.c or A.h includes "analysis/.../B.h". The graph of
   units must have no cycle (two files that include each other, or a loop
   round several).
2. Data flows one way between the rooms: a unit may import only from its
   own room or a room below it. From the bottom: the wing's root (the one
   thresholds table), load/, judge/, advise/, compare/, tune/.
3. No function over 80 lines (a body from its opening brace at column 0
   to its closing one; tables are initializers, not functions).
4. No file over 600 lines.
5. A function is declared in its own unit's header: a function that X.c
   defines (not static) is declared in no header but X.h. (A header that
   declares another file's functions hides an import: the circle of two
   files that call each other through a third header.)

Prints every breach, one a line, then a summary line; exits 1 on a
breach, 0 otherwise. --graph prints the units' edges instead.
"""
import os
import re
import sys

ROOMS = ["", "load", "judge", "advise", "compare", "tune"]  # bottom first
MAX_FUNC_LINES = 80
MAX_FILE_LINES = 600
INCLUDE = re.compile(r'^\s*#\s*include\s+"analysis/([^"]+)\.h"')


def units(wing):
    """{unit: [files]} for every .c/.h under wing; a unit is its path
    relative to wing without the extension ("load/metrics")."""
    out = {}
    for root, _, names in os.walk(wing):
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                path = os.path.join(root, n)
                unit = os.path.relpath(path, wing)[:-2]
                out.setdefault(unit, []).append(path)
    return out


def room_of(unit):
    return unit.split("/")[0] if "/" in unit else ""


def edges(us):
    e = {u: set() for u in us}
    for u, files in us.items():
        for f in files:
            with open(f, encoding="utf-8") as fh:
                for line in fh:
                    m = INCLUDE.match(line)
                    if m and m.group(1) != u:
                        e[u].add(m.group(1))
    return e


def cycles(e):
    """The strongly connected components of more than one unit (Tarjan),
    each a circle."""
    index, low, onstack, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        onstack.add(v)
        for w in sorted(e.get(v, ())):
            if w not in e:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in onstack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                onstack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(e):
        if v not in index:
            visit(v)
    return out


def long_functions(path):
    """(name, lines) of each function whose body spans more than
    MAX_FUNC_LINES lines: from a '{' alone at column 0 to the next '}' at
    column 0 (this house's style: a function's braces stand alone)."""
    out = []
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    start = None
    for i, line in enumerate(lines):
        if line == "{":
            start = i
        elif line == "}" and start is not None:
            n = i - start + 2  # the signature's last line, the braces
            if n > MAX_FUNC_LINES:
                sig = lines[start - 1] if start > 0 else "?"
                j = start - 1
                while j > 0 and "(" not in lines[j]:
                    j -= 1
                m = re.search(r"(\w+)\s*\(", lines[j])
                out.append((m.group(1) if m else sig.strip(), n))
            start = None
    return out


def top_level(text):
    """text without its comments and without what stands inside braces
    (inline functions' bodies, structs): the declarations at file scope."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
    out, depth = [], 0
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def defined_functions(path):
    """The names of the functions path defines that are not static: a
    '{' alone at column 0 closes a signature that starts at column 0."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    out = []
    for i, line in enumerate(lines):
        if line != "{":
            continue
        s = i - 1
        while s > 0 and lines[s][:1] in ("\t", " "):
            s -= 1
        sig = lines[s]
        if sig.startswith("static") or "(" not in sig:
            continue
        m = re.search(r"(\w+)\s*\(", sig)
        if m:
            out.append(m.group(1))
    return out


def declared_elsewhere(us):
    """(function, its unit, the header that declares it) for each function
    declared in a header of another unit."""
    headers = {}
    for u, files in us.items():
        for f in files:
            if f.endswith(".h"):
                with open(f, encoding="utf-8") as fh:
                    headers[u] = top_level(fh.read())
    out = []
    for u, files in sorted(us.items()):
        for f in files:
            if not f.endswith(".c"):
                continue
            for name in defined_functions(f):
                pat = re.compile(r"\b%s\s*\(" % re.escape(name))
                for hu, text in sorted(headers.items()):
                    if hu != u and pat.search(text):
                        out.append((name, u, hu))
    return out


def main(argv):
    graph = "--graph" in argv
    args = [a for a in argv if a != "--graph"]
    top = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "..")
    wing = os.path.join(top, "src", "analysis")
    us = units(wing)
    e = edges(us)
    if graph:
        for u in sorted(e):
            for w in sorted(e[u]):
                print(f"{u} -> {w}")
        return 0
    breaches = []
    for u in sorted(e):
        for w in sorted(e[u]):
            if w not in us:
                breaches.append(f"include: {u} includes analysis/{w}.h, which is not in the wing")
                continue
            ru, rw = room_of(u), room_of(w)
            if ru not in ROOMS or rw not in ROOMS:
                breaches.append(f"rooms: {u} -> {w}: a room not in the order {ROOMS[1:]}")
            elif ROOMS.index(rw) > ROOMS.index(ru):
                breaches.append(f"rooms: {u} ({ru or 'root'}) imports {w} ({rw}), a room above it")
    for name, u, hu in declared_elsewhere(us):
        breaches.append(f"declaration: {name} is defined in {u}.c but declared in {hu}.h")
    for c in cycles(e):
        breaches.append("circle: " + " -> ".join(c) + " (each reaches the others)")
    nfiles = 0
    for u, files in sorted(us.items()):
        for f in files:
            nfiles += 1
            with open(f, encoding="utf-8") as fh:
                n = sum(1 for _ in fh)
            if n > MAX_FILE_LINES:
                breaches.append(f"file: {os.path.relpath(f, top)} has {n} lines (at most {MAX_FILE_LINES})")
            if f.endswith(".c"):
                for name, lines in long_functions(f):
                    breaches.append(f"function: {name} in {os.path.relpath(f, top)} spans {lines} lines "
                                    f"(at most {MAX_FUNC_LINES})")
    for b in breaches:
        print(b)
    nedges = sum(len(v) for v in e.values())
    print(f"rooms: {len(us)} units ({nfiles} files), {nedges} imports, {len(breaches)} breaches")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
