/*
 * cmd_apply_ssa.c - `smpatch apply --server-side`: what the API server
 * stores for kubectl's server-side apply of each configuration, who owns
 * which field afterwards, and the conflicts (smp_ssa_apply); and the run
 * over the objects that `smpatch replace` (cmd_replace.c) shares.
 */
#include "ssa_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const help_text[] = {
	"Usage: smpatch apply --server-side [--field-manager NAME] [--force-conflicts]\n"
	"                     -f PATH [-f PATH...] [-R] [--live FILE|-]\n"
	"                     [-o patch|yaml|json|diff|name] [--show-managed-fields]\n"
	"                     [-l SELECTOR] [--field-selector SEL] [-n NAMESPACE]\n"
	"                     [--openapi FILE | --schema CRD.yaml ...] [--dry-run=server]\n"
	"\n"
	"Computes what `kubectl apply --server-side` does, offline: for every object\n"
	"in the configuration files, the request kubectl sends (a PATCH of type\n"
	"application/apply-patch+yaml whose body is the configuration) and what\n"
	"the API server stores: the configuration merged into the live object by\n"
	"field ownership (metadata.managedFields), fields the manager applied\n"
	"before and no longer applies removed unless another manager owns them,\n"
	"and the new ownership. A field the configuration sets to another value\n"
	"than the live one while another manager owns it is a conflict.\n"
	"The live objects must carry their metadata.managedFields (kubectl get -o\n"
	"yaml --show-managed-fields); docs/SSA.md explains the algorithm.\n"
	"\n"
	,
	"Options:\n"
	"      --server-side      apply on the server's terms (this mode)\n"
	"      --field-manager NAME  the manager that owns what is applied\n"
	"                         (default \"kubectl\", as kubectl's)\n"
	"      --force-conflicts  take the conflicting fields from their managers\n"
	"                         instead of failing\n"
	"  -f, --filename PATH    configuration: a file, a directory (its .yaml, .yml\n"
	"                         and .json files, in name order) or - for standard\n"
	"                         input; repeatable; streams and Lists are expanded\n"
	"  -R, --recursive        descend into subdirectories of directories given\n"
	"                         with -f\n"
	"      --live FILE|-      the live objects, with their managedFields: a\n"
	"                         stream of objects or a List. Objects match by API\n"
	"                         group, kind, namespace and name. Without --live\n"
	"                         nothing exists yet.\n"
	"  -o, --output FORMAT    patch (default): one JSON line per object\n"
	"                           {\"apiVersion\",\"kind\",\"namespace\",\"name\",\n"
	"                            \"action\",\"patchType\",\"fieldManager\",\"force\",\n"
	"                            \"patch\"}\n"
	"                         action create (no live object), configure (the\n"
	"                         object changes) or unchanged (only ownership may\n"
	"                         change); patchType application/apply-patch+yaml;\n"
	"                         fieldManager and force the query parameters and\n"
	"                         patch the body kubectl sends (the configuration,\n"
	"                         its namespace filled in, keys sorted).\n"
	"                         yaml, json: the stored objects (several as one\n"
	"                         `kind: List`), then, for each object the server\n"
	"                         refuses, the metav1.Status it answers (a conflict:\n"
	"                         reason Conflict, code 409, details.causes of type\n"
	"                         FieldManagerConflict).\n"
	"                         diff: a unified diff of each live object against\n"
	"                         the stored one; exit 1 when anything differs.\n"
	"                         name: kind.group/name per object.\n"
	"      --show-managed-fields  keep metadata.managedFields in the objects\n"
	"                         printed by -o yaml, json and diff\n"
	,
	"  -l, --selector SEL     apply only configurations whose labels match SEL\n"
	"      --field-selector SEL  apply only objects whose fields match SEL\n"
	"  -n, --namespace NS     namespace for namespaced objects that name none\n"
	"                         (default \"default\"); an object naming another one\n"
	"                         is an error, as in kubectl\n"
	"      --openapi FILE     an OpenAPI v2/v3 document: the schema of the kinds\n"
	"                         it defines (custom resources' x-kubernetes-list-type,\n"
	"                         -list-map-keys, -map-type)\n"
	"      --schema FILE      a CustomResourceDefinition; repeatable\n"
	"      --dry-run=server   adds \"(server dry run)\" to the status lines\n"
	"                         (nothing is ever sent anywhere); none: nothing;\n"
	"                         client is kubectl's error with --server-side\n"
	"      --overwrite        accepted and ignored, as kubectl ignores it here\n"
	"  -h, --help             show this help\n"
	"\n"
	"Status lines go to standard error as kubectl prints them\n"
	"(deployment.apps/web serverside-applied). The time written into the\n"
	"managedFields entries that change is the current time, or $SMPATCH_NOW\n"
	"(RFC 3339, e.g. 2024-01-01T00:00:00Z) when set.\n"
	"\n"
	"Exit codes: 0 success; 1 differences found (-o diff); 2 usage; 3 invalid\n"
	"input or a request the server rejects (managedFields in a configuration,\n"
	"duplicate list keys, a missing key field, a value of the wrong type, an\n"
	"unknown kind); 4 conflicts (kubectl's message on standard error); 5\n"
	"internal error. Each failing object is reported and left out; the others\n"
	"are still shown, and the exit code is that of the first failure.\n",
	NULL
};

enum {
	OPT_FILENAME = 1, OPT_RECURSIVE, OPT_LIVE, OPT_OUTPUT, OPT_OVERWRITE, OPT_MANAGED,
	OPT_PRUNE, OPT_ALL, OPT_ALLOW, OPT_SELECTOR, OPT_FIELD_SELECTOR, OPT_NAMESPACE,
	OPT_OPENAPI, OPT_SCHEMA, OPT_DRY_RUN, OPT_SERVER_SIDE, OPT_FIELD_MANAGER,
	OPT_FORCE_CONFLICTS
};

