/*
 * plan_thread_test.c - plans from many threads at once: 8 threads each
 * compute plans (client-side with prune, the stored form and ignore rules;
 * server-side apply; replace) over one shared schema and one shared
 * selector, and every plan's rendering (actions, status lines, request
 * bodies, diffs, changes, errors) must equal the single-threaded one. Two
 * plans decide their entries on 4 threads themselves (smp_plan_options.jobs:
 * 150 configurations, objects applied twice and three times, a failure,
 * prune), and must render as when decided on one. Run under
 * ThreadSanitizer by lib_threads_tsan.
 *
 * usage: plan_thread_test EXAMPLES_DIR [THREADS] [ITERATIONS]
 */
#include "smpatch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text of a file, or NULL. */
static char *slurp(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;
	char *buf = NULL;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "rb")) || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(buf = malloc((size_t)n + 1)) ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "plan_thread_test: cannot read %s\n", path);
		exit(2);
	}
	buf[n] = '\0';
	fclose(f);
	return buf;
}

typedef struct job {
	smp_plan_mode mode;
	const char *configs[4];
	const char *live;
	bool prune, stored;
	char *want;  /* the single-threaded rendering */
	unsigned jobs; /* threads the plan decides on (want: one) */
} job;

typedef struct shared {
	const smp_schema *schema;
	const smp_selector *selector;
	job *jobs;
	size_t njobs, iterations;
} shared;

static void put(char **buf, size_t *len, const char *s, size_t n)
{
	char *g = realloc(*buf, *len + n + 1);

	if (!g) {
		fprintf(stderr, "plan_thread_test: out of memory\n");
		exit(2);
	}
	memcpy(g + *len, s, n);
	*len += n;
	g[*len] = '\0';
	*buf = g;
}

typedef struct render {
	char *buf;
	size_t len;
} render;

/* One entry, as everything a caller reads of it. */
static int on_entry(const smp_plan_entry *e, void *user)
{
	render *r = user;
	char *s = NULL;
	size_t n = 0;
	smp_doc *ch = NULL;
	smp_error err;
	char head[256];

	snprintf(head, sizeof(head), "%d %s/%s\n", (int)smp_plan_entry_action(e),
	         smp_plan_entry_kind(e), smp_plan_entry_name(e));
	put(&r->buf, &r->len, head, strlen(head));
	if (smp_plan_entry_error(e)) {
		put(&r->buf, &r->len, smp_plan_entry_error(e)->message,
		    strlen(smp_plan_entry_error(e)->message));
		return 0;
	}
	if (!smp_plan_entry_status_line(&s, &n, e, 0, &err))
		put(&r->buf, &r->len, s, n);
	smp_free(s);
	s = NULL;
	if (smp_plan_entry_patch(e) && !smp_print(&s, &n, smp_plan_entry_patch(e), NULL, &err))
		put(&r->buf, &r->len, s, n);
	smp_free(s);
	s = NULL;
	if (!smp_plan_entry_diff(&s, &n, e, 0, &err))
		put(&r->buf, &r->len, s, n);
	smp_free(s);
	if (!smp_plan_entry_changes(&ch, e, 0, &err)) {
		snprintf(head, sizeof(head), "changes %zu\n", smp_value_len(smp_doc_root(ch, 0)));
		put(&r->buf, &r->len, head, strlen(head));
	}
	smp_doc_free(ch);
	return 0;
}

