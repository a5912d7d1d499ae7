/*
 * cmd_last_applied.c - `smpatch last-applied view|set`: kubectl apply
 * view-last-applied / set-last-applied, on files instead of a cluster.
 */
#include "cli.h"
#include "apply_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help_text[] =
	"Usage: smpatch last-applied view -f FILE [--live FILE|-] [-o yaml|json]\n"
	"       smpatch last-applied set -f FILE [--live FILE|-] [--create-annotation]\n"
	"                                [-n NAMESPACE] [-o yaml|json]\n"
	"\n"
	"view: prints the kubectl.kubernetes.io/last-applied-configuration annotation\n"
	"of objects, like kubectl apply view-last-applied. Without --live the objects\n"
	"of FILE are the live objects; with --live, FILE names the objects (by API\n"
	"group, kind, namespace and name) and their live versions are read from\n"
	"--live. -o yaml (default) converts the annotation to YAML; -o json prints\n"
	"its JSON indented by two spaces, as kubectl does.\n"
	"\n"
	"set: sets the annotation of the live objects to the configurations of\n"
	"FILE, without changing anything else, and prints the updated objects, like\n"
	"kubectl apply set-last-applied (which stores the configuration as read,\n"
	"namespace filled in, without the \"annotations\":{} that apply adds).\n"
	"A live object without the annotation is an error unless\n"
	"--create-annotation is given. Without --live the configurations\n"
	"themselves get the annotation (like kubectl create --save-config).\n"
	"Status lines (deployment.apps/nginx configured) go to standard error.\n"
	"\n"
	"Options:\n"
	"  -f, --filename FILE   objects: a file, a directory (.yaml, .yml, .json)\n"
	"                        or - for standard input; repeatable. Lists expand.\n"
	"  -R, --recursive       descend into subdirectories\n"
	"      --live FILE|-     the live objects (a stream or a List)\n"
	"      --create-annotation  (set) create the annotation where it is missing\n"
	"  -n, --namespace NS    namespace for namespaced objects naming none\n"
	"                        (default \"default\")\n"
	"  -o, --output FORMAT   yaml (default) or json\n"
	"      --show-managed-fields  (set) keep metadata.managedFields in the\n"
	"                        objects printed (left out by default, as kubectl)\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit codes: 0 success, 2 usage, 3 invalid input (no annotation, object\n"
	"missing from --live, unreadable files), 5 internal error.\n";

enum {
	OPT_FILENAME = 1, OPT_RECURSIVE, OPT_LIVE, OPT_CREATE, OPT_NAMESPACE, OPT_OUTPUT,
	OPT_MANAGED
};

const cli_option cli_last_applied_options[] = {
	{"filename", 'f', CLI_ARG_VALUE, OPT_FILENAME, "@file", NULL},
	{"recursive", 'R', CLI_ARG_BOOL, OPT_RECURSIVE, NULL, NULL},
	{"live", 0, CLI_ARG_VALUE, OPT_LIVE, "@file", NULL},
	{"create-annotation", 0, CLI_ARG_BOOL, OPT_CREATE, NULL, NULL},
	{"namespace", 'n', CLI_ARG_VALUE, OPT_NAMESPACE, NULL, NULL},
	{"output", 'o', CLI_ARG_VALUE, OPT_OUTPUT, "yaml json", NULL},
	{"show-managed-fields", 0, CLI_ARG_BOOL, OPT_MANAGED, NULL, NULL},
	{NULL, 0, 0, 0, NULL, NULL},
};

