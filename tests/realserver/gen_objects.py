"""gen_objects.py - one generated object of every kind and version the
kube-apiserver 1.32 serves and stores (the review kinds, Binding and the
events of a kubelet aside), twice: the least the server accepts, and one
with more of the optional fields given. stored.py creates each on the real
server and compares what it stores with smpatch's prediction. Written by
hand from the 1.32 API types; fields 1.32 does not know are not used (the
server refuses unknown fields under Strict).
"""
import copy

POD_SPEC_MIN = {"containers": [{"name": "c", "image": "nginx:1.27"}]}
POD_SPEC_FULL = {
    "containers": [{
        "name": "c", "image": "nginx", "command": ["nginx"], "args": ["-g", "daemon off;"],
        "workingDir": "/", "ports": [{"containerPort": 80, "name": "http"},
                                     {"containerPort": 53, "protocol": "UDP"}],
        "env": [{"name": "A", "value": "1"},
                {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}}],
        "envFrom": [{"configMapRef": {"name": "cm"}}],
        "resources": {"limits": {"cpu": "0.5", "memory": "1Gi"}, "requests": {"cpu": "100m"}},
        "volumeMounts": [{"name": "data", "mountPath": "/data"},
                         {"name": "cfg", "mountPath": "/cfg", "readOnly": True}],
        "livenessProbe": {"httpGet": {"port": 80}},
        "readinessProbe": {"tcpSocket": {"port": "http"}, "initialDelaySeconds": 3},
        "startupProbe": {"exec": {"command": ["true"]}},
        "lifecycle": {"preStop": {"httpGet": {"port": 80}}},
        "securityContext": {"runAsNonRoot": True, "capabilities": {"drop": ["ALL"]}},
        "stdin": True, "tty": True,
    }],
    "initContainers": [{"name": "init", "image": "busybox:latest", "command": ["true"]}],
    "volumes": [{"name": "data", "emptyDir": {"sizeLimit": "1.5Gi"}},
                {"name": "cfg", "configMap": {"name": "cm", "items": [{"key": "a", "path": "a"}]}},
                {"name": "sec", "secret": {"secretName": "s"}},
                {"name": "dapi", "downwardAPI": {"items": [{"path": "labels",
                                                            "fieldRef": {"fieldPath": "metadata.labels"}}]}},
                {"name": "proj", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
                {"name": "host", "hostPath": {"path": "/tmp"}},
                {"name": "pvc", "persistentVolumeClaim": {"claimName": "claim"}},
                {"name": "plain"}],
    "nodeSelector": {"disk": "ssd"},
    "serviceAccountName": "builder",
    "hostname": "h", "subdomain": "s",
    "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In",
                                                     "values": ["a"]}]}]}}},
    "dnsConfig": {"options": [{"name": "ndots", "value": "2"}]},
    "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                                   "whenUnsatisfiable": "ScheduleAnyway",
                                   "labelSelector": {"matchLabels": {"app": "x"}}}],
}
LABELS = {"app": "gen"}
SELECTOR = {"matchLabels": LABELS}


def template(spec):
    return {"metadata": {"labels": dict(LABELS)}, "spec": copy.deepcopy(spec)}


def pvc_spec(full):
    s = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    if full:
        s.update({"storageClassName": "fast", "volumeMode": "Block",
                  "selector": {"matchLabels": {"tier": "db"}}})
    return s


RULES = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]
WEBHOOK_RULES = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                  "resources": ["pods"]}]
CA = "Cg=="


def webhook(name, full, mutating):
    w = {"name": name, "clientConfig": {"service": {"namespace": "default", "name": "hook"}},
         "rules": copy.deepcopy(WEBHOOK_RULES), "sideEffects": "None",
         "admissionReviewVersions": ["v1"]}
    if full:
        w["clientConfig"] = {"url": "https://hook.example.com/x", "caBundle": CA}
        w.update({"failurePolicy": "Ignore", "matchPolicy": "Exact", "timeoutSeconds": 5,
                  "namespaceSelector": {"matchLabels": {"team": "a"}},
                  "matchConditions": [{"name": "m", "expression": "true"}]})
        w["rules"][0]["scope"] = "Namespaced"
        if mutating:
            w["reinvocationPolicy"] = "IfNeeded"
    return w


