/*
 * apply_cli.h - what `smpatch apply` (both modes) and `smpatch replace`
 * share: their command line as read, and the one runner that reads the
 * files, fills a plan (smp_plan_*) and prints its entries as kubectl
 * does (apply_run.c).
 */
#ifndef SMP_CLI_APPLY_CLI_H
#define SMP_CLI_APPLY_CLI_H

#include "cli.h"

#include <stdbool.h>
#include <stddef.h>

/* -o: none (replace's default: kubectl's status lines on stdout), or one
 * of these. */
typedef enum apply_cli_format {
	APPLY_OUT_NONE,
	APPLY_OUT_PATCH,
	APPLY_OUT_YAML,
	APPLY_OUT_JSON,
	APPLY_OUT_DIFF,
	APPLY_OUT_NAME,
	APPLY_OUT_CHANGES
} apply_cli_format;

/* The command line of apply (either mode) or replace. The arrays hold
 * argv's strings and have room for every argument. */
typedef struct apply_cli_args {
	smp_plan_mode mode;
	const char *cmd;  /* "apply" or "replace", for messages */
	const char **files, **schemas, **allow, **scoped, **ignore_fields, **ignore_managers;
	const char **csa_managers;
	size_t nfiles, nschemas, nallow, nscoped, nignore_fields, nignore_managers, ncsa_managers;
	const char *live_path, *manager, *selector, *field_sel, *ns, *openapi;
	const char *applyset, *applyset_tooling; /* --applyset, --applyset-tooling */
	bool recursive, managed, force, overwrite, prune, all, server_dry_run, client_dry_run;
	bool color;                /* -o diff: ANSI colours (--color) */
	bool no_progress;          /* --no-progress */
	bool summary;              /* --summary: the plan's counts on stderr */
	unsigned jobs;             /* --jobs: threads (default: the cores) */
	const char *external_diff; /* -o diff: $KUBECTL_EXTERNAL_DIFF, or NULL */
	smp_propagation cascade;   /* prune: --cascade */
	smp_validate_mode validate; /* --validate */
	int64_t grace_period;      /* prune: --grace-period (-1: not sent) */
	apply_cli_format fmt;
} apply_cli_args;

/* --color=auto|always|never (auto: when standard output is a terminal);
 * CLI_USAGE after the message for another value. */
int apply_cli_color(bool *color, const char *cmd, const char *val);

/* --jobs N: a whole number from 1 to 64 (more are taken as 64); CLI_USAGE
 * after the message for another value. */
int apply_cli_jobs(unsigned *jobs, const char *cmd, const char *val);

/* --dry-run=none|client|server into a->server_dry_run/client_dry_run, as
 * kubectl reads it; client is refused when server_side. CLI_USAGE after
 * the message for another value. */
int apply_cli_dry_run(apply_cli_args *a, const char *val, bool server_side);

/* Sets the defaults and makes room for argc values in each array;
 * CLI_INTERNAL (after a message) when out of memory. */
int apply_cli_args_init(apply_cli_args *a, int argc, smp_plan_mode mode, const char *cmd);
void apply_cli_args_release(apply_cli_args *a);

/* The checks every mode shares (-f given, stdin read once, --openapi or
 * --schema); CLI_OK or CLI_USAGE after the message. */
int apply_cli_check(const apply_cli_args *a);

/* Reads the files, plans every object in order and prints what kubectl
 * prints; returns the exit code. */
int apply_cli_run(const apply_cli_args *a);

/* Parses an -o value among `names` (space-separated, e.g. "patch yaml
 * json diff name"); CLI_USAGE after kubectl-like message when unknown. */
int apply_cli_output(apply_cli_format *fmt, const char *cmd, const char *names,
                     const char *val);

#endif
