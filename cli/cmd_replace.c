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
	"  -f, --filename PATH    configuration: a file, a directory (its .yaml, .yml\n"
	"                         and .json files, in name order) or - for standard\n"
	"                         input; repeatable; streams and Lists are expanded\n"
	"  -R, --recursive        descend into subdirectories of directories given\n"
	"                         with -f\n"
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
	"      --no-progress      no progress line (stderr a terminal, a plan over\n"
	"                         a second)\n"
	"      --jobs N           threads (default: the cores; same output for any N)\n"
	"      --color[=WHEN]     -o diff in colour: auto (default: on a terminal),\n"
	"                         always (--color alone) or never\n"
	"      --show-managed-fields  keep metadata.managedFields in the objects\n"
	"                         printed by -o yaml, json and diff\n"
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
	"The time written into the managedFields entries that change is the\n"
	"current time, or $SMPATCH_NOW (RFC 3339) when set.\n"
	"\n"
	"Exit codes: 0 success; 1 differences found (-o diff); 2 usage; 3 invalid\n"
	"input or a request the server rejects (no such live object: NotFound; a\n"
	"value of the wrong type, a missing key field); 4 a resourceVersion in the\n"
	"configuration other than the live one (Conflict: the object has been\n"
	"modified); 5 internal error. Each failing object is reported and left\n"
	"out; the others are still shown.\n";

enum {
	OPT_FILENAME = 1, OPT_RECURSIVE, OPT_LIVE, OPT_OUTPUT, OPT_MANAGED, OPT_NAMESPACE,
	OPT_OPENAPI, OPT_SCHEMA, OPT_FIELD_MANAGER, OPT_COLOR, OPT_NO_PROGRESS,
	OPT_JOBS, OPT_DRY_RUN
};

const cli_option cli_replace_options[] = {
	{"filename", 'f', CLI_ARG_VALUE, OPT_FILENAME, "@file", NULL},
	{"recursive", 'R', CLI_ARG_BOOL, OPT_RECURSIVE, NULL, NULL},
	{"live", 0, CLI_ARG_VALUE, OPT_LIVE, "@file", NULL},
	{"output", 'o', CLI_ARG_VALUE, OPT_OUTPUT, "yaml json diff name", NULL},
	{"show-managed-fields", 0, CLI_ARG_BOOL, OPT_MANAGED, NULL, NULL},
	{"namespace", 'n', CLI_ARG_VALUE, OPT_NAMESPACE, NULL, NULL},
	{"openapi", 0, CLI_ARG_VALUE, OPT_OPENAPI, "@file", NULL},
	{"schema", 0, CLI_ARG_VALUE, OPT_SCHEMA, "@file", NULL},
	{"field-manager", 0, CLI_ARG_VALUE, OPT_FIELD_MANAGER, NULL, NULL},
	{"color", 0, CLI_ARG_OPTIONAL, OPT_COLOR, "auto always never", "always"},
	{"no-progress", 0, CLI_ARG_BOOL, OPT_NO_PROGRESS, NULL, NULL},
	{"jobs", 0, CLI_ARG_VALUE, OPT_JOBS, NULL, NULL},
	{"dry-run", 0, CLI_ARG_OPTIONAL, OPT_DRY_RUN, "none server client", "unchanged"},
	{NULL, 0, 0, 0, NULL, NULL},
};

int cmd_replace(int argc, char **argv)
{
	apply_cli_args a;
	cli_args p;
	bool help = false;
	int k, code;

	if ((code = apply_cli_args_init(&a, argc, SMP_PLAN_REPLACE, "replace")) != CLI_OK)
		return code;
	a.color = isatty(STDOUT_FILENO); /* --color=auto */
	cli_args_init(&p, argc, argv, cli_replace_options);
	while (code == CLI_OK && !help && (k = cli_args_next(&p)) != CLI_ARGS_END) {
		switch (k) {
		case CLI_ARGS_POSITIONAL:
			code = cli_usage("replace", "unexpected argument '%s'", p.value);
			break;
		case CLI_ARGS_HELP: help = true; break;
		case OPT_FILENAME: a.files[a.nfiles++] = p.value; break;
		case OPT_RECURSIVE: a.recursive = p.on; break;
		case OPT_LIVE: a.live_path = p.value; break;
		case OPT_OUTPUT:
			code = apply_cli_output(&a.fmt, "replace", "yaml json diff name", p.value);
			break;
		case OPT_MANAGED: a.managed = p.on; break;
		case OPT_NAMESPACE: a.ns = p.value; break;
		case OPT_OPENAPI: a.openapi = p.value; break;
		case OPT_SCHEMA: a.schemas[a.nschemas++] = p.value; break;
		case OPT_FIELD_MANAGER: a.manager = p.value; break;
		case OPT_COLOR: code = apply_cli_color(&a.color, "replace", p.value); break;
		case OPT_NO_PROGRESS: a.no_progress = p.on; break;
		case OPT_JOBS: code = apply_cli_jobs(&a.jobs, "replace", p.value); break;
		case OPT_DRY_RUN: code = apply_cli_dry_run(&a, p.value, false); break;
		default: code = CLI_USAGE; break; /* the parser has said why */
		}
	}
	if (a.fmt == APPLY_OUT_DIFF && getenv("KUBECTL_EXTERNAL_DIFF") &&
	    *getenv("KUBECTL_EXTERNAL_DIFF"))
		a.external_diff = getenv("KUBECTL_EXTERNAL_DIFF");
	if (code == CLI_OK && help)
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
