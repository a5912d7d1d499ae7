/*
 * thread_test.c - 8 threads x 1,000 three-way diffs and applies at once,
 * with the built-in schema and with a schema loaded at run time (the
 * reference's merge-item OpenAPI v3 document), each result compared with a
 * single-threaded run of the same input. The Deployments also go through a
 * server-side apply and the stored form, with one Kubernetes OpenAPI
 * document loaded once (the shared swagger) for all the threads. Documents
 * and schemas are shared read-only between the threads; every thread also
 * parses and prints. (The plans, on their own threads and several plans at
 * once, are plan_thread_test.c's.)
 *
 * usage: thread_test [SMP_SHARED_DIR] [THREADS] [ITERATIONS]
 * Exit 77 (after the built-in part passed) when the shared schema is absent.
 */
#include "smpatch.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VARIANTS 12
#define TEXT_MAX 4096

typedef struct job {
	char orig[TEXT_MAX], mod[TEXT_MAX], cur[TEXT_MAX];
	smp_doc *orig_doc, *cur_doc;  /* shared read-only between threads */
	const smp_stype *stype;       /* NULL = built-in lookup by kind */
	/* Deployments: the schema of the server-side apply and the stored form
	 * (the Kubernetes document, shared), and whether to run them */
	const smp_schema *kube;
	bool ssa;
	bool overwrite;
	/* The single-threaded answer. */
	int rc;
	char *patch, *result, *message;
} job;

typedef struct worker {
	job *jobs;
	size_t njobs, iterations, offset;
	size_t mismatches, runs;
	pthread_t tid;
} worker;

static void fmt(char *buf, const char *f, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void fmt(char *buf, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	if (vsnprintf(buf, TEXT_MAX, f, ap) >= TEXT_MAX) {
		fprintf(stderr, "thread_test: test document too long\n");
		exit(1);
	}
	va_end(ap);
}

/* Deployments: image bumps, env changes, containers added and removed,
 * a field dropped from the config, live-only fields (replicas, defaults). */
static void deployment_job(job *j, int v)
{
	const char *side = v % 2 ? ",{\"name\":\"side\",\"image\":\"side:1\"}" : "";

	fmt(j->orig, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
	    "\"metadata\":{\"name\":\"app%d\",\"labels\":{\"app\":\"a%d\",\"v\":\"%d\"}},"
	    "\"spec\":{\"minReadySeconds\":%d,\"selector\":{\"matchLabels\":{\"app\":\"a%d\"}},"
	    "\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"img:%d\","
	    "\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"%d\"}],"
	    "\"args\":[\"--x\",\"%d\"]}%s]}}}}", v, v, v, v, v, v, v, v, side);
	fmt(j->mod, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app%d\n"
	    "  labels: {app: a%d, tier: t%d}\nspec:\n  selector:\n    matchLabels: {app: a%d}\n"
	    "  strategy: {type: %s}\n  template:\n    spec:\n      containers:\n"
	    "      - name: main\n        image: img:%d\n        env:\n"
	    "        - {name: B, value: \"%d\"}\n        - {name: C, value: c}\n"
	    "        args: [--y]\n", v, v, v, v, v % 3 ? "Recreate" : "RollingUpdate",
	    v + 1, v + 7);
	if (v % 4 == 0)
		strcat(j->mod, "      - {name: new, image: \"new:1\"}\n");
	fmt(j->cur, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
	    "\"metadata\":{\"name\":\"app%d\",\"namespace\":\"default\",\"labels\":{\"app\":\"a%d\",\"v\":\"%d\"}},"
	    "\"spec\":{\"replicas\":%d,\"minReadySeconds\":%d,\"selector\":{\"matchLabels\":{\"app\":\"a%d\"}},"
	    "\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":\"25%%\"}},"
	    "\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"img:%d\","
	    "\"imagePullPolicy\":\"IfNotPresent\","
	    "\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"%d\"},{\"name\":\"L\",\"value\":\"live\"}],"
	    "\"args\":[\"--x\",\"%d\"]}%s],\"dnsPolicy\":\"ClusterFirst\"}}}}",
	    v, v, v, v + 2, v, v, v, v, v, side);
	j->overwrite = v % 5 != 4;
}

/* mergeItem documents (no apiVersion/kind: the root definition is chosen). */
static void merge_item_job(job *j, int v)
{
	fmt(j->orig, "{\"name\":\"n%d\",\"value\":\"%d\",\"mergingList\":[{\"name\":\"a\",\"value\":\"1\"},"
	    "{\"name\":\"b\",\"value\":\"%d\"}],\"mergingIntList\":[1,2,%d],"
	    "\"nonMergingList\":[{\"name\":\"x\"}],\"simpleMap\":{\"k\":\"v%d\"}}", v, v, v, v + 3, v);
	fmt(j->mod, "{\"name\":\"n%d\",\"other\":\"o%d\",\"mergingList\":[{\"name\":\"b\",\"value\":\"%d\"},"
	    "{\"name\":\"c\"}],\"mergingIntList\":[2,%d,9],\"nonMergingList\":[{\"name\":\"y\"}],"
	    "\"simpleMap\":{\"k\":\"w\",\"k%d\":\"v\"},\"retainKeysMap\":{\"name\":\"r\"}}",
	    v, v, v + 1, v + 3, v);
	fmt(j->cur, "{\"name\":\"n%d\",\"value\":\"%d\",\"mergingList\":[{\"name\":\"a\",\"value\":\"1\","
	    "\"other\":\"live\"},{\"name\":\"b\",\"value\":\"%d\"},{\"name\":\"z\"}],"
	    "\"mergingIntList\":[1,2,%d,7],\"simpleMap\":{\"k\":\"v%d\",\"live\":\"x\"}}",
	    v, v % 2 ? v : v + 100, v, v + 3, v);
	j->overwrite = v % 4 != 3;
}

/* v printed as sorted JSON, in malloc'd memory (NULL on failure). */
static char *print(const smp_value *v)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	char *s = NULL, *copy;

	po.sort_keys = true;
	if (smp_print(&s, NULL, v, &po, NULL))
		return NULL;
	copy = strdup(s);
	smp_free(s);
	return copy;
}

