#!/usr/bin/env python3
"""custom.py REALSERVER SMPATCH SOURCE_DIR - judged suite (f): custom
resources on the real API server.

The CRDs of testdata/schema (stored-crd.yaml, widgets-crd.yaml,
gizmos-crd.json) and JUDGE_CRD below (defaults in items and map values,
nullable, int-or-string, an embedded resource, preserve-unknown-fields,
list-type map and set, enum, pattern, minimum and maximum, required,
x-kubernetes-validations, a status subresource) are created by real kubectl
and waited for (Established). For every served version, objects generated
from the version's schema (one with every property, one with only what is
required, one with nulls where the schema has a default or is nullable,
each with a field no schema declares) go through four steps, each predicted
by smpatch from the object before it with the CRD as --schema:
  create     kubectl apply --validate=false (client-side)
  edit       the same with a label and a changed value (a merge patch)
  ssa        another copy created by kubectl apply --server-side
  ssa-edit   and applied again edited
The server's answer (-o json --show-managed-fields) must equal `smpatch
apply [--server-side] --dry-run=server -o json --show-managed-fields
--validate=false --schema CRD` modulo judge.MASK. Then refusals: objects
JUDGE_CRD's validation refuses (enum, pattern, bounds, required, a rule,
repeated keys of a map list and a set); every refusal smpatch predicts must
carry the server's Status exactly, the others are counted as not predicted
yet, and smpatch must refuse nothing the server accepts.
"""
import copy
import json
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import judge  # noqa: E402
import stored  # noqa: E402

JUDGE_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "judges.realserver.example.com"},
    "spec": {
        "group": "realserver.example.com", "scope": "Namespaced",
        "names": {"kind": "Judge", "plural": "judges", "singular": "judge",
                  "listKind": "JudgeList"},
        "versions": [
            {"name": "v1", "served": True, "storage": True,
             "subresources": {"status": {}},
             "schema": {"openAPIV3Schema": {
                 "type": "object",
                 "properties": {
                     "spec": {
                         "type": "object", "required": ["name"],
                         "x-kubernetes-validations": [
                             {"rule": "self.replicas <= 3 || self.mode == 'slow'",
                              "message": "more than 3 replicas need the slow mode"}],
                         "properties": {
                             "name": {"type": "string", "pattern": "^[a-z]+$"},
                             "mode": {"type": "string", "enum": ["fast", "slow"],
                                      "default": "fast"},
                             "replicas": {"type": "integer", "minimum": 1, "maximum": 5,
                                          "default": 1},
                             "ratio": {"type": "number"},
                             "port": {"x-kubernetes-int-or-string": True},
                             "surge": {"x-kubernetes-int-or-string": True, "default": "25%"},
                             "note": {"type": "string", "nullable": True},
                             "level": {"type": "string", "nullable": True, "default": "low"},
                             "ports": {
                                 "type": "array", "x-kubernetes-list-type": "map",
                                 "x-kubernetes-list-map-keys": ["port", "protocol"],
                                 "items": {"type": "object", "required": ["port"],
                                           "properties": {
                                               "port": {"type": "integer"},
                                               "protocol": {"type": "string",
                                                            "default": "TCP"},
                                               "name": {"type": "string"}}}},
                             "tags": {"type": "array", "x-kubernetes-list-type": "set",
                                      "items": {"type": "string"}},
                             "env": {
                                 "type": "array", "x-kubernetes-list-type": "map",
                                 "x-kubernetes-list-map-keys": ["name"],
                                 "items": {"type": "object", "required": ["name"],
                                           "properties": {
                                               "name": {"type": "string"},
                                               "value": {"type": "string",
                                                         "default": "unset"}}}},
                             "limits": {"type": "object", "additionalProperties": {
                                 "type": "object",
                                 "properties": {"max": {"type": "integer", "default": 10},
                                                "min": {"type": "integer"}}}},
                             "weights": {"type": "object",
                                         "additionalProperties": {"type": "integer",
                                                                  "default": 7}},
                             "steps": {"type": "array", "items": {
                                 "type": "object",
                                 "properties": {"cmd": {"type": "string"},
                                                "timeout": {"type": "integer",
                                                            "default": 30}}}},
                             "template": {"type": "object",
                                          "x-kubernetes-embedded-resource": True,
                                          "x-kubernetes-preserve-unknown-fields": True},
                             "extra": {"type": "object",
                                       "x-kubernetes-preserve-unknown-fields": True,
                                       "properties": {"known": {"type": "integer",
                                                                "default": 2}}},
                             "atomic": {"type": "object", "x-kubernetes-map-type": "atomic",
                                        "properties": {"a": {"type": "string"},
                                                       "b": {"type": "string"}}},
                         }},
                     "status": {"type": "object",
                                "properties": {"phase": {"type": "string"}}},
                 }}}},
            {"name": "v1beta1", "served": True, "storage": False,
             "schema": {"openAPIV3Schema": {
                 "type": "object",
                 "properties": {"spec": {
                     "type": "object",
                     "properties": {"name": {"type": "string"},
                                    "mode": {"type": "string", "default": "slow"},
                                    "replicas": {"type": "integer", "default": 2}}}}}}},
        ],
        "conversion": {"strategy": "None"},
    },
}

