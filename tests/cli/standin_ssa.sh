# standin_ssa.sh - sourced by the tests that run kubectl 1.32 against the
# stand-in API server's server-side mode (ssa_server.sh, applyset_server.sh),
# with $fake (fake_apiserver), $oracle and $shared set: skips (77) without
# kubectl, the oracle, the swagger document or python3; else starts the
# stand-in on an empty store in $tmp/state (removed, with the server, on
# exit) and defines k, kubectl pointed at it.
swagger=$shared/openapi/kubernetes-1.36.swagger.json
command -v kubectl >/dev/null 2>&1 || { echo "SKIP: kubectl is not on PATH"; exit 77; }
[ -x "$oracle" ] || { echo "SKIP: no oracle at $oracle (ssa.oracle_build)"; exit 77; }
[ -f "$swagger" ] || { echo "SKIP: $swagger missing (../shared)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed"; exit 77; }
tmp=$(mktemp -d) || exit 1
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
export SSA_ORACLE_SWAGGER=$swagger
printf 'apiVersion: v1\nkind: Config\n' >"$tmp/kubeconfig"
export KUBECONFIG=$tmp/kubeconfig
mkdir "$tmp/state"
echo '{"apiVersion":"v1","kind":"List","items":[]}' >"$tmp/state/objects.json"
"$fake" "$tmp/state" "$tmp/port" "$oracle" &
server=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$tmp/port" ] || { echo "FAIL: the stand-in did not start"; exit 1; }
k() { kubectl --server "http://127.0.0.1:$(cat "$tmp/port")" --validate=false "$@"; }
