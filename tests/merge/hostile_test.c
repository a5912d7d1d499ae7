/*
 * hostile_test.c - the engine never crashes, whatever the documents: random
 * values with directives in odd places ($patch with any value,
 * $setElementOrder / $retainKeys / $deleteFromPrimitiveList holding
 * anything, lists of lists, nulls in lists, mixed element types, duplicate
 * merge keys), run through every operation against the built-in Deployment
 * schema; plus documents nested 1,000 deep. Each call must return 0 or an
 * SMP_E... code with a message, and a result must print.
 *
 * usage: merge_hostile_test SEED COUNT
 */
#include "merge/merge.h"
#include "rng.h"
#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static smp_arena *A;

static const char *const keys[] = {
	"$patch", "$retainKeys", "$setElementOrder/containers", "$setElementOrder/env",
	"$deleteFromPrimitiveList/finalizers", "$deleteFromPrimitiveList/args",
	"$setElementOrder/finalizers", "$setElementOrderX", "$deleteFromPrimitiveList",
	"spec", "template", "containers", "env", "name", "value", "ports", "containerPort",
	"metadata", "finalizers", "labels", "args", "strategy", "type", "rollingUpdate",
	"replicas", "volumes", "image", "selector", "matchLabels", "x"};

static smp_value *gen(unsigned depth)
{
	unsigned r = pick(depth > 5 ? 6 : 10);

	switch (r) {
	case 0: return smpv_null(A);
	case 1: return smpv_int(A, (int64_t)pick(5) - 1);
	case 2: return smpv_float(A, pick(3) / 2.0);
	case 3: return smpv_bool(A, pick(2));
	case 4: {
		static const char *const s[] = {"replace", "delete", "merge", "bogus", "a", "nginx", ""};
		const char *x = s[pick(7)];
		return smpv_str(A, x, strlen(x));
	}
	case 5: return smpv_str(A, "name", 4);
	case 6: case 7: {
		smp_value *l = smpv_list(A, 0);
		unsigned n = pick(4);
		for (unsigned i = 0; i < n; i++)
			smpv_list_add(A, l, gen(depth + 1));
		return l;
	}
	default: {
		smp_value *m = smpv_map(A, 0);
		unsigned n = pick(5);
		for (unsigned i = 0; i < n; i++) {
			const char *k = keys[pick(sizeof(keys) / sizeof(keys[0]))];
			if (!smpv_map_get(m, k))
				smpv_map_add_copy(A, m, k, strlen(k), gen(depth + 1));
		}
		return m;
	}
	}
}

/* Mostly maps at the top, where the interesting paths are. */
static smp_value *gen_doc(void)
{
	smp_value *v = gen(0);

	if (v->type != SMP_MAP && pick(8)) {
		smp_value *m = smpv_map(A, 1), *s = smpv_map(A, 1);
		const char *k = keys[pick(sizeof(keys) / sizeof(keys[0]))];
		smpv_map_add_copy(A, s, k, strlen(k), v);
		smpv_map_add_copy(A, m, "spec", 4, s);
		v = m;
	}
	return v;
}

static void check(const char *what, int rc, const smp_value *res, const smp_error *err)
{
	if (rc > 0 || rc < SMP_EINTERNAL) {
		printf("FAIL %s: odd return code %d\n", what, rc);
		failures++;
		return;
	}
	if (rc && (!err->message[0] || err->code != rc)) {
		printf("FAIL %s: error %d without a message\n", what, rc);
		failures++;
		return;
	}
	if (!rc) {
		char *s = NULL;
		if (!res || smp_print(&s, NULL, res, NULL, NULL)) {
			printf("FAIL %s: result does not print\n", what);
			failures++;
		}
		smp_free(s);
	}
}

