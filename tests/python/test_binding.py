"""The Python binding (bindings/python/smpatch) against the built library.

Run by ctest with SMPATCH_LIBRARY naming the build's libsmpatch.so and
PYTHONPATH the package's folder; SMP_SOURCE_DIR is the source tree. Each
check compares with what the smpatch program or the reference prints.
"""
import json
import os
import subprocess
import sys
import threading
import unittest

import smpatch

SRC = os.environ.get("SMP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(SRC, "examples", "apply")

DEPLOY = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"replicas": 2, "template": {"spec": {"containers": [
        {"name": "web", "image": "nginx:1", "ports": [{"containerPort": 80}]},
        {"name": "side", "image": "busybox"},
    ]}}},
}


def read(*parts):
    with open(os.path.join(*parts), encoding="utf-8") as f:
        return f.read()


class Loading(unittest.TestCase):
    def test_version(self):
        self.assertRegex(smpatch.version(), r"^\d+\.\d+\.\d+$")
        self.assertEqual(smpatch.__version__, smpatch.version())

    def test_library_from_environment(self):
        self.assertEqual(smpatch._native.lib._name, os.environ["SMPATCH_LIBRARY"])

    def test_bad_library_path_is_an_import_error(self):
        env = dict(os.environ, SMPATCH_LIBRARY="/nonexistent/libsmpatch.so.1")
        r = subprocess.run([sys.executable, "-c", "import smpatch"], env=env,
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("SMPATCH_LIBRARY=/nonexistent/libsmpatch.so.1 cannot be loaded", r.stderr)
        self.assertIn("\nImportError: ", r.stderr)

    def test_loader_path(self):
        # Without SMPATCH_LIBRARY the loader's search finds it (LD_LIBRARY_PATH).
        env = dict(os.environ)
        lib = env.pop("SMPATCH_LIBRARY")
        env["LD_LIBRARY_PATH"] = os.path.dirname(lib)
        r = subprocess.run([sys.executable, "-c",
                            "import smpatch; print(smpatch.parse('a: 1'))"],
                           env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "[{'a': 1}]\n")


class Parsing(unittest.TestCase):
    def test_documents(self):
        docs = smpatch.parse("a: 1\nb: [x, yes, 1.5, ~]\n---\n---\nc: {d: e}\n")
        self.assertEqual(docs, [{"a": 1, "b": ["x", True, 1.5, None]}, {"c": {"d": "e"}}])

    def test_bytes_json_and_anchors(self):
        self.assertEqual(smpatch.parse(b'{"a": [1, 2]}'), [{"a": [1, 2]}])
        self.assertEqual(smpatch.parse("x: &v {k: 1}\nz: *v\n"), [{"x": {"k": 1}, "z": {"k": 1}}])

    def test_format_forced(self):
        with self.assertRaises(smpatch.ParseError):
            smpatch.parse("a: 1", format="json")

    def test_error_position(self):
        with self.assertRaises(smpatch.ParseError) as cm:
            smpatch.parse("a: 1\nb: [1, 2\n", filename="bad.yaml")
        e = cm.exception
        self.assertIsInstance(e, smpatch.Error)
        self.assertIsInstance(e, ValueError)
        self.assertEqual((e.code, e.file, e.line), (smpatch.EPARSE, "bad.yaml", 3))
        self.assertGreater(e.column, 0)
        self.assertTrue(str(e).startswith("bad.yaml:3:%d: " % e.column), str(e))
        self.assertEqual(e.description, "invalid document")

    def test_duplicate_keys(self):
        with self.assertRaises(smpatch.ParseError) as cm:
            smpatch.parse("a: 1\na: 2\n")
        self.assertIn("a", cm.exception.message)
        self.assertEqual(smpatch.parse("a: 1\na: 2\n", allow_duplicate_keys=True), [{"a": 2}])

    def test_file(self):
        docs = smpatch.parse_file(os.path.join(EXAMPLES, "web.yaml"))
        self.assertEqual(docs[0]["kind"], "Deployment")
        with self.assertRaises(smpatch.InputOutputError) as cm:
            smpatch.parse_file("/nonexistent.yaml")
        self.assertEqual(cm.exception.code, smpatch.EIO)
        self.assertEqual(cm.exception.file, "/nonexistent.yaml")

    def test_dump_matches_the_program(self):
        text = read(EXAMPLES, "web.yaml")
        for output, flag in (("json-indent", "json"), ("yaml", "yaml")):
            got = smpatch.dump(text, output)
            self.assertEqual(got, smpatch_program("convert", "-o", flag, "-",
                                                  stdin=text).stdout)
        self.assertEqual(smpatch.dump({"b": 1, "a": "<"}, "json", sort_keys=True, go_escape=True),
                         '{"a":"\\u003c","b":1}')

    def test_unicode_and_nul(self):
        v = {"s": "h\u00e9\u4e16\U0001f600\x00end"}
        self.assertEqual(smpatch.patch(v, {}, type="merge"), v)

    def test_not_json(self):
        with self.assertRaises(smpatch.InvalidArgumentError):
            smpatch.patch({"a": float("nan")}, {}, type="merge")
        with self.assertRaises(TypeError):
            smpatch.patch({"a": object()}, {}, type="merge")
        with self.assertRaises(smpatch.InvalidArgumentError):
            smpatch.dump({}, "xml")


class Patches(unittest.TestCase):
    def test_strategic(self):
        got = smpatch.patch(DEPLOY, {"spec": {"template": {"spec": {"containers": [
            {"name": "web", "image": "nginx:2"}]}}}})
        cs = got["spec"]["template"]["spec"]["containers"]
        self.assertEqual([c["image"] for c in cs], ["nginx:2", "busybox"])
        self.assertEqual(cs[0]["ports"], [{"containerPort": 80}])

    def test_strategic_directives_text_input(self):
        got = smpatch.patch(json.dumps(DEPLOY), "spec:\n  template:\n    spec:\n      containers:\n"
                            "      - name: side\n        $patch: delete\n")
        self.assertEqual([c["name"] for c in got["spec"]["template"]["spec"]["containers"]],
                         ["web"])

    def test_merge_and_json(self):
        got = smpatch.patch(DEPLOY, {"spec": {"replicas": None}}, type="merge")
        self.assertNotIn("replicas", got["spec"])
        got = smpatch.patch(DEPLOY, [{"op": "replace", "path": "/spec/replicas", "value": 5},
                                     {"op": "remove", "path": "/metadata/namespace"}],
                            type="json")
        self.assertEqual(got["spec"]["replicas"], 5)
        self.assertEqual(got["metadata"], {"name": "web"})
        with self.assertRaises(smpatch.PatchError) as cm:
            smpatch.patch(DEPLOY, [{"op": "test", "path": "/spec/replicas", "value": 3}],
                          type="json")
        self.assertEqual(cm.exception.code, smpatch.EPATCH)

    def test_target_none_is_empty(self):
        self.assertEqual(smpatch.patch(None, {"a": {"b": 1}}, type="merge"), {"a": {"b": 1}})

    def test_patch_error_path(self):
        with self.assertRaises(smpatch.PatchError) as cm:
            smpatch.patch(DEPLOY, {"spec": {"template": {"spec": {"containers": [
                {"image": "x"}]}}}})
        e = cm.exception
        self.assertEqual(e.path, "spec.template.spec.containers")
        self.assertIn("does not contain declared merge key: name", e.message)
        self.assertEqual(str(e), e.message + " (at spec.template.spec.containers)")

    def test_unknown_kind(self):
        with self.assertRaises(smpatch.SchemaError) as cm:
            smpatch.patch({"apiVersion": "x.io/v1", "kind": "Widget"}, {"a": 1})
        self.assertEqual(cm.exception.code, smpatch.ESCHEMA)

    def test_matches_the_program(self):
        live = os.path.join(EXAMPLES, "live.yaml")
        patch = {"spec": {"template": {"spec": {"containers": [
            {"name": "web", "env": [{"name": "DEBUG", "$patch": "delete"}]}]}}}}
        want = smpatch_program("patch", live, "-", "-o", "json", stdin=json.dumps(patch)).stdout
        got = smpatch.patch(read(live), patch)
        self.assertEqual(got, json.loads(want))

    def test_two_way(self):
        modified = smpatch.patch(DEPLOY, {"spec": {"replicas": 3}}, type="merge")
        self.assertEqual(smpatch.diff(DEPLOY, modified), {"spec": {"replicas": 3}})
        self.assertEqual(smpatch.diff(DEPLOY, DEPLOY), {})
        changed = json.loads(json.dumps(DEPLOY))
        del changed["spec"]["template"]["spec"]["containers"][1]
        p = smpatch.diff(DEPLOY, changed)
        self.assertEqual(p["spec"]["template"]["spec"]["$setElementOrder/containers"],
                         [{"name": "web"}])
        self.assertEqual(smpatch.patch(DEPLOY, p), changed)
        self.assertEqual(smpatch.diff({"a": 1, "b": 2}, {"a": 1}, type="merge"), {"b": None})

    def test_three_way(self):
        original = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                    "data": {"a": "1", "b": "2"}}
        modified = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                    "data": {"a": "1"}}
        current = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                   "data": {"a": "1", "b": "2", "c": "3"}}
        self.assertEqual(smpatch.diff3(original, modified, current), {"data": {"b": None}})
        with self.assertRaises(smpatch.PreconditionError):
            smpatch.diff3(original, dict(modified, metadata={"name": "d"}), current)

    def test_three_way_conflict(self):
        original = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
                    "data": {"a": "1"}}
        modified = dict(original, data={"a": "2"})
        current = dict(original, data={"a": "3"})
        self.assertEqual(smpatch.diff3(original, modified, current), {"data": {"a": "2"}})
        with self.assertRaises(smpatch.ConflictError) as cm:
            smpatch.diff3(original, modified, current, overwrite=False)
        self.assertEqual(cm.exception.code, smpatch.ECONFLICT)

    def test_has_conflicts(self):
        self.assertTrue(smpatch.has_conflicts({"a": 1}, {"a": 2}))
        self.assertFalse(smpatch.has_conflicts({"a": 1}, {"b": 2}))

    def test_multi_document_argument(self):
        with self.assertRaises(smpatch.ParseError) as cm:
            smpatch.patch("a: 1\n---\nb: 2\n", {}, type="merge")
        self.assertIn("2 documents", cm.exception.message)


CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              items:
                type: array
                x-kubernetes-patch-strategy: merge
                x-kubernetes-patch-merge-key: name
                items:
                  type: object
                  properties:
                    name: {type: string}
                    size: {type: integer}
"""


class Schemas(unittest.TestCase):
    def test_builtin(self):
        b = smpatch.Schema.builtin()
        self.assertTrue(b.has_kind("apps/v1", "Deployment"))
        self.assertFalse(b.has_kind("apps/v1", "Nothing"))
        self.assertTrue(b.namespaced("apps/v1", "Deployment"))
        self.assertFalse(b.namespaced("v1", "Namespace"))
        self.assertEqual(b.resource("v1", "Endpoints"), "endpoints")

    def test_crd_schema_merges_by_key(self):
        s = smpatch.Schema(CRD, filename="crd.yaml")
        self.assertTrue(s.has_kind("example.com/v1", "Widget"))
        self.assertTrue(s.namespaced("example.com/v1", "Widget"))
        self.assertEqual(s.resource("example.com/v1", "Widget"), "widgets")
        w = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
             "spec": {"items": [{"name": "a", "size": 1}, {"name": "b", "size": 2}]}}
        got = smpatch.patch(w, {"spec": {"items": [{"name": "b", "size": 3}]}}, schema=s)
        self.assertEqual(got["spec"]["items"], [{"name": "a", "size": 1}, {"name": "b", "size": 3}])
        # without the schema the kind is unknown
        with self.assertRaises(smpatch.SchemaError):
            smpatch.patch(w, {"spec": {}})

    def test_definition(self):
        got = smpatch.patch({"containers": [{"name": "a", "image": "x"}]},
                            {"containers": [{"name": "a", "image": "y"}]},
                            definition="io.k8s.api.core.v1.PodSpec")
        self.assertEqual(got, {"containers": [{"name": "a", "image": "y"}]})
        with self.assertRaises(smpatch.SchemaError) as cm:
            smpatch.patch({}, {}, definition="no.such.Type")
        self.assertIn("no definition no.such.Type in the built-in tables", cm.exception.message)

    def test_bad_schema(self):
        with self.assertRaises(smpatch.Error) as cm:
            smpatch.Schema('{"swagger": "2.0", "definitions": {"a": {"$ref": "#/definitions/b"}}}',
                           filename="s.json")
        self.assertEqual(cm.exception.code, smpatch.ESCHEMA)
        self.assertEqual(cm.exception.file, "s.json")
        self.assertTrue(cm.exception.path.startswith("/definitions/a"), cm.exception.path)


class Selectors(unittest.TestCase):
    def test_label_selector(self):
        s = smpatch.Selector("app=web,tier in (a, b),!legacy")
        self.assertTrue(s.matches({"app": "web", "tier": "a"}))
        self.assertFalse(s.matches({"app": "web", "tier": "c"}))
        self.assertFalse(s.matches({"app": "web", "tier": "a", "legacy": "1"}))
        self.assertFalse(s.matches(None))
        self.assertFalse(s.empty)
        self.assertTrue(smpatch.Selector("").empty)
        self.assertTrue(smpatch.Selector("").matches(None))

    def test_label_selector_error(self):
        with self.assertRaises(smpatch.InvalidArgumentError) as cm:
            smpatch.Selector("app in (a")
        self.assertEqual(cm.exception.code, smpatch.EINVAL)
        self.assertGreater(cm.exception.column, 0)

    def test_from_object(self):
        s = smpatch.Selector.from_object({"matchLabels": {"app": "web"}, "matchExpressions": [
            {"key": "tier", "operator": "NotIn", "values": ["db"]}]})
        self.assertTrue(s.matches({"app": "web"}))
        self.assertFalse(s.matches({"app": "web", "tier": "db"}))
        with self.assertRaises(smpatch.InvalidArgumentError) as cm:
            smpatch.Selector.from_object({"matchExpressions": [{"key": "a", "operator": "In"}]})
        self.assertEqual(cm.exception.path, "matchExpressions[0]")
        n = smpatch.Selector.from_object({"matchExpressions": [
            {"key": "cpu", "operator": "Gt", "values": ["4"]}]}, node_selector=True)
        self.assertTrue(n.matches({"cpu": "8"}))

    def test_closed(self):
        s = smpatch.Selector("a=b")
        s.close()
        s.close()
        with self.assertRaises(smpatch.InvalidArgumentError) as cm:
            s.matches({"a": "b"})
        self.assertEqual(cm.exception.message, "the selector is closed")

    def test_field_selector(self):
        f = smpatch.FieldSelector("metadata.name=web,spec.replicas!=3")
        self.assertTrue(f.matches(DEPLOY))
        self.assertFalse(smpatch.FieldSelector("metadata.namespace=prod").matches(DEPLOY))
        with self.assertRaises(smpatch.InvalidArgumentError):
            smpatch.FieldSelector("metadata.name")

    def test_validate_label(self):
        smpatch.validate_label("example.com/app", "web")
        with self.assertRaises(smpatch.InvalidObjectError) as cm:
            smpatch.validate_label("-bad")
        self.assertIn("alphanumeric", cm.exception.message)


class Threads(unittest.TestCase):
    def test_parallel_patches(self):
        want = smpatch.patch(DEPLOY, {"spec": {"replicas": 9}})
        errors = []

        def work():
            try:
                for _ in range(200):
                    if smpatch.patch(DEPLOY, {"spec": {"replicas": 9}}) != want:
                        errors.append("differs")
            except Exception as x:  # noqa: BLE001 - any failure fails the test
                errors.append(repr(x))

        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(errors, [])


CM = """apiVersion: v1
kind: ConfigMap
metadata:
  name: %s
  labels: {app: web}
