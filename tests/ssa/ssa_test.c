/*
 * ssa_test.c - unit tests of the server-side apply engine: field sets and
 * FieldsV1, path printing, the public apply/update API and its errors, and
 * duplicate keys in associative lists as SMD v4.4.2 (Kubernetes 1.32)
 * takes them (test_dup_*: what a real kube-apiserver v1.32.4 recorded), and
 * the order of merged associative lists as SMD v4.4.2 makes it
 * (test_order_*).
 * (Whole-object behaviour against the reference is covered by the golden
 * cases and the differential test over ssa_driver.)
 */
#include "ssa/ssa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

static smp_doc *parse(const char *text)
{
	smp_doc *d = NULL;
	smp_error err;

	if (smp_doc_parse(&d, text, strlen(text), NULL, &err)) {
		fprintf(stderr, "parse: %s\n", err.message);
		exit(1);
	}
	return d;
}

static char *to_json(const smp_value *v)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	char *s = NULL;

	po.sort_keys = true;
	if (smp_print(&s, NULL, v, &po, NULL))
		return NULL;
	return s;
}

/* FieldsV1 text -> set -> FieldsV1 text. */
static char *roundtrip(ssa_ctx *c, const char *fields, int *rc)
{
	smp_doc *d = parse(fields);
	ssa_set *s;
	smp_buf b;
	char msg[256];
	char *out;

	*rc = ssa_set_from_value(c, &s, smp_doc_root(d, 0), msg, sizeof(msg));
	smp_buf_init(&b);
	ssa_set_to_fieldsv1(&b, s);
	out = smp_buf_detach(&b, NULL);
	smp_doc_free(d);
	return out;
}

static void test_fieldsv1(void)
{
	static const char *const malformed[] = {
		"{\"f\":{}}", "{\"fa\":{}}", "{\"i:x\":{}}", "{\"k:[1]\":{}}", "{\"f:a\":[]}",
	};
	ssa_ctx c;
	int rc;
	char *s;

	ssa_ctx_init(&c, NULL, NULL);
	/* Order: members and children sorted by element; "." first. */
	s = roundtrip(&c, "{\"f:b\":{},\"f:a\":{\"f:y\":{},\".\":{},\"f:x\":{}},"
	                  "\"f:c\":{\"k:{\\\"port\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\":{},"
	                  "\"k:{\\\"port\\\":53,\\\"protocol\\\":\\\"UDP\\\"}\":{}}}", &rc);
	CHECK(rc == 0);
	CHECK(s && strcmp(s, "{\"f:a\":{\".\":{},\"f:x\":{},\"f:y\":{}},\"f:b\":{},\"f:c\":"
	                     "{\"k:{\\\"port\\\":53,\\\"protocol\\\":\\\"UDP\\\"}\":{},"
	                     "\"k:{\\\"port\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\":{}}}") == 0);
	free(s);
	/* Values and indices; HTML escaping inside keys, as jsoniter writes. */
	s = roundtrip(&c, "{\"f:fin\":{\"v:\\\"b<c\\\"\":{},\"v:\\\"a\\\"\":{}},\"f:l\":{\"i:10\":{},\"i:2\":{}}}", &rc);
	CHECK(rc == 0);
	CHECK(s && strcmp(s, "{\"f:fin\":{\"v:\\\"a\\\"\":{},\"v:\\\"b\\\\u003cc\\\"\":{}},"
	                     "\"f:l\":{\"i:2\":{},\"i:10\":{}}}") == 0);
	free(s);
	/* Unknown element types are dropped; malformed keys are errors. */
	s = roundtrip(&c, "{\"x:zz\":{},\"f:a\":{}}", &rc);
	CHECK(rc == 0 && s && strcmp(s, "{\"f:a\":{}}") == 0);
	free(s);
	for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		s = roundtrip(&c, malformed[i], &rc);
		CHECK(rc == SMP_EINVAL, "%s: rc %d", malformed[i], rc);
		free(s);
	}
	ssa_ctx_release(&c);
}

static ssa_set *set_of(ssa_ctx *c, const char *fields, smp_doc **keep)
{
	char msg[256];
	ssa_set *s = NULL;

	*keep = parse(fields);
	if (ssa_set_from_value(c, &s, smp_doc_root(*keep, 0), msg, sizeof(msg)))
		fprintf(stderr, "set_of: %s\n", msg);
	return s;
}

static int check_set(const ssa_set *s, const char *want)
{
	smp_buf b;
	int ok;

	smp_buf_init(&b);
	ssa_set_to_fieldsv1(&b, s);
	ok = b.ptr && strcmp(b.ptr, want) == 0;
	if (!ok)
		fprintf(stderr, "got  %s\nwant %s\n", b.ptr ? b.ptr : "(null)", want);
	smp_buf_release(&b);
	return ok;
}

static void test_set_ops(void)
{
	ssa_ctx c;
	smp_doc *d1, *d2;
	ssa_set *a, *b;

	ssa_ctx_init(&c, NULL, NULL);
	a = set_of(&c, "{\"f:a\":{\".\":{},\"f:x\":{}},\"f:b\":{},\"f:c\":{\"f:y\":{}}}", &d1);
	b = set_of(&c, "{\"f:a\":{},\"f:c\":{\"f:y\":{},\"f:z\":{}},\"f:d\":{}}", &d2);
	CHECK(check_set(ssa_set_union(&c, a, b),
	                "{\"f:a\":{\".\":{},\"f:x\":{}},\"f:b\":{},\"f:c\":{\"f:y\":{},\"f:z\":{}},\"f:d\":{}}"));
	CHECK(check_set(ssa_set_intersection(&c, a, b), "{\"f:a\":{},\"f:c\":{\"f:y\":{}}}"));
	/* SMD: a parent member in b does not remove a's children. */
	CHECK(check_set(ssa_set_difference(&c, a, b), "{\"f:a\":{\"f:x\":{}},\"f:b\":{}}"));
	CHECK(check_set(ssa_set_recursive_difference(&c, a, b), "{\"f:b\":{}}"));
	CHECK(ssa_set_empty(ssa_set_difference(&c, b, ssa_set_union(&c, a, b))));
	smp_doc_free(d1);
	smp_doc_free(d2);
	ssa_ctx_release(&c);
}

