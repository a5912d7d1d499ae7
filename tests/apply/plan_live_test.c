/*
 * plan_live_test.c - live objects from a file the plan does not hold
 * (smp_plan_add_live_file): every entry the same as with the file parsed
 * whole (smp_plan_add_live), in each mode and with prune, for Lists in
 * every shape kubectl and people write them, items larger than the read
 * window included; what is not a plain List, and malformed files, give
 * exactly the whole parse's answer; a file that changes under the plan
 * fails only the objects that no longer read back.
 */
#include "tutil.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/smp-plan-live-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[4][256];
	static int next;
	char *p = path[next++ % 4];
	FILE *f;

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	f = fopen(p, "wb");
	CHECK(f != NULL, "cannot write %s", p);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return p;
}

/* configurations: web changed, a new ConfigMap, and one for the big item */
static const char *const configs[] = {
	"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
	"\"labels\":{\"app\":\"web\"}},\"spec\":{\"replicas\":3}}",
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"new\","
	"\"labels\":{\"app\":\"web\"}},\"data\":{\"k\":\"v\"}}",
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"big\","
	"\"labels\":{\"app\":\"web\"}},\"data\":{\"k\":\"v\"}}",
	"{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team\","
	"\"labels\":{\"app\":\"web\"}}}",
};

#define WEB_LIVE                                                                          \
	"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","    \
	"\"namespace\":\"default\",\"uid\":\"u1\",\"labels\":{\"app\":\"web\"},"                 \
	"\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":"                \
	"\"{\\\"apiVersion\\\":\\\"apps/v1\\\",\\\"kind\\\":\\\"Deployment\\\",\\\"metadata\\\":"  \
	"{\\\"annotations\\\":{},\\\"name\\\":\\\"web\\\",\\\"namespace\\\":\\\"default\\\"},"      \
	"\\\"spec\\\":{\\\"replicas\\\":1}}\\n\"}},\"spec\":{\"replicas\":1}}"
#define OLD_LIVE                                                                          \
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"old\","          \
	"\"namespace\":\"default\",\"uid\":\"u2\",\"labels\":{\"app\":\"web\"},\"annotations\":"  \
	"{\"kubectl.kubernetes.io/last-applied-configuration\":\"{}\"}}}"
#define NS_LIVE                                                                           \
	"{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team\","         \
	"\"uid\":\"u3\",\"labels\":{\"app\":\"web\"}}}"

/* A big ConfigMap (data larger than the 1 MiB read window) with a quote,
 * a backslash and brackets in its strings. */
static char *big_item(void)
{
	size_t n = 3u << 20;
	const char *head = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
	                   "\"big\",\"namespace\":\"default\",\"annotations\":{\"kubectl.kubernetes"
	                   ".io/last-applied-configuration\":\"{}\"}},\"data\":{\"k\":\"";
	char *s = malloc(n + 512);
	size_t at;

	if (!s)
		return NULL;
	at = (size_t)sprintf(s, "%s", head);
	for (size_t i = 0; i < n; i++)
		s[at++] = "ab]}[{x y"[i % 9];
	at += (size_t)sprintf(s + at, "\\\"\\\\]}\"}}");
	s[at] = '\0';
	return s;
}