static smp_value *deep(unsigned n, bool lists)
{
	smp_value *v = smpv_str(A, "leaf", 4);
	for (unsigned i = 0; i < n; i++) {
		if (lists && i % 2) {
			smp_value *l = smpv_list(A, 1);
			smpv_list_add(A, l, v);
			v = l;
		} else {
			smp_value *m = smpv_map(A, 1);
			smpv_map_add_copy(A, m, "spec", 4, v);
			v = m;
		}
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long seed = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
	unsigned count = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1000;
	const smp_stype *t;
	smp_error err;

	st = 0x2545F4914F6CDD1Dull ^ (seed * 0x9E3779B97F4A7C15ull);
	if (smp_schema_kind(&t, smp_schema_builtin(), "apps/v1", "Deployment", &err)) {
		printf("no Deployment schema: %s\n", err.message);
		return 1;
	}
	for (unsigned it = 0; it < count; it++) {
		smp_arena a;
		smp_value *x, *y, *z, *r = NULL;
		bool conflict;
		int rc;

		smp_arena_init(&a);
		A = &a;
		x = gen_doc();
		y = gen_doc();
		z = gen_doc();
		const smp_stype *ts[2] = {t, NULL};
		for (int k = 0; k < 2; k++) {
			memset(&err, 0, sizeof(err));
			rc = smp_sm_apply(&r, A, x, y, ts[k], &err);
			check("apply", rc, r, &err);
			{
				/* the fast paths off: the same outcome */
				smp_value *g = NULL;
				smp_error e2;
				memset(&e2, 0, sizeof(e2));
				int rc2 = smp_sm_apply_test(&g, A, x, y, ts[k], true, NULL, &e2);
				if (rc2 != rc || (rc && (strcmp(err.message, e2.message) ||
				                         strcmp(err.path, e2.path))) ||
				    (!rc && !smpv_equal(r, g))) {
					printf("FAIL apply: the general path differs (%d/%d %s)\n", rc, rc2,
					       e2.message);
					failures++;
				}
			}
			rc = smp_sm_diff2(&r, A, x, y, ts[k], &err);
			check("diff2", rc, r, &err);
			rc = smp_sm_diff3(&r, A, x, y, z, ts[k], pick(2), &err);
			check("diff3", rc, r, &err);
			if (x->type == SMP_MAP && y->type == SMP_MAP)
				smp_sm_conflicts(&conflict, x, y, ts[k], &err);
		}
		rc = smp_jmp_apply(&r, A, x, y, &err);
		check("merge apply", rc, r, &err);
		rc = smp_jmp_diff2(&r, A, x, y, &err);
		check("merge diff2", rc, r, &err);
		rc = smp_jmp_diff3(&r, A, x, y, z, &err);
		check("merge diff3", rc, r, &err);
		rc = smp_jsonpatch_apply(&r, A, x, y, &err);
		check("json patch", rc, r, &err);
		(void)smp_has_conflicts(x, y);
		smp_arena_release(&a);
		if (failures)
			break;
	}
	/* 1,000 levels of maps, and of maps and lists. */
	for (int lists = 0; lists < 2; lists++) {
		smp_arena a;
		smp_value *r = NULL;
		int rc;

		smp_arena_init(&a);
		A = &a;
		smp_value *o = deep(1000, lists), *m = deep(1000, lists);
		smp_value *leaf = m;
		while (leaf->type != SMP_STRING)
			leaf = leaf->type == SMP_MAP ? leaf->u.map.items[0].val : leaf->u.list.items[0];
		leaf->u.s.ptr = "changed";
		leaf->u.s.len = 7;
		rc = smp_sm_diff2(&r, A, o, m, NULL, &err);
		check("deep diff2", rc, r, &err);
		if (!rc) {
			smp_value *res;
			rc = smp_sm_apply(&res, A, o, r, NULL, &err);
			check("deep apply", rc, res, &err);
			if (!rc && !smpv_equal(res, m)) {
				printf("FAIL deep round trip\n");
				failures++;
			}
		}
		rc = smp_sm_diff3(&r, A, o, m, o, NULL, false, &err);
		check("deep diff3", rc, r, &err);
		rc = smp_jmp_diff3(&r, A, o, m, o, &err);
		check("deep merge diff3", rc, r, &err);
		smp_arena_release(&a);
	}
	printf("seed %lu: %u random document triples, %d failures\n", seed, count, failures);
	return failures ? 1 : 0;
}
