/*
 * fastpath_test.c - the merge engine's fast paths give exactly what the
 * general algorithm gives: generated Deployments and strategic patches
 * (containers, env, ports, volumes with $retainKeys, finalizers) with
 * $setElementOrder lists, run through smp_sm_apply with and without the
 * fast paths (smp_sm_apply_test) and in place; results must be the same
 * bytes (order included), errors the same code, message and path.
 *
 * Most cases are the usual shape (the order list holds every item, patch
 * items in its order), so the fast paths fire; the rest are perturbed:
 * duplicate merge keys, server-only items, items without the merge key or
 * not maps, integer keys, $patch: delete / replace / merge / bogus (also in
 * live items), $retainKeys dropping the merge key, order lists that do not
 * match. The test fails unless the fast paths handled a good share of the
 * lists and both outcomes (results, errors) occurred.
 *
 * usage: merge_fastpath_test SEED COUNT
 */
#include "merge/merge.h"
#include "rng.h"
#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static smp_arena *A;

static smp_value *str(const char *s) { return smpv_str(A, s, strlen(s)); }

static void put(smp_value *m, const char *k, smp_value *v)
{
	if (v)
		smpv_map_add_copy(A, m, k, strlen(k), v);
}

static void add(smp_value *l, smp_value *v) { smpv_list_add(A, l, v); }

/* A list kind: field name, merge key, name prefix, pool size. */
typedef struct lkind {
	const char *field, *mk, *prefix;
	unsigned pool;
	bool int_keys; /* containerPort */
} lkind;

static const lkind K_CONTAINERS = {"containers", "name", "c", 6, false};
static const lkind K_ENV = {"env", "name", "E", 9, false};
static const lkind K_PORTS = {"ports", "containerPort", "", 6, true};
static const lkind K_VOLUMES = {"volumes", "name", "v", 6, false};

static smp_value *key_value(const lkind *k, unsigned id)
{
	char b[32];

	if (k->int_keys)
		return smpv_int(A, 8000 + id);
	snprintf(b, sizeof(b), "%s%u", k->prefix, id);
	return str(b);
}

/* pert: how often (1 in pert) an element is odd; 0 = never */
static smp_value *elem(const lkind *k, unsigned id, bool in_patch, unsigned pert, unsigned depth);

static void fill(smp_value *m, const lkind *k, bool in_patch, unsigned pert, unsigned depth)
{
	char b[32];

	if (k == &K_CONTAINERS) {
		snprintf(b, sizeof(b), "img:%u", pick(3));
		put(m, "image", str(b));
		if (depth < 1 && pick(4)) {
			/* nested lists: built by the caller for patches */
			if (!in_patch) {
				smp_value *env = smpv_list(A, 0), *ports = smpv_list(A, 0);
				unsigned n = pick(7);
				unsigned used = 0;
				for (unsigned i = 0; i < n; i++) {
					unsigned id = pick(K_ENV.pool);
					if (pert || !(used & (1u << id))) {
						used |= 1u << id;
						add(env, elem(&K_ENV, id, false, pert, depth + 1));
					}
				}
				put(m, "env", env);
				if (pick(2)) {
					n = pick(4);
					used = 0;
					for (unsigned i = 0; i < n; i++) {
						unsigned id = pick(K_PORTS.pool);
						if (pert || !(used & (1u << id))) {
							used |= 1u << id;
							add(ports, elem(&K_PORTS, id, false, pert, depth + 1));
						}
					}
					put(m, "ports", ports);
				}
			}
		}
	} else if (k == &K_ENV) {
		snprintf(b, sizeof(b), "val-%u", pick(4));
		put(m, "value", str(b));
	} else if (k == &K_PORTS) {
		put(m, "protocol", str(pick(2) ? "TCP" : "UDP"));
	} else if (k == &K_VOLUMES) {
		smp_value *src = smpv_map(A, 1);
		if (pick(2)) {
			put(src, "medium", str(pick(2) ? "Memory" : ""));
			put(m, "emptyDir", src);
		} else {
			put(src, "secretName", str("s"));
			put(m, "secret", src);
		}
		if (in_patch && pick(2)) {
			smp_value *rk = smpv_list(A, 2);
			if (!(pert && !pick(pert)))
				add(rk, str("name"));
			add(rk, str(m->u.map.items[m->u.map.len - 1].key));
			put(m, "$retainKeys", rk);
		}
	}
}

