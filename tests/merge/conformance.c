/*
 * conformance.c - runs the reference's own cases (SMP_SHARED_DIR/conformance)
 * against the engine, suite by suite, under every schema variant a case
 * lists, checking exactly what ../shared/conformance/README.md says the
 * upstream test checks.
 *
 * usage: merge_conformance SUITE      (SMP_SHARED_DIR in the environment)
 * exit:  0 all pass, 1 a failure, 77 the shared folder is absent.
 */
#include "merge/merge_bytes.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int npass, nfail, nskip;
static const char *cur_id, *cur_variant;

/* Schemas are loaded once per file. */
static struct {
	char *path;
	smp_schema *schema;
} schemas[16];
static int nschemas;

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s [%s]: ", cur_id, cur_variant ? cur_variant : "-");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	nfail++;
}

static const smp_value *at(const smp_value *v, const char *path)
{
	return smp_value_at(v, path);
}

static const char *str(const smp_value *v)
{
	return smp_value_type(v) == SMP_STRING ? smp_value_string(v, NULL) : NULL;
}

static size_t slen(const smp_value *v)
{
	size_t n = 0;
	smp_value_string(v, &n);
	return n;
}

static const smp_schema *load_schema(const char *dir, const char *file)
{
	char path[4096];
	smp_error err;

	snprintf(path, sizeof(path), "%s/conformance/%s", dir, file);
	for (int i = 0; i < nschemas; i++)
		if (strcmp(schemas[i].path, path) == 0)
			return schemas[i].schema;
	if (nschemas == 16)
		return NULL;
	if (smp_schema_load_file(&schemas[nschemas].schema, path, &err)) {
		printf("cannot load schema %s: %s\n", path, err.message);
		return NULL;
	}
	schemas[nschemas].path = strdup(path);
	return schemas[nschemas++].schema;
}

/* fields.NAME.<which> as bytes; NULL (Go nil) when absent or null. */
static const char *field_bytes(const smp_value *c, const char *name, const char *which,
                               size_t *len)
{
	char p[256];
	const smp_value *v;

	snprintf(p, sizeof(p), "fields.%s.%s", name, which);
	v = at(c, p);
	*len = slen(v);
	return str(v);
}

static bool same_bytes(const char *got, size_t glen, const char *want, size_t wlen)
{
	return want && got && glen == wlen && memcmp(got, want, glen) == 0;
}

static bool desc_has_conflict(const smp_value *c)
{
	const char *d = str(at(c, "description"));
	return d && strstr(d, "conflict");
}

/* ---- strategic suites ---- */

typedef struct variant {
	const char *name;
	const smp_stype *root;
} variant;

static bool check_op(const char *what, smp_bytes_kind kind, const char *b1, size_t n1,
                     const char *b2, size_t n2, const char *b3, size_t n3,
                     const smp_stype *root, bool ow, const char *want, size_t wlen,
                     char **got_out, size_t *got_len)
{
	char *got = NULL;
	size_t glen = 0;
	smp_error err;
	int rc = smp_bytes_op(&got, &glen, kind, b1, n1, b2, n2, b3, n3, root, ow, &err);

	if (rc) {
		fail("%s failed: %s (at %s)", what, err.message, err.path);
		return false;
	}
	if (want && !same_bytes(got, glen, want, wlen)) {
		fail("%s: got %s want %s", what, got, want);
		smp_free(got);
		return false;
	}
	if (got_out) {
		*got_out = got;
		*got_len = glen;
	} else {
		smp_free(got);
	}
	return true;
}

