#!/usr/bin/env python3
"""validate_check.py SMPATCH SOURCE_DIR - `smpatch validate`'s contract.

Its verdicts against the plan's own answers: an object `smpatch apply
--dry-run=server -o patch` refuses is invalid with that same Status (the
judge, realserver.refusals, holds those Statuses to a real API server's),
one it accepts is valid, a kind no schema knows is skipped and becomes
valid once its CRD is given; the text, JSON and JUnit outputs, the summary,
and the exit codes (0, 1 for an invalid object, 3 for an unreadable file
while the other objects are still judged, 2 for usage).
"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SMPATCH, SRC = sys.argv[1], sys.argv[2]
failures = 0


def run(*args):
    p = subprocess.run([SMPATCH] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check(what, cond, detail=""):
    global failures
    if not cond:
        failures += 1
        print("FAIL %s %s" % (what, detail))


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


GOOD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: good\ndata:\n  a: '1'\n"
BAD = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  labels:\n    x: -y\n"
       "data:\n  a: '1'\n")
WIDGET = ("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  parts:\n"
          "  - {name: a, kind: b}\n")
# its CRD requires spec.parts (realserver.custom judges such refusals)
PARTLESS = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec: {}\n"

with tempfile.TemporaryDirectory() as d:
    good = write(d, "good.yaml", GOOD)
    bad = write(d, "bad.yaml", BAD)
    widget = write(d, "widget.yaml", WIDGET)
    broken = write(d, "broken.yaml", "a: [\n")
    crd = os.path.join(SRC, "testdata", "schema", "widgets-crd.yaml")

    rc, out, err = run("validate", "-f", good)
    check("valid text", rc == 0 and out == "%s - ConfigMap good is valid\nSummary: 1 resource "
          "found in 1 file - Valid: 1, Invalid: 0, Errors: 0, Skipped: 0\n" % good, repr(out))

    # the refusal is the plan's, Status and all
    rc, out, err = run("apply", "-f", bad, "--dry-run=server", "-o", "patch")
    statuses = [json.loads(line).get("status") for line in out.splitlines()]
    check("apply refuses the bad label", len(statuses) == 1 and statuses[0], out + err)
    rc, out, err = run("validate", "-f", good, "-f", bad, "-f", widget, "-o", "json")
    lines = [json.loads(line) for line in out.splitlines()]
    check("json exit 1", rc == 1, "%d %s" % (rc, err))
    check("json lines", [(v["file"], v["kind"], v["name"], v["status"]) for v in lines] ==
          [(good, "ConfigMap", "good", "valid"), (bad, "ConfigMap", "bad", "invalid"),
           (widget, "Widget", "w", "skipped")], out)
    check("json refusal", lines[1].get("refusal") == statuses[0] and
          "refusal" not in lines[0] and "refusal" not in lines[2], out)
    check("json line and namespace", lines[0]["line"] == 1 and lines[0]["namespace"] == "default"
          and lines[0]["apiVersion"] == "v1", out)

    rc, out, err = run("validate", "-f", bad, "-f", widget)
    msg = statuses[0]["message"] if statuses and statuses[0] else "?"
    check("text invalid and skipped", rc == 1 and out.splitlines()[:2] == [
        "%s - ConfigMap bad is invalid: %s" % (bad, msg),
        "%s - Widget w skipped: no schema for example.com/v1 Widget" % widget], out)
    check("text summary", out.splitlines()[-1] == "Summary: 2 resources found in 2 files - "
          "Valid: 0, Invalid: 1, Errors: 0, Skipped: 1", out)

    rc, out, err = run("validate", "-f", widget, "--schema", crd)
    check("known once its CRD is given", rc == 0 and " - Widget w is valid\n" in out, out + err)
    partless = write(d, "partless.yaml", PARTLESS)
    rc, out, err = run("validate", "-f", partless, "--schema", crd, "-o", "json")
    check("refused by its CRD's schema", rc == 1 and json.loads(out)["status"] == "invalid",
          out + err)

    rc, out, err = run("validate", "-f", good, "-f", bad, "-f", widget, "-o", "junit")
    try:
        root = ET.fromstring(out)
        cases = root.findall("./testsuite/testcase")
        check("junit", rc == 1 and root.get("tests") == "3" and root.get("failures") == "1" and
              root.get("skipped") == "1" and [c.get("name") for c in cases] ==
              ["ConfigMap good", "ConfigMap bad", "Widget w"] and
              cases[1].find("failure").get("message") == msg and
              json.loads(cases[1].find("failure").text) == statuses[0] and
              cases[2].find("skipped") is not None, out)
    except ET.ParseError as e:
        check("junit parses", False, "%s: %s" % (e, out))

    rc, out, err = run("validate", "-f", broken, "-f", good)
    check("unreadable input: exit 3, the rest judged", rc == 3 and
          " - ConfigMap good is valid\n" in out and "broken.yaml" in err, "%d %s %s" % (rc, out, err))

    rc, out, err = run("validate", "-f", good, "--live", good)
    check("--live: kubectl apply's write", rc == 0 and " - ConfigMap good is valid\n" in out,
          out + err)

    rc, out, err = run("validate", "-f", good, "-o", "yaml")
    check("usage", rc == 2 and "unknown output format 'yaml' (text, json, junit)" in err, err)
    rc, out, err = run("validate")
    check("usage: no -f", rc == 2, err)

print("validate: %s" % ("ok" if not failures else "%d failures" % failures))
sys.exit(1 if failures else 0)
