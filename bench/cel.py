#!/usr/bin/env python3
"""bench/cel.py BUILD_DIR [OBJECTS] - the x-kubernetes-validations rules of
a CRD with 20 rules over OBJECTS custom resources (10,000 by default):
`smpatch validate --schema CRD` of them (one stream) against the real
kube-apiserver 1.32.4's dry-run of the same objects (a POST with
dryRun=All per object, what `kubectl create --dry-run=server` sends, one
after the other, without kubectl's own time), in the same run; both must
refuse the same objects.

Not part of `make test` (`make bench` runs it when the real server is
built). Prints a table (bench/out/cel/cel.md) to copy into
bench/RESULTS.md. Target (issue 32): smpatch at least 10x faster.
Exit status: 1 when the verdicts differ or a program fails, else 0.
"""
import copy
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "realserver"))
import judge  # noqa: E402


def rule(r, msg):
    return {"rule": r, "message": msg}


# 20 rules in operators' shapes (bounded strings and lists, as the
# server's cost estimate demands)
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "workloads.bench.example.com"},
    "spec": {
        "group": "bench.example.com", "scope": "Namespaced",
        "names": {"kind": "Workload", "plural": "workloads", "singular": "workload",
                  "listKind": "WorkloadList"},
        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
            "openAPIV3Schema": {"type": "object", "properties": {"spec": {
                "type": "object",
                "x-kubernetes-validations": [
                    rule("self.minReplicas <= self.maxReplicas", "min over max"),
                    rule("self.replicas >= self.minReplicas && self.replicas <= self.maxReplicas",
                         "replicas out of bounds"),
                    rule("self.mode in ['Fast', 'Safe', 'Off']", "unknown mode"),
                    rule("self.mode != 'Off' || self.replicas == 0", "off means no replicas"),
                    rule("has(self.owner) && self.owner.size() > 0", "an owner is needed"),
                    rule("self.owner.matches('^[a-z][a-z0-9-]*$')", "owner must be a name"),
                    rule("self.ports.all(p, p.port > 0 && p.port < 65536)", "bad port"),
                    rule("self.ports.all(p, p.protocol in ['TCP', 'UDP'])", "bad protocol"),
                    rule("self.ports.exists(p, p.name == 'http')", "an http port is needed"),
                    rule("self.hosts.all(h, h.endsWith('.example.com'))", "foreign host"),
                    rule("size(self.hosts) <= 4", "too many hosts"),
                    rule("self.labels.all(k, k.startsWith('bench/'))", "foreign label"),
                    rule("!has(self.timeout) || self.timeout.matches('^[0-9]+s$')",
                         "timeout in seconds"),
                    rule("self.weight % 5 == 0", "weight step"),
                    rule("self.image.contains(':')", "image needs a tag"),
                    rule("!self.image.endsWith(':latest')", "no latest"),
                    rule("self.tier != 'gold' || self.replicas >= 3", "gold needs 3"),
                    rule("self.env.all(e, e.name.upperAscii() == e.name)", "env upper"),
                    rule("self.env.map(e, e.name).size() == self.env.size()", "env list"),
                    rule("self.ports.size() <= 8", "too many ports"),
                ],
                "properties": {
                    "replicas": {"type": "integer"}, "minReplicas": {"type": "integer"},
                    "maxReplicas": {"type": "integer"},
                    "mode": {"type": "string", "maxLength": 8},
                    "owner": {"type": "string", "maxLength": 63},
                    "timeout": {"type": "string", "maxLength": 16},
                    "weight": {"type": "integer"},
                    "image": {"type": "string", "maxLength": 128},
                    "tier": {"type": "string", "maxLength": 16},
                    "hosts": {"type": "array", "maxItems": 8,
                              "items": {"type": "string", "maxLength": 64}},
                    "labels": {"type": "object", "maxProperties": 8,
                               "additionalProperties": {"type": "string", "maxLength": 63}},
                    "ports": {"type": "array", "maxItems": 8, "items": {
                        "type": "object", "properties": {
                            "name": {"type": "string", "maxLength": 15},
                            "port": {"type": "integer"},
                            "protocol": {"type": "string", "maxLength": 4}}}},
                    "env": {"type": "array", "maxItems": 8, "items": {
                        "type": "object", "properties": {
                            "name": {"type": "string", "maxLength": 32},
                            "value": {"type": "string", "maxLength": 64}}}},
                }}}}}}],
    },
}


