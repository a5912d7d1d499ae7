/*
 * unit_test.c - table-driven checks of the merge engine through the public
 * API, for what the conformance cases do not cover: errors and their field
 * paths, preconditions and conflicts on built-in kinds, the directives on
 * real Kubernetes fields, JSON merge patch three-way, JSON Patch errors,
 * large lists, and that inputs are never modified.
 */
#include "smpatch.h"
#include "merge/merge.h"
#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { APPLY, DIFF2, DIFF3, DIFF3_NOOW };

typedef struct tcase {
	const char *name;
	enum op op;
	smp_patch_type type;
	const char *a, *b, *c; /* apply: target, patch; diff: original, modified, current */
	const char *want;      /* expected result (YAML), or NULL for an error */
	int want_code;         /* expected error code */
	const char *want_msg;  /* substring of the message */
	const char *want_path; /* expected err.path, or NULL */
} tcase;

#define DEPLOY "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
#define DEPLOYM "apiVersion: apps/v1\nkind: Deployment\n"

static const tcase cases[] = {
	{"missing merge key names the path", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {template: {spec: {containers: [{name: nginx, ports: [{containerPort: 80}]}]}}}",
	 "spec: {template: {spec: {containers: [{name: nginx, ports: [{protocol: TCP}]}]}}}",
	 NULL, NULL, SMP_EPATCH, "does not contain declared merge key: containerPort",
	 "spec.template.spec.containers[name=nginx].ports"},
	{"bad $patch value in a list element", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {template: {spec: {containers: [{name: nginx}]}}}",
	 "spec: {template: {spec: {containers: [{name: nginx, $patch: foo}]}}}", NULL, NULL,
	 SMP_EPATCH, "unknown patch type: foo", "spec.template.spec.containers[name=nginx]"},
	{"path names a boolean merge key", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {template: {spec: {containers: [{name: true}]}}}",
	 "spec: {template: {spec: {containers: [{name: true, $patch: foo}]}}}", NULL, NULL,
	 SMP_EPATCH, "unknown patch type: foo", "spec.template.spec.containers[name=true]"},
	{"path names a null merge key", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {template: {spec: {containers: [{name: a}]}}}",
	 "spec: {template: {spec: {containers: [{name: null, $patch: foo}]}}}", NULL, NULL,
	 SMP_EPATCH, "unknown patch type: foo", "spec.template.spec.containers[name=<nil>]"},
	{"bad $patch value in a map", APPLY, SMP_PATCH_STRATEGIC, DEPLOY "spec: {replicas: 1}",
	 "spec: {$patch: bogus}", NULL, NULL, SMP_EPATCH, "unknown patch type: bogus", "spec"},
	{"$patch: merge in a list", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {template: {spec: {containers: [{name: a}]}}}",
	 "spec: {template: {spec: {containers: [{$patch: merge}]}}}", NULL, NULL, SMP_EPATCH,
	 "merging lists cannot yet be specified", "spec.template.spec.containers[0]"},
	{"delete directive without merge key", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {template: {spec: {containers: [{name: a}]}}}",
	 "spec: {template: {spec: {containers: [{$patch: delete}]}}}", NULL, NULL, SMP_EPATCH,
	 "does not contain declared merge key: name", "spec.template.spec.containers[0]"},
	{"list of lists", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOYM "metadata: {name: web, finalizers: [a]}", "metadata: {finalizers: [[b]]}", NULL, NULL,
	 SMP_EPATCH, "list element types are not identical", "metadata.finalizers"},
	{"setElementOrder inconsistent with the list", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {template: {spec: {containers: [{name: a}, {name: b}]}}}",
	 "spec: {template: {spec: {$setElementOrder/containers: [{name: b}], "
	 "containers: [{name: a, image: x}]}}}",
	 NULL, NULL, SMP_EPATCH, "doesn't match", "spec.template.spec.containers"},
	{"retainKeys missing a patched key", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {strategy: {type: RollingUpdate}}",
	 "spec: {strategy: {$retainKeys: [type], type: Recreate, rollingUpdate: {maxSurge: 1}}}",
	 NULL, NULL, SMP_EPATCH, "invalid patch format of retainKeys", "spec.strategy"},
	{"retainKeys clears other keys", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}}}",
	 "spec: {strategy: {$retainKeys: [type], type: Recreate}}", NULL,
	 DEPLOY "spec: {strategy: {type: Recreate}}", 0, NULL, NULL},
	{"deleteFromPrimitiveList on finalizers", APPLY, SMP_PATCH_STRATEGIC,
	 "apiVersion: v1\nkind: Pod\nmetadata: {name: p, finalizers: [a, b, c]}",
	 "metadata: {$deleteFromPrimitiveList/finalizers: [b], finalizers: [d]}", NULL,
	 /* patch items first when nothing orders them (kubectl agrees) */
	 "apiVersion: v1\nkind: Pod\nmetadata: {name: p, finalizers: [d, a, c]}", 0, NULL, NULL},
	{"setElementOrder reorders containers", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {template: {spec: {containers: [{name: a}, {name: b}, {name: c}]}}}",
	 "spec: {template: {spec: {$setElementOrder/containers: [{name: c}, {name: a}, {name: b}]}}}",
	 NULL, DEPLOY "spec: {template: {spec: {containers: [{name: c}, {name: a}, {name: b}]}}}", 0,
	 NULL, NULL},
	{"$patch: replace on a list", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {template: {spec: {containers: [{name: a}, {name: b}]}}}",
	 "spec: {template: {spec: {containers: [{name: z}, {$patch: replace}]}}}", NULL,
	 DEPLOY "spec: {template: {spec: {containers: [{name: z}]}}}", 0, NULL, NULL},
	{"$patch: delete on a map", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {selector: {matchLabels: {a: b}}, replicas: 2}",
	 "spec: {selector: {$patch: delete}}", NULL, DEPLOY "spec: {selector: {}, replicas: 2}", 0,
	 NULL, NULL},
	{"int64 extremes survive", APPLY, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {replicas: 9223372036854775807}",
	 "spec: {revisionHistoryLimit: -9223372036854775808}", NULL,
	 DEPLOY "spec: {replicas: 9223372036854775807, revisionHistoryLimit: -9223372036854775808}",
	 0, NULL, NULL},
	{"unknown kind for a strategic patch", APPLY, SMP_PATCH_STRATEGIC,
	 "apiVersion: example.com/v1\nkind: Widget\nspec: {a: 1}", "spec: {b: 2}", NULL, NULL,
	 SMP_ESCHEMA, "Widget in the built-in Kubernetes tables", NULL},
	{"unknown field with different values", DIFF2, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {bogus: {a: 1}}", DEPLOY "spec: {bogus: {a: 2}}", NULL, NULL, SMP_ESCHEMA,
	 "unable to find api field \"bogus\"", "spec.bogus"},
	{"two-way on containers", DIFF2, SMP_PATCH_STRATEGIC,
	 DEPLOY "spec: {template: {spec: {containers: [{name: a, image: x}, {name: b}]}}}",
	 DEPLOY "spec: {template: {spec: {containers: [{name: a, image: y}]}}}", NULL,
	 "spec: {template: {spec: {$setElementOrder/containers: [{name: a}], containers: "
	 "[{name: a, image: y}, {name: b, $patch: delete}]}}}",
	 0, NULL, NULL},
	/* The reference sorts the original primitive list in place before it
	 * compares it with modified: an order-only change to the sorted order
	 * is not in its patch. */
	{"primitive merge list reordered to sorted order", DIFF2, SMP_PATCH_STRATEGIC,
	 "apiVersion: v1\nkind: Pod\nmetadata: {name: p, finalizers: [b, a]}",
	 "apiVersion: v1\nkind: Pod\nmetadata: {name: p, finalizers: [a, b]}", NULL, "{}", 0, NULL,
	 NULL},
	{"primitive merge list reordered", DIFF2, SMP_PATCH_STRATEGIC,
	 "apiVersion: v1\nkind: Pod\nmetadata: {name: p, finalizers: [a, b]}",
	 "apiVersion: v1\nkind: Pod\nmetadata: {name: p, finalizers: [b, a]}", NULL,
	 "metadata: {$setElementOrder/finalizers: [b, a]}", 0, NULL, NULL},
	{"precondition: kind changed", DIFF3, SMP_PATCH_STRATEGIC, DEPLOY,
	 "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: web}", DEPLOY, NULL,
	 SMP_EPRECOND, "At least one of apiVersion, kind and name was changed", "kind"},
	{"precondition: name changed", DIFF3, SMP_PATCH_STRATEGIC, DEPLOY,
	 "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: other}", DEPLOY, NULL,
	 SMP_EPRECOND, "At least one of apiVersion, kind and name was changed", "metadata.name"},
	{"conflict with a live change", DIFF3_NOOW, SMP_PATCH_STRATEGIC, DEPLOY "spec: {replicas: 1}",
	 DEPLOY "spec: {replicas: 2}", DEPLOY "spec: {replicas: 3}", NULL, SMP_ECONFLICT,
	 "conflict", NULL},
	{"no conflict when overwriting", DIFF3, SMP_PATCH_STRATEGIC, DEPLOY "spec: {replicas: 1}",
	 DEPLOY "spec: {replicas: 2}", DEPLOY "spec: {replicas: 3}", "spec: {replicas: 2}", 0, NULL,
	 NULL},
	{"three-way keeps live-only fields", DIFF3, SMP_PATCH_STRATEGIC,
	 DEPLOYM "metadata: {name: web, labels: {a: '1', gone: x}}",
	 DEPLOYM "metadata: {name: web, labels: {a: '2'}}",
	 DEPLOYM "metadata: {name: web, labels: {a: '1', gone: x, live: y}}",
	 "metadata: {labels: {a: '2', gone: null}}", 0, NULL, NULL},
	{"merge patch three-way", DIFF3, SMP_PATCH_MERGE,
	 "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {a: 1, b: [1], c: 2}",
	 "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {a: 5, b: [2]}",
	 "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {a: 1, b: [1], c: 2, d: 4}",
	 "spec: {a: 5, b: [2], c: null}", 0, NULL, NULL},
	{"merge patch precondition", DIFF3, SMP_PATCH_MERGE,
	 "apiVersion: example.com/v1\nkind: Widget", "apiVersion: example.com/v2\nkind: Widget",
	 "apiVersion: example.com/v1\nkind: Widget", NULL, SMP_EPRECOND, "apiVersion", NULL},
	{"merge patch two-way", DIFF2, SMP_PATCH_MERGE, "a: {b: 1, c: 2}\nd: [1]",
	 "a: {b: 1, c: 3}\nd: [1]\ne: x", NULL, "a: {c: 3}\ne: x", 0, NULL, NULL},
	{"json patch error names the operation", APPLY, SMP_PATCH_JSON, "a: 1",
	 "[{op: test, path: /a, value: 1}, {op: remove, path: /b}]", NULL, NULL, SMP_EPATCH,
	 "operation 1 (remove)", "[1] /b"},
	{"json patch move", APPLY, SMP_PATCH_JSON, "a: {b: [1, 2]}",
	 "[{op: move, from: /a/b/0, path: /a/b/-}, {op: copy, from: /a, path: /c}]", NULL,
	 "a: {b: [2, 1]}\nc: {b: [2, 1]}", 0, NULL, NULL},
};

