/*
 * ownership_test.c - results own copies of everything they show: after a
 * call, the inputs can be freed and the results still read (the ASan build
 * turns a dangling reference into a use-after-free report; the normal build
 * compares the printed result before and after the inputs are freed, with
 * the freed memory overwritten by the allocator's reuse below).
 */
#include "smpatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char target_text[] =
	"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, labels: {app: web}}\n"
	"spec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n"
	"      - {name: web, image: \"web:1.0\", env: [{name: A, value: a}]}\n";
static const char patch_text[] =
	"{\"metadata\":{\"labels\":{\"tier\":\"front\"}},\"spec\":{\"template\":{\"spec\":"
	"{\"containers\":[{\"name\":\"side\",\"image\":\"side:2\"},{\"name\":\"web\","
	"\"env\":[{\"name\":\"B\",\"value\":\"b\"}]}]}}}}";
static const char config_text[] =
	"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, labels: {app: web, new: label}}\n"
	"spec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n"
	"      - {name: web, image: \"web:2.0\"}\n";

static char *show(const smp_value *v)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	char *s = NULL;

	po.sort_keys = true;
	if (smp_print(&s, NULL, v, &po, NULL)) {
		fprintf(stderr, "ownership_test: print failed\n");
		exit(1);
	}
	return s;
}

static smp_doc *parse(const char *text)
{
	smp_doc *d = NULL;
	smp_error err;

	if (smp_doc_parse(&d, text, strlen(text), NULL, &err)) {
		fprintf(stderr, "ownership_test: %s\n", err.message);
		exit(1);
	}
	return d;
}

/* Allocates and scribbles over memory so freed blocks get reused. */
static void churn(void)
{
	for (int i = 0; i < 64; i++) {
		size_t n = (size_t)(16 << (i % 12));
		char *p = malloc(n);
		if (p) {
			memset(p, 0xA5, n);
			free(p);
		}
	}
}

static int check(const char *what, const smp_value *v, const char *before)
{
	char *after = show(v);
	int bad = strcmp(before, after) != 0;

	if (bad)
		printf("FAIL: %s changed after its inputs were freed:\n  before %s\n  after  %s\n",
		       what, before, after);
	else
		printf("ok: %s survives its inputs\n", what);
	smp_free(after);
	return bad;
}

int main(void)
{
	smp_doc *t = parse(target_text), *p = parse(patch_text), *c = parse(config_text);
	smp_doc *applied = NULL, *two = NULL, *three = NULL, *copy = NULL;
	smp_apply_result *ar = NULL;
	const smp_value *copied = NULL;
	char *s_applied, *s_two, *s_three, *s_patch, *s_obj, *s_copy;
	smp_error err;
	int bad = 0;

	if (smp_patch_apply(&applied, smp_doc_root(t, 0), smp_doc_root(p, 0), NULL, &err) ||
	    smp_diff_two_way(&two, smp_doc_root(t, 0), smp_doc_root(c, 0), NULL, &err) ||
	    smp_diff_three_way(&three, smp_doc_root(t, 0), smp_doc_root(c, 0),
	                       smp_doc_root(applied, 0), NULL, &err) ||
	    smp_apply_object(&ar, smp_doc_root(applied, 0), smp_doc_root(c, 0), NULL, &err) ||
	    smp_doc_new(&copy, &err) ||
	    smp_doc_add_copy(&copied, copy, smp_doc_root(t, 0), &err)) {
		fprintf(stderr, "ownership_test: %s\n", err.message);
		return 1;
	}
	s_applied = show(smp_doc_root(applied, 0));
	s_two = show(smp_doc_root(two, 0));
	s_three = show(smp_doc_root(three, 0));
	s_patch = show(smp_apply_result_patch(ar));
	s_obj = show(smp_apply_result_object(ar));
	s_copy = show(copied);

	/* Free every input, in an order that leaves nothing to lean on. */
	smp_doc_free(t);
	smp_doc_free(p);
	smp_doc_free(c);
	churn();
	bad |= check("two-way diff", smp_doc_root(two, 0), s_two);
	bad |= check("smp_doc_add_copy", copied, s_copy);
	bad |= check("apply result patch", smp_apply_result_patch(ar), s_patch);
	/* `applied` is an input of the three-way diff and of the apply. */
	bad |= check("patch apply", smp_doc_root(applied, 0), s_applied);
	smp_doc_free(applied);
	churn();
	bad |= check("three-way diff", smp_doc_root(three, 0), s_three);
	bad |= check("apply result object", smp_apply_result_object(ar), s_obj);

	smp_apply_result_free(ar);
	smp_doc_free(two);
	smp_doc_free(three);
	smp_doc_free(copy);
	smp_free(s_applied);
	smp_free(s_two);
	smp_free(s_three);
	smp_free(s_patch);
	smp_free(s_obj);
	smp_free(s_copy);
	return bad;
}