/* A plan of job j, rendered into a new string. */
static char *run(const job *j, const shared *sh, bool single)
{
	static const char *const ignore[] = {"Service:spec.ports[*].targetPort"};
	smp_plan_options o = SMP_PLAN_OPTIONS_INIT;
	smp_plan *p = NULL;
	smp_error err;
	render r = {NULL, 0};

	o.mode = j->mode;
	o.schema = sh->schema;
	o.now = "2026-01-01T00:00:00Z";
	o.stored = j->stored;
	o.prune = j->prune;
	o.selector = j->prune ? sh->selector : NULL;
	o.ignore_fields = ignore;
	o.ignore_fields_len = 1;
	o.jobs = single ? 1 : j->jobs;
	if (smp_plan_new(&p, &o, &err)) {
		fprintf(stderr, "plan_thread_test: smp_plan_new: %s\n", err.message);
		exit(1);
	}
	for (size_t i = 0; i < 4 && j->configs[i]; i++) {
		smp_doc *d = NULL;

		if (smp_doc_parse(&d, j->configs[i], strlen(j->configs[i]), NULL, &err) ||
		    smp_plan_add_config(p, d, "config", &err))
			put(&r.buf, &r.len, err.message, strlen(err.message));
	}
	if (j->live) {
		smp_doc *d = NULL;

		if (smp_doc_parse(&d, j->live, strlen(j->live), NULL, &err) ||
		    smp_plan_add_live(p, d, "live", &err))
			put(&r.buf, &r.len, err.message, strlen(err.message));
	}
	if (smp_plan_run(p, on_entry, &r, &err))
		put(&r.buf, &r.len, err.message, strlen(err.message));
	smp_plan_free(p);
	put(&r.buf, &r.len, "", 0);
	return r.buf;
}

/* 150 ConfigMaps labelled app=web, as one YAML stream: cm-0 to cm-119,
 * then every fifth of them applied again with other data and every tenth a
 * third time; with `bad`, cm-17 with an invalid label. */
static char *many_configs(bool bad)
{
	char *buf = NULL, doc[400];
	size_t len = 0;

	for (int k = 0; k < 150; k++) {
		int n = k < 120 ? k : k < 140 ? (k - 120) * 5 : (k - 140) * 10;

		snprintf(doc, sizeof(doc), "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n"
		         "  name: cm-%d\n  labels:\n    app: web\n%sdata:\n  k: v%d\n", n,
		         bad && k == 17 ? "    bad: -x-\n" : "", k);
		put(&buf, &len, doc, strlen(doc));
	}
	return buf;
}

/* The live ConfigMaps cm-0 to cm-99 (applied before: they carry the
 * annotation) and old-0 to old-19, which no configuration names (pruned). */
static char *many_lives(void)
{
	static const char head[] = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
	char *buf = NULL, doc[600];
	size_t len = 0;

	put(&buf, &len, head, strlen(head));
	for (int k = 0; k < 120; k++) {
		char name[32];

		snprintf(name, sizeof(name), k < 100 ? "cm-%d" : "old-%d", k < 100 ? k : k - 100);
		snprintf(doc, sizeof(doc), "%s{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
		         "\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\",\"uid\":\"u%d\","
		         "\"labels\":{\"app\":\"web\"},\"annotations\":{\"kubectl.kubernetes.io/"
		         "last-applied-configuration\":\"{\\\"apiVersion\\\":\\\"v1\\\",\\\"data\\\":"
		         "{\\\"k\\\":\\\"old\\\"},\\\"kind\\\":\\\"ConfigMap\\\",\\\"metadata\\\":"
		         "{\\\"annotations\\\":{},\\\"labels\\\":{\\\"app\\\":\\\"web\\\"},"
		         "\\\"name\\\":\\\"%s\\\",\\\"namespace\\\":\\\"default\\\"}}\\n\"}},"
		         "\"data\":{\"k\":\"old\"}}", k ? "," : "", name, k, name);
		put(&buf, &len, doc, strlen(doc));
	}
	put(&buf, &len, "]}", 2);
	return buf;
}

typedef struct worker {
	const shared *sh;
	size_t offset, mismatches;
	pthread_t tid;
} worker;

