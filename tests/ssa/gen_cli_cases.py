#!/usr/bin/env python3
"""gen_cli_cases.py - authoring tool (not run by the tests): writes the inputs
of the command-line golden cases of server-side apply and replace,
testdata/ssa-cli/<case>/ (args.*, env, config and live files; the golden
layout of tests/golden/run_golden.sh).

Every live object, managedFields included, is computed by the reference
oracle: a chain of requests from nothing, each answer (plus the fields the
API server adds) the next request's live object, as gen_golden.py does. The
expected outputs are then written by the runner in update mode
(SMP_UPDATE_GOLDEN=1) and checked against the oracle by the ctest test
ssa.cli_oracle (tests/ssa/cli_oracle.py), so none is written by hand.

Usage (from the repository root, the oracle built):
    python3 tests/ssa/gen_cli_cases.py ORACLE [SHARED_DIR]
"""
import copy
import json
import os
import shutil
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ssalib import Program, live_from, merged_swagger  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "testdata", "ssa-cli")
NOW = "2024-06-01T12:00:00Z"


def ydump(objs):
    return "---\n".join(yaml.safe_dump(o, sort_keys=False, default_flow_style=False) for o in objs)


class Chain:
    def __init__(self, prog):
        self.prog, self.live, self.n = prog, None, 0

    def step(self, op, manager, config, force=False):
        self.n += 1
        case = {"id": str(self.n), "live": copy.deepcopy(self.live), "config": copy.deepcopy(config),
                "manager": manager, "force": force, "op": op}
        ans = self.prog.ask(case)
        if not ans["ok"]:
            raise SystemExit("chain step %d failed: %s" % (self.n, ans["error"]))
        self.live = live_from(ans, self.live)
        return self

    def apply(self, manager, config, force=False):
        return self.step("apply", manager, config, force)

    def update(self, manager, obj):
        return self.step("update", manager, obj)


def web(replicas=2, image="nginx:1.25", labels=None, ns=True):
    o = {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": "web", "labels": labels or {"app": "web"}},
         "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                  "template": {"metadata": {"labels": {"app": "web"}},
                               "spec": {"containers": [{
                                   "name": "app", "image": image,
                                   "ports": [{"containerPort": 53, "protocol": "TCP"},
                                             {"containerPort": 53, "protocol": "UDP"}]}]}}}}
    if ns:
        o["metadata"]["namespace"] = "default"
    return o


def unns(o):
    o = copy.deepcopy(o)
    o["metadata"].pop("namespace", None)
    return o


def svc(port_target=8080):
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"app": "web"},
                     "ports": [{"port": 53, "protocol": "UDP", "targetPort": 5353},
                               {"port": 80, "targetPort": port_target}]}}


def cm(data):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "default"},
            "data": data}


def without_mf(o):
    o = copy.deepcopy(o)
    o["metadata"].pop("managedFields", None)
    return o


class Writer:
    def __init__(self):
        self.cases = {}
        self.envs = {}

    def case(self, name, files, runs, note, env=None):
        self.cases[name] = (files, runs, note)
        self.envs[name] = env or NOW

    def write(self):
        if os.path.isdir(OUT):
            for d in os.listdir(OUT):
                if d not in self.cases and os.path.isdir(os.path.join(OUT, d)):
                    shutil.rmtree(os.path.join(OUT, d))
        for name, (files, runs, note) in sorted(self.cases.items()):
            d = os.path.join(OUT, name)
            if os.path.isdir(d):
                shutil.rmtree(d)
            os.makedirs(d)
            for fn, objs in files.items():
                with open(os.path.join(d, fn), "w") as f:
                    f.write(objs if isinstance(objs, str) else ydump(objs))
            for rn, args in runs.items():
                with open(os.path.join(d, "args" + ("." + rn if rn else "")), "w") as f:
                    f.write(args + "\n")
            with open(os.path.join(d, "env"), "w") as f:
                f.write("SMPATCH_NOW=%s\n" % self.envs[name])
            with open(os.path.join(d, "note"), "w") as f:
                f.write(note.strip() + "\n")