/* *text + "\n" + more, in *text (more freed; both malloc'd). */
static int append(char **text, char *more)
{
	size_t a = strlen(*text), b = more ? strlen(more) : 0;
	char *t = more ? realloc(*text, a + b + 2) : NULL;

	if (!t) {
		free(more);
		return SMP_ENOMEM;
	}
	t[a] = '\n';
	memcpy(t + a + 1, more, b + 1);
	free(more);
	*text = t;
	return 0;
}

/* The server-side apply of the configuration to the live object (a
 * manager's first apply: its fields, the object as the server stores it)
 * and the stored form of the client-side result, both with the shared
 * Kubernetes document, appended to *result (an error's message when a
 * call refuses). */
static int ssa_and_stored(const job *j, const smp_value *config, const smp_value *patched,
                          char **result, smp_error *err)
{
	smp_ssa_options so = SMP_SSA_OPTIONS_INIT;
	smp_stored_options sto = SMP_STORED_OPTIONS_INIT;
	smp_ssa_result *res = NULL;
	smp_doc *stored = NULL;
	int rc;

	so.manager = "ci";
	so.now = "2024-01-01T00:00:00Z";
	/* the live objects carry no managedFields: their fields are recorded
	 * as before-first-apply's first, and the apply takes those it changes */
	so.force = true;
	so.schema = j->kube;
	sto.schema = j->kube;
	rc = smp_ssa_apply(&res, smp_doc_root(j->cur_doc, 0), config, &so, err);
	rc = append(result, rc ? strdup(err->message) : print(smp_ssa_result_object(res)));
	smp_ssa_result_free(res);
	if (rc)
		return rc;
	rc = smp_stored_form(&stored, patched, &sto, err);
	rc = append(result, rc ? strdup(err->message) : print(smp_doc_root(stored, 0)));
	smp_doc_free(stored);
	return rc;
}