# (what, spec) of objects JUDGE_CRD's validation refuses
REFUSED = [
    ("required name missing", {"mode": "fast"}),
    ("enum", {"name": "a", "mode": "medium"}),
    ("pattern", {"name": "A_B"}),
    ("maximum", {"name": "a", "replicas": 9, "mode": "slow"}),
    ("minimum", {"name": "a", "replicas": 0}),
    ("validation rule", {"name": "a", "replicas": 4, "mode": "fast"}),
    ("repeated set item", {"name": "a", "tags": ["x", "x"]}),
    ("repeated map-list key", {"name": "a", "env": [{"name": "A"}, {"name": "A"}]}),
    ("wrong type", {"name": "a", "replicas": "three"}),
]



def plain_crd():
    """JUDGE_CRD without its CEL rule (a CRD without rules: the schema's
    refusals are predicted whole), its v1 spec given the other value
    validations kube-openapi checks: maxLength, minLength, maxItems,
    minItems, maxProperties, multipleOf, an exclusive maximum, an integer
    enum."""
    crd = copy.deepcopy(JUDGE_CRD)
    crd["metadata"]["name"] = "plainjudges.realserver.example.com"
    crd["spec"]["names"] = {"kind": "PlainJudge", "plural": "plainjudges",
                            "singular": "plainjudge", "listKind": "PlainJudgeList"}
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    del spec["x-kubernetes-validations"]
    p = spec["properties"]
    p["name"].update({"maxLength": 8, "minLength": 1})
    p["tags"]["maxItems"] = 3
    p["steps"]["minItems"] = 1
    p["weights"]["maxProperties"] = 2
    p["size"] = {"type": "integer", "multipleOf": 4}
    p["ratio"].update({"maximum": 1.5, "exclusiveMaximum": True})
    p["level2"] = {"type": "integer", "enum": [1, 2]}
    # string formats apiextensions keeps (and one it strips)
    for k, f in (("uid", "uuid"), ("uid4", "uuid4"), ("created", "date-time"),
                 ("day", "date"), ("blob", "byte"), ("color", "hexcolor"), ("ssn", "ssn"),
                 ("secret", "password"), ("odd", "no-such-format"), ("dt", "datetime"),
                 ("link", "uri")):
        p[k] = {"type": "string", "format": f}
    return crd


# (what, spec) of objects plain_crd()'s validation refuses, beside REFUSED
PLAIN_REFUSED = [
    ("maxLength", {"name": "abcdefghijk"}),
    ("minLength before pattern", {"name": ""}),
    ("maxItems", {"name": "a", "tags": ["a", "b", "c", "d"]}),
    ("minItems", {"name": "a", "steps": []}),
    ("maxProperties", {"name": "a", "weights": {"a": 1, "b": 2, "c": 3}}),
    ("multipleOf", {"name": "a", "size": 6}),
    ("exclusive maximum", {"name": "a", "ratio": 1.5}),
    ("integer enum", {"name": "a", "level2": 3}),
    ("a float for an integer", {"name": "a", "replicas": 1.5}),
    ("a string for an object", {"name": "a", "limits": "x"}),
    ("a map value's field", {"name": "a", "limits": {"x": {"max": "big"}}}),
    ("a map list's item without its key", {"name": "a", "env": [{"value": "v"}]}),
    ("several errors", {"name": "A", "replicas": 9, "mode": "x", "tags": ["y", "y"]}),
    ("format uuid", {"name": "a", "uid": "123e4567-e89b-12d3-a456-42661417400"}),
    ("format uuid4", {"name": "a", "uid4": "123e4567-e89b-32d3-a456-426614174000"}),
    ("format uuid4 variant", {"name": "a", "uid4": "123e4567-e89b-42d3-c456-426614174000"}),
    ("format date-time", {"name": "a", "created": "2024-02-30T10:00:00Z"}),
    ("format date-time hour", {"name": "a", "created": "2024-02-03T24:00:00Z"}),
    ("format datetime", {"name": "a", "dt": "2024-02-03 10:00:00Z"}),
    ("format date", {"name": "a", "day": "2023-02-29"}),
    ("format byte", {"name": "a", "blob": "aGVsbG8"}),
    ("format hexcolor", {"name": "a", "color": "#abcd"}),
    ("format ssn", {"name": "a", "ssn": "123456789"}),
    ("format uri", {"name": "a", "link": "relative/path"}),
    ("format uri escape", {"name": "a", "link": "https://a/%zz"}),
    ("formats accepted", {"name": "a", "uid": "123E4567E89B12D3A456426614174000",
                          "uid4": "123e4567-e89b-42d3-B456-426614174000",
                          "created": "2024-02-29t23:59:59.123456789+05:30",
                          "dt": "2024-02-29T23:59:59Z", "day": "2000-02-29",
                          "blob": "aGVsbG8=", "color": "ABC", "ssn": "123 45-6789",
                          "secret": "anything", "odd": "anything",
                          "link": "https://a.example.com/p?q=1#f"}),
    ("several format errors", {"name": "a", "uid": "x", "day": "x", "blob": "x"}),
]


