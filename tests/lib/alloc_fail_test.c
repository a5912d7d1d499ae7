/*
 * alloc_fail_test.c - makes each allocation of a representative workload
 * fail in turn: parse, three-way diff, apply, print, the apply workflow,
 * schema loading, a custom resource's stored form and selectors. Every run
 * must end in SMP_ENOMEM (or, where the library recovers, in exactly the
 * normal output), never crash, and free everything it allocated.
 *
 * Linked against the static library with
 *   -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
 * so the library's own calls go through the counting wrappers below (libyaml
 * and libc allocate on their own and are not failed).
 *
 * usage: alloc_fail_test [-v] [SMP_SHARED_DIR [SOURCE_DIR]]
 * With SMP_SHARED_DIR, the workload also loads the reference's merge-item
 * OpenAPI v2 and v3 documents; with SOURCE_DIR it reads a file
 * (examples/apply/web.yaml) with smp_doc_parse_file.
 */
#include "smpatch.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);

/* ---- counting, failing, tracking allocator ---- */

static bool armed;          /* count and track only inside the workload */
static long calls;          /* allocation calls seen while armed */
static long fail_at;        /* fail this call (1-based); 0 = never */
static void *fail_caller;   /* return address of the failed call */

/* Live pointers allocated while armed: open addressing, no allocation. */
#define TRACK_SLOTS (1u << 20)
static void *track[TRACK_SLOTS];
static size_t tracked;       /* live entries */
static size_t used;          /* live entries and tombstones */

static size_t slot_of(void *p)
{
	return (size_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull) & (TRACK_SLOTS - 1);
}

static void track_add(void *p)
{
	size_t i = slot_of(p);

	while (track[i] && track[i] != (void *)1)
		i = (i + 1) & (TRACK_SLOTS - 1);
	if (!track[i])
		used++;
	track[i] = p;
	tracked++;
}

static void track_del(void *p)
{
	for (size_t i = slot_of(p); track[i]; i = (i + 1) & (TRACK_SLOTS - 1)) {
		if (track[i] == p) {
			track[i] = (void *)1; /* tombstone */
			tracked--;
			return;
		}
	}
}

static bool should_fail(void *caller)
{
	if (!armed)
		return false;
	if (++calls != fail_at)
		return false;
	fail_caller = caller;
	errno = ENOMEM; /* as malloc does when it fails */
	return true;
}

void *__wrap_malloc(size_t size)
{
	void *p;

	if (should_fail(__builtin_return_address(0)))
		return NULL;
	p = __real_malloc(size);
	if (p && armed)
		track_add(p);
	return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
	void *p;

	if (should_fail(__builtin_return_address(0)))
		return NULL;
	p = __real_calloc(n, size);
	if (p && armed)
		track_add(p);
	return p;
}

void *__wrap_realloc(void *old, size_t size)
{
	void *p;

	if (should_fail(__builtin_return_address(0)))
		return NULL;
	p = __real_realloc(old, size);
	if (p && armed) {
		if (old)
			track_del(old);
		track_add(p);
	}
	return p;
}

void __wrap_free(void *p)
{
	if (p && armed)
		track_del(p);
	__real_free(p);
}

/* ---- the workload ---- */

static const char last_applied[] =
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
	"  labels: &l {app: web, tier: frontend}\nspec:\n  minReadySeconds: 5\n"
	"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: *l}\n"
	"    spec:\n      containers:\n      - name: web\n        image: web:2.3.0\n"
	"        args: [--port=8080]\n        env:\n        - {name: MODE, value: production}\n"
	"        - {name: DEBUG, value: \"1\"}\n        ports:\n        - {containerPort: 8080, name: http}\n"
	"      volumes:\n      - name: data\n        emptyDir: {}\n";

static const char config[] =
	"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
	"  labels: {app: web, tier: frontend}\nspec:\n"
	"  selector: {matchLabels: {app: web}}\n  strategy: {type: Recreate}\n  template:\n"
	"    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n"
	"        image: web:2.4.1\n        args: [--port=8080, --log=json]\n        env:\n"
	"        - {name: MODE, value: production}\n        ports:\n        - {containerPort: 8080, name: http}\n"
	"      - name: metrics\n        image: \"exporter:0.9\"\n"
	"      volumes:\n      - name: data\n        configMap: {name: cfg}\n"
	"      finalizers: [a, b]\n";