data: {k: v}
"""

LIVE_CM = """apiVersion: v1
kind: ConfigMap
metadata:
  name: %s
  namespace: default
  labels: {app: web}
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"app":"web"},"name":"%s"}}'
"""


@unittest.skipIf(smpatch._plan.AVAILABLE, "the library has the plan API")
class NoPlans(unittest.TestCase):
    def test_apply_says_what_is_missing(self):
        with self.assertRaises(smpatch.InvalidArgumentError) as cm:
            smpatch.apply("kind: ConfigMap", None)
        self.assertIn("no plan API", cm.exception.message)


@unittest.skipUnless(smpatch._plan.AVAILABLE, "this libsmpatch has no plan API (smp_plan_*)")
class Plans(unittest.TestCase):
    def test_example_matches_the_c_example(self):
        plan = smpatch.apply(read(EXAMPLES, "web.yaml"), read(EXAMPLES, "live.yaml"),
                             config_file="examples/apply/web.yaml",
                             live_file="examples/apply/live.yaml")
        self.assertEqual(len(plan), 1)
        e = plan[0]
        self.assertEqual((e.action, e.kind, e.name, e.namespace, e.api_version),
                         ("configure", "Deployment", "web", "default", "apps/v1"))
        self.assertEqual(e.patch_type, "strategic")
        self.assertEqual(e.content_type, "application/strategic-merge-patch+json")
        self.assertEqual(e.file, "examples/apply/web.yaml")
        self.assertIsNone(e.error)
        # the C example (examples/plan.c) prints the status line and the diff
        want = read(SRC, "tests", "lib", "expected", "plan.out")
        self.assertEqual("".join(w + "\n" for w in e.warnings) + e.status_line(dry_run=True) +
                         "\n" + e.diff(), want)

    def test_entry_is_a_mapping(self):
        plan = smpatch.apply(read(EXAMPLES, "web.yaml"), read(EXAMPLES, "live.yaml"))
        d = dict(plan[0])
        self.assertEqual(d["action"], "configure")
        self.assertEqual(d["patch"], plan[0].patch)
        self.assertEqual(d["object"]["spec"]["template"]["spec"]["containers"][1]["name"],
                         "metrics")
        self.assertIsNone(d["error"])
        json.dumps(d)  # plain values only
        with self.assertRaises(KeyError):
            plan[0]["nothing"]

    def test_patch_gives_the_object(self):
        plan = smpatch.apply(read(EXAMPLES, "web.yaml"), read(EXAMPLES, "live.yaml"))
        live = smpatch.parse(read(EXAMPLES, "live.yaml"))[0]
        self.assertEqual(plan[0].live, live)
        self.assertEqual(smpatch.patch(live, plan[0].patch), plan[0].object)

    def test_create_unchanged_and_objects(self):
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},
              "data": {"k": "v"}}
        plan = smpatch.apply([cm], None, namespace="prod")
        self.assertEqual(plan[0].action, "create")
        self.assertEqual(plan[0].namespace, "prod")
        self.assertEqual(plan[0].status, "configmap/a created")
        self.assertEqual(plan[0].status_line(dry_run=True), "configmap/a created (dry run)")
        self.assertEqual(plan[0].content_type, "application/json")
        again = smpatch.apply([cm], [plan[0].object], namespace="prod")
        self.assertEqual(again[0].action, "unchanged")
        self.assertEqual(again[0].patch, {})
        self.assertEqual(again[0].diff(), "")

    def test_one_failure_does_not_stop_the_others(self):
        plan = smpatch.apply([CM % "a", "kind: [broken\n", CM % "c"], None)
        self.assertEqual([e.action for e in plan], ["create", "error", "create"])
        err = plan[1].error
        self.assertIsInstance(err, smpatch.ParseError)
        self.assertEqual((err.file, err.line), ("<config>", 2))
        self.assertEqual(plan[1]["error"]["code"], smpatch.EPARSE)
        self.assertTrue(plan.failed)
        self.assertIsNone(plan[1].patch)

    def test_prune_and_selectors(self):
        live = "---\n".join([LIVE_CM % ("a", "a"), LIVE_CM % ("old", "old")])
        plan = smpatch.apply(CM % "a", live, prune=True, selector="app=web")
        self.assertEqual([(e.action, e.name) for e in plan],
                         [("configure", "a"), ("prune", "old")])
        self.assertEqual(plan[1].status, "configmap/old pruned")
        self.assertIsNone(plan[1].object)
        self.assertIn("-  name: old", plan[1].diff())
        with self.assertRaises(smpatch.InvalidObjectError) as cm:
            smpatch.apply(CM % "a", live, selector="app=other")
        self.assertEqual(cm.exception.message, "no objects passed to apply")
        with self.assertRaises(smpatch.InvalidArgumentError):
            smpatch.apply(CM % "a", live, prune=True)
        plan = smpatch.apply(CM % "a", live, selector=smpatch.Selector("app=web"),
                             field_selector="metadata.name=a")
        self.assertEqual(len(plan), 1)

    def test_secret_values_masked(self):
        secret = ("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
                  "data: {password: c2VjcmV0}\n")
        d = smpatch.apply(secret, None)[0].diff()
        self.assertIn("+  password: '***'\n", d.replace('"', "'"))
        # nowhere, the last-applied annotation included
        self.assertNotIn("c2VjcmV0", d)
        self.assertIn('"data":{"password":"***"}', d)

    def test_conflict_detail(self):
        last = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"1"}}'
        live = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "a", "namespace": "default",
                             "annotations": {
                                 "kubectl.kubernetes.io/last-applied-configuration": last}},
                "data": {"k": "2"}}
        cfg = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},
               "data": {"k": "3"}}
        e = smpatch.apply([cfg], [live], overwrite=False)[0]
        self.assertEqual(e.action, "conflict")
        self.assertTrue(e.failed)
        self.assertIsNone(e.status)
        self.assertEqual(e.error.code, smpatch.ECONFLICT)
        self.assertIn("conflicts with changes made from original to current", e.error_detail)

    def test_server_side(self):
        cfg = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},
               "data": {"k": "v"}}
        plan = smpatch.apply([cfg], None, server_side=True, field_manager="ci",
                             now="2024-01-01T00:00:00Z")
        e = plan[0]
        self.assertEqual((e.action, e.namespace), ("create", "default"))
        self.assertEqual(e.status, "configmap/a serverside-applied")
        self.assertEqual(e.content_type, "application/apply-patch+yaml")
        self.assertEqual(e.requests[0]["method"], "PATCH")
        self.assertEqual(e.requests[0]["field_manager"], "ci")
        self.assertFalse(e.requests[0]["force"])
        self.assertEqual(e.patch["metadata"]["namespace"], "default")
        mf = e.object["metadata"]["managedFields"]
        self.assertEqual((mf[0]["manager"], mf[0]["operation"], mf[0]["time"]),
                         ("ci", "Apply", "2024-01-01T00:00:00Z"))
        # another manager changed data.k: a conflict, with the server's Status
        live = dict(e.object)
        edited = smpatch.apply([dict(cfg, data={"k": "w"})], [live], mode="replace",
                               field_manager="kubectl-edit", now="2024-01-02T00:00:00Z")[0]
        self.assertEqual(edited.status, "configmap/a replaced")
        c = smpatch.apply([cfg], [edited.object], server_side=True, field_manager="ci")[0]
        self.assertEqual(c.action, "conflict")
        self.assertEqual(c.error.code, smpatch.ECONFLICT)
        self.assertEqual(c.server_status["code"], 409)
        self.assertIn("--force-conflicts", c.error_detail)
        f = smpatch.apply([cfg], [edited.object], server_side=True, field_manager="ci",
                          force_conflicts=True)[0]
        self.assertEqual((f.action, f.object["data"]["k"]), ("configure", "v"))
        self.assertTrue(f.requests[0]["force"])

    def test_applyset(self):
        # kubectl's ID of the Secret myset in default (through the stand-in
        # API server: tests/cli/applyset_server.sh)
        set_id = "applyset-51uXdjs_k8zt9KVdAtPaWnW_O9B-EVzd2Bkztfa9DSA-v1"
        cfg = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},
               "data": {"k": "v"}}
        old = {"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "old", "namespace": "default", "uid": "u1",
                            "labels": {"applyset.kubernetes.io/part-of": set_id}}}
        parent = {"apiVersion": "v1", "kind": "Secret", "metadata": {
            "name": "myset", "namespace": "default",
            "labels": {"applyset.kubernetes.io/id": set_id},
            "annotations": {"applyset.kubernetes.io/tooling": "kubectl/v1.32.0",
                            "applyset.kubernetes.io/contains-group-kinds": "ConfigMap"}}}
        plan = smpatch.apply([cfg], [parent, old], server_side=True, applyset="myset",
                             prune=True, namespace="default", enforce_namespace=True,
                             now="2024-01-01T00:00:00Z")
        self.assertEqual([(e.kind, e.name, e.action, e.applyset_parent) for e in plan],
                         [("Secret", "myset", "configure", True),
                          ("ConfigMap", "a", "create", False),
                          ("ConfigMap", "old", "prune", False),
                          ("Secret", "myset", "configure", True)])
        self.assertEqual(plan[1].patch["metadata"]["labels"],
                         {"applyset.kubernetes.io/part-of": set_id})
        self.assertEqual(plan[0].requests[0]["field_manager"], "kubectl-applyset")
        self.assertEqual(plan[3].object["metadata"]["annotations"]
                         ["applyset.kubernetes.io/contains-group-kinds"], "ConfigMap")
        with self.assertRaises(smpatch.InvalidObjectError) as x:
            smpatch.apply([cfg], [parent], applyset="myset", prune=True, namespace="default",
                          enforce_namespace=True, applyset_tooling="helm/v3")
        self.assertIn('is managed by tooling "kubectl" instead of "helm"', str(x.exception))

    def test_stored(self):
        cfg = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
               "spec": {"ports": [{"port": 80}], "selector": {"app": "web"}}}
        plain = smpatch.apply([cfg], None)[0]
        self.assertNotIn("protocol", plain.object["spec"]["ports"][0])
        stored = smpatch.apply([cfg], None, stored=True)[0]
        self.assertEqual(stored.object["spec"]["ports"][0]["protocol"], "TCP")
        self.assertEqual(stored.patch, plain.patch)  # what is sent does not change
        self.assertIn("+    protocol: TCP", stored.diff())

    def test_validate(self):
        cfg = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},
               "data": {"k": "v"}, "dta": {"x": "y"}}
        e = smpatch.apply([cfg], None)[0]
        self.assertEqual(e.action, "error")
        self.assertIn('strict decoding error: unknown field "dta"', e.error.message)
        self.assertEqual(e.server_status["code"], 400)
        w = smpatch.apply([cfg], None, validate="warn")[0]
        self.assertEqual((w.action, w.warnings), ("create", ['Warning: unknown field "dta"']))
        self.assertEqual(smpatch.apply([cfg], None, validate=False)[0].action, "create")

    def test_stored_roundtrip_of_real_manifests(self):
        # each manifest applied to its own stored form: unchanged, no diff,
        # no change (tests/cli/stored_roundtrip.sh does it with the CLI)
        root = os.path.join(SRC, "testdata", "manifests")
        n = 0
        for d, _, files in os.walk(root):
            for f in sorted(files):
                if not f.endswith(".yaml"):
                    continue
                text = read(d, f)
                first = smpatch.apply(text, None, stored=True, validate="ignore")
                stored = [e.object for e in first]
                again = smpatch.apply(text, stored, stored=True)
                # (kubectl may still send a patch: see stored_roundtrip.sh)
                for e in again:
                    self.assertEqual((e.diff(), e.changes()), ("", []), "%s: %s" % (f, e.name))
                n += 1
        self.assertGreaterEqual(n, 10)

    def test_ignore_rules(self):
        case = os.path.join(SRC, "testdata", "apply", "ignore-rules")
        cfg, live = read(case, "config.yaml"), read(case, "live.yaml")
        last = 'metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]'
        plain = smpatch.apply(cfg, live, stored=True)[0]
        self.assertEqual(plain.action, "configure")
        e = smpatch.apply(cfg, live, stored=True, ignore_fields=["/spec/replicas", last])[0]
        self.assertEqual((e.action, e.diff(), e.changes()), ("unchanged", "", []))
        self.assertEqual(e.patch, plain.patch)  # what is sent does not change
        m = smpatch.apply(cfg, live, stored=True, ignore_managers=["hpa"],
                          ignore_fields=[last])[0]
        self.assertEqual(m.action, "unchanged")
        with self.assertRaises(smpatch.InvalidArgumentError):
            smpatch.apply(cfg, live, ignore_fields=["spec.x[oops"])

    def test_run_streams_the_entries(self):
        live = "---\n".join([LIVE_CM % ("a", "a"), LIVE_CM % ("old", "old")])
        want = [dict(e) for e in smpatch.apply(CM % "a", live, prune=True, selector="app=web")]
        got, kept = [], []
        plan = smpatch.Plan(prune=True, selector="app=web")
        plan.add_config(CM % "a").add_live(live)
        self.assertEqual(plan.run(lambda e: got.append(dict(e)) or kept.append(e)), 2)
        self.assertEqual(got, want)
        with self.assertRaises(smpatch.InvalidArgumentError):
            kept[0].action  # freed after its callback
        stopped = smpatch.Plan(prune=True, selector="app=web")
        stopped.add_config(CM % "a").add_live(live)
        self.assertEqual(stopped.run(lambda e: True), 1)

    def test_replace_not_found(self):
        e = smpatch.apply(CM % "a", None, mode="replace")[0]
        self.assertEqual(e.action, "error")
        self.assertEqual(e.server_status["reason"], "NotFound")

    def test_create(self):
        """mode="create": a POST as kubectl-create, its Update entry; an object
        that exists is the server's AlreadyExists."""
        plan = smpatch.apply(CM % "a", None, mode="create", now="2024-01-01T00:00:00Z")
        e = plan[0]
        self.assertEqual((e.action, e.status), ("create", "configmap/a created"))
        self.assertEqual([(r["method"], r["field_manager"]) for r in e.requests],
                         [("POST", "kubectl-create")])
        mf = e.object["metadata"]["managedFields"]
        self.assertEqual([(m["manager"], m["operation"]) for m in mf], [("kubectl-create", "Update")])
        again = smpatch.apply(CM % "a", [e.object], mode="create")[0]
        self.assertEqual(again.action, "error")
        self.assertEqual((again.server_status["reason"], again.server_status["code"]),
                         ("AlreadyExists", 409))


    def test_closed_plan(self):
        plan = smpatch.apply(CM % "a", None)
        e = plan[0]
        plan.close()
        with self.assertRaises(smpatch.InvalidArgumentError):
            e.action