static smp_value *elem(const lkind *k, unsigned id, bool in_patch, unsigned pert, unsigned depth)
{
	smp_value *m = smpv_map(A, 4);

	if (pert && !pick(pert)) {
		switch (pick(6)) {
		case 0: /* no merge key */
			fill(m, k, in_patch, pert, depth);
			return m;
		case 1: /* not a map */
			return str("odd");
		case 2: /* merge key of another type */
			put(m, k->mk, k->int_keys ? str("8001") : smpv_int(A, (int64_t)id));
			fill(m, k, in_patch, pert, depth);
			return m;
		case 3: /* a $patch key in a live item, or an odd one in a patch */
			put(m, k->mk, key_value(k, id));
			put(m, "$patch", str(in_patch ? (pick(2) ? "replace" : "bogus") : "delete"));
			return m;
		case 4: /* null merge key */
			put(m, k->mk, smpv_null(A));
			return m;
		default:
			break;
		}
	}
	put(m, k->mk, key_value(k, id));
	fill(m, k, in_patch, pert, depth);
	return m;
}

static unsigned elem_id(const lkind *k, const smp_value *e)
{
	const smp_value *v = e->type == SMP_MAP ? smpv_map_get(e, k->mk) : NULL;

	if (!v)
		return ~0u;
	if (v->type == SMP_INT)
		return (unsigned)(v->u.i - (k->int_keys ? 8000 : 0));
	if (v->type == SMP_STRING && v->u.s.len > strlen(k->prefix))
		return (unsigned)atoi(v->u.s.ptr + strlen(k->prefix));
	return ~0u;
}

static void patch_list(smp_value *pm, const lkind *k, const smp_value *live, unsigned pert,
                       unsigned depth);

/*
 * Adds to patch map pm: "$setElementOrder/<field>" and "<field>" for the
 * live list (may be NULL). The usual shape: survivors in live order with
 * additions inserted, patch items (changes, additions, deletions) in that
 * order.
 */
