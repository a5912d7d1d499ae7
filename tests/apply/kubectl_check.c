/*
 * kubectl_check.c - differential test against kubectl: for every golden
 * case of testdata/apply, every "configure" patch that `smpatch apply -o
 * patch` printed is applied to its live object with
 *   kubectl patch --local -f LIVE --type strategic|merge --patch-file P -o json
 * and the result must equal (as a JSON value) the object `-o json` printed.
 * Creates must print the object they send, unchanged objects the live one.
 * Exits 77 (skip) when kubectl is not on PATH.
 *
 * Usage: apply_kubectl_check TESTDATA_DIR TMPDIR
 */
#include "smpatch.h"
#include "../check.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static int checked;

static smp_doc *load(const char *path)
{
	smp_doc *d = NULL;
	smp_error err;

	if (smp_doc_parse_file(&d, path, NULL, &err))
		return NULL;
	return d;
}

static const char *str(const smp_value *v, const char *path)
{
	const char *s = smp_value_string(smp_value_at(v, path), NULL);
	return s ? s : "";
}

static size_t group_len(const char *av)
{
	const char *s = strchr(av, '/');
	return s ? (size_t)(s - av) : 0;
}

/* The live object a patch line is about (Lists expanded). */
static const smp_value *find_live(const smp_doc *live, const smp_value *rec)
{
	const char *av = str(rec, "apiVersion"), *kind = str(rec, "kind");
	const char *ns = str(rec, "namespace"), *name = str(rec, "name");

	for (size_t i = 0; i < smp_doc_count(live); i++) {
		const smp_value *r = smp_doc_root(live, i);
		const smp_value *items = smp_map_get(r, "items");
		size_t n = smp_value_type(items) == SMP_LIST ? smp_value_len(items) : 1;
		for (size_t j = 0; j < n; j++) {
			const smp_value *o = smp_value_type(items) == SMP_LIST ? smp_list_get(items, j) : r;
			const char *oav = str(o, "apiVersion");
			if (group_len(oav) == group_len(av) &&
			    strncmp(oav, av, group_len(av)) == 0 && strcmp(str(o, "kind"), kind) == 0 &&
			    strcmp(str(o, "metadata.name"), name) == 0 &&
			    strcmp(smp_apply_namespace(o, NULL), ns) == 0)
				return o;
		}
	}
	return NULL;
}

static int write_json(const char *path, const smp_value *v)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ok;

	if (smp_print(&text, &len, v, &po, NULL))
		return -1;
	f = fopen(path, "wb");
	ok = f && fwrite(text, 1, len, f) == len;
	if (f && fclose(f) != 0)
		ok = 0;
	smp_free(text);
	return ok ? 0 : -1;
}

static void report(const char *cs, const char *what, const smp_value *a, const smp_value *b)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	char *x = NULL, *y = NULL;

	po.sort_keys = true;
	smp_print(&x, NULL, a, &po, NULL);
	smp_print(&y, NULL, b, &po, NULL);
	fprintf(stderr, "%s: %s\n  smpatch: %s\n  kubectl: %s\n", cs, what, x ? x : "?",
	        y ? y : "?");
	smp_free(x);
	smp_free(y);
	failures++;
}

/* The objects `-o json` printed: one alone, several as one List (as
 * kubectl 1.32), pruned ones after it; the Status of a failed object is
 * left out. *out holds up to max of them. */
static size_t printed_objects(const smp_value **out, size_t max, const smp_doc *doc)
{
	size_t n = 0;

	for (size_t i = 0; i < smp_doc_count(doc); i++) {
		const smp_value *v = smp_doc_root(doc, i);
		const smp_value *items = smp_map_get(v, "items");

		if (strcmp(str(v, "kind"), "List") == 0 && smp_value_type(items) == SMP_LIST) {
			for (size_t j = 0; j < smp_value_len(items) && n < max; j++)
				out[n++] = smp_list_get(items, j);
		} else if (n < max && strcmp(str(v, "kind"), "Status") != 0) {
			out[n++] = v;
		}
	}
	return n;
}

/* The -o patch lines of objects that did not fail. */
static size_t patch_records(const smp_value **out, size_t max, const smp_doc *doc)
{
	size_t n = 0;

	for (size_t i = 0; i < smp_doc_count(doc) && n < max; i++) {
		const char *action = str(smp_doc_root(doc, i), "action");

		if (strcmp(action, "error") != 0 && strcmp(action, "conflict") != 0)
			out[n++] = smp_doc_root(doc, i);
	}
	return n;
}

