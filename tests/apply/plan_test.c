/*
 * plan_test.c - the apply plan (smp_plan_*): inputs and Lists, kubectl's
 * order, every action in each mode, later configurations seeing earlier
 * results, selectors, prune, failures that leave the others alone, the
 * streaming run giving what compute gives, the options for bindings.
 * Exact request bodies are checked against kubectl by the CLI's goldens
 * (testdata/apply, testdata/ssa-cli), which print them through this API.
 */
#include "tutil.h"

#include <stdlib.h>

/* What makes a Deployment one the API server accepts (the plans check
 * the server's validation), after its replicas. */
#define WEB_SPEC ",\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":" \
	"{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"nginx\"}]}}"

static const char *const deploy =
	"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},"
	"\"spec\":{\"replicas\":2" WEB_SPEC "}}";
static const char *const cm =
	"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\","
	"\"labels\":{\"app\":\"web\"}},\"data\":{\"k\":\"v\"}},"
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"b\","
	"\"namespace\":\"other\"},\"data\":{\"k\":\"v\"}}]}";
/* live: web at 1 replica with its annotation; an old ConfigMap to prune */
static const char *const live =
	"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
	"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
	"\"namespace\":\"default\",\"annotations\":{\"kubectl.kubernetes.io/"
	"last-applied-configuration\":\"{\\\"apiVersion\\\":\\\"apps/v1\\\",\\\"kind\\\":"
	"\\\"Deployment\\\",\\\"metadata\\\":{\\\"annotations\\\":{},\\\"name\\\":\\\"web\\\","
	"\\\"namespace\\\":\\\"default\\\"},\\\"spec\\\":{\\\"replicas\\\":1}}\\n\"}},"
	"\"spec\":{\"replicas\":1" WEB_SPEC "}},"
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"old\","
	"\"namespace\":\"default\",\"labels\":{\"app\":\"web\"},\"annotations\":"
	"{\"kubectl.kubernetes.io/last-applied-configuration\":\"{}\"}}}]}";

static smp_plan *new_plan(const smp_plan_options *o)
{
	smp_plan *p = NULL;
	smp_error err;

	CHECK(smp_plan_new(&p, o, &err) == 0, "smp_plan_new: %s", err.message);
	return p;
}

static void add(smp_plan *p, const char *text, bool is_live, const char *label)
{
	smp_error err;
	int rc = is_live ? smp_plan_add_live(p, parse_json(text), label, &err)
	                 : smp_plan_add_config(p, parse_json(text), label, &err);

	CHECK(rc == 0, "add %s: %s", label, err.message);
}

