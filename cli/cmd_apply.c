/*
 * cmd_apply.c - `smpatch apply`: what `kubectl apply` would send for each
 * configuration given the live objects, and what the objects become.
 * Everything is computed first; stdout is written once at the end.
 */
#include "cli.h"
#include "apply_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const help_text[] = {
	"Usage: smpatch apply -f PATH [-f PATH...] [-R] [--live FILE|-]\n"
	"                     [-o patch|yaml|json|diff|name] [--overwrite=false]\n"
	"                     [--prune -l SELECTOR|--all] [--prune-allowlist G/V/K ...]\n"
	"                     [-l SELECTOR] [--field-selector SEL]\n"
	"                     [-n NAMESPACE] [--openapi FILE | --schema CRD.yaml ...]\n"
	"                     [--cluster-scoped KIND[.GROUP] ...]\n"
	"\n"
	"Computes what client-side `kubectl apply` would do, offline: for every\n"
	"object in the configuration files, the request kubectl would send and the\n"
	"object that results, given the live objects (as `kubectl get -o yaml|json`\n"
	"prints them).\n"
	"\n"
	"Per object: no live object -> created (the object with the\n"
	"kubectl.kubernetes.io/last-applied-configuration annotation set; null\n"
	"fields are dropped from the object sent, the annotation keeps them);\n"
	"otherwise a three-way patch from the live object's annotation, the\n"
	"configuration and the live object: a strategic merge patch for built-in\n"
	"kinds, a JSON merge patch for custom resources and unknown kinds, as\n"
	"kubectl chooses -> configured, or unchanged when the patch is empty.\n"
	"A live object without the annotation gets kubectl's warning, then a patch\n"
	"(nothing is deleted from it).\n"
	"\n"
	,
	"Options:\n"
	"  -f, --filename PATH   configuration: a file, a directory (its .yaml, .yml\n"
	"                        and .json files, in name order) or - for standard\n"
	"                        input; repeatable. Multi-document streams and\n"
	"                        lists (`kind: List`, any object with items) are\n"
	"                        expanded; nothing to apply is an error.\n"
	"  -R, --recursive       descend into subdirectories of directories given\n"
	"                        with -f\n"
	"      --live FILE|-     the live objects: a stream of objects or a List.\n"
	"                        Objects match by API group (not version), kind,\n"
	"                        namespace and name. Without --live nothing exists yet.\n"
	"  -o, --output FORMAT   patch (default): one JSON line per object\n"
	"                          {\"apiVersion\",\"kind\",\"namespace\",\"name\",\"action\",\n"
	"                           \"patchType\",\"patch\"}\n"
	"                        with action create|configure|unchanged|prune;\n"
	"                        patch is the request body: the object for create,\n"
	"                        the patch for configure, {} for unchanged, null for\n"
	"                        prune; patchType the content type:\n"
	"                        application/strategic-merge-patch+json or\n"
	"                        application/merge-patch+json (application/json for\n"
	"                        create, null for prune).\n"
	"                        yaml, json: the resulting objects, as the API server\n"
	"                        stores them before its defaulting (what kubectl apply\n"
	"                        -o yaml|json or --dry-run=server shows; --dry-run=client\n"
	"                        shows this only for creates, and the live object\n"
	"                        unchanged otherwise); pruned objects as they are live.\n"
	"                        diff: a unified diff of each live object against its\n"
	"                        result (pruned objects against nothing); exit 1 when\n"
	"                        anything differs, like kubectl diff. As there, the\n"
	"                        values of a v1 Secret's data show as ***, or\n"
	"                        *** (before) / *** (after) where they change.\n"
	"                        name: kind.group/name per object.\n"
	"      --show-managed-fields  keep metadata.managedFields in the objects\n"
	"                        printed by -o yaml, json and diff (like kubectl, they\n"
	"                        are left out by default)\n"
	,
	"      --overwrite=false like kubectl: refuse (exit 4) to overwrite fields\n"
	"                        changed in the live object since the last apply. As in\n"
	"                        kubectl, the last-applied annotation itself counts as\n"
	"                        such a field, so any change to a configuration whose\n"
	"                        live object has the annotation conflicts.\n"
	"      --prune           with -l or --all: live objects that carry the\n"
	"                        last-applied annotation, match the selector and are\n"
	"                        absent from the configurations are planned for\n"
	"                        deletion (action prune). As kubectl's default, only\n"
	"                        these kinds are pruned: ConfigMap, Endpoints,\n"
	"                        Namespace, PersistentVolumeClaim, PersistentVolume,\n"
	"                        Pod, ReplicationController, Secret, Service, batch Job\n"
	"                        and CronJob, networking.k8s.io Ingress, apps\n"
	"                        DaemonSet, Deployment, ReplicaSet and StatefulSet;\n"
	"                        namespaced ones only in namespaces the configurations\n"
	"                        use. Nothing is deleted anywhere: this is a plan.\n"
	"      --all             select all objects: --prune without -l (not with -l)\n"
	"      --prune-allowlist GROUP/VERSION/KIND  prune these kinds instead of the\n"
	"                        default set (core for the core group, e.g.\n"
	"                        core/v1/ConfigMap, apps/v1/Deployment); repeatable;\n"
	"                        the kind must be known (built-in or --schema)\n"
	,
	"  -l, --selector SEL    apply only configurations whose labels match SEL\n"
	"                        (=, ==, !=, in, notin, key, !key, comma = AND)\n"
	"      --field-selector SEL  apply only objects whose fields match SEL\n"
	"                        (path=value, path==value, path!=value, comma = AND;\n"
	"                        any dotted path, e.g. metadata.name, read on the\n"
	"                        configuration with its namespace filled in)\n"
	"  -n, --namespace NS    namespace for namespaced objects that name none\n"
	"                        (default \"default\"); an object naming another one is\n"
	"                        an error, as in kubectl\n"
	"      --openapi FILE    an OpenAPI v2/v3 document: patch metadata for\n"
	"                        built-in kinds (as kubectl uses the server's)\n"
	"      --schema FILE     a CustomResourceDefinition (scope of custom kinds);\n"
	"                        repeatable\n"
	"      --cluster-scoped KIND[.GROUP]  the kind (in GROUP, or in any group) is\n"
	"                        cluster-scoped, for kinds no schema describes;\n"
	"                        repeatable. Without it such a kind is cluster-scoped\n"
	"                        when a live object of it has no namespace, else it\n"
	"                        is assumed namespaced (with a warning)\n"
	"  -h, --help            show this help\n"
	"\n"
	,
	"Status lines go to standard error as kubectl prints them\n"
	"(deployment.apps/nginx created|configured|unchanged|pruned), warnings too.\n"
	"An object that fails (invalid labels, annotations over 262144 bytes,\n"
	"conflict, changed apiVersion/kind/name) is reported with its file and\n"
	"name and left out of the output; the others are still shown.\n"
	"\n"
	"Exit codes: 0 success; 1 differences found (-o diff); 2 usage or bad\n"
	"selector syntax (with its position); 3 invalid input (unreadable or\n"
	"invalid files, invalid labels, annotations too large); 4 conflict\n"
	"(--overwrite=false) or changed apiVersion/kind/name; 5 internal error.\n",
	NULL
};

