#!/usr/bin/env python3
"""conformance.py RUNNER CEL_SPEC_DIR [--min PERCENT] - cel-spec's
conformance tests (../shared/cel-spec, read here at test time, never
copied) against cel/: each test's expression, bindings and expected value
or error go to RUNNER (tests/cel/cel_conformance.c) as one JSON line; the
runner answers ok or FAIL per line.

Which tests count: the files of the core language and of the extensions
Kubernetes 1.32 enables for CRD rules (FILES below). Left out, with the
reason counted: tests of protocol buffer messages (CRD rules never see
one: TestAllTypes, wrappers, Any, Struct, enums, a message container) and
tests of the type checker alone (check_only, or a typed_result without a
value). The pass rate of what counts must reach --min (the issue's 99%).
"""
import base64
import json
import os
import subprocess
import sys

FILES = ["basic", "comparisons", "conversions", "fields", "fp_math", "integer_math",
         "lists", "logic", "macros", "macros2", "optionals", "parse", "plumbing",
         "string", "string_ext", "timestamps"]


# the sections of string_ext.textproto that test ext.Strings functions newer
# than the version 2 Kubernetes 1.32 enables (environment/base.go)
LATER_STRINGS = {"reverse"}


# ---- the protobuf text format, as far as the test files use it ----

def tokens(text):
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n,;":
            i += 1
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif c in "{}<>:[]":
            yield c
            i += 1
        elif c in "\"'":
            q, j, out = c, i + 1, bytearray()
            while text[j] != q:
                if text[j] == "\\":
                    e = text[j + 1]
                    simple = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11,
                              "\\": 92, "'": 39, '"': 34, "?": 63}
                    if e in simple:
                        out.append(simple[e])
                        j += 2
                    elif e in "01234567":
                        k = j + 1
                        while k < j + 4 and text[k] in "01234567":
                            k += 1
                        out.append(int(text[j + 1:k], 8) & 0xFF)
                        j = k
                    elif e in "xX":
                        k = j + 2
                        while k < j + 4 and text[k] in "0123456789abcdefABCDEF":
                            k += 1
                        out.append(int(text[j + 2:k], 16))
                        j = k
                    elif e == "u":
                        out += chr(int(text[j + 2:j + 6], 16)).encode()
                        j += 6
                    elif e == "U":
                        out += chr(int(text[j + 2:j + 10], 16)).encode()
                        j += 10
                    else:
                        raise ValueError("escape \\%s" % e)
                else:
                    out += text[j].encode()
                    j += 1
            yield ("str", bytes(out))
            i = j + 1
        else:
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_.-+/"):
                j += 1
            if j == i:
                raise ValueError("unexpected %r" % c)
            yield ("word", text[i:j])
            i = j


class Toks:
    """The tokens with one of lookahead (adjacent strings concatenate)."""

    def __init__(self, it):
        self.t = list(it)
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= len(self.t):
            raise StopIteration
        x = self.t[self.i]
        self.i += 1
        if isinstance(x, tuple) and x[0] == "str":
            while self.i < len(self.t) and isinstance(self.t[self.i], tuple) and \
                    self.t[self.i][0] == "str":
                x = ("str", x[1] + self.t[self.i][1])
                self.i += 1
        return x


def parse_message(toks, close=None):
    """A message as a list of (name, value) pairs: a value is a scalar
    (bytes for strings, str for words) or a nested list of pairs."""
    if not isinstance(toks, Toks):
        toks = Toks(toks)
    fields = []
    for t in toks:
        if t == close:
            return fields
        if t == "[":  # an extension or Any type URL: [type.googleapis.com/x.Y]
            name = ""
            for u in toks:
                if u == "]":
                    break
                name += u[1]
            name = "[" + name + "]"
        else:
            name = t[1]
        v = next(toks)
        if v == ":":
            v = next(toks)
        if v in ("{", "<"):
            v = parse_message(toks, "}" if v == "{" else ">")
        elif v == "[":  # a list of scalars or messages
            items = []
            for u in toks:
                if u == "]":
                    break
                if u in ("{", "<"):
                    items.append(parse_message(toks, "}" if u == "{" else ">"))
                else:
                    items.append(u[1])
            for it in items:
                fields.append((name, it))
            continue
        else:
            v = v[1]
        fields.append((name, v))
    return fields


def get(msg, name, default=None):
    for k, v in msg:
        if k == name:
            return v
    return default


def get_all(msg, name):
    return [v for k, v in msg if k == name]


class Skip(Exception):
    pass


def text(b):
    return b.decode("utf-8") if isinstance(b, bytes) else b