/* Every option of `smpatch apply`, for the server-side mode: the
 * client-side ones that make no sense here are refused by name. */
static const cli_option ssa_apply_options[] = {
	{"filename", 'f', CLI_ARG_VALUE, OPT_FILENAME, "@file", NULL},
	{"recursive", 'R', CLI_ARG_BOOL, OPT_RECURSIVE, NULL, NULL},
	{"live", 0, CLI_ARG_VALUE, OPT_LIVE, "@file", NULL},
	{"output", 'o', CLI_ARG_VALUE, OPT_OUTPUT, "patch yaml json diff name", NULL},
	{"overwrite", 0, CLI_ARG_BOOL, OPT_OVERWRITE, NULL, NULL},
	{"show-managed-fields", 0, CLI_ARG_BOOL, OPT_MANAGED, NULL, NULL},
	{"prune", 0, CLI_ARG_BOOL, OPT_PRUNE, NULL, NULL},
	{"all", 0, CLI_ARG_BOOL, OPT_ALL, NULL, NULL},
	{"prune-allowlist", 0, CLI_ARG_VALUE, OPT_ALLOW, NULL, NULL},
	{"prune-whitelist", 0, CLI_ARG_VALUE, OPT_ALLOW, NULL, NULL},
	{"selector", 'l', CLI_ARG_VALUE, OPT_SELECTOR, NULL, NULL},
	{"field-selector", 0, CLI_ARG_VALUE, OPT_FIELD_SELECTOR, NULL, NULL},
	{"namespace", 'n', CLI_ARG_VALUE, OPT_NAMESPACE, NULL, NULL},
	{"openapi", 0, CLI_ARG_VALUE, OPT_OPENAPI, "@file", NULL},
	{"schema", 0, CLI_ARG_VALUE, OPT_SCHEMA, "@file", NULL},
	{"dry-run", 0, CLI_ARG_OPTIONAL, OPT_DRY_RUN, "none server client", "unchanged"},
	{"server-side", 0, CLI_ARG_BOOL, OPT_SERVER_SIDE, NULL, NULL},
	{"field-manager", 0, CLI_ARG_VALUE, OPT_FIELD_MANAGER, NULL, NULL},
	{"force-conflicts", 0, CLI_ARG_BOOL, OPT_FORCE_CONFLICTS, NULL, NULL},
	{NULL, 0, 0, 0, NULL, NULL},
};

/* ------------------------------------------------------------ the run */

/* What happened to one configuration. */
typedef struct ssa_entry {
	const cli_obj *cfg;
	smp_doc *sent;             /* the request body: cfg with its namespace */
	const smp_value *live;     /* the object before (NULL: none) */
	smp_ssa_result *res;       /* success: the stored object */
	smp_doc *status;           /* failure: the metav1.Status answered */
	int code;                  /* failure: the exit code (CLI_OK: none) */
} ssa_entry;

static const char conflict_advice[] =
	"Please review the fields above--they currently have other managers. Here\n"
	"are the ways you can resolve this warning:\n"
	"* If you intend to manage all of these fields, please re-run the apply\n"
	"  command with the `--force-conflicts` flag.\n"
	"* If you do not intend to manage all of the fields, please edit your\n"
	"  manifest to remove references to the fields that should keep their\n"
	"  current managers.\n"
	"* You may co-own fields by updating your manifest to match the existing\n"
	"  value; in this case, you'll become the manager if the other manager(s)\n"
	"  stop managing the field (remove it from their configuration).\n"
	"See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts\n";

static int oom(void)
{
	fprintf(stderr, "smpatch: error: out of memory\n");
	return CLI_INTERNAL;
}

/* Parses JSON text built here into a document. */
static int parse_json(smp_doc **out, const cli_buf *b, smp_error *err)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;

	if (b->oom) {
		memset(err, 0, sizeof(*err));
		err->code = SMP_ENOMEM;
		snprintf(err->message, sizeof(err->message), "out of memory");
		return SMP_ENOMEM;
	}
	po.format = SMP_FORMAT_JSON;
	return smp_doc_parse(out, b->ptr ? b->ptr : "", b->len, &po, err);
}

/* The configuration as kubectl sends it: metadata.namespace filled in for
 * namespaced kinds (resource.SetNamespace), or an error when it names
 * another namespace than -n (kubectl's message). */
static int request_body(smp_doc **out, const smp_value *cfg, const smp_apply_options *ao,
                        smp_error *err)
{
	const char *ns = smp_apply_namespace(cfg, ao);
	const char *have = cli_str_at(smp_map_get(cfg, "metadata"), "namespace");
	smp_patch_options po = SMP_PATCH_OPTIONS_INIT;
	smp_doc *patch = NULL;
	cli_buf b;
	int rc;

	memset(err, 0, sizeof(*err));
	if (ao->enforce_namespace && have && *have && *ns &&
	    strcmp(have, ao->default_namespace) != 0) {
		err->code = SMP_EINVALOBJ;
		snprintf(err->message, sizeof(err->message),
		         /* cli_fail adds kubectl's "You must pass '--namespace=...'" */
		         "the namespace from the provided object \"%s\" does not match the "
		         "namespace \"%s\"", have, ao->default_namespace);
		return SMP_EINVALOBJ;
	}
	if (!*ns || (have && strcmp(have, ns) == 0))
		return smp_doc_new(out, err) ? err->code
		       : smp_doc_add_copy(NULL, *out, cfg, err);
	cli_buf_init(&b);
	cli_buf_puts(&b, "{\"metadata\":{\"namespace\":");
	cli_json_string(&b, ns);
	cli_buf_puts(&b, "}}");
	po.type = SMP_PATCH_MERGE;
	if (!(rc = parse_json(&patch, &b, err)))
		rc = smp_patch_apply(out, cfg, smp_doc_root(patch, 0), &po, err);
	smp_doc_free(patch);
	cli_buf_release(&b);
	return rc;
}