static const char live[] =
	"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
	"\"namespace\":\"default\",\"labels\":{\"app\":\"web\",\"tier\":\"frontend\"},"
	"\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":"
	"\"{\\\"apiVersion\\\":\\\"apps/v1\\\",\\\"kind\\\":\\\"Deployment\\\",\\\"metadata\\\":"
	"{\\\"annotations\\\":{},\\\"name\\\":\\\"web\\\",\\\"namespace\\\":\\\"default\\\"},"
	"\\\"spec\\\":{\\\"minReadySeconds\\\":5}}\\n\"}},"
	"\"spec\":{\"replicas\":3,\"minReadySeconds\":5,\"selector\":{\"matchLabels\":{\"app\":\"web\"}},"
	"\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":\"25%\",\"maxUnavailable\":\"25%\"}},"
	"\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"web\","
	"\"image\":\"web:2.3.0\",\"imagePullPolicy\":\"IfNotPresent\",\"args\":[\"--port=8080\"],"
	"\"env\":[{\"name\":\"MODE\",\"value\":\"production\"},{\"name\":\"DEBUG\",\"value\":\"1\"}],"
	"\"ports\":[{\"containerPort\":8080,\"name\":\"http\",\"protocol\":\"TCP\"}]}],"
	"\"volumes\":[{\"name\":\"data\",\"emptyDir\":{}}],\"dnsPolicy\":\"ClusterFirst\"}}},"
	"\"status\":{\"replicas\":3}}";

static const char crd[] =
	"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
	"metadata: {name: widgets.example.com}\nspec:\n  group: example.com\n"
	"  scope: Namespaced\n  names: {kind: Widget, plural: widgets}\n  versions:\n"
	"  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n"
	"        type: object\n        properties:\n          spec:\n            type: object\n"
	"            properties:\n              items:\n                type: array\n"
	"                x-kubernetes-list-type: map\n                x-kubernetes-list-map-keys: [name]\n"
	"                items:\n                  type: object\n                  properties:\n"
	"                    name: {type: string}\n                    size: {type: integer}\n"
	"              replicas: {type: integer, default: 1}\n"
	"              selector: {type: object, default: {app: w}, additionalProperties: {type: string}}\n";

static const char *shared_dir; /* NULL: no OpenAPI documents */
static const char *source_dir; /* NULL: no file reading */

typedef struct output {
	char *text;
	size_t len, cap;
} output;

/* Appends to the workload's record of what it produced (not armed). */
static void record(output *o, const char *tag, const char *s)
{
	bool was = armed;
	size_t n = strlen(tag) + strlen(s) + 2;

	armed = false;
	if (o->len + n + 1 > o->cap) {
		o->cap = (o->len + n + 1) * 2;
		o->text = realloc(o->text, o->cap);
		if (!o->text)
			abort();
	}
	o->len += (size_t)sprintf(o->text + o->len, "%s=%s\n", tag, s);
	armed = was;
}

static int print_rec(output *o, const char *tag, const smp_value *v, smp_output fmt,
                     smp_error *err)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	char *s = NULL;
	int rc;

	po.output = fmt;
	po.sort_keys = fmt != SMP_OUT_YAML;
	rc = smp_print(&s, NULL, v, &po, err);
	if (rc == 0)
		record(o, tag, s);
	smp_free(s);
	return rc;
}

