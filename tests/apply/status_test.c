/*
 * status_test.c - metav1.Status from errors, DeleteOptions for prunes and
 * the keyed changes between two objects: each output compared as JSON.
 */
#include "tutil.h"

#include <stdio.h>
#include <string.h>

/* Compares the single root of `got` with the JSON `want` (key order
 * included: these objects are printed as they are built). */
static void expect_json(smp_doc *got, const char *want, const char *what)
{
	char *s = NULL;

	if (!got) {
		CHECK(0, "%s: no result", what);
		return;
	}
	smp_print(&s, NULL, smp_doc_root(got, 0), NULL, NULL);
	CHECK(s && strcmp(s, want) == 0, "%s:\n got %s\nwant %s", what, s ? s : "?", want);
	smp_free(s);
}

static const char *deploy =
	"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
	"\"namespace\":\"prod\",\"uid\":\"u-1\",\"resourceVersion\":\"42\"}}";

static void test_status(void)
{
	static const struct {
		int code;
		const char *path, *msg, *want;
	} t[] = {
		{SMP_EINVALOBJ, "spec.replicas",
		 "deployment.apps/web: Deployment in version \"v1\" cannot be handled as a Deployment: "
		 "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of "
		 "type int32",
		 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
		 "\"message\":\"Deployment in version \\\"v1\\\" cannot be handled as a Deployment: "
		 "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of "
		 "type int32\",\"reason\":\"BadRequest\",\"code\":400}"},
		{SMP_EINVALOBJ, "metadata.labels",
		 "deployment.apps/web: metadata.labels: Invalid value: \"-x\": name part must consist "
		 "of alphanumeric characters",
		 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
		 "\"message\":\"Deployment.apps \\\"web\\\" is invalid: metadata.labels: Invalid value: "
		 "\\\"-x\\\": name part must consist of alphanumeric characters\",\"reason\":"
		 "\"Invalid\",\"details\":{\"name\":\"web\",\"group\":\"apps\",\"kind\":\"Deployment\","
		 "\"causes\":[{\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value: \\\"-x\\\": "
		 "name part must consist of alphanumeric characters\",\"field\":\"metadata.labels\"}]},"
		 "\"code\":422}"},
		{SMP_EINVALOBJ, "metadata.annotations",
		 "deployment.apps/web: The Deployment \"web\" is invalid: metadata.annotations: Too "
		 "long: must have at most 262144 bytes",
		 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
		 "\"message\":\"Deployment.apps \\\"web\\\" is invalid: metadata.annotations: Too long: "
		 "must have at most 262144 bytes\",\"reason\":\"Invalid\",\"details\":{\"name\":\"web\","
		 "\"group\":\"apps\",\"kind\":\"Deployment\",\"causes\":[{\"reason\":"
		 "\"FieldValueTooLong\",\"message\":\"Too long: must have at most 262144 bytes\","
		 "\"field\":\"metadata.annotations\"}]},\"code\":422}"},
		{SMP_ECONFLICT, "",
		 "deployment.apps/web: the patch conflicts with a change made to the live object",
		 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
		 "\"message\":\"Operation cannot be fulfilled on deployments.apps \\\"web\\\": the patch "
		 "conflicts with a change made to the live object\",\"reason\":\"Conflict\","
		 "\"details\":{\"name\":\"web\",\"group\":\"apps\",\"kind\":\"deployments\"},"
		 "\"code\":409}"},
		{SMP_ELIMIT, "", "nesting deeper than 1000",
		 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
		 "\"message\":\"Request entity too large: nesting deeper than 1000\",\"reason\":"
		 "\"RequestEntityTooLarge\",\"code\":413}"},
		{SMP_EINTERNAL, "", "boom",
		 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
		 "\"message\":\"Internal error occurred: boom\",\"reason\":\"InternalError\","
		 "\"details\":{\"causes\":[{\"message\":\"boom\"}]},\"code\":500}"},
		{SMP_EPATCH, "spec", "deployment.apps/web: unknown patch directive",
		 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
		 "\"message\":\"unknown patch directive\",\"reason\":\"BadRequest\",\"code\":400}"},
	};
	smp_doc *obj = parse_json(deploy);

	for (size_t i = 0; obj && i < sizeof(t) / sizeof(t[0]); i++) {
		smp_error e = {0}, err;
		smp_doc *st = NULL;
		e.code = t[i].code;
		snprintf(e.message, sizeof(e.message), "%s", t[i].msg);
		snprintf(e.path, sizeof(e.path), "%s", t[i].path);
		if (smp_status_from_error(&st, &e, smp_doc_root(obj, 0), &err) == 0)
			expect_json(st, t[i].want, t[i].msg);
		else
			CHECK(0, "status %zu: %s", i, err.message);
		smp_doc_free(st);
	}
	smp_doc_free(obj);
	CHECK(smp_status_from_error(NULL, NULL, NULL, NULL) == SMP_EINVAL, "NULL");
}