/* The metav1.Status the API server answers a conflicting apply
 * (NewApplyConflict: no name or kind in the details, one cause per field;
 * the cause's type is serialised as "reason", as metav1.StatusCause is). */
static int conflict_status(smp_doc **out, const smp_ssa_result *res, smp_error *err)
{
	const smp_ssa_conflict *cs;
	size_t n = smp_ssa_result_conflicts(res, &cs);
	cli_buf b;
	int rc;

	cli_buf_init(&b);
	cli_buf_puts(&b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	             "\"status\":\"Failure\",\"message\":");
	cli_json_string(&b, smp_ssa_result_message(res));
	cli_buf_puts(&b, ",\"reason\":\"Conflict\",\"details\":{\"causes\":[");
	for (size_t i = 0; i < n; i++) {
		char who[1024];

		/* printManager: appliers by name, updaters with their version */
		if (strcmp(cs[i].operation, "Update") == 0)
			snprintf(who, sizeof(who), "conflict with \"%s\"%s%s%s using %s", cs[i].manager,
			         cs[i].subresource[0] ? " with subresource \"" : "", cs[i].subresource,
			         cs[i].subresource[0] ? "\"" : "", cs[i].api_version);
		else
			snprintf(who, sizeof(who), "conflict with \"%s\"%s%s%s", cs[i].manager,
			         cs[i].subresource[0] ? " with subresource \"" : "", cs[i].subresource,
			         cs[i].subresource[0] ? "\"" : "");
		cli_buf_puts(&b, i ? ",{\"reason\":\"FieldManagerConflict\",\"message\":"
		                   : "{\"reason\":\"FieldManagerConflict\",\"message\":");
		cli_json_string(&b, who);
		cli_buf_puts(&b, ",\"field\":");
		cli_json_string(&b, cs[i].path);
		cli_buf_putc(&b, '}');
	}
	cli_buf_puts(&b, "]},\"code\":409}");
	rc = parse_json(out, &b, err);
	cli_buf_release(&b);
	return rc;
}


/* "file:line:col" of a configuration, as cli_fail_at names it. */
static void location(char *buf, size_t size, const cli_obj *o)
{
	unsigned line = smp_value_line(o->v), col = smp_value_column(o->v);

	if (line && col)
		snprintf(buf, size, "%s:%u:%u", o->file, line, col);
	else
		snprintf(buf, size, "%s", o->file);
}

/* A refused request: reported on stderr now, the Status the server
 * answers kept for -o json|yaml (unless `status` is given: that one). */
static int refuse(ssa_entry *e, smp_error *err, const smp_value *obj, smp_doc *status)
{
	smp_error e2;
	char ref[512];

	if (err->code == SMP_ENOMEM) {
		smp_doc_free(status);
		return oom();
	}
	e->status = status;
	if (!status && smp_status_from_error(&e->status, err, obj, &e2) == SMP_ENOMEM)
		return oom();
	smp_apply_object_ref(ref, sizeof(ref), obj);
	cli_err_prefix(err, ref);
	return cli_fail_at(err, e->cfg);
}

/* The server's 404 for a replace of an object that does not exist
 * (kubectl: Error from server (NotFound): ... "web" not found). */
static int not_found(ssa_entry *e, const smp_value *obj, const smp_schema *schema)
{
	const char *av = cli_str_at(obj, "apiVersion"), *kind = cli_str_at(obj, "kind");
	const char *name = cli_str_at(smp_map_get(obj, "metadata"), "name");
	const char *res = NULL, *slash = av ? strchr(av, '/') : NULL;
	char what[600];
	smp_doc *st = NULL;
	smp_error err;
	cli_buf b;

	if (schema && av && kind)
		res = smp_schema_kind_resource(schema, av, kind);
	if (!res && av && kind)
		res = smp_schema_kind_resource(smp_schema_builtin(), av, kind);
	if (!res)
		res = kind ? kind : "";
	if (slash)
		snprintf(what, sizeof(what), "%s.%.*s", res, (int)(slash - av), av);
	else
		snprintf(what, sizeof(what), "%s", res);
	memset(&err, 0, sizeof(err));
	err.code = SMP_EINVALOBJ;
	snprintf(err.message, sizeof(err.message), "%s \"%s\" not found", what, name ? name : "");
	cli_buf_init(&b);
	cli_buf_puts(&b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	             "\"status\":\"Failure\",\"message\":");
	cli_json_string(&b, err.message);
	cli_buf_puts(&b, ",\"reason\":\"NotFound\",\"details\":{\"name\":");
	cli_json_string(&b, name ? name : "");
	if (slash) {
		char group[256];

		snprintf(group, sizeof(group), "%.*s", (int)(slash - av), av);
		cli_buf_puts(&b, ",\"group\":");
		cli_json_string(&b, group);
	}
	cli_buf_puts(&b, ",\"kind\":");
	cli_json_string(&b, res);
	cli_buf_puts(&b, "},\"code\":404}");
	if (parse_json(&st, &b, &err) == SMP_ENOMEM) {
		cli_buf_release(&b);
		return oom();
	}
	cli_buf_release(&b);
	return refuse(e, &err, obj, st);
}