# A CRD whose rules have the shapes real operators write (Gateway API's
# route and listener rules, Cluster API's immutable fields and replica
# bounds, Karpenter's requirement and label rules): CEL over objects,
# lists, maps, optional fields, transition rules (oldSelf, optionalOldSelf),
# messageExpression, reason and fieldPath, escaped property names, and a
# rule at the root.
def _rule(rule, **kw):
    r = {"rule": rule}
    r.update(kw)
    return r


CEL_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "routes.cel.example.com"},
    "spec": {
        "group": "cel.example.com", "scope": "Namespaced",
        "names": {"kind": "Route", "plural": "routes", "singular": "route",
                  "listKind": "RouteList"},
        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
            "openAPIV3Schema": {
                "type": "object",
                "x-kubernetes-validations": [
                    _rule("self.metadata.name.size() <= 20",
                          message="name must be at most 20 characters")],
                "properties": {"spec": {
                    "type": "object",
                    "required": ["clusterName"],
                    "x-kubernetes-validations": [
                        _rule("!has(self.minReplicas) || !has(self.maxReplicas) || "
                              "self.minReplicas <= self.maxReplicas",
                              message="minReplicas must not exceed maxReplicas"),
                        _rule("self.hostnames.all(h, h.endsWith('.example.com'))",
                              messageExpression="self.hostnames.size() > 1 ? 'each of the "
                                                "hostnames must end in .example.com' : 'the "
                                                "hostname must end in .example.com'"),
                        _rule("self.mode != 'Strict' || has(self.tls)",
                              reason="FieldValueRequired", fieldPath=".tls",
                              message="Strict mode needs tls"),
                        _rule("self.x__dash__count < 10", message="x-count below 10"),
                        _rule("self.mode != 'Audit' || self.tls.secret != ''"),
                    ],
                    "properties": {
                        "clusterName": {"type": "string", "maxLength": 63, "x-kubernetes-validations": [
                            _rule("self == oldSelf", message="clusterName is immutable")]},
                        "replicas": {"type": "integer", "x-kubernetes-validations": [
                            _rule("!oldSelf.hasValue() || self >= oldSelf.value()",
                                  optionalOldSelf=True, message="replicas may not decrease")]},
                        "minReplicas": {"type": "integer"},
                        "maxReplicas": {"type": "integer"},
                        "mode": {"type": "string", "maxLength": 16, "default": "Lax"},
                        "tls": {"type": "object", "properties": {
                            "secret": {"type": "string", "maxLength": 63}}},
                        "x-count": {"type": "integer", "default": 0},
                        "hostnames": {"type": "array", "default": [], "maxItems": 16,
                                      "items": {"type": "string", "maxLength": 253}},
                        "rules": {
                            "type": "array", "maxItems": 16,
                            "x-kubernetes-validations": [
                                _rule("self.all(r, !has(r.path) || r.path.startsWith('/'))",
                                      message="paths must be absolute")],
                            "items": {
                                "type": "object",
                                "x-kubernetes-validations": [
                                    _rule("self.type != 'RegularExpression' || "
                                          "self.value.matches('^[a-z/]+$')",
                                          message="value must be a lowercase path"),
                                    _rule("self.weight % 10 == 0",
                                          reason="FieldValueForbidden", fieldPath=".weight",
                                          message="weight must be a multiple of 10")],
                                "properties": {
                                    "path": {"type": "string", "maxLength": 1024},
                                    "type": {"type": "string", "maxLength": 32,
                                             "default": "Exact"},
                                    "value": {"type": "string", "maxLength": 1024,
                                              "default": ""},
                                    "weight": {"type": "integer", "default": 10}}}},
                        "requirements": {
                            "type": "array", "maxItems": 8,
                            "x-kubernetes-validations": [
                                _rule("self.exists(r, r.key == 'arch')",
                                      message="an arch requirement is needed")],
                            "items": {"type": "object", "properties": {
                                "key": {"type": "string", "maxLength": 63},
                                "values": {"type": "array", "maxItems": 8,
                                           "items": {"type": "string", "maxLength": 63},
                                           "x-kubernetes-validations": [
                                               _rule("self.all(v, v in ['amd64', 'arm64', "
                                                     "'linux'])",
                                                     message="unknown value")]}}}},
                        "labels": {"type": "object", "maxProperties": 16,
                                   "additionalProperties": {"type": "string",
                                                            "maxLength": 63},
                                   "x-kubernetes-validations": [
                                       _rule("self.all(k, k.startsWith('example.com/'))",
                                             message="labels must be under example.com/")]},
                        "memory": {"type": "string", "maxLength": 32, "x-kubernetes-validations": [
                            _rule("isQuantity(self) && quantity(self).isLessThan(quantity('64Gi'))",
                                  message="memory must be a quantity below 64Gi")]},
                        "podCIDR": {"type": "string", "maxLength": 64, "x-kubernetes-validations": [
                            _rule("isCIDR(self) && cidr(self).prefixLength() >= 8 && "
                                  "!cidr(self).ip().isLoopback()",
                                  message="podCIDR must be a CIDR of /8 or longer")]},
                        "resources": {
                            "type": "object",
                            "x-kubernetes-validations": [
                                _rule("!has(self.request) || !has(self.limit) || "
                                      "sign(quantity(self.limit).sub(quantity(self.request))) >= 0",
                                      message="limit must not be below request"),
                                _rule("!has(self.request) || quantity(self.request)"
                                      ".add(quantity('1Gi')).asApproximateFloat() < 1e11",
                                      message="request plus 1Gi must stay below 100G"),
                                _rule("!has(self.cpus) || quantity(self.cpus).isInteger()",
                                      messageExpression="quantity(self.cpus).add(-1)"
                                                        ".isGreaterThan(quantity('0')) ? "
                                                        "'cpus above 1 must be whole' : "
                                                        "'cpus must be whole'")],
                            "properties": {
                                "request": {"type": "string", "maxLength": 32,
                                            "x-kubernetes-validations": [
                                                _rule("isQuantity(self)")]},
                                "limit": {"type": "string", "maxLength": 32,
                                          "x-kubernetes-validations": [
                                              _rule("isQuantity(self)")]},
                                "cpus": {"type": "string", "maxLength": 32,
                                         "x-kubernetes-validations": [
                                             _rule("isQuantity(self)")]}}},
                        "owner": {"type": "string", "maxLength": 128, "x-kubernetes-validations": [
                            _rule("!format.dns1123Label().validate(self).hasValue()",
                                  messageExpression="format.dns1123Label().validate(self)"
                                                    ".value()[0]")]},
                        "ownerKind": {"type": "string", "maxLength": 64, "x-kubernetes-validations": [
                            _rule("format.named(self).hasValue()",
                                  message="ownerKind must name a format"),
                            _rule("!format.named(self).hasValue() || "
                                  "!format.named(self).value().validate('x-1').hasValue()",
                                  message="ownerKind's format must accept x-1")]},
                        "endpoint": {"type": "string", "maxLength": 256, "x-kubernetes-validations": [
                            _rule("isURL(self) && url(self).getScheme() == 'https' && "
                                  "url(self).getPort() in ['', '443', '8443']",
                                  messageExpression="isURL(self) && url(self).getHostname()"
                                                    ".startsWith('fe80') ? 'endpoint must not "
                                                    "be link-local' : 'endpoint must be an https "
                                                    "URL on 443 or 8443'"),
                            _rule("!isURL(self) || !('debug' in url(self).getQuery())",
                                  message="no debug query"),
                            _rule("!isURL(self) || url(self).getEscapedPath().startsWith('/api')",
                                  reason="FieldValueForbidden",
                                  message="the path must be under /api")]},
                        "uid": {"type": "string", "maxLength": 64, "x-kubernetes-validations": [
                            _rule("!format.uuid().validate(self).hasValue()",
                                  message="uid must be a UUID"),
                            _rule("self == oldSelf || !format.uuid().validate(oldSelf).hasValue()",
                                  message="a valid uid is immutable")]},
                        "timeout": {"type": "string", "maxLength": 32, "x-kubernetes-validations": [
                            _rule("self.matches('^([0-9]+(s|m|h))+$')",
                                  message="timeout must be a duration")]},
                    }}}}}}],
    },
}

