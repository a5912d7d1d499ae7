/*
 * rfc_test.c - JSON merge patch against the RFC 7386 appendix A examples
 * (a table here), and JSON Patch against the public RFC 6902 test vectors
 * (SMP_SHARED_DIR/rfc6902/{tests,spec_tests}.json, read at test time).
 *
 * usage: merge_rfc_test 7386 | 6902
 * exit:  0 pass, 1 failure, 77 when the 6902 vectors are absent.
 */
#include "merge/merge_bytes.h"
#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const smp_value *parse(smp_doc **d, const char *text)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_error err;

	po.format = SMP_FORMAT_JSON;
	if (smp_doc_parse(d, text, strlen(text), &po, &err)) {
		printf("cannot parse %s: %s\n", text, err.message);
		exit(1);
	}
	return smp_doc_root(*d, 0);
}

/* RFC 7386, Appendix A: original, patch, result. */
static const char *const rfc7386[][3] = {
	{"{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
	{"{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}"},
	{"{\"a\":\"b\"}", "{\"a\":null}", "{}"},
	{"{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}"},
	{"{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
	{"{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}"},
	{"{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}"},
	{"{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}"},
	{"[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]"},
	{"{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]"},
	{"{\"a\":\"foo\"}", "null", "null"},
	{"{\"a\":\"foo\"}", "\"bar\"", "\"bar\""},
	{"{\"e\":null}", "{\"a\":1}", "{\"a\":1,\"e\":null}"},
	{"[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}"},
	{"{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}"},
};

static void run_7386(void)
{
	for (size_t i = 0; i < sizeof(rfc7386) / sizeof(rfc7386[0]); i++) {
		smp_doc *o = NULL, *p = NULL, *w = NULL, *r = NULL;
		smp_patch_options opts = SMP_PATCH_OPTIONS_INIT;
		smp_error err;

		opts.type = SMP_PATCH_MERGE;
		const smp_value *ov = parse(&o, rfc7386[i][0]);
		const smp_value *pv = parse(&p, rfc7386[i][1]);
		const smp_value *wv = parse(&w, rfc7386[i][2]);
		/* The engine follows RFC 7386 (smp_jmp_apply); the public call, like
		 * kubectl's json-patch v4, refuses a patch that is not an object. */
		smp_arena ra;
		smp_value *res = NULL;
		int prc = smp_patch_apply(&r, ov, pv, &opts, &err);
		if (smp_value_type(pv) != SMP_MAP && (prc != SMP_EPATCH ||
		                                      !strstr(err.message, "Invalid JSON Patch"))) {
			printf("FAIL rfc7386 #%zu: smp_patch_apply accepted a non-object patch\n", i + 1);
			failures++;
		}
		smp_arena_init(&ra);
		if (smp_jmp_apply(&res, &ra, ov, pv, &err)) {
			printf("FAIL rfc7386 #%zu: %s\n", i + 1, err.message);
			failures++;
		} else if (!smp_value_equal(res, wv)) {
			char *g = NULL;
			smp_go_json(&g, NULL, res, NULL);
			printf("FAIL rfc7386 #%zu: %s + %s = %s, want %s\n", i + 1, rfc7386[i][0],
			       rfc7386[i][1], g, rfc7386[i][2]);
			smp_free(g);
			failures++;
		} else {
			printf("PASS rfc7386 #%zu\n", i + 1);
		}
		smp_arena_release(&ra);
		/* And the diff gives a patch that produces the same object. */
		if (smp_value_type(ov) == SMP_MAP && smp_value_type(wv) == SMP_MAP) {
			smp_doc *d = NULL, *r2 = NULL;
			if (smp_diff_two_way(&d, ov, wv, &opts, &err) ||
			    smp_patch_apply(&r2, ov, smp_doc_root(d, 0), &opts, &err) ||
			    !smp_value_equal(smp_doc_root(r2, 0), wv)) {
				printf("FAIL rfc7386 #%zu: diff/apply round trip\n", i + 1);
				failures++;
			}
			smp_doc_free(d);
			smp_doc_free(r2);
		}
		smp_doc_free(o);
		smp_doc_free(p);
		smp_doc_free(w);
		smp_doc_free(r);
	}
}

static int run_6902_file(const char *dir, const char *name)
{
	char path[4096];
	smp_doc *doc = NULL;
	smp_error err;
	const smp_value *tests;
	int pass = 0, skipped = 0;

	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;

	/* Two disabled vectors repeat "op" on purpose. */
	po.allow_duplicate_keys = true;
	snprintf(path, sizeof(path), "%s/rfc6902/%s", dir, name);
	if (smp_doc_parse_file(&doc, path, &po, &err)) {
		printf("cannot read %s: %s\n", path, err.message);
		return -1;
	}
	tests = smp_doc_root(doc, 0);
	for (size_t i = 0; i < smp_value_len(tests); i++) {
		const smp_value *t = smp_list_get(tests, i);
		const smp_value *comment = smp_map_get(t, "comment");
		const smp_value *expected = smp_map_get(t, "expected");
		const smp_value *error = smp_map_get(t, "error");
		smp_patch_options opts = SMP_PATCH_OPTIONS_INIT;
		smp_doc *r = NULL;
		char label[200];
		int rc;

		snprintf(label, sizeof(label), "%s #%zu%s%s", name, i + 1, comment ? ": " : "",
		         comment ? smp_value_string(comment, NULL) : "");
		if (smp_value_bool(smp_map_get(t, "disabled"))) {
			printf("SKIP %s (disabled in the suite)\n", label);
			skipped++;
			continue;
		}
		opts.type = SMP_PATCH_JSON;
		rc = smp_patch_apply(&r, smp_map_get(t, "doc"), smp_map_get(t, "patch"), &opts, &err);
		if (error) {
			if (!rc) {
				printf("FAIL %s: applied, want error (%s)\n", label,
				       smp_value_string(error, NULL));
				failures++;
			} else {
				pass++;
			}
		} else if (rc) {
			printf("FAIL %s: %s\n", label, err.message);
			failures++;
		} else if (expected && !smp_value_equal(smp_doc_root(r, 0), expected)) {
			char *g = NULL;
			smp_go_json(&g, NULL, smp_doc_root(r, 0), NULL);
			printf("FAIL %s: got %s\n", label, g);
			smp_free(g);
			failures++;
		} else {
			pass++;
		}
		smp_doc_free(r);
	}
	printf("%s: %d passed, %d disabled\n", name, pass, skipped);
	smp_doc_free(doc);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s 7386|6902\n", argv[0]);
		return 2;
	}
	if (strcmp(argv[1], "7386") == 0) {
		run_7386();
	} else {
		const char *dir = getenv("SMP_SHARED_DIR");
		char probe[4096];
		FILE *f;
		snprintf(probe, sizeof(probe), "%s/rfc6902/tests.json", dir ? dir : "");
		if (!dir || !(f = fopen(probe, "r"))) {
			printf("%s is absent: RFC 6902 vectors skipped\n", probe);
			return 77;
		}
		fclose(f);
		if (run_6902_file(dir, "tests.json") || run_6902_file(dir, "spec_tests.json"))
			return 1;
	}
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