static void test_delete_options(void)
{
	smp_doc *obj = parse_json(deploy), *noid = parse_json("{\"kind\":\"ConfigMap\"}"), *d = NULL;
	smp_delete_options o = SMP_DELETE_OPTIONS_INIT;
	bool pre = false;

	if (!obj || !noid)
		return;
	if (smp_delete_options_build(&d, &pre, smp_doc_root(obj, 0), NULL, NULL) == 0)
		expect_json(d, "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"preconditions\":"
		               "{\"uid\":\"u-1\",\"resourceVersion\":\"42\"},\"propagationPolicy\":"
		               "\"Background\"}", "default");
	CHECK(pre, "preconditions");
	smp_doc_free(d);
	o.propagation = SMP_PROPAGATION_ORPHAN;
	o.grace_period_seconds = 0;
	if (smp_delete_options_build(&d, &pre, smp_doc_root(noid, 0), &o, NULL) == 0)
		expect_json(d, "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
		               "\"gracePeriodSeconds\":0,\"propagationPolicy\":\"Orphan\"}", "orphan");
	CHECK(!pre, "no uid, no preconditions");
	smp_doc_free(d);
	o.propagation = SMP_PROPAGATION_FOREGROUND;
	o.grace_period_seconds = 30;
	if (smp_delete_options_build(&d, NULL, smp_doc_root(obj, 0), &o, NULL) == 0)
		expect_json(d, "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
		               "\"gracePeriodSeconds\":30,\"preconditions\":{\"uid\":\"u-1\","
		               "\"resourceVersion\":\"42\"},\"propagationPolicy\":\"Foreground\"}",
		            "foreground");
	smp_doc_free(d);
	o.grace_period_seconds = -2;
	CHECK(smp_delete_options_build(&d, NULL, NULL, &o, NULL) == SMP_EINVAL, "bad grace");
	smp_doc_free(obj);
	smp_doc_free(noid);
}

