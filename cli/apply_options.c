/*
 * apply_options.c - the options of `smpatch apply`, as the parser (args.h)
 * and shell completion read them. cmd_apply.c still reads its options by
 * hand; this table moves there when it reads them with cli_args.
 */
#include "cli.h"

const cli_option cli_apply_options[] = {
	{"filename", 'f', CLI_ARG_VALUE, 1, "@file", NULL},
	{"recursive", 'R', CLI_ARG_BOOL, 2, NULL, NULL},
	{"live", 0, CLI_ARG_VALUE, 3, "@file", NULL},
	{"output", 'o', CLI_ARG_VALUE, 4, "patch yaml json diff name", NULL},
	{"overwrite", 0, CLI_ARG_BOOL, 5, NULL, NULL},
	{"show-managed-fields", 0, CLI_ARG_BOOL, 6, NULL, NULL},
	{"prune", 0, CLI_ARG_BOOL, 7, NULL, NULL},
	{"all", 0, CLI_ARG_BOOL, 8, NULL, NULL},
	{"prune-allowlist", 0, CLI_ARG_VALUE, 9, NULL, NULL},
	{"selector", 'l', CLI_ARG_VALUE, 10, NULL, NULL},
	{"field-selector", 0, CLI_ARG_VALUE, 11, NULL, NULL},
	{"namespace", 'n', CLI_ARG_VALUE, 12, NULL, NULL},
	{"openapi", 0, CLI_ARG_VALUE, 13, "@file", NULL},
	{"schema", 0, CLI_ARG_VALUE, 14, "@file", NULL},
	/* server-side apply (cmd_apply_ssa.c reads these) */
	{"server-side", 0, CLI_ARG_BOOL, 15, NULL, NULL},
	{"field-manager", 0, CLI_ARG_VALUE, 16, NULL, NULL},
	{"force-conflicts", 0, CLI_ARG_BOOL, 17, NULL, NULL},
	{NULL, 0, 0, 0, NULL, NULL},
};