static void test_path_print(void)
{
	ssa_ctx c;
	smp_doc *d;
	ssa_set *s;
	smp_buf b;
	ssa_pe path[3];

	ssa_ctx_init(&c, NULL, NULL);
	s = set_of(&c, "{\"f:spec\":{\"f:ports\":{\"k:{\\\"port\\\":53,\\\"protocol\\\":\\\"UDP\\\"}\":"
	               "{\"f:targetPort\":{}}}}}", &d);
	CHECK(s && s->n == 1 && s->e[0].child && s->e[0].child->e[0].child);
	if (s && s->n == 1 && s->e[0].child && s->e[0].child->e[0].child) {
		path[0] = s->e[0].pe;
		path[1] = s->e[0].child->e[0].pe;
		path[2] = s->e[0].child->e[0].child->e[0].pe;
		smp_buf_init(&b);
		ssa_path_print(&b, path, 2);
		/* numbers read from FieldsV1 are floats: Go prints 53 either way */
		CHECK(b.ptr && strcmp(b.ptr, ".spec.ports") == 0);
		b.len = 0;
		ssa_pe_print(&b, &path[2]);
		b.ptr[b.len] = 0;
		CHECK(strcmp(b.ptr, "[port=53,protocol=\"UDP\"]") == 0);
		smp_buf_release(&b);
	}
	smp_doc_free(d);
	ssa_ctx_release(&c);
}

static const char *DEPLOY =
	"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},"
	"\"spec\":{\"replicas\":2,\"template\":{\"spec\":{\"containers\":[{\"name\":\"app\","
	"\"image\":\"nginx:1\",\"ports\":[{\"containerPort\":53,\"protocol\":\"UDP\"},"
	"{\"containerPort\":53}]}]}}}}";

static void test_apply_update(void)
{
	smp_doc *cfg = parse(DEPLOY), *edit, *cfg2;
	smp_ssa_options o = SMP_SSA_OPTIONS_INIT;
	smp_ssa_result *r1 = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL;
	const smp_ssa_conflict *cs;
	smp_error err;
	char *s;
	int rc;

	o.manager = "kubectl";
	o.now = "2024-01-01T00:00:00Z";
	rc = smp_ssa_apply(&r1, NULL, smp_doc_root(cfg, 0), &o, &err);
	CHECK(rc == 0 && r1 && smp_ssa_result_changed(r1));
	if (rc)
		return;
	s = to_json(smp_ssa_result_managed_fields(r1));
	CHECK(s && strstr(s, "\"manager\":\"kubectl\"") && strstr(s, "\"operation\":\"Apply\"") &&
	      strstr(s, "k:{\\\"containerPort\\\":53,\\\"protocol\\\":\\\"TCP\\\"}") &&
	      strstr(s, "k:{\\\"containerPort\\\":53,\\\"protocol\\\":\\\"UDP\\\"}") &&
	      strstr(s, "\"time\":\"2024-01-01T00:00:00Z\""));
	free(s);
	/* The same apply again: no change, the entry keeps its time. */
	o.now = "2024-01-01T00:00:05Z";
	rc = smp_ssa_apply(&r2, smp_ssa_result_object(r1), smp_doc_root(cfg, 0), &o, &err);
	CHECK(rc == 0 && !smp_ssa_result_changed(r2));
	s = to_json(smp_ssa_result_managed_fields(r2));
	CHECK(s && strstr(s, "2024-01-01T00:00:00Z") && !strstr(s, "00:00:05"));
	free(s);
	/* kubectl-edit changes replicas (an update)... */
	edit = parse("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},"
	             "\"spec\":{\"replicas\":5,\"template\":{\"spec\":{\"containers\":[{\"name\":\"app\","
	             "\"image\":\"nginx:1\",\"ports\":[{\"containerPort\":53,\"protocol\":\"UDP\"},"
	             "{\"containerPort\":53}]}]}}}}");
	o.manager = "kubectl-edit";
	rc = smp_ssa_update(&r3, smp_ssa_result_object(r2), smp_doc_root(edit, 0), &o, &err);
	CHECK(rc == 0 && smp_ssa_result_changed(r3));
	/* ...so kubectl applying replicas 3 conflicts with it. */
	cfg2 = parse("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},"
	             "\"spec\":{\"replicas\":3}}");
	o.manager = "kubectl";
	rc = smp_ssa_apply(&r4, smp_ssa_result_object(r3), smp_doc_root(cfg2, 0), &o, &err);
	CHECK(rc == SMP_ECONFLICT && r4);
	CHECK(smp_ssa_result_conflicts(r4, &cs) == 1 && strcmp(cs[0].manager, "kubectl-edit") == 0 &&
	      strcmp(cs[0].operation, "Update") == 0 && strcmp(cs[0].api_version, "apps/v1") == 0 &&
	      strcmp(cs[0].path, ".spec.replicas") == 0);
	CHECK(strcmp(smp_ssa_result_message(r4), "Apply failed with 1 conflict: conflict with "
	             "\"kubectl-edit\" using apps/v1: .spec.replicas") == 0);
	CHECK(strstr(err.message, "conflict with \"kubectl-edit\" using apps/v1") != NULL);
	CHECK(smp_ssa_result_object(r4) == NULL);
	smp_ssa_result_free(r4);
	r4 = NULL;
	/* With force the applier takes replicas; its other fields are pruned. */
	o.force = true;
	rc = smp_ssa_apply(&r4, smp_ssa_result_object(r3), smp_doc_root(cfg2, 0), &o, &err);
	CHECK(rc == 0);
	s = to_json(smp_ssa_result_object(r4));
	CHECK(s && strstr(s, "\"replicas\":3") && !strstr(s, "containers"));
	free(s);
	smp_ssa_result_free(r1);
	smp_ssa_result_free(r2);
	smp_ssa_result_free(r3);
	smp_ssa_result_free(r4);
	smp_doc_free(cfg);
	smp_doc_free(cfg2);
	smp_doc_free(edit);
}