# Every option of `smpatch apply` that the binding's apply() takes.
_FLAGS = {"-n": "namespace", "--namespace": "namespace", "-l": "selector",
          "--selector": "selector", "--field-selector": "field_selector",
          "--field-manager": "field_manager", "--prune-allowlist": "prune_allowlist",
          "--cluster-scoped": "cluster_scoped", "--csa-manager": "csa_managers",
          "--applyset": "applyset", "--applyset-tooling": "applyset_tooling"}


def _case_options(words, case):
    """The apply() arguments of an `smpatch apply` command line, or None
    when it uses what the binding has no word for (directories, -o other
    than patch, --openapi)."""
    opts, configs, live, out = {}, [], None, "patch"
    i = 1
    while i < len(words):
        w = words[i]
        name, _, val = w.partition("=")
        takes = name in ("-f", "--filename", "--live", "-o", "--output", "--schema") or \
            name in _FLAGS
        if takes and not _:
            i += 1
            val = words[i]
        if name in ("-f", "--filename"):
            if os.path.isdir(os.path.join(case, val)) or val == "-":
                return None
            configs.append(val)
        elif name == "--live":
            live = val
        elif name in ("-o", "--output"):
            out = val
        elif name == "--schema":
            opts["schema"] = read(case, val)
        elif name in ("--prune-allowlist", "--cluster-scoped", "--csa-manager"):
            opts.setdefault(_FLAGS[name], []).append(val)
        elif name in _FLAGS:
            opts[_FLAGS[name]] = val
        elif name in ("--show-managed-fields", "--dry-run"):
            pass  # changes what is printed, not the request
        elif name == "--summary":
            opts["_summary"] = True  # Plan.summary_line(), the last stderr line
        elif name in ("--prune", "--all", "--server-side", "--force-conflicts", "--overwrite"):
            key = {"--prune": "prune", "--all": "prune_all", "--server-side": "server_side",
                   "--force-conflicts": "force_conflicts", "--overwrite": "overwrite"}[name]
            opts[key] = val not in ("false", "0")
        else:
            return None
        i += 1
    if out != "patch" or not configs:
        return None
    if "namespace" in opts:
        opts["enforce_namespace"] = True
    return opts, configs, live