static void test_client_side(void)
{
	smp_plan_options o = SMP_PLAN_OPTIONS_INIT;
	smp_selector *sel = NULL;
	smp_plan *p;
	smp_error err;
	const smp_plan_entry *e;
	char *line = NULL;

	CHECK(smp_selector_parse(&sel, "app=web", &err) == 0);
	o.prune = true;
	o.selector = NULL;
	o.prune_all = true;
	p = new_plan(&o);
	add(p, deploy, false, "web.json");
	add(p, cm, false, "cm.json");
	add(p, live, true, "live.json");
	CHECK(smp_plan_count(p) == 0);
	CHECK(smp_plan_compute(p, &err) == 0, "%s", err.message);
	CHECK(smp_plan_compute(p, &err) == SMP_EINVAL, "computed twice");
	CHECK(smp_plan_count(p) == 4, "count %zu", smp_plan_count(p));
	/* web: configured by a strategic patch */
	e = smp_plan_entry_at(p, 0);
	CHECK(smp_plan_entry_action(e) == SMP_ACTION_CONFIGURE);
	CHECK_STR(smp_plan_entry_label(e), "web.json");
	CHECK_STR(smp_plan_entry_namespace(e), "default");
	CHECK_STR(smp_plan_entry_kind(e), "Deployment");
	CHECK(smp_plan_entry_request_count(e) == 1);
	CHECK_STR(smp_plan_request_method(e, 0), "PATCH");
	CHECK_STR(smp_plan_request_content_type(e, 0), "application/strategic-merge-patch+json");
	CHECK(smp_plan_request_body(e, 0) == smp_plan_entry_patch(e));
	CHECK(smp_value_int(smp_value_at(smp_plan_entry_object(e), "spec.replicas")) == 2);
	CHECK(smp_value_int(smp_value_at(smp_plan_entry_live(e), "spec.replicas")) == 1);
	CHECK(smp_plan_entry_status_line(&line, NULL, e, SMP_PLAN_LINE_DRY_RUN, &err) == 0);
	CHECK_STR(line, "deployment.apps/web configured (dry run)");
	smp_free(line);
	/* the List's items, in order: created, namespace defaulted or kept */
	e = smp_plan_entry_at(p, 1);
	CHECK(smp_plan_entry_action(e) == SMP_ACTION_CREATE);
	CHECK_STR(smp_plan_entry_name(e), "a");
	CHECK_STR(smp_plan_entry_namespace(e), "default");
	CHECK_STR(smp_plan_request_method(e, 0), "POST");
	CHECK_STR(smp_plan_request_field_manager(e, 0), "kubectl-client-side-apply");
	CHECK(smp_plan_entry_live(e) == NULL);
	e = smp_plan_entry_at(p, 2);
	CHECK_STR(smp_plan_entry_namespace(e), "other");
	/* prune: the live ConfigMap no configuration names */
	e = smp_plan_entry_at(p, 3);
	CHECK(smp_plan_entry_action(e) == SMP_ACTION_PRUNE);
	CHECK_STR(smp_plan_entry_name(e), "old");
	CHECK_STR(smp_plan_request_method(e, 0), "DELETE");
	CHECK_STR(smp_value_string(smp_value_at(smp_plan_request_body(e, 0),
	                                        "propagationPolicy"), NULL), "Background");
	CHECK(smp_plan_entry_object(e) == NULL);
	CHECK(smp_plan_entry_at(p, 4) == NULL);
	smp_plan_free(p);

	/* a kind nothing describes: namespaced, with one warning per kind */
	p = new_plan(NULL);
	add(p, "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":"
	       "{\"name\":\"w1\"}}", false, "w.json");
	add(p, "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":"
	       "{\"name\":\"w2\"}}", false, "w.json");
	CHECK(smp_plan_compute(p, &err) == 0);
	e = smp_plan_entry_at(p, 0);
	CHECK(smp_plan_entry_warning_count(e) == 1);
	CHECK(strncmp(smp_plan_entry_warning(e, 0) ? smp_plan_entry_warning(e, 0) : "",
	              "Warning: the scope of kind Widget.example.com is unknown", 56) == 0);
	CHECK_STR(smp_plan_entry_namespace(e), "default");
	CHECK(smp_plan_entry_warning_count(smp_plan_entry_at(p, 1)) == 0);
	CHECK(smp_plan_entry_patch_type(e) == SMP_PATCH_MERGE);
	smp_plan_free(p);

	/* a label selector keeps a and prunes nothing it does not select */
	o.prune_all = false;
	o.selector = sel;
	p = new_plan(&o);
	add(p, deploy, false, "web.json");
	add(p, cm, false, "cm.json");
	add(p, live, true, "live.json");
	CHECK(smp_plan_compute(p, &err) == 0);
	CHECK(smp_plan_count(p) == 2, "count %zu", smp_plan_count(p));
	CHECK_STR(smp_plan_entry_name(smp_plan_entry_at(p, 0)), "a");
	CHECK(smp_plan_entry_action(smp_plan_entry_at(p, 1)) == SMP_ACTION_PRUNE);
	smp_plan_free(p);
	smp_selector_free(sel);
}

