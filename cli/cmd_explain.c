/*
 * cmd_explain.c - `smpatch explain`: the shape and patch metadata the engine
 * uses for one field of a kind, from the built-in tables or a schema file.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const char help_text[] =
	"Usage: smpatch explain [--openapi FILE | --schema CRD.yaml] [-o text|json]\n"
	"                       APIVERSION KIND [FIELD.PATH]\n"
	"\n"
	"Prints what the patch engine uses for a field of a kind: its type, patch\n"
	"strategy and merge key, list type and map keys, map type and format. The\n"
	"field path is dotted (spec.template.spec.containers.ports); list elements\n"
	"are stepped through implicitly, a segment below a map names a key. Without\n"
	"a path the kind itself is described, with its scope. The text output ends\n"
	"with the fields of the object the field holds.\n"
	"\n"
	"Options:\n"
	"      --openapi=FILE  read kinds from an OpenAPI v2 or v3 document\n"
	"      --schema=FILE   read kinds from a CustomResourceDefinition manifest\n"
	"                      (default for both: the built-in Kubernetes tables)\n"
	"  -o, --output=FMT    text (default) or json: one object with path, type,\n"
	"                      patchStrategy, patchMergeKey, listType, listMapKeys,\n"
	"                      mapType, format and, for the kind itself, namespaced;\n"
	"                      absent values are left out\n"
	"  -h, --help          show this help\n"
	"\n"
	"Examples:\n"
	"  smpatch explain apps/v1 Deployment spec.template.spec.containers\n"
	"  smpatch explain --schema widgets-crd.yaml example.com/v1 Widget spec.parts\n"
	"\n"
	"Exit codes: 0 ok, 2 usage, 3 unknown kind or field or bad schema file,\n"
	"5 internal error.\n";

enum { OPT_OPENAPI = 1, OPT_SCHEMA, OPT_OUTPUT };

const cli_option cli_explain_options[] = {
	{"openapi", 0, CLI_ARG_VALUE, OPT_OPENAPI, "@file", NULL},
	{"schema", 0, CLI_ARG_VALUE, OPT_SCHEMA, "@file", NULL},
	{"output", 'o', CLI_ARG_VALUE, OPT_OUTPUT, "text json", NULL},
	{NULL, 0, 0, 0, NULL, NULL},
};

/* Strategy bits in the order the OpenAPI extension writes them. */
static void strategy_text(char *buf, size_t size, unsigned bits)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{SMP_STRATEGY_MERGE, "merge"},
		{SMP_STRATEGY_REPLACE, "replace"},
		{SMP_STRATEGY_RETAIN_KEYS, "retainKeys"},
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (bits & names[i].bit)
			n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s",
			                      n ? "," : "", names[i].name);
}

/* Writes s as a JSON string. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_member(FILE *f, bool *first, const char *key)
{
	fputs(*first ? "{\n    " : ",\n    ", f);
	*first = false;
	json_str(f, key);
	fputs(": ", f);
}

static void json_opt(FILE *f, bool *first, const char *key, const char *val)
{
	if (!val)
		return;
	json_member(f, first, key);
	json_str(f, val);
}

static void print_json(const smp_field_info *fi, bool root, int scope)
{
	char strategy[64];
	bool first = true;

	strategy_text(strategy, sizeof(strategy), fi->strategy);
	json_opt(stdout, &first, "path", fi->path);
	json_opt(stdout, &first, "type", fi->type);
	json_opt(stdout, &first, "patchStrategy", fi->strategy ? strategy : NULL);
	json_opt(stdout, &first, "patchMergeKey", fi->merge_key);
	json_opt(stdout, &first, "listType", fi->list_type);
	if (fi->list_map_keys) {
		json_member(stdout, &first, "listMapKeys");
		fputc('[', stdout);
		for (const char *const *k = fi->list_map_keys; *k; k++) {
			if (k != fi->list_map_keys)
				fputs(", ", stdout);
			json_str(stdout, *k);
		}
		fputc(']', stdout);
	}
	json_opt(stdout, &first, "mapType", fi->map_type);
	json_opt(stdout, &first, "format", fi->format);
	if (root && scope >= 0) {
		json_member(stdout, &first, "namespaced");
		fputs(scope ? "true" : "false", stdout);
	}
	fputs(first ? "{}\n" : "\n}\n", stdout);
}

static void line(const char *label, const char *val)
{
	if (val)
		printf("%-17s%s\n", label, val);
}

/* "object (io.k8s.api.core.v1.Container)", "array of string", ... */
static void describe(char *buf, size_t size, const smp_stype *t, int depth)
{
	smp_field_info fi;
	const char *name = smp_stype_name(t);
	size_t n;

	if (smp_schema_field(&fi, t, NULL, NULL)) {
		snprintf(buf, size, "?");
		return;
	}
	n = (size_t)snprintf(buf, size, "%s", fi.type);
	if (name && n < size)
		snprintf(buf + n, size - n, " (%s)", name);
	else if (smp_stype_elem(t) && depth < 4 && n + 4 < size) {
		snprintf(buf + n, size - n, " of ");
		describe(buf + n + 4, size - n - 4, smp_stype_elem(t), depth + 1);
	}
}