_OK = {"clusterName": "c1", "replicas": 2, "minReplicas": 1, "maxReplicas": 3,
       "hostnames": ["a.example.com"], "rules": [{"path": "/a", "weight": 20}],
       "requirements": [{"key": "arch", "values": ["amd64"]}],
       "labels": {"example.com/a": "1"}, "timeout": "30s"}


def _ok(**kw):
    d = copy.deepcopy(_OK)
    d.update(kw)
    return d


# (what, name, spec) applied in order: a name seen before is an update of
# what the server holds (transition rules, ratcheting)
CEL_STEPS = [
    ("valid", "r1", _OK),
    ("min over max", "r2", _ok(minReplicas=5)),
    ("hostname suffix (messageExpression)", "r3", _ok(hostnames=["a.example.com", "b.org"])),
    ("Strict without tls (Required at fieldPath)", "r4", _ok(mode="Strict")),
    ("Strict with tls", "r5", _ok(mode="Strict", tls={"secret": "s"})),
    ("escaped property name", "r6", _ok(**{"x-count": 12})),
    ("relative path in a list", "r7", _ok(rules=[{"path": "a"}])),
    ("item rules (matches, Forbidden at fieldPath)", "r8",
     _ok(rules=[{"path": "/a", "type": "RegularExpression", "value": "A+", "weight": 15}])),
    ("no arch requirement", "r9", _ok(requirements=[{"key": "zone", "values": ["linux"]}])),
    ("unknown requirement value", "r10",
     _ok(requirements=[{"key": "arch", "values": ["amd64", "sparc"]}])),
    ("label key prefix", "r11", _ok(labels={"other/a": "1"})),
    ("timeout format", "r12", _ok(timeout="30 seconds")),
    ("a quantity rule (Kubernetes' quantity library)", "r16", _ok(memory="128Gi")),
    ("a quantity rule passes", "r17", _ok(memory="512Mi")),
    ("a CIDR rule (Kubernetes' IP and CIDR libraries)", "r18", _ok(podCIDR="10.0.0.0/4")),
    ("a CIDR rule passes", "r19", _ok(podCIDR="10.244.0.0/16")),
    ("quantity arithmetic passes", "r20",
     _ok(resources={"request": "1.5Gi", "limit": "2Gi", "cpus": "2"})),
    ("quantity sub: limit below request", "r21",
     _ok(resources={"request": "1.5Gi", "limit": "1536Mi", "cpus": "4"})),
    ("quantity sub: limit below request by 1m", "r22",
     _ok(resources={"request": "1001m", "limit": "1"})),
    ("quantity add and asApproximateFloat", "r23", _ok(resources={"request": "99G"})),
    ("quantity isInteger (1000m is not an int64 whole number)", "r24",
     _ok(resources={"cpus": "1000m"})),
    ("quantity isInteger (1.5 printed by messageExpression)", "r25",
     _ok(resources={"cpus": "1.5"})),
    ("format dns1123Label passes", "r26", _ok(owner="team-a")),
    ("format dns1123Label messages (messageExpression)", "r27", _ok(owner="Team_A.b")),
    ("format dns1123Label too long and dotted", "r28", _ok(owner="a." * 40)),
    ("format.named passes", "r29", _ok(ownerKind="dns1123Label")),
    ("format.named unknown", "r30", _ok(ownerKind="hostname")),
    ("format.named validates", "r31", _ok(ownerKind="dns1035Label")),
    ("format uuid passes", "r32", _ok(uid="123e4567-e89b-12d3-a456-426614174000")),
    ("format uuid refused", "r33", _ok(uid="123e4567")),
    ("url passes", "r34", _ok(endpoint="https://api.example.com:8443/api/v1?x=1")),
    ("url scheme (messageExpression with getHostname)", "r35",
     _ok(endpoint="http://[fe80::1%25en0]:8080/api")),
    ("not a url", "r36", _ok(endpoint="api.example.com/api")),
    ("url query and path", "r37", _ok(endpoint="https://a.example.com/v1%2Fx?debug=1&debug=2")),
    ("a missing key (evaluation error)", "r13", _ok(mode="Audit")),
    ("a long name (root rule)", "a-name-longer-than-twenty", _OK),
    ("several rules at once", "r14", _ok(minReplicas=9, labels={"x": "1"}, timeout="x")),
    ("a schema error blocks the rules", "r15", _ok(replicas="two", minReplicas=9)),
    ("clusterName changed (transition rule)", "r1", _ok(clusterName="c2")),
    ("replicas decreased (optionalOldSelf)", "r1", _ok(replicas=1)),
    ("replicas increased", "r1", _ok(replicas=3)),
    ("an update keeping what is valid", "r1", _ok(replicas=3, maxReplicas=4)),
    ("a valid uid changed (transition rule with format)", "r32",
     _ok(uid="223e4567-e89b-12d3-a456-426614174000")),
]


