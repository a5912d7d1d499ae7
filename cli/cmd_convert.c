/*
 * cmd_convert.c - `smpatch convert`: read YAML or JSON, print JSON or YAML.
 *
 * All output is built in memory first and written only when every
 * document converted, so a bad document never leaves partial output.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help_text[] =
	"Usage: smpatch convert [-o json|yaml] [--sort-keys] FILE|-\n"
	"\n"
	"Reads a stream of YAML or JSON documents (FILE, or standard input for -)\n"
	"the way kubectl reads them, and prints each document again: YAML\n"
	"documents are separated by '---', JSON documents are indented like\n"
	"kubectl -o json. Empty YAML documents are skipped.\n"
	"\n"
	"Options:\n"
	"  -o, --output=FORMAT  yaml (default) or json\n"
	"      --sort-keys      sort map keys (JSON output of kubectl is sorted)\n"
	"  -h, --help           show this help\n"
	"\n"
	"Exit codes: 0 ok, 2 usage, 3 invalid input, 5 internal error.\n";

enum { OPT_OUTPUT = 1, OPT_SORT_KEYS };

const cli_option cli_convert_options[] = {
	{"output", 'o', CLI_ARG_VALUE, OPT_OUTPUT, "yaml json", NULL},
	{"sort-keys", 0, CLI_ARG_BOOL, OPT_SORT_KEYS, NULL, NULL},
	{NULL, 0, 0, 0, NULL, NULL},
};

/* Reports a failed print. The only argument a printer refuses is a value
 * JSON cannot hold (NaN, Inf): invalid input, as kubectl treats it. */
static int print_failed(int prc, smp_error *err, const char *file)
{
	if (prc == SMP_EINVAL)
		err->code = SMP_EPARSE;
	if (!err->file[0])
		snprintf(err->file, sizeof(err->file), "%s", strcmp(file, "-") == 0 ? "<stdin>" : file);
	return cli_fail(err);
}

int cmd_convert(int argc, char **argv)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	smp_error err;
	smp_doc *doc = NULL;
	char **texts = NULL;
	size_t *lens = NULL, ntexts = 0;
	const char *pos[1] = {NULL}, *file;
	size_t npos = 0;
	cli_args a;
	int c, rc = CLI_OK;

	po.output = SMP_OUT_YAML;
	cli_args_init(&a, argc, argv, cli_convert_options);
	while ((c = cli_args_next(&a)) != CLI_ARGS_END) {
		switch (c) {
		case OPT_OUTPUT:
			if ((rc = cli_output_option(argv[0], a.value, &po.output)))
				return rc;
			break;
		case OPT_SORT_KEYS:
			po.sort_keys = a.on;
			break;
		default:
			if ((rc = cli_args_other(&a, c, help_text, pos, &npos, 1)) >= 0)
				return rc;
		}
	}
	file = pos[0];
	rc = CLI_OK;
	if (!file)
		return cli_usage(argv[0], "missing FILE (use - for standard input)");
	/* kubectl -o json escapes <, > and & the way Go's json.Marshal does. */
	po.go_escape = po.output != SMP_OUT_YAML;

	memset(&err, 0, sizeof(err));
	int prc = cli_parse_file(&doc, file, &err);
	if (prc) {
		rc = cli_fail(&err);
		goto out;
	}
	if (smp_doc_count(doc) == 1) {
		/* One document: streamed (a tree that cannot be printed fails
		 * before the first byte). */
		prc = cli_stream_value(smp_doc_root(doc, 0), po.output, po.sort_keys, &err);
		rc = prc == SMP_EIO ? CLI_INTERNAL : prc ? print_failed(prc, &err, file) : rc;
		goto out;
	}
	/* Several: every document is printed before anything is written. */
	ntexts = smp_doc_count(doc);
	texts = calloc(ntexts ? ntexts : 1, sizeof(*texts));
	lens = calloc(ntexts ? ntexts : 1, sizeof(*lens));
	if (!texts || !lens) {
		fprintf(stderr, "smpatch: error: out of memory\n");
		rc = CLI_INTERNAL;
		goto out;
	}
	for (size_t i = 0; i < ntexts; i++) {
		prc = smp_print(&texts[i], &lens[i], smp_doc_root(doc, i), &po, &err);
		if (prc) {
			rc = print_failed(prc, &err, file);
			goto out;
		}
	}
	/* The document is no longer needed: give its memory back first. */
	smp_doc_free(doc);
	doc = NULL;
	for (size_t i = 0; i < ntexts && rc == CLI_OK; i++) {
		if (po.output == SMP_OUT_YAML && i > 0 && !cli_write("---\n", 4))
			rc = CLI_INTERNAL;
		else if (!cli_write(texts[i], lens[i]))
			rc = CLI_INTERNAL;
	}
out:
	for (size_t i = 0; texts && i < ntexts; i++)
		smp_free(texts[i]);
	free(texts);
	free(lens);
	smp_doc_free(doc);
	return rc;
}
