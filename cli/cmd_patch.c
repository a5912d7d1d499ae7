/*
 * cmd_patch.c - `smpatch patch`: apply a strategic merge patch, a JSON merge
 * patch (RFC 7386) or a JSON Patch (RFC 6902) to one document and print the
 * result, as `kubectl patch --local` and the API server would. Also the
 * helpers `smpatch diff` shares (patch_cli.h).
 *
 * The result is built in memory and printed only when everything worked.
 */
#include "patch_cli.h"
#include "apply_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help_text[] =
	"Usage: smpatch patch [OPTIONS] TARGET PATCH\n"
	"\n"
	"Applies PATCH to the document TARGET and prints the result. Either file may\n"
	"be - for standard input (not both). PATCH holds one document. TARGET holds\n"
	"one document or several objects: a stream of documents, and lists (objects\n"
	"with items), whose items are patched, as `kubectl patch -f` does. The\n"
	"results are printed in order (YAML separated by ---); nothing is printed\n"
	"unless every object patched.\n"
	"\n"
	"Options:\n"
	"  -t, --type=TYPE        strategic (default), merge (RFC 7386 JSON merge\n"
	"                         patch) or json (RFC 6902 JSON Patch)\n"
	"      --openapi=FILE     schema for strategic patches: an OpenAPI v2 or v3\n"
	"                         document or a CRD manifest (default: the built-in\n"
	"                         Kubernetes tables), chosen by apiVersion/kind\n"
	PATCH_HELP_DEFINITION
	PATCH_HELP_OUTPUT
	"\n"
	"Exit codes: 0 ok, 2 usage, 3 invalid input or patch (the message names the\n"
	"field path), 5 internal error.\n";

const cli_option cli_patch_options[] = {
	{"type", 't', CLI_ARG_VALUE, PATCH_OPT_TYPE, "strategic merge json", NULL},
	PATCH_OPTIONS_SCHEMA,
	{"output", 'o', CLI_ARG_VALUE, PATCH_OPT_OUTPUT, "yaml json", NULL},
	{NULL, 0, 0, 0, NULL, NULL},
};

/* ---- shared with cmd_diff.c ---- */

int patch_cli_take(const cli_args *a, int c, const char *help, smp_patch_type *type,
                   patch_schema_opts *so, smp_output *output, const char **pos, size_t *npos)
{
	static const char *const types[] = {"strategic", "merge", "json"}; /* smp_patch_type */

	switch (c) {
	case PATCH_OPT_TYPE:
		/* the types the command's table offers (diff: no json) */
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if (strcmp(a->value, types[i]) == 0 && strstr(a->opt->values, types[i])) {
				*type = (smp_patch_type)i;
				return -1;
			}
		return cli_usage(a->argv[0], "unknown patch type '%s' (%s)", a->value,
		                 strstr(a->opt->values, "json") ? "strategic, merge or json"
		                                                : "strategic or merge");
	case PATCH_OPT_OPENAPI:
		so->openapi = a->value;
		return -1;
	case PATCH_OPT_DEFINITION:
		so->definition = a->value;
		return -1;
	case PATCH_OPT_OUTPUT: {
		int rc = cli_output_option(a->argv[0], a->value, output);

		return rc ? rc : -1;
	}
	default:
		return cli_args_other(a, c, help, pos, npos, 2);
	}
}

int patch_cli_err(smp_error *err, int code, const char *file, const char *fmt, ...)
{
	va_list ap;

	memset(err, 0, sizeof(*err));
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	if (file)
		snprintf(err->file, sizeof(err->file), "%s", strcmp(file, "-") ? file : "<stdin>");
	return code;
}