/* The properties of the object the field holds (through lists). */
static void print_fields(const smp_stype *t)
{
	size_t n;

	for (int steps = 0; t && smp_stype_kind(t) == SMP_SKIND_LIST && steps < 64; steps++)
		t = smp_stype_elem(t);
	n = smp_stype_field_count(t);
	if (!n)
		return;
	printf("\nFIELDS:\n");
	for (size_t i = 0; i < n; i++) {
		smp_field_info fi;
		char type[512], strategy[64];

		if (smp_stype_field_at(&fi, t, i, NULL))
			continue;
		describe(type, sizeof(type), fi.stype, 0);
		printf("  %-28s %s", fi.path, type);
		if (fi.strategy) {
			strategy_text(strategy, sizeof(strategy), fi.strategy);
			printf("  patchStrategy=%s", strategy);
		}
		if (fi.merge_key)
			printf(" patchMergeKey=%s", fi.merge_key);
		if (fi.list_type)
			printf("  listType=%s", fi.list_type);
		putchar('\n');
	}
}

static void print_text(const char *api_version, const char *kind, const smp_field_info *fi,
                       bool root, int scope)
{
	char strategy[64], keys[1024], type[512];
	size_t n = 0;

	strategy_text(strategy, sizeof(strategy), fi->strategy);
	describe(type, sizeof(type), fi->stype, 0);
	keys[0] = '\0';
	for (const char *const *k = fi->list_map_keys; k && *k && n < sizeof(keys); k++)
		n += (size_t)snprintf(keys + n, sizeof(keys) - n, "%s%s", n ? ", " : "", *k);
	line("KIND:", kind);
	line("VERSION:", api_version);
	if (root)
		line("SCOPE:", scope < 0 ? NULL : scope ? "Namespaced" : "Cluster");
	else
		line("FIELD:", fi->path);
	line("TYPE:", type);
	line("PATCH STRATEGY:", fi->strategy ? strategy : NULL);
	line("PATCH MERGE KEY:", fi->merge_key);
	line("LIST TYPE:", fi->list_type);
	line("LIST MAP KEYS:", fi->list_map_keys ? keys : NULL);
	line("MAP TYPE:", fi->map_type);
	line("FORMAT:", fi->format);
	if (fi->preserve_unknown)
		line("UNKNOWN FIELDS:", "preserved");
	print_fields(fi->stype);
}

int cmd_explain(int argc, char **argv)
{
	const char *file = NULL, *api_version, *kind, *path, *pos[3];
	const smp_schema *schema = smp_schema_builtin();
	smp_schema *loaded = NULL;
	const smp_stype *type = NULL;
	smp_field_info fi;
	smp_error err;
	bool json = false, known = false, ns;
	size_t npos = 0;
	int c, rc = CLI_OK;
	cli_args a;

	cli_args_init(&a, argc, argv, cli_explain_options);
	while ((c = cli_args_next(&a)) != CLI_ARGS_END) {
		switch (c) {
		case OPT_OPENAPI:
		case OPT_SCHEMA:
			if (file)
				return cli_usage(argv[0], "give one schema file: --openapi or --schema, once");
			file = a.value;
			break;
		case OPT_OUTPUT:
			if (strcmp(a.value, "json") == 0)
				json = true;
			else if (strcmp(a.value, "text") == 0)
				json = false;
			else
				return cli_usage(argv[0], "unknown output format '%s' (text or json)",
				                 a.value);
			break;
		default:
			if ((rc = cli_args_other(&a, c, help_text, pos, &npos, 3)) >= 0)
				return rc;
		}
	}
	rc = CLI_OK;
	if (npos < 2)
		return cli_usage(argv[0], "missing %s", npos ? "KIND" : "APIVERSION and KIND");
	api_version = pos[0];
	kind = pos[1];
	path = npos == 3 ? pos[2] : "";

	memset(&err, 0, sizeof(err));
	if (file) {
		if (smp_schema_load_file(&loaded, file, &err)) {
			rc = cli_fail(&err);
			goto out;
		}
		schema = loaded;
	}
	if (smp_schema_kind(&type, schema, api_version, kind, &err) ||
	    smp_schema_field(&fi, type, path, &err)) {
		rc = cli_fail(&err);
		goto out;
	}
	ns = smp_schema_kind_namespaced(schema, api_version, kind, &known);
	if (json)
		print_json(&fi, !path[0], known ? ns : -1);
	else
		print_text(api_version, kind, &fi, !path[0], known ? ns : -1);
out:
	smp_schema_free(loaded);
	return rc;
}