def kinds(full):
    """(apiVersion, kind, body) of every kind; body holds what is not metadata."""
    ps = POD_SPEC_FULL if full else POD_SPEC_MIN
    out = [
        ("v1", "ConfigMap", {"data": {"a": "1"}, "binaryData": {"b": "AQI="}} if full else {}),
        ("v1", "Secret", {"stringData": {"user": "u"}, "data": {"pw": "cHc="}, "type": "Opaque"}
         if full else {}),
        ("v1", "Secret", {"type": "kubernetes.io/tls",
                          "data": {"tls.crt": "Y3J0", "tls.key": "a2V5"}}),
        ("v1", "ServiceAccount", {"automountServiceAccountToken": False,
                                  "imagePullSecrets": [{"name": "reg"}]} if full else {}),
        ("v1", "Service", {"spec": {"selector": LABELS, "ports": [{"port": 80}]}} if not full else
         {"spec": {"type": "NodePort", "selector": LABELS, "sessionAffinity": "ClientIP",
                   "ports": [{"name": "http", "port": 80, "targetPort": "http"},
                             {"name": "dns", "port": 53, "protocol": "UDP"}]}}),
        ("v1", "Service", {"spec": {"type": "ExternalName", "externalName": "example.com"}}),
        ("v1", "Service", {"spec": {"clusterIP": "None", "selector": LABELS,
                                    "ports": [{"port": 80}]}}),
        ("v1", "Service", {"spec": {"type": "LoadBalancer", "selector": LABELS,
                                    "ports": [{"port": 443, "targetPort": 8443}]}}),
        ("v1", "Endpoints", {"subsets": [{"addresses": [{"ip": "10.1.2.3"}],
                                          "ports": [{"port": 80}]}]}),
        ("v1", "LimitRange", {"spec": {"limits": [{"type": "Container",
                                                   "default": {"cpu": "0.5"},
                                                   "max": {"memory": "2Gi"}}]}}),
        ("v1", "ResourceQuota", {"spec": {"hard": {"pods": "10", "requests.cpu": "1.5"}}}),
        ("v1", "PersistentVolumeClaim", {"spec": pvc_spec(full)}),
        ("v1", "PersistentVolume", {"spec": {"capacity": {"storage": "1Gi"},
                                             "accessModes": ["ReadWriteOnce"],
                                             "hostPath": {"path": "/tmp/pv"}}}),
        ("v1", "Pod", {"spec": copy.deepcopy(ps)}),
        ("v1", "PodTemplate", {"template": template(ps)}),
        ("v1", "ReplicationController", {"spec": {"selector": LABELS, "template": template(ps)}}),
        ("v1", "Namespace", {"metadata": {"labels": {"team": "a"}}} if full else {}),
        ("v1", "Node", {"spec": {"podCIDR": "10.244.0.0/24", "unschedulable": True}}
         if full else {}),
        ("v1", "Event", {"involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
                         "reason": "Test", "message": "m", "type": "Normal"}),
        ("apps/v1", "Deployment", {"spec": {"selector": SELECTOR, "template": template(ps)}}),
        ("apps/v1", "StatefulSet", {"spec": {
            "selector": SELECTOR, "serviceName": "svc", "template": template(ps),
            **({"volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": pvc_spec(False)}],
                "podManagementPolicy": "Parallel"} if full else {})}}),
        ("apps/v1", "DaemonSet", {"spec": {"selector": SELECTOR, "template": template(ps)}}),
        ("apps/v1", "ReplicaSet", {"spec": {"selector": SELECTOR, "template": template(ps)}}),
        ("apps/v1", "ControllerRevision", {"revision": 1, "data": {"a": 1}}),
        ("batch/v1", "Job", {"spec": {"template": {"spec": dict(copy.deepcopy(ps),
                                                               restartPolicy="Never")}}}),
        ("batch/v1", "CronJob", {"spec": {"schedule": "*/5 * * * *", "jobTemplate": {
            "spec": {"template": {"spec": dict(copy.deepcopy(ps), restartPolicy="OnFailure")}}}}}),
        ("autoscaling/v1", "HorizontalPodAutoscaler", {"spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
            "maxReplicas": 3}}),
        ("autoscaling/v2", "HorizontalPodAutoscaler", {"spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
            "maxReplicas": 3, **({"metrics": [{"type": "Resource", "resource": {
                "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}],
                "behavior": {"scaleDown": {"policies": [{"type": "Pods", "value": 1,
                                                         "periodSeconds": 60}]}}}
                if full else {})}}),
        ("policy/v1", "PodDisruptionBudget", {"spec": {"minAvailable": 1, "selector": SELECTOR}}),
        ("networking.k8s.io/v1", "Ingress", {"spec": {"rules": [{"host": "a.example.com", "http": {
            "paths": [{"path": "/", "pathType": "Prefix", "backend": {
                "service": {"name": "web", "port": {"number": 80}}}}]}}]}}),
        ("networking.k8s.io/v1", "IngressClass", {"spec": {"controller": "example.com/ingress"}}),
        ("networking.k8s.io/v1", "NetworkPolicy", {"spec": {"podSelector": {}} if not full else {
            "podSelector": SELECTOR, "ingress": [{"from": [{"podSelector": {}}],
                                                  "ports": [{"port": 80}]}],
            "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}]}}),
        ("rbac.authorization.k8s.io/v1", "Role", {"rules": RULES}),
        ("rbac.authorization.k8s.io/v1", "ClusterRole", {"rules": RULES} if full else {}),
        ("rbac.authorization.k8s.io/v1", "RoleBinding", {
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
            "subjects": [{"kind": "ServiceAccount", "name": "sa", "namespace": "default"},
                         {"kind": "User", "name": "jane"}]}),
        ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", {
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                        "name": "view"},
            "subjects": [{"kind": "Group", "name": "devs"}]}),
        ("scheduling.k8s.io/v1", "PriorityClass", {"value": 1000, "description": "d"}),
        ("storage.k8s.io/v1", "StorageClass", {"provisioner": "example.com/disk"}),
        ("storage.k8s.io/v1", "CSIDriver", {"spec": {"attachRequired": False} if full else {}}),
        ("storage.k8s.io/v1", "CSINode", {"spec": {"drivers": [{"name": "disk.example.com",
                                                                "nodeID": "n1"}]}}),
        ("storage.k8s.io/v1", "VolumeAttachment", {"spec": {
            "attacher": "disk.example.com", "nodeName": "n1",
            "source": {"persistentVolumeName": "pv"}}}),
        ("storage.k8s.io/v1", "CSIStorageCapacity", {"storageClassName": "fast",
                                                     "capacity": "1.5Gi"}),
        ("node.k8s.io/v1", "RuntimeClass", {"handler": "runc"}),
        ("coordination.k8s.io/v1", "Lease", {"spec": {"holderIdentity": "a",
                                                      "leaseDurationSeconds": 15}
                                             if full else {}}),
        ("discovery.k8s.io/v1", "EndpointSlice", {"addressType": "IPv4", "endpoints": [
            {"addresses": ["10.1.2.3"]}], "ports": [{"port": 80}]}),
        ("events.k8s.io/v1", "Event", {"eventTime": "2026-01-01T00:00:00.000000Z",
                                       "reportingController": "example.com/c",
                                       "reportingInstance": "i", "action": "A",
                                       "reason": "R", "type": "Normal",
                                       "regarding": {"kind": "Pod", "name": "p"}}),
        ("certificates.k8s.io/v1", "CertificateSigningRequest", {"spec": {
            "request": CSR, "signerName": "example.com/signer", "usages": ["digital signature"]}}),
        ("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration", {"spec": {
            "type": "Limited", "limited": {"nominalConcurrencyShares": 5,
                                           "limitResponse": {"type": "Reject"}}
            if not full else {"limitResponse": {"type": "Queue", "queuing": {"queues": 16}}}}}),
        ("flowcontrol.apiserver.k8s.io/v1", "FlowSchema", {"spec": {
            "priorityLevelConfiguration": {"name": "global-default"},
            "rules": [{"subjects": [{"kind": "User", "user": {"name": "jane"}}],
                       "resourceRules": [{"verbs": ["get"], "apiGroups": [""],
                                          "resources": ["pods"], "namespaces": ["*"]}]}]}}),
        ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", {
            "webhooks": [webhook("v.example.com", full, False)]}),
        ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", {
            "webhooks": [webhook("m.example.com", full, True)]}),
        ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", {"spec": {
            "matchConstraints": {"resourceRules": copy.deepcopy(WEBHOOK_RULES)},
            "validations": [{"expression": "true"}]}}),
        ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", {"spec": {
            "policyName": "p", "validationActions": ["Deny"]}}),
        ("apiregistration.k8s.io/v1", "APIService", {"spec": {
            "group": "metrics.example.com", "version": "v1", "groupPriorityMinimum": 100,
            "versionPriority": 10, "service": {"namespace": "default", "name": "m"}}}),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition", None),
    ]
    return out