/* Appends `"key":<v as JSON>` to b (a comma first unless *first). */
static void put_member(cli_buf *b, const char *key, const smp_value *v, bool *first)
{
	smp_error err;

	if (!*first)
		cli_buf_putc(b, ',');
	*first = false;
	cli_json_string(b, key);
	cli_buf_putc(b, ':');
	if (cli_buf_value(b, v, SMP_OUT_JSON, false, &err))
		b->oom = true;
}

/* A PUT as the API server stores it before the field manager sees it
 * (rest.BeforeUpdate and the kinds' PrepareForUpdate): uid,
 * creationTimestamp, generation, deletionTimestamp and
 * deletionGracePeriodSeconds stay the live ones, resourceVersion too (the
 * server then writes the next one, which cannot be known here), and the
 * status of built-in kinds stays the live one (their status is written
 * through the status subresource only). */
static int replace_body(smp_doc **body, const smp_value *live, const smp_value *cfg,
                        smp_error *err)
{
	static const char *const kept[] = {"uid", "creationTimestamp", "generation",
	                                   "deletionTimestamp", "deletionGracePeriodSeconds",
	                                   "resourceVersion"};
	const smp_value *lmd = smp_map_get(live, "metadata");
	const char *av = cli_str_at(cfg, "apiVersion"), *kind = cli_str_at(cfg, "kind");
	bool builtin = false, first = true;
	smp_patch_options po = SMP_PATCH_OPTIONS_INIT;
	smp_doc *patch = NULL, *mid = NULL;
	cli_buf b;
	int rc;

	if (av && kind)
		smp_schema_kind_namespaced(smp_schema_builtin(), av, kind, &builtin);
	cli_buf_init(&b);
	cli_buf_puts(&b, "{\"metadata\":{");
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		const smp_value *v = smp_map_get(lmd, kept[i]);

		if (v && smp_value_type(v) != SMP_NULL)
			put_member(&b, kept[i], v, &first);
	}
	cli_buf_puts(&b, builtin ? "},\"status\":null}" : "}}");
	po.type = SMP_PATCH_MERGE;
	if ((rc = parse_json(&patch, &b, err)) ||
	    (rc = smp_patch_apply(&mid, cfg, smp_doc_root(patch, 0), &po, err)))
		goto out;
	if (builtin && smp_map_get(live, "status")) {
		smp_doc_free(patch);
		patch = NULL;
		b.len = 0;
		first = true;
		cli_buf_putc(&b, '{');
		put_member(&b, "status", smp_map_get(live, "status"), &first);
		cli_buf_putc(&b, '}');
		if ((rc = parse_json(&patch, &b, err)) ||
		    (rc = smp_patch_apply(body, smp_doc_root(mid, 0), smp_doc_root(patch, 0), &po,
		                          err)))
			goto out;
	} else {
		*body = mid;
		mid = NULL;
	}
out:
	smp_doc_free(patch);
	smp_doc_free(mid);
	cli_buf_release(&b);
	return rc;
}

/* A PUT whose body names a resourceVersion other than the live one is
 * refused (optimistic concurrency): 409 "the object has been modified". */
static bool stale(const smp_value *live, const smp_value *cfg)
{
	const char *want = cli_str_at(smp_map_get(cfg, "metadata"), "resourceVersion");
	const char *have = cli_str_at(smp_map_get(live, "metadata"), "resourceVersion");

	return want && *want && (!have || strcmp(want, have) != 0);
}

/* The run over one configuration against e->live (NULL: none). */
static int run_one(ssa_entry *e, const ssa_cli_args *a, const smp_apply_options *ao,
                   const smp_ssa_options *so)
{
	const smp_value *body = smp_doc_root(e->sent, 0);
	smp_error err;
	int rc;

	if (a->mode == SSA_CLI_APPLY) {
		rc = smp_ssa_apply(&e->res, e->live, body, so, &err);
	} else {
		smp_doc *stored = NULL;

		if (!e->live)
			return not_found(e, body, ao->schema);
		if (stale(e->live, body)) {
			memset(&err, 0, sizeof(err));
			err.code = SMP_ECONFLICT;
			snprintf(err.message, sizeof(err.message), "the object has been modified; "
			         "please apply your changes to the latest version and try again");
			return refuse(e, &err, body, NULL);
		}
		if ((rc = replace_body(&stored, e->live, body, &err)))
			return refuse(e, &err, body, NULL);
		rc = smp_ssa_update(&e->res, e->live, smp_doc_root(stored, 0), so, &err);
		smp_doc_free(stored);
	}
	if (rc == SMP_ECONFLICT && e->res && smp_ssa_result_message(e->res)) {
		char loc[SMP_ERROR_FILE_MAX + 32];

		if (conflict_status(&e->status, e->res, &err))
			return oom();
		location(loc, sizeof(loc), e->cfg);
		fprintf(stderr, "smpatch: %s: error: %s\n%s", loc, smp_ssa_result_message(e->res),
		        conflict_advice);
		smp_ssa_result_free(e->res);
		e->res = NULL;
		return CLI_CONFLICT;
	}
	if (rc) {
		smp_ssa_result_free(e->res);
		e->res = NULL;
		return refuse(e, &err, body, NULL);
	}
	return CLI_OK;
}

/* ------------------------------------------------------------ output */

static const char *action_of(const ssa_entry *e)
{
	if (!e->live)
		return "create";
	return smp_ssa_result_changed(e->res) ? "configure" : "unchanged";
}

