/*
 * cmd_replace.c - `smpatch replace`: what `kubectl replace` stores (a PUT
 * of each whole object) and how the field ownership changes
 * (smp_ssa_update); the run is apply's (apply_run.c), over the library's
 * plan in replace mode.
 */
#include "apply_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help_text[] =
	"Usage: smpatch replace [--field-manager NAME] -f PATH [-f PATH...] [-R]\n"
	"                       --live FILE|- [-o yaml|json|diff|name]\n"
	"                       [--show-managed-fields] [-n NAMESPACE]\n"
	"                       [--dry-run=none|client|server]\n"
	"                       [--openapi FILE | --schema CRD.yaml ...]\n"
	"\n"
	"Computes what `kubectl replace -f` does, offline: each object of the\n"
	"configuration files replaces its live object whole (a PUT), and the\n"
	"field manager becomes the owner (an Update entry of\n"
	"metadata.managedFields) of every field it added, changed or removed,\n"
	"taking it from the other managers, as the API server records it. The\n"
	"server keeps the live uid, creationTimestamp, generation, deletion\n"
	"fields and resourceVersion (it would then write the next version, which\n"
	"is not known here), and, for built-in kinds, the live status.\n"
	"\n"
	"Options:\n"
	"      --field-manager NAME  the manager recorded (default\n"
	"                         \"kubectl-replace\", as kubectl's)\n"
	APPLY_HELP_FILES
	"      --live FILE|-      the live objects, with their managedFields\n"
	"                         (kubectl get -o yaml --show-managed-fields)\n"
	"  -o, --output FORMAT    yaml, json: the stored objects (several as one\n"
	"                         `kind: List`), then, for each object the server\n"
	"                         refuses, the metav1.Status it answers.\n"
	"                         diff: a unified diff of each live object against\n"
	"                         the stored one; exit 1 when anything differs\n"
	"                         ($KUBECTL_EXTERNAL_DIFF: that program, as with\n"
	"                         smpatch apply -o diff).\n"
	"                         name: kind.group/name per object.\n"
	"                         Without -o: kubectl's status lines on standard\n"
	"                         output (deployment.apps/web replaced); with -o\n"
	"                         yaml or json they go to standard error.\n"
	APPLY_HELP_PROGRESS
	"      --color[=WHEN]     -o diff in colour: auto (default: on a terminal),\n"
	"                         always (--color alone) or never\n"
	"      --show-managed-fields  keep metadata.managedFields in the objects\n"
	"                         printed by -o yaml, json and diff\n"
	APPLY_HELP_SCOPE_DRY_RUN
	"\n"
	"The time written into the managedFields entries that change is the\n"
	"current time, or $SMPATCH_NOW (RFC 3339) when set.\n"
	"\n"
	"Exit codes: 0 success; 1 differences found (-o diff); 2 usage; 3 invalid\n"
	"input or a request the server rejects (no such live object: NotFound; a\n"
	"value of the wrong type, a missing key field); 4 a resourceVersion in the\n"
	"configuration other than the live one (Conflict: the object has been\n"
	"modified); 5 internal error. Each failing object is reported and left\n"
	"out; the others are still shown.\n";

/* Every option of `smpatch replace`, as the parser, --help and completion
 * read them. */
const cli_option cli_replace_options[] = {
	APPLY_OPTIONS_INPUT,
	{"output", 'o', CLI_ARG_VALUE, APPLY_OPT_OUTPUT, "yaml json diff name", NULL},
	{"show-managed-fields", 0, CLI_ARG_BOOL, APPLY_OPT_MANAGED, NULL, NULL},
	APPLY_OPTIONS_SCHEMA,
	{"field-manager", 0, CLI_ARG_VALUE, APPLY_OPT_FIELD_MANAGER, NULL, NULL},
	{"color", 0, CLI_ARG_OPTIONAL, APPLY_OPT_COLOR, "auto always never", "always"},
	APPLY_OPTIONS_RUN,
	{NULL, 0, 0, 0, NULL, NULL},
};

int cmd_replace(int argc, char **argv)
{
	apply_cli_args a;
	cli_args p;
	int k, code;

	if ((code = apply_cli_args_init(&a, argc, SMP_PLAN_REPLACE, "replace")) != CLI_OK)
		return code;
	a.color = isatty(STDOUT_FILENO); /* --color=auto */
	cli_args_init(&p, argc, argv, cli_replace_options);
	while (code == CLI_OK && !a.help && (k = cli_args_next(&p)) != CLI_ARGS_END)
		code = apply_cli_take(&a, &p, k);
	if (a.fmt == APPLY_OUT_DIFF && getenv("KUBECTL_EXTERNAL_DIFF") &&
	    *getenv("KUBECTL_EXTERNAL_DIFF"))
		a.external_diff = getenv("KUBECTL_EXTERNAL_DIFF");
	if (code == CLI_OK && a.help)
		fputs(help_text, stdout);
	else if (code == CLI_OK && !a.nfiles)
		code = cli_usage("replace", "%s", "must specify -f (a file, a directory or -)");
	else if (code == CLI_OK && !a.live_path)
		code = cli_usage("replace", "%s", "must specify --live (the objects to replace)");
	else if (code == CLI_OK && (code = apply_cli_check(&a)) == CLI_OK)
		code = apply_cli_run(&a);
	apply_cli_args_release(&a);
	return code;
}