def cel_steps(srv, program, tally, crdp, tmp):
    """CEL_STEPS on the real server and in smpatch (step(): the same answer,
    or the same Status); the count of refusals the server gave."""
    live, refused = {}, 0
    for what, name, spec in CEL_STEPS:
        cfg = {"apiVersion": "cel.example.com/v1", "kind": "Route",
               "metadata": {"name": name, "namespace": "default"}, "spec": spec}
        before = len(tally.unpredicted)
        answer = step(srv, program, tally, "cel: " + what, cfg, live.get(name), crdp, tmp, False)
        if answer is not None:
            live[name] = answer
        else:
            refused += len(tally.unpredicted) == before
    return refused


def docs_of(program, path):
    """The CRDs a file holds."""
    return [o for o in stored.objects_of(program, path)
            if o.get("kind") == "CustomResourceDefinition"]


def repaired(crd):
    """The CRD as a v1 server takes it: the key fields of a map list that
    have no default made required, and the fields a default sets that its
    schema does not declare dropped (testdata's schema tests hold both; the
    server refuses them). The list of repairs made, empty when none."""
    crd = copy.deepcopy(crd)
    done = []

    def prune_default(d, sch):
        if not isinstance(d, dict) or sch.get("x-kubernetes-preserve-unknown-fields"):
            return d
        props = sch.get("properties")
        if props is None:
            return d
        return {k: prune_default(v, props[k]) for k, v in d.items() if k in props}

    def walk(sch, path):
        if not isinstance(sch, dict):
            return
        if "default" in sch and isinstance(sch["default"], dict):
            d = prune_default(sch["default"], sch)
            if d != sch["default"]:
                done.append("%s: default without undeclared fields" % path)
                sch["default"] = d
        if sch.get("x-kubernetes-list-type") == "map":
            items = sch.get("items") or {}
            req = items.setdefault("required", [])
            for k in sch.get("x-kubernetes-list-map-keys") or []:
                if k not in req and "default" not in (items.get("properties") or {}).get(k, {}):
                    req.append(k)
                    done.append("%s: key %s required" % (path, k))
        for k, v in (sch.get("properties") or {}).items():
            walk(v, path + "." + k)
        if isinstance(sch.get("items"), dict):
            walk(sch["items"], path + "[]")
        if isinstance(sch.get("additionalProperties"), dict):
            walk(sch["additionalProperties"], path + "{}")
    for v in crd["spec"]["versions"]:
        walk(((v.get("schema") or {}).get("openAPIV3Schema")) or {}, v["name"])
    return crd, done