/* -o patch: the request kubectl sends. */
static int put_patch_line(cli_buf *out, const ssa_entry *e, const ssa_cli_args *a,
                          smp_error *err)
{
	const smp_value *body = smp_doc_root(e->sent, 0);
	const smp_value *md = smp_map_get(body, "metadata");
	const char *ns = cli_str_at(md, "namespace");

	cli_buf_puts(out, "{\"apiVersion\":");
	cli_json_string(out, cli_str_at(body, "apiVersion"));
	cli_buf_puts(out, ",\"kind\":");
	cli_json_string(out, cli_str_at(body, "kind"));
	cli_buf_puts(out, ",\"namespace\":");
	cli_json_string(out, ns ? ns : "");
	cli_buf_puts(out, ",\"name\":");
	cli_json_string(out, cli_str_at(md, "name"));
	cli_buf_puts(out, ",\"action\":");
	cli_json_string(out, action_of(e));
	cli_buf_puts(out, ",\"patchType\":\"application/apply-patch+yaml\",\"fieldManager\":");
	cli_json_string(out, a->manager);
	cli_buf_puts(out, a->force ? ",\"force\":true,\"patch\":" : ",\"force\":false,\"patch\":");
	if (cli_buf_value(out, body, SMP_OUT_JSON, true, err))
		return err->code;
	cli_buf_puts(out, "}\n");
	return 0;
}

/* The stored object as printed (no managedFields unless asked). */
static int shown(smp_doc **out, const ssa_entry *e, const ssa_cli_args *a, smp_error *err)
{
	return smp_display_objects(NULL, out, NULL, smp_ssa_result_object(e->res),
	                           a->managed ? SMP_DISPLAY_MANAGED_FIELDS : 0, err);
}

/* -o yaml|json: the stored objects, one alone or several as a List (as
 * kubectl prints them), then the Status of each refused request. */
static int put_objects(cli_buf *out, const ssa_entry *es, size_t n, const ssa_cli_args *a,
                       smp_error *err)
{
	smp_output fmt = a->fmt == SSA_OUT_YAML ? SMP_OUT_YAML : SMP_OUT_JSON_INDENT;
	size_t nok = 0;
	bool first = true;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		nok += es[i].res != NULL;
	if (nok > 1) {
		smp_print_options pr = SMP_PRINT_OPTIONS_INIT;
		smp_doc *list = NULL;
		char *text = NULL;
		size_t len = 0;
		cli_buf json;
		bool f = true;

		/* put together as JSON and read back, to print as one value */
		cli_buf_init(&json);
		cli_buf_puts(&json, "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{},"
		             "\"items\":[");
		for (size_t i = 0; i < n && !rc; i++) {
			smp_doc *d = NULL;

			if (!es[i].res)
				continue;
			if (!f)
				cli_buf_putc(&json, ',');
			f = false;
			if (!(rc = shown(&d, &es[i], a, err)))
				rc = cli_buf_value(&json, smp_doc_root(d, 0), SMP_OUT_JSON, true, err);
			smp_doc_free(d);
		}
		cli_buf_puts(&json, "]}");
		pr.output = fmt;
		pr.sort_keys = fmt == SMP_OUT_YAML;
		pr.go_escape = fmt != SMP_OUT_YAML;
		if (!rc && !(rc = parse_json(&list, &json, err)) &&
		    !(rc = smp_print(&text, &len, smp_doc_root(list, 0), &pr, err)))
			cli_buf_put(out, text, len);
		smp_free(text);
		smp_doc_free(list);
		cli_buf_release(&json);
		first = false;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		smp_doc *d = NULL;
		const smp_value *v;

		if (es[i].res && nok > 1)
			continue;
		if (!es[i].res && !es[i].status)
			continue;
		if (!first && fmt == SMP_OUT_YAML)
			cli_buf_puts(out, "---\n");
		first = false;
		if (es[i].res) {
			if (!(rc = shown(&d, &es[i], a, err)))
				rc = cli_buf_value(out, smp_doc_root(d, 0), fmt, true, err);
			smp_doc_free(d);
			continue;
		}
		/* the server's field order, as kubectl prints a Status */
		v = smp_doc_root(es[i].status, 0);
		rc = cli_buf_value(out, v, fmt, false, err);
	}
	return rc;
}

/* "[group.]version.Kind.namespace.name" as kubectl diff names its files. */
static void diff_name(cli_buf *b, const smp_value *obj)
{
	const char *av = cli_str_at(obj, "apiVersion");
	const smp_value *md = smp_map_get(obj, "metadata");
	const char *ns = cli_str_at(md, "namespace");
	const char *kind = cli_str_at(obj, "kind"), *name = cli_str_at(md, "name");

	for (const char *c = av ? av : ""; *c; c++)
		cli_buf_putc(b, *c == '/' ? '.' : *c);
	cli_buf_putc(b, '.');
	cli_buf_puts(b, kind ? kind : "");
	cli_buf_putc(b, '.');
	cli_buf_puts(b, ns ? ns : "");
	cli_buf_putc(b, '.');
	cli_buf_puts(b, name ? name : "");
}

