/*
 * ssa_test.c - unit tests of the server-side apply engine: field sets and
 * FieldsV1, path printing, the public apply/update API and its errors.
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
	ssa_ctx c;
	int rc;
	char *s;

	ssa_ctx_init(&c, NULL);
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
	s = roundtrip(&c, "{\"f\":{}}", &rc);
	CHECK(rc == SMP_EINVAL);
	free(s);
	s = roundtrip(&c, "{\"fa\":{}}", &rc);
	CHECK(rc == SMP_EINVAL);
	free(s);
	s = roundtrip(&c, "{\"i:x\":{}}", &rc);
	CHECK(rc == SMP_EINVAL);
	free(s);
	s = roundtrip(&c, "{\"k:[1]\":{}}", &rc);
	CHECK(rc == SMP_EINVAL);
	free(s);
	s = roundtrip(&c, "{\"f:a\":[]}", &rc);
	CHECK(rc == SMP_EINVAL);
	free(s);
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

	ssa_ctx_init(&c, NULL);
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

	ssa_ctx_init(&c, NULL);
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

int main(void)
{
	test_fieldsv1();
	test_set_ops();
	test_path_print();
	test_apply_update();
	test_errors();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