def variant(s, i):
    return s if i == 0 else "%s%d" % (s, i)


def gen(schema, name, i=0, depth=0, mode="full"):
    """A value for `schema`: every property (mode full), only the required
    ones (minimal), or nulls where there is a default or nullable (nulls);
    `i` varies the scalars (distinct list items)."""
    if schema.get("x-kubernetes-int-or-string"):
        return 3 + i if i % 2 == 0 else "%d%%" % (10 + i)
    if "enum" in schema:
        return schema["enum"][i % len(schema["enum"])]
    t = schema.get("type")
    if schema.get("x-kubernetes-embedded-resource"):
        v = {"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": variant("embedded", i), "labels": {"a": "b"},
                          "creationTimestamp": None}}
        if schema.get("x-kubernetes-preserve-unknown-fields"):
            v["data"] = {"k": "v"}
        for k, p in (schema.get("properties") or {}).items():
            if k not in ("apiVersion", "kind", "metadata"):
                v[k] = gen(p, k, i, depth + 1, mode)
        return v
    if t == "object" or schema.get("properties"):
        props = schema.get("properties") or {}
        out = {}
        req = set(schema.get("required") or [])
        for k, p in props.items():
            if depth > 6:
                break
            if mode == "minimal" and k not in req:
                continue
            if mode == "nulls" and k not in req and ("default" in p or p.get("nullable")) \
                    and p.get("type") != "array":
                out[k] = None
                continue
            out[k] = gen(p, k, i, depth + 1, mode)
        ap = schema.get("additionalProperties")
        if not props and isinstance(ap, dict) and mode != "minimal":
            out = {"k%d" % j: gen(ap, "v", i + j, depth + 1, mode) for j in range(2)}
        elif not props and schema.get("x-kubernetes-preserve-unknown-fields") and mode != "minimal":
            out = {"free": {"x": 1, "y": [1, "two"]}}
        if schema.get("x-kubernetes-preserve-unknown-fields") and props and mode != "minimal":
            out["undeclared"] = {"kept": True}
        return out
    if t == "array":
        items = schema.get("items") or {}
        n = 1 if mode == "minimal" else 2
        return [gen(items, name, i + j, depth + 1, "full" if mode == "nulls" else mode)
                for j in range(n)]
    if t == "integer":
        lo = schema.get("minimum", 1)
        hi = schema.get("maximum", lo + 100)
        return min(hi, lo + i)
    if t == "number":
        return 1.5 + i
    if t == "boolean":
        return i % 2 == 0
    if schema.get("format") == "date-time":
        return "2024-01-0%dT00:00:00Z" % (1 + i % 9)
    if schema.get("pattern"):
        for cand in ("abc", "1Gi", "a-b", "A1", "1", "a.b"):
            v = cand + ("x" * i if cand[-1].isalpha() else "")
            if re.search(schema["pattern"], v):
                return v
        return "abc"
    return variant("s-" + name, i)


