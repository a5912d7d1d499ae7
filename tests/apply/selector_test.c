/*
 * selector_test.c - table tests for label selectors, LabelSelector objects,
 * field selectors and label validation (the examples of the Kubernetes
 * label documentation and the reference's parser edge cases).
 */
#include "tutil.h"

#include <stdio.h>
#include <string.h>

/* selector, labels (JSON map or "null"), expected match */
static const struct {
	const char *sel;
	const char *labels;
	int match;
} match_cases[] = {
	/* the documented examples */
	{"environment = production", "{\"environment\":\"production\"}", 1},
	{"environment = production", "{\"environment\":\"qa\"}", 0},
	{"environment = production", "{}", 0},
	{"environment=production", "{\"environment\":\"production\",\"tier\":\"frontend\"}", 1},
	{"environment==production", "{\"environment\":\"production\"}", 1},
	{"tier != frontend", "{\"tier\":\"backend\"}", 1},
	{"tier != frontend", "{\"tier\":\"frontend\"}", 0},
	{"tier != frontend", "{}", 1},
	{"tier!=frontend", "{\"environment\":\"production\"}", 1},
	{"environment=production,tier!=frontend", "{\"environment\":\"production\",\"tier\":\"backend\"}", 1},
	{"environment=production,tier!=frontend", "{\"environment\":\"production\",\"tier\":\"frontend\"}", 0},
	{"environment=production,tier!=frontend", "{\"environment\":\"production\"}", 1},
	{"environment=production,tier!=frontend", "{\"tier\":\"backend\"}", 0},
	{"environment in (production, qa)", "{\"environment\":\"production\"}", 1},
	{"environment in (production, qa)", "{\"environment\":\"qa\"}", 1},
	{"environment in (production, qa)", "{\"environment\":\"dev\"}", 0},
	{"environment in (production, qa)", "{}", 0},
	{"environment in (production,qa)", "{\"environment\":\"qa\"}", 1},
	{"tier notin (frontend, backend)", "{\"tier\":\"cache\"}", 1},
	{"tier notin (frontend, backend)", "{\"tier\":\"frontend\"}", 0},
	{"tier notin (frontend, backend)", "{\"tier\":\"backend\"}", 0},
	{"tier notin (frontend, backend)", "{}", 1},
	{"partition", "{\"partition\":\"customerA\"}", 1},
	{"partition", "{\"partition\":\"\"}", 1},
	{"partition", "{\"other\":\"x\"}", 0},
	{"!partition", "{\"other\":\"x\"}", 1},
	{"!partition", "{\"partition\":\"customerA\"}", 0},
	{"partition in (customerA, customerB),environment!=qa", "{\"partition\":\"customerB\",\"environment\":\"prod\"}", 1},
	{"partition in (customerA, customerB),environment!=qa", "{\"partition\":\"customerB\",\"environment\":\"qa\"}", 0},
	{"partition in (customerA, customerB),environment!=qa", "{\"partition\":\"customerC\"}", 0},
	{"!partition,environment in (qa)", "{\"environment\":\"qa\"}", 1},
	{"!partition,environment in (qa)", "{\"environment\":\"qa\",\"partition\":\"a\"}", 0},
	/* the empty selector selects everything, labels or not */
	{"", "{}", 1},
	{"", "{\"a\":\"b\"}", 1},
	{"", "null", 1},
	{"   ", "{\"a\":\"b\"}", 1},
	/* whitespace rules */
	{"  app = web  ,  tier = db ", "{\"app\":\"web\",\"tier\":\"db\"}", 1},
	{"app\t=\tweb", "{\"app\":\"web\"}", 1},
	{"app in(web)", "{\"app\":\"web\"}", 1},
	{"app in ( web , api )", "{\"app\":\"api\"}", 1},
	/* empty values */
	{"app=", "{\"app\":\"\"}", 1},
	{"app=", "{\"app\":\"x\"}", 0},
	{"app=", "{}", 0},
	{"app!=", "{\"app\":\"x\"}", 1},
	{"app in ()", "{\"app\":\"\"}", 1},
	{"app in ()", "{\"app\":\"x\"}", 0},
	{"app in (a,)", "{\"app\":\"\"}", 1},
	{"app in (,a)", "{\"app\":\"\"}", 1},
	{"app in (a,,b)", "{\"app\":\"\"}", 1},
	{"app in (a,,b)", "{\"app\":\"b\"}", 1},
	{"x in (foo,,baz),y,z notin ()", "{\"x\":\"foo\",\"y\":\"1\"}", 1},
	{"x in (foo,,baz),y,z notin ()", "{\"x\":\"foo\",\"y\":\"1\",\"z\":\"\"}", 0},
	/* in / notin as keys and values */
	{"in=notin", "{\"in\":\"notin\"}", 1},
	{"notin in (in,notin)", "{\"notin\":\"in\"}", 1},
	{"a in (in)", "{\"a\":\"in\"}", 1},
	/* prefixed keys */
	{"app.kubernetes.io/name=nginx", "{\"app.kubernetes.io/name\":\"nginx\"}", 1},
	{"example.com/tier notin (a)", "{\"example.com/tier\":\"b\"}", 1},
	{"!example.com/legacy", "{\"example.com/legacy\":\"true\"}", 0},
	/* Gt and Lt */
	{"replicas>3", "{\"replicas\":\"4\"}", 1},
	{"replicas>3", "{\"replicas\":\"3\"}", 0},
	{"replicas>3", "{\"replicas\":\"x\"}", 0},
	{"replicas>3", "{}", 0},
	{"replicas<3", "{\"replicas\":\"-10\"}", 1},
	{"replicas<3", "{\"replicas\":\"+2\"}", 1},
	/* case matters */
	{"App=web", "{\"app\":\"web\"}", 0},
	{"app=Web", "{\"app\":\"web\"}", 0},
	/* duplicates and contradictions */
	{"a=b,a!=b", "{\"a\":\"b\"}", 0},
	{"a=b,a=b", "{\"a\":\"b\"}", 1},
	{"a,!b", "{\"a\":\"1\"}", 1},
	{"a,!b", "{\"a\":\"1\",\"b\":\"2\"}", 0},
	/* a non-string label value is present but equals nothing */
	{"a", "{\"a\":1}", 1},
	{"a=1", "{\"a\":1}", 0},
	{"a!=1", "{\"a\":1}", 1},
};

