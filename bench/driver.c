/*
 * driver.c - in-process timings of the library calls alone, no process
 * start-up, no file I/O (bench/, uses only the public header).
 *
 *   driver DIR FAMILY REPS
 *
 * REPS is a minimum: small inputs are repeated more (up to 101 times).
 * Every repetition starts on cold memory and a cold cache (start_ms).
 *
 * DIR holds what gen wrote (last.json, new.json, live.json, patch.json,
 * expected.json, expected3.json or apply.json). Each operation runs REPS
 * times; the median of its thread CPU time is reported, in milliseconds, on
 * one line:
 *
 *   parse3 print3 diff3 ratio patch apply status inplace
 *
 *   parse3  smp_doc_parse of last, new and live (sum of the three medians)
 *   print3  smp_print (compact JSON) of the same three documents
 *   diff3   smp_diff_three_way(last, new, live) (for a List: per item)
 *   ratio   diff3 / (parse3 + print3)   (issue 7 target: at most 2)
 *   patch   smp_patch_apply(live, patch) (for a List: to every item)
 *   apply   smp_apply_object(live, new) (for a List: every config object)
 *   status  "ok", or "refused" when smp_apply_object refused the object
 *           because its annotations would exceed 262,144 bytes (as the API
 *           server would); it still encodes the annotation and computes the
 *           three-way patch (their errors come first), not the result
 *   inplace smp_patch_apply_doc(live document, patch): the patch applied in
 *           place, as `smpatch patch` does (-1 for a List)
 *
 * Results are checked with smp_value_equal against the generator's expected
 * documents; a mismatch or a failing call prints a message to stderr and
 * exits 1, so a fast wrong answer never shows up as a timing.
 */
#include "smpatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#define MAX_REPS 101

typedef struct input {
	char *buf;
	size_t len;
	smp_doc *doc;
	const smp_value *root;
} input;

/* CPU time of this (single) thread, user + system: unlike wall time it does
 * not grow when other processes compete for the two cores. */
static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Each timed call starts as a call in a new process would, on cold memory
 * and a cold cache: glibc gives the memory freed by the previous
 * repetition back to the kernel (so every repetition of every size
 * page-faults what it touches), and 32 MiB of other data is walked through
 * the caches (L2 is 4 MiB here). Otherwise a small document's memory and
 * data stay warm between repetitions while a large one's do not, and the
 * medians compare cache and allocator thresholds across sizes instead of
 * the library's work. Neither step is timed. */
#define FLUSH_BYTES ((size_t)32 << 20)
static unsigned char *flush_buf; /* this program's only global: set in main */

static double start_ms(void)
{
	unsigned acc = 0;

#if defined(__GLIBC__)
	malloc_trim(0);
#endif
	for (size_t i = 0; flush_buf && i < FLUSH_BYTES; i += 64) {
		flush_buf[i] = (unsigned char)(flush_buf[i] + 1);
		acc += flush_buf[i];
	}
	if (flush_buf)
		flush_buf[0] = (unsigned char)acc; /* the walk has an effect */
	return now_ms();
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int fail(const char *what, const smp_error *err)
{
	char line[2048];
	smp_error_format(line, sizeof(line), err);
	fprintf(stderr, "driver: %s: %s\n", what, line);
	return 1;
}

/* got == want, compared outside the clock: the comparison's time is added
 * to *spent, which the caller takes off its timing. */
static bool equal_untimed(const smp_value *got, const smp_value *want, double *spent)
{
	double c0 = now_ms();
	bool ok = smp_value_equal(got, want);
	*spent += now_ms() - c0;
	return ok;
}

static int load(input *in, const char *dir, const char *name)
{
	char path[4096];
	FILE *f;
	long n;
	smp_error err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "driver: cannot read %s\n", path);
		if (f)
			fclose(f);
		return 1;
	}
	in->buf = malloc((size_t)n + 1);
	if (!in->buf || fread(in->buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "driver: cannot read %s\n", path);
		fclose(f);
		return 1;
	}
	fclose(f);
	in->len = (size_t)n;
	in->buf[n] = 0;
	if (smp_doc_parse(&in->doc, in->buf, in->len, NULL, &err) != SMP_OK)
		return fail(path, &err);
	in->root = smp_doc_root(in->doc, 0);
	return 0;
}

static void unload(input *in)
{
	smp_doc_free(in->doc);
	free(in->buf);
}

/* The median of reps timings of parsing (print 0) or printing as compact
 * JSON (print 1) the document of in, each call from cold memory, its result
 * freed outside the clock; t holds the timings. -1 when a call fails
 * (reported). */
static double parse_print_ms(const input *in, int print, int reps, double *t)
{
	smp_error err;

	for (int r = 0; r < reps; r++) {
		smp_doc *doc = NULL;
		char *text = NULL;
		size_t len;
		double t0 = start_ms();
		int e = print ? smp_print(&text, &len, in->root, NULL, &err)
		              : smp_doc_parse(&doc, in->buf, in->len, NULL, &err);
		t[r] = now_ms() - t0;
		smp_doc_free(doc);
		smp_free(text);
		if (e != SMP_OK) {
			fail(print ? "print" : "parse", &err);
			return -1;
		}
	}
	return median(t, reps);
}

