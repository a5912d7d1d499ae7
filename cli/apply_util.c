/*
 * apply_util.c - input reading, matching, output and diff helpers for the
 * apply and last-applied commands.
 */
/* DT_DIR, DT_REG (readdir's d_type) are BSD and Linux, outside strict POSIX. */
#define _DEFAULT_SOURCE 1
#include "cli.h"
#include "apply_util.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- buffers ---- */

void cli_buf_init(cli_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void cli_buf_release(cli_buf *b)
{
	free(b->ptr);
	memset(b, 0, sizeof(*b));
}

void cli_buf_put(cli_buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t ncap = b->cap ? b->cap : 256;
		char *np;
		while (ncap < b->len + n + 1) {
			if (ncap > SIZE_MAX / 2) {
				b->oom = true;
				return;
			}
			ncap *= 2;
		}
		np = realloc(b->ptr, ncap);
		if (!np) {
			b->oom = true;
			return;
		}
		b->ptr = np;
		b->cap = ncap;
	}
	if (n)
		memcpy(b->ptr + b->len, s, n);
	b->len += n;
	b->ptr[b->len] = '\0';
}

void cli_buf_puts(cli_buf *b, const char *s)
{
	cli_buf_put(b, s, strlen(s));
}

void cli_buf_putc(cli_buf *b, char c)
{
	cli_buf_put(b, &c, 1);
}

int cli_buf_value(cli_buf *b, const smp_value *v, smp_output out, bool sort_keys,
                  smp_error *err)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	char *text = NULL;
	size_t len = 0;
	int rc;

	po.output = out;
	po.sort_keys = sort_keys;
	/* kubectl's JSON (json.Marshal / MarshalIndent) escapes <, >, &. */
	po.go_escape = out != SMP_OUT_YAML;
	rc = smp_print(&text, &len, v, &po, err);
	if (rc)
		return rc;
	cli_buf_put(b, text, len);
	smp_free(text);
	return 0;
}

void cli_json_string(cli_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	if (!s) {
		cli_buf_puts(b, "null");
		return;
	}
	cli_buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			cli_buf_putc(b, '\\');
			cli_buf_putc(b, (char)c);
		} else if (c == '\n') {
			cli_buf_puts(b, "\\n");
		} else if (c == '\r') {
			cli_buf_puts(b, "\\r");
		} else if (c == '\t') {
			cli_buf_puts(b, "\\t");
		} else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
			char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			cli_buf_put(b, e, 6);
		} else {
			cli_buf_putc(b, (char)c);
		}
	}
	cli_buf_putc(b, '"');
}

const char *cli_str_at(const smp_value *map, const char *key)
{
	const smp_value *v = smp_value_type(map) == SMP_MAP ? smp_map_get(map, key) : NULL;
	return smp_value_string(v, NULL);
}

/* ---- inputs ---- */

void cli_inputs_init(cli_inputs *in)
{
	memset(in, 0, sizeof(*in));
}

void cli_inputs_release(cli_inputs *in)
{
	for (size_t i = 0; i < in->ndocs; i++)
		smp_doc_free(in->docs[i]);
	for (size_t i = 0; i < in->nnames; i++)
		free(in->names[i]);
	for (size_t i = 0; i < in->n; i++)
		free(in->items[i].meta_err);
	free(in->docs);
	free(in->names);
	free(in->items);
	memset(in, 0, sizeof(*in));
}

static bool grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return true;
	ncap = *cap ? *cap * 2 : 16;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}

static int enomem(smp_error *err)
{
	if (err) {
		memset(err, 0, sizeof(*err));
		err->code = SMP_ENOMEM;
		snprintf(err->message, sizeof(err->message), "out of memory");
	}
	return SMP_ENOMEM;
}

static int bad_input(smp_error *err, const char *file, const smp_value *v, const char *msg)
{
	if (err) {
		memset(err, 0, sizeof(*err));
		err->code = SMP_EINVALOBJ;
		snprintf(err->file, sizeof(err->file), "%s", file);
		err->line = smp_value_line(v);
		err->column = smp_value_column(v);
		snprintf(err->message, sizeof(err->message), "%s", msg);
	}
	return SMP_EINVALOBJ;
}

/* One root or List item of an input into the command's objects (Lists
 * expanded when asked), checked as kubectl decodes it. */
