#!/bin/sh
# check_selftest.sh SSA_CHECK - ssa_check's comparison on pairs of answers
# whose verdict is known: what must agree agrees, what must differ differs.
set -u
chk=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
mf='"managedFields":[{"manager":"m","operation":"Apply","apiVersion":"v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{},"f:b":{}}}}]'
mf_swapped='"managedFields":[{"manager":"m","operation":"Apply","apiVersion":"v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:b":{},"f:a":{}}}}]'
mf_keys='"managedFields":[{"fieldsV1":{"f:data":{"f:a":{},"f:b":{}}},"fieldsType":"FieldsV1","time":"2024-01-01T00:00:00Z","apiVersion":"v1","operation":"Apply","manager":"m"}]'
obj='"object":{"kind":"ConfigMap","data":{"a":"1","b":"2"},"l":[1,2]}'
c1='"conflicts":[{"manager":"x","operation":"Apply","path":".data.a"}]'
c2='"conflicts":[{"manager":"y","operation":"Apply","path":".data.a"}]'
# verdict expected-answer actual-answer what
check() {
	printf '%s\n' "$2" >"$tmp/e"
	printf '%s\n' "$3" >"$tmp/a"
	got=$("$chk" cmp "$tmp/e" "$tmp/a" | cut -f2)
	if [ "$got" != "$1" ]; then
		echo "FAIL: $4: expected $1, got '$got'"
		"$chk" cmp "$tmp/e" "$tmp/a"
		fail=1
	fi
}
base="{\"id\":\"t\",\"ok\":true,$obj,$mf,\"conflicts\":[],\"error\":\"\",\"changed\":true}"
check agree "$base" "$base" "identical answers"
check agree "$base" "{\"changed\":false,\"error\":\"x\",\"conflicts\":[],$mf_keys,\"object\":{\"l\":[1,2],\"data\":{\"b\":\"2\",\"a\":\"1\"},\"kind\":\"ConfigMap\"},\"ok\":true,\"id\":\"t\"}" \
	"object and entry key order, error, changed"
check agree "$base" "{\"id\":\"t\",\"ok\":true,\"object\":{\"kind\":\"ConfigMap\",\"data\":{\"a\":\"1\",\"b\":\"2\"},\"l\":[1.0,2]},$mf,\"conflicts\":[]}" \
	"1 and 1.0"
check differ "$base" "{\"id\":\"t\",\"ok\":true,$obj,$mf_swapped,\"conflicts\":[]}" "fieldsV1 key order"
check differ "$base" "{\"id\":\"t\",\"ok\":true,\"object\":{\"kind\":\"ConfigMap\",\"data\":{\"a\":\"1\",\"b\":\"2\"},\"l\":[2,1]},$mf,\"conflicts\":[]}" \
	"list order in the object"
check differ "$base" "{\"id\":\"t\",\"ok\":true,\"object\":{\"kind\":\"ConfigMap\",\"data\":{\"a\":\"1\"},\"l\":[1,2]},$mf,\"conflicts\":[]}" \
	"a missing map key"
check differ "$base" "{\"id\":\"t\",\"ok\":true,$obj,\"managedFields\":[],\"conflicts\":[]}" "a missing entry"
check differ "$base" "{\"id\":\"t\",\"ok\":false,\"object\":null,\"managedFields\":[],$c1}" "ok"
check differ "$base" "{\"id\":\"u\",\"ok\":true,$obj,$mf,\"conflicts\":[]}" "another id"
check differ "$base" "{\"id\":\"t\",$obj,$mf,\"conflicts\":[]}" "no ok"
check differ "$base" "not json" "not JSON"
check agree "{\"id\":\"t\",\"ok\":false,\"object\":null,\"managedFields\":[],$c1,\"error\":\"a\"}" \
	"{\"id\":\"t\",\"ok\":false,\"object\":{},\"managedFields\":[],$c1,\"error\":\"b\"}" "two refusals, other texts"
check differ "{\"id\":\"t\",\"ok\":false,\"object\":null,\"managedFields\":[],$c1}" \
	"{\"id\":\"t\",\"ok\":false,\"object\":null,\"managedFields\":[],$c2}" "another conflict"
printf '%s\n%s\n' "$base" "$base" >"$tmp/e"
printf '%s\n' "$base" >"$tmp/a"
"$chk" cmp "$tmp/e" "$tmp/a" >"$tmp/out"
[ $? = 1 ] && grep -q "ends after 1 lines" "$tmp/out" || { echo "FAIL: a short answer stream"; fail=1; }
[ $fail = 0 ] && echo "ssa_check: all comparisons as expected"
exit $fail
