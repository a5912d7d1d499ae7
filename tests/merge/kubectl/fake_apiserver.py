"""fake_apiserver.py PORT LIVE_JSON OUT - the least of an API server that
`kubectl apply` needs: discovery for v1 pods/services/configmaps and
apps/v1 deployments, GET of any object (answers LIVE_JSON), and PATCH, whose
body is written to OUT (its content type to OUT.type). No OpenAPI: kubectl
then takes the patch metadata from its compiled-in Go types."""
import json, sys, os
from http.server import BaseHTTPRequestHandler, HTTPServer
LIVE = sys.argv[2]; OUT = sys.argv[3]
res_core = {"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1","resources":[
  {"name":"pods","singularName":"pod","namespaced":True,"kind":"Pod","verbs":["create","delete","get","list","patch","update","watch"]},
  {"name":"services","singularName":"service","namespaced":True,"kind":"Service","verbs":["create","delete","get","list","patch","update","watch"]},
  {"name":"configmaps","singularName":"configmap","namespaced":True,"kind":"ConfigMap","verbs":["create","delete","get","list","patch","update","watch"]}]}
res_apps = {"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[
  {"name":"deployments","singularName":"deployment","namespaced":True,"kind":"Deployment","verbs":["create","delete","get","list","patch","update","watch"]}]}
groups = {"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def send(self, code, obj):
        b = json.dumps(obj).encode()
        self.send_response(code); self.send_header("Content-Type","application/json"); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b)
    def do_GET(self):
        p = self.path.split("?")[0]
        if p == "/api": return self.send(200, {"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1"}]})
        if p == "/apis": return self.send(200, groups)
        if p == "/api/v1": return self.send(200, res_core)
        if p == "/apis/apps/v1": return self.send(200, res_apps)
        if "/namespaces/" in p:
            return self.send(200, json.load(open(LIVE)))
        return self.send(404, {"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404})
    def do_PATCH(self):
        n = int(self.headers.get("Content-Length", 0)); body = self.rfile.read(n)
        open(OUT, "wb").write(body)
        open(OUT + ".type", "w").write(self.headers.get("Content-Type", ""))
        return self.send(200, json.load(open(LIVE)))
HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