/* Each rejected request: its code and the path it names. */
static void expect_error(const char *live, const char *config, const char *manager, bool apply,
                         int code, const char *path)
{
	smp_doc *l = live ? parse(live) : NULL, *c = parse(config);
	smp_ssa_options o = SMP_SSA_OPTIONS_INIT;
	smp_ssa_result *r = NULL;
	smp_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	o.manager = manager;
	o.now = "2024-01-01T00:00:00Z";
	rc = apply ? smp_ssa_apply(&r, l ? smp_doc_root(l, 0) : NULL, smp_doc_root(c, 0), &o, &err)
	           : smp_ssa_update(&r, l ? smp_doc_root(l, 0) : NULL, smp_doc_root(c, 0), &o, &err);
	if (rc != code || r != NULL || (path && strcmp(err.path, path) != 0)) {
		fprintf(stderr, "expect_error %s: rc %d (want %d), path '%s' (want '%s'): %s\n", config,
		        rc, code, err.path, path ? path : "", err.message);
		failures++;
	}
	smp_ssa_result_free(r);
	smp_doc_free(l);
	smp_doc_free(c);
}

static void test_errors(void)
{
	const char *cm = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}";

	expect_error(NULL, cm, NULL, true, SMP_EINVAL, NULL);
	expect_error(NULL, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\","
	             "\"managedFields\":[]}}", "m", true, SMP_EINVALOBJ, "metadata.managedFields");
	expect_error(NULL, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"x\"},"
	             "\"spec\":{\"replicas\":\"two\"}}", "m", true, SMP_EINVALOBJ, ".spec.replicas");
	expect_error(NULL, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"x\"},"
	             "\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"a\"}]}}}}",
	             "m", true, SMP_EINVALOBJ, ".spec.template.spec.containers");
	expect_error(NULL, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"x\"},"
	             "\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"image\":\"a\"}]}}}}",
	             "m", true, SMP_EINVALOBJ, ".spec.template.spec.containers");
	expect_error(NULL, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"},"
	             "\"bogus\":1}", "m", true, SMP_EINVALOBJ, ".bogus");
	expect_error(NULL, "{\"apiVersion\":\"v1\",\"kind\":\"Nope\"}", "m", true, SMP_ESCHEMA, NULL);
	expect_error(cm, "{\"apiVersion\":\"v2\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}",
	             "m", true, SMP_EPRECOND, "apiVersion");
	expect_error(cm, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"x\"}}",
	             "m", true, SMP_EPRECOND, "kind");
	expect_error("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\","
	             "\"managedFields\":[{\"manager\":\"a\",\"operation\":\"Bad\",\"apiVersion\":\"v1\","
	             "\"fieldsType\":\"FieldsV1\"}]}}", cm, "m", true, SMP_EINVALOBJ, "metadata.managedFields");
	expect_error(NULL, "[1]", "m", true, SMP_EINVAL, NULL);
	expect_error(NULL, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"a\":1}}", "m", false,
	             SMP_EINVALOBJ, ".data.a");
}

/* ---------------------------------------------------------------- duplicates
 * SMD v4.4.2 (Kubernetes 1.27 to 1.32): an update's object and a live
 * object may repeat a key of an associative list; the repeated element is
 * recorded alone (its path, nothing below it). An applied configuration
 * still may not. */

/* The Deployment kubectl create (client-side apply) POSTed to a real
 * kube-apiserver v1.32.4, as stored (defaulted): its container repeats
 * env MODE and PATH2 and port 80/TCP. ENV and PORTS replace the lists. */
static char *dup_deploy(const char *env, const char *ports)
{
	const char *fmt =
		"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
		"\"namespace\":\"default\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}},"
		"\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{"
		"\"name\":\"web\",\"image\":\"nginx:1\",\"imagePullPolicy\":\"IfNotPresent\","
		"\"resources\":{},\"terminationMessagePath\":\"/dev/termination-log\","
		"\"terminationMessagePolicy\":\"File\",\"env\":%s,\"ports\":%s}]}}}}";
	size_t n = strlen(fmt) + strlen(env) + strlen(ports) + 1;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, fmt, env, ports);
	return s;
}

static const char *DUP_ENV =
	"[{\"name\":\"MODE\",\"value\":\"a\"},{\"name\":\"MODE\",\"value\":\"b\"},"
	"{\"name\":\"PATH2\",\"value\":\"x\"},{\"name\":\"PATH2\",\"value\":\"$(PATH2):y\"}]";
static const char *DUP_PORTS =
	"[{\"containerPort\":80,\"protocol\":\"TCP\"},{\"containerPort\":80,\"protocol\":\"TCP\"},"
	"{\"containerPort\":53,\"protocol\":\"UDP\"},{\"containerPort\":53,\"protocol\":\"TCP\"}]";

/* The fieldsV1 of manager m's entry in a result (NULL: no entry). */
static const smp_value *fields_of(const smp_ssa_result *r, const char *m)
{
	const smp_value *mf = smp_ssa_result_managed_fields(r);

	for (size_t i = 0; mf && mf->type == SMP_LIST && i < mf->u.list.len; i++) {
		const smp_value *e = mf->u.list.items[i];
		const char *name = smp_value_string(smp_map_get(e, "manager"), NULL);

		if (name && strcmp(name, m) == 0)
			return smp_map_get(e, "fieldsV1");
	}
	return NULL;
}

/* The fieldsV1 below container web (f:spec.f:template.f:spec.f:containers). */
static const smp_value *web_fields(const smp_value *f)
{
	static const char *const path[] = {"f:spec", "f:template", "f:spec", "f:containers",
	                                   "k:{\"name\":\"web\"}"};

	for (size_t i = 0; f && i < sizeof(path) / sizeof(path[0]); i++)
		f = smp_map_get(f, path[i]);
	return f;
}

/* Container web of a Deployment (the first container). */
static const smp_value *web(const smp_value *d)
{
	static const char *const path[] = {"spec", "template", "spec", "containers"};

	for (size_t i = 0; d && i < sizeof(path) / sizeof(path[0]); i++)
		d = smp_map_get(d, path[i]);
	return smp_list_get(d, 0);
}

/* Whether v equals the JSON text want (printed both on failure). */
static bool equals_json(const smp_value *v, const char *want)
{
	smp_doc *d = parse(want);
	bool ok = v && smp_value_equal(v, smp_doc_root(d, 0));

	if (!ok) {
		char *g = v ? to_json(v) : NULL, *w = to_json(smp_doc_root(d, 0));

		fprintf(stderr, "got  %s\nwant %s\n", g ? g : "(none)", w ? w : "?");
		free(g);
		free(w);
	}
	smp_doc_free(d);
	return ok;
}

