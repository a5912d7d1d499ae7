/*
 * cmd_validate.c - `smpatch validate`: each object's verdict, as the API
 * server would answer kubectl apply's write of it (a create, or with
 * --live the patch of its live object): valid, invalid with the server's
 * Status, or skipped when no schema knows its kind. The run is apply's
 * (apply_run.c) over the library's client-side plan, which refuses what
 * `smpatch apply --dry-run=server` refuses (realserver.refusals checks
 * both against the server); the verdicts are printed by verdict.c.
 */
#include "apply_cli.h"

#include <stdio.h>
#include <string.h>

static const char help_text[] =
	"Usage: smpatch validate -f PATH [-f PATH...] [-R] [--live FILE|-]\n"
	"                        [-o text|json|junit] [-n NAMESPACE]\n"
	"                        [--openapi FILE | --schema CRD.yaml ...]\n"
	"\n"
	"Tells for each object of the configuration files whether the API server\n"
	"would accept kubectl apply's write of it, offline: its create, or with\n"
	"--live the patch of its live object; a refusal is reported with the\n"
	"Status the server answers. The refusals are those smpatch apply\n"
	"--dry-run=server predicts (docs/CLI.md lists them); a custom resource\n"
	"whose CRD is given with --schema is checked against the CRD's schema and\n"
	"its x-kubernetes-validations (CEL) rules; an object whose kind neither the\n"
	"built-in tables nor the schema files know is skipped, as kubeconform\n"
	"skips a resource without a schema.\n"
	"\n"
	"Options:\n"
	APPLY_HELP_FILES
	"      --live FILE|-      the live objects: an object that has one is checked\n"
	"                         as kubectl apply's patch of it (without, a create)\n"
	"  -o, --output FORMAT    text (default): one line per object, \"FILE - KIND\n"
	"                         NAME is valid\" (is invalid: MESSAGE, skipped: ...),\n"
	"                         then a summary line, as kubeconform prints them.\n"
	"                         json: one JSON object per line (file, line,\n"
	"                         apiVersion, kind, namespace, name, status valid,\n"
	"                         invalid or skipped, and refusal: the server's\n"
	"                         Status). junit: a JUnit XML report (a test case per\n"
	"                         object, failed with the Status, or skipped)\n"
	APPLY_HELP_PROGRESS
	"  -n, --namespace NS     namespace for namespaced objects that name none\n"
	"                         (default \"default\")\n"
	"      --openapi FILE     an OpenAPI v2/v3 document (custom resources)\n"
	"      --schema FILE      a CustomResourceDefinition; repeatable\n"
	"  -h, --help             show this help\n"
	"\n"
	"Exit codes: 0 every object valid or skipped; 1 an object invalid; 2 usage;\n"
	"3 unreadable or invalid input files (reported on standard error; the other\n"
	"objects are still judged); 5 internal error.\n";

/* Every option of `smpatch validate`, as the parser, --help and completion
 * read them. */
const cli_option cli_validate_options[] = {
	APPLY_OPTIONS_INPUT,
	{"output", 'o', CLI_ARG_VALUE, APPLY_OPT_OUTPUT, "text json junit", NULL},
	APPLY_OPTIONS_SCHEMA,
	{"no-progress", 0, CLI_ARG_BOOL, APPLY_OPT_NO_PROGRESS, NULL, NULL},
	{"jobs", 0, CLI_ARG_VALUE, APPLY_OPT_JOBS, NULL, NULL},
	{NULL, 0, 0, 0, NULL, NULL},
};

/* -o: text, json or junit into a->verdict; CLI_OK or CLI_USAGE (said). */
static int output(apply_cli_args *a, const char *val)
{
	static const char *const fmts[] = {"text", "json", "junit"};

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		if (strcmp(val, fmts[i]) == 0) {
			a->verdict = (apply_cli_verdict)(APPLY_VERDICT_TEXT + i);
			return CLI_OK;
		}
	return cli_usage("validate", "unknown output format '%s' (text, json, junit)", val);
}

int cmd_validate(int argc, char **argv)
{
	apply_cli_args a;
	cli_args p;
	int k, code;

	if ((code = apply_cli_args_init(&a, argc, SMP_PLAN_CLIENT_SIDE, "validate")) != CLI_OK)
		return code;
	a.verdict = APPLY_VERDICT_TEXT;
	/* the server's refusals without its stored form: the plan's
	 * validation makes the stored form its rules read, and decoding
	 * (quantities, base64, unknown fields) is field validation's; the
	 * stored form's managedFields would cost as much as the rest */
	a.server_dry_run = false;
	cli_args_init(&p, argc, argv, cli_validate_options);
	while (code == CLI_OK && !a.help && (k = cli_args_next(&p)) != CLI_ARGS_END)
		code = k == APPLY_OPT_OUTPUT ? output(&a, p.value) : apply_cli_take(&a, &p, k);
	if (code == CLI_OK && a.help) {
		fputs(help_text, stdout);
	} else if (code == CLI_OK && (code = apply_cli_check(&a)) == CLI_OK) {
		a.manager = NULL; /* client-side apply computes no managedFields */
		code = apply_cli_run(&a);
	}
	apply_cli_args_release(&a);
	return code;
}
