#!/usr/bin/env python3
"""smoke.py REALSERVER SMPATCH SOURCE_DIR - the judge itself: the real API
server starts (etcd first, then kube-apiserver), says it is v1.32.4, serves
kubectl through its kubeconfig and requests through the recording proxy
(logged with their answers), and stops on SIGTERM with etcd."""
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge  # noqa: E402


def main():
    started = time.time()
    checks = []
    srv = judge.Server(sys.argv[1])
    try:
        st, v = srv.request("GET", "/version")
        checks.append(("version v1.32.4", st == 200 and v.get("gitVersion") == "v1.32.4"))
        rc, out, err = srv.kubectl("version", "-o", "json")
        checks.append(("kubectl sees v1.32.4",
                       rc == 0 and json.loads(out)["serverVersion"]["gitVersion"] == "v1.32.4"))
        rc, out, _ = srv.kubectl("get", "namespace", "default", "-o", "name")
        checks.append(("namespace default", rc == 0 and out.strip() == "namespace/default"))
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "smoke"},
              "data": {"a": "b"}}
        st1, _ = srv.request("POST", "/api/v1/namespaces/default/configmaps", cm)
        st2, status = srv.request("POST", "/api/v1/namespaces/default/configmaps", cm)
        checks.append(("create 201, again 409 AlreadyExists",
                       st1 == 201 and st2 == 409 and status.get("reason") == "AlreadyExists"))
        with open(os.path.join(srv.state, "requests.jsonl")) as f:
            log = [json.loads(line) for line in f]
        posts = [r for r in log if r["method"] == "POST" and r["path"].endswith("/configmaps")]
        checks.append(("proxy logs writes and answers",
                       [r["status"] for r in posts] == [201, 409] and posts[0]["body"] == cm
                       and posts[1]["response"]["reason"] == "AlreadyExists"))
        with open(os.path.join(srv.state, "kubeconfig")) as f:  # the server's own
            url = [ln.split()[-1] for ln in f if "server:" in ln][0]
        port = int(url.rsplit(":", 1)[1])
    finally:
        t0 = time.time()
        proc = srv.proc
        srv.stop()
        checks.append(("stops on SIGTERM within 30 s, exit 0",
                       proc.returncode == 0 and time.time() - t0 < 30))
    s = socket.socket()
    checks.append(("nothing listens after the stop", s.connect_ex(("127.0.0.1", port)) != 0))
    s.close()
    agree = 0
    for name, ok in checks:
        print("%s %s" % ("ok  " if ok else "FAIL", name))
        agree += ok
    print("server start: %.1f s" % srv.start_seconds)
    judge.report("smoke", agree, len(checks), started)


if __name__ == "__main__":
    main()