enum outfmt { OUT_PATCH, OUT_YAML, OUT_JSON, OUT_DIFF, OUT_NAME };

typedef struct plan {
	const cli_obj *cfg;        /* NULL for prune */
	const smp_value *live;
	const char *live_file;
	smp_apply_result *res;     /* NULL for prune */
} plan;

static bool default_prunable(const smp_value *obj);

/* One --prune-allowlist entry: group ("" for core) and kind. */
typedef struct allow {
	char *group, *kind;
} allow;

/* Parses "group/version/kind" ("core" = the core group) as kubectl's
 * prune.ParseResources does; the kind must be known (built-in tables or
 * the --schema/--openapi document), as kubectl asks the server. */
static int parse_allow(allow *a, const char *text, const smp_schema *schema)
{
	const char *s1 = strchr(text, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
	char av[512];
	size_t gl;
	bool known = false;

	if (!s1 || !s2 || strchr(s2 + 1, '/'))
		return cli_usage("apply", "invalid GroupVersionKind format: %s, please follow "
		                 "<group/version/kind>", text);
	gl = (size_t)(s1 - text);
	a->group = strndup(text, gl);
	a->kind = strdup(s2 + 1);
	if (!a->group || !a->kind) {
		fprintf(stderr, "smpatch apply: out of memory\n");
		return CLI_INTERNAL;
	}
	if (strcmp(a->group, "core") == 0)
		a->group[0] = '\0';
	if (a->group[0])
		snprintf(av, sizeof(av), "%s/%.*s", a->group, (int)(s2 - s1 - 1), s1 + 1);
	else
		snprintf(av, sizeof(av), "%.*s", (int)(s2 - s1 - 1), s1 + 1);
	smp_schema_kind_namespaced(smp_schema_builtin(), av, a->kind, &known);
	if (!known && schema)
		smp_schema_kind_namespaced(schema, av, a->kind, &known);
	if (!known)
		return cli_usage("apply", "no matches for kind \"%s\" in version \"%s\"", a->kind,
		                 av);
	return CLI_OK;
}

/* The --prune-allowlist entries, else kubectl's default prune set. */
static bool prunable(const smp_value *obj, const allow *allows, size_t nallows)
{
	if (nallows) {
		const char *av = cli_str_at(obj, "apiVersion");
		const char *kind = cli_str_at(obj, "kind");
		const char *slash = av ? strchr(av, '/') : NULL;
		size_t gl = slash ? (size_t)(slash - av) : 0;

		for (size_t i = 0; kind && i < nallows; i++)
			if (strcmp(allows[i].kind, kind) == 0 && strlen(allows[i].group) == gl &&
			    strncmp(allows[i].group, av ? av : "", gl) == 0)
				return true;
		return false;
	}
	return default_prunable(obj);
}

/* kubectl's default prune set (group, kind). */
static bool default_prunable(const smp_value *obj)
{
	static const char *const kinds[][2] = {
		{"", "ConfigMap"}, {"", "Endpoints"}, {"", "Namespace"},
		{"", "PersistentVolumeClaim"}, {"", "PersistentVolume"}, {"", "Pod"},
		{"", "ReplicationController"}, {"", "Secret"}, {"", "Service"},
		{"batch", "Job"}, {"batch", "CronJob"}, {"networking.k8s.io", "Ingress"},
		{"apps", "DaemonSet"}, {"apps", "Deployment"}, {"apps", "ReplicaSet"},
		{"apps", "StatefulSet"},
	};
	const char *av = cli_str_at(obj, "apiVersion");
	const char *kind = cli_str_at(obj, "kind");
	const char *slash = av ? strchr(av, '/') : NULL;
	size_t gl = slash ? (size_t)(slash - av) : 0;

	if (!kind)
		return false;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i][1], kind) == 0 && strlen(kinds[i][0]) == gl &&
		    strncmp(kinds[i][0], av ? av : "", gl) == 0)
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *action_name(smp_apply_action a)
{
	switch (a) {
	case SMP_ACTION_CREATE: return "create";
	case SMP_ACTION_CONFIGURE: return "configure";
	case SMP_ACTION_UNCHANGED: return "unchanged";
	default: return "prune";
	}
}