/* -o diff: the live object against the stored one, as kubectl diff. */
static int put_diff(cli_buf *out, const ssa_entry *e, const ssa_cli_args *a, bool *differs,
                    smp_error *err)
{
	const smp_value *after = smp_ssa_result_object(e->res);
	unsigned flags = SMP_DISPLAY_MASK_SECRETS | (a->managed ? SMP_DISPLAY_MANAGED_FIELDS : 0);
	smp_doc *ld = NULL, *rd = NULL;
	cli_buf left, right, name;
	int rc;

	cli_buf_init(&left);
	cli_buf_init(&right);
	cli_buf_init(&name);
	if ((rc = smp_display_objects(&ld, &rd, e->live, after, flags, err)))
		goto out;
	if (ld && (rc = cli_buf_value(&left, smp_doc_root(ld, 0), SMP_OUT_YAML, true, err)))
		goto out;
	if ((rc = cli_buf_value(&right, smp_doc_root(rd, 0), SMP_OUT_YAML, true, err)))
		goto out;
	diff_name(&name, after);
	if (left.oom || right.oom || name.oom) {
		rc = SMP_ENOMEM;
		goto out;
	}
	rc = cli_unified_diff(out, "live/", "merged/", name.ptr ? name.ptr : "",
	                      left.ptr ? left.ptr : "", left.len, right.ptr ? right.ptr : "",
	                      right.len, differs);
out:
	smp_doc_free(ld);
	smp_doc_free(rd);
	cli_buf_release(&left);
	cli_buf_release(&right);
	cli_buf_release(&name);
	return rc;
}

/* Everything printed: status lines (stderr; stdout when there is no -o,
 * as kubectl prints them), then the -o output. */
static int print_all(const ssa_entry *es, size_t n, const ssa_cli_args *a, bool *differs)
{
	const char *word = a->mode == SSA_CLI_APPLY ? "serverside-applied" : "replaced";
	bool lines = a->fmt != SSA_OUT_DIFF && a->fmt != SSA_OUT_NAME;
	cli_buf out, status;
	smp_error err;
	int rc = 0, code = CLI_OK;

	cli_buf_init(&out);
	cli_buf_init(&status);
	for (size_t i = 0; i < n && !rc; i++) {
		const ssa_entry *e = &es[i];
		char ref[512];

		if (!e->res)
			continue;
		smp_apply_object_ref(ref, sizeof(ref), smp_ssa_result_object(e->res));
		if (lines) {
			cli_buf_puts(&status, ref);
			cli_buf_putc(&status, ' ');
			cli_buf_puts(&status, word);
			cli_buf_puts(&status, a->server_dry_run ? " (server dry run)\n" : "\n");
		}
		switch (a->fmt) {
		case SSA_OUT_PATCH:
			rc = put_patch_line(&out, e, a, &err);
			break;
		case SSA_OUT_DIFF:
			rc = put_diff(&out, e, a, differs, &err);
			break;
		case SSA_OUT_NAME:
			cli_buf_puts(&out, ref);
			cli_buf_putc(&out, '\n');
			break;
		default:
			break;
		}
		if (rc && rc != SMP_ENOMEM)
			cli_err_prefix(&err, ref);
	}
	if (!rc && (a->fmt == SSA_OUT_YAML || a->fmt == SSA_OUT_JSON))
		rc = put_objects(&out, es, n, a, &err);
	if (rc) {
		code = rc == SMP_ENOMEM ? oom() : cli_fail(&err);
	} else if (out.oom || status.oom) {
		code = oom();
	} else if (a->fmt == SSA_OUT_NONE) {
		if (!cli_write(status.ptr ? status.ptr : "", status.len))
			code = CLI_INTERNAL;
	} else {
		fwrite(status.ptr ? status.ptr : "", 1, status.len, stderr);
		if (!cli_write(out.ptr ? out.ptr : "", out.len))
			code = CLI_INTERNAL;
	}
	cli_buf_release(&out);
	cli_buf_release(&status);
	return code;
}

/* ------------------------------------------------------------ the run */

/* $SMPATCH_NOW, checked (the library reads the rest of RFC 3339): NULL
 * (the wall clock) when unset. */
static int now_from_env(const char **now)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	const char *s = getenv("SMPATCH_NOW");
	size_t i;

	*now = NULL;
	if (!s || !*s)
		return CLI_OK;
	for (i = 0; shape[i] && s[i]; i++)
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
			break;
	if (shape[i] || (s[i] != 'Z' && s[i] != '+' && s[i] != '-' && s[i] != '.')) {
		fprintf(stderr, "smpatch: error: SMPATCH_NOW: \"%s\" is not an RFC 3339 time "
		        "(2024-01-01T00:00:00Z)\n", s);
		return CLI_USAGE;
	}
	*now = s;
	return CLI_OK;
}