int patch_cli_load(smp_doc **docs, const smp_value **v, const char *const *paths, size_t n,
                   smp_error *err)
{
	int rc;

	memset(err, 0, sizeof(*err));
	for (size_t i = 0; i < n; i++)
		v[i] = NULL;
	if ((rc = cli_parse_files(docs, paths, n, err)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (!paths[i])
			continue;
		if ((rc = patch_cli_one(docs[i], &v[i], paths[i], err)))
			return rc;
	}
	return 0;
}

int patch_cli_one(const smp_doc *doc, const smp_value **v, const char *path, smp_error *err)
{
	*v = NULL;
	if (smp_doc_count(doc) > 1)
		return patch_cli_err(err, SMP_EPARSE, path,
		                     "the file holds %zu documents; give exactly one",
		                     smp_doc_count(doc));
	*v = smp_doc_root(doc, 0);
	return 0;
}

static const char *str_of(const smp_value *v)
{
	return smp_value_type(v) == SMP_STRING ? smp_value_string(v, NULL) : NULL;
}

int patch_cli_root(const smp_stype **out, patch_schema_opts *so, const smp_value *const *docs,
                   size_t ndocs, smp_error *err)
{
	const smp_schema *s = smp_schema_builtin();
	int rc;

	*out = NULL;
	if (!so->openapi && !so->definition) {
		/* The library looks the kind up in the built-in tables itself, and
		 * refuses kinds kubectl has no Go types for (CRDs, APIService). */
		(void)docs;
		(void)ndocs;
		return 0;
	}
	if (so->openapi) {
		if (!so->loaded && (rc = smp_schema_load_file(&so->loaded, so->openapi, err)))
			return rc;
		s = so->loaded;
	}
	if (so->definition) {
		rc = smp_schema_definition(out, s, so->definition, err);
		if (rc)
			return patch_cli_err(err, SMP_ESCHEMA, so->openapi,
			                     "no definition %s in %s", so->definition,
			                     so->openapi ? "the schema" : "the built-in tables");
		return 0;
	}
	for (size_t i = 0; i < ndocs; i++) {
		const char *av = str_of(smp_map_get(docs[i], "apiVersion"));
		const char *kind = str_of(smp_map_get(docs[i], "kind"));
		if (!av || !kind)
			continue;
		rc = smp_schema_kind(out, s, av, kind, err);
		if (rc)
			return patch_cli_err(err, SMP_ESCHEMA, so->openapi,
			                     "no strategic merge schema for %s %s in the schema", av,
			                     kind); /* cli_fail adds the --type merge hint */
		return 0;
	}
	return patch_cli_err(err, SMP_ESCHEMA, NULL,
	                     "a strategic merge patch needs the document's apiVersion and kind, or "
	                     "--openapi FILE --definition NAME; otherwise use --type merge");
}

void patch_schema_release(patch_schema_opts *so)
{
	smp_schema_free(so->loaded);
	so->loaded = NULL;
}

int patch_cli_render(char **buf, size_t *len, const smp_value *v, smp_output out,
                     bool sort_yaml, smp_error *err)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;

	po.output = out;
	po.sort_keys = out != SMP_OUT_YAML || sort_yaml;
	po.go_escape = out != SMP_OUT_YAML;
	return smp_print(buf, len, v, &po, err);
}

/* ---- smpatch patch ---- */

/* A TARGET of several objects, or lists: each object patched on its own,
 * like `kubectl patch -f`, which prints one result after the other. The
 * objects are read as `apply` reads its configurations (cli_inputs:
 * kubectl's list rule and metadata check). Unlike kubectl, which prints the
 * objects that patched and then fails, nothing is printed when one fails.
 * Takes ownership of tdoc. */
static int patch_many(smp_doc *tdoc, const char *tfile, const smp_value *patch,
                      const char *pfile, smp_patch_options *opts, patch_schema_opts *so,
                      smp_output output)
{
	const char *tname = strcmp(tfile, "-") ? tfile : "<stdin>";
	smp_doc **res = NULL;
	cli_inputs in;
	smp_error err;
	cli_buf b;
	size_t i;
	int rc = CLI_OK;

	cli_inputs_init(&in);
	cli_buf_init(&b);
	in.check_meta = true;
	memset(&err, 0, sizeof(err));
	if (cli_inputs_add_doc(&in, tdoc, tname, true, &err)) {
		rc = cli_fail(&err);
		goto out;
	}
	if (in.n == 0) {
		patch_cli_err(&err, SMP_EINVALOBJ, tfile, "no objects passed to patch");
		rc = cli_fail(&err);
		goto out;
	}
	if (!(res = calloc(in.n, sizeof(*res)))) {
		patch_cli_err(&err, SMP_ENOMEM, NULL, "out of memory");
		rc = cli_fail(&err);
		goto out;
	}
	for (i = 0; i < in.n; i++) {
		const cli_obj *o = &in.items[i];
		char ref[512];

		if (o->meta_err) {
			rc = cli_fail_meta(o);
			goto out;
		}
		memset(&err, 0, sizeof(err));
		if (opts->type == SMP_PATCH_STRATEGIC &&
		    patch_cli_root(&opts->stype, so, &o->v, 1, &err)) {
			rc = cli_fail(&err);
			goto out;
		}
		if (smp_patch_apply(&res[i], o->v, patch, opts, &err)) {
			smp_apply_object_ref(ref, sizeof(ref), o->v);
			if (ref[0])
				cli_err_prefix(&err, ref);
			if (!err.file[0] && err.code == SMP_EPATCH)
				snprintf(err.file, sizeof(err.file), "%s",
				         strcmp(pfile, "-") ? pfile : "<stdin>");
			rc = cli_fail_at(&err, o);
			goto out;
		}
	}
	for (i = 0; i < in.n; i++) {
		if (i && output == SMP_OUT_YAML)
			cli_buf_puts(&b, "---\n");
		if (cli_buf_value(&b, smp_doc_root(res[i], 0), output, output != SMP_OUT_YAML,
		                  &err)) {
			if (err.code == SMP_EINVAL)
				err.code = SMP_EPARSE;
			rc = cli_fail(&err);
			goto out;
		}
	}
	if (b.oom) {
		patch_cli_err(&err, SMP_ENOMEM, NULL, "out of memory");
		rc = cli_fail(&err);
	} else if (!cli_write(b.ptr ? b.ptr : "", b.len)) {
		rc = CLI_INTERNAL;
	}
out:
	if (res)
		for (i = 0; i < in.n; i++)
			smp_doc_free(res[i]);
	free(res);
	cli_buf_release(&b);
	cli_inputs_release(&in);
	return rc;
}

