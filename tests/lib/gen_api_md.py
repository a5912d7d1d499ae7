#!/usr/bin/env python3
"""Regenerates docs/API.md from docs/API.md.in: each line @@examples/X.c@@
becomes a ```c block holding that file verbatim, followed by its output
(tests/lib/expected/X.out) when present. lib_api_docs checks the result.

usage: gen_api_md.py [SOURCE_DIR [OUTPUT]]   (default: docs/API.md)"""
import os, re, sys

src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..')
tmpl = open(os.path.join(src, 'docs', 'API.md.in')).read()

def block(m):
    path = m.group(1)
    code = open(os.path.join(src, path)).read()
    out = '```c\n' + code + '```\n'
    name = os.path.splitext(os.path.basename(path))[0]
    exp = os.path.join(src, 'tests', 'lib', 'expected', name + '.out')
    if os.path.exists(exp):
        out += '\nOutput:\n\n```text\n' + open(exp).read() + '```\n'
    return out

dest = sys.argv[2] if len(sys.argv) > 2 else os.path.join(src, 'docs', 'API.md')
open(dest, 'w').write(
    re.sub(r'^@@(examples/[a-z_]+\.c)@@\n', block, tmpl, flags=re.M))
