/*
 * cmd_diff.c - `smpatch diff`: the patch from ORIGINAL to MODIFIED (two-way),
 * or, with --current, the patch kubectl apply sends (three-way), as a
 * strategic merge patch or an RFC 7386 JSON merge patch.
 */
#include "patch_cli.h"

#include <stdio.h>
#include <string.h>

static const char help_text[] =
	"Usage: smpatch diff [OPTIONS] ORIGINAL MODIFIED\n"
	"       smpatch diff [OPTIONS] --current CURRENT [--overwrite=false] ORIGINAL MODIFIED\n"
	"\n"
	"Prints the patch that turns ORIGINAL into MODIFIED. With --current it prints\n"
	"the three-way patch kubectl apply computes: ORIGINAL is the last-applied\n"
	"configuration, MODIFIED the new configuration, CURRENT the live object;\n"
	"fields set only on the live object are kept, fields dropped from the\n"
	"configuration are deleted. A file may be - for standard input (one of them).\n"
	"An empty file stands for {}.\n"
	"\n"
	"Options:\n"
	"  -t, --type=TYPE        strategic (default; needs a schema) or merge\n"
	"                         (RFC 7386 JSON merge patch)\n"
	"      --current=FILE     the live object: compute a three-way patch\n"
	"      --overwrite=BOOL   three-way: false fails (exit 4) when the patch would\n"
	"                         undo a change made to the live object (default true)\n"
	"      --openapi=FILE     schema: an OpenAPI v2 or v3 document or a CRD\n"
	"                         manifest (default: the built-in Kubernetes tables),\n"
	"                         chosen by apiVersion/kind\n"
	PATCH_HELP_DEFINITION
	"      --exit-code        exit 1 when the patch is not empty\n"
	PATCH_HELP_OUTPUT
	"\n"
	"Exit codes: 0 ok (also when the patch is empty), 1 with --exit-code when it\n"
	"is not, 2 usage, 3 invalid input, 4 conflict or failed precondition (apiVersion,\n"
	"kind or metadata.name changed), 5 internal error.\n";

const cli_option cli_diff_options[] = {
	{"type", 't', CLI_ARG_VALUE, PATCH_OPT_TYPE, "strategic merge", NULL},
	{"current", 0, CLI_ARG_VALUE, PATCH_OPT_CURRENT, "@file", NULL},
	{"overwrite", 0, CLI_ARG_BOOL, PATCH_OPT_OVERWRITE, NULL, NULL},
	PATCH_OPTIONS_SCHEMA,
	{"exit-code", 0, CLI_ARG_BOOL, PATCH_OPT_EXIT_CODE, NULL, NULL},
	{"output", 'o', CLI_ARG_VALUE, PATCH_OPT_OUTPUT, "yaml json", NULL},
	{NULL, 0, 0, 0, NULL, NULL},
};

int cmd_diff(int argc, char **argv)
{
	patch_schema_opts so = {NULL, NULL, NULL};
	smp_patch_options opts = SMP_PATCH_OPTIONS_INIT;
	smp_output output = SMP_OUT_YAML;
	smp_doc *odoc = NULL, *mdoc = NULL, *cdoc = NULL, *res = NULL;
	const smp_value *orig = NULL, *mod = NULL, *cur = NULL, *patch;
	const char *cfile = NULL;
	bool exit_code = false, overwrite_given = false;
	smp_error err;
	char *text = NULL;
	size_t len = 0;
	const char *pos[2];
	size_t npos = 0;
	int c, rc = CLI_OK, stdin_uses = 0;
	cli_args a;

	cli_args_init(&a, argc, argv, cli_diff_options);
	while ((c = cli_args_next(&a)) != CLI_ARGS_END) {
		switch (c) {
		case PATCH_OPT_CURRENT:
			cfile = a.value;
			break;
		case PATCH_OPT_OVERWRITE:
			opts.overwrite = a.on;
			overwrite_given = true;
			break;
		case PATCH_OPT_EXIT_CODE:
			exit_code = a.on;
			break;
		default:
			if ((rc = patch_cli_take(&a, c, help_text, &opts.type, &so, &output, pos,
			                         &npos)) >= 0)
				return rc;
		}
	}
	rc = CLI_OK;
	if (npos != 2)
		return cli_usage(argv[0], "missing ORIGINAL and MODIFIED files");
	if (overwrite_given && !cfile)
		return cli_usage(argv[0], "--overwrite needs --current (it is a three-way option)");
	stdin_uses = !strcmp(pos[0], "-") + !strcmp(pos[1], "-") +
	             (cfile && !strcmp(cfile, "-"));
	if (stdin_uses > 1)
		return cli_usage(argv[0], "only one file can be standard input");
	{
		const char *files[3] = {pos[0], pos[1], cfile};
		smp_doc *docs[3] = {NULL, NULL, NULL};
		const smp_value *roots[3] = {NULL, NULL, NULL};
		c = patch_cli_load(docs, roots, files, cfile ? 3 : 2, &err);
		odoc = docs[0];
		mdoc = docs[1];
		cdoc = docs[2];
		orig = roots[0];
		mod = roots[1];
		cur = cfile ? roots[2] : NULL;
	}
	if (c) {
		rc = cli_fail(&err);
		goto out;
	}
	if (opts.type == SMP_PATCH_STRATEGIC) {
		const smp_value *docs[3] = {mod, cur, orig};
		if (patch_cli_root(&opts.stype, &so, docs, 3, &err)) {
			rc = cli_fail(&err);
			goto out;
		}
	}
	memset(&err, 0, sizeof(err));
	if (cfile)
		rc = smp_diff_three_way(&res, orig, mod, cur, &opts, &err);
	else
		rc = smp_diff_two_way(&res, orig, mod, &opts, &err);
	if (rc) {
		rc = cli_fail(&err);
		goto out;
	}
	patch = smp_doc_root(res, 0);
	if (patch_cli_render(&text, &len, patch, output, true, &err)) {
		rc = cli_fail(&err);
		goto out;
	}
	if (!cli_write(text, len))
		rc = CLI_INTERNAL;
	else if (exit_code && !smp_patch_is_empty(patch))
		rc = CLI_DIFF;
out:
	smp_free(text);
	smp_doc_free(res);
	smp_doc_free(odoc);
	smp_doc_free(mdoc);
	smp_doc_free(cdoc);
	patch_schema_release(&so);
	return rc;
}