static void check_case(const char *root, const char *cs, const char *tmp)
{
	const smp_value *objs[256], *recs[256];
	size_t nobjs, nrecs;
	char p[4096], lp[4096], pp[4096], op[4096], cmd[16384];
	smp_doc *patches, *objects, *live;
	bool managed;

	snprintf(p, sizeof(p), "%s/%s/expected/patch/stdout", root, cs);
	patches = load(p);
	snprintf(p, sizeof(p), "%s/%s/expected/json/stdout", root, cs);
	objects = load(p);
	snprintf(p, sizeof(p), "%s/%s/live.yaml", root, cs);
	live = load(p);
	if (!patches || !objects)
		goto out;
	nobjs = printed_objects(objs, sizeof(objs) / sizeof(objs[0]), objects);
	nrecs = patch_records(recs, sizeof(recs) / sizeof(recs[0]), patches);
	if (nrecs != nobjs) {
		fprintf(stderr, "%s: %zu patch lines but %zu objects\n", cs, nrecs, nobjs);
		failures++;
		goto out;
	}
	{
		/* --show-managed-fields: kubectl must keep them too */
		FILE *af;
		char args[4096] = "";

		snprintf(p, sizeof(p), "%s/%s/args.patch", root, cs);
		if ((af = fopen(p, "r"))) {
			size_t n = fread(args, 1, sizeof(args) - 1, af);
			args[n] = '\0';
			fclose(af);
		}
		managed = strstr(args, "--show-managed-fields") != NULL;
	}
	for (size_t i = 0; i < nrecs; i++) {
		const smp_value *rec = recs[i];
		const smp_value *obj = objs[i];
		const char *action = str(rec, "action");
		const smp_value *lv = live ? find_live(live, rec) : NULL;
		smp_doc *got = NULL;
		bool again = false;
		int st;

		/* A second configuration of the same object is applied to the
		 * first one's result, which is not in live.yaml. */
		for (size_t j = 0; j < i && !again; j++) {
			const smp_value *prev = recs[j];
			again = strcmp(str(prev, "kind"), str(rec, "kind")) == 0 &&
			        strcmp(str(prev, "name"), str(rec, "name")) == 0 &&
			        strcmp(str(prev, "namespace"), str(rec, "namespace")) == 0;
		}
		if (again)
			continue;

		if (strcmp(action, "create") == 0) {
			if (!smp_value_equal(smp_map_get(rec, "patch"), obj))
				report(cs, "create: the object sent differs from the result",
				       smp_map_get(rec, "patch"), obj);
			checked++;
			continue;
		}
		if (!lv) {
			fprintf(stderr, "%s: no live object for record %zu\n", cs, i);
			failures++;
			continue;
		}
		if (strcmp(action, "unchanged") == 0 || strcmp(action, "prune") == 0) {
			smp_doc *shown = NULL;
			smp_error err;

			if (smp_display_objects(NULL, &shown, NULL, lv,
			                        managed ? SMP_DISPLAY_MANAGED_FIELDS : 0, &err) ||
			    !smp_value_equal(smp_doc_root(shown, 0), obj))
				report(cs, "unchanged/prune: the result is not the live object", obj, lv);
			smp_doc_free(shown);
			checked++;
			continue;
		}
		snprintf(lp, sizeof(lp), "%s/live-%s-%zu.json", tmp, cs, i);
		snprintf(pp, sizeof(pp), "%s/patch-%s-%zu.json", tmp, cs, i);
		snprintf(op, sizeof(op), "%s/out-%s-%zu.json", tmp, cs, i);
		if (write_json(lp, lv) || write_json(pp, smp_map_get(rec, "patch"))) {
			fprintf(stderr, "%s: cannot write temporary files\n", cs);
			failures++;
			continue;
		}
		snprintf(cmd, sizeof(cmd), "kubectl patch --local -f '%s' --type %s --patch-file '%s' "
		         "%s-o json > '%s' 2>&1", lp,
		         strcmp(str(rec, "patchType"), "application/merge-patch+json") == 0 ? "merge"
		                                                                          : "strategic",
		         pp, managed ? "--show-managed-fields " : "", op);
		st = system(cmd);
		if (st != 0 || !(got = load(op))) {
			fprintf(stderr, "%s: kubectl failed (%d): see %s\n", cs, st, op);
			failures++;
			continue;
		}
		if (!smp_value_equal(smp_doc_root(got, 0), obj))
			report(cs, "configure: result differs from kubectl patch --local", obj,
			       smp_doc_root(got, 0));
		checked++;
		smp_doc_free(got);
		remove(lp);
		remove(pp);
		remove(op);
	}
out:
	smp_doc_free(patches);
	smp_doc_free(objects);
	smp_doc_free(live);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	DIR *d;
	struct dirent *e;
	char *names[1024];
	size_t n = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s TESTDATA_DIR TMPDIR\n", argv[0]);
		return 2;
	}
	if (system("command -v kubectl >/dev/null 2>&1") != 0) {
		puts("kubectl is not on PATH: skipping the differential test");
		return 77;
	}
	d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	while ((e = readdir(d)) && n < 1024)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(*names), cmp);
	for (size_t i = 0; i < n; i++) {
		check_case(argv[1], names[i], argv[2]);
		free(names[i]);
	}
	if (checked == 0) {
		fprintf(stderr, "no golden output found under %s\n", argv[1]);
		return 1;
	}
	if (failures) {
		fprintf(stderr, "%d of %d objects differ from kubectl\n", failures, checked);
		return 1;
	}
	printf("kubectl agrees on all %d objects of %zu cases\n", checked, n);
	return 0;
}
