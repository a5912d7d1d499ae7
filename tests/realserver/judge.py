"""judge.py - what every judged suite shares: the real API server
(tests/realserver, started once per suite), requests to it, kubectl and
smpatch runs, and the comparison of a stored object with smpatch's
prediction modulo MASK, the one list of what the server invents.

A suite is a program `SUITE.py REALSERVER SMPATCH SOURCE_DIR`; it prints one
line per disagreement and, last, `SUITE: agree/total`, and exits 0 when all
agree, 1 otherwise, 77 (skip) when it cannot run outside CI, 1 inside CI
(CI=true: a judge that cannot run is a failure).
"""
import copy
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

# What the API server invents and smpatch cannot know offline; these paths
# are removed from both sides before a comparison, and nothing else is.
# Each entry is (kinds, path): kinds a tuple of kinds it applies to (None:
# every kind), path a list of keys ("*": every item of a list or value of a
# map). docs/TESTING.md lists the same, and docs/DIFFERENCES.md says why.
CONTROLLER_UID = ("batch.kubernetes.io/controller-uid", "controller-uid")
MASK = [
    (None, ["metadata", "uid"]),
    (None, ["metadata", "resourceVersion"]),
    (None, ["metadata", "creationTimestamp"]),
    (None, ["metadata", "generation"]),
    (None, ["metadata", "managedFields", "*", "time"]),
    # allocated at random from the service ranges
    (("Service",), ["spec", "clusterIP"]),
    (("Service",), ["spec", "clusterIPs"]),
    (("Service",), ["spec", "ports", "*", "nodePort"]),
    (("Service",), ["spec", "healthCheckNodePort"]),
    # a new Job's selector and labels name its uid
    (("Job",), ["spec", "selector"]),
] + [(("Job",), p + [k]) for k in CONTROLLER_UID
     for p in (["metadata", "labels"], ["spec", "template", "metadata", "labels"])] + [
    # the requesting user's name, uid and groups
    (("CertificateSigningRequest",), ["spec", f]) for f in ("username", "uid", "groups", "extra")
] + [
    # the time of the write
    (("PersistentVolume",), ["status", "lastPhaseTransitionTime"]),
]


def skip_or_fail(msg):
    """Says why the suite cannot run: a skip (77) outside CI, a failure in CI."""
    if os.environ.get("CI") == "true":
        print("FAIL: %s (CI=true: the judge must run)" % msg)
        sys.exit(1)
    print("SKIP: %s" % msg)
    sys.exit(77)


def masked(obj, mask=MASK):
    """A deep copy of obj without the masked paths of its kind. The
    managedFields entries, their times masked, are sorted by manager,
    operation, apiVersion and subresource: the server orders them by time,
    so their order is the times' (masked) too."""
    obj = copy.deepcopy(obj)
    kind = obj.get("kind") if isinstance(obj, dict) else None
    for kinds, path in mask:
        if kinds is None or kind in kinds:
            _drop(obj, path)
    mf = (obj.get("metadata") or {}).get("managedFields") if isinstance(obj, dict) else None
    if isinstance(mf, list):
        mf.sort(key=lambda m: tuple(str(m.get(k, "")) for k in
                                    ("manager", "operation", "apiVersion", "subresource")))
    return obj


def _drop(node, path):
    if not path:
        return
    key, rest = path[0], path[1:]
    if key == "*":
        kids = node if isinstance(node, list) else list(node.values()) if isinstance(node, dict) else []
        for k in kids:
            _drop(k, rest)
        return
    if not isinstance(node, dict) or key not in node:
        return
    if rest:
        _drop(node[key], rest)
    else:
        del node[key]


def differences(a, b, path=""):
    """The paths where a and b differ, each with both values (short)."""
    out = []
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            p = path + "." + k
            if k not in a:
                out.append("%s: only predicted: %s" % (p, short(b[k])))
            elif k not in b:
                out.append("%s: only stored: %s" % (p, short(a[k])))
            else:
                out += differences(a[k], b[k], p)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            out += differences(x, y, "%s[%d]" % (path, i))
    elif a != b or type(a) != type(b):
        out.append("%s: stored %s, predicted %s" % (path or ".", short(a), short(b)))
    return out


def _map_group(field):
    """The map a cause's field belongs to, when the server lists that map's
    entries in Go's random map order: "data[k]" -> "data" (a key, not an
    index), and the label and annotation fields themselves (one cause per
    entry). None for other fields."""
    if field.endswith("]") and "[" in field:
        head, key = field[:-1].rsplit("[", 1)
        return None if key.isdigit() else head + "[]"
    if field.split(".")[-1] in ("labels", "annotations", "matchLabels", "nodeSelector",
                                "selector", "limits", "requests"):
        return field
    return None