def objects_for(crd):
    """(name, object) of every served version: full, minimal and nulls."""
    spec = crd["spec"]
    ns = spec.get("scope") == "Namespaced"
    out = []
    for v in spec["versions"]:
        if not v.get("served"):
            continue
        root = ((v.get("schema") or {}).get("openAPIV3Schema")) or {}
        for mode in ("full", "minimal", "nulls"):
            body = gen(root, "root", 0, 0, mode)
            for k in ("apiVersion", "kind", "metadata"):
                body.pop(k, None)
            if mode == "full" and isinstance(body.get("spec"), dict):
                body["spec"]["judgeUndeclared"] = "pruned"  # no schema declares it
            if mode != "full":
                body.pop("status", None)  # the full object carries one: a status
                # subresource makes the main resource's writes drop it
            name = "gen-%s-%s" % (v["name"], mode)
            md = {"name": name}
            if ns:
                md["namespace"] = "default"
            obj = dict({"apiVersion": "%s/%s" % (spec["group"], v["name"]),
                        "kind": spec["names"]["kind"], "metadata": md}, **body)
            out.append(("%s %s" % (crd["metadata"]["name"], name), obj))
    return out


def edited(obj):
    """obj with a label and its first plain string of spec changed."""
    o = copy.deepcopy(obj)
    o["metadata"].setdefault("labels", {})["judge.example.com/step"] = "edit"

    def change(v):
        # a plain string gen() made (not a date, a pattern's or an enum's)
        if isinstance(v, dict):
            for k in sorted(v):
                if isinstance(v[k], str) and v[k].startswith("s-"):
                    v[k] = v[k] + "-edited"
                    return True
                if change(v[k]):
                    return True
        return False
    change(o.get("spec"))
    return o


def step(srv, program, tally, ref, cfg, live, crdp, tmp, server_side):
    """One kubectl apply of cfg and smpatch's prediction of it; the answer."""
    cfgp, livep = os.path.join(tmp, "cr.json"), os.path.join(tmp, "cr-live.json")
    with open(cfgp, "w") as f:
        json.dump(cfg, f)
    if live is not None:
        with open(livep, "w") as f:
            json.dump(live, f)
    mode = ["--server-side"] if server_side else []
    mark = srv.mark()
    rc, out, err = srv.kubectl("apply", *mode, "--validate=false", "-f", cfgp, "-o", "json",
                               "--show-managed-fields")
    answer = json.loads(out) if rc == 0 and out.strip() else None
    prc, pout, perr = judge.smpatch(program, "apply", *mode, "--validate=false", "--schema",
                                    crdp, "-f", cfgp,
                                    *(["--live", livep] if live is not None else []),
                                    "--dry-run=server", "-o", "json", "--show-managed-fields",
                                    now=judge.newest_time(answer))
    problems = []
    if rc != 0:
        if prc == 0:
            tally.unpredicted.append("%s: %s" % (ref, err.strip().splitlines()[-1][:200]))
            return None
        # both refuse: the same Status (causes as a set: map order)
        problems += judge.status_differences(srv.refusal(mark), pout, map_order=True)
    elif prc != 0:
        problems.append("smpatch exits %d: %s" % (prc, perr.strip()[:300]))
    else:
        problems += judge.differences(judge.masked(answer), judge.masked(json.loads(pout)))
    tally.check(ref, problems)
    return answer


def establish(srv, crd, tmp):
    """Creates the CRD (after deleting one of that name) and waits until it
    is Established; the path of its file for --schema."""
    p = os.path.join(tmp, "crd-%s.json" % crd["metadata"]["name"])
    with open(p, "w") as f:
        json.dump(crd, f)
    srv.kubectl("delete", "-f", p, "--ignore-not-found", "--wait=true", "--timeout=60s")
    rc, _, err = srv.kubectl("apply", "-f", p)
    if rc != 0:
        return None, err
    rc, _, err = srv.kubectl("wait", "--for=condition=Established", "-f", p, "--timeout=60s")
    if rc != 0:
        return None, err
    # discovery: wait until kubectl can resolve the kind
    plural = "%s.%s" % (crd["spec"]["names"]["plural"], crd["spec"]["group"])
    for _ in range(50):
        if srv.kubectl("get", plural, "-A", "-o", "name")[0] == 0:
            break
        time.sleep(0.2)
    return p, None


def refusals(srv, program, tally, crdp, tmp, kind="Judge", cases=REFUSED):
    """A judge CRD's validation: predicted refusals must carry the server's
    Status (causes compared as a set: kube-openapi's map order); the rest
    are counted as not predicted yet."""
    predicted = 0
    for what, spec in cases:
        cfg = {"apiVersion": "realserver.example.com/v1", "kind": kind,
               "metadata": {"name": "refused", "namespace": "default"}, "spec": spec}
        cfgp = os.path.join(tmp, "refused.json")
        with open(cfgp, "w") as f:
            json.dump(cfg, f)
        mark = srv.mark()
        rc, _, err = srv.kubectl("apply", "-f", cfgp)
        prc, pout, perr = judge.smpatch(program, "apply", "--schema", crdp, "-f", cfgp,
                                        "--dry-run=server", "-o", "json")
        ref = "refusal: %s %s" % (kind, what)
        if rc == 0:
            tally.check(ref, ["the server accepted it"] if prc != 0 else [])
            if prc == 0:
                print("note: %s accepted by both" % ref)
            continue
        if prc == 0:
            tally.unpredicted.append("%s: %s" % (ref, err.strip().splitlines()[-1][:200]))
            continue
        predicted += 1
        tally.check(ref, judge.status_differences(srv.refusal(mark), pout, map_order=True))
    return predicted