static void patch_list(smp_value *pm, const lkind *k, const smp_value *live, unsigned pert,
                       unsigned depth)
{
	unsigned ids[32], nids = 0, fin[48], nfin = 0;
	char key[64];
	smp_value *order = smpv_list(A, 0), *pl = smpv_list(A, 0);
	bool seen[32] = {false};

	if (live)
		for (size_t i = 0; i < live->u.list.len && nids < 32; i++) {
			unsigned id = elem_id(k, live->u.list.items[i]);
			if (id < 32 && !seen[id]) {
				seen[id] = true;
				ids[nids++] = id;
			}
		}
	/* final order: survivors (some deleted) plus additions at random places */
	bool deleted[32] = {false};
	for (unsigned i = 0; i < nids; i++) {
		if (!pick(5)) {
			deleted[ids[i]] = true;
			continue;
		}
		if (!pick(4)) {
			unsigned id = pick(k->pool);
			if (!seen[id]) {
				seen[id] = true;
				fin[nfin++] = id; /* added */
			}
		}
		fin[nfin++] = ids[i];
	}
	if (!pick(3)) {
		unsigned id = pick(k->pool);
		if (!seen[id]) {
			seen[id] = true;
			fin[nfin++] = id;
		}
	}
	if (pert && !pick(pert) && nfin > 1) {
		/* a server-only item: left out of the order list */
		memmove(fin + 0, fin + 1, (--nfin) * sizeof(*fin));
	}
	if (pert && !pick(pert) && nfin > 1) {
		unsigned a = pick(nfin), b = pick(nfin), t = fin[a];
		fin[a] = fin[b];
		fin[b] = t;
	}
	if (pert && !pick(pert) && nfin > 0 && nfin < 47) {
		unsigned dup = fin[pick(nfin)];
		fin[nfin++] = dup; /* a key twice */
	}
	for (unsigned i = 0; i < nfin; i++) {
		smp_value *o = smpv_map(A, 1);
		if (pert && !pick(pert * 2)) {
			add(order, pick(2) ? str("odd") : o);
			continue;
		}
		put(o, k->mk, key_value(k, fin[i]));
		add(order, o);
	}
	/* patch items: deletions first or in place, then changes/additions in
	 * the order list's order */
	for (unsigned i = 0; i < nids; i++)
		if (deleted[ids[i]] && pick(2)) {
			smp_value *d = smpv_map(A, 2);
			put(d, "$patch", str("delete"));
			put(d, k->mk, key_value(k, ids[i]));
			add(pl, d);
		}
	for (unsigned i = 0; i < nfin; i++) {
		bool in_live = false;
		const smp_value *le = NULL;
		for (size_t j = 0; live && j < live->u.list.len; j++)
			if (elem_id(k, live->u.list.items[j]) == fin[i]) {
				in_live = true;
				le = live->u.list.items[j];
				break;
			}
		if (in_live && pick(2))
			continue; /* unchanged */
		smp_value *e = elem(k, fin[i], true, pert, depth);
		if (k == &K_CONTAINERS && e->type == SMP_MAP && le && le->type == SMP_MAP &&
		    depth < 1 && pick(2)) {
			const smp_value *lenv = smpv_map_get(le, "env");
			patch_list(e, &K_ENV, lenv && lenv->type == SMP_LIST ? lenv : NULL, pert,
			           depth + 1);
			if (pick(3) == 0) {
				const smp_value *lp = smpv_map_get(le, "ports");
				patch_list(e, &K_PORTS, lp && lp->type == SMP_LIST ? lp : NULL, pert,
				           depth + 1);
			}
		}
		add(pl, e);
	}
	for (unsigned i = 0; i < nids; i++)
		if (deleted[ids[i]] && !pick(3)) {
			smp_value *d = smpv_map(A, 2);
			put(d, "$patch", str("delete"));
			put(d, k->mk, key_value(k, ids[i]));
			add(pl, d);
		}
	if (pert && !pick(pert * 2) && pl->u.list.len > 1) {
		/* patch items out of the order list's order */
		smp_value *t = pl->u.list.items[0];
		pl->u.list.items[0] = pl->u.list.items[pl->u.list.len - 1];
		pl->u.list.items[pl->u.list.len - 1] = t;
	}
	snprintf(key, sizeof(key), "$setElementOrder/%s", k->field);
	/* (with nothing on either side the reference fails: "no elements") */
	if (!(pert && !pick(pert * 3)) &&
	    (pert || pl->u.list.len || (live && live->u.list.len)))
		put(pm, key, order);
	if (pl->u.list.len || (pert && !pick(3)))
		put(pm, k->field, pl);
}

static smp_value *live_list(const lkind *k, unsigned pert)
{
	smp_value *l = smpv_list(A, 0);
	unsigned n = pick(7), used = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned id = pick(k->pool);
		if (pert || !(used & (1u << id))) {
			used |= 1u << id;
			add(l, elem(k, id, false, pert, 0));
		}
	}
	return l;
}

static smp_value *strings(unsigned n, unsigned pool)
{
	smp_value *l = smpv_list(A, n);
	char b[16];

	for (unsigned i = 0; i < n; i++) {
		snprintf(b, sizeof(b), "f%u", pick(pool));
		add(l, str(b));
	}
	return l;
}