/* The same object twice: the second apply meets the first one's result. */
static void test_sequence(void)
{
	smp_plan *p = new_plan(NULL);
	smp_error err;
	const smp_plan_entry *e;

	add(p, deploy, false, "a.json");
	add(p, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
	       "\"web\"},\"spec\":{\"replicas\":3" WEB_SPEC "}}", false, "b.json");
	add(p, deploy, false, "c.json");
	CHECK(smp_plan_compute(p, &err) == 0);
	CHECK(smp_plan_count(p) == 3);
	CHECK(smp_plan_entry_action(smp_plan_entry_at(p, 0)) == SMP_ACTION_CREATE);
	e = smp_plan_entry_at(p, 1);
	CHECK(smp_plan_entry_action(e) == SMP_ACTION_CONFIGURE);
	CHECK(smp_plan_entry_live(e) == smp_plan_entry_object(smp_plan_entry_at(p, 0)));
	CHECK(smp_value_int(smp_value_at(smp_plan_entry_object(e), "spec.replicas")) == 3);
	e = smp_plan_entry_at(p, 2);
	CHECK(smp_value_int(smp_value_at(smp_plan_entry_object(e), "spec.replicas")) == 2);
	smp_plan_free(p);
}

/* Failures are entries; the others go on. */
static void test_failures(void)
{
	smp_plan_options o = SMP_PLAN_OPTIONS_INIT;
	smp_plan *p;
	smp_error err, input;
	const smp_plan_entry *e;
	const smp_error *pe;

	o.overwrite = false;
	p = new_plan(&o);
	memset(&input, 0, sizeof(input));
	input.code = SMP_EPARSE;
	snprintf(input.file, sizeof(input.file), "bad.yaml");
	input.line = 3;
	input.column = 7;
	snprintf(input.message, sizeof(input.message), "did not find expected key");
	add(p, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\","
	       "\"labels\":{\"bad key!\":\"v\"}}}", false, "labels.json");
	CHECK(smp_plan_add_error(p, &input) == 0);
	add(p, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":7}}", false,
	    "meta.json");
	add(p, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
	       "\"web\"},\"spec\":{\"replicas\":5" WEB_SPEC "}}", false, "web.json");
	add(p, live, true, "live.json");
	CHECK(smp_plan_compute(p, &err) == 0);
	CHECK(smp_plan_count(p) == 4, "count %zu", smp_plan_count(p));
	e = smp_plan_entry_at(p, 0);
	CHECK(smp_plan_entry_action(e) == SMP_ACTION_ERROR);
	pe = smp_plan_entry_error(e);
	CHECK(pe && pe->code == SMP_EINVALOBJ && strcmp(pe->file, "labels.json") == 0 && pe->line);
	CHECK(smp_plan_entry_request_count(e) == 0 && smp_plan_entry_object(e) == NULL);
	CHECK(smp_plan_entry_status_line(NULL, NULL, e, 0, &err) == SMP_EINVAL);
	e = smp_plan_entry_at(p, 1);
	pe = smp_plan_entry_error(e);
	CHECK(smp_plan_entry_action(e) == SMP_ACTION_ERROR && pe && pe->code == SMP_EPARSE &&
	      pe->line == 3 && strcmp(pe->file, "bad.yaml") == 0);
	e = smp_plan_entry_at(p, 2);
	pe = smp_plan_entry_error(e);
	CHECK(pe && strncmp(pe->message, "configmap/", 10) == 0, "%s", pe ? pe->message : "");
	CHECK_STR(smp_plan_entry_label(e), "meta.json");
	/* overwrite false: the annotation itself counts as changed (as in
	 * kubectl), so any change of an applied object conflicts */
	e = smp_plan_entry_at(p, 3);
	CHECK(smp_plan_entry_action(e) == SMP_ACTION_CONFLICT);
	smp_plan_free(p);

	/* a live change since the last apply, overwrite false: CONFLICT */
	p = new_plan(&o);
	add(p, deploy, false, "web.json");
	add(p, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
	       "\"namespace\":\"default\",\"annotations\":{\"kubectl.kubernetes.io/"
	       "last-applied-configuration\":\"{\\\"apiVersion\\\":\\\"apps/v1\\\",\\\"kind\\\":"
	       "\\\"Deployment\\\",\\\"metadata\\\":{\\\"name\\\":\\\"web\\\"},\\\"spec\\\":"
	       "{\\\"replicas\\\":1}}\"}},\"spec\":{\"replicas\":4" WEB_SPEC "}}", true, "live.json");
	CHECK(smp_plan_compute(p, &err) == 0);
	e = smp_plan_entry_at(p, 0);
	CHECK(smp_plan_entry_action(e) == SMP_ACTION_CONFLICT);
	pe = smp_plan_entry_error(e);
	CHECK(pe && pe->code == SMP_ECONFLICT && strstr(pe->message, "deployment.apps/web: "));
	CHECK(smp_plan_entry_error_detail(e) &&
	      strstr(smp_plan_entry_error_detail(e), "conflicts with changes made from original"));
	smp_plan_free(p);

	/* nothing to apply */
	p = new_plan(NULL);
	CHECK(smp_plan_compute(p, &err) == SMP_EINVALOBJ);
	CHECK_STR(err.message, "no objects passed to apply");
	smp_plan_free(p);
	/* malformed input: nothing of the document is added */
	p = new_plan(NULL);
	CHECK(smp_plan_add_config(p, parse_json("{\"kind\":\"List\",\"items\":[{\"kind\":\"A\"},"
	                                        "7]}"), "l.json", &err) == SMP_EINVALOBJ);
	CHECK_STR(err.file, "l.json");
	CHECK(smp_plan_compute(p, &err) == SMP_EINVALOBJ);
	smp_plan_free(p);
}