/* kube-apiserver v1.32.4's managedFields for the container of dup_deploy
 * (DUP_ENV, DUP_PORTS) on its create by kubectl-client-side-apply. */
static const char *WEB_FIELDS_1_32 =
	"{\".\":{},\"f:env\":{\".\":{},\"k:{\\\"name\\\":\\\"MODE\\\"}\":{},"
	"\"k:{\\\"name\\\":\\\"PATH2\\\"}\":{}},\"f:image\":{},\"f:imagePullPolicy\":{},"
	"\"f:name\":{},\"f:ports\":{\".\":{},"
	"\"k:{\\\"containerPort\\\":53,\\\"protocol\\\":\\\"TCP\\\"}\":{\".\":{},"
	"\"f:containerPort\":{},\"f:protocol\":{}},"
	"\"k:{\\\"containerPort\\\":53,\\\"protocol\\\":\\\"UDP\\\"}\":{\".\":{},"
	"\"f:containerPort\":{},\"f:protocol\":{}},"
	"\"k:{\\\"containerPort\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\":{}},\"f:resources\":{},"
	"\"f:terminationMessagePath\":{},\"f:terminationMessagePolicy\":{}}";

/* A create (an update of nothing, or of the kind's zero value) keeps the
 * repeated items and records them as the real server does. */
static void test_dup_create(void)
{
	char *text = dup_deploy(DUP_ENV, DUP_PORTS);
	smp_doc *obj = parse(text), *zero = parse("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"}");
	smp_ssa_options o = SMP_SSA_OPTIONS_INIT;
	smp_error err;

	o.manager = "kubectl-client-side-apply";
	o.now = "2025-05-01T10:00:00Z";
	for (int k = 0; k < 2; k++) {
		smp_ssa_result *r = NULL;
		const smp_value *f, *got;
		int rc;

		rc = smp_ssa_update(&r, k ? smp_doc_root(zero, 0) : NULL, smp_doc_root(obj, 0), &o, &err);
		CHECK(rc == 0 && r, "create with duplicates (live %s): rc %d: %s", k ? "zero" : "NULL",
		      rc, rc ? err.message : "");
		if (rc) {
			smp_ssa_result_free(r);
			continue;
		}
		CHECK(smp_ssa_result_changed(r));
		/* stored as sent: every repeated item kept, in order */
		got = smp_ssa_result_object(r);
		CHECK(web(got) && smp_value_equal(web(got), web(smp_doc_root(obj, 0))));
		f = fields_of(r, "kubectl-client-side-apply");
		CHECK(f != NULL);
		CHECK(equals_json(web_fields(f), WEB_FIELDS_1_32));
		smp_ssa_result_free(r);
	}
	smp_doc_free(obj);
	smp_doc_free(zero);
	free(text);
}

/* The compare sets as FieldsV1 below container web's env: `want` is the
 * env's text, "" for an empty set. */
static bool env_set_is(const ssa_set *s, const char *want)
{
	char buf[1024];

	if (!*want) {
		if (!ssa_set_empty(s))
			check_set(s, "(empty)");
		return ssa_set_empty(s);
	}
	snprintf(buf, sizeof(buf), "{\"f:spec\":{\"f:template\":{\"f:spec\":{\"f:containers\":"
	                           "{\"k:{\\\"name\\\":\\\"web\\\"}\":{\"f:env\":%s}}}}}}", want);
	return check_set(s, buf);
}

/* ssa_compare of two Deployments that differ in env only (both typed with
 * duplicates allowed): the removed, modified and added sets. */
static void check_env_compare(const char *before, const char *after, const char *removed,
                              const char *modified, const char *added)
{
	char *lt = dup_deploy(before, DUP_PORTS), *rt = dup_deploy(after, DUP_PORTS);
	smp_doc *l = parse(lt), *r = parse(rt);
	const smp_gvk_entry *ge = smp_schema_find_kind(smp_schema_builtin(), "apps/v1", "Deployment", true);
	ssa_ctx c;
	ssa_type *t = NULL;
	ssa_cmp cmp;

	ssa_ctx_init(&c, NULL, NULL);
	CHECK(ge && (t = ssa_type_root(&c, smp_schema_builtin(), ge->type)));
	if (ge && t) {
		CHECK(ssa_validate(&c, smp_doc_root(l, 0), t, "live", true) == 0);
		CHECK(ssa_validate(&c, smp_doc_root(r, 0), t, "new", true) == 0);
		/* without AllowDuplicates they are still errors */
		CHECK(strcmp(before, DUP_ENV) != 0 ||
		      ssa_validate(&c, smp_doc_root(l, 0), t, "live", false) == SMP_EINVALOBJ);
		c.rc = 0;
		CHECK(ssa_compare(&c, &cmp, smp_doc_root(l, 0), smp_doc_root(r, 0), t) == 0);
		CHECK(env_set_is(cmp.removed, removed), "removed: %s -> %s", before, after);
		CHECK(env_set_is(cmp.modified, modified), "modified: %s -> %s", before, after);
		CHECK(env_set_is(cmp.added, added), "added: %s -> %s", before, after);
	}
	ssa_ctx_release(&c);
	smp_doc_free(l);
	smp_doc_free(r);
	free(lt);
	free(rt);
}

/* SMD v4.4.2's ToFieldSet of repeated elements (typed/tofieldset.go):
 * the element alone, the others as usual. */
static void test_dup_to_set(void)
{
	char *text = dup_deploy(DUP_ENV, DUP_PORTS);
	smp_doc *d = parse(text);
	const smp_gvk_entry *ge = smp_schema_find_kind(smp_schema_builtin(), "apps/v1", "Deployment", true);
	ssa_ctx c;
	ssa_type *t = NULL;
	ssa_set *s = NULL;
	smp_value *v;

	ssa_ctx_init(&c, NULL, NULL);
	CHECK(ge && (t = ssa_type_root(&c, smp_schema_builtin(), ge->type)));
	if (ge && t) {
		CHECK(ssa_to_set(&c, &s, smp_doc_root(d, 0), t, false) == 0);
		v = ssa_set_to_value(&c, &c.arena, s);
		/* ToFieldSet has no "." entries of its own: lists are no members */
		CHECK(equals_json(smp_map_get(web_fields(v), "f:env"),
		                  "{\"k:{\\\"name\\\":\\\"MODE\\\"}\":{},\"k:{\\\"name\\\":\\\"PATH2\\\"}\":{}}"));
		CHECK(equals_json(smp_map_get(smp_map_get(web_fields(v), "f:ports"),
		                              "k:{\"containerPort\":80,\"protocol\":\"TCP\"}"), "{}"));
		CHECK(equals_json(smp_map_get(smp_map_get(web_fields(v), "f:ports"),
		                              "k:{\"containerPort\":53,\"protocol\":\"UDP\"}"),
		                  "{\".\":{},\"f:containerPort\":{},\"f:protocol\":{}}"));
	}
	ssa_ctx_release(&c);
	smp_doc_free(d);
	free(text);
}