static const smp_value *parse(smp_doc **d, const char *text)
{
	smp_error err;

	*d = NULL;
	if (!text)
		return NULL;
	if (smp_doc_parse(d, text, strlen(text), NULL, &err)) {
		printf("cannot parse \"%s\": %s\n", text, err.message);
		exit(1);
	}
	return smp_doc_root(*d, 0);
}

static char *json(const smp_value *v)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	char *s = NULL;

	po.sort_keys = true;
	smp_print(&s, NULL, v, &po, NULL);
	return s;
}

static void run(const tcase *t)
{
	smp_doc *a, *b, *c, *res = NULL, *want;
	const smp_value *av = parse(&a, t->a), *bv = parse(&b, t->b), *cv = parse(&c, t->c);
	const smp_value *wv = parse(&want, t->want);
	smp_patch_options opts = SMP_PATCH_OPTIONS_INIT;
	char *before_a = json(av), *before_b = json(bv), *before_c = json(cv);
	smp_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	opts.type = t->type;
	switch (t->op) {
	case APPLY:
		rc = smp_patch_apply(&res, av, bv, &opts, &err);
		break;
	case DIFF2:
		rc = smp_diff_two_way(&res, av, bv, &opts, &err);
		break;
	default:
		opts.overwrite = t->op == DIFF3;
		rc = smp_diff_three_way(&res, av, bv, cv, &opts, &err);
		break;
	}
	if (t->want) {
		if (rc) {
			printf("FAIL %s: %s (at %s)\n", t->name, err.message, err.path);
			failures++;
		} else if (!smp_value_equal(smp_doc_root(res, 0), wv)) {
			char *g = json(smp_doc_root(res, 0)), *w = json(wv);
			printf("FAIL %s: got %s\n     want %s\n", t->name, g, w);
			smp_free(g);
			smp_free(w);
			failures++;
		} else {
			printf("PASS %s\n", t->name);
		}
	} else if (rc != t->want_code || !strstr(err.message, t->want_msg) ||
	           (t->want_path && strcmp(err.path, t->want_path) != 0)) {
		printf("FAIL %s: rc %d \"%s\" at \"%s\"; want rc %d \"%s\" at \"%s\"\n", t->name, rc,
		       err.message, err.path, t->want_code, t->want_msg,
		       t->want_path ? t->want_path : "");
		failures++;
	} else {
		printf("PASS %s\n", t->name);
	}
	/* smp_patch_apply_doc on a fresh copy of the target: same outcome. */
	if (t->op == APPLY) {
		smp_doc *ip;
		smp_error e2;
		int rc2;
		char *g1 = NULL, *g2 = NULL;
		parse(&ip, t->a);
		memset(&e2, 0, sizeof(e2));
		rc2 = smp_patch_apply_doc(&ip, bv, &opts, &e2);
		if (!rc && !rc2) {
			g1 = json(smp_doc_root(res, 0));
			g2 = json(smp_doc_root(ip, 0));
		}
		if (rc2 != rc || (rc && (ip || strcmp(e2.message, err.message) ||
		                         strcmp(e2.path, err.path))) ||
		    (!rc && (!g1 || !g2 || strcmp(g1, g2) || smp_doc_count(ip) != 1))) {
			printf("FAIL %s: smp_patch_apply_doc differs: rc %d \"%s\" (%s)\n", t->name, rc2,
			       e2.message, g2 ? g2 : "");
			failures++;
		}
		smp_free(g1);
		smp_free(g2);
		smp_doc_free(ip);
	}
	/* The inputs are const: they must come out unchanged. */
	char *after_a = json(av), *after_b = json(bv), *after_c = json(cv);
	if ((before_a && strcmp(before_a, after_a)) || (before_b && strcmp(before_b, after_b)) ||
	    (before_c && strcmp(before_c, after_c))) {
		printf("FAIL %s: an input was modified\n", t->name);
		failures++;
	}
	smp_free(before_a);
	smp_free(before_b);
	smp_free(before_c);
	smp_free(after_a);
	smp_free(after_b);
	smp_free(after_c);
	smp_doc_free(a);
	smp_doc_free(b);
	smp_doc_free(c);
	smp_doc_free(want);
	smp_doc_free(res);
}

