/*
 * apply_util.h - helpers of the commands that read objects (apply,
 * replace, last-applied, patch): output buffers, the files a path names,
 * reading objects (streams, Lists) and matching them with live objects.
 * Public API only (smpatch.h).
 */
#ifndef SMP_CLI_APPLY_UTIL_H
#define SMP_CLI_APPLY_UTIL_H

#include "smpatch.h"

#include <stdbool.h>
#include <stddef.h>

/* A growable output buffer; after an allocation failure `oom` is set and
 * further appends do nothing. */
typedef struct cli_buf {
	char *ptr;
	size_t len, cap;
	bool oom;
} cli_buf;

void cli_buf_init(cli_buf *b);
void cli_buf_release(cli_buf *b);
void cli_buf_put(cli_buf *b, const char *s, size_t n);
void cli_buf_puts(cli_buf *b, const char *s);
void cli_buf_putc(cli_buf *b, char c);
/* Appends `v` printed as `out` (compact JSON gets no newline). */
int cli_buf_value(cli_buf *b, const smp_value *v, smp_output out, bool sort_keys,
                  smp_error *err);
/* Appends a JSON string with Go's escaping; NULL gives null. */
void cli_json_string(cli_buf *b, const char *s);

/* One object read from an input, and where it came from. */
typedef struct cli_obj {
	const smp_value *v;
	const char *file;
	/* With cli_inputs.check_meta: why kubectl could not decode this
	 * document (smp_object_validate_meta), else NULL. Such a document is
	 * kept whole (a List is not expanded). Owned by the cli_inputs. */
	smp_error *meta_err;
} cli_obj;

typedef struct cli_inputs {
	cli_obj *items;
	size_t n, cap;
	bool check_meta;   /* set before adding: check every document read */
	smp_doc **docs;
	size_t ndocs, dcap;
	char **names;
	size_t nnames, ncap;
} cli_inputs;

void cli_inputs_init(cli_inputs *in);
void cli_inputs_release(cli_inputs *in);
/* Reads a file, a directory (.yaml/.yml/.json files in name order,
 * subdirectories with `recursive`) or "-" (stdin). Null documents are
 * skipped; Lists are expanded when `expand_lists`. */
int cli_inputs_add_path(cli_inputs *in, const char *path, bool recursive,
                        bool expand_lists, smp_error *err);

/* The files `path` names: itself, or for a directory its .yaml, .yml and
 * .json files in name order (hidden ones left out), those of its
 * subdirectories too with `recursive`. Free with cli_free_files. */
int cli_list_files(char ***names, size_t *n, const char *path, bool recursive,
                   smp_error *err);
void cli_free_files(char **names, size_t n);

/* Adds the documents of `doc`, which `in` owns from now on (also on
 * failure); `name` (copied) is the file they came from. Lists are read as
 * smp_apply_list_items reads them; an item of a list that is itself a
 * list is an error, as in kubectl. */
int cli_inputs_add_doc(cli_inputs *in, smp_doc *doc, const char *name, bool expand_lists,
                       smp_error *err);

/* A hash index of live objects by (group, kind, namespace, name). */
typedef struct cli_index {
	size_t *slots; /* object index + 1; 0 = empty */
	size_t cap;
} cli_index;

void cli_index_init(cli_index *ix);
void cli_index_release(cli_index *ix);
/* Indexes every object of `in` (the first of a key wins). */
int cli_index_build(cli_index *ix, const cli_inputs *in, size_t extra,
                    const smp_apply_options *ao);
/* Index in `in` of the object matching `obj`, or -1. */
ptrdiff_t cli_index_find(const cli_index *ix, const cli_inputs *in, const smp_value *obj,
                         const smp_apply_options *ao);

/* The string at key of a map, or NULL. */
const char *cli_str_at(const smp_value *map, const char *key);

/* Reports a selector syntax error with its position; returns CLI_USAGE
 * (CLI_INTERNAL for ENOMEM). */
int cli_selector_error(const char *cmd, const char *flag, const char *text,
                       const smp_error *err);

/* Loads --openapi FILE or the --schema files (concatenated as one stream). */
int cli_load_schemas(smp_schema **out, const char *openapi, const char **schemas,
                     size_t nschemas, smp_error *err);

/* Puts "<prefix>: " in front of err->message (truncating the end). */
void cli_err_prefix(smp_error *err, const char *prefix);

/* Reports o->meta_err (kubectl's decoding error) with the object's name in
 * front; returns the exit code. */
int cli_fail_meta(const cli_obj *o);

/* cli_fail, with the object's file and position filled in when unknown. */
int cli_fail_at(smp_error *err, const cli_obj *o);

#endif