def _aggregate(causes):
    """The text after "is invalid: " of errors.NewInvalid: each cause's
    "<field>: <message>" once, "[a, b]" when several."""
    texts = []
    for c in causes:
        t = ("%s: %s" % (c.get("field"), c.get("message"))) if c.get("field") is not None \
            else "%s: %s" % ("", c.get("message"))
        if t not in texts:
            texts.append(t)
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"


def canon_status(st, map_order=False):
    """A Status in the form two are compared in. The server lists some
    causes in Go's map order, which changes between runs: a conflict's
    (its managers) and an Invalid's for the entries of one map (ConfigMap
    keys, labels, resources). Those runs of causes are sorted, and the
    message, when it is the causes' aggregate (checked), is rebuilt from
    the sorted causes; everything else stays as it is. With map_order
    (a custom resource's schema errors: kube-openapi walks every object in
    map order) all of an Invalid's causes are sorted."""
    st = copy.deepcopy(st)
    causes = ((st or {}).get("details") or {}).get("causes") if isinstance(st, dict) else None
    if not causes:
        return st
    if st.get("reason") == "Conflict":
        causes.sort(key=lambda x: json.dumps(x, sort_keys=True))
        return st
    if st.get("reason") != "Invalid":
        return st
    msg = st.get("message") or ""
    head = msg.find(" is invalid: ")
    aggregated = head >= 0 and msg[head + len(" is invalid: "):] == _aggregate(causes)
    out, i = [], 0
    while i < len(causes):
        g = "" if map_order else _map_group(causes[i].get("field") or "")
        j = i + 1
        while g is not None and j < len(causes) and (
                map_order or _map_group(causes[j].get("field") or "") == g):
            j += 1
        out += sorted(causes[i:j], key=lambda x: json.dumps(x, sort_keys=True))
        i = j
    st["details"]["causes"] = out
    if aggregated:
        st["message"] = msg[:head + len(" is invalid: ")] + _aggregate(out)
    return st


def short(v, n=160):
    s = json.dumps(v, sort_keys=True)
    return s if len(s) <= n else s[:n] + "..."


