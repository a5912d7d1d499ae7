/*
 * args.h - the one command-line parser of every smpatch command, with
 * kubectl's (pflag's) spellings:
 *
 *   --name=VALUE  --name VALUE          options that take a value
 *   -n VALUE  -nVALUE  -n=VALUE
 *   --flag  --flag=false  -x  -x=false  booleans (true/false, 1/0, t/f, ...)
 *   -Rf DIR  -Rf=DIR  -RfDIR            short options combined
 *   --                                  the rest are arguments
 *
 * Arguments and options mix in any order; "-" is an argument (standard
 * input). A value is taken even when it starts with '-' (`-f -`), as pflag
 * does. '_' in a long name reads as '-' (kubectl's normalisation). -h and
 * --help are understood by every command. The same tables drive the shell
 * completion (complete.c).
 */
#ifndef SMP_CLI_ARGS_H
#define SMP_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>

/* What an option takes. */
typedef enum cli_arg_kind {
	CLI_ARG_BOOL,     /* a switch; --x=BOOL sets it explicitly */
	CLI_ARG_VALUE,    /* a value, required */
	CLI_ARG_OPTIONAL  /* --x alone means `noopt`; a value only as --x=V (pflag's
	                   * NoOptDefVal, e.g. --dry-run) */
} cli_arg_kind;

/* One option of a command. A table ends with an entry whose name is NULL. */
typedef struct cli_option {
	const char *name;      /* long name without "--" */
	char short_name;       /* 0: none */
	cli_arg_kind kind;
	int id;                /* > 0: what cli_args_next returns for it */
	/* For completion: the values offered, space-separated ("json yaml"),
	 * or "@file" (file names), "@dir" (directories); NULL: none. */
	const char *values;
	const char *noopt;     /* CLI_ARG_OPTIONAL: the value of a bare --x */
} cli_option;

/* What cli_args_next returns besides an option's id. */
enum {
	CLI_ARGS_END = 0,         /* no more arguments */
	CLI_ARGS_POSITIONAL = -1, /* an argument: a->value */
	CLI_ARGS_HELP = -2,       /* -h or --help: print the help, exit 0 */
	CLI_ARGS_ERROR = -3       /* a usage error, already printed: exit CLI_USAGE */
};

typedef struct cli_args {
	const char *cmd;          /* for messages: "smpatch CMD: ..." */
	int argc;
	char **argv;
	const cli_option *opts;
	int next;                 /* the next argv index to read */
	const char *shorts;       /* the rest of a group of short options */
	bool rest;                /* after "--": only arguments */
	/* The result of the last cli_args_next: */
	const cli_option *opt;    /* the option (NULL for an argument) */
	const char *value;        /* its value (NULL for a switch), or the argument */
	bool on;                  /* CLI_ARG_BOOL: the switch's value */
	char spelled[64];         /* the option as written: "--filename", "-f" */
} cli_args;

/* Starts reading argv[1..argc) (argv[0] is the command name, used in
 * messages) against the option table `opts`. */
void cli_args_init(cli_args *a, int argc, char **argv, const cli_option *opts);

/* The next option or argument: an option's id (value in a->value, a
 * switch's state in a->on), CLI_ARGS_POSITIONAL, CLI_ARGS_HELP, CLI_ARGS_END,
 * or CLI_ARGS_ERROR after printing "smpatch CMD: unknown option '--x'" (or
 * "option '--x' needs a value", "invalid value for --x: 'v' (true or
 * false)") and the hint to use --help. */
int cli_args_next(cli_args *a);

/* pflag's strconv.ParseBool: 1 t T TRUE true True, 0 f F FALSE false False. */
bool cli_args_parse_bool(const char *s, bool *out);

/* The option of `opts` with long name `name` (n bytes; '_' reads as '-'),
 * or with short name `c` when name is NULL. NULL when there is none. */
const cli_option *cli_args_find(const cli_option *opts, const char *name, size_t n, char c);

#endif