static void test_server_side(void)
{
	smp_plan_options o = SMP_PLAN_OPTIONS_INIT;
	smp_plan *p;
	smp_error err;
	const smp_plan_entry *e;
	char *line = NULL;

	o.mode = SMP_PLAN_SERVER_SIDE;
	o.now = "2024-01-01T00:00:00Z";
	o.default_namespace = "prod";
	o.enforce_namespace = true;
	p = new_plan(&o);
	add(p, deploy, false, "web.json");
	add(p, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\","
	       "\"namespace\":\"dev\"}}", false, "c.json");
	CHECK(smp_plan_compute(p, &err) == 0);
	CHECK(smp_plan_count(p) == 2);
	e = smp_plan_entry_at(p, 0);
	CHECK(smp_plan_entry_action(e) == SMP_ACTION_CREATE);
	CHECK_STR(smp_plan_request_method(e, 0), "PATCH");
	CHECK_STR(smp_plan_request_content_type(e, 0), "application/apply-patch+yaml");
	CHECK_STR(smp_plan_request_field_manager(e, 0), "kubectl");
	CHECK(!smp_plan_request_force(e, 0));
	CHECK_STR(smp_value_string(smp_value_at(smp_plan_entry_patch(e), "metadata.namespace"),
	                           NULL), "prod");
	CHECK(smp_value_len(smp_value_at(smp_plan_entry_object(e), "metadata.managedFields")) == 1);
	CHECK(smp_plan_entry_status_line(&line, NULL, e, SMP_PLAN_LINE_SERVER_DRY_RUN, &err) == 0);
	CHECK_STR(line, "deployment.apps/web serverside-applied (server dry run)");
	smp_free(line);
	/* another namespace than the enforced one: refused, with a Status */
	e = smp_plan_entry_at(p, 1);
	CHECK(smp_plan_entry_action(e) == SMP_ACTION_ERROR);
	CHECK(smp_plan_entry_status(e) != NULL);
	CHECK_STR(smp_value_string(smp_map_get(smp_plan_entry_status(e), "kind"), NULL), "Status");
	smp_plan_free(p);

	/* replace of an object that does not exist: NotFound */
	o.mode = SMP_PLAN_REPLACE;
	o.enforce_namespace = false;
	p = new_plan(&o);
	add(p, deploy, false, "web.json");
	CHECK(smp_plan_compute(p, &err) == 0);
	e = smp_plan_entry_at(p, 0);
	CHECK(smp_plan_entry_action(e) == SMP_ACTION_ERROR);
	CHECK(smp_value_int(smp_map_get(smp_plan_entry_status(e), "code")) == 404);
	CHECK(smp_plan_entry_error(e) &&
	      strstr(smp_plan_entry_error(e)->message, "deployments.apps \"web\" not found"));
	smp_plan_free(p);
}