static const char *status_word(smp_apply_action a)
{
	switch (a) {
	case SMP_ACTION_CREATE: return "created";
	case SMP_ACTION_CONFIGURE: return "configured";
	case SMP_ACTION_UNCHANGED: return "unchanged";
	default: return "pruned";
	}
}

static int render_patch_line(cli_buf *out, const plan *p, smp_error *err)
{
	const smp_value *obj = p->res ? smp_apply_result_object(p->res) : p->live;
	const smp_value *md = smp_map_get(obj, "metadata");
	smp_apply_action a = p->res ? smp_apply_result_action(p->res) : SMP_ACTION_PRUNE;
	const char *ns = cli_str_at(md, "namespace");
	int rc;

	cli_buf_puts(out, "{\"apiVersion\":");
	cli_json_string(out, cli_str_at(obj, "apiVersion"));
	cli_buf_puts(out, ",\"kind\":");
	cli_json_string(out, cli_str_at(obj, "kind"));
	cli_buf_puts(out, ",\"namespace\":");
	cli_json_string(out, ns ? ns : "");
	cli_buf_puts(out, ",\"name\":");
	cli_json_string(out, cli_str_at(md, "name"));
	cli_buf_puts(out, ",\"action\":");
	cli_json_string(out, action_name(a));
	cli_buf_puts(out, ",\"patchType\":");
	if (a == SMP_ACTION_PRUNE)
		cli_buf_puts(out, "null");
	else if (a == SMP_ACTION_CREATE)
		cli_json_string(out, "application/json");
	else if (smp_apply_result_patch_type(p->res) == SMP_PATCH_MERGE)
		cli_json_string(out, "application/merge-patch+json");
	else
		cli_json_string(out, "application/strategic-merge-patch+json");
	cli_buf_puts(out, ",\"patch\":");
	if (a == SMP_ACTION_PRUNE) {
		cli_buf_puts(out, "null");
	} else if ((rc = cli_buf_value(out, smp_apply_result_patch(p->res), SMP_OUT_JSON,
	                                true, err))) {
		return rc;
	}
	cli_buf_puts(out, "}\n");
	return 0;
}

