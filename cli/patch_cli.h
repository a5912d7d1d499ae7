/*
 * patch_cli.h - what `smpatch patch` and `smpatch diff` share (defined in
 * cmd_patch.c): reading one-document files and choosing the schema type.
 */
#ifndef SMP_PATCH_CLI_H
#define SMP_PATCH_CLI_H

#include "cli.h"

/* Schema choice from --openapi / --definition. */
typedef struct patch_schema_opts {
	const char *openapi;    /* NULL: the built-in tables */
	const char *definition; /* NULL: by apiVersion/kind */
	smp_schema *loaded;     /* owned; free with patch_schema_release */
} patch_schema_opts;

/* The options of patch and diff: one id each, whichever command takes it. */
enum {
	PATCH_OPT_TYPE = 1, PATCH_OPT_OPENAPI, PATCH_OPT_DEFINITION, PATCH_OPT_OUTPUT,
	PATCH_OPT_CURRENT, PATCH_OPT_OVERWRITE, PATCH_OPT_EXIT_CODE
};

/* The lines of --help and rows of the option tables patch and diff share. */
#define PATCH_HELP_DEFINITION \
	"      --definition=NAME  root definition in that schema, for documents\n" \
	"                         without apiVersion/kind\n"
#define PATCH_HELP_OUTPUT \
	"  -o, --output=FORMAT    yaml (default) or json\n" \
	"  -h, --help             show this help\n"
#define PATCH_OPTIONS_SCHEMA                                                     \
	{"openapi", 0, CLI_ARG_VALUE, PATCH_OPT_OPENAPI, "@file", NULL},         \
	{"definition", 0, CLI_ARG_VALUE, PATCH_OPT_DEFINITION, NULL, NULL}

/* The options patch and diff both take (-t among the option's values,
 * --openapi, --definition, -o), then what cli_args_other does with the
 * rest (up to two files into pos). -1 to go on, else the exit code. */
int patch_cli_take(const cli_args *a, int c, const char *help, smp_patch_type *type,
                   patch_schema_opts *so, smp_output *output, const char **pos, size_t *npos);

/* Fills err as the library would (the CLI sees only smpatch.h). */
int patch_cli_err(smp_error *err, int code, const char *file, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/* Reads paths[0..n) ("-" = stdin) side by side (cli_parse_files) into
 * docs[i]; each must hold at most one document, whose root goes to v[i] (an
 * empty file gives NULL). On failure the docs read so far are left in docs[]
 * for the caller to free (smp_doc_free(NULL) is fine). */
int patch_cli_load(smp_doc **docs, const smp_value **v, const char *const *paths, size_t n,
                   smp_error *err);
/* The root of a document that must hold at most one (NULL for none). */
int patch_cli_one(const smp_doc *doc, const smp_value **v, const char *path, smp_error *err);

/* The root type for a strategic patch from --openapi / --definition (the
 * first document that names apiVersion and kind decides). Without them
 * *out is NULL: the library looks the kind up in the built-in tables.
 * SMP_ESCHEMA, suggesting --type merge, when the schema lacks the kind. */
int patch_cli_root(const smp_stype **out, patch_schema_opts *so, const smp_value *const *docs,
                   size_t ndocs, smp_error *err);

void patch_schema_release(patch_schema_opts *so);

/* Prints v: JSON indented with sorted keys and Go escaping (kubectl -o json),
 * or YAML (sorted when sort_yaml). Appends to the malloc'ed buffer *buf. */
int patch_cli_render(char **buf, size_t *len, const smp_value *v, smp_output out,
                     bool sort_yaml, smp_error *err);

#endif
