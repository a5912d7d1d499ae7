/*
 * cli.h - helpers shared by the smpatch subcommands. The CLI uses only the
 * public header smpatch.h; nothing here reaches into the library's insides.
 */
#ifndef SMP_CLI_H
#define SMP_CLI_H

#include "args.h"
#include "smpatch.h"

#include <stdbool.h>
#include <stddef.h>

/* Exit codes, the same for every command (docs/CLI.md). */
enum {
	CLI_OK = 0,        /* success */
	CLI_DIFF = 1,      /* differences found (diff-like output) */
	CLI_USAGE = 2,     /* bad command line */
	CLI_INVALID = 3,   /* invalid input, patch or schema */
	CLI_CONFLICT = 4,  /* conflict or failed precondition */
	CLI_INTERNAL = 5   /* out of memory, I/O failure, bug */
};

/* Maps an SMP_E... code to an exit code. */
int cli_exit_code(int smp_code);

/* Prints "smpatch: file:line:col: error: message" to stderr and returns the
 * exit code for err->code. */
int cli_fail(const smp_error *err);

/* Prints "smpatch <cmd>: message" and a hint to use --help; returns CLI_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* What the commands do alike with c, a result of cli_args_next that is
 * none of their options: an argument goes to pos[(*npos)++] ("too many
 * arguments" past max), -h and --help print `help`, anything else is a
 * usage error already printed. -1 to go on, else the exit code to return
 * (CLI_OK after the help). */
int cli_args_other(const cli_args *a, int c, const char *help, const char **pos,
                   size_t *npos, size_t max);

/* Writes all of buf to stdout; false (after a message) on failure. */
bool cli_write(const char *buf, size_t len);

/* Flushes and closes stdout; returns CLI_INTERNAL with a message on failure,
 * else `code`. Call once, at the end of main. */
int cli_finish(int code);

/* Parses the value of -o (json, yaml) into *out: CLI_OK, or the usage
 * error naming it for `cmd`. */
int cli_output_option(const char *cmd, const char *name, smp_output *out);

/* Prints v to stdout as it is made (smp_print_to): JSON indented with Go's
 * escaping, or YAML; sorted keys when sort_keys. A value that cannot be
 * printed fails (err set) before anything is written; SMP_EIO, after a
 * message on stderr, when writing fails. */
int cli_stream_value(const smp_value *v, smp_output out, bool sort_keys, smp_error *err);


/* smp_doc_parse_file with the CLI's options: regular files are mapped
 * (map_file; main() turns a SIGBUS from a file truncated meanwhile into an
 * error message). */
int cli_parse_file(smp_doc **doc, const char *path, smp_error *err);

/* Parses files[0..n) (cli_parse_file; "-" is
 * stdin) into docs[i], side by side: one thread per core at most (this one
 * included) takes the next file until none is left. At most 8 files.
 * Returns 0, or the SMP_E code of the first file (in order) that failed,
 * with its error in *err; every docs[i] is then NULL (nothing to free). */
int cli_parse_files(smp_doc **docs, const char *const *files, size_t n, smp_error *err);

/* A command: what main() dispatches and completion (complete.c) reads. */
typedef struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const cli_option *opts;   /* its options (NULL: none) */
	/* Completion of its arguments, per position, ';'-separated, the last
	 * repeating: words ("view set"), "@file", "@dir", "@command", or empty
	 * (nothing to offer). */
	const char *args;
} cli_command;

/* Every command, in the order of `smpatch --help`; ends with a NULL name. */
extern const cli_command cli_commands[];

/* The commands' option tables (in their cmd_*.c). */
extern const cli_option cli_convert_options[];
extern const cli_option cli_diff_options[];
extern const cli_option cli_explain_options[];
extern const cli_option cli_patch_options[];
extern const cli_option cli_last_applied_options[];
extern const cli_option cli_apply_options[];
extern const cli_option cli_replace_options[];
extern const cli_option cli_create_options[];
extern const cli_option cli_validate_options[];

/* The subcommands. argv[0] is the subcommand name. */
int cmd_convert(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_patch(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_replace(int argc, char **argv);
int cmd_create(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_last_applied(int argc, char **argv);
/* `smpatch completion bash|zsh` and the hidden `smpatch __complete WORDS`
 * the scripts call (complete.c). */
int cmd_completion(int argc, char **argv);
int cmd_complete(int argc, char **argv);

#endif