/* 20,000 containers, reversed and changed: exercises the indices (a
 * quadratic engine would take minutes here, which the ctest timeout turns
 * into a failure; bench/ measures the actual scaling). */
static void big_lists(void)
{
	size_t n = 20000, cap = n * 64 + 256;
	char *o = malloc(cap), *m = malloc(cap);
	size_t ol = 0, ml = 0;
	smp_doc *od, *md, *pd = NULL, *rd = NULL;
	smp_error err;

	ol += (size_t)snprintf(o + ol, cap - ol, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"spec\":{\"containers\":[");
	ml += (size_t)snprintf(m + ml, cap - ml, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"spec\":{\"containers\":[");
	for (size_t i = 0; i < n; i++) {
		ol += (size_t)snprintf(o + ol, cap - ol, "%s{\"name\":\"c%zu\",\"image\":\"i\"}",
		                       i ? "," : "", i);
		if (i % 10 == 3)
			continue; /* deleted */
		ml += (size_t)snprintf(m + ml, cap - ml, "%s{\"name\":\"c%zu\",\"image\":\"%s\"}",
		                       ml > 60 ? "," : "", n - 1 - i, i % 7 ? "i" : "j");
	}
	ol += (size_t)snprintf(o + ol, cap - ol, "]}}");
	ml += (size_t)snprintf(m + ml, cap - ml, "]}}");
	const smp_value *ov = parse(&od, o), *mv = parse(&md, m);
	if (smp_diff_two_way(&pd, ov, mv, NULL, &err) ||
	    smp_patch_apply(&rd, ov, smp_doc_root(pd, 0), NULL, &err)) {
		printf("FAIL big lists: %s\n", err.message);
		failures++;
	} else if (!smp_value_equal(smp_doc_root(rd, 0), mv)) {
		printf("FAIL big lists: round trip differs\n");
		failures++;
	} else {
		printf("PASS big lists (20000 containers)\n");
	}
	smp_doc_free(od);
	smp_doc_free(md);
	smp_doc_free(pd);
	smp_doc_free(rd);
	free(o);
	free(m);
}