/* Runs everything once; returns 0 or the first error code. */
static int workload(output *o, smp_error *err)
{
	smp_doc *orig = NULL, *mod = NULL, *cur = NULL, *patch = NULL, *res = NULL;
	smp_doc *wdoc = NULL, *wres = NULL, *wpatch = NULL, *wstored = NULL;
	smp_stored_options sopts = SMP_STORED_OPTIONS_INIT;
	smp_apply_result *ar = NULL;
	smp_schema *schema = NULL;
	smp_selector *sel = NULL, *osel = NULL, *fsel = NULL;
	smp_doc *two = NULL, *jp = NULL, *jres = NULL, *copies = NULL, *bad = NULL, *sdoc = NULL;
	const smp_stype *widget = NULL;
	smp_patch_options popts = SMP_PATCH_OPTIONS_INIT;
	smp_field_info info;
	char *ann = NULL;
	static const char wtext[] = "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
		"\"metadata\":{\"name\":\"w\"},\"spec\":{\"items\":[{\"name\":\"a\",\"size\":1}]}}";
	static const char wpatch_text[] = "{\"spec\":{\"items\":[{\"name\":\"b\",\"size\":2}]}}";
	static const char jpatch[] = "[{\"op\":\"add\",\"path\":\"/metadata/labels/x~1y\",\"value\":\"1\"},"
		"{\"op\":\"move\",\"from\":\"/spec/replicas\",\"path\":\"/spec/count\"},"
		"{\"op\":\"copy\",\"from\":\"/metadata/labels\",\"path\":\"/spec/labels\"},"
		"{\"op\":\"remove\",\"path\":\"/status\"},{\"op\":\"test\",\"path\":\"/kind\","
		"\"value\":\"Deployment\"}]";
	static const char seltext[] = "matchLabels: {app: web}\nmatchExpressions:\n"
		"- {key: tier, operator: In, values: [frontend, backend]}\n"
		"- {key: legacy, operator: DoesNotExist}\n";
	static const char badtext[] = "a: 1\nb: [1, 2\nc: 3\n";
	int rc;

	if ((rc = smp_doc_parse(&orig, last_applied, strlen(last_applied), NULL, err)) ||
	    (rc = smp_doc_parse(&mod, config, strlen(config), NULL, err)) ||
	    (rc = smp_doc_parse(&cur, live, strlen(live), NULL, err)))
		goto out;
	rc = smp_diff_three_way(&patch, smp_doc_root(orig, 0), smp_doc_root(mod, 0),
	                        smp_doc_root(cur, 0), NULL, err);
	if (rc || (rc = print_rec(o, "patch", smp_doc_root(patch, 0), SMP_OUT_JSON, err)))
		goto out;
	rc = smp_patch_apply(&res, smp_doc_root(cur, 0), smp_doc_root(patch, 0), NULL, err);
	if (rc || (rc = print_rec(o, "result", smp_doc_root(res, 0), SMP_OUT_YAML, err)))
		goto out;
	rc = smp_apply_object(&ar, smp_doc_root(cur, 0), smp_doc_root(mod, 0), NULL, err);
	if (rc || (rc = print_rec(o, "apply.patch", smp_apply_result_patch(ar), SMP_OUT_JSON, err)) ||
	    (rc = print_rec(o, "apply.object", smp_apply_result_object(ar), SMP_OUT_JSON_INDENT, err)))
		goto out;
	rc = smp_last_applied_encode(&ann, NULL, smp_doc_root(mod, 0), err);
	if (rc)
		goto out;
	record(o, "annotation", ann);

	rc = smp_schema_load(&schema, crd, strlen(crd), "crd.yaml", err);
	if (rc || (rc = smp_schema_kind(&widget, schema, "example.com/v1", "Widget", err)) ||
	    (rc = smp_schema_field(&info, widget, "spec.items", err)))
		goto out;
	record(o, "listType", info.list_type ? info.list_type : "(none)");
	if ((rc = smp_doc_parse(&wdoc, wtext, strlen(wtext), NULL, err)) ||
	    (rc = smp_doc_parse(&wpatch, wpatch_text, strlen(wpatch_text), NULL, err)))
		goto out;
	popts.type = SMP_PATCH_MERGE;
	rc = smp_patch_apply(&wres, smp_doc_root(wdoc, 0), smp_doc_root(wpatch, 0), &popts, err);
	if (rc || (rc = print_rec(o, "widget", smp_doc_root(wres, 0), SMP_OUT_JSON, err)))
		goto out;
	sopts.schema = schema; /* the stored form: pruned and defaulted */
	rc = smp_stored_form(&wstored, smp_doc_root(wdoc, 0), &sopts, err);
	if (rc || (rc = print_rec(o, "widget.stored", smp_doc_root(wstored, 0), SMP_OUT_JSON, err)))
		goto out;

	rc = smp_selector_parse(&sel, "app in (web,api),tier!=backend,!legacy", err);
	if (rc)
		goto out;
	record(o, "selected", smp_selector_matches(sel,
	       smp_value_at(smp_doc_root(cur, 0), "metadata.labels")) ? "yes" : "no");

	/* Two-way diff, JSON Patch, copies, selectors from objects, field
	 * selectors, label validation, and a parse error (its message). */
	if (shared_dir) {
		static const char *const files[] = {"swagger-merge-item.json",
		                                    "swagger-merge-item-v3.json"};
		for (size_t i = 0; i < 2; i++) {
			smp_schema *oa = NULL;
			const smp_stype *item = NULL;
			smp_field_info fi;
			char path[4096];

			snprintf(path, sizeof(path), "%s/conformance/schemas/%s", shared_dir, files[i]);
			rc = smp_schema_load_file(&oa, path, err);
			if (!rc && !(rc = smp_schema_definition(&item, oa, "mergeItem", err)) &&
			    !(rc = smp_schema_field(&fi, item, "mergingList", err)))
				record(o, "mergeKey", fi.merge_key ? fi.merge_key : "(none)");
			smp_schema_free(oa);
			if (rc)
				goto out;
		}
	}
	if (source_dir) {
		smp_doc *f = NULL;
		char path[4096];

		snprintf(path, sizeof(path), "%s/examples/apply/web.yaml", source_dir);
		rc = smp_doc_parse_file(&f, path, NULL, err);
		if (!rc)
			rc = print_rec(o, "file", smp_doc_root(f, 0), SMP_OUT_JSON, err);
		smp_doc_free(f);
		if (rc)
			goto out;
	}

	rc = smp_diff_two_way(&two, smp_doc_root(orig, 0), smp_doc_root(mod, 0), NULL, err);
	if (rc || (rc = print_rec(o, "two-way", smp_doc_root(two, 0), SMP_OUT_JSON, err)))
		goto out;
	if ((rc = smp_doc_parse(&jp, jpatch, strlen(jpatch), NULL, err)))
		goto out;
	popts.type = SMP_PATCH_JSON;
	rc = smp_patch_apply(&jres, smp_doc_root(cur, 0), smp_doc_root(jp, 0), &popts, err);
	if (rc || (rc = print_rec(o, "jsonpatch", smp_doc_root(jres, 0), SMP_OUT_YAML, err)))
		goto out;
	if ((rc = smp_doc_new(&copies, err)) ||
	    (rc = smp_doc_add_copy(NULL, copies, smp_doc_root(res, 0), err)) ||
	    (rc = smp_doc_add_copy(NULL, copies, smp_doc_root(wres, 0), err)))
		goto out;
	rc = smp_doc_parse(&sdoc, seltext, strlen(seltext), NULL, err);
	if (rc || (rc = smp_selector_from_object(&osel, smp_doc_root(sdoc, 0), false, err)))
		goto out;
	record(o, "objselected", smp_selector_matches(osel,
	       smp_value_at(smp_doc_root(cur, 0), "metadata.labels")) ? "yes" : "no");
	rc = smp_field_selector_parse(&fsel, "metadata.name=web,metadata.namespace!=kube-system", err);
	if (rc)
		goto out;
	record(o, "fieldselected", smp_field_selector_matches(fsel, smp_doc_root(cur, 0)) ?
	       "yes" : "no");
	if ((rc = smp_labels_validate(smp_value_at(smp_doc_root(cur, 0), "metadata.labels"),
	                              NULL, err)))
		goto out;
	rc = smp_doc_parse(&bad, badtext, strlen(badtext), NULL, err);
	if (rc == SMP_EPARSE) {
		record(o, "parse-error", err->message);
		rc = 0;
	} else if (rc == 0) {
		rc = SMP_EINTERNAL; /* must not parse */
	}
out:
	smp_selector_free(sel);
	smp_selector_free(osel);
	smp_selector_free(fsel);
	smp_doc_free(bad);
	smp_doc_free(sdoc);
	smp_doc_free(copies);
	smp_doc_free(jres);
	smp_doc_free(jp);
	smp_doc_free(two);
	smp_doc_free(wstored);
	smp_doc_free(wres);
	smp_doc_free(wpatch);
	smp_doc_free(wdoc);
	smp_schema_free(schema);
	smp_free(ann);
	smp_apply_result_free(ar);
	smp_doc_free(res);
	smp_doc_free(patch);
	smp_doc_free(cur);
	smp_doc_free(mod);
	smp_doc_free(orig);
	return rc;
}