static void gen(smp_value **target, smp_value **patch, unsigned pert)
{
	smp_value *t = smpv_map(A, 4), *meta = smpv_map(A, 2), *spec = smpv_map(A, 1);
	smp_value *tmpl = smpv_map(A, 1), *ps = smpv_map(A, 2);
	smp_value *p = smpv_map(A, 2), *pspec = smpv_map(A, 1), *ptmpl = smpv_map(A, 1);
	smp_value *pps = smpv_map(A, 2), *pmeta = smpv_map(A, 2);
	smp_value *containers = live_list(&K_CONTAINERS, pert);
	smp_value *volumes = live_list(&K_VOLUMES, pert);

	put(t, "apiVersion", str("apps/v1"));
	put(t, "kind", str("Deployment"));
	put(meta, "name", str("web"));
	/* scalars the patch replaces, deletes or changes the type of (the
	 * copying apply does not copy what it will replace) */
	if (pick(4)) {
		smp_value *labels = smpv_map(A, 4), *ann = smpv_map(A, 1), *sub = smpv_map(A, 1);
		put(sub, "x", smpv_int(A, 1));
		put(labels, "a", str("1"));
		put(labels, "b", str("2"));
		put(labels, "c", pick(2) ? sub : str("3"));
		put(labels, "e", smpv_list(A, 0));
		put(meta, "labels", labels);
		put(ann, "last-applied", str("{\"a\":\"long text\"}"));
		put(meta, "annotations", ann);
	}
	if (pick(2))
		put(meta, "finalizers", strings(pick(5), 6));
	put(t, "metadata", meta);
	put(ps, "containers", containers);
	if (pick(2))
		put(ps, "volumes", volumes);
	put(tmpl, "spec", ps);
	put(spec, "template", tmpl);
	put(t, "spec", spec);

	if (pick(3) == 0) {
		/* a primitive list: the order list is the live one plus new
		 * values, the patch a part of it in that order (perturbed: any) */
		const smp_value *f = smpv_map_get(meta, "finalizers");
		smp_value *order = f ? smpv_copy(A, f) : smpv_list(A, 2), *pf = smpv_list(A, 2);
		unsigned n = pick(3);
		char b[16];
		for (unsigned i = 0; i < n; i++) {
			snprintf(b, sizeof(b), "g%u", i);
			add(order, str(b));
		}
		for (size_t i = 0; i < order->u.list.len; i++)
			if (pick(2))
				add(pf, smpv_copy(A, order->u.list.items[i]));
		if (pert && !pick(pert))
			pf = strings(pick(3), 8);
		if (pert || pf->u.list.len || (f && f->u.list.len))
			put(pmeta, "$setElementOrder/finalizers", order);
		if (pert || pf->u.list.len)
			put(pmeta, "finalizers", pf);
		if (pick(2))
			put(pmeta, "$deleteFromPrimitiveList/finalizers", strings(1, 6));
		put(p, "metadata", pmeta);
	}
	if (pick(2)) {
		smp_value *pl = smpv_map(A, 4), *pa = smpv_map(A, 1);
		static const char *const lk[] = {"a", "b", "c", "d", "e"};
		for (unsigned i = 0, n = 1 + pick(4); i < n; i++) {
			const char *k = lk[pick(5)];
			if (smpv_map_get(pl, k))
				continue;
			switch (pick(4)) {
			case 0: put(pl, k, smpv_null(A)); break;
			case 1: put(pl, k, smpv_int(A, 7)); break;
			case 2: put(pl, k, smpv_map(A, 0)); break;
			default: put(pl, k, str("new")); break;
			}
		}
		put(pa, "last-applied", pick(2) ? str("{}") : smpv_null(A));
		put(pmeta, "labels", pl);
		if (pick(2))
			put(pmeta, "annotations", pa);
		if (!smpv_map_get(p, "metadata"))
			put(p, "metadata", pmeta);
	}
	patch_list(pps, &K_CONTAINERS, containers, pert, 0);
	if (pick(2))
		patch_list(pps, &K_VOLUMES, smpv_map_get(ps, "volumes"), pert, 0);
	put(ptmpl, "spec", pps);
	put(pspec, "template", ptmpl);
	put(p, "spec", pspec);
	*target = t;
	*patch = p;
}

static char *json(const smp_value *v)
{
	char *s = NULL;

	if (smp_print(&s, NULL, v, NULL, NULL))
		return NULL;
	return s;
}