static void conflicts(void)
{
	/* JSON text: 0.0 is a float64 there (YAML 0.0 goes through JSON "0"). */
	smp_doc *a, *e;
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	const char *text = "[0, 0.0, \"0\"]";
	po.format = SMP_FORMAT_JSON;
	if (smp_doc_parse(&a, text, strlen(text), &po, NULL))
		exit(1);
	const smp_value *l = smp_doc_root(a, 0);
	const smp_value *i0 = smp_list_get(l, 0), *f0 = smp_list_get(l, 1), *s0 = smp_list_get(l, 2);
	const smp_value *empty = parse(&e, "{}");

	if (!smp_patch_has_conflicts(i0, f0) || !smp_patch_has_conflicts(i0, s0) ||
	    smp_patch_has_conflicts(i0, i0)) {
		printf("FAIL has_conflicts: int64 0 / float64 0 / \"0\": %d %d %d\n",
		       smp_patch_has_conflicts(i0, f0), smp_patch_has_conflicts(i0, s0),
		       smp_patch_has_conflicts(i0, i0));
		failures++;
	} else {
		printf("PASS has_conflicts types\n");
	}
	if (!smp_patch_is_empty(empty) || smp_patch_is_empty(i0)) {
		printf("FAIL is_empty\n");
		failures++;
	}
	smp_doc_free(a);
	smp_doc_free(e);
}

