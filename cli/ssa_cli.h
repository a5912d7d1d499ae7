/*
 * ssa_cli.h - the commands that write with field ownership (server-side
 * apply and replace): `smpatch apply --server-side` and `smpatch replace`
 * share one run over the objects (cmd_apply_ssa.c).
 */
#ifndef SMP_CLI_SSA_CLI_H
#define SMP_CLI_SSA_CLI_H

#include "cli.h"

#include "apply_util.h"

#include <stdbool.h>
#include <stddef.h>

/* What the run does to each object. */
typedef enum ssa_cli_mode {
	SSA_CLI_APPLY,   /* PATCH application/apply-patch+yaml (smp_ssa_apply) */
	SSA_CLI_REPLACE  /* PUT of the whole object (smp_ssa_update) */
} ssa_cli_mode;

/* -o: none (replace's default: kubectl's status lines on stdout), or one
 * of these. */
typedef enum ssa_cli_format {
	SSA_OUT_NONE,
	SSA_OUT_PATCH,
	SSA_OUT_YAML,
	SSA_OUT_JSON,
	SSA_OUT_DIFF,
	SSA_OUT_NAME
} ssa_cli_format;

/* The command line of either command. */
typedef struct ssa_cli_args {
	ssa_cli_mode mode;
	const char **files, **schemas;
	size_t nfiles, nschemas;
	const char *live_path, *manager, *selector, *field_sel, *ns, *openapi;
	bool recursive, managed, force, server_dry_run;
	ssa_cli_format fmt;
} ssa_cli_args;

/* Reads the files, runs every object through the engine in order and
 * prints what the commands print; returns the exit code. */
int ssa_cli_run(const ssa_cli_args *a);

/* Whether `smpatch apply`'s arguments ask for server-side apply (or use
 * one of its flags): then cmd_apply hands them to cmd_apply_ssa. */
bool cli_apply_is_server_side(int argc, char **argv);

/* `smpatch apply --server-side ...` (argv[0] is "apply"). */
int cmd_apply_ssa(int argc, char **argv);

#endif