static int add_value(cli_inputs *in, const smp_value *v, const char *file, bool expand,
                     unsigned depth, smp_error *err)
{
	smp_error *merr = NULL;

	if (smp_value_type(v) == SMP_NULL)
		return 0;
	if (smp_value_type(v) != SMP_MAP)
		return bad_input(err, file, v, "expected an object (a map)");
	/* kubectl decodes each document's metadata strictly (a List's own, not
	 * its items'); a kind that is not a string is reported as missing
	 * before that, by the apply step. */
	if (in->check_meta && depth == 0 && smp_value_type(smp_map_get(v, "kind")) == SMP_STRING) {
		smp_error tmp;
		int rc = smp_object_validate_meta(v, &tmp);

		if (rc == SMP_ENOMEM)
			return enomem(err);
		if (rc) {
			if (!(merr = malloc(sizeof(*merr))))
				return enomem(err);
			*merr = tmp;
			snprintf(merr->file, sizeof(merr->file), "%s", file);
		}
	}
	const smp_value *items;
	int list = merr || !expand ? 0 : smp_apply_list_items(v, &items);
	if (list < 0)
		return bad_input(err, file, items, "items: expected a list of objects");
	/* kubectl: "*unstructured.Unstructured is not a list" for any item of
	 * a list that has items itself. */
	if (depth > 0 && smp_map_get(v, "items"))
		return bad_input(err, file, v,
		                 "an item of a list is itself a list (it has items); kubectl "
		                 "rejects it too");
	if (list > 0) {
		for (size_t i = 0; i < smp_value_len(items); i++) {
			int rc = add_value(in, smp_list_get(items, i), file, expand, depth + 1, err);
			if (rc)
				return rc;
		}
		return 0;
	}
	if (!grow((void **)&in->items, &in->cap, in->n, sizeof(*in->items))) {
		free(merr);
		return enomem(err);
	}
	in->items[in->n].v = v;
	in->items[in->n].file = file;
	in->items[in->n].meta_err = merr;
	in->n++;
	return 0;
}

static int add_roots(cli_inputs *in, smp_doc *doc, const char *name, bool expand,
                     smp_error *err)
{
	int rc;

	for (size_t i = 0; i < smp_doc_count(doc); i++)
		if ((rc = add_value(in, smp_doc_root(doc, i), name, expand, 0, err)))
			return rc;
	return 0;
}

int cli_inputs_add_doc(cli_inputs *in, smp_doc *doc, const char *name, bool expand_lists,
                       smp_error *err)
{
	char *copy;

	if (!grow((void **)&in->names, &in->ncap, in->nnames, sizeof(*in->names)) ||
	    !grow((void **)&in->docs, &in->dcap, in->ndocs, sizeof(*in->docs))) {
		smp_doc_free(doc);
		return enomem(err);
	}
	in->docs[in->ndocs++] = doc;
	if (!(copy = strdup(name)))
		return enomem(err);
	in->names[in->nnames++] = copy;
	return add_roots(in, doc, copy, expand_lists, err);
}

static int add_file(cli_inputs *in, const char *path, bool expand, smp_error *err)
{
	smp_doc *doc = NULL;
	char *name;
	int rc;

	if (!grow((void **)&in->names, &in->ncap, in->nnames, sizeof(*in->names)) ||
	    !grow((void **)&in->docs, &in->dcap, in->ndocs, sizeof(*in->docs)))
		return enomem(err);
	name = strdup(path);
	if (!name)
		return enomem(err);
	in->names[in->nnames++] = name;
	rc = cli_parse_file(&doc, path, err);
	if (rc)
		return rc;
	in->docs[in->ndocs++] = doc;
	return add_roots(in, doc, name, expand, err);
}

/* Names kept with a type byte before them (list_dir), in name order. */
static int cmp_typed(const void *a, const void *b)
{
	return strcmp(*(char *const *)a + 1, *(char *const *)b + 1);
}

static bool has_ext(const char *name)
{
	size_t n = strlen(name);
	return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
	       (n > 5 && strcmp(name + n - 5, ".json") == 0);
}