/* The pdqsort port sorts (ties in any order) for many sizes and patterns. */
static void go_sort(void)
{
	static char buf[4000][4];
	smp_skey keys[4000];
	size_t idx[4000];
	uint64_t r = 88172645463325252ull;
	int bad = 0;

	for (size_t n = 0; n <= 4000 && !bad; n = n < 64 ? n + 1 : n * 2) {
		for (int pattern = 0; pattern < 4; pattern++) {
			for (size_t i = 0; i < n; i++) {
				unsigned v;
				r ^= r << 13;
				r ^= r >> 7;
				r ^= r << 17;
				v = pattern == 0 ? (unsigned)(r % 7) : pattern == 1 ? (unsigned)(r % 900)
				    : pattern == 2 ? (unsigned)i : (unsigned)(n - i);
				snprintf(buf[i], sizeof(buf[i]), "%03u", v % 1000);
				keys[i].s = buf[i];
				keys[i].n = 3;
				idx[i] = i;
			}
			smp_go_sort_keys(idx, keys, n);
			for (size_t i = 1; i < n; i++)
				if (strcmp(buf[idx[i - 1]], buf[idx[i]]) > 0)
					bad = 1;
			bool *seen = calloc(n + 1, 1);
			for (size_t i = 0; i < n; i++) {
				if (idx[i] >= n || seen[idx[i]])
					bad = 1;
				else
					seen[idx[i]] = true;
			}
			free(seen);
		}
	}
	if (bad) {
		printf("FAIL go sort port\n");
		failures++;
	} else {
		printf("PASS go sort port (sizes 0..4000, 4 patterns)\n");
	}
}