/* One diff + apply; fills rc and the printed patch and result (caller frees). */
static int run_job(const job *j, char **patch, char **result, char *message, size_t msize)
{
	smp_patch_options opts = SMP_PATCH_OPTIONS_INIT;
	smp_doc *mod = NULL, *p = NULL, *r = NULL;
	smp_error err;
	int rc;

	*patch = *result = NULL;
	message[0] = '\0';
	opts.stype = j->stype;
	opts.overwrite = j->overwrite;
	rc = smp_doc_parse(&mod, j->mod, strlen(j->mod), NULL, &err);
	if (rc)
		goto out;
	rc = smp_diff_three_way(&p, smp_doc_root(j->orig_doc, 0), smp_doc_root(mod, 0),
	                        smp_doc_root(j->cur_doc, 0), &opts, &err);
	if (rc)
		goto out;
	rc = smp_patch_apply(&r, smp_doc_root(j->cur_doc, 0), smp_doc_root(p, 0), &opts, &err);
	if (rc)
		goto out;
	*patch = print(smp_doc_root(p, 0));
	*result = print(smp_doc_root(r, 0));
	if (!*patch || !*result)
		rc = SMP_ENOMEM;
	if (!rc && j->ssa)
		rc = ssa_and_stored(j, smp_doc_root(mod, 0), smp_doc_root(r, 0), result, &err);
out:
	if (rc)
		snprintf(message, msize, "%s", err.message);
	smp_doc_free(r);
	smp_doc_free(p);
	smp_doc_free(mod);
	return rc;
}

static void *work(void *arg)
{
	worker *w = arg;
	char message[SMP_ERROR_MESSAGE_MAX];

	for (size_t i = 0; i < w->iterations; i++) {
		const job *j = &w->jobs[(i + w->offset) % w->njobs];
		char *patch, *result;
		int rc = run_job(j, &patch, &result, message, sizeof(message));

		if (rc != j->rc || strcmp(message, j->message) ||
		    (rc == 0 && (strcmp(patch, j->patch) || strcmp(result, j->result))))
			w->mismatches++;
		w->runs++;
		free(patch);
		free(result);
	}
	return NULL;
}

static int prepare(job *j)
{
	smp_error err;
	char message[SMP_ERROR_MESSAGE_MAX];

	if (smp_doc_parse(&j->orig_doc, j->orig, strlen(j->orig), NULL, &err) ||
	    smp_doc_parse(&j->cur_doc, j->cur, strlen(j->cur), NULL, &err)) {
		fprintf(stderr, "thread_test: bad test document: %s\n", err.message);
		return -1;
	}
	j->rc = run_job(j, &j->patch, &j->result, message, sizeof(message));
	j->message = strdup(message);
	return j->message ? 0 : -1;
}

/* Runs `nthreads` workers over the jobs; returns the number of mismatches. */
static size_t run_threads(const char *title, job *jobs, size_t njobs, size_t nthreads,
                          size_t iterations)
{
	worker w[64];
	size_t bad = 0, runs = 0, ok = 0, errors = 0;

	for (size_t i = 0; i < njobs; i++)
		jobs[i].rc ? errors++ : ok++;
	for (size_t t = 0; t < nthreads; t++) {
		w[t] = (worker){jobs, njobs, iterations, t * 5, 0, 0, 0};
		if (pthread_create(&w[t].tid, NULL, work, &w[t])) {
			fprintf(stderr, "thread_test: pthread_create failed\n");
			exit(1);
		}
	}
	for (size_t t = 0; t < nthreads; t++) {
		pthread_join(w[t].tid, NULL);
		bad += w[t].mismatches;
		runs += w[t].runs;
	}
	printf("%s: %zu threads x %zu diff+apply (Deployments: + server-side apply and stored "
	       "form) = %zu runs, %zu differ from the "
	       "single-threaded run (%zu inputs: %zu succeed, %zu end in an error)\n",
	       title, nthreads, iterations, runs, bad, njobs, ok, errors);
	for (size_t i = 0; i < njobs; i++)
		if (jobs[i].rc)
			printf("  input %zu: %s: %.90s...\n", i, smp_strerror(jobs[i].rc),
			       jobs[i].message);
	return bad;
}