/* SMD v4.4.2's Compare of repeated elements (typed/compare.go). */
static void test_dup_compare(void)
{
	const char *mode = "{\"k:{\\\"name\\\":\\\"MODE\\\"}\":{}}";
	const char *mode_fields =
		"{\"k:{\\\"name\\\":\\\"MODE\\\"}\":{\".\":{},\"f:name\":{},\"f:value\":{}}}";
	const char *path2 = "{\"name\":\"PATH2\",\"value\":\"x\"},"
	                    "{\"name\":\"PATH2\",\"value\":\"$(PATH2):y\"}";
	char a[512], b[512];

	/* repeated before and after, the same items: nothing changed */
	check_env_compare(DUP_ENV, DUP_ENV, "", "", "");
	/* repeated on both sides, the items differ (a value, the order, the
	 * count): the element is modified, nothing below it */
	snprintf(a, sizeof(a), "[{\"name\":\"MODE\",\"value\":\"a\"},{\"name\":\"MODE\",\"value\":\"c\"},%s]", path2);
	check_env_compare(DUP_ENV, a, "", mode, "");
	snprintf(a, sizeof(a), "[{\"name\":\"MODE\",\"value\":\"b\"},{\"name\":\"MODE\",\"value\":\"a\"},%s]", path2);
	check_env_compare(DUP_ENV, a, "", mode, "");
	snprintf(a, sizeof(a), "[{\"name\":\"MODE\",\"value\":\"a\"},{\"name\":\"MODE\",\"value\":\"b\"},"
	                       "{\"name\":\"MODE\",\"value\":\"b\"},%s]", path2);
	check_env_compare(DUP_ENV, a, "", mode, "");
	/* no longer repeated: the element is removed and the one new item's
	 * fields added (its path too) */
	snprintf(a, sizeof(a), "[{\"name\":\"MODE\",\"value\":\"b\"},%s]", path2);
	check_env_compare(DUP_ENV, a, mode, "", mode_fields);
	/* gone altogether: the element removed */
	snprintf(a, sizeof(a), "[%s]", path2);
	check_env_compare(DUP_ENV, a, mode, "", "");
	/* newly repeated: the one old item removed, the element added */
	snprintf(b, sizeof(b), "[{\"name\":\"MODE\",\"value\":\"a\"},%s]", path2);
	check_env_compare(b, DUP_ENV, mode_fields, "", mode);
	/* repeated where there was none: the element added */
	check_env_compare(a, DUP_ENV, "", "", mode);
}

/* One smp_ssa_update or smp_ssa_apply (manager m, force) of `config` onto
 * `live`: the result, or NULL with the failure in *err. */
static smp_ssa_result *ssa_call(const smp_value *live, const char *config, const char *m,
                                bool apply, bool force, int *rc, smp_error *err)
{
	smp_doc *d = parse(config);
	smp_ssa_options o = SMP_SSA_OPTIONS_INIT;
	smp_ssa_result *r = NULL;

	o.manager = m;
	o.now = "2025-05-01T10:00:00Z";
	o.force = force;
	*rc = apply ? smp_ssa_apply(&r, live, smp_doc_root(d, 0), &o, err)
	            : smp_ssa_update(&r, live, smp_doc_root(d, 0), &o, err);
	smp_doc_free(d);
	if (*rc && r) {
		smp_ssa_result_free(r);
		r = NULL;
	}
	return r;
}

/* kubectl-edit updates the object of r0 (created by
 * kubectl-client-side-apply) to one whose env list is env: the update
 * changes the object, the writer's fields of the web container are then
 * editor and the creator's fields of its env list creator. */
static void check_env_edit(const smp_ssa_result *r0, const char *env, const char *editor,
                           const char *creator)
{
	char *edited = dup_deploy(env, DUP_PORTS);
	smp_ssa_result *r;
	smp_error err;
	int rc;

	r = ssa_call(smp_ssa_result_object(r0), edited, "kubectl-edit", false, false, &rc, &err);
	CHECK(r && smp_ssa_result_changed(r));
	if (r) {
		CHECK(equals_json(web_fields(fields_of(r, "kubectl-edit")), editor));
		CHECK(equals_json(smp_map_get(web_fields(fields_of(r, "kubectl-client-side-apply")), "f:env"),
		                  creator));
	}
	smp_ssa_result_free(r);
	free(edited);
}

/* Updates of an object that repeats items: the writer gets what it
 * changed, as the element's path where it stays repeated; the others lose
 * it. */