/* smp_patch_apply_doc: argument errors leave the document alone; a patch
 * that fails frees it; a strategic patch works in place. */
static void apply_doc(void)
{
	smp_doc *two, *t, *p, *none = NULL;
	smp_error err;
	const smp_value *pv = parse(&p, DEPLOY "spec: {replicas: 3}");
	int rc;

	parse(&two, "a: 1\n---\nb: 2\n");
	parse(&t, DEPLOY "spec: {replicas: 1, paused: true}");
	rc = smp_patch_apply_doc(&two, pv, NULL, &err);
	if (rc != SMP_EINVAL || !two || smp_doc_count(two) != 2) {
		printf("FAIL apply_doc: two roots gave rc %d\n", rc);
		failures++;
	}
	if (smp_patch_apply_doc(&none, pv, NULL, &err) != SMP_EINVAL ||
	    smp_patch_apply_doc(NULL, pv, NULL, &err) != SMP_EINVAL) {
		printf("FAIL apply_doc: NULL document accepted\n");
		failures++;
	}
	rc = smp_patch_apply_doc(&t, pv, NULL, &err);
	if (rc || !t || smp_value_int(smp_map_get(smp_map_get(smp_doc_root(t, 0), "spec"),
	                                          "replicas")) != 3 ||
	    smp_map_get(smp_map_get(smp_doc_root(t, 0), "spec"), "paused") == NULL) {
		printf("FAIL apply_doc: in-place strategic patch: rc %d\n", rc);
		failures++;
	} else {
		printf("PASS apply_doc\n");
	}
	smp_doc_free(two);
	smp_doc_free(t);
	smp_doc_free(p);
}

/* The merge engine's scratch memory: marks give memory back for reuse,
 * nested marks nest, large requests get chunks of their own, and what was
 * allocated before a mark stays intact. */
static void scratch(void)
{
	smp_mscratch s;
	smp_mmark m0, m1;
	char *first1 = NULL;
	int bad = 0;

	smp_mscratch_init(&s);
	m0 = smp_mscratch_mark(&s);
	unsigned char *keep = smp_mscratch_alloc(&s, 100);
	if (!keep)
		exit(1);
	memset(keep, 0xAB, 100);
	m1 = smp_mscratch_mark(&s);
	for (int round = 0; round < 3 && !bad; round++) {
		char *first = NULL;
		/* 3 MB in pieces of every size, some larger than a chunk */
		for (size_t n = 0, total = 0; total < (3u << 20); n = (n * 7 + 13) % 300000) {
			char *p = smp_mscratch_alloc(&s, n);
			if (!p || ((uintptr_t)p & 7)) {
				bad = 1;
				break;
			}
			memset(p, round, n);
			if (!first)
				first = p;
			total += n + 1;
		}
		/* Round 2 and 3 start where round 1 did: the memory is reused. */
		if (round == 0)
			first1 = first;
		else if (first != first1)
			bad = 2;
		smp_mscratch_reset(&s, m1);
	}
	for (int i = 0; i < 100; i++)
		if (keep[i] != 0xAB)
			bad = 3;
	smp_mscratch_reset(&s, m0);
	if (smp_mscratch_alloc(&s, 8) != (void *)keep)
		bad = 4;
	smp_mscratch_free(&s);
	if (bad) {
		printf("FAIL scratch memory (%d)\n", bad);
		failures++;
	} else {
		printf("PASS scratch memory\n");
	}
}

