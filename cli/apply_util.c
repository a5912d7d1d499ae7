/*
 * apply_util.c - input reading, matching, output and diff helpers for the
 * apply and last-applied commands.
 */
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

int cli_list_items(const smp_value *v, const smp_value **items)
{
	const smp_value *it;

	*items = NULL;
	/* kubectl's builder treats every decoded object with an items field
	 * as a list, whatever its kind (List, ConfigMapList, even ConfigMap);
	 * items: null is an empty list. */
	if (smp_value_type(v) != SMP_MAP || smp_value_type(smp_map_get(v, "kind")) != SMP_STRING ||
	    !(it = smp_map_get(v, "items")))
		return 0;
	if (smp_value_type(it) == SMP_NULL)
		return 1;
	*items = it;
	return smp_value_type(it) == SMP_LIST ? 1 : -1;
}

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
	int list = merr || !expand ? 0 : cli_list_items(v, &items);
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

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_ext(const char *name)
{
	size_t n = strlen(name);
	return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
	       (n > 5 && strcmp(name + n - 5, ".json") == 0);
}

static int add_dir(cli_inputs *in, const char *path, bool recursive, bool expand,
                   unsigned depth, smp_error *err)
{
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
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
		len = strlen(path) + strlen(e->d_name) + 2;
		full = malloc(len);
		if (!full || !grow((void **)&names, &cap, n, sizeof(*names))) {
			free(full);
			rc = enomem(err);
			break;
		}
		snprintf(full, len, "%s%s%s", path,
		         path[strlen(path) - 1] == '/' ? "" : "/", e->d_name);
		names[n++] = full;
	}
	closedir(d);
	if (!rc && n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n && !rc; i++) {
		struct stat st;
		if (stat(names[i], &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (recursive)
				rc = add_dir(in, names[i], recursive, expand, depth + 1, err);
		} else if (has_ext(names[i])) {
			rc = add_file(in, names[i], expand, err);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int cli_inputs_add_path(cli_inputs *in, const char *path, bool recursive, bool expand_lists,
                        smp_error *err)
{
	struct stat st;

	if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return add_dir(in, path, recursive, expand_lists, 0, err);
	return add_file(in, path, expand_lists, err);
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

int cli_index_add(cli_index *ix, const cli_inputs *in, size_t i,
                  const smp_apply_options *ao)
{
	size_t s = (size_t)key_hash(in->items[i].v, ao) & (ix->cap - 1);

	while (ix->slots[s]) {
		if (same_key(in->items[ix->slots[s] - 1].v, in->items[i].v, ao))
			return 0; /* the first one wins */
		s = (s + 1) & (ix->cap - 1);
	}
	ix->slots[s] = i + 1;
	return 0;
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
		cli_index_add(ix, in, i, ao);
	return 0;
}

int cli_inputs_push(cli_inputs *in, const smp_value *v, const char *file)
{
	if (!grow((void **)&in->items, &in->cap, in->n, sizeof(*in->items)))
		return SMP_ENOMEM;
	in->items[in->n].v = v;
	in->items[in->n].file = file;
	in->items[in->n].meta_err = NULL;
	in->n++;
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

const char *cli_opt(char **argv, int i, char *name, size_t size, const char **val)
{
	const char *a = argv[i];
	const char *eq;
	size_t n;

	*val = NULL;
	if (a[0] != '-' || a[1] == '\0')
		return NULL;
	n = strlen(a);
	if (a[1] == '-') {
		eq = strchr(a, '=');
		if (eq) {
			n = (size_t)(eq - a);
			*val = eq + 1;
		}
	} else if (n > 2) {
		/* -fFILE, -oyaml */
		n = 2;
		*val = a + 2;
	}
	if (n >= size)
		n = size - 1;
	memcpy(name, a, n);
	name[n] = '\0';
	return name;
}

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
	size_t rl = strlen(prefix), ml = strlen(err->message);

	if (rl + 3 >= sizeof(err->message))
		return;
	if (ml > sizeof(err->message) - rl - 3)
		ml = sizeof(err->message) - rl - 3;
	memmove(err->message + rl + 2, err->message, ml);
	memcpy(err->message, prefix, rl);
	memcpy(err->message + rl, ": ", 2);
	err->message[rl + 2 + ml] = '\0';
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

int cli_report_conflict(smp_error *err, const cli_obj *o, const smp_value *live,
                        const smp_apply_options *ao)
{
	smp_apply_options force = *ao;
	smp_apply_result *res = NULL;
	smp_patch_options po = SMP_PATCH_OPTIONS_INIT;
	smp_doc *orig = NULL, *changed = NULL;
	const char *la;
	char ref[512];
	cli_buf b;
	smp_error e2;
	int code;

	/* The one-line error first, then both sides in full, as kubectl shows
	 * them ("patch: ... conflicts with changes made from original to
	 * current: ..."). */
	smp_apply_object_ref(ref, sizeof(ref), o->v);
	snprintf(err->message, sizeof(err->message), "%s: conflict: the patch changes fields "
	         "changed in the live object since the last apply (--overwrite=false)", ref);
	code = cli_fail_at(err, o);
	force.overwrite = true;
	if (smp_apply_object(&res, o->v, live, &force, &e2))
		return code;
	la = cli_str_at(smp_map_get(smp_map_get(live, "metadata"), "annotations"),
	                SMP_LAST_APPLIED_ANNOTATION);
	po.type = smp_apply_result_patch_type(res);
	cli_buf_init(&b);
	if ((!la || !smp_doc_parse(&orig, la, strlen(la), NULL, &e2)) &&
	    !smp_diff_two_way(&changed, orig ? smp_doc_root(orig, 0) : NULL, live, &po, &e2)) {
		cli_buf_puts(&b, "patch:\n");
		cli_buf_value(&b, smp_apply_result_patch(res), SMP_OUT_YAML, true, &e2);
		cli_buf_puts(&b, "conflicts with changes made from original to current:\n");
		cli_buf_value(&b, smp_doc_root(changed, 0), SMP_OUT_YAML, true, &e2);
		if (!b.oom)
			fputs(b.ptr, stderr);
	}
	cli_buf_release(&b);
	smp_doc_free(orig);
	smp_doc_free(changed);
	smp_apply_result_free(res);
	return code;
}

bool cli_field_match(const smp_selector *sel, const smp_value *cfg,
                     const smp_apply_options *ao)
{
	const smp_value *md = smp_map_get(cfg, "metadata");
	const char *ns = cli_str_at(md, "namespace");
	const char *want = smp_apply_namespace(cfg, ao);
	smp_doc *pdoc = NULL, *res = NULL;
	smp_patch_options po = SMP_PATCH_OPTIONS_INIT;
	cli_buf b;
	bool m;

	if ((ns && *ns) || !*want)
		return smp_field_selector_matches(sel, cfg);
	/* Fill the namespace in with a merge patch, then match. */
	cli_buf_init(&b);
	cli_buf_puts(&b, "{\"metadata\":{\"namespace\":");
	cli_json_string(&b, want);
	cli_buf_puts(&b, "}}");
	po.type = SMP_PATCH_MERGE;
	if (b.oom || smp_doc_parse(&pdoc, b.ptr, b.len, NULL, NULL) ||
	    smp_patch_apply(&res, cfg, smp_doc_root(pdoc, 0), &po, NULL))
		m = smp_field_selector_matches(sel, cfg);
	else
		m = smp_field_selector_matches(sel, smp_doc_root(res, 0));
	smp_doc_free(pdoc);
	smp_doc_free(res);
	cli_buf_release(&b);
	return m;
}

/* ---- unified diff ---- */

typedef struct line {
	const char *p;
	size_t n;
} line;

static int split_lines(line **out, size_t *count, const char *s, size_t len)
{
	size_t n = 0, cap = 0, start = 0;
	line *l = NULL;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '\n')
			continue;
		if (i == len && start == len)
			break;
		if (!grow((void **)&l, &cap, n, sizeof(*l))) {
			free(l);
			return SMP_ENOMEM;
		}
		l[n].p = s + start;
		l[n].n = i - start;
		n++;
		start = i + 1;
	}
	if (!l && !(l = malloc(sizeof(*l))))
		return SMP_ENOMEM; /* never NULL, even for no lines */
	*out = l;
	*count = n;
	return 0;
}

static bool line_eq(const line *a, const line *b)
{
	return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

/* Edit script: ops[k] = ' ', '-' or '+', in order. */
#define DIFF_MAX_D 2000

static int myers(char **ops_out, size_t *nops_out, const line *a, size_t n, const line *b,
                 size_t m)
{
	/* Greedy Myers with one V row per step (O(D^2) memory, D capped). */
	size_t max = n + m;
	long **trace = NULL;
	size_t ntrace = 0;
	char *ops = NULL;
	size_t nops = 0;
	long d, found = -1;
	int rc = 0;

	if (max == 0) {
		*ops_out = NULL;
		*nops_out = 0;
		return 0;
	}
	if (max >= (size_t)INTPTR_MAX) /* lets gcc -O2 bound malloc(max + 1) */
		return SMP_ELIMIT;
	trace = calloc((size_t)DIFF_MAX_D + 2, sizeof(*trace));
	if (!trace)
		return SMP_ENOMEM;
	for (d = 0; d <= (long)max && d <= DIFF_MAX_D; d++) {
		long *v = malloc((size_t)(2 * d + 3) * sizeof(long));
		long *prev = d ? trace[d - 1] : NULL;
		if (!v) {
			rc = SMP_ENOMEM;
			goto out;
		}
		trace[ntrace++] = v;
		for (long k = -d; k <= d; k += 2) {
			long x, y;
			/* prev row is indexed k + (d-1) + 1 */
			if (d == 0)
				x = 0;
			else if (k == -d || (k != d && prev[k - 1 + d] < prev[k + 1 + d]))
				x = prev[k + 1 + d];
			else
				x = prev[k - 1 + d] + 1;
			y = x - k;
			while (x < (long)n && y < (long)m && line_eq(&a[x], &b[y]))
				x++, y++;
			v[k + d + 1] = x;
			if (x >= (long)n && y >= (long)m) {
				found = d;
				break;
			}
		}
		if (found >= 0)
			break;
	}
	ops = malloc(max + 1);
	if (!ops) {
		rc = SMP_ENOMEM;
		goto out;
	}
	if (found < 0) {
		/* Too many differences: everything old out, everything new in. */
		for (size_t i = 0; i < n; i++)
			ops[nops++] = '-';
		for (size_t i = 0; i < m; i++)
			ops[nops++] = '+';
	} else {
		/* Backtrack from (n, m), writing ops in reverse. */
		long x = (long)n, y = (long)m;
		size_t w = max;
		char *rev = malloc(max + 1);
		if (!rev) {
			rc = SMP_ENOMEM;
			goto out;
		}
		for (d = found; d > 0; d--) {
			long *prev = trace[d - 1];
			long k = x - y, pk, px, py;
			if (k == -d || (k != d && prev[k - 1 + d] < prev[k + 1 + d]))
				pk = k + 1;
			else
				pk = k - 1;
			px = prev[pk + d];
			py = px - pk;
			while (x > px && y > py) {
				rev[--w] = ' ';
				x--, y--;
			}
			if (x == px)
				rev[--w] = '+';
			else
				rev[--w] = '-';
			x = px;
			y = py;
		}
		while (x > 0 && y > 0) {
			rev[--w] = ' ';
			x--, y--;
		}
		memcpy(ops, rev + w, max - w);
		nops = max - w;
		free(rev);
	}
	*ops_out = ops;
	*nops_out = nops;
	ops = NULL;
out:
	for (size_t i = 0; i < ntrace; i++)
		free(trace[i]);
	free(trace);
	free(ops);
	return rc;
}

static void put_range(cli_buf *out, size_t start, size_t count)
{
	char tmp[64];

	/* GNU diff: "l,s"; ",1" left out; an empty range names the line before. */
	if (count == 1)
		snprintf(tmp, sizeof(tmp), "%zu", start + 1);
	else
		snprintf(tmp, sizeof(tmp), "%zu,%zu", count ? start + 1 : start, count);
	cli_buf_puts(out, tmp);
}

int cli_unified_diff(cli_buf *out, const char *lprefix, const char *rprefix,
                     const char *name, const char *a, size_t alen, const char *b,
                     size_t blen, bool *differs)
{
	line *la = NULL, *lb = NULL;
	size_t na = 0, nb = 0, nops = 0, pre = 0, suf = 0;
	char *ops = NULL;
	int rc;

	if (alen == blen && (alen == 0 || memcmp(a, b, alen) == 0))
		return 0;
	*differs = true;
	if ((rc = split_lines(&la, &na, a, alen)) || (rc = split_lines(&lb, &nb, b, blen)))
		goto out;
	while (pre < na && pre < nb && line_eq(&la[pre], &lb[pre]))
		pre++;
	while (suf < na - pre && suf < nb - pre &&
	       line_eq(&la[na - 1 - suf], &lb[nb - 1 - suf]))
		suf++;
	{
		char *mid = NULL;
		size_t nmid = 0;
		if ((rc = myers(&mid, &nmid, la + pre, na - pre - suf, lb + pre, nb - pre - suf)))
			goto out;
		ops = malloc(pre + nmid + suf + 1);
		if (!ops) {
			free(mid);
			rc = SMP_ENOMEM;
			goto out;
		}
		memset(ops, ' ', pre);
		if (nmid)
			memcpy(ops + pre, mid, nmid);
		memset(ops + pre + nmid, ' ', suf);
		nops = pre + nmid + suf;
		free(mid);
	}
	cli_buf_puts(out, "diff -u -N ");
	cli_buf_puts(out, lprefix);
	cli_buf_puts(out, name);
	cli_buf_putc(out, ' ');
	cli_buf_puts(out, rprefix);
	cli_buf_puts(out, name);
	cli_buf_puts(out, "\n--- ");
	cli_buf_puts(out, lprefix);
	cli_buf_puts(out, name);
	cli_buf_puts(out, "\n+++ ");
	cli_buf_puts(out, rprefix);
	cli_buf_puts(out, name);
	cli_buf_putc(out, '\n');
	{
		/* Hunks: changes with up to 3 lines of context, merged when the
		 * context between them is 6 lines or less. */
		size_t i = 0, ia = 0, ib = 0;
		while (i < nops) {
			size_t s, e, ctx, sa, sb, ca = 0, cb = 0, j, ja, jb;
			if (ops[i] == ' ') {
				i++, ia++, ib++;
				continue;
			}
			/* hunk start: up to 3 lines back */
			ctx = 0;
			s = i;
			sa = ia;
			sb = ib;
			while (s > 0 && ops[s - 1] == ' ' && ctx < 3)
				s--, sa--, sb--, ctx++;
			/* hunk end */
			e = i;
			for (;;) {
				size_t run = 0;
				while (e < nops && ops[e] != ' ')
					e++;
				while (e + run < nops && ops[e + run] == ' ')
					run++;
				if (e + run >= nops || run > 6) {
					e += run < 3 ? run : 3;
					break;
				}
				e += run;
			}
			for (j = s; j < e; j++) {
				if (ops[j] != '+')
					ca++;
				if (ops[j] != '-')
					cb++;
			}
			cli_buf_puts(out, "@@ -");
			put_range(out, sa, ca);
			cli_buf_puts(out, " +");
			put_range(out, sb, cb);
			cli_buf_puts(out, " @@\n");
			ja = sa;
			jb = sb;
			for (j = s; j < e; j++) {
				const line *l = ops[j] == '+' ? &lb[jb] : &la[ja];
				cli_buf_putc(out, ops[j]);
				cli_buf_put(out, l->p, l->n);
				cli_buf_putc(out, '\n');
				if (ops[j] != '+')
					ja++;
				if (ops[j] != '-')
					jb++;
			}
			i = e;
			ia = ja;
			ib = jb;
		}
	}
	if (out->oom)
		rc = SMP_ENOMEM;
out:
	free(la);
	free(lb);
	free(ops);
	return rc;
}