int ssa_cli_run(const ssa_cli_args *a)
{
	smp_apply_options ao = SMP_APPLY_OPTIONS_INIT;
	smp_ssa_options so = SMP_SSA_OPTIONS_INIT;
	smp_selector *lsel = NULL, *fsel = NULL;
	smp_schema *schema = NULL;
	cli_inputs configs, lives;
	cli_index index, cindex;
	ssa_entry *es = NULL;
	/* per configuration identity (its first configuration): the object
	 * as the last one of them left it */
	const smp_value **current = NULL;
	size_t n = 0;
	smp_error err;
	bool differs = false;
	int code = CLI_OK, rc;

	cli_inputs_init(&configs);
	cli_inputs_init(&lives);
	cli_index_init(&index);
	cli_index_init(&cindex);
	if ((code = now_from_env(&so.now)) != CLI_OK)
		goto out;
	if (a->selector && smp_selector_parse(&lsel, a->selector, &err)) {
		code = cli_selector_error(a->mode == SSA_CLI_APPLY ? "apply" : "replace", "-l",
		                          a->selector, &err);
		goto out;
	}
	if (a->field_sel && smp_field_selector_parse(&fsel, a->field_sel, &err)) {
		code = cli_selector_error("apply", "--field-selector", a->field_sel, &err);
		goto out;
	}
	if (cli_load_schemas(&schema, a->openapi, a->schemas, a->nschemas, &err)) {
		code = cli_fail(&err);
		goto out;
	}
	configs.check_meta = true;
	for (size_t i = 0; i < a->nfiles; i++)
		if ((rc = cli_inputs_add_path(&configs, a->files[i], a->recursive, true, &err))) {
			code = cli_fail(&err);
			goto out;
		}
	if (a->live_path && (rc = cli_inputs_add_path(&lives, a->live_path, false, true, &err))) {
		code = cli_fail(&err);
		goto out;
	}
	if (configs.n == 0) {
		fprintf(stderr, "smpatch: error: no objects passed to %s\n",
		        a->mode == SSA_CLI_APPLY ? "apply" : "replace");
		code = CLI_INVALID;
		goto out;
	}
	ao.schema = schema;
	ao.default_namespace = a->ns;
	ao.enforce_namespace = a->ns != NULL;
	so.manager = a->manager;
	so.force = a->force;
	so.schema = schema;
	if (cli_index_build(&index, &lives, 0, &ao) || cli_index_build(&cindex, &configs, 0, &ao) ||
	    !(es = calloc(configs.n, sizeof(*es))) ||
	    !(current = calloc(configs.n, sizeof(*current)))) {
		code = oom();
		goto out;
	}
	for (size_t i = 0; i < configs.n; i++) {
		const cli_obj *c = &configs.items[i];
		const smp_value *labels = smp_map_get(smp_map_get(c->v, "metadata"), "labels");
		ssa_entry *e = &es[n];
		ptrdiff_t li, fi;
		int ecode;

		if (c->meta_err) {
			/* kubectl fails to decode it; the others still go */
			ecode = cli_fail_meta(c);
			if (code == CLI_OK)
				code = ecode;
			continue;
		}
		if (lsel && !smp_selector_matches(lsel, labels))
			continue;
		e->cfg = c;
		if ((rc = request_body(&e->sent, c->v, &ao, &err))) {
			ecode = refuse(e, &err, c->v, NULL);
			n++;
		} else if (fsel && !smp_field_selector_matches(fsel, smp_doc_root(e->sent, 0))) {
			smp_doc_free(e->sent);
			memset(e, 0, sizeof(*e));
			continue;
		} else {
			n++;
			li = cli_index_find(&index, &lives, c->v, &ao);
			fi = cli_index_find(&cindex, &configs, c->v, &ao);
			e->live = fi >= 0 && current[fi] ? current[fi]
			          : li >= 0 ? lives.items[li].v : NULL;
			/* Later configurations of the same object see this result,
			 * as kubectl sends them one after the other. */
			if ((ecode = run_one(e, a, &ao, &so)) == CLI_OK && fi >= 0)
				current[fi] = smp_ssa_result_object(e->res);
		}
		if (ecode != CLI_OK) {
			if (ecode == CLI_INTERNAL) {
				code = ecode;
				goto out;
			}
			if (code == CLI_OK)
				code = ecode;
			continue;
		}
	}
	rc = print_all(es, n, a, &differs);
	if (rc != CLI_OK)
		code = rc;
	else if (code == CLI_OK && a->fmt == SSA_OUT_DIFF && differs)
		code = CLI_DIFF;
out:
	for (size_t i = 0; es && i < configs.n; i++) {
		smp_doc_free(es[i].sent);
		smp_ssa_result_free(es[i].res);
		smp_doc_free(es[i].status);
	}
	free(es);
	free(current);
	smp_selector_free(lsel);
	smp_selector_free(fsel);
	smp_schema_free(schema);
	cli_index_release(&index);
	cli_index_release(&cindex);
	cli_inputs_release(&configs);
	cli_inputs_release(&lives);
	return code;
}

/* ------------------------------------------------------------ the command */

/* Whether the option at argv[i] is one of server-side apply's own (long
 * names only, '_' read as '-'); *skip is set when its value is the next
 * argument. Silent: the real parse reports mistakes. */
static bool ssa_flag(const char *arg)
{
	static const char *const names[] = {"server-side", "force-conflicts", "field-manager"};
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t n = eq ? (size_t)(eq - name) : strlen(name);

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		const cli_option *o = cli_args_find(ssa_apply_options, name, n, 0);

		if (o && strcmp(o->name, names[k]) == 0)
			return true;
	}
	return false;
}

bool cli_apply_is_server_side(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (strcmp(arg, "--") == 0)
			return false;
		if (arg[0] != '-' || arg[1] == '\0')
			continue;
		if (arg[1] == '-') {
			const char *name = arg + 2, *eq = strchr(name, '=');
			size_t n = eq ? (size_t)(eq - name) : strlen(name);
			const cli_option *o = cli_args_find(ssa_apply_options, name, n, 0);

			if (ssa_flag(arg))
				return true;
			if (o && o->kind == CLI_ARG_VALUE && !eq)
				i++; /* its value */
			continue;
		}
		/* a group of short options: the first that takes a value ends it */
		for (const char *s = arg + 1; *s; s++) {
			const cli_option *o = cli_args_find(ssa_apply_options, NULL, 0, *s);

			if (o && o->kind == CLI_ARG_VALUE) {
				if (!s[1])
					i++;
				break;
			}
		}
	}
	return false;
}

static int usage(const char *fmt, const char *arg)
{
	return cli_usage("apply", fmt, arg);
}

static int output_format(ssa_cli_format *fmt, const char *val)
{
	static const char *const names[] = {"patch", "yaml", "json", "diff", "name"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(val, names[i]) == 0) {
			*fmt = (ssa_cli_format)(SSA_OUT_PATCH + i);
			return CLI_OK;
		}
	return usage("unknown output format '%s' (patch, yaml, json, diff, name)", val);
}