def main():
    oracle = sys.argv[1]
    shared = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "..", "shared")
    sw = os.path.join(shared, "openapi", "kubernetes-1.36.swagger.json")
    prog = Program([oracle, "-swagger", sw])
    w = Writer()
    A = "apply --server-side -f config.yaml --live live.yaml"
    J = " -o json --show-managed-fields"

    # create: nothing live
    w.case("create", {"config.yaml": [unns(web())]},
           {"": "apply --server-side -f config.yaml", "json": "apply --server-side -f config.yaml" + J,
            "yaml": "apply --server-side -f config.yaml -o yaml --show-managed-fields",
            "name": "apply --server-side -f config.yaml -o name",
            "manager": "apply --server-side --field-manager ci -f config.yaml",
            "hidden": "apply --server-side -f config.yaml -o yaml"},
           "a Deployment that does not exist yet: created, kubectl owns what it applied; "
           "ports 53/TCP and 53/UDP are two items")

    # no-op re-apply: no new time, nothing changes
    c = Chain(prog).apply("kubectl", web())
    w.case("noop-reapply", {"config.yaml": [unns(web())], "live.yaml": [c.live]},
           {"": A, "json": A + J, "diff": A + " -o diff"},
           "the same configuration again: unchanged, the entry keeps its time")

    # an edit takes replicas and the image; re-applying conflicts, then force
    c = Chain(prog).apply("kubectl", web())
    e = without_mf(c.live)
    e["spec"]["replicas"] = 3
    e["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.26"
    c.update("kubectl-edit", e)
    w.case("edit-conflict", {"config.yaml": [unns(web(image="nginx:1.25"))], "live.yaml": [c.live]},
           {"": A, "json": A + J, "yaml": A + " -o yaml",
            "force": A + " --force-conflicts" + J,
            "force-diff": A + " --force-conflicts -o diff --show-managed-fields"},
           "kubectl edit changed replicas and the image: re-applying the old values "
           "conflicts with \"kubectl-edit\" using apps/v1 (exit 4, the metav1.Status with "
           "-o json); --force-conflicts takes them back")

    # one conflict only
    c = Chain(prog).apply("kubectl", web())
    e = without_mf(c.live)
    e["spec"]["replicas"] = 5
    c.update("kubectl-scale", e)
    w.case("scale-conflict", {"config.yaml": [unns(web(replicas=2))], "live.yaml": [c.live]},
           {"": A, "json": A + J, "same": "apply --server-side -f same.yaml --live live.yaml" + J},
           "kubectl scale set replicas 5: applying 2 is 1 conflict; applying 5 (same.yaml) "
           "co-owns it without conflict")
    w.cases["scale-conflict"][0]["same.yaml"] = [unns(web(replicas=5))]

    # two appliers
    c = Chain(prog).apply("kubectl", web())
    w.case("two-appliers", {"config.yaml": [unns(web(replicas=4))], "live.yaml": [c.live]},
           {"": "apply --server-side --field-manager ci -f config.yaml --live live.yaml",
            "json": "apply --server-side --field-manager ci -f config.yaml --live live.yaml" + J,
            "force": "apply --server-side --field-manager ci --force-conflicts -f config.yaml "
                     "--live live.yaml" + J},
           "manager ci applies other replicas than applier kubectl: conflict with \"kubectl\" "
           "(an applier: no apiVersion); forced, kubectl loses the field")

    # dropping fields: owned alone (removed) vs shared with another applier (kept)
    c = Chain(prog).apply("kubectl", web(labels={"app": "web", "tier": "fe", "team": "a"}))
    c.apply("helm", {"apiVersion": "apps/v1", "kind": "Deployment",
                     "metadata": {"name": "web", "namespace": "default", "labels": {"team": "a"}}})
    w.case("drop-fields", {"config.yaml": [unns(web(labels={"app": "web"}))], "live.yaml": [c.live]},
           {"": A, "json": A + J, "diff": A + " -o diff"},
           "kubectl stops applying labels tier (it alone owned it: removed) and team "
           "(helm applies it too: kept)")

    # several objects: one created, one unchanged, one conflicting
    c1 = Chain(prog).apply("kubectl", web())
    c2 = Chain(prog).apply("kubectl", svc())
    s = without_mf(c2.live)
    s["spec"]["ports"][1]["targetPort"] = 9090
    c2.update("kubectl-edit", s)
    w.case("several", {"config.yaml": [unns(web()), unns(svc()), unns(cm({"mode": "fast"}))],
                       "live.yaml": [c1.live, c2.live]},
           {"": A, "json": A + J, "yaml": A + " -o yaml", "name": A + " -o name"},
           "three objects: the Deployment unchanged, the Service conflicts on "
           ".spec.ports[port=80,protocol=\"TCP\"].targetPort (protocol keyed as TCP), "
           "the ConfigMap created; the others are still shown, exit 4")

    # one object twice in a run: the second request sees the first's result
    w.case("same-object-twice", {"config.yaml": [unns(cm({"a": "1", "b": "2"})), unns(cm({"a": "1"}))]},
           {"": "apply --server-side -f config.yaml", "json": "apply --server-side -f config.yaml" + J,
            "other-manager": "apply --server-side -f config.yaml -f other.yaml" + J},
           "a ConfigMap applied twice in one run: the second apply drops b, which the first "
           "created and kubectl alone owns; with other.yaml a third apply sets a to 9"
           "with force")
    w.cases["same-object-twice"][0]["other.yaml"] = [unns(cm({"a": "9"}))]

    # namespaces
    w.case("namespace", {"config.yaml": [cm({"a": "1"}), unns(cm({"b": "2"}))]},
           {"": "apply --server-side -f config.yaml -n default",
            "other": "apply --server-side -f config.yaml -n other",
            "json": "apply --server-side -f config.yaml -n default" + J},
           "the request body gets the namespace; -n naming another one than the object "
           "is kubectl's error (exit 3)")

    # rejected requests (exit 3)
    bad_mf = unns(web())
    bad_mf["metadata"]["managedFields"] = [{"manager": "x", "operation": "Apply", "apiVersion": "apps/v1",
                                            "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}]
    dup = unns(web())
    dup["spec"]["template"]["spec"]["containers"].append({"name": "app", "image": "busybox"})
    wrong = unns(web())
    wrong["spec"]["replicas"] = "two"
    nokey = unns(web())
    del nokey["spec"]["template"]["spec"]["containers"][0]["name"]
    unknown = {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {}}
    for name, obj, note in [("reject-managedfields", bad_mf, "metadata.managedFields in an applied configuration"),
                            ("reject-duplicate-key", dup, "two containers named app"),
                            ("reject-wrong-type", wrong, "replicas: \"two\""),
                            ("reject-missing-key", nokey, "a container without its name"),
                            ("reject-unknown-kind", unknown, "a kind no schema knows")]:
        w.case(name, {"config.yaml": [obj]},
               {"": "apply --server-side -f config.yaml",
                "json": "apply --server-side -f config.yaml" + J},
               note + ": the server rejects the request (exit 3; -o json: its Status)")

    # a custom resource whose schema comes from its CRD
    wdg = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1", "namespace": "default"},
           "spec": {"replicas": 1, "members": [{"name": "a", "role": "lead"}, {"name": "b", "role": "dev"}]}}
    crd = "$SMP_TESTDATA/ssa/schemas/widgets.crd.yaml"
    with open(os.path.join(ROOT, "testdata", "ssa", "schemas", "widgets.definitions.json")) as f:
        defs = json.load(f)
    wprog = Program([oracle, "-swagger", merged_swagger(shared, defs, "/tmp/ssa-cli-gen-%d.json" % os.getpid())])
    c = Chain(wprog).apply("kubectl", wdg)
    m = without_mf(c.live)
    m["spec"]["members"][1]["role"] = "ops"
    c.update("operator", m)
    w2 = copy.deepcopy(unns(wdg))
    w2["spec"]["members"] = [{"name": "a", "role": "lead"}, {"name": "c", "role": "qa"}]
    w.case("crd-list-map", {"config.yaml": [w2], "live.yaml": [c.live]},
           {"": A + " --schema " + crd, "json": A + " --schema " + crd + J},
           "a Widget (CRD schema: members is x-kubernetes-list-type map keyed by name): "
           "kubectl drops member b, whose role the operator owns now: b stays with the "
           "operator's field, c is added")
    wprog.close()

    # flags
    w.case("flags", {"config.yaml": [unns(web())]},
           {"force-client": "apply --force-conflicts -f config.yaml",
            "dry-client": "apply --server-side --dry-run=client -f config.yaml",
            "dry-server": "apply --server-side --dry-run=server -f config.yaml",
            "prune": "apply --server-side --prune --all -f config.yaml",
            "client-manager": "apply --field-manager ci -f config.yaml",
            "server-side-false": "apply --server-side=false -f config.yaml",
            "empty-manager": "apply --server-side --field-manager= -f config.yaml",
            "empty-manager-json": "apply --server-side --field-manager= -f config.yaml -o json",
            "no-file": "apply --server-side",
            "bad-output": "apply --server-side -f config.yaml -o wide",
            "help": "apply --server-side --help"},
           "command-line checks: --force-conflicts without --server-side and --dry-run=client "
           "with it are kubectl's usage errors; --dry-run=server marks the status lines; "
           "--field-manager alone is client-side apply; an empty --field-manager= is sent, "
           "and the server answers 422 (PatchOptions validation), as the real API server "
           "answers it (realserver.kubectl_flows)")

    # replace
    c = Chain(prog).apply("kubectl", web())
    live = copy.deepcopy(c.live)
    live["status"] = {"replicas": 2, "readyReplicas": 2, "observedGeneration": 1}
    rep = unns(web(image="nginx:1.27"))
    del rep["spec"]["template"]["spec"]["containers"][0]["ports"]
    R = "replace -f config.yaml --live live.yaml"
    w.case("replace", {"config.yaml": [rep], "live.yaml": [live]},
           {"": R, "json": R + J, "yaml": R + " -o yaml", "diff": R + " -o diff --show-managed-fields",
            "name": R + " -o name", "manager": "replace --field-manager ci -f config.yaml --live live.yaml" + J,
            "empty-manager": "replace --field-manager= -f config.yaml --live live.yaml" + J},
           "kubectl replace of a server-side applied Deployment: kubectl-replace takes the image "
           "and the removed ports (an Update entry); uid, creationTimestamp, resourceVersion, "
           "generation and status stay the server's")
    stale = copy.deepcopy(rep)
    stale["metadata"]["resourceVersion"] = "999"
    w.case("replace-errors", {"config.yaml": [rep], "stale.yaml": [stale], "live.yaml": [],
                              "other.yaml": [unns(cm({"x": "1"}))]},
           {"": "replace -f config.yaml --live other.yaml",
            "json": "replace -f config.yaml --live other.yaml -o json",
            "stale": "replace -f stale.yaml --live live.yaml",
            "stale-json": "replace -f stale.yaml --live live.yaml -o json",
            "no-live": "replace -f config.yaml",
            "bad-output": "replace -f config.yaml --live live.yaml -o patch",
            "help": "replace --help"},
           "replace of an object that does not exist (NotFound, exit 3), with a stale "
           "resourceVersion (Conflict, exit 4), and usage errors")
    w.cases["replace-errors"][0]["live.yaml"] = [live]

    # invalid labels: the registry's validation after the field manager, in
    # every mode that writes (the oracle does no validation: not in
    # ssa.cli_oracle's runs)
    bad = unns(cm({"a": "1"}))
    bad["metadata"]["labels"] = {"tier": "-x-"}
    w.case("reject-labels", {"config.yaml": [bad]},
           {"": "apply --server-side -f config.yaml", "json": "apply --server-side -f config.yaml -o json",
            "create": "create -f config.yaml", "client-side": "apply -f config.yaml"},
           "a label value the API server's ValidateObjectMeta refuses (-x-): 422 Invalid with "
           "metadata.labels named, server-side, by create and client-side alike (exit 3)")

    # migration from client-side apply: a ConfigMap created by kubectl apply
    # (client-side: a POST as kubectl-client-side-apply with the annotation,
    # as recorded through the stand-in), then applied server-side with one
    # key dropped and one added
    old = cm({"a": "1", "b": "2"})
    ann = json.dumps({"apiVersion": "v1", "data": {"a": "1", "b": "2"}, "kind": "ConfigMap",
                      "metadata": {"annotations": {}, "name": "settings", "namespace": "default"}},
                     separators=(",", ":"), sort_keys=True) + "\n"
    old["metadata"]["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": ann}
    csa = Chain(prog).update("kubectl-client-side-apply", old)
    M = "apply --server-side -f config.yaml --live live.yaml"
    w.case("migrate-csa", {"config.yaml": [unns(cm({"a": "1", "c": "3"}))], "live.yaml": [csa.live]},
           {"": M + " -o patch", "yaml": M + " -o yaml --show-managed-fields",
            "manager": "apply --server-side --field-manager helm -f config.yaml --live live.yaml -o patch",
            "migrated": "apply --server-side -f config.yaml --live migrated.yaml -o patch"},
           "kubectl apply --server-side of an object last applied client-side: kubectl 1.32's "
           "migration (the apply; the annotation applied as kubectl-last-applied; the csaupgrade "
           "JSON patch of managedFields and resourceVersion; the apply again), judged on "
           "the real API server by realserver.kubectl_flows (the server rewrites the annotation "
           "to the configuration applied); data.b, dropped, is gone. "
           "With --field-manager helm, no kubectl-last-applied step; an object migrated already "
           "gets the one apply")
    # migrated already: the annotation owned by kubectl-last-applied's Apply
    # entry, no Update entry owning it
    just = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"annotations": old["metadata"]["annotations"], "name": "settings",
                         "namespace": "default"}}
    mig = Chain(prog).apply("kubectl-last-applied", just).apply("kubectl", cm({"a": "1", "c": "3"}))
    w.cases["migrate-csa"][0]["migrated.yaml"] = [mig.live]

    # a tool's own client-side writes migrated (--csa-manager): a ConfigMap
    # that helm wrote by updates (no annotation) applied server-side by helm
    hw = Chain(prog).update("helm", cm({"a": "1", "b": "2"}))
    H = "apply --server-side --field-manager helm --csa-manager helm -f config.yaml --live live.yaml"
    w.case("migrate-helm", {"config.yaml": [unns(cm({"a": "1", "c": "3"}))], "live.yaml": [hw.live]},
           {"": H + " -o patch", "yaml": H + " -o yaml --show-managed-fields",
            "without": "apply --server-side --field-manager helm -f config.yaml --live live.yaml -o yaml "
                       "--show-managed-fields",
            "client-side": "apply --csa-manager helm -f config.yaml --live live.yaml"},
           "--csa-manager helm: helm's Update entry united into its Apply entry (the csaupgrade JSON "
           "patch), then the configuration applied again, so data.b, dropped, is gone; without "
           "the flag data.b stays, owned by helm's Update entry; client-side the flag is a usage error")

    # kubectl create: a POST of each object, kubectl-create's Update entry;
    # the Deployment exists already (AlreadyExists, exit 4), the ConfigMap
    # is created
    C = "create -f config.yaml --live live.yaml"
    w.case("create-post", {"config.yaml": [unns(web()), unns(cm({"a": "1", "b": "2"}))],
                           "live.yaml": [live]},
           {"": C, "json": C + J, "yaml": C + " -o yaml", "name": C + " -o name",
            "manager": "create --field-manager ci -f config.yaml --live live.yaml" + J,
            "new": "create -f config.yaml" + J,
            "no-file": "create", "help": "create --help"},
           "kubectl create (a POST, as recorded through the stand-in API server: "
           "fieldManager=kubectl-create): the ConfigMap stored with kubectl-create's Update "
           "entry owning every field it set; the Deployment exists (AlreadyExists, 409, exit 4); "
           "without --live both are created")

    w.case("bad-now", {"config.yaml": [unns(web())]}, {"": "apply --server-side -f config.yaml"},
           "SMPATCH_NOW that is not an RFC 3339 time: exit 2", env="yesterday")
    w.write()
    prog.close()
    print("%d cases" % len(w.cases))


if __name__ == "__main__":
    main()