/* smp-create (sorted) and smp-raw / smp-rawextension (raw bytes). */
static bool run_create_like(const smp_value *c, const variant *v, const char *which)
{
	size_t no, nm, nc, ntw, ntr, nth, nr;
	const char *o = field_bytes(c, "original", which, &no);
	const char *m = field_bytes(c, "modified", which, &nm);
	const char *cur = field_bytes(c, "current", which, &nc);
	const char *tw = field_bytes(c, "twoWay", which, &ntw);
	const char *twr = field_bytes(c, "twoWayResult", which, &ntr);
	const char *th = field_bytes(c, "threeWay", which, &nth);
	const char *res = field_bytes(c, "result", which, &nr);
	char *p = NULL;
	size_t pl = 0;
	bool ok = true;
	bool raw = strcmp(which, "goBytes") == 0;

	if (raw) {
		/* An absent field is YAMLToJSON(nil) = "null" there. */
		if (!o) o = "null", no = 4;
		if (!m) m = "null", nm = 4;
		if (!cur) cur = "null", nc = 4;
	}
	if (!twr) {
		twr = m;
		ntr = nm;
	}
	if (smp_value_bool(at(c, "expect.twoWay.run"))) {
		if (!check_op("two-way create", SMP_BYTES_SM_DIFF2, o, no, m, nm, NULL, 0, v->root,
		              true, tw, ntw, &p, &pl))
			return false;
		ok = check_op("two-way apply", SMP_BYTES_SM_APPLY, o ? o : NULL, no, p, pl, NULL, 0,
		              v->root, true, twr, ntr, NULL, NULL);
		smp_free(p);
		if (!ok)
			return false;
	}
	if (!smp_value_bool(at(c, "expect.threeWay.run")))
		return true;
	{
		char *got = NULL;
		size_t glen = 0;
		smp_error err;
		int rc = smp_bytes_op(&got, &glen, SMP_BYTES_SM_DIFF3, o, no, m, nm, cur, nc, v->root,
		                      false, &err);
		bool result_nonempty = res && nr > 0;

		if (raw) {
			/* len(Result) is measured on the raw YAML there. */
			const char *rr = str(at(c, "fields.result.raw"));
			result_nonempty = rr && *rr;
		}
		if (rc) {
			if (rc != SMP_ECONFLICT) {
				fail("three-way create failed: %s (at %s)", err.message, err.path);
				return false;
			}
			if (!strstr(err.message, "conflict")) {
				fail("conflict error without \"conflict\": %s", err.message);
				return false;
			}
			if (!desc_has_conflict(c)) {
				fail("unexpected conflict: %s", err.message);
				return false;
			}
			if (!result_nonempty)
				return true;
			if (!check_op("three-way create (overwrite)", SMP_BYTES_SM_DIFF3, o, no, m, nm, cur,
			              nc, v->root, true, th, nth, &p, &pl))
				return false;
		} else {
			if (desc_has_conflict(c)) {
				fail("expected a conflict, got patch %s", got);
				smp_free(got);
				return false;
			}
			if (!result_nonempty) {
				fail("case has an empty result");
				smp_free(got);
				return false;
			}
			if (!same_bytes(got, glen, th, nth)) {
				fail("three-way create: got %s want %s", got, th);
				smp_free(got);
				return false;
			}
			p = got;
			pl = glen;
		}
	}
	ok = check_op("three-way apply", SMP_BYTES_SM_APPLY, cur, nc, p, pl, NULL, 0, v->root, true,
	              res, nr, NULL, NULL);
	smp_free(p);
	return ok;
}

static bool run_custom(const smp_value *c, const variant *v)
{
	const smp_value *o = at(c, "expect.applyInputBytes.original");
	const smp_value *p = at(c, "expect.applyInputBytes.patch");
	const smp_value *w = at(c, "expect.twoWayResultBytes");

	return check_op("apply", SMP_BYTES_SM_APPLY, str(o), slen(o), str(p), slen(p), NULL, 0,
	                v->root, true, str(w), slen(w), NULL, NULL);
}

static bool run_custom_raw(const smp_value *c, const variant *v)
{
	size_t no, np;
	const char *o = field_bytes(c, "original", "goBytes", &no);
	const char *p = field_bytes(c, "twoWay", "goBytes", &np);
	const char *want_err = str(at(c, "expect.expectedError"));
	const smp_value *w = at(c, "expect.twoWayResultBytes");

	if (want_err) {
		char *got = NULL;
		size_t glen;
		smp_error err;
		int rc = smp_bytes_op(&got, &glen, SMP_BYTES_SM_APPLY, o, no, p, np, NULL, 0, v->root,
		                      true, &err);
		if (!rc) {
			fail("apply succeeded (%s), want an error containing \"%s\"", got, want_err);
			smp_free(got);
			return false;
		}
		if (!strstr(err.message, want_err)) {
			fail("error \"%s\" lacks \"%s\"", err.message, want_err);
			return false;
		}
		return true;
	}
	return check_op("apply", SMP_BYTES_SM_APPLY, o, no, p, np, NULL, 0, v->root, true, str(w),
	                slen(w), NULL, NULL);
}