/* json.Indent(dst, src, "", "  ") of a valid JSON text. */
static void indent_json(cli_buf *out, const char *s, size_t n)
{
	size_t depth = 0, i = 0;
	bool need_indent = false;

	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	for (; i < n; i++) {
		char c = s[i];
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			/* Outside strings: dropped, except trailing space at the end. */
			size_t j = i;
			while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\n'))
				j++;
			if (j == n) {
				cli_buf_put(out, s + i, n - i);
				return;
			}
			continue;
		}
		if (need_indent && c != ']' && c != '}') {
			need_indent = false;
			cli_buf_putc(out, '\n');
			for (size_t k = 0; k < depth; k++)
				cli_buf_puts(out, "  ");
		}
		if (c == '"') {
			size_t j = i + 1;
			while (j < n && s[j] != '"')
				j += s[j] == '\\' ? 2 : 1;
			cli_buf_put(out, s + i, (j < n ? j + 1 : n) - i);
			i = j;
			continue;
		}
		switch (c) {
		case '{':
		case '[':
			cli_buf_putc(out, c);
			need_indent = true;
			depth++;
			break;
		case ',':
			cli_buf_putc(out, c);
			cli_buf_putc(out, '\n');
			for (size_t k = 0; k < depth; k++)
				cli_buf_puts(out, "  ");
			break;
		case ':':
			cli_buf_puts(out, ": ");
			break;
		case '}':
		case ']':
			if (depth)
				depth--;
			if (need_indent) {
				/* empty {} or [] stay compact */
				need_indent = false;
			} else {
				cli_buf_putc(out, '\n');
				for (size_t k = 0; k < depth; k++)
					cli_buf_puts(out, "  ");
			}
			cli_buf_putc(out, c);
			break;
		default:
			cli_buf_putc(out, c);
		}
	}
}

/* kubectl's refusal of an object without the annotation: it names the
 * object by its name alone (info.Name). */
static int no_annotation(const cli_obj *o, const smp_value *obj, bool hint)
{
	smp_error e;
	const char *name = smp_value_string(smp_value_at(obj, "metadata.name"), NULL);

	memset(&e, 0, sizeof(e));
	e.code = SMP_EINVALOBJ;
	snprintf(e.message, sizeof(e.message),
	         "no last-applied-configuration annotation found on resource: %s%s",
	         name ? name : "",
	         hint ? ", to create the annotation, run the command with "
	                "--create-annotation" : "");
	return cli_fail_at(&e, o);
}

static int not_found(const cli_obj *o)
{
	smp_error e;
	char ref[512];

	memset(&e, 0, sizeof(e));
	e.code = SMP_EINVALOBJ;
	smp_apply_object_ref(ref, sizeof(ref), o->v);
	snprintf(e.message, sizeof(e.message), "%s: not found in the live objects", ref);
	return cli_fail_at(&e, o);
}

/* apply's wording (smp_apply_object) for an object in another namespace. */
static int ns_mismatch(smp_error *err, const char *ref, const char *own, const char *want)
{
	cli_buf b;

	memset(err, 0, sizeof(*err));
	err->code = SMP_EINVALOBJ;
	cli_buf_init(&b);
	cli_buf_puts(&b, ref);
	cli_buf_puts(&b, ": the namespace from the provided object \"");
	cli_buf_puts(&b, own);
	cli_buf_puts(&b, "\" does not match the namespace \"");
	cli_buf_puts(&b, want);
	cli_buf_puts(&b, "\""); /* cli_fail adds "You must pass '--namespace=...'" */
	if (b.oom || !b.ptr) {
		err->code = SMP_ENOMEM;
		snprintf(err->message, sizeof(err->message), "out of memory");
	} else {
		size_t n = b.len < sizeof(err->message) - 1 ? b.len : sizeof(err->message) - 1;
		memcpy(err->message, b.ptr, n);
		err->message[n] = '\0';
	}
	cli_buf_release(&b);
	return err->code;
}

/* kubectl apply set-last-applied for one object: the patch that sets
 * its annotation to the configuration, and what it prints (the object or
 * the status line). */