static void test_dup_updates(void)
{
	char *created = dup_deploy(DUP_ENV, DUP_PORTS);
	smp_ssa_result *r0, *r;
	smp_error err;
	int rc;

	r0 = ssa_call(NULL, created, "kubectl-client-side-apply", false, false, &rc, &err);
	CHECK(r0 != NULL, "create: %s", err.message);
	if (!r0) {
		free(created);
		return;
	}
	/* the same object again: no change, no entry for the writer */
	r = ssa_call(smp_ssa_result_object(r0), created, "kubectl-edit", false, false, &rc, &err);
	CHECK(r && !smp_ssa_result_changed(r) && !fields_of(r, "kubectl-edit"));
	smp_ssa_result_free(r);
	/* one of the two MODE items changed: the writer owns the element,
	 * nothing below it; the creator no longer does */
	check_env_edit(r0, "[{\"name\":\"MODE\",\"value\":\"a\"},{\"name\":\"MODE\",\"value\":\"z\"},"
	                   "{\"name\":\"PATH2\",\"value\":\"x\"},{\"name\":\"PATH2\",\"value\":\"$(PATH2):y\"}]",
	               "{\"f:env\":{\"k:{\\\"name\\\":\\\"MODE\\\"}\":{}}}",
	               "{\".\":{},\"k:{\\\"name\\\":\\\"PATH2\\\"}\":{}}");
	/* MODE no longer repeated: the writer owns the item and its fields */
	check_env_edit(r0, "[{\"name\":\"MODE\",\"value\":\"b\"},"
	                   "{\"name\":\"PATH2\",\"value\":\"x\"},{\"name\":\"PATH2\",\"value\":\"$(PATH2):y\"}]",
	               "{\"f:env\":{\"k:{\\\"name\\\":\\\"MODE\\\"}\":{\".\":{},\"f:name\":{},"
	               "\"f:value\":{}}}}",
	               "{\".\":{},\"k:{\\\"name\\\":\\\"PATH2\\\"}\":{}}");
	/* a set that repeats a value (metadata.finalizers) */
	r = ssa_call(NULL, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\","
	             "\"finalizers\":[\"a\",\"a\",\"b\"]}}", "m", false, false, &rc, &err);
	CHECK(r && equals_json(smp_map_get(fields_of(r, "m"), "f:metadata"),
	                       "{\"f:finalizers\":{\".\":{},\"v:\\\"a\\\"\":{},\"v:\\\"b\\\"\":{}}}"));
	smp_ssa_result_free(r);
	smp_ssa_result_free(r0);
	free(created);
}

/* Applies: a configuration that repeats a key is still refused; a live
 * object that does is merged (the configuration's item replaces the
 * repeated ones) and pruned (repeated items go or stay together). */
static void test_dup_applies(void)
{
	char *created = dup_deploy(DUP_ENV, DUP_PORTS);
	const char *cfg_head =
		"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
		"\"namespace\":\"default\"},\"spec\":{\"template\":{\"spec\":{\"containers\":[{"
		"\"name\":\"web\"";
	char cfg[1024];
	smp_ssa_result *r0, *r, *r2;
	smp_error err;
	int rc;

	snprintf(cfg, sizeof(cfg), "%s,\"env\":%s}]}}}}", cfg_head, DUP_ENV);
	r = ssa_call(NULL, cfg, "kubectl", true, false, &rc, &err);
	CHECK(!r && rc == SMP_EINVALOBJ && strstr(err.message, "failed to create typed patch object") &&
	      strstr(err.message, "duplicate entries for key [name=\"MODE\"]") &&
	      strcmp(err.path, ".spec.template.spec.containers[name=\"web\"].env") == 0,
	      "apply with duplicates: rc %d: %s", rc, err.message);
	r0 = ssa_call(NULL, created, "kubectl-client-side-apply", false, false, &rc, &err);
	CHECK(r0 != NULL, "create: %s", err.message);
	if (!r0) {
		free(created);
		return;
	}
	/* MODE once: it takes the place of the repeated items, which the
	 * creator owns (a conflict unless forced) */
	snprintf(cfg, sizeof(cfg), "%s,\"env\":[{\"name\":\"MODE\",\"value\":\"c\"}]}]}}}}", cfg_head);
	r = ssa_call(smp_ssa_result_object(r0), cfg, "kubectl", true, false, &rc, &err);
	CHECK(!r && rc == SMP_ECONFLICT && strstr(err.message, ".env[name=\"MODE\"]"),
	      "apply onto duplicates: rc %d: %s", rc, err.message);
	r = ssa_call(smp_ssa_result_object(r0), cfg, "kubectl", true, true, &rc, &err);
	CHECK(r != NULL, "forced apply onto duplicates: %s", err.message);
	if (r) {
		const smp_value *w = web(smp_ssa_result_object(r));

		CHECK(equals_json(smp_map_get(w, "env"),
		                  "[{\"name\":\"MODE\",\"value\":\"c\"},{\"name\":\"PATH2\",\"value\":\"x\"},"
		                  "{\"name\":\"PATH2\",\"value\":\"$(PATH2):y\"}]"));
		CHECK(equals_json(smp_map_get(w, "ports"), DUP_PORTS));
		CHECK(equals_json(smp_map_get(web_fields(fields_of(r, "kubectl-client-side-apply")), "f:env"),
		                  "{\".\":{},\"k:{\\\"name\\\":\\\"PATH2\\\"}\":{}}"));
		/* kubectl no longer applies env: MODE (its own) goes, the
		 * repeated PATH2 items (the creator's) stay, both of them */
		snprintf(cfg, sizeof(cfg), "%s,\"image\":\"nginx:1\"}]}}}}", cfg_head);
		r2 = ssa_call(smp_ssa_result_object(r), cfg, "kubectl", true, false, &rc, &err);
		CHECK(r2 != NULL, "prune next to duplicates: %s", err.message);
		if (r2)
			CHECK(equals_json(smp_map_get(web(smp_ssa_result_object(r2)), "env"),
			                  "[{\"name\":\"PATH2\",\"value\":\"x\"},"
			                  "{\"name\":\"PATH2\",\"value\":\"$(PATH2):y\"}]"));
		smp_ssa_result_free(r2);
	}
	smp_ssa_result_free(r);
	smp_ssa_result_free(r0);
	free(created);
}

/* Prune below a repeated element: the applier's last set has fields of the
 * repeated PATH2 items (managedFields as sent), another manager owns the
 * element. SMD's field sets of the merged object stop at the element, so
 * the items stay whole (nothing below them goes). */