/* stored: the server's form, a Secret's stringData folded into data. */
static void test_stored(void)
{
	smp_plan_options o = SMP_PLAN_OPTIONS_INIT;
	smp_plan *p;
	smp_error err;
	const smp_value *obj;

	o.stored = true;
	p = new_plan(&o);
	add(p, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\"},"
	       "\"data\":{\"a\":\"eA==\",\"b\":\"eQ==\"},\"stringData\":{\"b\":\"hi!\"}}",
	    false, "s.json");
	CHECK(smp_plan_compute(p, &err) == 0);
	obj = smp_plan_entry_object(smp_plan_entry_at(p, 0));
	CHECK_STR(smp_value_string(smp_value_at(obj, "data.a"), NULL), "eA==");
	CHECK_STR(smp_value_string(smp_value_at(obj, "data.b"), NULL), "aGkh");
	CHECK(smp_map_get(obj, "stringData") == NULL);
	CHECK_STR(smp_value_string(smp_map_get(obj, "type"), NULL), "Opaque");
	/* what is sent does not change */
	CHECK(smp_value_at(smp_plan_entry_patch(smp_plan_entry_at(p, 0)), "stringData.b") != NULL);
	smp_plan_free(p);
}

/* run hands over what compute keeps, in the same order. */
typedef struct seen {
	smp_plan *batch;
	size_t n;
	int stop_at;
} seen;

static int on_entry(const smp_plan_entry *e, void *user)
{
	seen *s = user;
	const smp_plan_entry *b = smp_plan_entry_at(s->batch, s->n);
	char *d1 = NULL, *d2 = NULL;
	smp_error err;

	CHECK(b != NULL);
	CHECK(smp_plan_entry_action(e) == smp_plan_entry_action(b));
	CHECK_STR(smp_plan_entry_name(e), smp_plan_entry_name(b));
	CHECK(smp_value_equal(smp_plan_entry_object(e), smp_plan_entry_object(b)));
	CHECK(smp_value_equal(smp_plan_entry_patch(e), smp_plan_entry_patch(b)));
	if (smp_plan_entry_action(e) != SMP_ACTION_ERROR) {
		CHECK(smp_plan_entry_diff(&d1, NULL, e, 0, &err) == 0);
		CHECK(smp_plan_entry_diff(&d2, NULL, b, 0, &err) == 0);
		CHECK_STR(d1, d2);
	}
	smp_free(d1);
	smp_free(d2);
	s->n++;
	return s->stop_at && (int)s->n == s->stop_at ? 42 : 0;
}

static void test_run(void)
{
	const char *inputs[] = {deploy, cm, deploy};
	smp_plan_options o = SMP_PLAN_OPTIONS_INIT;
	smp_plan *batch, *p;
	smp_error err;
	seen s = {NULL, 0, 0};

	o.prune = true;
	o.prune_all = true;
	batch = new_plan(&o);
	for (size_t i = 0; i < 3; i++)
		add(batch, inputs[i], false, "in.json");
	add(batch, live, true, "live.json");
	CHECK(smp_plan_compute(batch, &err) == 0);
	s.batch = batch;
	p = new_plan(&o);
	for (size_t i = 0; i < 3; i++)
		add(p, inputs[i], false, "in.json");
	add(p, live, true, "live.json");
	CHECK(smp_plan_run(p, on_entry, &s, &err) == 0);
	CHECK(s.n == smp_plan_count(batch), "%zu of %zu", s.n, smp_plan_count(batch));
	CHECK(smp_plan_run(p, on_entry, &s, &err) == SMP_EINVAL);
	smp_plan_free(p);
	/* the callback stops the run */
	s.n = 0;
	s.stop_at = 2;
	p = new_plan(&o);
	for (size_t i = 0; i < 3; i++)
		add(p, inputs[i], false, "in.json");
	add(p, live, true, "live.json");
	CHECK(smp_plan_run(p, on_entry, &s, &err) == 42);
	CHECK(s.n == 2);
	smp_plan_free(p);
	smp_plan_free(batch);
}