static bool run_number(const smp_value *c, const variant *v)
{
	size_t no, nn, np, nr;
	const char *o = field_bytes(c, "old", "raw", &no);
	const char *n = field_bytes(c, "new", "raw", &nn);
	const char *ep = field_bytes(c, "expectedPatch", "raw", &np);
	const char *er = field_bytes(c, "expectedResult", "raw", &nr);
	char *p;
	size_t pl;
	bool ok;

	if (!check_op("two-way create", SMP_BYTES_SM_DIFF2, o, no, n, nn, NULL, 0, v->root, true, ep,
	              np, &p, &pl))
		return false;
	ok = check_op("two-way apply", SMP_BYTES_SM_APPLY, o, no, p, pl, NULL, 0, v->root, true, er,
	              nr, NULL, NULL);
	smp_free(p);
	return ok;
}

/* Either the create fails with the substring, or everything matches; only
 * 0015 accepts both (see README). */
static bool run_unknown_field(const smp_value *c, const variant *v)
{
	size_t no, nm, nc;
	const char *o = field_bytes(c, "original", "raw", &no);
	const char *m = field_bytes(c, "modified", "raw", &nm);
	const char *cur = field_bytes(c, "current", "raw", &nc);
	bool either = strstr(str(at(c, "expect.outcome")), "either") != NULL;
	const char *names[2] = {"twoWay", "threeWay"};

	for (int w = 0; w < 2; w++) {
		char k[64];
		const char *want_err, *wp, *wr;
		char *p = NULL;
		size_t pl = 0;
		smp_error err;
		int rc;

		snprintf(k, sizeof(k), "expect.%sCreateError", names[w]);
		want_err = str(at(c, k));
		snprintf(k, sizeof(k), "expect.%sPatchBytes", names[w]);
		wp = str(at(c, k));
		snprintf(k, sizeof(k), "expect.%sResultBytes", names[w]);
		wr = str(at(c, k));
		if (w == 0)
			rc = smp_bytes_op(&p, &pl, SMP_BYTES_SM_DIFF2, o, no, m, nm, NULL, 0, v->root, true,
			                  &err);
		else
			rc = smp_bytes_op(&p, &pl, SMP_BYTES_SM_DIFF3, o, no, m, nm, cur, nc, v->root,
			                  false, &err);
		if (rc) {
			if (!want_err || !strstr(err.message, want_err)) {
				fail("%s create failed: %s", names[w], err.message);
				return false;
			}
			if (either)
				printf("NOTE %s [%s]: %s create failed as accepted: %s\n", cur_id, v->name,
				       names[w], err.message);
			continue;
		}
		if (either)
			printf("NOTE %s [%s]: %s create succeeded (accepted outcome)\n", cur_id, v->name,
			       names[w]);
		if (want_err && !either) {
			fail("%s create succeeded (%s), want error \"%s\"", names[w], p, want_err);
			smp_free(p);
			return false;
		}
		if (!same_bytes(p, pl, wp, wp ? strlen(wp) : 0)) {
			fail("%s patch: got %s want %s", names[w], p, wp);
			smp_free(p);
			return false;
		}
		bool ok = check_op("apply", SMP_BYTES_SM_APPLY, w ? cur : o, w ? nc : no, p, pl, NULL,
		                   0, v->root, true, wr, wr ? strlen(wr) : 0, NULL, NULL);
		smp_free(p);
		if (!ok)
			return false;
	}
	return true;
}

static bool run_sort(const smp_value *c, const variant *v)
{
	size_t no;
	const char *o = field_bytes(c, "original", "goBytes", &no);
	const smp_value *w = at(c, "expect.sortedBytes");
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *d = NULL;
	smp_arena a;
	smp_value *r;
	smp_error err;
	char *got = NULL;
	size_t glen = 0;
	bool ok = false;

	po.format = SMP_FORMAT_JSON;
	if (smp_doc_parse(&d, o, no, &po, &err)) {
		fail("parse: %s", err.message);
		return false;
	}
	smp_arena_init(&a);
	if (smp_sm_sort_merge_lists(&r, &a, smp_doc_root(d, 0), v->root, &err) ||
	    smp_go_json(&got, &glen, r, &err))
		fail("sortMergeListsByName: %s", err.message);
	else if (!same_bytes(got, glen, str(w), slen(w)))
		fail("got %s want %s", got, str(w));
	else
		ok = true;
	smp_free(got);
	smp_arena_release(&a);
	smp_doc_free(d);
	return ok;
}