/* "[group.]version.Kind.namespace.name" as kubectl diff names its files
 * (the namespace part stays, empty, for cluster-scoped objects). */
static void diff_name(cli_buf *b, const smp_value *obj)
{
	const char *av = cli_str_at(obj, "apiVersion");
	const char *ns = cli_str_at(smp_map_get(obj, "metadata"), "namespace");
	const char *kind = cli_str_at(obj, "kind");
	const char *name = cli_str_at(smp_map_get(obj, "metadata"), "name");

	for (const char *c = av ? av : ""; *c; c++)
		cli_buf_putc(b, *c == '/' ? '.' : *c);
	cli_buf_putc(b, '.');
	cli_buf_puts(b, kind ? kind : "");
	cli_buf_putc(b, '.');
	cli_buf_puts(b, ns ? ns : "");
	cli_buf_putc(b, '.');
	cli_buf_puts(b, name ? name : "");
}

/* An object as kubectl prints it (see smp_display_objects). */
static int render_object(cli_buf *out, const smp_value *obj, smp_output fmt, unsigned flags,
                         smp_error *err)
{
	smp_doc *d = NULL;
	int rc = smp_display_objects(NULL, &d, NULL, obj, flags, err);

	if (!rc)
		rc = cli_buf_value(out, smp_doc_root(d, 0), fmt, true, err);
	smp_doc_free(d);
	return rc;
}

static int render_diff(cli_buf *out, const plan *p, unsigned flags, bool *differs,
                       smp_error *err)
{
	const smp_value *after = p->res ? smp_apply_result_object(p->res) : NULL;
	const smp_value *named = after ? after : p->live;
	smp_doc *ld = NULL, *rd = NULL;
	cli_buf left, right, name;
	int rc = 0;

	cli_buf_init(&left);
	cli_buf_init(&right);
	cli_buf_init(&name);
	if ((rc = smp_display_objects(&ld, &rd, p->live, after,
	                              flags | SMP_DISPLAY_MASK_SECRETS, err)))
		goto out;
	if (ld && (rc = cli_buf_value(&left, smp_doc_root(ld, 0), SMP_OUT_YAML, true, err)))
		goto out;
	if (rd && (rc = cli_buf_value(&right, smp_doc_root(rd, 0), SMP_OUT_YAML, true, err)))
		goto out;
	diff_name(&name, named);
	if (left.oom || right.oom || name.oom) {
		rc = SMP_ENOMEM;
		goto out;
	}
	rc = cli_unified_diff(out, "live/", "merged/", name.ptr ? name.ptr : "",
	                      left.ptr ? left.ptr : "", left.len,
	                      right.ptr ? right.ptr : "", right.len, differs);
out:
	smp_doc_free(ld);
	smp_doc_free(rd);
	cli_buf_release(&left);
	cli_buf_release(&right);
	cli_buf_release(&name);
	return rc;
}

static int usage(const char *fmt, const char *arg)
{
	return cli_usage("apply", fmt, arg);
}

/* Reads --live on a thread of its own (cli_inputs are independent). */
typedef struct live_job {
	cli_inputs *lives;
	const char *path;
	int rc;
	smp_error err;
} live_job;

/* Once per kind whose scope nothing tells (no schema, no live object of
 * it): a warning that it is taken as namespaced. */