class Server:
    """A real kube-apiserver and etcd (tests/realserver) in a temporary state
    directory; requests go through its recording proxy on plain HTTP."""

    def __init__(self, binary):
        if not binary or not os.path.exists(binary):
            skip_or_fail("the real API server is not built (make realserver needs Go)")
        self.dir = tempfile.mkdtemp(prefix="realserver.")
        self.log = open(os.path.join(self.dir, "server.log"), "w")
        t0 = time.time()
        self.proc = subprocess.Popen([binary, os.path.join(self.dir, "state")],
                                     stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        state = os.path.join(self.dir, "state")
        portfile = os.path.join(state, "port")
        while not os.path.exists(portfile):
            if self.proc.poll() is not None or time.time() - t0 > 180:
                self.log.flush()
                with open(os.path.join(self.dir, "server.log")) as f:
                    tail = f.read()[-3000:]
                self.stop()
                print(tail)
                print("FAIL: the real API server did not start")
                sys.exit(1)
            time.sleep(0.1)
        self.start_seconds = time.time() - t0
        with open(portfile) as f:
            self.base = "http://127.0.0.1:%d" % int(f.read())
        # kubectl talks to the server through the recording proxy, so that
        # suites can compare what it sent (requests.jsonl)
        self.kubeconfig = os.path.join(self.dir, "proxy.kubeconfig")
        with open(self.kubeconfig, "w") as f:
            f.write("apiVersion: v1\nkind: Config\nclusters:\n- name: judge\n  cluster:\n"
                    "    server: %s\ncontexts:\n- name: judge\n  context:\n    cluster: judge\n"
                    "    user: judge\n    namespace: default\ncurrent-context: judge\n"
                    "users:\n- name: judge\n  user: {}\n" % self.base)
        self.state = state
        print("real API server v1.32.4 ready in %.1f s" % self.start_seconds)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def request(self, method, path, body=None, ctype="application/json", query="",
                user_agent="smpatch-judge/1"):
        """(status, decoded JSON answer) of one request; the server names an
        update without a field manager after the User-Agent's product."""
        url = self.base + path + ("?" + query if query else "")
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Accept", "application/json")
        req.add_header("User-Agent", user_agent)
        if data is not None:
            req.add_header("Content-Type", ctype)
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                return e.code, json.loads(raw)
            except ValueError:
                return e.code, raw.decode(errors="replace")

    def kubectl(self, *args, stdin=None, env=None):
        """(exit code, stdout, stderr) of kubectl against this server."""
        e = dict(os.environ, KUBECONFIG=self.kubeconfig)
        e.pop("KUBECTL_APPLYSET", None)
        if env:
            e.update(env)
        p = subprocess.run(["kubectl"] + list(args), input=stdin, capture_output=True,
                           text=True, env=e, timeout=120)
        return p.returncode, p.stdout, p.stderr

    def mark(self):
        """Where the proxy's record (requests.jsonl) ends now."""
        try:
            with open(os.path.join(self.state, "requests.jsonl"), encoding="utf-8") as f:
                return sum(1 for _ in f)
        except FileNotFoundError:
            return 0

    def recorded(self, mark):
        """The requests the proxy recorded since `mark` (writes, and reads
        that failed): dicts of method, path, query, contentType, body,
        status and response."""
        with open(os.path.join(self.state, "requests.jsonl"), encoding="utf-8") as f:
            return [json.loads(ln) for i, ln in enumerate(f) if i >= mark]

    def refusal(self, mark):
        """The Status of the last write refused since `mark`, or None."""
        bad = [r for r in self.recorded(mark) if r["status"] >= 400 and r["method"] != "GET"]
        return bad[-1]["response"] if bad else None

    def read_back(self, objs, tmp):
        """The objects of objs that exist on the server, as it stores them
        (managedFields included); tmp: a folder for the file kubectl reads."""
        items = []
        for o in objs:
            p = os.path.join(tmp, "one.json")
            with open(p, "w") as f:
                json.dump(o, f)
            rc, out, _ = self.kubectl("get", "-f", p, "-o", "json", "--show-managed-fields",
                                      "--ignore-not-found")
            if rc == 0 and out.strip():
                items.append(json.loads(out))
        return items

    def ensure_namespace(self, ns):
        if ns:
            self.request("POST", "/api/v1/namespaces",
                         {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})


def suite_args(doc):
    """(REALSERVER, SMPATCH, SOURCE_DIR, start time) of a suite's command
    line; its usage (the module's doc) and exit 2 without them."""
    if len(sys.argv) < 4:
        print(doc)
        sys.exit(2)
    return sys.argv[1], sys.argv[2], sys.argv[3], time.time()


def smpatch(program, *args, stdin=None, now=None):
    """(exit code, stdout, stderr) of the smpatch program, its clock at
    `now` ($SMPATCH_NOW; the current time without it)."""
    env = dict(os.environ)
    env.pop("SMPATCH_NOW", None)
    if now:
        env["SMPATCH_NOW"] = now
    p = subprocess.run([program] + list(args), input=stdin, capture_output=True, text=True,
                       env=env, timeout=120)
    return p.returncode, p.stdout, p.stderr


def json_stream(text):
    """The JSON values of a text that holds one after the other."""
    dec, i, out = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return out
        v, i = dec.raw_decode(text, i)
        out.append(v)


def status_differences(status, out, map_order=False):
    """How the one metav1.Status smpatch printed (-o json|yaml's refusals,
    in `out`) differs from the server's `status`; [] when equal. map_order:
    as canon_status."""
    got = [g for g in json_stream(out) if isinstance(g, dict) and g.get("kind") == "Status"]
    if not isinstance(status, dict):
        return ["the server answered no Status"]
    if len(got) != 1:
        return ["smpatch printed %d Status" % len(got)]
    return differences(canon_status(status, map_order), canon_status(got[0], map_order))


def newest_time(obj):
    """The time of the newest managedFields entry of a server's answer (the
    step's own), or None: the clock a prediction is given, so that the
    entries sort as the server sorts them (the times are masked)."""
    mf = (obj.get("metadata") or {}).get("managedFields") if isinstance(obj, dict) else None
    times = [m.get("time") for m in mf or [] if m.get("time")]
    return max(times) if times else None


class Tally:
    """agree/total of a suite's steps; the server's refusals smpatch does
    not predict yet are kept apart (unpredicted)."""

    def __init__(self):
        self.agree = self.total = 0
        self.unpredicted = []

    def check(self, ref, problems):
        self.total += 1
        if problems:
            print("DIFFER %s: %s" % (ref, "; ".join(problems[:6])))
        else:
            self.agree += 1


def report(name, agree, total, started):
    print("%s: %d/%d agree (%.0f s)" % (name, agree, total, time.time() - started))
    sys.exit(0 if agree == total and total > 0 else 1)