static bool run_bad_args(const smp_value *c)
{
	size_t no, np;
	const char *o = field_bytes(c, "original", "raw", &no);
	const char *p = field_bytes(c, "patch", "raw", &np);
	const char *want = str(at(c, "expect.expectedError"));
	char *got = NULL;
	size_t glen;
	smp_error err;

	if (smp_value_bool(at(c, "goOnly"))) {
		printf("SKIP %s: by design (goOnly): %s\n", cur_id,
		       str(at(c, "expect.goOnlyReason")) ? str(at(c, "expect.goOnlyReason"))
		                                        : "needs a Go struct");
		nskip++;
		return true;
	}
	if (!smp_bytes_op(&got, &glen, SMP_BYTES_SM_APPLY, o, no, p, np, NULL, 0, NULL, true,
	                  &err)) {
		fail("apply succeeded: %s", got);
		smp_free(got);
		return false;
	}
	if (strcmp(err.message, want) != 0) {
		fail("error \"%s\", want exactly \"%s\"", err.message, want);
		return false;
	}
	return true;
}

/* ---- schema-less suites ---- */

static const smp_value *parse_text(smp_doc **d, const char *s, size_t n)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_error err;

	po.format = SMP_FORMAT_JSON;
	if (smp_doc_parse(d, s, n, &po, &err)) {
		fail("parse %.*s: %s", (int)n, s, err.message);
		return NULL;
	}
	return smp_doc_root(*d, 0);
}

static bool run_has_conflicts(const smp_value *c)
{
	size_t na, nb;
	const char *a = field_bytes(c, "a", "json", &na);
	const char *b = field_bytes(c, "b", "json", &nb);
	bool want = smp_value_bool(at(c, "expect.hasConflicts"));
	smp_doc *da = NULL, *db = NULL;
	const smp_value *va = parse_text(&da, a, na), *vb = parse_text(&db, b, nb);
	bool ok = va && vb;

	for (int i = 0; ok && i < 10; i++) {
		if (smp_patch_has_conflicts(va, vb) != want || smp_patch_has_conflicts(vb, va) != want) {
			fail("HasConflicts(%s, %s) != %s", a, b, want ? "true" : "false");
			ok = false;
		}
	}
	smp_doc_free(da);
	smp_doc_free(db);
	return ok;
}

static bool run_keep_or_delete(const smp_value *c)
{
	const smp_value *o = at(c, "fields.originalObj.value");
	smp_arena a;
	smp_value *r;
	smp_error err;
	bool ok = true;

	smp_arena_init(&a);
	for (int k = 0; k < 2 && ok; k++) {
		const smp_value *want = at(c, k ? "expect.keepNullFalse" : "expect.keepNullTrue");
		if (smp_jmp_keep_or_delete_null(&r, &a, o, k == 0, &err)) {
			fail("keepOrDeleteNullInObj: %s", err.message);
			ok = false;
		} else if (!smp_value_equal(r, want)) {
			char *g = NULL;
			smp_go_json(&g, NULL, r, NULL);
			fail("keepNull=%s: got %s", k ? "false" : "true", g);
			smp_free(g);
			ok = false;
		}
	}
	smp_arena_release(&a);
	return ok;
}

static bool run_jmp_threeway(const smp_value *c)
{
	size_t no, nm, nc;
	const char *o = field_bytes(c, "original", "goBytes", &no);
	const char *m = field_bytes(c, "modified", "goBytes", &nm);
	const char *cur = field_bytes(c, "current", "goBytes", &nc);
	const smp_value *wp = at(c, "expect.threeWayPatchBytes");
	const smp_value *wr = at(c, "expect.threeWayResultBytes");
	char *p;
	size_t pl;
	bool ok;

	if (!check_op("three-way create", SMP_BYTES_JMP_DIFF3, o, no, m, nm, cur, nc, NULL, true,
	              str(wp), slen(wp), &p, &pl))
		return false;
	ok = check_op("MergePatch", SMP_BYTES_JMP_APPLY, cur ? cur : "{}", cur ? nc : 2, p, pl, NULL,
	              0, NULL, true, str(wr), slen(wr), NULL, NULL);
	smp_free(p);
	return ok;
}