static void test_options(void)
{
	const char *allow[] = {"apps/v1/Deployment", "core/v1/ConfigMap"};
	const char *bad_allow[] = {"apps/Deployment"};
	const char *scoped[] = {"Widget.example.com"};
	smp_plan_options *o = NULL, d = SMP_PLAN_OPTIONS_INIT;
	smp_plan *p = NULL;
	smp_error err;

	CHECK(smp_plan_options_new(&o) == 0);
	CHECK(o->version == d.version && o->mode == d.mode && o->overwrite && !o->prune &&
	      !o->field_manager && !o->schema && !o->selector && !o->prune_allowlist_len &&
	      !o->now, "the defaults of SMP_PLAN_OPTIONS_INIT");
	CHECK(smp_plan_options_set_string(o, "mode", "server-side") == 0 &&
	      o->mode == SMP_PLAN_SERVER_SIDE);
	CHECK(smp_plan_options_set_string(o, "mode", "sideways") == SMP_EINVAL);
	CHECK(smp_plan_options_set_string(o, "field_manager", "ci") == 0);
	CHECK_STR(o->field_manager, "ci");
	CHECK(smp_plan_options_set_bool(o, "force_conflicts", true) == 0 && o->force_conflicts);
	CHECK(smp_plan_options_set_bool(o, "overwrite", false) == 0 && !o->overwrite);
	CHECK(smp_plan_options_set_bool(o, "nonsense", true) == SMP_EINVAL);
	CHECK(smp_plan_options_set_handle(o, "schema", smp_schema_builtin()) == 0 &&
	      o->schema == smp_schema_builtin());
	CHECK(smp_plan_options_set_list(o, "cluster_scoped", scoped, 1) == 0 &&
	      o->cluster_scoped_len == 1);
	CHECK(smp_plan_new(&p, o, &err) == 0, "%s", err.message);
	smp_plan_free(p);
	/* prune in server-side mode, and a bad allowlist, are refused */
	CHECK(smp_plan_options_set_bool(o, "prune", true) == 0);
	CHECK(smp_plan_options_set_bool(o, "prune_all", true) == 0);
	CHECK(smp_plan_new(&p, o, &err) == SMP_EINVAL && p == NULL);
	CHECK(smp_plan_options_set_string(o, "mode", "client-side") == 0);
	CHECK(smp_plan_options_set_list(o, "prune_allowlist", allow, 2) == 0);
	CHECK(smp_plan_new(&p, o, &err) == 0, "%s", err.message);
	smp_plan_free(p);
	CHECK(smp_plan_options_set_list(o, "prune_allowlist", bad_allow, 1) == 0);
	CHECK(smp_plan_new(&p, o, &err) == SMP_EINVAL);
	CHECK_STR(err.message, "invalid GroupVersionKind format: apps/Deployment, please "
	                       "follow <group/version/kind>");
	CHECK_STR(err.path, "prune_allowlist[0]");
	smp_plan_options_free(o);
	CHECK(smp_plan_options_init(&d, 99) == SMP_EINVAL);
}

/* ApplySet: the IDs kubectl computes (from its messages through the
 * stand-in API server), the parent's two entries around the members, the
 * part-of label, the prune by membership (the kinds and namespaces the
 * parent lists), nothing after a failure, kubectl's refusals. */
#define AS_ID "applyset-51uXdjs_k8zt9KVdAtPaWnW_O9B-EVzd2Bkztfa9DSA-v1" /* myset in default */
static const char *const as_live =
	"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
	"{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"myset\","
	"\"namespace\":\"default\",\"labels\":{\"applyset.kubernetes.io/id\":\"" AS_ID "\"},"
	"\"annotations\":{\"applyset.kubernetes.io/tooling\":\"kubectl/v1.32.0\","
	"\"applyset.kubernetes.io/contains-group-kinds\":\"ConfigMap,Deployment.apps\","
	"\"applyset.kubernetes.io/additional-namespaces\":\"\"}}},"
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"old\","
	"\"namespace\":\"default\",\"uid\":\"u1\",\"labels\":{\"applyset.kubernetes.io/part-of\":"
	"\"" AS_ID "\"}}},"
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"elsewhere\","
	"\"namespace\":\"x\",\"labels\":{\"applyset.kubernetes.io/part-of\":\"" AS_ID "\"}}},"
	"{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"unlisted\","
	"\"namespace\":\"default\",\"labels\":{\"applyset.kubernetes.io/part-of\":\"" AS_ID "\"}}},"
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"stranger\","
	"\"namespace\":\"default\"}}]}";