/* selector, 1-based column of the error, text the message must contain */
static const struct {
	const char *sel;
	unsigned col;
	const char *msg;
} error_cases[] = {
	{"x=a||y=b", 3, "invalid label value \"a||y\""},
	{"replicas<-3", 10, "invalid label value \"-3\""},
	{"x=a,", 5, "found '', expected: identifier after ','"},
	{",x=a", 1, "found ',', expected: !, identifier, or 'end of string'"},
	{"x in (a", 8, "unable to parse requirement: found '', expected: ',' or ')'"},
	{"x in a", 6, "found 'a' expected: '('"},
	{"x in (a b)", 9, "found 'b', expected: ',' or ')'"},
	{"x notin (a)) ", 12, "found ')', expected: ',' or 'end of string'"},
	{"x=a b", 5, "found 'b', expected: ',' or 'end of string'"},
	{"x = (a)", 5, "found '(', expected: identifier"},
	{"!", 2, "found '', expected: identifier"},
	{"!=a", 1, "found '!=', expected: !, identifier, or 'end of string'"},
	{"x in (=)", 7, "found '=', expected: ',', ')' or identifier"},
	{"x in (a,=)", 9, "found '=', expected: ',', or identifier"},
	{"a (b)", 3, "found '(', expected: in, notin, =, ==, !=, gt, lt"},
	{"a=b,c d", 7, "found 'd', expected: in, notin, =, ==, !=, gt, lt"},
	{"-bad=x", 1, "name part must consist of alphanumeric characters"},
	{"a/b/c=x", 1, "a qualified name must consist of alphanumeric characters"},
	{"Example.com/a=x", 1, "prefix part a lowercase RFC 1123 subdomain"},
	{"/a=x", 1, "prefix part must be non-empty"},
	{"a=-x", 3, "invalid label value \"-x\": a valid label must be an empty string"},
	{"a in (ok, bad!)", 14, "found '!', expected: ',' or ')'"},
	{"a in (ok, bad_)", 11, "invalid label value \"bad_\""},
	{"a>x", 3, "for 'Gt', 'Lt' operators, the value must be an integer"},
	{"a>", 3, "for 'Gt', 'Lt' operators, the value must be an integer"},
	{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1,
	 "name part must be no more than 63 characters"},
};