/* --dry-run as kubectl reads it with --server-side. */
static int dry_run(ssa_cli_args *a, const char *val, bool server_side)
{
	bool b;

	if (strcmp(val, "unchanged") == 0 || (cli_args_parse_bool(val, &b) && b))
		val = "client"; /* kubectl's deprecated spellings of client */
	else if (cli_args_parse_bool(val, &b))
		val = "none";
	if (strcmp(val, "server") == 0) {
		a->server_dry_run = true;
	} else if (strcmp(val, "client") == 0) {
		if (server_side)
			return usage("%s", "--dry-run=client doesn't work with --server-side (did you "
			             "mean --dry-run=server instead?)");
	} else if (strcmp(val, "none") != 0) {
		return cli_usage("apply", "Invalid dry-run value (%s). Must be \"none\", "
		                 "\"server\", or \"client\".", val);
	}
	return CLI_OK;
}

/* `smpatch apply` with --field-manager or --server-side=false and no
 * server-side apply: the client-side command, without those (its
 * managedFields are not computed, so the manager changes nothing shown). */
static int client_side(int argc, char **argv)
{
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	int n = 0, code;
	bool rest = false;

	if (!args)
		return oom();
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];

		if (i > 0 && !rest && arg[0] == '-' && arg[1] == '-' && arg[2] && ssa_flag(arg)) {
			if (!strchr(arg, '=') && cli_args_find(ssa_apply_options, arg + 2,
			                                        strlen(arg + 2), 0)->kind == CLI_ARG_VALUE)
				i++;
			continue;
		}
		if (strcmp(arg, "--") == 0)
			rest = true;
		args[n++] = argv[i];
	}
	code = cmd_apply(n, args);
	free(args);
	return code;
}

int cmd_apply_any(int argc, char **argv)
{
	return cli_apply_is_server_side(argc, argv) ? cmd_apply_ssa(argc, argv)
	                                            : cmd_apply(argc, argv);
}

int cmd_apply_ssa(int argc, char **argv)
{
	ssa_cli_args a;
	cli_args p;
	bool server_side = false, help = false, manager_set = false, dry_client = false;
	const char *dry = NULL;
	int k, code = CLI_OK;

	memset(&a, 0, sizeof(a));
	a.mode = SSA_CLI_APPLY;
	a.fmt = SSA_OUT_PATCH;
	a.manager = "kubectl";
	a.files = calloc((size_t)argc + 1, sizeof(*a.files));
	a.schemas = calloc((size_t)argc + 1, sizeof(*a.schemas));
	if (!a.files || !a.schemas) {
		code = oom();
		goto out;
	}
	cli_args_init(&p, argc, argv, ssa_apply_options);
	while (code == CLI_OK && !help && (k = cli_args_next(&p)) != CLI_ARGS_END) {
		switch (k) {
		case CLI_ARGS_POSITIONAL:
			code = usage("unexpected argument '%s'", p.value);
			break;
		case CLI_ARGS_HELP: help = true; break;
		case CLI_ARGS_ERROR: code = CLI_USAGE; break;
		case OPT_FILENAME: a.files[a.nfiles++] = p.value; break;
		case OPT_RECURSIVE: a.recursive = p.on; break;
		case OPT_LIVE: a.live_path = p.value; break;
		case OPT_OUTPUT: code = output_format(&a.fmt, p.value); break;
		case OPT_OVERWRITE: break; /* kubectl ignores it with --server-side */
		case OPT_MANAGED: a.managed = p.on; break;
		case OPT_PRUNE:
		case OPT_ALL:
		case OPT_ALLOW:
			code = usage("%s is not supported with --server-side", p.spelled);
			break;
		case OPT_SELECTOR: a.selector = p.value; break;
		case OPT_FIELD_SELECTOR: a.field_sel = p.value; break;
		case OPT_NAMESPACE: a.ns = p.value; break;
		case OPT_OPENAPI: a.openapi = p.value; break;
		case OPT_SCHEMA: a.schemas[a.nschemas++] = p.value; break;
		case OPT_DRY_RUN: dry = p.value; break;
		case OPT_SERVER_SIDE: server_side = p.on; break;
		case OPT_FIELD_MANAGER: a.manager = p.value; manager_set = true; break;
		case OPT_FORCE_CONFLICTS: a.force = p.on; break;
		default: code = CLI_USAGE; break;
		}
	}
	if (code != CLI_OK)
		goto out;
	if (help) {
		for (size_t h = 0; help_text[h]; h++)
			fputs(help_text[h], stdout);
		goto out;
	}
	if (!server_side) {
		/* kubectl's checks (apply.go Validate), then client-side apply */
		if (a.force) {
			code = usage("%s", "--force-conflicts only works with --server-side");
			goto out;
		}
		(void)manager_set;
		code = client_side(argc, argv);
		goto out;
	}
	if (dry && (code = dry_run(&a, dry, true)) != CLI_OK)
		goto out;
	(void)dry_client;
	if (!a.nfiles) {
		code = usage("%s", "must specify -f (a file, a directory or -)");
		goto out;
	}
	if (!*a.manager) {
		code = usage("%s", "--field-manager must not be empty with --server-side");
		goto out;
	}
	if (a.live_path && strcmp(a.live_path, "-") == 0)
		for (size_t i = 0; i < a.nfiles; i++)
			if (strcmp(a.files[i], "-") == 0) {
				code = usage("%s", "-f - and --live - cannot both read standard input");
				goto out;
			}
	if (a.openapi && a.nschemas) {
		code = usage("%s", "--openapi and --schema cannot be used together");
		goto out;
	}
	code = ssa_cli_run(&a);
out:
	free(a.files);
	free(a.schemas);
	return code;
}