# A certificate request for CN=gen (ECDSA P-256), as `openssl req` writes it.
CSR = ("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlISE1IQUNBUUF3RGpFTU1Bb0dB"
       "MVVFQXd3RFoyVnVNRmt3RXdZSEtvWkl6ajBDQVFZSUtvWkl6ajBEQVFjRApRZ0FFQjlMNm8vR1Zh"
       "ZSt2NTdLV0t2c0I0UzYwQnBDelpub05vYStYbVJPUFVXNnZ5MUgwT3crTGI1WVJXVllpCno2NkNm"
       "aktwVkpMU05FcG5pYUdZY3VNNGZLQUFNQW9HQ0NxR1NNNDlCQU1DQTBjQU1FUUNJREE3V2pDWmMw"
       "VkwKeDRMdXdEME9GbEdXZjZ0dzNlTlZCMmJvNnlkUFI1NExBaUJrVUE2SUlnRU1Jc04wZ2VVbXpx"
       "eHQySStteFdERwpIY3FCbzk3OHQ3ekhtQT09Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1Qt"
       "LS0tLQo=")


def crd(full):
    v = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
        "type": "object", "properties": {"spec": {"type": "object", "properties": {
            "size": {"type": "integer", "default": 1}}}}}}}
    if full:
        v["subresources"] = {"status": {}}
        v["additionalPrinterColumns"] = [{"name": "Size", "type": "integer",
                                          "jsonPath": ".spec.size"}]
    return {"spec": {"group": "gen.example.com", "scope": "Namespaced",
                     "names": {"plural": "gens" + ("full" if full else "min"),
                               "kind": "Gen" + ("Full" if full else "Min")},
                     "versions": [v]}}


def objects():
    """(name, object) of every generated object: each kind minimal, then with
    more fields."""
    out = []
    seen = {}
    for variant in (False, True):
        for av, kind, body in kinds(variant):
            if body is None:
                body = crd(variant)
            n = seen.get((av, kind, variant), 0)
            seen[(av, kind, variant)] = n + 1
            name = "gen-%s-%s%s" % (kind.lower(), "full" if variant else "min",
                                    "-%d" % n if n else "")
            if kind == "CustomResourceDefinition":
                name = "%s.gen.example.com" % body["spec"]["names"]["plural"]
            if kind == "APIService":
                name = "v1.metrics.example.com"
            obj = {"apiVersion": av, "kind": kind, "metadata": {"name": name}}
            body = copy.deepcopy(body)
            obj["metadata"].update(body.pop("metadata", {}))
            obj.update(body)
            out.append(("%s/%s %s" % (av, kind, name), obj))
    return out