static void *work(void *arg)
{
	worker *w = arg;

	for (size_t i = 0; i < w->sh->iterations; i++) {
		const job *j = &w->sh->jobs[(i + w->offset) % w->sh->njobs];
		char *got = run(j, w->sh, false);

		if (strcmp(got, j->want) != 0)
			w->mismatches++;
		free(got);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *ex = argc > 1 ? argv[1] : "examples";
	size_t nthreads = argc > 2 ? (size_t)atoi(argv[2]) : 8;
	shared sh = {NULL, NULL, NULL, 0, argc > 3 ? (size_t)atoi(argv[3]) : 40};
	char *web = slurp(ex, "apply/web.yaml"), *live = slurp(ex, "apply/live.yaml");
	char *cm = slurp(ex, "apply/configmap.yaml"), *crd = slurp(ex, "explain/widgets-crd.yaml");
	char *ssa_web = slurp(ex, "ssa/web.yaml"), *ssa_live = slurp(ex, "ssa/live.yaml");
	char *site_live = slurp(ex, "site/live.yaml");
	char *site_web = slurp(ex, "site/config/web/deployment.yaml");
	char *site_svc = slurp(ex, "site/config/web/service.yaml");
	char *many = many_configs(true), *many_ok = many_configs(false), *many_live = many_lives();
	job jobs[] = {
		{SMP_PLAN_CLIENT_SIDE, {web, cm, NULL, NULL}, live, false, false, NULL, 0},
		{SMP_PLAN_CLIENT_SIDE, {web, cm, NULL, NULL}, live, false, true, NULL, 0},
		{SMP_PLAN_CLIENT_SIDE, {site_web, site_svc, NULL, NULL}, site_live, true, true, NULL, 0},
		{SMP_PLAN_SERVER_SIDE, {ssa_web, NULL, NULL, NULL}, ssa_live, false, false, NULL, 0},
		{SMP_PLAN_SERVER_SIDE, {ssa_web, cm, NULL, NULL}, NULL, false, true, NULL, 0},
		{SMP_PLAN_REPLACE, {ssa_web, NULL, NULL, NULL}, ssa_live, false, false, NULL, 0},
		{SMP_PLAN_CLIENT_SIDE, {many, web, NULL, NULL}, many_live, true, true, NULL, 4},
		{SMP_PLAN_SERVER_SIDE, {many, NULL, NULL, NULL}, many_live, false, false, NULL, 4},
		{SMP_PLAN_CLIENT_SIDE, {many_ok, web, NULL, NULL}, many_live, true, true, NULL, 4},
	};
	smp_schema *schema = NULL;
	smp_selector *sel = NULL;
	worker *ws;
	size_t bad = 0;
	smp_error err;

	if (smp_schema_load(&schema, crd, strlen(crd), "crd", &err) ||
	    smp_selector_parse(&sel, "app=web", &err)) {
		fprintf(stderr, "plan_thread_test: %s\n", err.message);
		return 1;
	}
	sh.schema = schema;
	sh.selector = sel;
	sh.jobs = jobs;
	sh.njobs = sizeof(jobs) / sizeof(jobs[0]);
	for (size_t i = 0; i < sh.njobs; i++) {
		jobs[i].want = run(&jobs[i], &sh, true);
		/* the client-side plans decided on several threads: cm-17 fails
		 * (its label) and, as kubectl, nothing is pruned; without the
		 * failure old-0 is pruned */
		if (jobs[i].jobs > 1 && jobs[i].prune &&
		    (jobs[i].configs[0] == many
		     ? !strstr(jobs[i].want, "5 ConfigMap/cm-17\n") ||
		       strstr(jobs[i].want, "3 ConfigMap/old-0\n")
		     : !strstr(jobs[i].want, "3 ConfigMap/old-0\n"))) {
			fprintf(stderr, "plan_thread_test: job %zu misses its failure or prune\n", i);
			return 1;
		}
		if (strlen(jobs[i].want) < 40) {
			fprintf(stderr, "plan_thread_test: job %zu renders nothing: %s\n", i, jobs[i].want);
			return 1;
		}
	}
	if (!(ws = calloc(nthreads, sizeof(*ws))))
		return 2;
	for (size_t t = 0; t < nthreads; t++) {
		ws[t].sh = &sh;
		ws[t].offset = t;
		if (pthread_create(&ws[t].tid, NULL, work, &ws[t]))
			return 2;
	}
	for (size_t t = 0; t < nthreads; t++) {
		pthread_join(ws[t].tid, NULL);
		bad += ws[t].mismatches;
	}
	printf("%zu threads x %zu plans (%zu kinds of plan): %zu differ from the single-threaded "
	       "ones\n", nthreads, sh.iterations, sh.njobs, bad);
	for (size_t i = 0; i < sh.njobs; i++)
		free(jobs[i].want);
	free(ws);
	smp_schema_free(schema);
	smp_selector_free(sel);
	free(web);
	free(live);
	free(cm);
	free(crd);
	free(ssa_web);
	free(ssa_live);
	free(site_live);
	free(site_web);
	free(site_svc);
	free(many);
	free(many_ok);
	free(many_live);
	return bad != 0;
}