static int count_entry(const smp_plan_entry *e, void *user)
{
	(void)e;
	(*(size_t *)user)++;
	return 0;
}

static void test_applyset(void)
{
	static const char *const want[][3] = {
		{"Secret", "myset", "parent"}, {"Deployment", "web", ""}, {"ConfigMap", "a", ""},
		{"ConfigMap", "old", "prune"}, {"Secret", "myset", "parent"}};
	smp_plan_options o = SMP_PLAN_OPTIONS_INIT;
	const smp_plan_entry *e;
	smp_plan *p;
	smp_error err;
	size_t n = 0;

	o.applyset = "myset";
	o.default_namespace = "default";
	o.enforce_namespace = true;
	o.now = "2024-01-01T00:00:00Z";
	/* kubectl's checks of the options */
	CHECK(smp_plan_new(&p, &o, &err) == SMP_EINVAL);
	CHECK_STR(err.message, "applyset requires prune");
	o.prune = true;
	o.prune_all = true;
	CHECK(smp_plan_new(&p, &o, &err) == SMP_EINVAL);
	o.prune_all = false;
	o.mode = SMP_PLAN_REPLACE;
	CHECK(smp_plan_new(&p, &o, &err) == SMP_EINVAL);
	o.mode = SMP_PLAN_CLIENT_SIDE;

	p = new_plan(&o);
	add(p, deploy, false, "web.json");
	add(p, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\"}}", false,
	    "a.json");
	add(p, as_live, true, "live.json");
	CHECK(smp_plan_compute(p, &err) == 0, "%s", err.message);
	CHECK(smp_plan_count(p) == 5, "%zu entries", smp_plan_count(p));
	for (size_t i = 0; i < 5 && i < smp_plan_count(p); i++) {
		e = smp_plan_entry_at(p, i);
		CHECK_STR(smp_plan_entry_kind(e), want[i][0]);
		CHECK_STR(smp_plan_entry_name(e), want[i][1]);
		CHECK(smp_plan_entry_applyset_parent(e) == (strcmp(want[i][2], "parent") == 0),
		      "entry %zu", i);
		CHECK((smp_plan_entry_action(e) == SMP_ACTION_PRUNE) ==
		      (strcmp(want[i][2], "prune") == 0), "entry %zu", i);
	}
	/* the members carry the label, in what is sent and in the annotation */
	e = smp_plan_entry_at(p, 2);
	CHECK_STR(smp_value_string(smp_map_get(smp_value_at(smp_plan_entry_config(e),
	                                                    "metadata.labels"),
	                                       "applyset.kubernetes.io/part-of"), NULL), AS_ID);
	/* the parent's last apply lists what was applied: Deployment and ConfigMap */
	e = smp_plan_entry_at(p, 4);
	CHECK(smp_plan_entry_request_count(e) == 1 && !smp_plan_request_force(e, 0));
	CHECK_STR(smp_plan_request_field_manager(e, 0), "kubectl-applyset");
	CHECK_STR(smp_plan_request_content_type(e, 0), "application/apply-patch+yaml");
	CHECK(smp_plan_entry_object(e) && smp_plan_entry_config(e) == NULL);
	smp_plan_free(p);

	/* the same entries streamed */
	p = new_plan(&o);
	add(p, deploy, false, "web.json");
	add(p, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\"}}", false,
	    "a.json");
	add(p, as_live, true, "live.json");
	CHECK(smp_plan_run(p, count_entry, &n, &err) == 0 && n == 5, "%zu entries", n);
	smp_plan_free(p);

	/* a failed object: no prune, no last apply of the parent */
	p = new_plan(&o);
	add(p, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\","
	       "\"labels\":{\"-bad\":\"x\"}}}", false, "a.json");
	add(p, as_live, true, "live.json");
	CHECK(smp_plan_compute(p, &err) == 0, "%s", err.message);
	CHECK(smp_plan_count(p) == 2 && smp_plan_entry_applyset_parent(smp_plan_entry_at(p, 0)) &&
	      smp_plan_entry_action(smp_plan_entry_at(p, 1)) == SMP_ACTION_ERROR,
	      "%zu entries", smp_plan_count(p));
	smp_plan_free(p);

	/* the label already set: the parent's first apply, then kubectl's error */
	p = new_plan(&o);
	add(p, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\","
	       "\"labels\":{\"applyset.kubernetes.io/part-of\":\"x\"}}}", false, "a.json");
	CHECK(smp_plan_compute(p, &err) == SMP_EINVALOBJ);
	CHECK_STR(err.message, "ApplySet label \"applyset.kubernetes.io/part-of\" already set in "
	                       "input data");
	CHECK(smp_plan_count(p) == 1 && smp_plan_entry_action(smp_plan_entry_at(p, 0)) ==
	      SMP_ACTION_CREATE);
	smp_plan_free(p);

	/* a custom resource's ID (kubectl's, for widgets.example.com/w1) */
	o.applyset = "widgets.example.com/w1";
	p = new_plan(&o);
	add(p, deploy, false, "web.json");
	add(p, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
	       "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
	       "\"metadata\":{\"name\":\"widgets.example.com\",\"labels\":{\"applyset.kubernetes.io/"
	       "is-parent-type\":\"true\"}},\"spec\":{\"group\":\"example.com\",\"scope\":"
	       "\"Namespaced\",\"names\":{\"kind\":\"Widget\",\"plural\":\"widgets\"},\"versions\":["
	       "{\"name\":\"v1beta1\",\"served\":true},{\"name\":\"v1\",\"served\":true}]}},"
	       "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w1\","
	       "\"namespace\":\"default\",\"labels\":{\"applyset.kubernetes.io/id\":\"wrong\"},"
	       "\"annotations\":{\"applyset.kubernetes.io/tooling\":\"kubectl/v1\"}}}]}",
	    true, "live.json");
	CHECK(smp_plan_compute(p, &err) == SMP_EINVALOBJ);
	CHECK_STR(err.message, "ApplySet parent object \"widgets.example.com/w1\" exists and has "
	                       "incorrect value for label \"applyset.kubernetes.io/id\" (got: wrong, "
	                       "want: applyset-w2F6avP12iMc0NtLfxidFikyF8plpeYCClrtAeRJ0Ko-v1)");
	CHECK(smp_plan_count(p) == 0);
	smp_plan_free(p);
}

/* smp_text_diff: equal texts give nothing; hunks as diff -u. */
static void test_text_diff(void)
{
	char *out = NULL;
	size_t len = 9;
	smp_error err;

	CHECK(smp_text_diff(&out, &len, "a", "x\n", 2, "b", "x\n", 2, 0, &err) == 0);
	CHECK(out && len == 0 && out[0] == '\0');
	smp_free(out);
	CHECK(smp_text_diff(&out, &len, "a", "x\ny\n", 4, "b", "x\nz\n", 4, 0, &err) == 0);
	CHECK_STR(out, "diff -u -N a b\n--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n");
	smp_free(out);
	CHECK(smp_text_diff(&out, &len, "a", "", 0, "b", "z\n", 2, SMP_PLAN_DIFF_COLOR, &err) == 0);
	CHECK(out && strstr(out, "\033[32m+z\033[0m\n"));
	smp_free(out);
}

int main(void)
{
	test_client_side();
	test_sequence();
	test_failures();
	test_server_side();
	test_stored();
	test_run();
	test_options();
	test_text_diff();
	test_applyset();
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures != 0;
}
