/*
 * apply_args.c - the command line that `smpatch apply`, `create`,
 * `replace` and `validate` share: the options' values as kubectl reads
 * them, and the options every one of them takes.
 */
#include "apply_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int oom(void)
{
	fprintf(stderr, "smpatch: error: out of memory\n");
	return CLI_INTERNAL;
}

/* --dry-run=none|client|server as kubectl reads it (with its deprecated
 * spellings of client: no value, true, unchanged); server_side: the mode
 * in which client is refused. */
int apply_cli_dry_run(apply_cli_args *a, const char *val, bool server_side)
{
	bool b;

	if (strcmp(val, "unchanged") == 0 || (cli_args_parse_bool(val, &b) && b)) {
		fprintf(stderr, "smpatch %s: warning: --dry-run is deprecated and can be "
		        "replaced with --dry-run=client\n", a->cmd);
		val = "client";
	}
	else if (cli_args_parse_bool(val, &b))
		val = "none";
	if (strcmp(val, "server") == 0) {
		a->server_dry_run = true;
	} else if (strcmp(val, "client") == 0) {
		if (server_side)
			return cli_usage(a->cmd, "%s", "--dry-run=client doesn't work with "
			                 "--server-side (did you mean --dry-run=server instead?)");
		a->client_dry_run = true;
	} else if (strcmp(val, "none") != 0) {
		return cli_usage(a->cmd, "Invalid dry-run value (%s). Must be \"none\", "
		                 "\"server\", or \"client\".", val);
	}
	return CLI_OK;
}

/* The cores this process may run on: --jobs' default. */
static unsigned cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 64 ? 64 : (unsigned)n;
}

int apply_cli_jobs(unsigned *jobs, const char *cmd, const char *val)
{
	char *end;
	long long n = strtoll(val, &end, 10);

	if (!*val || *end || n < 1)
		return cli_usage(cmd, "invalid value for --jobs: '%s' (a number of threads, 1 or "
		                 "more)", val);
	*jobs = n > 64 ? 64 : (unsigned)n;
	return CLI_OK;
}

int apply_cli_args_init(apply_cli_args *a, int argc, smp_plan_mode mode, const char *cmd)
{
	size_t n = (size_t)argc + 1;

	memset(a, 0, sizeof(*a));
	a->mode = mode;
	a->cmd = cmd;
	a->overwrite = true;
	a->fmt = mode == SMP_PLAN_REPLACE || mode == SMP_PLAN_CREATE ? APPLY_OUT_NONE
	                                                              : APPLY_OUT_PATCH;
	a->grace_period = -1;
	a->jobs = cores();
	a->files = calloc(n, sizeof(*a->files));
	a->schemas = calloc(n, sizeof(*a->schemas));
	a->allow = calloc(n, sizeof(*a->allow));
	a->scoped = calloc(n, sizeof(*a->scoped));
	a->ignore_fields = calloc(n, sizeof(*a->ignore_fields));
	a->ignore_managers = calloc(n, sizeof(*a->ignore_managers));
	a->csa_managers = calloc(n, sizeof(*a->csa_managers));
	return a->files && a->schemas && a->allow && a->scoped && a->ignore_fields &&
	       a->ignore_managers && a->csa_managers ? CLI_OK : oom();
}

void apply_cli_args_release(apply_cli_args *a)
{
	free(a->files);
	free(a->schemas);
	free(a->allow);
	free(a->scoped);
	free(a->ignore_fields);
	free(a->ignore_managers);
	free(a->csa_managers);
}

int apply_cli_output(apply_cli_format *fmt, const char *cmd, const char *names, const char *val)
{
	static const char *const all[] = {"patch", "yaml", "json", "diff", "name", "changes"};
	char list[96];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		size_t len = strlen(all[i]);
		const char *at = strstr(names, all[i]);

		if (!at || (at[len] && at[len] != ' '))
			continue;
		if (strcmp(val, all[i]) == 0) {
			*fmt = (apply_cli_format)(APPLY_OUT_PATCH + i);
			return CLI_OK;
		}
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", all[i]);
	}
	return cli_usage(cmd, "unknown output format '%s' (%s)", val, list);
}

int apply_cli_color(bool *color, const char *cmd, const char *val)
{
	if (strcmp(val, "auto") == 0)
		*color = isatty(STDOUT_FILENO);
	else if (strcmp(val, "always") == 0)
		*color = true;
	else if (strcmp(val, "never") == 0)
		*color = false;
	else
		return cli_usage(cmd, "invalid value for --color: '%s' (auto, always or never)", val);
	return CLI_OK;
}

int apply_cli_check(const apply_cli_args *a)
{
	if (!a->nfiles)
		return cli_usage(a->cmd, "%s", "must specify -f (a file, a directory or -)");
	for (size_t i = 0; a->live_path && strcmp(a->live_path, "-") == 0 && i < a->nfiles; i++)
		if (strcmp(a->files[i], "-") == 0)
			return cli_usage(a->cmd, "%s", "-f - and --live - cannot both read standard "
			                 "input");
	if (a->openapi && a->nschemas)
		return cli_usage(a->cmd, "%s", "--openapi and --schema cannot be used together");
	return CLI_OK;
}

int apply_cli_take(apply_cli_args *a, const cli_args *p, int k)
{
	switch (k) {
	case CLI_ARGS_POSITIONAL:
		return cli_usage(a->cmd, "unexpected argument '%s'", p->value);
	case CLI_ARGS_HELP: a->help = true; break;
	case APPLY_OPT_FILENAME: a->files[a->nfiles++] = p->value; break;
	case APPLY_OPT_RECURSIVE: a->recursive = p->on; break;
	case APPLY_OPT_LIVE: a->live_path = p->value; break;
	case APPLY_OPT_OUTPUT: return apply_cli_output(&a->fmt, a->cmd, p->opt->values, p->value);
	case APPLY_OPT_MANAGED: a->managed = p->on; break;
	case APPLY_OPT_NAMESPACE: a->ns = p->value; break;
	case APPLY_OPT_OPENAPI: a->openapi = p->value; break;
	case APPLY_OPT_SCHEMA: a->schemas[a->nschemas++] = p->value; break;
	case APPLY_OPT_FIELD_MANAGER: a->manager = p->value; break;
	case APPLY_OPT_COLOR: return apply_cli_color(&a->color, a->cmd, p->value);
	case APPLY_OPT_NO_PROGRESS: a->no_progress = p->on; break;
	case APPLY_OPT_JOBS: return apply_cli_jobs(&a->jobs, a->cmd, p->value);
	case APPLY_OPT_DRY_RUN: return apply_cli_dry_run(a, p->value, false);
	default: return CLI_USAGE; /* the parser has said why */
	}
	return CLI_OK;
}