static const char *item_name(const smp_value *obj)
{
	return smp_value_string(smp_value_at(obj, "metadata.name"), NULL);
}

typedef struct named {
	const char *name;
	const smp_value *obj;
} named;

static int by_name(const void *a, const void *b)
{
	return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* Items of a List, sorted by name, for matching configs to live objects. */
static named *index_items(const smp_value *list, size_t *n)
{
	const smp_value *items = smp_value_at(list, "items");
	*n = smp_value_len(items);
	named *ix = malloc((*n + 1) * sizeof(named));
	if (!ix)
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		ix[i].obj = smp_list_get(items, i);
		ix[i].name = item_name(ix[i].obj);
		if (!ix[i].name)
			ix[i].name = "";
	}
	qsort(ix, *n, sizeof(named), by_name);
	return ix;
}

static const smp_value *find(const named *ix, size_t n, const char *name)
{
	named key = {name, NULL};
	const named *hit = bsearch(&key, ix, n, sizeof(named), by_name);
	return hit ? hit->obj : NULL;
}

/* The objects an operation takes one by one: a List's items, or the one
 * document (items NULL, n 1). */
typedef struct objects {
	const smp_value *doc;
	const smp_value *items;
	size_t n;
} objects;

static objects objects_of(const smp_value *doc, int is_list)
{
	objects o = {doc, NULL, 1};

	if (is_list) {
		o.items = smp_value_at(doc, "items");
		o.n = smp_value_len(o.items);
	}
	return o;
}

static const smp_value *object_at(const objects *o, size_t i)
{
	return o->items ? smp_list_get(o->items, i) : o->doc;
}