def obj(i):
    """Object i: every tenth breaks one rule (a different one each time)."""
    spec = {"replicas": 3, "minReplicas": 1, "maxReplicas": 5, "mode": "Fast",
            "owner": "team-%d" % (i % 97), "timeout": "30s", "weight": 10,
            "image": "registry.example.com/app:%d" % i, "tier": "gold",
            "hosts": ["a%d.example.com" % i, "b.example.com"],
            "labels": {"bench/app": "a%d" % i, "bench/tier": "gold"},
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"},
                      {"name": "metrics", "port": 9090, "protocol": "TCP"}],
            "env": [{"name": "MODE", "value": "x"}, {"name": "LEVEL", "value": "%d" % i}]}
    if i % 10 == 9:
        k = (i // 10) % 5
        if k == 0:
            spec["minReplicas"] = 9
        elif k == 1:
            spec["mode"] = "Turbo"
        elif k == 2:
            spec["ports"][0]["protocol"] = "SCTP"
        elif k == 3:
            spec["hosts"].append("evil.org")
        else:
            spec["image"] = "app:latest"
    return {"apiVersion": "bench.example.com/v1", "kind": "Workload",
            "metadata": {"name": "w%d" % i, "namespace": "default"}, "spec": spec}


def timed(cmd, env=None, stdout=subprocess.PIPE):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    p = subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True, env=env)
    wall = time.time() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return p, wall, cpu, r1.ru_maxrss


def main():
    build = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    smpatch, server = os.path.join(build, "smpatch"), os.path.join(build, "realserver")
    out_dir = os.path.join(HERE, "out", "cel")
    os.makedirs(out_dir, exist_ok=True)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        crdp = os.path.join(tmp, "crd.json")
        with open(crdp, "w") as f:
            json.dump(CRD, f)
        objs = os.path.join(tmp, "objects.yaml")
        with open(objs, "w") as f:
            for i in range(n):
                f.write("---\n" + json.dumps(obj(i)) + "\n")
        load0 = open("/proc/loadavg").read().split()[:3]
        p, sw, sc, _ = timed([smpatch, "validate", "--schema", crdp, "-f", objs, "-o", "json",
                              "--no-progress"])
        mine = {json.loads(line)["name"] for line in p.stdout.splitlines()
                if json.loads(line)["status"] == "invalid"}
        with judge.Server(server) as srv:
            rc, _, err = srv.kubectl("apply", "-f", crdp)
            srv.kubectl("wait", "--for=condition=Established", "-f", crdp, "--timeout=60s")
            for _ in range(50):
                if srv.kubectl("get", "workloads", "-o", "name")[0] == 0:
                    break
                time.sleep(0.2)
            # the server's dry-run of each object: POST ...?dryRun=All, one
            # request after the other (what kubectl create --dry-run=server
            # sends, without kubectl's own time per object)
            path = "/apis/bench.example.com/v1/namespaces/default/workloads"
            theirs = set()
            t0 = time.time()
            for i in range(n):
                o = obj(i)
                code, ans = srv.request("POST", path, o, query="dryRun=All")
                if code == 422:
                    theirs.add(o["metadata"]["name"])
                elif code not in (200, 201):
                    print("FAIL: the server answered %d for %s: %s" % (
                        code, o["metadata"]["name"], str(ans)[:300]))
                    failures += 1
            kw, kc = time.time() - t0, 0.0
            server_cpu = None
            try:
                with open("/proc/%d/stat" % srv.proc.pid) as f:
                    st = f.read().split()
                server_cpu = (int(st[13]) + int(st[14])) / os.sysconf("SC_CLK_TCK")
            except OSError:
                pass
        load1 = open("/proc/loadavg").read().split()[:3]
    if mine != theirs:
        print("FAIL: verdicts differ: smpatch refuses %d, the server %d (%s)" % (
            len(mine), len(theirs), sorted(mine ^ theirs)[:10]))
        failures += 1
    ratio = kw / sw if sw else 0
    table = os.path.join(out_dir, "cel.md")
    with open(table, "w") as f:
        f.write("| objects | rules | refused | smpatch validate s (CPU) | the server's dry-runs "
                "s | ratio |\n|---|---|---|---|---|---|\n")
        f.write("| %d | 20 | %d | %.2f (%.2f) | %.1f | %.0fx %s |\n" % (
            n, len(theirs), sw, sc, kw, ratio, "PASS" if ratio >= 10 else "FAIL"))
        f.write("\nTarget: smpatch at least 10x faster than the real server's dry-run of the "
                "same objects.\nThe server's own CPU over the whole run (start, CRD, "
                "dry-runs): %s s.\nLoad average %s at the start, %s at the end; %d cores.\n" % (
                    "%.1f" % server_cpu if server_cpu is not None else "?",
                    " ".join(load0), " ".join(load1), os.cpu_count()))
    print(open(table).read())
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