/* Appends the files of directory `path` (see cli_list_files) to *names. */
static int list_dir(char ***names, size_t *n, size_t *cap, const char *path, bool recursive,
                    unsigned depth, smp_error *err)
{
	DIR *d;
	struct dirent *e;
	char **here = NULL;
	size_t nhere = 0, hcap = 0;
	int rc = 0;

	if (depth > 64)
		return 0;
	d = opendir(path);
	if (!d) {
		if (err) {
			memset(err, 0, sizeof(*err));
			err->code = SMP_EIO;
			snprintf(err->file, sizeof(err->file), "%s", path);
			snprintf(err->message, sizeof(err->message), "cannot read directory: %s",
			         strerror(errno));
		}
		return SMP_EIO;
	}
	while ((e = readdir(d))) {
		size_t len;
		char *full;
		if (e->d_name[0] == '.')
			continue;
		len = strlen(path) + strlen(e->d_name) + 3;
		full = malloc(len);
		if (!full || !grow((void **)&here, &hcap, nhere, sizeof(*here))) {
			free(full);
			rc = enomem(err);
			break;
		}
		/* full[0] is the entry's type as readdir knows it ('d', 'f', or
		 * '?' for stat to tell: a link, or a file system without
		 * d_type), the name after it: no stat for each of thousands of
		 * files. */
		full[0] = e->d_type == DT_DIR ? 'd' : e->d_type == DT_REG ? 'f' : '?';
		snprintf(full + 1, len - 1, "%s%s%s", path,
		         path[strlen(path) - 1] == '/' ? "" : "/", e->d_name);
		here[nhere++] = full;
	}
	closedir(d);
	if (!rc && nhere)
		qsort(here, nhere, sizeof(*here), cmp_typed);
	for (size_t i = 0; i < nhere && !rc; i++) {
		char type = here[i][0], *name = here[i] + 1;
		struct stat st;
		if (type == '?') {
			if (stat(name, &st) != 0)
				continue;
			type = S_ISDIR(st.st_mode) ? 'd' : 'f';
		}
		if (type == 'd') {
			if (recursive)
				rc = list_dir(names, n, cap, name, recursive, depth + 1, err);
		} else if (has_ext(name)) {
			if (!grow((void **)names, cap, *n, sizeof(**names))) {
				rc = enomem(err);
				break;
			}
			memmove(here[i], name, strlen(name) + 1);
			(*names)[(*n)++] = here[i];
			here[i] = NULL;
		}
	}
	for (size_t i = 0; i < nhere; i++)
		free(here[i]);
	free(here);
	return rc;
}

int cli_list_files(char ***names, size_t *n, const char *path, bool recursive,
                   smp_error *err)
{
	size_t cap = 0;
	struct stat st;
	int rc;

	*names = NULL;
	*n = 0;
	if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = list_dir(names, n, &cap, path, recursive, 0, err);
	} else if (!grow((void **)names, &cap, 0, sizeof(**names)) ||
	           !((*names)[0] = strdup(path))) {
		rc = enomem(err);
	} else {
		*n = 1;
		rc = 0;
	}
	if (rc) {
		cli_free_files(*names, *n);
		*names = NULL;
		*n = 0;
	}
	return rc;
}