static void test_dup_prune(void)
{
	const char *web_key = "\"k:{\\\"name\\\":\\\"web\\\"}\"";
	const char *path2_key = "\"k:{\\\"name\\\":\\\"PATH2\\\"}\"";
	const char *env = "[{\"name\":\"PATH2\",\"value\":\"x\"},{\"name\":\"PATH2\",\"value\":\"$(PATH2):y\"}]";
	char live[4096], cfg[512];
	smp_doc *l;
	smp_ssa_result *r;
	smp_error err;
	int rc;

	snprintf(live, sizeof(live),
	         "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
	         "\"namespace\":\"default\",\"managedFields\":["
	         "{\"manager\":\"kubectl\",\"operation\":\"Apply\",\"apiVersion\":\"apps/v1\","
	         "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:template\":{\"f:spec\":{"
	         "\"f:containers\":{%s:{\".\":{},\"f:name\":{},\"f:env\":{%s:{\".\":{},\"f:name\":{},"
	         "\"f:value\":{}}}}}}}}}},"
	         "{\"manager\":\"editor\",\"operation\":\"Update\",\"apiVersion\":\"apps/v1\","
	         "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:template\":{\"f:spec\":{"
	         "\"f:containers\":{%s:{\"f:env\":{%s:{}}}}}}}}}]},"
	         "\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"web\",\"env\":%s}]}}}}",
	         web_key, path2_key, web_key, path2_key, env);
	l = parse(live);
	snprintf(cfg, sizeof(cfg),
	         "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
	         "\"namespace\":\"default\"},\"spec\":{\"template\":{\"spec\":{\"containers\":["
	         "{\"name\":\"web\"}]}}}}");
	r = ssa_call(smp_doc_root(l, 0), cfg, "kubectl", true, false, &rc, &err);
	CHECK(r != NULL, "apply: %s", err.message);
	if (r)
		CHECK(equals_json(smp_map_get(web(smp_ssa_result_object(r)), "env"), env));
	smp_ssa_result_free(r);
	smp_doc_free(l);
}

/* ---- the order of merged associative lists: SMD v4.4.2's ----
 * Every expected order below is what SMD v4.4.2's TypedValue.Merge (live
 * typed with AllowDuplicates, as the server types it) gives for the same
 * lists; the first is what a real kube-apiserver v1.32.4 stored. */

/* The value at path in v: map keys, "#N" for list item N. */
static const smp_value *at(const smp_value *v, const char *const *path)
{
	for (; v && *path; path++)
		v = (*path)[0] == '#' ? smp_list_get(v, (size_t)atoi(*path + 1)) : smp_map_get(v, *path);
	return v;
}

/* The time of manager m's Apply entry in a result (NULL: none). */
static const char *apply_time(const smp_ssa_result *r, const char *m)
{
	const smp_value *mf = smp_ssa_result_managed_fields(r);

	for (size_t i = 0; mf && mf->type == SMP_LIST && i < mf->u.list.len; i++) {
		const smp_value *e = mf->u.list.items[i];
		const char *name = smp_value_string(smp_map_get(e, "manager"), NULL);
		const char *op = smp_value_string(smp_map_get(e, "operation"), NULL);

		if (name && op && strcmp(name, m) == 0 && strcmp(op, "Apply") == 0)
			return smp_value_string(smp_map_get(e, "time"), NULL);
	}
	return NULL;
}

/* Applies config onto live (JSON texts) as manager m, forced; the list at
 * path must then be want. Returns whether the object changed (-1: failed). */
static int apply_list(const char *live, const char *config, const char *m,
                      const char *const *path, const char *want)
{
	smp_doc *l = parse(live);
	smp_ssa_result *r;
	smp_error err;
	int rc, changed = -1;

	r = ssa_call(smp_doc_root(l, 0), config, m, true, true, &rc, &err);
	CHECK(r != NULL, "apply: %s", err.message);
	if (r) {
		CHECK(equals_json(at(smp_ssa_result_object(r), path), want), "%s", config);
		changed = smp_ssa_result_changed(r);
	}
	smp_ssa_result_free(r);
	smp_doc_free(l);
	return changed;
}

#define SVC_HEAD "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"web\",\"namespace\":\"default\""
#define PORT_HTTP "{\"name\":\"http\",\"port\":80,\"targetPort\":\"http\",\"protocol\":\"TCP\"}"
#define PORT_HTTPS "{\"name\":\"https\",\"port\":443,\"targetPort\":8443,\"protocol\":\"TCP\"}"
#define PORT_METRICS "{\"name\":\"metrics\",\"port\":9090,\"targetPort\":9090,\"protocol\":\"TCP\"}"
#define PORT_FIELDS "{\".\":{},\"f:name\":{},\"f:port\":{},\"f:protocol\":{},\"f:targetPort\":{}}"
#define K_80 "\"k:{\\\"port\\\":80,\\\"protocol\\\":\\\"TCP\\\"}\""
#define K_443 "\"k:{\\\"port\\\":443,\\\"protocol\\\":\\\"TCP\\\"}\""
#define K_9090 "\"k:{\\\"port\\\":9090,\\\"protocol\\\":\\\"TCP\\\"}\""

/* What a real kube-apiserver v1.32.4 did: argocd, which applied ports 80
 * and 443, applies them as [443, 80]; the server stored [443, 80] (v4.1.2
 * kept [80, 443]). The reorder alone changes the object: argocd's entry
 * gets the request's time. A port another manager added stays where it
 * is among the live items. */
