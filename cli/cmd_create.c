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
	"  -f, --filename PATH    configuration: a file, a directory (its .yaml, .yml\n"
	"                         and .json files, in name order) or - for standard\n"
	"                         input; repeatable; streams and Lists are expanded\n"
	"  -R, --recursive        descend into subdirectories of directories given\n"
	"                         with -f\n"
	"      --live FILE|-      the objects that exist already (without it, none)\n"
	"  -o, --output FORMAT    yaml, json: the stored objects (several as one\n"
	"                         `kind: List`), then, for each object the server\n"
	"                         refuses, the metav1.Status it answers.\n"
	"                         name: kind.group/name per object.\n"
	"                         Without -o: kubectl's status lines on standard\n"
	"                         output (configmap/settings created); with -o\n"
	"                         yaml or json they go to standard error.\n"
	"      --no-progress      no progress line (stderr a terminal, a plan over\n"
	"                         a second)\n"
	"      --jobs N           threads (default: the cores; same output for any N)\n"
	"      --show-managed-fields  keep metadata.managedFields in the objects\n"
	"                         printed by -o yaml and json\n"
	"  -n, --namespace NS     namespace for namespaced objects that name none\n"
	"                         (default \"default\")\n"
	"      --openapi FILE     an OpenAPI v2/v3 document (custom resources)\n"
	"      --schema FILE      a CustomResourceDefinition; repeatable\n"
	"      --dry-run[=MODE]   none, or client (--dry-run alone): the same\n"
	"                         output, \"(dry run)\" in the status lines as\n"
	"                         kubectl prints them; server: the objects as the\n"
	"                         API server stores them (its defaults, canonical\n"
	"                         quantities, unknown fields dropped;\n"
	"                         docs/STORED.md), \"(server dry run)\"\n"
	"  -h, --help             show this help\n"
	"\n"
	"The time written into the managedFields entries is the current time, or\n"
	"$SMPATCH_NOW (RFC 3339) when set.\n"
	"\n"
	"Exit codes: 0 success; 2 usage; 3 invalid input or a request the server\n"
	"rejects (a value of the wrong type, a missing key field); 4 the object\n"
	"exists (AlreadyExists); 5 internal error. Each failing object is\n"
	"reported and left out; the others are still shown.\n";

enum {
	OPT_FILENAME = 1, OPT_RECURSIVE, OPT_LIVE, OPT_OUTPUT, OPT_MANAGED, OPT_NAMESPACE,
	OPT_OPENAPI, OPT_SCHEMA, OPT_FIELD_MANAGER, OPT_NO_PROGRESS, OPT_JOBS, OPT_DRY_RUN
};

/* Every option of `smpatch create`, as the parser, --help and completion
 * read them. */
const cli_option cli_create_options[] = {
	{"filename", 'f', CLI_ARG_VALUE, OPT_FILENAME, "@file", NULL},
	{"recursive", 'R', CLI_ARG_BOOL, OPT_RECURSIVE, NULL, NULL},
	{"live", 0, CLI_ARG_VALUE, OPT_LIVE, "@file", NULL},
	{"output", 'o', CLI_ARG_VALUE, OPT_OUTPUT, "yaml json name", NULL},
	{"show-managed-fields", 0, CLI_ARG_BOOL, OPT_MANAGED, NULL, NULL},
	{"namespace", 'n', CLI_ARG_VALUE, OPT_NAMESPACE, NULL, NULL},
	{"openapi", 0, CLI_ARG_VALUE, OPT_OPENAPI, "@file", NULL},
	{"schema", 0, CLI_ARG_VALUE, OPT_SCHEMA, "@file", NULL},
	{"field-manager", 0, CLI_ARG_VALUE, OPT_FIELD_MANAGER, NULL, NULL},
	{"no-progress", 0, CLI_ARG_BOOL, OPT_NO_PROGRESS, NULL, NULL},
	{"jobs", 0, CLI_ARG_VALUE, OPT_JOBS, NULL, NULL},
	{"dry-run", 0, CLI_ARG_OPTIONAL, OPT_DRY_RUN, "none server client", "unchanged"},
	{NULL, 0, 0, 0, NULL, NULL},
};

/* One option or argument into a; CLI_OK or CLI_USAGE (said). */
static int take(apply_cli_args *a, bool *help, const cli_args *p, int k)
{
	switch (k) {
	case CLI_ARGS_POSITIONAL:
		return cli_usage("create", "unexpected argument '%s'", p->value);
	case CLI_ARGS_HELP: *help = true; break;
	case OPT_FILENAME: a->files[a->nfiles++] = p->value; break;
	case OPT_RECURSIVE: a->recursive = p->on; break;
	case OPT_LIVE: a->live_path = p->value; break;
	case OPT_OUTPUT: return apply_cli_output(&a->fmt, "create", "yaml json name", p->value);
	case OPT_MANAGED: a->managed = p->on; break;
	case OPT_NAMESPACE: a->ns = p->value; break;
	case OPT_OPENAPI: a->openapi = p->value; break;
	case OPT_SCHEMA: a->schemas[a->nschemas++] = p->value; break;
	case OPT_FIELD_MANAGER: a->manager = p->value; break;
	case OPT_NO_PROGRESS: a->no_progress = p->on; break;
	case OPT_JOBS: return apply_cli_jobs(&a->jobs, "create", p->value);
	case OPT_DRY_RUN: return apply_cli_dry_run(a, p->value, false);
	default: return CLI_USAGE; /* the parser has said why */
	}
	return CLI_OK;
}

int cmd_create(int argc, char **argv)
{
	apply_cli_args a;
	cli_args p;
	bool help = false;
	int k, code;

	if ((code = apply_cli_args_init(&a, argc, SMP_PLAN_CREATE, "create")) != CLI_OK)
		return code;
	cli_args_init(&p, argc, argv, cli_create_options);
	while (code == CLI_OK && !help && (k = cli_args_next(&p)) != CLI_ARGS_END)
		code = take(&a, &help, &p, k);
	if (code == CLI_OK && help)
		fputs(help_text, stdout);
	else if (code == CLI_OK && !a.nfiles)
		code = cli_usage("create", "%s", "must specify -f (a file, a directory or -)");
	else if (code == CLI_OK && (code = apply_cli_check(&a)) == CLI_OK)
		code = apply_cli_run(&a);
	apply_cli_args_release(&a);
	return code;
}