static void free_jobs(job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		smp_doc_free(jobs[i].orig_doc);
		smp_doc_free(jobs[i].cur_doc);
		free(jobs[i].patch);
		free(jobs[i].result);
		free(jobs[i].message);
	}
}

int main(int argc, char **argv)
{
	const char *shared = argc > 1 ? argv[1] : NULL;
	size_t nthreads = argc > 2 ? strtoul(argv[2], NULL, 10) : 8;
	size_t iterations = argc > 3 ? strtoul(argv[3], NULL, 10) : 1000;
	static job jobs[2 * VARIANTS];
	smp_schema *schema = NULL, *kube = NULL;
	const smp_stype *item = NULL;
	char path[4096];
	smp_error err;
	size_t bad = 0, ok_builtin = 0, ok_loaded = 0;
	int status = 1;

	if (nthreads < 1 || nthreads > 64)
		nthreads = 8;
	/* one Kubernetes document for every thread's server-side applies and
	 * stored forms (the built-in tables without ../shared) */
	snprintf(path, sizeof(path), "%s/openapi/kubernetes-1.36.swagger.json", shared ? shared : "");
	if (shared && smp_schema_load_file(&kube, path, &err)) {
		printf("the built-in tables for server-side apply and the stored form: %s\n",
		       err.message);
		kube = NULL;
	}
	for (int v = 0; v < VARIANTS; v++) {
		jobs[v].kube = kube;
		jobs[v].ssa = true;
		deployment_job(&jobs[v], v);
		if (prepare(&jobs[v]))
			goto out;
		ok_builtin += jobs[v].rc == 0;
		/* the server-side apply ran: kubectl's manager owns fields */
		if (jobs[v].rc == 0 && !strstr(jobs[v].result, "\"manager\":\"ci\"")) {
			fprintf(stderr, "thread_test: app%d: no server-side apply in %.200s\n", v,
			        jobs[v].result);
			goto out;
		}
	}
	/* Most inputs must succeed, or the comparison proves little. */
	if (ok_builtin < VARIANTS / 2) {
		fprintf(stderr, "thread_test: only %zu of %d built-in inputs succeed "
		        "single-threaded\n", ok_builtin, VARIANTS);
		for (int v = 0; v < VARIANTS; v++)
			if (jobs[v].rc)
				fprintf(stderr, "  app%d: %s\n", v, jobs[v].message);
		goto out;
	}
	bad += run_threads("built-in schema", jobs, VARIANTS, nthreads, iterations);

	snprintf(path, sizeof(path), "%s/conformance/schemas/swagger-merge-item-v3.json",
	         shared ? shared : "");
	if (!shared || smp_schema_load_file(&schema, path, &err)) {
		if (bad)
			goto out;
		printf("SKIP: loaded-schema part: %s not readable (set SMP_SHARED_DIR)\n", path);
		status = 77;
		goto out;
	}
	if (smp_schema_definition(&item, schema, "mergeItem", &err)) {
		fprintf(stderr, "thread_test: %s\n", err.message);
		goto out;
	}
	for (int v = 0; v < VARIANTS; v++) {
		job *j = &jobs[VARIANTS + v];
		merge_item_job(j, v);
		j->stype = item;
		if (prepare(j))
			goto out;
		ok_loaded += j->rc == 0;
	}
	if (ok_loaded < VARIANTS / 2) {
		fprintf(stderr, "thread_test: only %zu of %d mergeItem inputs succeed\n",
		        ok_loaded, VARIANTS);
		for (int v = 0; v < VARIANTS; v++)
			if (jobs[VARIANTS + v].rc)
				fprintf(stderr, "  %d: %s\n", v, jobs[VARIANTS + v].message);
		goto out;
	}
	bad += run_threads("loaded schema (mergeItem)", jobs + VARIANTS, VARIANTS, nthreads,
	                   iterations);
	/* Both schemas at once in the same threads. */
	bad += run_threads("both schemas interleaved", jobs, 2 * VARIANTS, nthreads,
	                   iterations / 2);
	status = bad ? 1 : 0;
out:
	free_jobs(jobs, 2 * VARIANTS);
	smp_schema_free(schema);
	smp_schema_free(kube);
	return status;
}