def golden_refusals(srv, program, src, tally, tmp):
    """The golden cases of testdata/apply with a crd.yaml beside their
    config.yaml whose `-o json` refuses it (expected/json/code 3: a custom
    resource refused by its CRD's schema): the CRD
    created, the configuration applied by real kubectl, its Status the one
    smpatch predicts (what the golden's expected output holds)."""
    n = 0
    top = os.path.join(src, "testdata", "apply")
    for case in sorted(os.listdir(top)):
        crdf, cfgp = (os.path.join(top, case, f) for f in ("crd.yaml", "config.yaml"))
        codef = os.path.join(top, case, "expected", "json", "code")
        if not os.path.exists(crdf) or not os.path.exists(codef) or \
                open(codef).read().strip() != "3":
            continue
        crd = docs_of(program, crdf)[0]
        crdp, err = establish(srv, crd, tmp)
        ref = "golden %s" % case
        if not crdp:
            tally.check(ref, ["the server refuses the CRD: " + err.strip()[:300]])
            continue
        mark = srv.mark()
        rc, _, err = srv.kubectl("apply", "-f", cfgp)
        prc, pout, perr = judge.smpatch(program, "apply", "--schema", crdf, "-f", cfgp,
                                        "--dry-run=server", "-o", "json")
        n += 1
        if rc == 0 or prc == 0:
            tally.check(ref, ["server rc %d, smpatch rc %d: %s" % (rc, prc, (err + perr)[:300])])
            continue
        tally.check(ref, judge.status_differences(srv.refusal(mark), pout, map_order=True))
    return n


def main():
    realserver, program, src, started = judge.suite_args(__doc__)
    crds = [JUDGE_CRD]
    for f in ("stored-crd.yaml", "widgets-crd.yaml", "gizmos-crd.json"):
        crds += docs_of(program, os.path.join(src, "testdata", "schema", f))
    tally = judge.Tally()
    nobj = predicted = 0
    refused_crds = []
    with judge.Server(realserver) as srv, tempfile.TemporaryDirectory() as tmp:
        for crd in crds:
            crd, repairs = repaired(crd)
            if repairs:
                print("repaired %s: %s" % (crd["metadata"]["name"], "; ".join(repairs)))
            crdp, err = establish(srv, crd, tmp)
            if not crdp:
                # an invalid v1 CRD (testdata's schema tests use some): its
                # objects cannot be judged
                refused_crds.append("%s: %s" % (crd["metadata"]["name"], err.strip()[:300]))
                continue
            for ref, obj in objects_for(crd):
                nobj += 1
                live = step(srv, program, tally, ref + " create", obj, None, crdp, tmp, False)
                if live is not None:
                    step(srv, program, tally, ref + " edit", edited(obj), live, crdp, tmp, False)
                ssa = copy.deepcopy(obj)
                ssa["metadata"]["name"] += "-ssa"
                live = step(srv, program, tally, ref + " ssa", ssa, None, crdp, tmp, True)
                if live is not None:
                    step(srv, program, tally, ref + " ssa-edit", edited(ssa), live, crdp, tmp,
                         True)
            if crd["metadata"]["name"] == JUDGE_CRD["metadata"]["name"]:
                predicted = refusals(srv, program, tally, crdp, tmp)
        crdp, err = establish(srv, plain_crd(), tmp)
        if not crdp:
            print("FAIL: the plain judge CRD: " + err)
            sys.exit(1)
        predicted += refusals(srv, program, tally, crdp, tmp, "PlainJudge",
                              REFUSED + PLAIN_REFUSED)
        predicted += golden_refusals(srv, program, src, tally, tmp)
        crdp, err = establish(srv, CEL_CRD, tmp)
        if not crdp:
            print("FAIL: the CEL judge CRD: " + err)
            sys.exit(1)
        predicted += cel_steps(srv, program, tally, crdp, tmp)
    for u in tally.unpredicted:
        print("NOT PREDICTED " + u)
    for u in refused_crds:
        print("CRD REFUSED " + u)
    print("custom: %d CRDs (%d refused by the server), %d objects; refusals: %d predicted, "
          "%d not predicted yet" % (len(crds), len(refused_crds), nobj, predicted,
                                    len(tally.unpredicted)))
    judge.report("custom", tally.agree, tally.total, started)


if __name__ == "__main__":
    main()