static int warn_scope(const smp_value *obj, char ***seen, size_t *nseen, cli_buf *status)
{
	const char *av = cli_str_at(obj, "apiVersion"), *kind = cli_str_at(obj, "kind");
	const char *slash = av ? strchr(av, '/') : NULL;
	char name[512], **grown;

	if (!kind)
		return 0;
	if (slash)
		snprintf(name, sizeof(name), "%s.%.*s", kind, (int)(slash - av), av);
	else
		snprintf(name, sizeof(name), "%s", kind);
	for (size_t i = 0; i < *nseen; i++)
		if (strcmp((*seen)[i], name) == 0)
			return 0;
	grown = realloc(*seen, (*nseen + 1) * sizeof(*grown));
	if (!grown)
		return SMP_ENOMEM;
	*seen = grown;
	if (!(grown[*nseen] = strdup(name)))
		return SMP_ENOMEM;
	(*nseen)++;
	cli_buf_puts(status, "Warning: the scope of kind ");
	cli_buf_puts(status, name);
	cli_buf_puts(status, " is unknown (no --schema and no live object of it): it is "
	             "taken as namespaced; if it is cluster-scoped, say --cluster-scoped ");
	cli_buf_puts(status, name);
	cli_buf_putc(status, '\n');
	return 0;
}

static void *read_live(void *arg)
{
	live_job *j = arg;

	memset(&j->err, 0, sizeof(j->err));
	j->rc = cli_inputs_add_path(j->lives, j->path, false, true, &j->err);
	return NULL;
}