static int set_one(cli_buf *out, cli_buf *status, const cli_obj *c, const smp_value *target,
                   const smp_apply_options *ao, bool json, bool first, unsigned dflags,
                   smp_error *err)
{
	smp_doc *pdoc = NULL, *odoc = NULL, *shown = NULL;
	smp_patch_options po = SMP_PATCH_OPTIONS_INIT;
	const char *ns = smp_apply_namespace(c->v, ao);
	const char *own = cli_str_at(smp_map_get(c->v, "metadata"), "namespace");
	char *enc = NULL;
	cli_buf patch;
	char ref[512];
	int rc;

	cli_buf_init(&patch);
	/* As the builder of kubectl with an explicit -n: another namespace is
	 * an error. */
	if (ao->enforce_namespace && *ns && own && *own && ao->default_namespace &&
	    strcmp(own, ao->default_namespace) != 0) {
		smp_apply_object_ref(ref, sizeof(ref), c->v);
		rc = ns_mismatch(err, ref, own, ao->default_namespace);
		goto out;
	}
	/* The annotation as set-last-applied writes it (editor.GetApplyPatch):
	 * the configuration as read, namespace defaulted, nothing added. */
	if ((rc = smp_set_last_applied_encode(&enc, NULL, c->v, ns, err)))
		goto out;
	cli_buf_puts(&patch, "{\"metadata\":{\"annotations\":{\"" SMP_LAST_APPLIED_ANNOTATION
	             "\":");
	cli_json_string(&patch, enc);
	cli_buf_puts(&patch, "}}}");
	if (patch.oom) {
		rc = SMP_ENOMEM;
		goto out;
	}
	po.type = SMP_PATCH_MERGE;
	if ((rc = smp_doc_parse(&pdoc, patch.ptr, patch.len, NULL, err)) ||
	    (rc = smp_patch_apply(&odoc, target, smp_doc_root(pdoc, 0), &po, err)))
		goto out;
	if (!json && !first)
		cli_buf_puts(out, "---\n");
	/* managedFields left out unless --show-managed-fields, as kubectl's printer */
	if ((rc = smp_display_objects(NULL, &shown, NULL, smp_doc_root(odoc, 0), dflags, err)))
		goto out;
	rc = cli_buf_value(out, smp_doc_root(shown, 0), json ? SMP_OUT_JSON_INDENT : SMP_OUT_YAML,
	                   true, err);
	smp_apply_object_ref(ref, sizeof(ref), smp_doc_root(odoc, 0));
	cli_buf_puts(status, ref);
	cli_buf_puts(status, " configured\n");
out:
	cli_buf_release(&patch);
	smp_doc_free(pdoc);
	smp_doc_free(odoc);
	smp_doc_free(shown);
	smp_free(enc);
	return rc;
}

/* `view`: the annotation `la` of `target` (c's live object, or c), as
 * indented JSON or YAML (a "---" before all but the first). */
static int view_one(cli_buf *out, const cli_obj *c, const smp_value *target, const char *la,
                    bool json, bool first)
{
	smp_parse_options pp = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc = NULL;
	smp_error err;
	int code = CLI_OK;

	if (!la)
		return no_annotation(c, target, false);
	if (json) {
		indent_json(out, la, strlen(la));
		return CLI_OK;
	}
	pp.format = SMP_FORMAT_JSON;
	pp.filename = SMP_LAST_APPLIED_ANNOTATION;
	if (!first)
		cli_buf_puts(out, "---\n");
	if (smp_doc_parse(&doc, la, strlen(la), &pp, &err) ||
	    cli_buf_value(out, smp_doc_root(doc, 0), SMP_OUT_YAML, true, &err))
		code = cli_fail_at(&err, c);
	smp_doc_free(doc);
	return code;
}