static void test_order_service(void)
{
	static const char *const ports[] = {"spec", "ports", NULL};
	const char *cfg = SVC_HEAD "},\"spec\":{\"ports\":[" PORT_HTTPS "," PORT_HTTP "]}}";
	char live[2048];
	smp_doc *l;
	smp_ssa_result *r;
	smp_error err;
	int rc;

	snprintf(live, sizeof(live),
	         SVC_HEAD ",\"managedFields\":[{\"manager\":\"argocd\",\"operation\":\"Apply\","
	         "\"apiVersion\":\"v1\",\"time\":\"2025-04-01T00:00:00Z\",\"fieldsType\":\"FieldsV1\","
	         "\"fieldsV1\":{\"f:spec\":{\"f:ports\":{%s:%s,%s:%s}}}}]},"
	         "\"spec\":{\"ports\":[" PORT_HTTP "," PORT_HTTPS "]}}",
	         K_443, PORT_FIELDS, K_80, PORT_FIELDS);
	l = parse(live);
	r = ssa_call(smp_doc_root(l, 0), cfg, "argocd", true, false, &rc, &err);
	CHECK(r != NULL, "argocd's apply: %s", err.message);
	if (r) {
		const char *t = apply_time(r, "argocd");

		CHECK(equals_json(at(smp_ssa_result_object(r), ports), "[" PORT_HTTPS "," PORT_HTTP "]"));
		CHECK(smp_ssa_result_changed(r));
		CHECK(t && strcmp(t, "2025-05-01T10:00:00Z") == 0, "argocd's time %s", t ? t : "(none)");
	}
	smp_ssa_result_free(r);
	smp_doc_free(l);
	/* metrics, a monitoring operator's, between or after argocd's ports */
	snprintf(live, sizeof(live),
	         SVC_HEAD ",\"managedFields\":[{\"manager\":\"argocd\",\"operation\":\"Apply\","
	         "\"apiVersion\":\"v1\",\"time\":\"2025-04-01T00:00:00Z\",\"fieldsType\":\"FieldsV1\","
	         "\"fieldsV1\":{\"f:spec\":{\"f:ports\":{%s:%s,%s:%s}}}},"
	         "{\"manager\":\"prometheus-operator\",\"operation\":\"Update\",\"apiVersion\":\"v1\","
	         "\"time\":\"2025-04-02T00:00:00Z\",\"fieldsType\":\"FieldsV1\","
	         "\"fieldsV1\":{\"f:spec\":{\"f:ports\":{%s:%s}}}}]},"
	         "\"spec\":{\"ports\":[" PORT_HTTP "," PORT_METRICS "," PORT_HTTPS "]}}",
	         K_443, PORT_FIELDS, K_80, PORT_FIELDS, K_9090, PORT_FIELDS);
	CHECK(apply_list(live, cfg, "argocd", ports,
	                 "[" PORT_METRICS "," PORT_HTTPS "," PORT_HTTP "]") == 1);
	snprintf(live, sizeof(live),
	         SVC_HEAD "},\"spec\":{\"ports\":[" PORT_HTTP "," PORT_HTTPS "," PORT_METRICS "]}}");
	CHECK(apply_list(live, cfg, "argocd", ports,
	                 "[" PORT_HTTPS "," PORT_METRICS "," PORT_HTTP "]") == 1);
	/* the live order applied again: nothing changes */
	CHECK(apply_list(live, SVC_HEAD "},\"spec\":{\"ports\":[" PORT_HTTP "," PORT_HTTPS "]}}",
	                 "argocd", ports, "[" PORT_HTTP "," PORT_HTTPS "," PORT_METRICS "]") == 0);
}

#define DEPLOY_HEAD "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"," \
	"\"namespace\":\"default\"},\"spec\":{\"template\":{\"spec\":{\"containers\":"

/* A Deployment whose one container "app" has env ENV (JSON text). */
static void deploy_env(char *buf, size_t size, const char *env, bool image)
{
	snprintf(buf, size, DEPLOY_HEAD "[{\"name\":\"app\"%s,\"env\":%s}]}}}}",
	         image ? ",\"image\":\"a\"" : "", env);
}

#define E(n, v) "{\"name\":\"" n "\",\"value\":\"" v "\"}"

/* Shared items in another order than live, new items between them, items
 * only live has, and keys live repeats (SMD v4.4.2 allows those there; the
 * configuration's item replaces the repeated ones where it names the key). */
static void test_order_items(void)
{
	static const char *const env[] = {"spec", "template", "spec", "containers", "#0", "env", NULL};
	static const char *const ctrs[] = {"spec", "template", "spec", "containers", NULL};
	static const char *const fin[] = {"metadata", "finalizers", NULL};
	static const struct {
		const char *live, *config, *want;
	} cases[] = {
		/* shared items in the configuration's order, B (live only) first */
		{"[" E("A", "1") "," E("B", "2") "," E("C", "3") "]", "[" E("C", "3") "," E("A", "1") "]",
		 "[" E("B", "2") "," E("C", "3") "," E("A", "1") "]"},
		/* new items where the configuration puts them */
		{"[" E("A", "1") "," E("B", "2") "," E("C", "3") "]",
		 "[" E("A", "1") "," E("N1", "n") "," E("C", "3") "," E("N2", "m") "]",
		 "[" E("A", "1") "," E("B", "2") "," E("N1", "n") "," E("C", "3") "," E("N2", "m") "]"},
		{"[" E("A", "1") "," E("B", "2") "," E("C", "3") "]", "[" E("N0", "0") "," E("B", "2") "]",
		 "[" E("A", "1") "," E("N0", "0") "," E("B", "2") "," E("C", "3") "]"},
		/* live repeats MODE */
		{"[" E("MODE", "1") "," E("B", "2") "," E("MODE", "2") "]", "[" E("B", "b") "," E("MODE", "3") "]",
		 "[" E("B", "b") "," E("MODE", "3") "]"},
		{"[" E("MODE", "1") "," E("X", "x") "," E("MODE", "2") "]", "[" E("MODE", "3") "," E("N", "n") "]",
		 "[" E("MODE", "3") "," E("X", "x") "," E("N", "n") "]"},
	};
	char live[1024], cfg[1024];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		deploy_env(live, sizeof(live), cases[i].live, true);
		deploy_env(cfg, sizeof(cfg), cases[i].config, false);
		CHECK(apply_list(live, cfg, "kubectl", env, cases[i].want) == 1, "case %zu", i);
	}
	/* containers: worker moves before app, sidecar (live only) stays first */
	CHECK(apply_list(DEPLOY_HEAD "[{\"name\":\"app\",\"image\":\"a\"},{\"name\":\"sidecar\",\"image\":\"s\"},"
	                 "{\"name\":\"worker\",\"image\":\"w\"}]}}}}",
	                 DEPLOY_HEAD "[{\"name\":\"worker\",\"image\":\"w\"},{\"name\":\"app\",\"image\":\"a\"}]}}}}",
	                 "kubectl", ctrs,
	                 "[{\"name\":\"sidecar\",\"image\":\"s\"},{\"name\":\"worker\",\"image\":\"w\"},"
	                 "{\"name\":\"app\",\"image\":\"a\"}]") == 1);
	/* a set (finalizers) repeating "a": the new item comes before x */
	CHECK(apply_list("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\","
	                 "\"namespace\":\"default\",\"finalizers\":[\"a\",\"a\",\"x\"]}}",
	                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\","
	                 "\"namespace\":\"default\",\"finalizers\":[\"a\",\"n\"]}}",
	                 "kubectl", fin, "[\"a\",\"n\",\"x\"]") == 1);
}

int main(void)
{
	test_fieldsv1();
	test_set_ops();
	test_path_print();
	test_apply_update();
	test_errors();
	test_dup_create();
	test_dup_to_set();
	test_dup_compare();
	test_dup_updates();
	test_dup_applies();
	test_dup_prune();
	test_order_service();
	test_order_items();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