class PlansEqualTheCLI(unittest.TestCase):
    """apply() gives the request bodies `smpatch apply -o patch` prints, byte
    for byte (patch_json), on every golden case of testdata/apply and
    testdata/ssa-cli that the binding can express; those goldens are
    kubectl's and the oracle's answers."""

    def test_goldens(self):
        import shlex
        ran = 0
        for area in ("apply", "ssa-cli"):
            root = os.path.join(SRC, "testdata", area)
            for name in sorted(os.listdir(root)):
                case = os.path.join(root, name)
                for f in sorted(os.listdir(case)) if os.path.isdir(case) else ():
                    if f != "args" and not f.startswith("args."):
                        continue
                    text = read(case, f).replace("\n", " ").replace(
                        "$SMP_TESTDATA", os.path.join(SRC, "testdata"))
                    words = shlex.split(text)
                    exp = os.path.join(case, "expected", f[5:]) if f != "args" else \
                        os.path.join(case, "expected")
                    if not words or words[0] != "apply" or \
                            not os.path.exists(os.path.join(exp, "stdout")):
                        continue
                    parsed = _case_options(words, case)
                    if parsed is None or read(exp, "code").strip() == "2":
                        continue  # not expressible, or a usage error of the CLI
                    if os.path.exists(os.path.join(case, "env")):
                        env = read(case, "env")
                        if "SMPATCH_NOW=" not in env or env.count("=") != 1:
                            continue
                        parsed[0]["now"] = env.split("=", 1)[1].strip()
                    with self.subTest(case="%s/%s %s" % (area, name, f)):
                        self._check(case, exp, *parsed)
                        ran += 1
        self.assertGreater(ran, 95)  # of 117 cases; the rest use stdin, -R, ...

    def _check(self, case, exp, opts, configs, live):
        want = read(exp, "stdout").splitlines()
        summary = opts.pop("_summary", False)
        try:
            # -o patch counts the changes of the stored forms
            plan = smpatch.Plan(**{k: v for k, v in opts.items() if k != "server_side"},
                                mode="server-side" if opts.get("server_side") else
                                "client-side", stored=True)
            for c in configs:
                plan.add_config(read(case, c), file=c)
            if live:
                plan.add_live(read(case, live), file=live)
            plan.compute()
        except smpatch.Error:
            self.assertEqual(want, [])  # the CLI printed nothing either
            return
        if summary:
            self.assertEqual(plan.summary_line(), read(exp, "stderr").splitlines()[-1])
            counts = plan.summary()
            self.assertEqual(counts["objects"], sum(1 for e in plan if not e.applyset_parent))
            self.assertEqual(counts["changes"], sum(len(e.changes()) for e in plan
                                                    if not e.failed and not e.applyset_parent))
        # a failed object has a line when the server would answer it
        got = [e for e in plan if not e.failed or e.server_status is not None]
        self.assertEqual(len(got), len(want))
        for e, line in zip(got, want):
            rec = json.loads(line)
            self.assertEqual((e.action, e.kind, e.namespace, e.name),
                             (rec["action"], rec["kind"], rec["namespace"], rec["name"]))
            if e.failed:
                self.assertEqual(rec["status"], e.server_status)
            elif e.action == "prune":
                self.assertEqual(rec["deleteOptions"], e.delete_options)
            else:
                tail = "}"
                if "requests" in rec:
                    # kubectl's migration requests: every one, in order
                    self.assertEqual(rec["requests"], [
                        {"method": r["method"], "patchType": r["content_type"],
                         "fieldManager": r["field_manager"], "force": r["force"],
                         "patch": r["body"]} for r in e.requests])
                    tail = ',"requests":' + line.split(',"requests":', 1)[1]
                self.assertTrue(line.endswith('"patch":' + e.patch_json + tail), line)
                self.assertEqual(rec["changes"], len(e.changes()))