int main(int argc, char **argv)
{
	unsigned long seed = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
	unsigned count = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1000;
	unsigned fast_total = 0, fast_cases = 0, ok = 0, errors = 0, diff3_ok = 0;
	smp_arena prev;
	const smp_value *prev_target = NULL;
	const smp_stype *t;
	smp_error err;

	st = 0x2545F4914F6CDD1Dull ^ (seed * 0x9E3779B97F4A7C15ull);
	smp_arena_init(&prev);
	if (smp_schema_kind(&t, smp_schema_builtin(), "apps/v1", "Deployment", &err)) {
		printf("no Deployment schema: %s\n", err.message);
		return 1;
	}
	for (unsigned it = 0; it < count && !failures; it++) {
		smp_arena a;
		smp_value *target, *patch, *r1 = NULL, *r2 = NULL, *r3 = NULL, *copy;
		smp_error e1, e2, e3;
		unsigned fast = 0;
		int rc1, rc2, rc3;
		/* half the cases clean, the rest perturbed more or less often */
		unsigned pert = it % 2 ? 0 : 3 + pick(12);

		smp_arena_init(&a);
		A = &a;
		gen(&target, &patch, pert);
		char *tj = json(target), *pj = json(patch);
		memset(&e1, 0, sizeof(e1));
		memset(&e2, 0, sizeof(e2));
		memset(&e3, 0, sizeof(e3));
		rc1 = smp_sm_apply_test(&r1, A, target, patch, t, false, &fast, &e1);
		rc2 = smp_sm_apply_test(&r2, A, target, patch, t, true, NULL, &e2);
		copy = smpv_copy(A, target);
		rc3 = smp_sm_apply_inplace(&r3, A, copy, patch, t, &e3);
		char *j1 = rc1 ? NULL : json(r1), *j2 = rc2 ? NULL : json(r2);
		char *j3 = rc3 ? NULL : json(r3);
		if (rc1 != rc2 || rc1 != rc3 ||
		    (rc1 && (strcmp(e1.message, e2.message) || strcmp(e1.path, e2.path) ||
		             strcmp(e1.message, e3.message) || strcmp(e1.path, e3.path))) ||
		    (!rc1 && (!j1 || !j2 || !j3 || strcmp(j1, j2) || strcmp(j1, j3)))) {
			printf("FAIL case %u (seed %lu)\n  target %s\n  patch  %s\n", it, seed, tj, pj);
			printf("  fast:    %d %s at %s: %s\n", rc1, e1.message, e1.path, j1 ? j1 : "");
			printf("  general: %d %s at %s: %s\n", rc2, e2.message, e2.path, j2 ? j2 : "");
			printf("  inplace: %d %s at %s: %s\n", rc3, e3.message, e3.path, j3 ? j3 : "");
			failures++;
		}
		/* the three-way diff (whose merge of its two patches goes through
		 * the same code) on this target, the result and the target of
		 * another case: fast paths on and off give the same */
		if (!rc1 && prev_target) {
			smp_value *d1 = NULL, *d2 = NULL;
			smp_error f1, f2;
			memset(&f1, 0, sizeof(f1));
			memset(&f2, 0, sizeof(f2));
			int q1 = smp_sm_diff3_test(&d1, A, target, r1, prev_target, t, true, false, &f1);
			int q2 = smp_sm_diff3_test(&d2, A, target, r1, prev_target, t, true, true, &f2);
			char *k1 = q1 ? NULL : json(d1), *k2 = q2 ? NULL : json(d2);
			if (q1 != q2 || (q1 && (strcmp(f1.message, f2.message) || strcmp(f1.path, f2.path))) ||
			    (!q1 && (!k1 || !k2 || strcmp(k1, k2)))) {
				printf("FAIL diff3 case %u (seed %lu): %d %s / %d %s\n  %s\n  %s\n", it, seed,
				       q1, f1.message, q2, f2.message, k1 ? k1 : "", k2 ? k2 : "");
				failures++;
			}
			diff3_ok += !q1;
			smp_free(k1);
			smp_free(k2);
		}
		if (rc1)
			errors++;
		else
			ok++;
		fast_total += fast;
		fast_cases += fast > 0;
		smp_free(tj);
		smp_free(pj);
		smp_free(j1);
		smp_free(j2);
		smp_free(j3);
		smp_arena_release(&prev);
		prev = a; /* this case's target is the next one's current object */
		prev_target = target;
	}
	smp_arena_release(&prev);
	printf("%u cases: %u results, %u errors; fast paths ordered %u lists in %u cases; "
	       "%u three-way diffs\n", count, ok, errors, fast_total, fast_cases, diff3_ok);
	/* The comparison means something only if both paths were exercised. */
	if (!failures && (fast_cases < count / 4 || ok < count / 4 || errors < count / 50 ||
	                  diff3_ok < count / 8)) {
		printf("FAIL the generated cases do not exercise both paths enough\n");
		failures++;
	}
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