int cmd_patch(int argc, char **argv)
{
	patch_schema_opts so = {NULL, NULL, NULL};
	smp_patch_options opts = SMP_PATCH_OPTIONS_INIT;
	smp_output output = SMP_OUT_YAML;
	smp_doc *tdoc = NULL, *pdoc = NULL, *res = NULL;
	const smp_value *target, *patch;
	const char *pos[2] = {NULL, NULL}, *tfile, *pfile;
	size_t npos = 0;
	smp_error err;
	cli_args a;
	int c, rc = CLI_OK;

	cli_args_init(&a, argc, argv, cli_patch_options);
	while ((c = cli_args_next(&a)) != CLI_ARGS_END)
		if ((rc = patch_cli_take(&a, c, help_text, &opts.type, &so, &output, pos, &npos)) >= 0)
			return rc;
	rc = CLI_OK;
	tfile = pos[0];
	pfile = pos[1];
	if (!pfile)
		return cli_usage(argv[0], "missing TARGET and PATCH files");
	if (strcmp(tfile, "-") == 0 && strcmp(pfile, "-") == 0)
		return cli_usage(argv[0], "only one of TARGET and PATCH can be standard input");
	memset(&err, 0, sizeof(err));
	{
		const char *files[2] = {tfile, pfile};
		smp_doc *docs[2];
		c = cli_parse_files(docs, files, 2, &err);
		tdoc = docs[0];
		pdoc = docs[1];
	}
	if (c || patch_cli_one(pdoc, &patch, pfile, &err)) {
		rc = cli_fail(&err);
		goto out;
	}
	target = smp_doc_root(tdoc, 0);
	const smp_value *titems;
	if (smp_doc_count(tdoc) != 1 || smp_apply_list_items(target, &titems)) {
		smp_doc *t = tdoc;
		tdoc = NULL;
		rc = patch_many(t, tfile, patch, pfile, &opts, &so, output);
		goto out;
	}
	/* kubectl reads the target into its Go type first (the patched
	 * object it prints is not checked again). */
	if (smp_value_type(target) == SMP_MAP && smp_object_validate_meta(target, &err)) {
		if (!err.file[0])
			snprintf(err.file, sizeof(err.file), "%s", strcmp(tfile, "-") ? tfile : "<stdin>");
		rc = cli_fail(&err);
		goto out;
	}
	if (opts.type == SMP_PATCH_STRATEGIC) {
		const smp_value *docs[2] = {target, patch};
		if (patch_cli_root(&opts.stype, &so, docs, 2, &err)) {
			rc = cli_fail(&err);
			goto out;
		}
	}
	memset(&err, 0, sizeof(err));
	/* The target document is not needed afterwards: patch it in place
	 * (no copy), and drop the patch before rendering (peak memory). */
	res = tdoc;
	tdoc = NULL;
	target = NULL;
	c = smp_patch_apply_doc(&res, patch, &opts, &err);
	smp_doc_free(pdoc);
	pdoc = NULL;
	patch = NULL;
	if (c) {
		if (!err.file[0] && err.code == SMP_EPATCH)
			snprintf(err.file, sizeof(err.file), "%s", strcmp(pfile, "-") ? pfile : "<stdin>");
		rc = cli_fail(&err);
		goto out;
	}
	/* Streamed: the output (26 MB for a 12 MB object) is never held whole.
	 * A tree that cannot be printed fails before the first byte. */
	c = cli_stream_value(smp_doc_root(res, 0), output, output != SMP_OUT_YAML, &err);
	if (c == SMP_EIO) {
		rc = CLI_INTERNAL;
	} else if (c) {
		if (err.code == SMP_EINVAL)
			err.code = SMP_EPARSE;
		rc = cli_fail(&err);
	}
out:
	smp_doc_free(res);
	smp_doc_free(tdoc);
	smp_doc_free(pdoc);
	patch_schema_release(&so);
	return rc;
}