static void test_changes(void)
{
	static const struct {
		const char *name, *before, *after, *want;
	} t[] = {
		{"keyed, by value, by index, map keys with dots",
		 "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"w\","
		 "\"labels\":{\"app.kubernetes.io/name\":\"w\"},\"finalizers\":[\"a\",\"b\"]},\"spec\":{"
		 "\"replicas\":2,\"template\":{\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":"
		 "\"nginx:1\",\"args\":[\"x\",\"y\"]},{\"name\":\"old\",\"image\":\"o\"}]}}}}",
		 "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"w\","
		 "\"labels\":{\"app.kubernetes.io/name\":\"web\"},\"finalizers\":[\"a\",\"c\"]},\"spec\":{"
		 "\"replicas\":3,\"template\":{\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":"
		 "\"nginx:2\",\"args\":[\"x\"]},{\"name\":\"new\",\"image\":\"n\"}]}}}}",
		 "[{\"path\":\"metadata.finalizers[=c]\",\"op\":\"add\",\"to\":\"c\"},"
		 "{\"path\":\"metadata.finalizers[=b]\",\"op\":\"remove\",\"from\":\"b\"},"
		 "{\"path\":\"metadata.labels[\\\"app.kubernetes.io/name\\\"]\",\"op\":\"replace\","
		 "\"from\":\"w\",\"to\":\"web\"},"
		 "{\"path\":\"spec.replicas\",\"op\":\"replace\",\"from\":2,\"to\":3},"
		 "{\"path\":\"spec.template.spec.containers[name=web].args[1]\",\"op\":\"remove\","
		 "\"from\":\"y\"},"
		 "{\"path\":\"spec.template.spec.containers[name=web].image\",\"op\":\"replace\","
		 "\"from\":\"nginx:1\",\"to\":\"nginx:2\"},"
		 "{\"path\":\"spec.template.spec.containers[name=new]\",\"op\":\"add\",\"to\":{"
		 "\"name\":\"new\",\"image\":\"n\"}},"
		 "{\"path\":\"spec.template.spec.containers[name=old]\",\"op\":\"remove\",\"from\":{"
		 "\"name\":\"old\",\"image\":\"o\"}}]"},
		{"nothing changed",
		 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"a\":\"1\"}}",
		 "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\"}}", "[]"},
		{"secret values masked",
		 "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":{\"a\":\"MQ==\",\"b\":\"Mg==\"}}",
		 "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":{\"a\":\"Mw==\"},\"type\":\"x\"}",
		 "[{\"path\":\"data.a\",\"op\":\"replace\",\"from\":\"***\",\"to\":\"***\"},"
		 "{\"path\":\"data.b\",\"op\":\"remove\",\"from\":\"***\"},"
		 "{\"path\":\"type\",\"op\":\"add\",\"to\":\"x\"}]"},
		{"a new object is one entry",
		 NULL, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":{\"a\":\"MQ==\"}}",
		 "[{\"path\":\"\",\"op\":\"add\",\"to\":{\"apiVersion\":\"v1\",\"kind\":\"Secret\","
		 "\"data\":{\"a\":\"***\"}}}]"},
		{"a removed object is one entry",
		 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}", NULL,
		 "[{\"path\":\"\",\"op\":\"remove\",\"from\":{\"apiVersion\":\"v1\",\"kind\":"
		 "\"ConfigMap\"}}]"},
		{"a type change replaces; ports keyed by containerPort",
		 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"name\":\"c\","
		 "\"ports\":[{\"containerPort\":80},{\"containerPort\":443}]}],\"x\":{\"a\":1}}}",
		 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"name\":\"c\","
		 "\"ports\":[{\"containerPort\":443,\"name\":\"https\"}]}],\"x\":[1]}}",
		 "[{\"path\":\"spec.containers[name=c].ports[containerPort=443].name\",\"op\":\"add\","
		 "\"to\":\"https\"},{\"path\":\"spec.containers[name=c].ports[containerPort=80]\","
		 "\"op\":\"remove\",\"from\":{\"containerPort\":80}},{\"path\":\"spec.x\",\"op\":"
		 "\"replace\",\"from\":{\"a\":1},\"to\":[1]}]"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smp_doc *b = t[i].before ? parse_json(t[i].before) : NULL;
		smp_doc *a = t[i].after ? parse_json(t[i].after) : NULL;
		smp_doc *out = NULL;
		smp_error err;
		if (smp_changes(&out, b ? smp_doc_root(b, 0) : NULL, a ? smp_doc_root(a, 0) : NULL,
		                NULL, &err) == 0)
			expect_json(out, t[i].want, t[i].name);
		else
			CHECK(0, "%s: %s", t[i].name, err.message);
		smp_doc_free(out);
		smp_doc_free(a);
		smp_doc_free(b);
	}
	{
		smp_changes_options o = SMP_CHANGES_OPTIONS_INIT;
		smp_doc *out = NULL;
		o.version = 7;
		CHECK(smp_changes(&out, NULL, NULL, &o, NULL) == SMP_EINVAL, "bad version");
	}
}

static void test_dupkeys(void)
{
	smp_doc *svc = parse_json(
		"{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"spec\":{\"ports\":["
		"{\"name\":\"dns\",\"port\":53,\"protocol\":\"UDP\"},{\"name\":\"dns-tcp\","
		"\"port\":53,\"protocol\":\"TCP\"},{\"port\":80}]}}");
	smp_doc *dep = parse_json(
		"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"template\":"
		"{\"spec\":{\"containers\":[{\"name\":\"a\",\"env\":[{\"name\":\"X\","
		"\"value\":\"1\"},{\"name\":\"X\",\"value\":\"2\"}]}]}}}}");
	smp_doc *out = NULL;

	if (svc && smp_duplicate_merge_keys(&out, smp_doc_root(svc, 0), NULL, NULL) == 0)
		expect_json(out,
		            "[\"spec.ports: items 0 and 1 have the same port 53 ({\\\"name\\\":"
		            "\\\"dns\\\",\\\"port\\\":53,\\\"protocol\\\":\\\"UDP\\\"} and "
		            "{\\\"name\\\":\\\"dns-tcp\\\",\\\"port\\\":53,\\\"protocol\\\":"
		            "\\\"TCP\\\"}): the strategic merge patch of client-side apply cannot "
		            "tell them apart and merges them into one on the next apply\"]",
		            "service ports");
	smp_doc_free(out);
	out = NULL;
	if (dep && smp_duplicate_merge_keys(&out, smp_doc_root(dep, 0), NULL, NULL) == 0) {
		const char *w = smp_value_string(smp_list_get(smp_doc_root(out, 0), 0), NULL);
		CHECK(smp_value_len(smp_doc_root(out, 0)) == 1 && w &&
		          strncmp(w, "spec.template.spec.containers[name=a].env: items 0 and 1 "
		                     "have the same name \"X\"", 74) == 0,
		      "env: %s", w ? w : "none");
	}
	smp_doc_free(out);
	smp_doc_free(svc);
	smp_doc_free(dep);
}

int main(void)
{
	test_dupkeys();
	test_status();
	test_delete_options();
	test_changes();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