int cmd_apply(int argc, char **argv)
{
	cli_inputs configs, lives;
	cli_index index;
	smp_apply_options ao = SMP_APPLY_OPTIONS_INIT;
	smp_selector *lsel = NULL, *fsel = NULL;
	smp_schema *schema = NULL;
	const char **files = NULL;
	size_t nfiles = 0;
	const char *live_path = NULL, *selector = NULL, *field_sel = NULL;
	const char *openapi = NULL, *ns = NULL;
	const char **schemas = NULL;
	size_t nschemas = 0;
	smp_scopes *scopes = NULL;
	char **unknown = NULL; /* kinds already warned about */
	size_t nunknown = 0;
	bool recursive = false, prune = false, overwrite = true, managed = false, all = false;
	allow *allows = NULL;
	const char **allow_texts = NULL;
	size_t nallows = 0, nallow_texts = 0;
	enum outfmt fmt = OUT_PATCH;
	plan *plans = NULL;
	size_t nplans = 0, nlive = 0;
	bool *used = NULL;
	cli_buf out, status;
	smp_error err;
	int code = CLI_OK, rc;
	bool differs = false;
	unsigned dflags;

	cli_inputs_init(&configs);
	cli_inputs_init(&lives);
	cli_index_init(&index);
	cli_buf_init(&out);
	cli_buf_init(&status);
	files = calloc((size_t)argc + 1, sizeof(*files));
	schemas = calloc((size_t)argc + 1, sizeof(*schemas));
	allow_texts = calloc((size_t)argc + 1, sizeof(*allow_texts));
	allows = calloc((size_t)argc + 1, sizeof(*allows));
	if (!files || !schemas || !allow_texts || !allows || smp_scopes_new(&scopes)) {
		code = CLI_INTERNAL;
		fprintf(stderr, "smpatch apply: out of memory\n");
		goto out;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		char optbuf[64];
		const char *opt = cli_opt(argv, i, optbuf, sizeof(optbuf), &val);

		if (!opt) {
			code = usage("unexpected argument '%s'", a);
			goto out;
		}
		if (strcmp(opt, "-h") == 0 || strcmp(opt, "--help") == 0) {
			for (size_t h = 0; help_text[h]; h++)
				fputs(help_text[h], stdout);
			goto out;
		}
		if (strcmp(opt, "-R") == 0 || strcmp(opt, "--recursive") == 0) {
			recursive = true;
			continue;
		}
		if (strcmp(opt, "--show-managed-fields") == 0) {
			if (val && !cli_parse_bool(val, &managed)) {
				code = usage("invalid value for --show-managed-fields: '%s'", val);
				goto out;
			}
			if (!val)
				managed = true;
			continue;
		}
		if (strcmp(opt, "--all") == 0) {
			if (val && !cli_parse_bool(val, &all)) {
				code = usage("invalid value for --all: '%s'", val);
				goto out;
			}
			if (!val)
				all = true;
			continue;
		}
		if (strcmp(opt, "--prune") == 0) {
			prune = true;
			continue;
		}
		if (strcmp(opt, "--overwrite") == 0) {
			if (val && !cli_parse_bool(val, &overwrite)) {
				code = usage("invalid value for --overwrite: '%s'", val);
				goto out;
			}
			if (!val)
				overwrite = true;
			continue;
		}
		if (!val) {
			if (i + 1 >= argc) {
				code = usage("option '%s' needs a value", opt);
				goto out;
			}
			val = argv[++i];
		}
		if (strcmp(opt, "-f") == 0 || strcmp(opt, "--filename") == 0) {
			files[nfiles++] = val;
		} else if (strcmp(opt, "--live") == 0) {
			live_path = val;
		} else if (strcmp(opt, "-o") == 0 || strcmp(opt, "--output") == 0) {
			if (strcmp(val, "patch") == 0)
				fmt = OUT_PATCH;
			else if (strcmp(val, "yaml") == 0)
				fmt = OUT_YAML;
			else if (strcmp(val, "json") == 0)
				fmt = OUT_JSON;
			else if (strcmp(val, "diff") == 0)
				fmt = OUT_DIFF;
			else if (strcmp(val, "name") == 0)
				fmt = OUT_NAME;
			else {
				code = usage("unknown output format '%s' (patch, yaml, json, diff, "
				             "name)", val);
				goto out;
			}
		} else if (strcmp(opt, "-l") == 0 || strcmp(opt, "--selector") == 0) {
			selector = val;
		} else if (strcmp(opt, "--field-selector") == 0) {
			field_sel = val;
		} else if (strcmp(opt, "-n") == 0 || strcmp(opt, "--namespace") == 0) {
			ns = val;
		} else if (strcmp(opt, "--openapi") == 0) {
			openapi = val;
		} else if (strcmp(opt, "--schema") == 0) {
			schemas[nschemas++] = val;
		} else if (strcmp(opt, "--cluster-scoped") == 0) {
			if (smp_scopes_declare(scopes, val, false, &err)) {
				code = err.code == SMP_ENOMEM ? cli_fail(&err)
				                              : usage("--cluster-scoped: %s", err.message);
				goto out;
			}
		} else if (strcmp(opt, "--prune-allowlist") == 0 ||
		           strcmp(opt, "--prune-whitelist") == 0) {
			allow_texts[nallow_texts++] = val;
		} else {
			code = usage("unknown option '%s'", opt);
			goto out;
		}
	}
	if (!nfiles) {
		code = usage("%s", "must specify -f (a file, a directory or -)");
		goto out;
	}
	if (live_path && strcmp(live_path, "-") == 0)
		for (size_t i = 0; i < nfiles; i++)
			if (strcmp(files[i], "-") == 0) {
				code = usage("%s", "-f - and --live - cannot both read standard input");
				goto out;
			}
	if (openapi && nschemas) {
		code = usage("%s", "--openapi and --schema cannot be used together");
		goto out;
	}
	if (all && selector) {
		code = usage("%s", "cannot set --all and --selector at the same time");
		goto out;
	}
	if (prune && !selector && !all) {
		code = usage("%s", "all resources selected for prune without explicitly passing "
		             "--all. To prune all resources, pass the --all flag. If you did not "
		             "mean to prune all resources, specify a label selector");
		goto out;
	}
	if (selector && (rc = smp_selector_parse(&lsel, selector, &err))) {
		code = cli_selector_error("apply", "-l", selector, &err);
		goto out;
	}
	if (field_sel && (rc = smp_field_selector_parse(&fsel, field_sel, &err))) {
		code = cli_selector_error("apply", "--field-selector", field_sel, &err);
		goto out;
	}
	if ((rc = cli_load_schemas(&schema, openapi, schemas, nschemas, &err))) {
		code = cli_fail(&err);
		goto out;
	}
	for (size_t i = 0; i < nallow_texts; i++) {
		code = parse_allow(&allows[nallows++], allow_texts[i], schema);
		if (code != CLI_OK)
			goto out;
	}

	/* Read everything first; the configurations as kubectl decodes them,
	 * the live objects meanwhile on another core. Errors in the
	 * configurations are reported first, as if read in order. */
	{
		live_job lj = {&lives, live_path, 0, {0}};
		pthread_t tid;
		bool threaded = live_path && pthread_create(&tid, NULL, read_live, &lj) == 0;

		configs.check_meta = true;
		rc = 0;
		for (size_t i = 0; i < nfiles && !rc; i++)
			rc = cli_inputs_add_path(&configs, files[i], recursive, true, &err);
		if (threaded)
			pthread_join(tid, NULL);
		else if (!rc && live_path)
			read_live(&lj);
		if (rc) {
			code = cli_fail(&err);
			goto out;
		}
		if (lj.rc) {
			code = cli_fail(&lj.err);
			goto out;
		}
	}
	/* As kubectl, also with --prune: nothing to apply is an error. */
	if (configs.n == 0) {
		memset(&err, 0, sizeof(err));
		err.code = SMP_EINVALOBJ;
		snprintf(err.message, sizeof(err.message), "no objects passed to apply");
		code = cli_fail(&err);
		goto out;
	}

	ao.schema = schema;
	ao.overwrite = overwrite;
	ao.default_namespace = ns;
	ao.enforce_namespace = ns != NULL;
	ao.scopes = scopes;
	for (size_t i = 0; i < lives.n; i++)
		if (smp_scopes_learn(scopes, lives.items[i].v, &err)) {
			code = cli_fail(&err);
			goto out;
		}
	nlive = lives.n;
	if ((rc = cli_index_build(&index, &lives, configs.n, &ao))) {
		code = CLI_INTERNAL;
		fprintf(stderr, "smpatch apply: out of memory\n");
		goto out;
	}
	plans = calloc(configs.n + lives.n + 1, sizeof(*plans));
	used = calloc(lives.n + configs.n + 1, sizeof(*used));
	if (!plans || !used) {
		code = CLI_INTERNAL;
		fprintf(stderr, "smpatch apply: out of memory\n");
		goto out;
	}

	for (size_t i = 0; i < configs.n; i++) {
		const cli_obj *c = &configs.items[i];
		const smp_value *labels = smp_map_get(smp_map_get(c->v, "metadata"), "labels");
		ptrdiff_t li;
		plan *p;
		int ecode;

		if (c->meta_err) {
			/* kubectl fails to decode it; the others still apply */
			ecode = cli_fail_meta(c);
			if (code == CLI_OK)
				code = ecode;
			continue;
		}
		if (lsel && !smp_selector_matches(lsel, labels))
			continue;
		if (smp_apply_kind_scope(c->v, &ao) < 0 &&
		    (rc = warn_scope(c->v, &unknown, &nunknown, &status))) {
			code = CLI_INTERNAL;
			fprintf(stderr, "smpatch apply: out of memory\n");
			goto out;
		}
		li = cli_index_find(&index, &lives, c->v, &ao);
		if (li >= 0)
			used[li] = true;
		p = &plans[nplans];
		p->cfg = c;
		p->live = li >= 0 ? lives.items[li].v : NULL;
		p->live_file = li >= 0 ? lives.items[li].file : NULL;
		rc = smp_apply_object(&p->res, c->v, p->live, &ao, &err);
		if (rc) {
			if (fsel && !cli_field_match(fsel, c->v, &ao))
				continue;
			if (rc == SMP_ECONFLICT && p->live)
				ecode = cli_report_conflict(&err, c, p->live, &ao);
			else
				ecode = cli_fail_at(&err, c);
			if (code == CLI_OK)
				code = ecode;
			continue;
		}
		if (fsel && !cli_field_match(fsel, c->v, &ao)) {
			smp_apply_result_free(p->res);
			p->res = NULL;
			continue;
		}
		/* Later configurations of the same object see this result, as
		 * kubectl applies them one after the other. */
		if (li >= 0) {
			lives.items[li].v = smp_apply_result_object(p->res);
		} else if (cli_inputs_push(&lives, smp_apply_result_object(p->res), c->file) ||
		           cli_index_add(&index, &lives, lives.n - 1, &ao)) {
			code = CLI_INTERNAL;
			fprintf(stderr, "smpatch apply: out of memory\n");
			nplans++;
			goto out;
		}
		nplans++;
	}

	if (prune) {
		size_t napplied = nplans, nns = 0;
		const char **nss = calloc(napplied + 1, sizeof(*nss));

		if (!nss) {
			code = CLI_INTERNAL;
			fprintf(stderr, "smpatch apply: out of memory\n");
			goto out;
		}
		/* The namespaces the applied configurations use, sorted for lookup. */
		for (size_t j = 0; j < napplied; j++)
			nss[nns++] = smp_apply_namespace(plans[j].cfg->v, &ao);
		qsort(nss, nns, sizeof(*nss), cmp_str);

		for (size_t i = 0; i < nlive; i++) {
			const smp_value *lv = lives.items[i].v;
			const smp_value *md = smp_map_get(lv, "metadata");
			const smp_value *ann = smp_map_get(md, "annotations");
			const char *lns = smp_apply_namespace(lv, &ao);
			bool visited_ns = !*lns;

			if (used[i] || !smp_map_get(ann, SMP_LAST_APPLIED_ANNOTATION) ||
			    !prunable(lv, allows, nallows) ||
			    (lsel && !smp_selector_matches(lsel, smp_map_get(md, "labels"))))
				continue;
			if (!visited_ns && nns &&
			    bsearch(&lns, nss, nns, sizeof(*nss), cmp_str))
				visited_ns = true;
			if (!visited_ns)
				continue;
			plans[nplans].cfg = NULL;
			plans[nplans].live = lv;
			plans[nplans].live_file = lives.items[i].file;
			plans[nplans].res = NULL;
			nplans++;
		}
		free(nss);
	}

	dflags = managed ? SMP_DISPLAY_MANAGED_FIELDS : 0;
	for (size_t i = 0; i < nplans; i++) {
		const plan *p = &plans[i];
		const smp_value *obj = p->res ? smp_apply_result_object(p->res) : p->live;
		smp_apply_action a = p->res ? smp_apply_result_action(p->res) : SMP_ACTION_PRUNE;
		const char *warn = p->res ? smp_apply_result_warning(p->res) : NULL;
		char ref[512];

		smp_apply_object_ref(ref, sizeof(ref), obj);
		if (warn) {
			cli_buf_puts(&status, warn);
			cli_buf_putc(&status, '\n');
		}
		cli_buf_puts(&status, ref);
		cli_buf_putc(&status, ' ');
		cli_buf_puts(&status, status_word(a));
		cli_buf_putc(&status, '\n');
		switch (fmt) {
		case OUT_PATCH:
			rc = render_patch_line(&out, p, &err);
			break;
		case OUT_YAML:
			if (i)
				cli_buf_puts(&out, "---\n");
			rc = render_object(&out, obj, SMP_OUT_YAML, dflags, &err);
			break;
		case OUT_JSON:
			rc = render_object(&out, obj, SMP_OUT_JSON_INDENT, dflags, &err);
			break;
		case OUT_DIFF:
			rc = render_diff(&out, p, dflags, &differs, &err);
			break;
		case OUT_NAME:
			cli_buf_puts(&out, ref);
			cli_buf_putc(&out, '\n');
			rc = 0;
			break;
		}
		if (rc) {
			/* kubectl stops at such an error too; name the object */
			if (rc != SMP_ENOMEM)
				cli_err_prefix(&err, ref);
			code = cli_fail_at(&err, p->cfg);
			goto out;
		}
	}
	if (out.oom || status.oom) {
		fprintf(stderr, "smpatch apply: out of memory\n");
		code = CLI_INTERNAL;
		goto out;
	}
	fwrite(status.ptr ? status.ptr : "", 1, status.len, stderr);
	if (!cli_write(out.ptr ? out.ptr : "", out.len)) {
		code = CLI_INTERNAL;
		goto out;
	}
	if (code == CLI_OK && fmt == OUT_DIFF && differs)
		code = CLI_DIFF;
out:
	for (size_t i = 0; i < nplans; i++)
		smp_apply_result_free(plans[i].res);
	free(plans);
	free(used);
	free(files);
	free(schemas);
	for (size_t i = 0; allows && i < nallows; i++) {
		free(allows[i].group);
		free(allows[i].kind);
	}
	free(allows);
	free(allow_texts);
	smp_selector_free(lsel);
	smp_selector_free(fsel);
	smp_schema_free(schema);
	smp_scopes_free(scopes);
	for (size_t i = 0; i < nunknown; i++)
		free(unknown[i]);
	free(unknown);
	cli_index_release(&index);
	cli_inputs_release(&configs);
	cli_inputs_release(&lives);
	cli_buf_release(&out);
	cli_buf_release(&status);
	return code;
}
