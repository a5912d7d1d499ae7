/*
 * apply_cli.h - what `smpatch apply` (both modes), `create`, `replace`
 * and `validate` share: their command line as read, and the one runner
 * that reads the files, fills a plan (smp_plan_*) and prints its entries
 * as kubectl does (apply_run.c), or validate's verdicts (verdict.c).
 */
#ifndef SMP_CLI_APPLY_CLI_H
#define SMP_CLI_APPLY_CLI_H

#include "cli.h"
#include "apply_util.h"

#include <stdbool.h>
#include <stddef.h>

/* The lines of --help that create and replace share. */
#define APPLY_HELP_FILES \
	"  -f, --filename PATH    configuration: a file, a directory (its .yaml, .yml\n" \
	"                         and .json files, in name order) or - for standard\n" \
	"                         input; repeatable; streams and Lists are expanded\n" \
	"  -R, --recursive        descend into subdirectories of directories given\n" \
	"                         with -f\n"
#define APPLY_HELP_PROGRESS \
	"      --no-progress      no progress line (stderr a terminal, a plan over\n" \
	"                         a second)\n" \
	"      --jobs N           threads (default: the cores; same output for any N)\n"
#define APPLY_HELP_SCOPE_DRY_RUN \
	"  -n, --namespace NS     namespace for namespaced objects that name none\n" \
	"                         (default \"default\")\n" \
	"      --openapi FILE     an OpenAPI v2/v3 document (custom resources)\n" \
	"      --schema FILE      a CustomResourceDefinition; repeatable\n" \
	"      --dry-run[=MODE]   none, or client (--dry-run alone): the same\n" \
	"                         output, \"(dry run)\" in the status lines as\n" \
	"                         kubectl prints them; server: the objects as the\n" \
	"                         API server stores them (its defaults, canonical\n" \
	"                         quantities, unknown fields dropped;\n" \
	"                         docs/STORED.md), \"(server dry run)\"\n" \
	"  -h, --help             show this help\n"

/* The options of apply, create and replace: one id each, whichever
 * command takes it. */
enum {
	APPLY_OPT_FILENAME = 1, APPLY_OPT_RECURSIVE, APPLY_OPT_LIVE, APPLY_OPT_OUTPUT,
	APPLY_OPT_OVERWRITE, APPLY_OPT_MANAGED, APPLY_OPT_PRUNE, APPLY_OPT_ALL, APPLY_OPT_ALLOW,
	APPLY_OPT_SELECTOR, APPLY_OPT_FIELD_SELECTOR, APPLY_OPT_NAMESPACE, APPLY_OPT_OPENAPI,
	APPLY_OPT_SCHEMA, APPLY_OPT_CLUSTER_SCOPED, APPLY_OPT_DRY_RUN, APPLY_OPT_SERVER_SIDE,
	APPLY_OPT_FIELD_MANAGER, APPLY_OPT_FORCE_CONFLICTS, APPLY_OPT_COLOR, APPLY_OPT_CASCADE,
	APPLY_OPT_GRACE_PERIOD, APPLY_OPT_VALIDATE, APPLY_OPT_IGNORE_FIELD,
	APPLY_OPT_IGNORE_MANAGER, APPLY_OPT_NO_PROGRESS, APPLY_OPT_SUMMARY, APPLY_OPT_JOBS,
	APPLY_OPT_CSA_MANAGER, APPLY_OPT_APPLYSET, APPLY_OPT_APPLYSET_TOOLING
};

/* Rows of the three option tables, where they stand alike. */
#define APPLY_OPTIONS_INPUT                                                      \
	{"filename", 'f', CLI_ARG_VALUE, APPLY_OPT_FILENAME, "@file", NULL},     \
	{"recursive", 'R', CLI_ARG_BOOL, APPLY_OPT_RECURSIVE, NULL, NULL},       \
	{"live", 0, CLI_ARG_VALUE, APPLY_OPT_LIVE, "@file", NULL}
#define APPLY_OPTIONS_SCHEMA                                                     \
	{"namespace", 'n', CLI_ARG_VALUE, APPLY_OPT_NAMESPACE, NULL, NULL},      \
	{"openapi", 0, CLI_ARG_VALUE, APPLY_OPT_OPENAPI, "@file", NULL},         \
	{"schema", 0, CLI_ARG_VALUE, APPLY_OPT_SCHEMA, "@file", NULL}
#define APPLY_OPTIONS_RUN                                                        \
	{"no-progress", 0, CLI_ARG_BOOL, APPLY_OPT_NO_PROGRESS, NULL, NULL},     \
	{"jobs", 0, CLI_ARG_VALUE, APPLY_OPT_JOBS, NULL, NULL},                  \
	{"dry-run", 0, CLI_ARG_OPTIONAL, APPLY_OPT_DRY_RUN, "none server client", "unchanged"}

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

/* smpatch validate's output: none (the other commands), or a verdict per
 * object as text (kubeconform's lines), JSON lines or JUnit XML. */
typedef enum apply_cli_verdict {
	APPLY_VERDICT_NONE,
	APPLY_VERDICT_TEXT,
	APPLY_VERDICT_JSON,
	APPLY_VERDICT_JUNIT
} apply_cli_verdict;

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
	bool help;                 /* -h, --help */
	bool summary;              /* --summary: the plan's counts on stderr */
	unsigned jobs;             /* --jobs: threads (default: the cores) */
	const char *external_diff; /* -o diff: $KUBECTL_EXTERNAL_DIFF, or NULL */
	smp_propagation cascade;   /* prune: --cascade */
	smp_validate_mode validate; /* --validate */
	int64_t grace_period;      /* prune: --grace-period (-1: not sent) */
	apply_cli_format fmt;
	apply_cli_verdict verdict; /* validate: -o */
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

/* Takes option or argument k of the parser p into a, for the options
 * create and replace take as they are (-o among the option's completion
 * values); CLI_OK or CLI_USAGE (said). apply reads its own first. */
int apply_cli_take(apply_cli_args *a, const cli_args *p, int k);

/* The start of an entry's JSON line: {"apiVersion", "kind", "namespace",
 * "name" (verdict.c). */
void cli_entry_head(cli_buf *b, const smp_plan_entry *e);

/* The verdicts of smpatch validate, gathered entry by entry (verdict.c). */
typedef struct cli_verdicts {
	apply_cli_verdict fmt;
	const smp_schema *schema; /* --openapi/--schema: kinds it knows are checked */
	cli_buf out;              /* text or JSON lines; JUnit test cases */
	char *file;               /* the last entry's file, to count files */
	size_t valid, invalid, skipped, errors, files;
} cli_verdicts;

/* The verdict of one entry of the plan: invalid (a refusal, with the
 * server's Status), skipped (a kind neither the built-in tables nor the
 * schema know) or valid; an input error counts as an error (reported by
 * the caller). 0, or SMP_ENOMEM in err. */
int cli_verdict_add(cli_verdicts *v, const smp_plan_entry *e, smp_error *err);
/* Writes the verdicts to standard output (text: then the summary line;
 * JUnit: inside its document). false after a message on failure. */
bool cli_verdict_write(cli_verdicts *v);
void cli_verdicts_release(cli_verdicts *v);

/* Parses an -o value among `names` (space-separated, e.g. "patch yaml
 * json diff name"); CLI_USAGE after kubectl-like message when unknown. */
int apply_cli_output(apply_cli_format *fmt, const char *cmd, const char *names,
                     const char *val);

#endif
