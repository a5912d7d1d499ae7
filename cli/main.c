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
	"  diff          two-way or three-way patch between documents\n"
	"  patch         apply a strategic, JSON merge or JSON patch to a document\n"
	"  explain       the patch metadata the engine uses for a field\n"
	"  convert       read YAML/JSON and print it as JSON or YAML\n"
	"  last-applied  view or set the last-applied-configuration annotation\n"
	"  version       print the version\n"
	"\n"
	"Options:\n"
	"  -h, --help    show this help (smpatch COMMAND --help for a command)\n"
	"  --version     print the version\n"
	"\n"
	"Exit codes: 0 ok, 1 differences found, 2 usage, 3 invalid input or patch,\n"
	"4 conflict or failed precondition, 5 internal error.\n";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{"apply", cmd_apply},
	{"diff", cmd_diff},
	{"patch", cmd_patch},
	{"explain", cmd_explain},
	{"convert", cmd_convert},
	{"last-applied", cmd_last_applied},
};

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

	if (argc < 2) {
		fputs(usage_text, stderr);
		return CLI_USAGE;
	}
	name = argv[1];
	if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 ||
	    strcmp(name, "help") == 0) {
		fputs(usage_text, stdout);
		return cli_finish(CLI_OK);
	}
	if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
		printf("smpatch %s\n", smp_version());
		return cli_finish(CLI_OK);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			return cli_finish(commands[i].run(argc - 1, argv + 1));
	fprintf(stderr, "smpatch: unknown command '%s'\nTry 'smpatch --help'.\n", name);
	return CLI_USAGE;
}