/* Every entry of both plans, field by field. */
static void same_entries(const smp_plan *a, const smp_plan *b, const char *what)
{
	CHECK(smp_plan_count(a) == smp_plan_count(b), "%s: %zu entries, whole parse %zu", what,
	      smp_plan_count(b), smp_plan_count(a));
	for (size_t i = 0; i < smp_plan_count(a) && i < smp_plan_count(b); i++) {
		const smp_plan_entry *x = smp_plan_entry_at(a, i), *y = smp_plan_entry_at(b, i);
		const smp_value *vx[] = {smp_plan_entry_live(x), smp_plan_entry_object(x),
		                         smp_plan_entry_patch(x), smp_plan_entry_status(x)};
		const smp_value *vy[] = {smp_plan_entry_live(y), smp_plan_entry_object(y),
		                         smp_plan_entry_patch(y), smp_plan_entry_status(y)};
		char *lx = NULL, *ly = NULL;
		smp_error err;

		CHECK(smp_plan_entry_action(x) == smp_plan_entry_action(y), "%s: entry %zu action",
		      what, i);
		CHECK_STR(smp_plan_entry_name(y), smp_plan_entry_name(x));
		CHECK_STR(smp_plan_entry_namespace(y), smp_plan_entry_namespace(x));
		CHECK_STR(smp_plan_entry_label(y), smp_plan_entry_label(x));
		CHECK(smp_plan_entry_request_count(x) == smp_plan_entry_request_count(y));
		for (size_t k = 0; k < 4; k++) {
			char *px = NULL, *py = NULL;

			CHECK(!vx[k] == !vy[k], "%s: entry %zu value %zu present once", what, i, k);
			if (vx[k] && vy[k]) {
				CHECK(smp_print(&px, NULL, vx[k], NULL, &err) == 0);
				CHECK(smp_print(&py, NULL, vy[k], NULL, &err) == 0);
				CHECK(px && py && strcmp(px, py) == 0, "%s: entry %zu value %zu differs",
				      what, i, k);
			}
			smp_free(px);
			smp_free(py);
		}
		if (smp_plan_entry_action(x) == SMP_ACTION_CONFLICT ||
		    smp_plan_entry_action(x) == SMP_ACTION_ERROR) {
			/* a failed entry has no status line, and the same error */
			CHECK(smp_plan_entry_status_line(&lx, NULL, x, 0, &err) != 0);
			CHECK_STR(smp_plan_entry_error(y)->message, smp_plan_entry_error(x)->message);
			continue;
		}
		CHECK(smp_plan_entry_status_line(&lx, NULL, x, 0, &err) == 0);
		CHECK(smp_plan_entry_status_line(&ly, NULL, y, 0, &err) == 0);
		CHECK_STR(ly, lx);
		smp_free(lx);
		smp_free(ly);
	}
}

static smp_plan *plan_of(smp_plan_mode mode, const char *path, bool from_file, int *rc,
                         smp_error *err)
{
	smp_plan_options o = SMP_PLAN_OPTIONS_INIT;
	smp_selector *sel = NULL;
	smp_plan *p = NULL;
	smp_error e2;

	o.mode = mode;
	o.prune = mode == SMP_PLAN_CLIENT_SIDE;
	/* a fixed time: the two plans may straddle a second of the clock */
	o.now = "2026-01-01T00:00:00Z";
	CHECK(smp_selector_parse(&sel, "app=web", &e2) == 0);
	o.selector = sel;
	CHECK(smp_plan_new(&p, &o, &e2) == 0);
	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
		CHECK(smp_plan_add_config(p, parse_json(configs[i]), "config.json", &e2) == 0);
	if (from_file) {
		*rc = smp_plan_add_live_file(p, path, err);
	} else {
		smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
		smp_doc *doc;

		*rc = smp_doc_parse_file(&doc, path, &po, err);
		if (!*rc)
			*rc = smp_plan_add_live(p, doc, path, err);
	}
	if (!*rc)
		CHECK(smp_plan_compute(p, err) == 0, "compute: %s", err->message);
	smp_selector_free(sel);
	return p;
}

/* The plans of `text` both ways agree, or fail with the same error. */
static void both_ways(const char *name, const char *text)
{
	static const smp_plan_mode modes[] = {SMP_PLAN_CLIENT_SIDE, SMP_PLAN_SERVER_SIDE};
	const char *path = write_file(name, text);

	for (size_t m = 0; m < 2; m++) {
		smp_error ea, eb;
		int ra, rb;
		smp_plan *a = plan_of(modes[m], path, false, &ra, &ea);
		smp_plan *b = plan_of(modes[m], path, true, &rb, &eb);

		CHECK(ra == rb, "%s: code %d, whole parse %d", name, rb, ra);
		if (ra && rb) {
			CHECK_STR(eb.message, ea.message);
			CHECK_STR(eb.file, ea.file);
			CHECK(ea.line == eb.line && ea.column == eb.column, "%s: at %u:%u, whole %u:%u",
			      name, eb.line, eb.column, ea.line, ea.column);
		} else if (!ra && !rb) {
			same_entries(a, b, name);
		}
		smp_plan_free(a);
		smp_plan_free(b);
	}
}

