/*
 * main.c - the smpatch program: dispatch to a subcommand.
 */
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"Usage: smpatch COMMAND [OPTIONS] ARGS...\n"
	"\n"
	"Computes and applies Kubernetes strategic merge patches offline, as\n"
	"kubectl apply and the API server do.\n"
	"\n"
	"Commands:\n"
	"  apply         what kubectl apply would send, and the resulting objects\n"
	"                (--server-side: server-side apply, field ownership)\n"
	"  replace       what kubectl replace stores, and the field ownership\n"
	"  create        what kubectl create stores, and the field ownership\n"
	"  validate      whether the API server accepts each object, and its Status\n"
	"  diff          two-way or three-way patch between documents\n"
	"  patch         apply a strategic, JSON merge or JSON patch to a document\n"
	"  explain       the patch metadata the engine uses for a field\n"
	"  convert       read YAML/JSON and print it as JSON or YAML\n"
	"  last-applied  view or set the last-applied-configuration annotation\n"
	"  completion    shell completion script for bash or zsh\n"
	"  version       print the version\n"
	"  help          this help, or a command's: smpatch help COMMAND\n"
	"\n"
	"Options:\n"
	"  -h, --help    show this help (smpatch COMMAND --help for a command)\n"
	"  --version     print the version\n"
	"\n"
	"Exit codes: 0 ok, 1 differences found, 2 usage, 3 invalid input or patch,\n"
	"4 conflict or failed precondition, 5 internal error.\n";

static const char version_help[] =
	"Usage: smpatch version\n"
	"\n"
	"Prints the version of smpatch, as --version does.\n"
	"\n"
	"Options:\n"
	"  -h, --help  show this help\n";

static const char help_help[] =
	"Usage: smpatch help [COMMAND]\n"
	"\n"
	"Shows the list of commands, or the help of COMMAND (what\n"
	"smpatch COMMAND --help shows).\n"
	"\n"
	"Options:\n"
	"  -h, --help  show this help\n";

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);

const cli_command cli_commands[] = {
	{"apply", cmd_apply, cli_apply_options, ""},
	{"replace", cmd_replace, cli_replace_options, ""},
	{"create", cmd_create, cli_create_options, ""},
	{"validate", cmd_validate, cli_validate_options, ""},
	{"diff", cmd_diff, cli_diff_options, "@file"},
	{"patch", cmd_patch, cli_patch_options, "@file"},
	{"explain", cmd_explain, cli_explain_options, ""},
	{"convert", cmd_convert, cli_convert_options, "@file"},
	{"last-applied", cmd_last_applied, cli_last_applied_options, "view set;"},
	{"completion", cmd_completion, NULL, "bash zsh;"},
	{"version", cmd_version, NULL, ""},
	{"help", cmd_help, NULL, "@command;"},
	{NULL, NULL, NULL, NULL},
};

static const cli_command *find_command(const char *name)
{
	for (const cli_command *c = cli_commands; c->name; c++)
		if (strcmp(name, c->name) == 0)
			return c;
	return NULL;
}

static int unknown_command(const char *name)
{
	fprintf(stderr, "smpatch: unknown command '%s'\nTry 'smpatch --help'.\n", name);
	return CLI_USAGE;
}

/* Reads a command line of at most `max` arguments (into pos[]) and -h. */
static int read_args(int argc, char **argv, const char **pos, int max, int *npos,
                     const char *help)
{
	cli_args a;
	int c;

	*npos = 0;
	cli_args_init(&a, argc, argv, NULL);
	while ((c = cli_args_next(&a)) != CLI_ARGS_END) {
		if (c == CLI_ARGS_HELP) {
			fputs(help, stdout);
			return CLI_ARGS_HELP;
		}
		if (c != CLI_ARGS_POSITIONAL)
			return CLI_USAGE;
		if (*npos == max)
			return cli_usage(argv[0], "unexpected argument '%s'", a.value);
		pos[(*npos)++] = a.value;
	}
	return CLI_OK;
}

static int cmd_version(int argc, char **argv)
{
	int n, rc = read_args(argc, argv, NULL, 0, &n, version_help);

	if (rc == CLI_OK)
		printf("smpatch %s\n", smp_version());
	return rc == CLI_ARGS_HELP ? CLI_OK : rc;
}

/* `smpatch help [COMMAND]`: the command's --help. */
static int cmd_help(int argc, char **argv)
{
	const char *pos[1];
	int n, rc = read_args(argc, argv, pos, 1, &n, help_help);
	const cli_command *c;

	if (rc != CLI_OK)
		return rc == CLI_ARGS_HELP ? CLI_OK : rc;
	if (n == 0) {
		fputs(usage_text, stdout);
		return CLI_OK;
	}
	if (!(c = find_command(pos[0])))
		return unknown_command(pos[0]);
	char name[32], help[] = "--help";
	char *args[] = {name, help, NULL};
	snprintf(name, sizeof(name), "%s", c->name);
	return c->run(2, args);
}

/* Input files are mapped while parsed (cli_parse_file): one that another
 * process truncates meanwhile raises SIGBUS. Say so and exit 3 rather than
 * die without a word (only async-signal-safe calls here). */
static void on_sigbus(int sig)
{
	static const char msg[] = "smpatch: error: bus error reading an input file (was it "
	                          "truncated while it was being read?)\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to do */
	}
	_exit(CLI_INVALID);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	const char *name;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	/* A closed pipe is a failed write like a full disk: the write sees
	 * EPIPE and it is reported once, exit 5, not a silent SIGPIPE death. */
	signal(SIGPIPE, SIG_IGN);

	if (argc < 2) {
		fputs(usage_text, stderr);
		return CLI_USAGE;
	}
	name = argv[1];
	if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
		fputs(usage_text, stdout);
		return cli_finish(CLI_OK);
	}
	if (strcmp(name, "--version") == 0)
		name = "version";
	if (strcmp(name, "__complete") == 0) /* the completion scripts' helper */
		return cli_finish(cmd_complete(argc - 1, argv + 1));
	const cli_command *c = find_command(name);
	if (!c)
		return unknown_command(name);
	return cli_finish(c->run(argc - 1, argv + 1));
}