static void test_match(void)
{
	for (size_t i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
		smp_selector *sel = NULL;
		smp_error err;
		smp_doc *doc = parse_json(match_cases[i].labels);
		int rc = smp_selector_parse(&sel, match_cases[i].sel, &err);

		CHECK(rc == 0, "parse \"%s\": %s", match_cases[i].sel, err.message);
		if (rc == 0 && doc) {
			bool m = smp_selector_matches(sel, smp_doc_root(doc, 0));
			CHECK(m == (match_cases[i].match != 0), "\"%s\" on %s: got %d",
			      match_cases[i].sel, match_cases[i].labels, (int)m);
		}
		smp_selector_free(sel);
		smp_doc_free(doc);
	}
}

static void test_errors(void)
{
	for (size_t i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
		smp_selector *sel = NULL;
		smp_error err;
		int rc = smp_selector_parse(&sel, error_cases[i].sel, &err);

		CHECK(rc == SMP_EINVAL && !sel, "\"%s\" parsed (rc %d)", error_cases[i].sel, rc);
		if (rc != SMP_EINVAL)
			continue;
		CHECK(err.column == error_cases[i].col, "\"%s\": column %u, want %u (%s)",
		      error_cases[i].sel, err.column, error_cases[i].col, err.message);
		CHECK(strstr(err.message, error_cases[i].msg) != NULL, "\"%s\": message \"%s\"",
		      error_cases[i].sel, err.message);
	}
}

static const struct {
	const char *obj;
	bool node;
	int match_a; /* against {"app":"web","tier":"db","cpu":"8"} */
	int match_b; /* against {} */
	const char *err;  /* NULL: must build */
} object_cases[] = {
	{"{}", false, 1, 1, NULL},
	{"{\"matchLabels\":{\"app\":\"web\"}}", false, 1, 0, NULL},
	{"{\"matchLabels\":{\"app\":\"web\",\"tier\":\"x\"}}", false, 0, 0, NULL},
	{"{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"db\",\"cache\"]}]}", false, 1, 0, NULL},
	{"{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"NotIn\",\"values\":[\"db\"]}]}", false, 0, 1, NULL},
	{"{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"Exists\"}]}", false, 1, 0, NULL},
	{"{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"DoesNotExist\"}]}", false, 0, 1, NULL},
	{"{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"NotIn\",\"values\":[\"db\"]}]}", false, 0, 0, NULL},
	{"{\"matchExpressions\":[{\"key\":\"cpu\",\"operator\":\"Gt\",\"values\":[\"4\"]}]}", true, 1, 0, NULL},
	{"{\"matchExpressions\":[{\"key\":\"cpu\",\"operator\":\"Lt\",\"values\":[\"4\"]}]}", true, 0, 0, NULL},
	{"{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\",\"values\":[]}]}", false, 0, 0,
	 "values set can't be empty"},
	{"{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\"}]}", false, 0, 0,
	 "values set can't be empty"},
	{"{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"Exists\",\"values\":[\"a\"]}]}", false, 0, 0,
	 "values set must be empty for exists and does not exist"},
	{"{\"matchExpressions\":[{\"key\":\"cpu\",\"operator\":\"Gt\",\"values\":[\"4\"]}]}", false, 0, 0,
	 "\"Gt\" is not a valid label selector operator"},
	{"{\"matchExpressions\":[{\"key\":\"cpu\",\"operator\":\"Gt\",\"values\":[\"4\",\"5\"]}]}", true, 0, 0,
	 "exactly one value is required"},
	{"{\"matchExpressions\":[{\"key\":\"cpu\",\"operator\":\"Lt\",\"values\":[\"four\"]}]}", true, 0, 0,
	 "the value must be an integer"},
	{"{\"matchExpressions\":[{\"key\":\"cpu\",\"operator\":\"Foo\"}]}", true, 0, 0,
	 "\"Foo\" is not a valid node selector operator"},
	{"{\"matchLabels\":{\"bad key\":\"x\"}}", false, 0, 0, "matchLabels.bad key: invalid label key"},
	{"{\"matchLabels\":{\"a\":\"-x\"}}", false, 0, 0, "invalid label value \"-x\""},
};