static void test_shapes(void)
{
	char *big = big_item(), *text;

	both_ways("compact.json", "{\"apiVersion\":\"v1\",\"items\":[" WEB_LIVE "," OLD_LIVE ","
	                          NS_LIVE "],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}");
	both_ways("pretty.json", "{\n  \"kind\": \"List\",\n  \"metadata\": {},\n  \"items\": [\n    "
	                         WEB_LIVE ",\n    null,\n    " OLD_LIVE "\n  ],\n  \"apiVersion\": \"v1\"\n}\n");
	both_ways("typed.json", "{\"apiVersion\":\"v1\",\"kind\":\"DeploymentList\",\"items\":["
	                        WEB_LIVE "]}");
	both_ways("empty.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[]}");
	both_ways("null-items.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":null}");
	both_ways("one-object.json", WEB_LIVE);
	both_ways("two-docs.json", WEB_LIVE "\n" OLD_LIVE);
	both_ways("no-kind.json", "{\"items\":[" WEB_LIVE "]}");
	both_ways("yaml.yaml", "apiVersion: v1\nkind: List\nitems:\n- " WEB_LIVE "\n");
	CHECK(big != NULL);
	if (big && (text = malloc(strlen(big) + 4096))) {
		sprintf(text, "{\"apiVersion\":\"v1\",\"items\":[%s,%s,%s],\"kind\":\"List\"}",
		        OLD_LIVE, big, WEB_LIVE);
		both_ways("big-item.json", text);
		free(text);
	}
	free(big);
}

static void test_malformed(void)
{
	both_ways("bad-item.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" WEB_LIVE
	                           ",{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":x}}]}");
	both_ways("cut.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" WEB_LIVE ",");
	both_ways("scalar-item.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" WEB_LIVE
	                              ",3]}");
	both_ways("list-item.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"kind\":"
	                            "\"List\",\"items\":[]}]}");
	both_ways("items-map.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":{}}");
	both_ways("dup-key.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[],"
	                          "\"kind\":\"List\"}");
	both_ways("bad-meta.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{\"a\":tru},"
	                           "\"items\":[" WEB_LIVE "]}");
	both_ways("trailing.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[]} x");
	both_ways("bad-escape.json", "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
	                             "{\"kind\":\"A\\q\"}]}");
}

/* The file rewritten between the plan's read and its run: the object that
 * no longer reads back fails, the others go on. */
static void test_changed(void)
{
	const char *text = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" WEB_LIVE "]}";
	const char *path = write_file("changed.json", text);
	smp_plan_options o = SMP_PLAN_OPTIONS_INIT;
	smp_plan *p = NULL;
	smp_error err;

	CHECK(smp_plan_new(&p, &o, &err) == 0);
	CHECK(smp_plan_add_config(p, parse_json(configs[0]), "c", &err) == 0);
	CHECK(smp_plan_add_config(p, parse_json(configs[1]), "c", &err) == 0);
	CHECK(smp_plan_add_live_file(p, path, &err) == 0, "%s", err.message);
	write_file("changed.json", "{}");
	CHECK(smp_plan_compute(p, &err) == 0);
	CHECK(smp_plan_count(p) == 2);
	CHECK(smp_plan_entry_action(smp_plan_entry_at(p, 0)) == SMP_ACTION_ERROR);
	CHECK(strstr(smp_plan_entry_error(smp_plan_entry_at(p, 0))->message, "cannot read") != NULL,
	      "%s", smp_plan_entry_error(smp_plan_entry_at(p, 0))->message);
	CHECK(smp_plan_entry_action(smp_plan_entry_at(p, 1)) == SMP_ACTION_CREATE);
	smp_plan_free(p);

	/* missing file: SMP_EIO naming it; NULLs */
	CHECK(smp_plan_new(&p, &o, &err) == 0);
	CHECK(smp_plan_add_live_file(p, "/nonexistent/live.json", &err) == SMP_EIO);
	CHECK_STR(err.file, "/nonexistent/live.json");
	CHECK(smp_plan_add_live_file(p, NULL, &err) == SMP_EINVAL);
	CHECK(smp_plan_add_live_file(NULL, path, &err) == SMP_EINVAL);
	smp_plan_free(p);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_shapes();
	test_malformed();
	test_changed();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures != 0;
}