class StreamingEqualsComputed(unittest.TestCase):
    """A generated cluster dump (bench/cluster_gen.py: Deployments, Services,
    ConfigMaps, some changed, some new, unnamed Pods in the dump) planned both
    ways: the program streams the plan (smp_plan_run), the binding computes
    it (smp_plan_compute), and streams it again with the dump indexed
    (add_live_file) and entries decided on 3 threads; every entry must be the
    same, byte for byte."""

    def test_generated_dump(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            d = os.path.join(tmp, "apps")
            subprocess.run([sys.executable, os.path.join(SRC, "bench", "cluster_gen.py"), d, "40"],
                           check=True, capture_output=True)
            lines = smpatch_program("apply", "-R", "-f", os.path.join(d, "config"), "--live",
                                    os.path.join(d, "live.json")).stdout.splitlines()
            plan = smpatch.Plan(stored=True)
            for root, _, files in sorted(os.walk(os.path.join(d, "config"))):
                for f in sorted(files):
                    plan.add_config(read(root, f), file=f)
            plan.add_live(read(d, "live.json"))
            plan.compute()
            # the dump indexed, not held (add_live_file), decided on 3
            # threads and streamed: the same entries again
            streamed = []
            par = smpatch.Plan(stored=True, jobs=3)
            for root, _, files in sorted(os.walk(os.path.join(d, "config"))):
                for f in sorted(files):
                    par.add_config(read(root, f), file=f)
            par.add_live_file(os.path.join(d, "live.json"))
            par.run(lambda e: streamed.append((e.action, e.kind, e.name, len(e.changes()),
                                               e.patch_json)))
        self.assertEqual(len(streamed), len(lines))
        for s, line in zip(streamed, lines):
            rec = json.loads(line)
            self.assertEqual(s[:4], (rec["action"], rec["kind"], rec["name"], rec["changes"]))
            self.assertTrue(line.endswith('"patch":' + s[4] + "}"), line)
        self.assertGreater(len(lines), 100)
        self.assertEqual(len(plan), len(lines))
        for e, line in zip(plan, lines):
            rec = json.loads(line)
            self.assertEqual((e.action, e.kind, e.name, len(e.changes())),
                             (rec["action"], rec["kind"], rec["name"], rec["changes"]))
            self.assertTrue(line.endswith('"patch":' + e.patch_json + "}"), line)


def smpatch_program(*args, stdin=None):
    prog = os.environ.get("SMPATCH_PROGRAM")
    if not prog:
        raise unittest.SkipTest("SMPATCH_PROGRAM not set")
    # The sanitized build preloads the sanitizer runtime for Python; the
    # program links its own.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run([prog] + list(args), input=stdin, capture_output=True, text=True,
                       env=env)
    if r.returncode != 0:
        raise AssertionError("smpatch %s: %s" % (" ".join(args), r.stderr))
    return r


if __name__ == "__main__":
    unittest.main(verbosity=1)