int main(int argc, char **argv)
{
	input last = {0}, new = {0}, live = {0}, patch = {0}, expected = {0}, expected3 = {0};
	double t[MAX_REPS], parse3 = 0, print3 = 0, diff3, tpatch, tinplace, tapply;
	smp_error err;
	int rc = 1, reps;
	named *new_ix = NULL, *live_ix = NULL;
	size_t new_n = 0, live_n = 0;
	int is_list;
	bool rejected = false;

	flush_buf = calloc(1, FLUSH_BYTES);
	if (argc != 4) {
		fprintf(stderr, "usage: driver DIR FAMILY REPS\n");
		return 2;
	}
	const char *dir = argv[1];
	is_list = strcmp(argv[2], "list") == 0;
	reps = atoi(argv[3]);
	if (reps < 1 || reps > MAX_REPS) { /* REPS: the minimum */
		fprintf(stderr, "driver: REPS must be 1..%d\n", MAX_REPS);
		return 2;
	}
	if (load(&last, dir, "last.json") || load(&new, dir, "new.json") ||
	    load(&live, dir, "live.json") || load(&patch, dir, "patch.json") ||
	    load(&expected, dir, "expected.json") ||
	    load(&expected3, dir, is_list ? "apply.json" : "expected3.json"))
		goto out;
	/* Small inputs take a millisecond or less: repeat them more, so that
	 * their medians are as steady as those of the large ones (about 40 MB
	 * of live object per operation in all). */
	if ((double)reps * (double)live.len < 4e7) {
		double want = 4e7 / (double)(live.len ? live.len : 1);
		reps = want > MAX_REPS ? MAX_REPS : (int)want;
	}

	/* parse and print the three documents of a three-way diff */
	input *three[3] = {&last, &new, &live};
	for (int d = 0; d < 3; d++) {
		double parse = parse_print_ms(three[d], 0, reps, t);
		double print = parse < 0 ? -1 : parse_print_ms(three[d], 1, reps, t);
		if (print < 0)
			goto out;
		parse3 += parse;
		print3 += print;
	}

	if (is_list) {
		new_ix = index_items(new.root, &new_n);
		live_ix = index_items(live.root, &live_n);
		if (!new_ix || !live_ix) {
			fprintf(stderr, "driver: out of memory\n");
			goto out;
		}
	}

	/* three-way diff; the result applied to live must give expected3
	 * (checked once, outside the timing) */
	for (int r = 0; r < reps; r++) {
		double t0 = start_ms();
		if (!is_list) {
			smp_doc *p = NULL;
			int e = smp_diff_three_way(&p, last.root, new.root, live.root, NULL, &err);
			t[r] = now_ms() - t0;
			if (e != SMP_OK) {
				fail("three-way diff", &err);
				goto out;
			}
			if (r == 0) {
				smp_doc *res = NULL;
				e = smp_patch_apply(&res, live.root, smp_doc_root(p, 0), NULL, &err);
				if (e != SMP_OK) {
					smp_doc_free(p);
					fail("applying the three-way patch", &err);
					goto out;
				}
				if (!smp_value_equal(smp_doc_root(res, 0), expected3.root)) {
					fprintf(stderr, "driver: %s: live + three-way patch != "
					                "expected3.json\n", dir);
					smp_doc_free(res);
					smp_doc_free(p);
					goto out;
				}
				smp_doc_free(res);
			}
			smp_doc_free(p);
		} else {
			/* each live object with its last-applied config and new config */
			const smp_value *li = smp_value_at(last.root, "items");
			const smp_value *vi = smp_value_at(live.root, "items");
			for (size_t i = 0; i < smp_value_len(vi); i++) {
				const smp_value *lv = smp_list_get(vi, i);
				const smp_value *nv = find(new_ix, new_n, item_name(lv));
				if (!nv)
					continue;
				smp_doc *p = NULL;
				int e = smp_diff_three_way(&p, smp_list_get(li, i), nv, lv, NULL,
				                           &err);
				smp_doc_free(p);
				if (e != SMP_OK) {
					fail("three-way diff", &err);
					goto out;
				}
			}
			t[r] = now_ms() - t0;
		}
	}
	diff3 = median(t, reps);

	/* the strategic patch of patch.json */
	objects targets = objects_of(live.root, is_list);
	objects patched = objects_of(expected.root, is_list);
	for (int r = 0; r < reps; r++) {
		double t0 = start_ms(), spent = 0;
		for (size_t i = 0; i < targets.n; i++) {
			smp_doc *res = NULL;
			int e = smp_patch_apply(&res, object_at(&targets, i), patch.root, NULL, &err);
			if (e != SMP_OK) {
				fail("patch", &err);
				goto out;
			}
			if (r == 0 &&
			    !equal_untimed(smp_doc_root(res, 0), object_at(&patched, i), &spent)) {
				fprintf(stderr, "driver: %s: patch result %zu != expected.json\n", dir, i);
				smp_doc_free(res);
				goto out;
			}
			smp_doc_free(res);
		}
		t[r] = now_ms() - t0 - spent;
	}
	tpatch = median(t, reps);

	/* the same patch with smp_patch_apply_doc, which patches a document in
	 * place (what `smpatch patch` uses); the target is parsed again for
	 * each repetition, outside the clock. Not for a List (one root per
	 * document is required). */
	tinplace = -1;
	for (int r = 0; r < reps && !is_list; r++) {
		smp_doc *doc = NULL;
		if (smp_doc_parse(&doc, live.buf, live.len, NULL, &err) != SMP_OK) {
			fail("parse", &err);
			goto out;
		}
		double t0 = start_ms();
		int e = smp_patch_apply_doc(&doc, patch.root, NULL, &err);
		t[r] = now_ms() - t0;
		if (e != SMP_OK) {
			smp_doc_free(doc);
			fail("patch in place", &err);
			goto out;
		}
		if (r == 0 && !smp_value_equal(smp_doc_root(doc, 0), expected.root)) {
			fprintf(stderr, "driver: %s: in-place patch result != expected.json\n", dir);
			smp_doc_free(doc);
			goto out;
		}
		smp_doc_free(doc);
		if (r == reps - 1)
			tinplace = median(t, reps);
	}

	/* the kubectl-apply workflow for each config object (a List's results
	 * are in apply.json, loaded as expected3) */
	objects cfgs = objects_of(new.root, is_list);
	objects applied = objects_of(is_list ? expected3.root : expected.root, is_list);
	for (int r = 0; r < reps; r++) {
		double t0 = start_ms(), spent = 0;
		for (size_t i = 0; i < cfgs.n; i++) {
			smp_apply_result *res = NULL;
			const smp_value *cfg = object_at(&cfgs, i);
			const smp_value *cur = is_list ? find(live_ix, live_n, item_name(cfg))
			                               : live.root;
			int e = smp_apply_object(&res, cur, cfg, NULL, &err);
			if (e == SMP_EINVALOBJ && !is_list) {
				/* A config over the 262,144-byte annotation limit: the
				 * API server would refuse it, and so does smpatch (after
				 * the three-way patch, before the resulting object). */
				if (r == 0)
					fprintf(stderr, "driver: %s: apply refused: %s\n", dir,
					        err.message);
				rejected = true;
				continue;
			}
			if (e != SMP_OK) {
				fail("apply", &err);
				goto out;
			}
			if (r == 0 && !equal_untimed(smp_apply_result_object(res),
			                             object_at(&applied, i), &spent)) {
				fprintf(stderr, "driver: %s: apply result %zu != %s\n", dir, i,
				        is_list ? "apply.json" : "expected.json");
				smp_apply_result_free(res);
				goto out;
			}
			smp_apply_result_free(res);
		}
		t[r] = now_ms() - t0 - spent;
	}
	tapply = median(t, reps);

	printf("%.3f %.3f %.3f %.2f %.3f %.3f %s %.3f\n", parse3, print3, diff3,
	       diff3 / (parse3 + print3), tpatch, tapply, rejected ? "refused" : "ok", tinplace);
	rc = 0;
out:
	free(new_ix);
	free(live_ix);
	unload(&last);
	unload(&new);
	unload(&live);
	unload(&patch);
	unload(&expected);
	unload(&expected3);
	free(flush_buf);
	return rc;
}