/* ---- driver ---- */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_case(const char *dir, const char *suite, const smp_value *c)
{
	const smp_value *vars = at(c, "schemaVariants");
	int before = nfail;
	int reps = strcmp(suite, "smp-raw") == 0 ? 10 : 1;

	cur_id = str(at(c, "id"));
	cur_variant = NULL;
	if (strcmp(suite, "mergepatch-has-conflicts") == 0) {
		run_has_conflicts(c);
	} else if (strcmp(suite, "jmp-keep-or-delete-null") == 0) {
		run_keep_or_delete(c);
	} else if (strcmp(suite, "jmp-threeway") == 0) {
		run_jmp_threeway(c);
	} else if (strcmp(suite, "smp-bad-args") == 0) {
		run_bad_args(c);
	} else {
		size_t nv = smp_value_len(vars);
		if (nv == 0) {
			fail("no schema variants");
			return;
		}
		for (size_t i = 0; i < nv; i++) {
			const smp_value *vv = smp_list_get(vars, i);
			const smp_schema *s = load_schema(dir, str(smp_value_at(vv, "file")));
			variant v;
			smp_error err;
			const smp_stype *root;
			cur_variant = str(smp_value_at(vv, "variant"));
			if (!s) {
				fail("schema %s did not load", str(smp_value_at(vv, "file")));
				continue;
			}
			if (smp_schema_definition(&root, s, str(smp_value_at(vv, "model")), &err)) {
				fail("no definition %s: %s", str(smp_value_at(vv, "model")), err.message);
				continue;
			}
			v.name = cur_variant;
			v.root = root;
			for (int r = 0; r < reps; r++) {
				bool ok;
				if (strcmp(suite, "smp-create") == 0)
					ok = run_create_like(c, &v, "sortedGoBytes");
				else if (strcmp(suite, "smp-raw") == 0 || strcmp(suite, "smp-rawextension") == 0)
					ok = run_create_like(c, &v, "goBytes");
				else if (strcmp(suite, "smp-custom") == 0)
					ok = run_custom(c, &v);
				else if (strcmp(suite, "smp-custom-raw") == 0)
					ok = run_custom_raw(c, &v);
				else if (strcmp(suite, "smp-number") == 0)
					ok = run_number(c, &v);
				else if (strcmp(suite, "smp-unknown-field") == 0)
					ok = run_unknown_field(c, &v);
				else if (strcmp(suite, "smp-sort") == 0)
					ok = run_sort(c, &v);
				else {
					fail("unknown suite %s", suite);
					ok = false;
				}
				if (!ok)
					break;
			}
		}
	}
	if (nfail == before && !(strcmp(suite, "smp-bad-args") == 0 &&
	                         smp_value_bool(at(c, "goOnly")))) {
		printf("PASS %s%s\n", cur_id,
		       smp_value_len(vars) > 1 && strcmp(suite, "smp-bad-args") != 0
		           ? " (openapi-v2, openapi-v3)" : "");
		npass++;
	}
}

int main(int argc, char **argv)
{
	const char *dir = getenv("SMP_SHARED_DIR");
	char path[4096];
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s SUITE\n", argv[0]);
		return 2;
	}
	if (!dir || !*dir) {
		printf("SMP_SHARED_DIR is not set: conformance cases skipped\n");
		return 77;
	}
	snprintf(path, sizeof(path), "%s/conformance/%s", dir, argv[1]);
	d = opendir(path);
	if (!d) {
		printf("%s is absent: conformance cases skipped\n", path);
		return 77;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char f[4096 + 256];
		smp_doc *doc = NULL;
		smp_error err;
		snprintf(f, sizeof(f), "%s/%s", path, names[i]);
		if (smp_doc_parse_file(&doc, f, NULL, &err)) {
			printf("FAIL %s: cannot read: %s\n", names[i], err.message);
			nfail++;
		} else {
			run_case(dir, argv[1], smp_doc_root(doc, 0));
		}
		smp_doc_free(doc);
		free(names[i]);
	}
	free(names);
	for (int i = 0; i < nschemas; i++) {
		smp_schema_free(schemas[i].schema);
		free(schemas[i].path);
	}
	printf("%s: %d cases passed, %d failed, %d skipped by design (of %zu)\n", argv[1], npass,
	       nfail, nskip, n);
	if (n == 0) {
		printf("no cases found\n");
		return 1;
	}
	return nfail ? 1 : 0;
}