int cmd_last_applied(int argc, char **argv)
{
	cli_inputs objs, lives;
	cli_index index;
	smp_apply_options ao = SMP_APPLY_OPTIONS_INIT;
	const char **files = NULL;
	size_t nfiles = 0;
	const char *live_path = NULL, *mode = NULL;
	bool recursive = false, create = false, json = false, managed = false;
	cli_buf out, status;
	smp_error err;
	cli_args a;
	int code = CLI_OK, rc, k;

	cli_inputs_init(&objs);
	cli_inputs_init(&lives);
	cli_index_init(&index);
	cli_buf_init(&out);
	cli_buf_init(&status);
	files = calloc((size_t)argc + 1, sizeof(*files));
	if (!files) {
		fprintf(stderr, "smpatch last-applied: out of memory\n");
		code = CLI_INTERNAL;
		goto out;
	}
	cli_args_init(&a, argc, argv, cli_last_applied_options);
	while ((k = cli_args_next(&a)) != CLI_ARGS_END) {
		switch (k) {
		case CLI_ARGS_POSITIONAL:
			if (!mode && (strcmp(a.value, "view") == 0 || strcmp(a.value, "set") == 0)) {
				mode = a.value;
				break;
			}
			code = cli_usage("last-applied", "unexpected argument '%s'", a.value);
			goto out;
		case CLI_ARGS_HELP:
			fputs(help_text, stdout);
			goto out;
		case OPT_RECURSIVE:
			recursive = a.on;
			break;
		case OPT_MANAGED:
			managed = a.on;
			break;
		case OPT_CREATE:
			create = a.on;
			break;
		case OPT_FILENAME:
			files[nfiles++] = a.value;
			break;
		case OPT_LIVE:
			live_path = a.value;
			break;
		case OPT_NAMESPACE:
			ao.default_namespace = a.value;
			ao.enforce_namespace = true;
			break;
		case OPT_OUTPUT:
			if (strcmp(a.value, "json") == 0) {
				json = true;
			} else if (strcmp(a.value, "yaml") == 0) {
				json = false;
			} else {
				code = cli_usage("last-applied", "unknown output format '%s' (yaml, "
				                 "json)", a.value);
				goto out;
			}
			break;
		default:
			code = CLI_USAGE;
			goto out;
		}
	}
	if (!mode) {
		code = cli_usage("last-applied", "%s", "expected 'view' or 'set'");
		goto out;
	}
	if (!nfiles) {
		code = cli_usage("last-applied", "%s", "must specify -f FILE");
		goto out;
	}
	objs.check_meta = true; /* as kubectl decodes -f files */
	for (size_t i = 0; i < nfiles; i++)
		if ((rc = cli_inputs_add_path(&objs, files[i], recursive, true, &err))) {
			code = cli_fail(&err);
			goto out;
		}
	if (live_path) {
		if ((rc = cli_inputs_add_path(&lives, live_path, false, true, &err))) {
			code = cli_fail(&err);
			goto out;
		}
		if (cli_index_build(&index, &lives, 0, &ao)) {
			fprintf(stderr, "smpatch last-applied: out of memory\n");
			code = CLI_INTERNAL;
			goto out;
		}
	}
	for (size_t i = 0; i < objs.n; i++) {
		const cli_obj *c = &objs.items[i];
		const smp_value *target = c->v;
		const char *la;

		if (c->meta_err) {
			code = cli_fail_meta(c);
			goto out;
		}
		if (live_path) {
			ptrdiff_t li = cli_index_find(&index, &lives, c->v, &ao);
			if (li < 0) {
				code = not_found(c);
				goto out;
			}
			target = lives.items[li].v;
		}
		la = cli_str_at(smp_map_get(smp_map_get(target, "metadata"), "annotations"),
		                SMP_LAST_APPLIED_ANNOTATION);
		if (strcmp(mode, "view") == 0) {
			if ((code = view_one(&out, c, target, la, json, i == 0)) != CLI_OK)
				goto out;
		} else {
			if (live_path && !la && !create) {
				code = no_annotation(c, target, true);
				goto out;
			}
			if ((rc = set_one(&out, &status, c, target, &ao, json, i == 0,
			                  managed ? SMP_DISPLAY_MANAGED_FIELDS : 0, &err))) {
				code = cli_fail_at(&err, c);
				goto out;
			}
		}
	}
	if (out.oom || status.oom) {
		fprintf(stderr, "smpatch last-applied: out of memory\n");
		code = CLI_INTERNAL;
		goto out;
	}
	fwrite(status.ptr ? status.ptr : "", 1, status.len, stderr);
	if (!cli_write(out.ptr ? out.ptr : "", out.len))
		code = CLI_INTERNAL;
out:
	free(files);
	cli_index_release(&index);
	cli_inputs_release(&objs);
	cli_inputs_release(&lives);
	cli_buf_release(&out);
	cli_buf_release(&status);
	return code;
}