static void test_objects(void)
{
	smp_doc *la = parse_json("{\"app\":\"web\",\"tier\":\"db\",\"cpu\":\"8\"}");
	smp_doc *lb = parse_json("{}");
	smp_selector *sel = NULL;
	smp_error err;

	for (size_t i = 0; i < sizeof(object_cases) / sizeof(object_cases[0]); i++) {
		smp_doc *doc = parse_json(object_cases[i].obj);
		int rc;

		if (!doc)
			continue;
		rc = smp_selector_from_object(&sel, smp_doc_root(doc, 0), object_cases[i].node, &err);
		if (object_cases[i].err) {
			CHECK(rc == SMP_EINVAL, "%s: built (rc %d)", object_cases[i].obj, rc);
			CHECK(rc == 0 || strstr(err.message, object_cases[i].err),
			      "%s: message \"%s\"", object_cases[i].obj, err.message);
		} else {
			CHECK(rc == 0, "%s: %s", object_cases[i].obj, err.message);
			if (!rc) {
				CHECK(smp_selector_matches(sel, smp_doc_root(la, 0)) == (object_cases[i].match_a != 0),
				      "%s on labels a", object_cases[i].obj);
				CHECK(smp_selector_matches(sel, smp_doc_root(lb, 0)) == (object_cases[i].match_b != 0),
				      "%s on labels b", object_cases[i].obj);
			}
		}
		smp_selector_free(sel);
		sel = NULL;
		smp_doc_free(doc);
	}
	/* a null selector selects nothing */
	CHECK(smp_selector_from_object(&sel, NULL, false, &err) == 0, "null selector");
	CHECK(!smp_selector_matches(sel, smp_doc_root(lb, 0)), "null selector matched");
	CHECK(!smp_selector_is_empty(sel), "null selector is empty");
	smp_selector_free(sel);
	smp_doc_free(la);
	smp_doc_free(lb);
}

static const struct {
	const char *sel;
	int match; /* -1: parse error */
} field_cases[] = {
	{"metadata.name=web", 1},
	{"metadata.name==web", 1},
	{"metadata.name!=web", 0},
	{"metadata.name=api", 0},
	{"metadata.namespace=prod,metadata.name=web", 1},
	{"metadata.namespace=prod,metadata.name!=web", 0},
	{"metadata.missing=", 1},
	{"metadata.missing!=x", 1},
	{"spec.replicas=3", 1},
	{"spec.paused=false", 1},
	{"spec.template=x", 0},
	{"metadata.labels.a\\,b=1", 1 - 1},
	{"metadata.annotations.note=a\\,b\\=c", 1},
	{"", 1},
	{"metadata.name", -1},
	{"metadata.name=a=b", -1},
	{"metadata.name=a\\x", -1},
};

static void test_fields(void)
{
	smp_doc *obj = parse_json("{\"metadata\":{\"name\":\"web\",\"namespace\":\"prod\","
	                          "\"annotations\":{\"note\":\"a,b=c\"}},"
	                          "\"spec\":{\"replicas\":3,\"paused\":false,\"template\":{}}}");

	for (size_t i = 0; i < sizeof(field_cases) / sizeof(field_cases[0]); i++) {
		smp_selector *sel = NULL;
		smp_error err;
		int rc = smp_field_selector_parse(&sel, field_cases[i].sel, &err);

		if (field_cases[i].match < 0) {
			CHECK(rc == SMP_EINVAL, "field \"%s\" parsed", field_cases[i].sel);
		} else {
			CHECK(rc == 0, "field \"%s\": %s", field_cases[i].sel, err.message);
			if (!rc)
				CHECK(smp_field_selector_matches(sel, smp_doc_root(obj, 0)) ==
				      (field_cases[i].match != 0), "field \"%s\"", field_cases[i].sel);
		}
		smp_selector_free(sel);
	}
	smp_doc_free(obj);
}