/* ---- driver ---- */

static volatile sig_atomic_t current;

static void on_signal(int sig)
{
	char msg[96];
	int n = snprintf(msg, sizeof(msg), "FAIL: signal %d while allocation #%ld fails\n",
	                 sig, (long)current);
	if (n > 0)
		(void)!write(2, msg, (size_t)n);
	_exit(1);
}

/* "function+0xOFF (object)" of a code address, for reports. */
static void where(char *buf, size_t size, void *addr)
{
	Dl_info di;

	if (addr && dladdr(addr, &di) && di.dli_fname)
		snprintf(buf, size, "%s+%#lx (%s)", di.dli_sname ? di.dli_sname : "?",
		         di.dli_sname ? (unsigned long)((char *)addr - (char *)di.dli_saddr) :
		         (unsigned long)((char *)addr - (char *)di.dli_fbase), di.dli_fname);
	else
		snprintf(buf, size, "%p", addr);
}

int main(int argc, char **argv)
{
	bool verbose = false;
	output base = {0}, o = {0};
	smp_error err;
	long total, enomem = 0, recovered = 0, failures = 0;
	int rc;

	for (int i = 1, pos = 0; i < argc; i++) {
		if (strcmp(argv[i], "-v") == 0)
			verbose = true;
		else if (pos++ == 0)
			shared_dir = argv[i];
		else
			source_dir = argv[i];
	}
	if (shared_dir) {
		char probe[4096];
		snprintf(probe, sizeof(probe), "%s/conformance/schemas", shared_dir);
		if (access(probe, R_OK) != 0) {
			printf("note: %s not found: the workload leaves out the OpenAPI "
			       "documents of the shared reference data\n", probe);
			shared_dir = NULL;
		}
	}
	signal(SIGSEGV, on_signal);
	signal(SIGABRT, on_signal);
	signal(SIGBUS, on_signal);

	/* The reference run: counts the allocations, nothing fails. */
	calls = 0;
	fail_at = 0;
	armed = true;
	rc = workload(&base, &err);
	armed = false;
	total = calls;
	if (rc) {
		printf("FAIL: the workload fails without allocation failures: %s: %s\n",
		       smp_strerror(rc), err.message);
		return 1;
	}
	if (tracked) {
		printf("FAIL: the normal run leaks %zu allocations\n", tracked);
		return 1;
	}
	if (verbose)
		printf("reference run output:\n%.*s", (int)base.len, base.text);
	if (total < 10) {
		printf("FAIL: only %ld allocations counted: is the library linked "
		       "with --wrap?\n", total);
		return 1;
	}

	for (long i = 1; i <= total; i++) {
		char loc[512];

		current = i;
		if (used > TRACK_SLOTS / 4) { /* drop the tombstones */
			memset(track, 0, sizeof(track));
			used = 0;
		}
		o.len = 0;
		memset(&err, 0, sizeof(err));
		calls = 0;
		fail_at = i;
		fail_caller = NULL;
		armed = true;
		rc = workload(&o, &err);
		armed = false;
		where(loc, sizeof(loc), fail_caller);
		if (rc == SMP_ENOMEM && err.code == SMP_ENOMEM) {
			enomem++;
		} else if (rc == 0 && o.len == base.len && memcmp(o.text, base.text, o.len) == 0) {
			recovered++; /* the library did without that allocation */
			if (verbose)
				printf("note: #%ld at %s: recovered, same output\n", i, loc);
		} else if (rc == 0) {
			printf("FAIL: #%ld at %s: success but different output\n", i, loc);
			failures++;
		} else {
			printf("FAIL: #%ld at %s: returned %d (%s), err.code %d: %s\n", i, loc,
			       rc, smp_strerror(rc), err.code, err.message);
			failures++;
		}
		if (tracked) {
			printf("FAIL: #%ld at %s: %zu allocations leaked\n", i, loc, tracked);
			failures++;
			memset(track, 0, sizeof(track));
			tracked = used = 0;
		}
	}
	printf("%ld allocations; failing each in turn: %ld ended in SMP_ENOMEM, %ld "
	       "recovered with the same output, %ld failures\n",
	       total, enomem, recovered, failures);
	free(base.text);
	free(o.text);
	return failures ? 1 : 0;
}
