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
