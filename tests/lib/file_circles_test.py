#!/usr/bin/env python3
"""file_circles_test.py SOURCE_DIR - calls go one way between the files of
each module of the library and of the program (codec/, schema/, merge/,
ssa/, apply/, cli/): no file calls a file that calls it back, directly or
through others (docs/DESIGN.md, "Calls go one way").

A file calls another when it names a non-static function the other
defines, in its own functions or through a `static inline` function or a
function-like macro of the module's headers. Comments and strings are
left out. Prints every circle (its files and the functions on each edge)
and exits 1 when there is one; 0 otherwise, with the count of edges."""
import collections
import glob
import os
import re
import sys

MODULES = ["codec", "schema", "merge", "ssa", "apply", "cli"]
IDENT = re.compile(r"\b([A-Za-z_]\w*)\b")
# a definition: a line at column 0 that is not static and names a function
# whose body opens with `{` at column 0 on a later line
DEF = re.compile(r"^(?!static\b)(?![#{}])[A-Za-z_][^;{}()=]*?\b([A-Za-z_]\w*)\s*\([^;{}]*?\)\s*\n\{",
                 re.M)
INLINE = re.compile(r"^static\s+inline\b[^;{}]*?\b([A-Za-z_]\w*)\s*\([^;{}]*?\)\s*\n\{(.*?)^\}",
                    re.M | re.S)
MACRO = re.compile(r"^#\s*define\s+([A-Za-z_]\w*)\((.*?)(?<!\\)$", re.M | re.S)


def strip(text):
    """The text without comments, string and character literals (newlines
    kept, so that line-anchored patterns still hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def module_graph(src, mod):
    files = sorted(glob.glob(os.path.join(src, mod, "*.c")))
    texts = {os.path.basename(f): strip(open(f, encoding="utf-8").read()) for f in files}
    defined = collections.defaultdict(set)  # function -> files defining it
    for name, t in texts.items():
        for m in DEF.finditer(t):
            defined[m.group(1)].add(name)
    # what the module's headers' inline functions and macros name
    via = {}
    for h in sorted(glob.glob(os.path.join(src, mod, "*.h"))):
        t = strip(open(h, encoding="utf-8").read())
        for m in INLINE.finditer(t):
            via[m.group(1)] = set(IDENT.findall(m.group(2)))
        for m in MACRO.finditer(t):
            via[m.group(1)] = set(IDENT.findall(m.group(2)))

    def names(words, seen):
        out = set()
        for w in words:
            out.add(w)
            if w in via and w not in seen:
                seen.add(w)
                out |= names(via[w], seen)
        return out

    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for name, t in texts.items():
        for w in names(set(IDENT.findall(t)), set()):
            for other in defined.get(w, ()):
                if other != name and name not in defined[w]:
                    edges[name][other].add(w)
    return texts.keys(), edges


def circles(nodes, edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "."
    sys.setrecursionlimit(10000)
    bad, count = 0, 0
    for mod in MODULES:
        nodes, edges = module_graph(src, mod)
        count += sum(len(b) for b in edges.values())
        for comp in circles(nodes, edges):
            bad += 1
            print("circle in %s/: %s" % (mod, " ".join(comp)))
            for a in comp:
                for b in sorted(edges[a]):
                    if b in comp:
                        print("  %s -> %s: %s" % (a, b, ", ".join(sorted(edges[a][b]))))
    if bad:
        print("%d circles (docs/DESIGN.md, \"Calls go one way\")" % bad)
        return 1
    print("no circles: %d calls between files of %s" % (count, ", ".join(MODULES)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