/* Same tree: types, values, keys in order, source positions. */
static bool same_tree(const smp_value *a, const smp_value *b)
{
	if (a->type != b->type || a->line != b->line || a->col != b->col)
		return false;
	switch (a->type) {
	case SMP_LIST:
		if (a->u.list.len != b->u.list.len)
			return false;
		for (size_t i = 0; i < a->u.list.len; i++)
			if (!same_tree(a->u.list.items[i], b->u.list.items[i]))
				return false;
		return true;
	case SMP_MAP:
		if (a->u.map.len != b->u.map.len)
			return false;
		for (size_t i = 0; i < a->u.map.len; i++) {
			const smp_member *x = &a->u.map.items[i], *y = &b->u.map.items[i];
			if (x->klen != y->klen || memcmp(x->key, y->key, x->klen) ||
			    y->key[y->klen] != '\0' || !same_tree(x->val, y->val))
				return false;
		}
		return true;
	default:
		return smpv_equal(a, b);
	}
}

/* smp_tree_copy (the copying apply's copy of its target) gives what
 * smpv_copy gives and owns all of it: the source is freed before the copy
 * is read again (ASan would see a reference into it). Also a tree deeper
 * than the copy recurses (its fallback). */
static void tree_copy(void)
{
	static const char *const docs[] = {
		"{}", "[]", "null", "\"x\"", "1.5",
		"{\"a\":[],\"b\":{},\"c\":[{},[]],\"d\":\"\",\"e\":null,\"f\":true,\"g\":-7}",
		("items:\n- {name: a, value: \"1\"}\n- {name: b, value: \"2\", name2: [x, y]}\n"
		 "- {name: c}\nname: top\n"),
		"{\"k\\u0000z\":\"v\\u0000w\",\"k\":1}",
	};
	int bad = 0;

	for (size_t d = 0; d < sizeof(docs) / sizeof(docs[0]) + 1 && !bad; d++) {
		smp_doc *src;
		smp_arena a;
		char *before, *after;
		char *big = NULL;
		const char *text = d < sizeof(docs) / sizeof(docs[0]) ? docs[d] : NULL;
		if (!text) {
			/* many maps sharing keys, more than the key cache holds */
			size_t cap = 5000 * 40 + 16, n = 0;
			big = malloc(cap);
			n += (size_t)snprintf(big + n, cap - n, "[");
			for (int i = 0; i < 5000; i++)
				n += (size_t)snprintf(big + n, cap - n, "%s{\"k%d\":%d,\"name\":\"n\"}",
				                      i ? "," : "", i % 700, i);
			snprintf(big + n, cap - n, "]");
			text = big;
		}
		const smp_value *v = parse(&src, text);
		smp_arena_init(&a);
		smp_value *c1 = smp_tree_copy(&a, v), *c2 = smpv_copy(&a, v);
		before = json(v);
		if (v && (!c1 || !same_tree(c1, c2) || !same_tree(c1, v)))
			bad = 1;
		smp_doc_free(src);
		after = c1 ? json(c1) : NULL;
		if (v && (!c1 || !before || !after || strcmp(before, after)))
			bad = 2;
		smp_free(before);
		smp_free(after);
		smp_arena_release(&a);
		free(big);
	}
	/* 5,000 levels: the part below 4,096 is copied by smpv_copy */
	if (!bad) {
		smp_arena a, b;
		smp_arena_init(&a);
		smp_arena_init(&b);
		smp_value *v = smpv_str(&a, "leaf", 4);
		for (int i = 0; i < 5000; i++) {
			smp_value *m = smpv_map(&a, 1);
			smpv_map_add_copy(&a, m, i % 2 ? "x" : "y", 1, v);
			v = m;
		}
		smp_value *c = smp_tree_copy(&b, v);
		if (!c || !smpv_equal(c, v))
			bad = 3;
		smp_arena_release(&a);
		const smp_value *p = c;
		for (int i = 0; p && i < 5000; i++)
			p = p->type == SMP_MAP && p->u.map.len == 1 ? p->u.map.items[0].val : NULL;
		if (!p || p->type != SMP_STRING || strcmp(p->u.s.ptr, "leaf"))
			bad = 4;
		smp_arena_release(&b);
	}
	if (bad) {
		printf("FAIL tree copy (%d)\n", bad);
		failures++;
	} else {
		printf("PASS tree copy\n");
	}
}

int main(void)
{
	scratch();
	tree_copy();
	apply_doc();
	go_sort();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run(&cases[i]);
	conflicts();
	big_lists();
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
