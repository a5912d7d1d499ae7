#!/usr/bin/env python3
"""seeds.py - (re)builds the seed part of the fuzz corpora, testdata/fuzz/TARGET/seed-*,
from the project's own test data (testdata/patch, testdata/apply, testdata/schema)
and a few hand-written inputs. Reproducers (crash-*, finding-*) are kept as they are.

usage: tests/fuzz/seeds.py            (from the top of the checkout)

An input of the document targets is one selector byte (see each target's
header comment) followed by a YAML/JSON stream of its operands.
"""
import glob
import os
import shlex

MAX = 16384  # a seed larger than this is left out: small seeds fuzz faster
out_root = "testdata/fuzz"


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX:
        return
    d = os.path.join(out_root, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def stream(*docs):
    return b"\n---\n".join(d.rstrip(b"\n") for d in docs) + b"\n"


for old in glob.glob(os.path.join(out_root, "*", "seed-*")):
    os.remove(old)

# testdata/patch: `patch` and `diff` golden cases (args: shell words).
for case in sorted(glob.glob("testdata/patch/*/args")):
    d = os.path.dirname(case)
    name = os.path.basename(d)
    args = shlex.split(read(case).decode())
    files = [a for a in args if a and os.path.isfile(os.path.join(d, a))]
    docs = [read(os.path.join(d, f)) for f in files]
    if not docs:
        continue
    typ = args[args.index("--type") + 1] if "--type" in args else "strategic"
    if args[0] == "patch" and len(docs) >= 2:
        if typ == "json":
            write("jsonpatch", name, b"\x00" + stream(*docs[:2]))
        elif typ == "merge":
            write("jsonpatch", name, b"\x01" + stream(*docs[:2]))
        else:
            write("patch", name, b"\x00" + stream(*docs[:2]))
    elif args[0] == "diff" and len(docs) >= 2:
        # diff [--current LIVE] ORIGINAL MODIFIED: the target wants
        # original, modified, current.
        cur = None
        if "--current" in args:
            cur = read(os.path.join(d, args[args.index("--current") + 1]))
            docs = [x for x in docs if x != cur]
        ops = docs[:2] + ([cur] if cur else [])
        write("diff", name, (b"\x08" if typ == "merge" else b"\x00") + stream(*ops))

# testdata/apply: live object and configuration.
for d in sorted(glob.glob("testdata/apply/*/")):
    name = os.path.basename(d.rstrip("/"))
    live, cfg = os.path.join(d, "live.yaml"), os.path.join(d, "config.yaml")
    if os.path.isfile(live) and os.path.isfile(cfg):
        write("diff", "apply-" + name, b"\x00" + stream(read(live), read(cfg), read(live)))
        write("patch", "apply-" + name, b"\x00" + stream(read(live), read(cfg)))

# The test type of schemas.h (selector 1): every strategy and directive.
item_target = b"""name: root
keyed: [{name: a, value: "1"}, {name: b, keyed: [{name: x}]}]
byPort: [{port: 80, name: http}, {port: 443}]
plain: [{name: p}]
ints: [1, 2, 3]
words: [x, y]
labels: {a: "1", b: "2"}
child: {name: c, ints: [5]}
retained: {name: r, value: v}
retainedList: [{name: k, value: v, count: 1}]
replaced: {name: old, value: v}
size: 10
"""
item_patches = {
    "item-merge": b"""keyed: [{name: c, value: "3"}, {name: a, $patch: delete}]
$setElementOrder/keyed: [{name: c}, {name: b}]
ints: [4]
$deleteFromPrimitiveList/ints: [2]
labels: {a: null, c: "3"}
""",
    "item-retain": b"""retained: {$retainKeys: [name, count], count: 2}
retainedList: [{name: k, $retainKeys: [name], value: null}]
""",
    "item-replace": b"""replaced: {$patch: replace, name: new}
plain: [{name: q}]
child: {$patch: delete}
""",
    "item-list-replace": b"""keyed: [{$patch: replace}, {name: z}]
byPort: [{port: 80, $patch: delete}, {port: 8080}]
words: null
size: "50%"
""",
}
for n, p in item_patches.items():
    write("patch", n, b"\x01" + stream(item_target, p))
item_modified = {
    "item-keyed": b"""name: root
keyed: [{name: c, value: "3"}, {name: b, keyed: [{name: x, value: y}, {name: w}]}]
byPort: [{port: 443}, {port: 8080, name: alt}]
ints: [3, 1, 4]
words: [y]
labels: {b: "2", c: "3"}
child: {name: c}
retained: {name: r, count: 2}
retainedList: [{name: k, count: 2}, {name: l}]
replaced: {value: w}
size: "50%"
anything: {free: [form]}
""",
    "item-emptied": b"""name: root
keyed: []
ints: []
labels: {}
retained: {}
""",
}
for n, m in item_modified.items():
    write("diff", n, b"\x01" + stream(item_target, m, item_target))
    write("diff", n + "-reverse", b"\x02" + stream(m, item_target, m))
# The schema-violating lists of issue 15: strings where objects belong.
write("diff", "pod-containers-strings",
      b"\x03" + stream(b"spec: {containers: [a]}", b"spec: {containers: [b]}"))
write("diff", "pod-containers-strings-3way",
      b"\x00" + stream(b"{apiVersion: v1, kind: Pod, spec: {containers: [a]}}",
                       b"{apiVersion: v1, kind: Pod, spec: {containers: [b]}}",
                       b"{apiVersion: v1, kind: Pod, spec: {containers: [a, c]}}"))
write("diff", "merge-nested", b"\x08" + stream(b"{a: {b: 1, c: [1]}, d: x}", b"{a: {b: 2}, e: null}"))

# JSON Patch and merge patch by hand.
write("jsonpatch", "ops", b"\x00" + stream(
    b'{"a": {"b": [1, 2, 3]}, "c": "x"}',
    b'[{"op": "add", "path": "/a/b/1", "value": 9}, {"op": "remove", "path": "/c"},'
    b' {"op": "copy", "from": "/a", "path": "/d"}, {"op": "move", "from": "/d/b", "path": "/e"},'
    b' {"op": "test", "path": "/a/b/0", "value": 1}, {"op": "replace", "path": "/a/b/-", "value": 0}]'))
write("jsonpatch", "escapes", b"\x00" + stream(
    b'{"a/b": {"m~n": 1}}', b'[{"op": "replace", "path": "/a~1b/m~0n", "value": 2}]'))
write("jsonpatch", "merge", b"\x01" + stream(
    b'{"a": {"b": 1, "c": [1, 2]}, "d": "x"}', b'{"a": {"b": null, "c": {"e": 1}}, "d": [null]}'))

# Selectors: first line the text, the rest labels/objects.
sel = {
    "label-eq": (0, b"app=web,tier!=db,env in (prod, staging),!legacy,gpu", b"{app: web, env: prod, gpu: \"1\"}"),
    "label-ops": (0, b"a==b, c notin (d,), e>3, f<10, g, example.com/x-y_z=v", b"{a: b, e: \"4\", f: \"2\", g: \"\"}"),
    "label-bad": (0, b"a in (b", b"{a: b}"),
    "field": (1, b"metadata.name=web,spec.replicas!=3,metadata.namespace==a\\,b", b"{metadata: {name: web, namespace: 'a,b'}, spec: {replicas: 2}}"),
    "field-bad": (1, b"metadata.name", b"{}"),
    "object": (2, b"", b"matchLabels: {app: web}\nmatchExpressions: [{key: env, operator: In, values: [prod]}, {key: x, operator: DoesNotExist}]\n---\n{app: web, env: prod}"),
    "node-term": (6, b"", b"matchExpressions: [{key: cpu, operator: Gt, values: [\"4\"]}]\n---\n{cpu: \"8\"}"),
    "validate": (3, b"example.com/name", b"{good: v, -bad: v, ok/: x}"),
}
for n, (b, text, rest) in sel.items():
    write("selector", n, bytes([b]) + text + b"\n" + rest)

# Schemas: CRDs and the hostile documents of testdata/schema, and the test
# type of schemas.h as OpenAPI v2.
for f in sorted(glob.glob("testdata/schema/*.*")):
    write("schema", os.path.basename(f), read(f))
for f in sorted(glob.glob("testdata/schema/hostile/*/*")):
    if os.path.isfile(f):
        write("schema", "hostile-" + os.path.basename(os.path.dirname(f)) + "-" + os.path.basename(f), read(f))
with open("tests/fuzz/schemas.h") as f:
    src = f.read()
start = src.index("fuzz_item_schema[] =") + len("fuzz_item_schema[] =")
body = src[start:src.index(";", start)]
text = "".join(shlex.split(body.replace("\n", " "), posix=True))
write("schema", "item-v2.json", text)
write("schema", "item-v2-gvk.json", text.replace(
    '"type":"object","properties"',
    '"x-kubernetes-group-version-kind":[{"group":"x.io","version":"v1","kind":"Item"}],'
    '"type":"object","properties"', 1))

