/*
 * stored_test.c - smp_stored_form: the defaults of the API server's
 * defaulting functions (pkg/apis/<group>/v1/defaults.go) and the stored
 * text of quantities, one table case per rule; expectations written from
 * the defaulting code (docs/STORED.md cites each rule), with what Go's
 * encoding writes and the registry adds as the real API server showed it
 * (realserver.stored judges the same rules on real objects).
 */
#include "tutil.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name, *in, *want;
} cases[] = {
	{"deployment: every default",
	 "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},"
	 "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":"
	 "{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":"
	 "\"nginx:1.25\",\"ports\":[{\"containerPort\":80}]}]}}}}",
	 "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},\""
	 "spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":{"
	 "\"labels\":{\"app\":\"web\"},\"creationTimestamp\":null},\"spec\":{\"containers\":[{\""
	 "name\":\"web\",\"image\":\"nginx:1.25\",\"ports\":[{\"containerPort\":80,\"protocol\":"
	 "\"TCP\"}],\"imagePullPolicy\":\"IfNotPresent\",\"terminationMessagePath\":\"/dev/termi"
	 "nation-log\",\"terminationMessagePolicy\":\"File\",\"resources\":{}}],\"dnsPolicy\":\""
	 "ClusterFirst\",\"restartPolicy\":\"Always\",\"securityContext\":{},\"terminationGraceP"
	 "eriodSeconds\":30,\"schedulerName\":\"default-scheduler\"}},\"replicas\":1,\"strategy"
	 "\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxUnavailable\":\"25%\",\"maxSurg"
	 "e\":\"25%\"}},\"revisionHistoryLimit\":10,\"progressDeadlineSeconds\":600},\"status\":"
	 "{}}"},
	{"deployment: Recreate has no rollingUpdate; set values stay",
	 "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"w\"},"
	 "\"spec\":{\"replicas\":0,\"strategy\":{\"type\":\"Recreate\"},\"revisionHistoryLimit\":2}}",
	 "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"w\"},\"sp"
	 "ec\":{\"replicas\":0,\"strategy\":{\"type\":\"Recreate\"},\"revisionHistoryLimit\":2,"
	 "\"progressDeadlineSeconds\":600,\"selector\":null,\"template\":{\"metadata\":{\"creati"
	 "onTimestamp\":null},\"spec\":{\"containers\":null}}},\"status\":{}}"},
	{"pull policy by tag",
	 "{\"apiVersion\":\"v1\",\"kind\":\"PodTemplate\",\"metadata\":{\"name\":\"t\"},\"template\":"
	 "{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":["
	 "{\"name\":\"a\",\"image\":\"nginx\"},{\"name\":\"b\",\"image\":\"nginx:latest\"},"
	 "{\"name\":\"c\",\"image\":\"nginx@sha256:0123456789012345678901234567890123456789012345678901234567890123\"},"
	 "{\"name\":\"d\",\"image\":\"localhost:5000/app\"},{\"name\":\"e\",\"image\":\"localhost:5000/app:v1\"},"
	 "{\"name\":\"f\",\"image\":\"Nginx\"},{\"name\":\"g\",\"image\":\"nginx\",\"imagePullPolicy\":\"Never\"},"
	 "{\"name\":\"h\",\"image\":\"registry.example.com/team/app:latest\"}]}}}",
	 "{\"apiVersion\":\"v1\",\"kind\":\"PodTemplate\",\"metadata\":{\"name\":\"t\"},\"templa"
	 "te\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"a\",\"image\":"
	 "\"nginx\",\"imagePullPolicy\":\"Always\",\"terminationMessagePath\":\"/dev/termination"
	 "-log\",\"terminationMessagePolicy\":\"File\",\"resources\":{}},{\"name\":\"b\",\"image"
	 "\":\"nginx:latest\",\"imagePullPolicy\":\"Always\",\"terminationMessagePath\":\"/dev/t"
	 "ermination-log\",\"terminationMessagePolicy\":\"File\",\"resources\":{}},{\"name\":\"c"
	 "\",\"image\":\"nginx@sha256:0123456789012345678901234567890123456789012345678901234567"
	 "890123\",\"imagePullPolicy\":\"IfNotPresent\",\"terminationMessagePath\":\"/dev/termin"
	 "ation-log\",\"terminationMessagePolicy\":\"File\",\"resources\":{}},{\"name\":\"d\",\""
	 "image\":\"localhost:5000/app\",\"imagePullPolicy\":\"Always\",\"terminationMessagePath"
	 "\":\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\",\"resources\":{}},{"
	 "\"name\":\"e\",\"image\":\"localhost:5000/app:v1\",\"imagePullPolicy\":\"IfNotPresent"
	 "\",\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePolicy\":\""
	 "File\",\"resources\":{}},{\"name\":\"f\",\"image\":\"Nginx\",\"imagePullPolicy\":\"IfN"
	 "otPresent\",\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePo"
	 "licy\":\"File\",\"resources\":{}},{\"name\":\"g\",\"image\":\"nginx\",\"imagePullPolic"
	 "y\":\"Never\",\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessage"
	 "Policy\":\"File\",\"resources\":{}},{\"name\":\"h\",\"image\":\"registry.example.com/t"
	 "eam/app:latest\",\"imagePullPolicy\":\"Always\",\"terminationMessagePath\":\"/dev/term"
	 "ination-log\",\"terminationMessagePolicy\":\"File\",\"resources\":{}}],\"dnsPolicy\":"
	 "\"ClusterFirst\",\"securityContext\":{},\"terminationGracePeriodSeconds\":30,\"schedul"
	 "erName\":\"default-scheduler\"},\"metadata\":{\"creationTimestamp\":null}}}"},
	{"service: ports, type, affinity, traffic policies",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"s\"},\"spec\":{"
	 "\"ports\":[{\"port\":80},{\"port\":53,\"protocol\":\"UDP\",\"targetPort\":\"dns\"},"
	 "{\"port\":443,\"targetPort\":0}]}}",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"s\"},\"spec\":{\""
	 "ports\":[{\"port\":80,\"protocol\":\"TCP\",\"targetPort\":80},{\"port\":53,\"protocol"
	 "\":\"UDP\",\"targetPort\":\"dns\"},{\"port\":443,\"targetPort\":443,\"protocol\":\"TCP"
	 "\"}],\"sessionAffinity\":\"None\",\"type\":\"ClusterIP\",\"internalTrafficPolicy\":\"C"
	 "luster\",\"ipFamilyPolicy\":\"SingleStack\",\"ipFamilies\":[\"IPv4\"]},\"status\":{\"l"
	 "oadBalancer\":{}}}"},
	{"service: LoadBalancer and ClientIP",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"s\"},\"spec\":{"
	 "\"type\":\"LoadBalancer\",\"sessionAffinity\":\"ClientIP\"}}",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"s\"},\"spec\":{\""
	 "type\":\"LoadBalancer\",\"sessionAffinity\":\"ClientIP\",\"sessionAffinityConfig\":{\""
	 "clientIP\":{\"timeoutSeconds\":10800}},\"externalTrafficPolicy\":\"Cluster\",\"interna"
	 "lTrafficPolicy\":\"Cluster\",\"allocateLoadBalancerNodePorts\":true,\"ipFamilyPolicy\""
	 ":\"SingleStack\",\"ipFamilies\":[\"IPv4\"]},\"status\":{\"loadBalancer\":{}}}"},
	{"service: None drops sessionAffinityConfig; ExternalName gets no traffic policy",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"s\"},\"spec\":{"
	 "\"type\":\"ExternalName\",\"externalName\":\"x.example.com\",\"sessionAffinityConfig\":"
	 "{\"clientIP\":{\"timeoutSeconds\":5}}}}",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"s\"},\"spec\":{\""
	 "type\":\"ExternalName\",\"externalName\":\"x.example.com\",\"sessionAffinity\":\"None"
	 "\"},\"status\":{\"loadBalancer\":{}}}"},
	{"quantities: stored text, ResourceLists rounded to milli, sizeLimit not",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{"
	 "\"enableServiceLinks\":false,\"containers\":[{\"name\":\"c\",\"image\":\"x:1\","
	 "\"resources\":{\"limits\":{\"cpu\":0.5,\"memory\":\"1024Mi\"},\"requests\":{\"cpu\":"
	 "\"1.2345\",\"memory\":\"1.5Gi\",\"ephemeral-storage\":\"5n\"}}}],\"volumes\":[{\"name\":"
	 "\"v\",\"emptyDir\":{\"sizeLimit\":\"0.1m\"}}]}}",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"enab"
	 "leServiceLinks\":false,\"containers\":[{\"name\":\"c\",\"image\":\"x:1\",\"resources\""
	 ":{\"limits\":{\"cpu\":\"500m\",\"memory\":\"1Gi\"},\"requests\":{\"cpu\":\"1235m\",\"m"
	 "emory\":\"1536Mi\",\"ephemeral-storage\":\"1m\"}},\"imagePullPolicy\":\"IfNotPresent\""
	 ",\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePolicy\":\"Fi"
	 "le\"}],\"volumes\":[{\"name\":\"v\",\"emptyDir\":{\"sizeLimit\":\"100u\"}}],\"dnsPolic"
	 "y\":\"ClusterFirst\",\"restartPolicy\":\"Always\",\"securityContext\":{},\"termination"
	 "GracePeriodSeconds\":30,\"schedulerName\":\"default-scheduler\",\"priority\":0,\"preem"
	 "ptionPolicy\":\"PreemptLowerPriority\",\"tolerations\":[{\"effect\":\"NoExecute\",\"ke"
	 "y\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"tolerationSeconds\":300"
	 "},{\"effect\":\"NoExecute\",\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\""
	 "Exists\",\"tolerationSeconds\":300}]},\"status\":{\"phase\":\"Pending\",\"qosClass\":"
	 "\"Burstable\"}}"},
	{"pod: requests from limits, host ports, probes, volumes",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{"
	 "\"hostNetwork\":true,\"containers\":[{\"name\":\"c\",\"image\":\"x:1\",\"ports\":[{"
	 "\"containerPort\":8080}],\"resources\":{\"limits\":{\"cpu\":\"1\"},\"requests\":{"
	 "\"memory\":\"1G\"}},\"livenessProbe\":{\"httpGet\":{\"port\":8080}},\"env\":[{\"name\":"
	 "\"N\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}}]}],\"volumes\":["
	 "{\"name\":\"a\"},{\"name\":\"b\",\"secret\":{\"secretName\":\"s\"}},{\"name\":\"c\","
	 "\"configMap\":{\"name\":\"m\",\"defaultMode\":256}},{\"name\":\"d\",\"hostPath\":{"
	 "\"path\":\"/x\"}},{\"name\":\"e\",\"projected\":{\"sources\":[{\"serviceAccountToken\":"
	 "{\"path\":\"t\"}}]}}]}}",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"host"
	 "Network\":true,\"containers\":[{\"name\":\"c\",\"image\":\"x:1\",\"ports\":[{\"contain"
	 "erPort\":8080,\"hostPort\":8080,\"protocol\":\"TCP\"}],\"resources\":{\"limits\":{\"cp"
	 "u\":\"1\"},\"requests\":{\"memory\":\"1G\",\"cpu\":\"1\"}},\"livenessProbe\":{\"httpGe"
	 "t\":{\"port\":8080,\"path\":\"/\",\"scheme\":\"HTTP\"},\"timeoutSeconds\":1,\"periodSe"
	 "conds\":10,\"successThreshold\":1,\"failureThreshold\":3},\"env\":[{\"name\":\"N\",\"v"
	 "alueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\",\"apiVersion\":\"v1\"}}}],\""
	 "imagePullPolicy\":\"IfNotPresent\",\"terminationMessagePath\":\"/dev/termination-log\""
	 ",\"terminationMessagePolicy\":\"File\"}],\"volumes\":[{\"name\":\"a\",\"emptyDir\":{}}"
	 ",{\"name\":\"b\",\"secret\":{\"secretName\":\"s\",\"defaultMode\":420}},{\"name\":\"c"
	 "\",\"configMap\":{\"name\":\"m\",\"defaultMode\":256}},{\"name\":\"d\",\"hostPath\":{"
	 "\"path\":\"/x\",\"type\":\"\"}},{\"name\":\"e\",\"projected\":{\"sources\":[{\"service"
	 "AccountToken\":{\"path\":\"t\",\"expirationSeconds\":3600}}],\"defaultMode\":420}}],\""
	 "enableServiceLinks\":true,\"dnsPolicy\":\"ClusterFirst\",\"restartPolicy\":\"Always\","
	 "\"securityContext\":{},\"terminationGracePeriodSeconds\":30,\"schedulerName\":\"defaul"
	 "t-scheduler\",\"priority\":0,\"preemptionPolicy\":\"PreemptLowerPriority\",\"toleratio"
	 "ns\":[{\"effect\":\"NoExecute\",\"key\":\"node.kubernetes.io/not-ready\",\"operator\":"
	 "\"Exists\",\"tolerationSeconds\":300},{\"effect\":\"NoExecute\",\"key\":\"node.kuberne"
	 "tes.io/unreachable\",\"operator\":\"Exists\",\"tolerationSeconds\":300}]},\"status\":{"
	 "\"phase\":\"Pending\",\"qosClass\":\"Burstable\"}}"},
	{"pvc: volumeMode, storage, status",
	 "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"d\"},"
	 "\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":{\"requests\":{\"storage\":"
	 "\"10240Mi\"}}}}",
	 "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"d\""
	 ",\"finalizers\":[\"kubernetes.io/pvc-protection\"]},\"spec\":{\"accessModes\":[\"ReadW"
	 "riteOnce\"],\"resources\":{\"requests\":{\"storage\":\"10Gi\"}},\"volumeMode\":\"Files"
	 "ystem\"},\"status\":{\"phase\":\"Pending\"}}"},
	{"networkpolicy: policyTypes and port protocols",
	 "{\"apiVersion\":\"networking.k8s.io/v1\",\"kind\":\"NetworkPolicy\",\"metadata\":{\"name\":"
	 "\"n\"},\"spec\":{\"podSelector\":{},\"ingress\":[{\"ports\":[{\"port\":80}]}],\"egress\":"
	 "[{\"ports\":[{\"port\":53,\"protocol\":\"UDP\"}]}]}}",
	 "{\"apiVersion\":\"networking.k8s.io/v1\",\"kind\":\"NetworkPolicy\",\"metadata\":{\"name\":"
	 "\"n\"},\"spec\":{\"podSelector\":{},\"ingress\":[{\"ports\":[{\"port\":80,\"protocol\":"
	 "\"TCP\"}]}],\"egress\":[{\"ports\":[{\"port\":53,\"protocol\":\"UDP\"}]}],\"policyTypes\":"
	 "[\"Ingress\",\"Egress\"]}}"},
	{"job",
	 "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j\"},\"spec\":{"
	 "\"template\":{\"metadata\":{\"labels\":{\"a\":\"b\"}},\"spec\":{\"restartPolicy\":"
	 "\"Never\",\"containers\":[]}}}}",
	 "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j\",\"labels\":"
	 "{\"a\":\"b\"}},\"spec\":{\"template\":{\"metadata\":{\"labels\":{\"a\":\"b\",\"job-nam"
	 "e\":\"j\",\"batch.kubernetes.io/job-name\":\"j\"},\"creationTimestamp\":null},\"spec\""
	 ":{\"restartPolicy\":\"Never\",\"containers\":[],\"dnsPolicy\":\"ClusterFirst\",\"secur"
	 "ityContext\":{},\"terminationGracePeriodSeconds\":30,\"schedulerName\":\"default-sched"
	 "uler\"}},\"completions\":1,\"parallelism\":1,\"backoffLimit\":6,\"completionMode\":\"N"
	 "onIndexed\",\"suspend\":false,\"podReplacementPolicy\":\"TerminatingOrFailed\",\"manua"
	 "lSelector\":false},\"status\":{}}"},
	{"cronjob: only its own defaults and the pod template's",
	 "{\"apiVersion\":\"batch/v1\",\"kind\":\"CronJob\",\"metadata\":{\"name\":\"c\"},\"spec\":{"
	 "\"schedule\":\"* * * * *\",\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":{"
	 "\"restartPolicy\":\"OnFailure\"}}}}}}",
	 "{\"apiVersion\":\"batch/v1\",\"kind\":\"CronJob\",\"metadata\":{\"name\":\"c\"},\"spec"
	 "\":{\"schedule\":\"* * * * *\",\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":{\"re"
	 "startPolicy\":\"OnFailure\",\"dnsPolicy\":\"ClusterFirst\",\"securityContext\":{},\"te"
	 "rminationGracePeriodSeconds\":30,\"schedulerName\":\"default-scheduler\",\"containers"
	 "\":null},\"metadata\":{\"creationTimestamp\":null}}},\"metadata\":{\"creationTimestamp"
	 "\":null}},\"concurrencyPolicy\":\"Allow\",\"suspend\":false,\"successfulJobsHistoryLim"
	 "it\":3,\"failedJobsHistoryLimit\":1},\"status\":{}}"},
	{"statefulset with claim templates",
	 "{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\",\"metadata\":{\"name\":\"s\"},\"spec\":"
	 "{\"volumeClaimTemplates\":[{\"metadata\":{\"name\":\"data\"},\"spec\":{\"resources\":{"
	 "\"requests\":{\"storage\":\"1.0Gi\"}}}}]}}",
	 "{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\",\"metadata\":{\"name\":\"s\"},\"s"
	 "pec\":{\"volumeClaimTemplates\":[{\"metadata\":{\"name\":\"data\",\"creationTimestamp"
	 "\":null},\"spec\":{\"resources\":{\"requests\":{\"storage\":\"1Gi\"}},\"volumeMode\":"
	 "\"Filesystem\"},\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"status\":{"
	 "\"phase\":\"Pending\"}}],\"podManagementPolicy\":\"OrderedReady\",\"updateStrategy\":{"
	 "\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"partition\":0}},\"persistentVolumeClai"
	 "mRetentionPolicy\":{\"whenDeleted\":\"Retain\",\"whenScaled\":\"Retain\"},\"replicas\""
	 ":1,\"revisionHistoryLimit\":10,\"selector\":null,\"serviceName\":\"\",\"template\":{\""
	 "metadata\":{\"creationTimestamp\":null},\"spec\":{\"containers\":null}}},\"status\":{"
	 "\"availableReplicas\":0,\"replicas\":0}}"},
	{"daemonset",
	 "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":\"d\"},\"spec\":{}}",
	 "{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":\"d\",\"anno"
	 "tations\":{\"deprecated.daemonset.template.generation\":\"1\"}},\"spec\":{\"updateStra"
	 "tegy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxUnavailable\":1,\"maxSurge"
	 "\":0}},\"revisionHistoryLimit\":10,\"selector\":null,\"template\":{\"metadata\":{\"cre"
	 "ationTimestamp\":null},\"spec\":{\"containers\":null}}},\"status\":{\"currentNumberSch"
	 "eduled\":0,\"desiredNumberScheduled\":0,\"numberMisscheduled\":0,\"numberReady\":0}}"},
	{"secret, namespace, rolebinding",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\"}}",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\"},\"type\":\"Opaque\"}"},
	{"namespace",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team\"}}",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team\",\"labels"
	 "\":{\"kubernetes.io/metadata.name\":\"team\"}},\"spec\":{\"finalizers\":[\"kubernetes"
	 "\"]},\"status\":{\"phase\":\"Active\"}}"},
	{"rolebinding",
	 "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":{"
	 "\"name\":\"r\"},\"roleRef\":{\"kind\":\"Role\",\"name\":\"x\"},\"subjects\":[{\"kind\":"
	 "\"User\",\"name\":\"u\"},{\"kind\":\"ServiceAccount\",\"name\":\"sa\"}]}",
	 "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":{"
	 "\"name\":\"r\"},\"roleRef\":{\"kind\":\"Role\",\"name\":\"x\",\"apiGroup\":"
	 "\"rbac.authorization.k8s.io\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"u\","
	 "\"apiGroup\":\"rbac.authorization.k8s.io\"},{\"kind\":\"ServiceAccount\",\"name\":\"sa\"}]}"},
	{"limitrange",
	 "{\"apiVersion\":\"v1\",\"kind\":\"LimitRange\",\"metadata\":{\"name\":\"l\"},\"spec\":{"
	 "\"limits\":[{\"type\":\"Container\",\"max\":{\"cpu\":\"2\"},\"min\":{\"memory\":"
	 "\"0.5Gi\"}},{\"type\":\"Pod\",\"max\":{\"cpu\":\"4000m\"}}]}}",
	 "{\"apiVersion\":\"v1\",\"kind\":\"LimitRange\",\"metadata\":{\"name\":\"l\"},\"spec\":{"
	 "\"limits\":[{\"type\":\"Container\",\"max\":{\"cpu\":\"2\"},\"min\":{\"memory\":"
	 "\"512Mi\"},\"default\":{\"cpu\":\"2\"},\"defaultRequest\":{\"cpu\":\"2\",\"memory\":"
	 "\"512Mi\"}},{\"type\":\"Pod\",\"max\":{\"cpu\":\"4\"}}]}}"},
	{"hpa v2",
	 "{\"apiVersion\":\"autoscaling/v2\",\"kind\":\"HorizontalPodAutoscaler\",\"metadata\":{"
	 "\"name\":\"h\"},\"spec\":{\"maxReplicas\":5,\"behavior\":{\"scaleDown\":{"
	 "\"stabilizationWindowSeconds\":60}}}}",
	 "{\"apiVersion\":\"autoscaling/v2\",\"kind\":\"HorizontalPodAutoscaler\",\"metadata\":{"
	 "\"name\":\"h\"},\"spec\":{\"maxReplicas\":5,\"behavior\":{\"scaleDown\":{\"stabilizati"
	 "onWindowSeconds\":60,\"selectPolicy\":\"Max\",\"policies\":[{\"type\":\"Percent\",\"va"
	 "lue\":100,\"periodSeconds\":15}]},\"scaleUp\":{\"stabilizationWindowSeconds\":0,\"sele"
	 "ctPolicy\":\"Max\",\"policies\":[{\"type\":\"Pods\",\"value\":4,\"periodSeconds\":15},"
	 "{\"type\":\"Percent\",\"value\":100,\"periodSeconds\":15}]}},\"minReplicas\":1,\"metri"
	 "cs\":[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"target\":{\"type\":\"Uti"
	 "lization\",\"averageUtilization\":80}}}],\"scaleTargetRef\":{\"kind\":\"\",\"name\":\""
	 "\"}},\"status\":{\"currentMetrics\":null,\"desiredReplicas\":0}}"},
	{"resourcequota hard rounded",
	 "{\"apiVersion\":\"v1\",\"kind\":\"ResourceQuota\",\"metadata\":{\"name\":\"q\"},\"spec\":{"
	 "\"hard\":{\"requests.cpu\":\"0.0001\",\"pods\":\"10\"}}}",
	 "{\"apiVersion\":\"v1\",\"kind\":\"ResourceQuota\",\"metadata\":{\"name\":\"q\"},\"spec"
	 "\":{\"hard\":{\"requests.cpu\":\"1m\",\"pods\":\"10\"}},\"status\":{}}"},
	{"unknown fields are dropped, at any depth",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\","
	 "\"nmae\":\"x\"},\"type\":\"Opaque\",\"extra\":1}",
	 "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\"},"
	 "\"type\":\"Opaque\"}"},
	{"custom resources are stored as sent",
	 "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"},"
	 "\"spec\":{\"cpu\":0.5,\"replicas\":null}}",
	 "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"},"
	 "\"spec\":{\"cpu\":0.5,\"replicas\":null}}"},
};

static void test_cases(void)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);

	for (size_t i = 0; i < n; i++) {
		smp_doc *in = parse_json(cases[i].in), *want = parse_json(cases[i].want), *got = NULL;
		smp_error err;

		if (in && want) {
			if (smp_stored_form(&got, smp_doc_root(in, 0), NULL, &err) == 0) {
				const smp_value *g = smp_doc_root(got, 0);
				if (!smp_value_equal(g, smp_doc_root(want, 0))) {
					char *s = NULL;
					smp_print(&s, NULL, g, NULL, NULL);
					CHECK(0, "%s: got %s", cases[i].name, s ? s : "?");
					smp_free(s);
				}
			} else {
				CHECK(0, "%s: %s", cases[i].name, err.message);
			}
		}
		smp_doc_free(in);
		smp_doc_free(want);
		smp_doc_free(got);
	}
	printf("stored: %zu cases\n", n);
}

static void test_errors(void)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	const char *y = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
	                "spec:\n  template:\n    spec:\n      containers:\n      - name: web\n"
	                "        resources:\n          limits:\n            cpu: 1.5mi\n";
	smp_doc *doc = NULL, *out = (smp_doc *)&doc;
	smp_error err;
	int rc;

	po.format = SMP_FORMAT_YAML;
	if (smp_doc_parse(&doc, y, strlen(y), &po, &err)) {
		CHECK(0, "yaml: %s", err.message);
		return;
	}
	rc = smp_stored_form(&out, smp_doc_root(doc, 0), NULL, &err);
	CHECK(rc == SMP_EINVALOBJ && out == NULL, "bad quantity: rc %d", rc);
	CHECK(strcmp(err.path, "spec.template.spec.containers[name=web].resources.limits.cpu") == 0,
	      "path %s", err.path);
	CHECK(strcmp(err.message, "Deployment in version \"v1\" cannot be handled as a Deployment: "
	                          "unable to parse quantity's suffix") == 0,
	      "message %s", err.message);
	CHECK(err.line == 12 && err.column == 18, "position %u:%u", err.line, err.column);
	smp_doc_free(doc);

	/* Options and arguments. */
	{
		smp_stored_options o = SMP_STORED_OPTIONS_INIT;
		smp_doc *d = parse_json("{\"apiVersion\":\"v1\",\"kind\":\"Secret\"}");
		o.version = 99;
		CHECK(smp_stored_form(&out, smp_doc_root(d, 0), &o, NULL) == SMP_EINVAL, "version");
		CHECK(smp_stored_form(&out, NULL, NULL, NULL) == SMP_EINVAL, "NULL object");
		o.version = SMP_STORED_OPTIONS_VERSION;
		o.flags = SMP_STORED_NO_DEFAULTS;
		if (smp_stored_form(&out, smp_doc_root(d, 0), &o, NULL) == 0) {
			CHECK(smp_map_get(smp_doc_root(out, 0), "type") == NULL, "NO_DEFAULTS");
			smp_doc_free(out);
		}
		smp_doc_free(d);
	}
}

int main(void)
{
	test_cases();
	test_errors();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