static void test_validation(void)
{
	static const char *const good_keys[] = {
		"a", "app", "A-b_c.d", "example.com/a", "app.kubernetes.io/name", "a1", "1a",
		"x.y-z.example/Name_1",
	};
	static const struct { const char *key, *msg; } bad_keys[] = {
		{"", "name part must be non-empty"},
		{"-a", "name part must consist of alphanumeric characters, '-', '_' or '.', and "
		       "must start and end with an alphanumeric character (e.g. 'MyName',  or "
		       "'my.name',  or '123-abc', regex used for validation is "
		       "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
		{"a_", "name part must consist"},
		{"a b", "name part must consist"},
		{"example.com/", "name part must be non-empty"},
		{"/a", "prefix part must be non-empty"},
		{"Example.com/a", "prefix part a lowercase RFC 1123 subdomain must consist of lower "
		                  "case alphanumeric characters, '-' or '.', and must start and end "
		                  "with an alphanumeric character (e.g. 'example.com', regex used for "
		                  "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
		{"a..b/c", "prefix part a lowercase RFC 1123 subdomain"},
		{"-a.com/c", "prefix part a lowercase RFC 1123 subdomain"},
		{"a/b/c", "a qualified name must consist of"},
	};
	static const char *const good_values[] = {"", "a", "A.b-c_d", "0", "x1"};
	static const char *const bad_values[] = {"-a", "a-", "a b", "a/b", "_"};
	char longname[80], longprefix[300];
	smp_error err;

	for (size_t i = 0; i < sizeof(good_keys) / sizeof(good_keys[0]); i++)
		CHECK(smp_label_validate_key(good_keys[i], &err) == 0, "key \"%s\": %s",
		      good_keys[i], err.message);
	for (size_t i = 0; i < sizeof(bad_keys) / sizeof(bad_keys[0]); i++) {
		int rc = smp_label_validate_key(bad_keys[i].key, &err);
		CHECK(rc == SMP_EINVALOBJ, "key \"%s\" accepted", bad_keys[i].key);
		CHECK(rc == 0 || strstr(err.message, bad_keys[i].msg), "key \"%s\": %s",
		      bad_keys[i].key, err.message);
	}
	for (size_t i = 0; i < sizeof(good_values) / sizeof(good_values[0]); i++)
		CHECK(smp_label_validate_value(good_values[i], &err) == 0, "value \"%s\"",
		      good_values[i]);
	for (size_t i = 0; i < sizeof(bad_values) / sizeof(bad_values[0]); i++)
		CHECK(smp_label_validate_value(bad_values[i], &err) == SMP_EINVALOBJ,
		      "value \"%s\" accepted", bad_values[i]);
	memset(longname, 'a', 63);
	longname[63] = '\0';
	CHECK(smp_label_validate_key(longname, &err) == 0, "63-character name");
	CHECK(smp_label_validate_value(longname, &err) == 0, "63-character value");
	longname[63] = 'a';
	longname[64] = '\0';
	CHECK(smp_label_validate_key(longname, &err) == SMP_EINVALOBJ &&
	      strstr(err.message, "name part must be no more than 63 characters"), "64 name");
	CHECK(smp_label_validate_value(longname, &err) == SMP_EINVALOBJ &&
	      strstr(err.message, "must be no more than 63 characters"), "64 value");
	/* a 253-character prefix is fine, 254 is not */
	for (size_t i = 0; i < 253; i++)
		longprefix[i] = (i % 50 == 49) ? '.' : 'a';
	strcpy(longprefix + 253, "/n");
	CHECK(smp_label_validate_key(longprefix, &err) == 0, "253 prefix: %s", err.message);
	longprefix[253] = 'a';
	strcpy(longprefix + 254, "/n");
	CHECK(smp_label_validate_key(longprefix, &err) == SMP_EINVALOBJ &&
	      strstr(err.message, "prefix part must be no more than 253 characters"), "254 prefix");

	{
		smp_doc *l = parse_json("{\"ok\":\"1\",\"tier\":\"-web\"}");
		int rc = l ? smp_labels_validate(smp_doc_root(l, 0), NULL, &err) : -1;
		CHECK(rc == SMP_EINVALOBJ && strstr(err.message,
		      "metadata.labels: Invalid value: \"-web\": a valid label must be"),
		      "labels map: %s", err.message);
		smp_doc_free(l);
		l = parse_json("{\"ok\":\"1\",\"a.b/c\":\"\"}");
		CHECK(l && smp_labels_validate(smp_doc_root(l, 0), NULL, &err) == 0, "good map");
		smp_doc_free(l);
	}
}

int main(void)
{
	size_t n = sizeof(match_cases) / sizeof(match_cases[0]);

	test_match();
	test_errors();
	test_objects();
	test_fields();
	test_validation();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("selector tests: %zu match pairs, %zu error cases, %zu objects, %zu field "
	       "selectors: ok\n", n, sizeof(error_cases) / sizeof(error_cases[0]),
	       sizeof(object_cases) / sizeof(object_cases[0]),
	       sizeof(field_cases) / sizeof(field_cases[0]));
	return 0;
}