void cli_free_files(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int cli_inputs_add_path(cli_inputs *in, const char *path, bool recursive, bool expand_lists,
                        smp_error *err)
{
	char **names;
	size_t n;
	int rc = cli_list_files(&names, &n, path, recursive, err);

	for (size_t i = 0; i < n && !rc; i++)
		rc = add_file(in, names[i], expand_lists, err);
	cli_free_files(names, n);
	return rc;
}

/* ---- index of live objects ---- */

void cli_index_init(cli_index *ix)
{
	memset(ix, 0, sizeof(*ix));
}

void cli_index_release(cli_index *ix)
{
	free(ix->slots);
	memset(ix, 0, sizeof(*ix));
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	/* FNV-1a, with the terminating NUL so ("ab","c") != ("a","bc"). */
	do {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	} while (*s++);
	return h;
}

static size_t group_len(const char *av)
{
	const char *slash = av ? strchr(av, '/') : NULL;
	return slash ? (size_t)(slash - av) : 0;
}

static uint64_t key_hash(const smp_value *obj, const smp_apply_options *ao)
{
	const char *av = cli_str_at(obj, "apiVersion");
	const char *name = cli_str_at(smp_map_get(obj, "metadata"), "name");
	uint64_t h = 0xcbf29ce484222325ull;
	size_t gl = group_len(av);

	for (size_t i = 0; i < gl; i++) {
		h ^= (unsigned char)av[i];
		h *= 0x100000001b3ull;
	}
	h = mix_str(h, "");
	h = mix_str(h, cli_str_at(obj, "kind") ? cli_str_at(obj, "kind") : "");
	h = mix_str(h, smp_apply_namespace(obj, ao));
	h = mix_str(h, name ? name : "");
	return h;
}

static bool same_key(const smp_value *a, const smp_value *b, const smp_apply_options *ao)
{
	const char *aa = cli_str_at(a, "apiVersion"), *ba = cli_str_at(b, "apiVersion");
	const char *ak = cli_str_at(a, "kind"), *bk = cli_str_at(b, "kind");
	const char *an = cli_str_at(smp_map_get(a, "metadata"), "name");
	const char *bn = cli_str_at(smp_map_get(b, "metadata"), "name");
	size_t ag = group_len(aa), bg = group_len(ba);

	return ag == bg && (ag == 0 || memcmp(aa, ba, ag) == 0) && ak && bk &&
	       strcmp(ak, bk) == 0 && an && bn && strcmp(an, bn) == 0 &&
	       strcmp(smp_apply_namespace(a, ao), smp_apply_namespace(b, ao)) == 0;
}

/* Adds in->items[i] (unless an object with its key is there already). */
static void index_add(cli_index *ix, const cli_inputs *in, size_t i,
                      const smp_apply_options *ao)
{
	size_t s = (size_t)key_hash(in->items[i].v, ao) & (ix->cap - 1);

	while (ix->slots[s]) {
		if (same_key(in->items[ix->slots[s] - 1].v, in->items[i].v, ao))
			return; /* the first one wins */
		s = (s + 1) & (ix->cap - 1);
	}
	ix->slots[s] = i + 1;
}

int cli_index_build(cli_index *ix, const cli_inputs *in, size_t extra,
                    const smp_apply_options *ao)
{
	size_t cap = 16;

	/* Load factor at most 1/2, including `extra` later additions. */
	while (cap < (in->n + extra) * 2 + 1)
		cap *= 2;
	ix->slots = calloc(cap, sizeof(*ix->slots));
	if (!ix->slots)
		return SMP_ENOMEM;
	ix->cap = cap;
	for (size_t i = 0; i < in->n; i++)
		index_add(ix, in, i, ao);
	return 0;
}

ptrdiff_t cli_index_find(const cli_index *ix, const cli_inputs *in, const smp_value *obj,
                         const smp_apply_options *ao)
{
	size_t s;

	if (!ix->cap)
		return -1;
	s = (size_t)key_hash(obj, ao) & (ix->cap - 1);
	while (ix->slots[s]) {
		if (same_key(in->items[ix->slots[s] - 1].v, obj, ao))
			return (ptrdiff_t)ix->slots[s] - 1;
		s = (s + 1) & (ix->cap - 1);
	}
	return -1;
}

/* ---- options and errors ---- */

int cli_selector_error(const char *cmd, const char *flag, const char *text,
                       const smp_error *err)
{
	if (err->code == SMP_ENOMEM) {
		fprintf(stderr, "smpatch %s: out of memory\n", cmd);
		return CLI_INTERNAL;
	}
	fprintf(stderr, "smpatch %s: invalid selector for %s at column %u: %s\n  %s\n  %*s^\n",
	        cmd, flag, err->column, err->message, text,
	        (int)(err->column ? err->column - 1 : 0), "");
	return CLI_USAGE;
}

int cli_load_schemas(smp_schema **out, const char *openapi, const char **schemas,
                     size_t nschemas, smp_error *err)
{
	cli_buf all;
	int rc = 0;

	*out = NULL;
	if (openapi)
		return smp_schema_load_file(out, openapi, err);
	if (!nschemas)
		return 0;
	if (nschemas == 1)
		return smp_schema_load_file(out, schemas[0], err);
	/* Several CRD files: one YAML stream (JSON is YAML too). */
	cli_buf_init(&all);
	for (size_t i = 0; i < nschemas && !rc; i++) {
		FILE *f = strcmp(schemas[i], "-") == 0 ? stdin : fopen(schemas[i], "rb");
		char chunk[65536];
		size_t n;
		if (!f) {
			memset(err, 0, sizeof(*err));
			err->code = SMP_EIO;
			snprintf(err->file, sizeof(err->file), "%s", schemas[i]);
			snprintf(err->message, sizeof(err->message), "cannot open: %s",
			         strerror(errno));
			rc = SMP_EIO;
			break;
		}
		cli_buf_puts(&all, "---\n");
		while (all.len <= SMP_DEFAULT_MAX_BYTES && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			cli_buf_put(&all, chunk, n);
		if (all.len > SMP_DEFAULT_MAX_BYTES) {
			/* The files together are one input: the same limit. */
			memset(err, 0, sizeof(*err));
			err->code = rc = SMP_ELIMIT;
			snprintf(err->file, sizeof(err->file), "%s", schemas[i]);
			snprintf(err->message, sizeof(err->message),
			         "schema files are more than the limit of %zu bytes",
			         (size_t)SMP_DEFAULT_MAX_BYTES);
		}
		cli_buf_puts(&all, "\n");
		if (f != stdin)
			fclose(f);
	}
	if (!rc && all.oom)
		rc = enomem(err);
	if (!rc)
		rc = smp_schema_load(out, all.ptr, all.len, "--schema", err);
	cli_buf_release(&all);
	return rc;
}

void cli_err_prefix(smp_error *err, const char *prefix)
{
	char p[sizeof(err->message)];

	if ((size_t)snprintf(p, sizeof(p), "%s: ", prefix) < sizeof(p))
		smp_error_prefix(err, p);
}

int cli_fail_meta(const cli_obj *o)
{
	smp_error e = *o->meta_err;
	char ref[512];

	smp_apply_object_ref(ref, sizeof(ref), o->v);
	cli_err_prefix(&e, ref);
	return cli_fail_at(&e, o);
}

int cli_fail_at(smp_error *err, const cli_obj *o)
{
	if (!err->file[0] && o) {
		snprintf(err->file, sizeof(err->file), "%s", o->file);
		if (!err->line) {
			err->line = smp_value_line(o->v);
			err->column = smp_value_column(o->v);
		}
	}
	return cli_fail(err);
}