def value(v):
    """A cel.expr.Value as the runner's tagged JSON."""
    k, x = v[0]
    if k == "int64_value":
        return {"int": str(int(x))}
    if k == "uint64_value":
        return {"uint": str(int(x))}
    if k == "double_value":
        s = str(x)
        if s in ("inf", "infinity", "Infinity"):
            return {"double": "Infinity"}
        if s in ("-inf", "-infinity", "-Infinity"):
            return {"double": "-Infinity"}
        if s.lower() == "nan":
            return {"double": "NaN"}
        return {"double": float(s)}
    if k == "string_value":
        return {"string": text(x)}
    if k == "bytes_value":
        return {"bytes": base64.b64encode(x).decode()}
    if k == "bool_value":
        return {"bool": x == "true"}
    if k == "null_value":
        return {"null": None}
    if k == "list_value":
        return {"list": [value(i) for i in get_all(x, "values")]}
    if k == "map_value":
        return {"map": [[value(get(e, "key")), value(get(e, "value"))]
                        for e in get_all(x, "entries")]}
    if k == "type_value":
        return {"type": text(x)}
    if k == "object_value":
        t, body = x[0]
        if t == "[type.googleapis.com/google.protobuf.Duration]":
            return {"duration": [int(get(body, "seconds", "0")), int(get(body, "nanos", "0"))]}
        if t == "[type.googleapis.com/google.protobuf.Timestamp]":
            return {"timestamp": [int(get(body, "seconds", "0")), int(get(body, "nanos", "0"))]}
        raise Skip("protobuf message")
    raise Skip("value kind " + k)


PROTO = ("TestAllTypes", "google.protobuf.", "cel.expr.conformance", "NestedMessage",
         "NestedEnum", "GlobalEnum", "proto2", "proto3")


def case(t):
    """The runner's JSON line for a test, or Skip with the reason."""
    expr = text(get(t, "expr"))
    if get(t, "check_only") == "true":
        raise Skip("type checker only")
    if get(t, "container"):
        raise Skip("protobuf message")
    for p in PROTO:
        if p in expr and not ("google.protobuf.Duration" in expr or
                              "google.protobuf.Timestamp" in expr):
            raise Skip("protobuf message")
    line = {"expr": expr, "bindings": {}}
    for b in get_all(t, "bindings"):
        line["bindings"][text(get(b, "key"))] = value(get(get(b, "value"), "value"))
    if get(t, "value") is not None:
        line["want"] = value(get(t, "value"))
    elif get(t, "eval_error") is not None:
        line["want"] = {"error": True}
    elif get(t, "typed_result") is not None:
        r = get(get(t, "typed_result"), "result")
        if r is None:
            raise Skip("type checker only")
        line["want"] = value(r)
    elif get(t, "unknown") is not None:
        raise Skip("unknowns")
    else:
        line["want"] = {"bool": True}  # no result given: true
    return line


def main():
    args = sys.argv[1:]
    minimum = 0.0
    if "--min" in args:
        i = args.index("--min")
        minimum = float(args[i + 1])
        del args[i:i + 2]
    runner, spec = args
    if not os.path.isdir(spec):
        if os.environ.get("CI") == "true":
            print("FAIL: %s missing (CI=true)" % spec)
            return 1
        print("SKIP: %s missing" % spec)
        return 77
    lines, names, skipped = [], [], {}
    for f in FILES:
        with open(os.path.join(spec, f + ".textproto")) as fh:
            top = parse_message(tokens(fh.read()))
        for sec in get_all(top, "section"):
            if f == "string_ext" and text(get(sec, "name")) in LATER_STRINGS:
                n = len(get_all(sec, "test"))
                why = "ext.Strings after version 2 (Kubernetes 1.32 enables version 2)"
                skipped[why] = skipped.get(why, 0) + n
                continue
            for t in get_all(sec, "test"):
                ref = "%s/%s/%s" % (f, text(get(sec, "name")), text(get(t, "name")))
                try:
                    lines.append(json.dumps(case(t)))
                    names.append(ref)
                except Skip as why:
                    skipped[str(why)] = skipped.get(str(why), 0) + 1
    out = subprocess.run([runner], input="\n".join(lines) + "\n", capture_output=True,
                         text=True)
    answers = out.stdout.splitlines()
    if out.returncode != 0 or len(answers) != len(lines):
        print("the runner failed (rc %d, %d answers for %d tests): %s" %
              (out.returncode, len(answers), len(lines), out.stderr[-2000:]))
        return 1
    failed = [(n, a) for n, a in zip(names, answers) if a != "ok"]
    per = {}
    for n, a in zip(names, answers):
        f = n.split("/")[0]
        ok, tot = per.get(f, (0, 0))
        per[f] = (ok + (a == "ok"), tot + 1)
    for n, a in failed:
        print("FAIL %s: %s" % (n, a))
    for f in FILES:
        ok, tot = per.get(f, (0, 0))
        print("%-14s %4d/%4d" % (f, ok, tot))
    passed = len(lines) - len(failed)
    rate = 100.0 * passed / max(1, len(lines))
    print("cel-spec: %d/%d pass (%.2f%%); left out: %s" % (
        passed, len(lines), rate, ", ".join("%d %s" % (v, k) for k, v in sorted(skipped.items()))))
    if rate < minimum:
        print("FAIL: %.2f%% is below %.2f%%" % (rate, minimum))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
