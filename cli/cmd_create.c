/*
 * cmd_create.c - `smpatch create`: what `kubectl create` stores (a POST of
 * each object, manager kubectl-create) and its field ownership
 * (smp_ssa_update of nothing); an object that exists is the server's
 * AlreadyExists. The run is apply's (apply_run.c), over the library's plan
 * in create mode.
 */
#include "apply_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help_text[] =
	"Usage: smpatch create [--field-manager NAME] -f PATH [-f PATH...] [-R]\n"
	"                      [--live FILE|-] [-o yaml|json|name]\n"
	"                      [--show-managed-fields] [-n NAMESPACE]\n"
	"                      [--dry-run=none|client|server]\n"
	"                      [--openapi FILE | --schema CRD.yaml ...]\n"
	"\n"
	"Computes what `kubectl create -f` does, offline: each object of the\n"
	"configuration files is created by a POST, as it is (no last-applied\n"
	"annotation), and the field manager becomes the owner of every field it\n"
	"set (an Update entry of metadata.managedFields), as the API server\n"
	"records it. An object that the live objects already hold is refused as\n"
	"the server refuses it (AlreadyExists); the server would also give the\n"
	"new object its uid, creationTimestamp and resourceVersion, which cannot\n"
	"be known here.\n"
	"\n"
	"Options:\n"
	"      --field-manager NAME  the manager recorded (default \"kubectl-create\",\n"
	"                         as kubectl's; empty: none is sent, and the server\n"
	"                         names the writer kubectl)\n"
	APPLY_HELP_FILES
	"      --live FILE|-      the objects that exist already (without it, none)\n"
	"  -o, --output FORMAT    yaml, json: the stored objects (several as one\n"
	"                         `kind: List`), then, for each object the server\n"
	"                         refuses, the metav1.Status it answers.\n"
	"                         name: kind.group/name per object.\n"
	"                         Without -o: kubectl's status lines on standard\n"
	"                         output (configmap/settings created); with -o\n"
	"                         yaml or json they go to standard error.\n"
	APPLY_HELP_PROGRESS
	"      --show-managed-fields  keep metadata.managedFields in the objects\n"
	"                         printed by -o yaml and json\n"
	APPLY_HELP_SCOPE_DRY_RUN
	"\n"
	"The time written into the managedFields entries is the current time, or\n"
	"$SMPATCH_NOW (RFC 3339) when set.\n"
	"\n"
	"Exit codes: 0 success; 2 usage; 3 invalid input or a request the server\n"
	"rejects (a value of the wrong type, a missing key field); 4 the object\n"
	"exists (AlreadyExists); 5 internal error. Each failing object is\n"
	"reported and left out; the others are still shown.\n";

/* Every option of `smpatch create`, as the parser, --help and completion
 * read them. */
const cli_option cli_create_options[] = {
	APPLY_OPTIONS_INPUT,
	{"output", 'o', CLI_ARG_VALUE, APPLY_OPT_OUTPUT, "yaml json name", NULL},
	{"show-managed-fields", 0, CLI_ARG_BOOL, APPLY_OPT_MANAGED, NULL, NULL},
	APPLY_OPTIONS_SCHEMA,
	{"field-manager", 0, CLI_ARG_VALUE, APPLY_OPT_FIELD_MANAGER, NULL, NULL},
	APPLY_OPTIONS_RUN,
	{NULL, 0, 0, 0, NULL, NULL},
};

int cmd_create(int argc, char **argv)
{
	apply_cli_args a;
	cli_args p;
	int k, code;

	if ((code = apply_cli_args_init(&a, argc, SMP_PLAN_CREATE, "create")) != CLI_OK)
		return code;
	cli_args_init(&p, argc, argv, cli_create_options);
	while (code == CLI_OK && !a.help && (k = cli_args_next(&p)) != CLI_ARGS_END)
		code = apply_cli_take(&a, &p, k);
	if (code == CLI_OK && a.help)
		fputs(help_text, stdout);
	else if (code == CLI_OK && (code = apply_cli_check(&a)) == CLI_OK)
		code = apply_cli_run(&a);
	apply_cli_args_release(&a);
	return code;
}
