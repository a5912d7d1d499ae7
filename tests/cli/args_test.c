/*
 * args_test.c - the command-line parser (cli/args.c) against the spellings
 * kubectl's pflag accepts: each command line is read to the end and what
 * the parser returned is written as one line ("o=json R=1 @a END"); usage
 * errors end it with "ERR" and their message is compared too.
 */
#include "cli/args.h"
#include "cli/cli.h"
#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { O_OUT = 1, O_FILE, O_REC, O_OVER, O_DRY, O_LIVE };

static const cli_option opts[] = {
	{"output", 'o', CLI_ARG_VALUE, O_OUT, "json yaml", NULL},
	{"filename", 'f', CLI_ARG_VALUE, O_FILE, "@file", NULL},
	{"recursive", 'R', CLI_ARG_BOOL, O_REC, NULL, NULL},
	{"overwrite", 0, CLI_ARG_BOOL, O_OVER, NULL, NULL},
	{"dry-run", 0, CLI_ARG_OPTIONAL, O_DRY, "none client server", "unchanged"},
	{"field-selector", 0, CLI_ARG_VALUE, O_LIVE, NULL, NULL},
	{NULL, 0, 0, 0, NULL, NULL},
};

static const struct {
	const char *line;     /* the arguments, split on spaces ("\"\"" = empty) */
	const char *want;     /* what the parser returned */
	const char *message;  /* the usage error's first line, if any */
} cases[] = {
	/* values: every spelling of pflag */
	{"-o json", "o=json END", NULL},
	{"-o=json", "o=json END", NULL},
	{"-ojson", "o=json END", NULL},
	{"--output json", "o=json END", NULL},
	{"--output=json", "o=json END", NULL},
	{"--output= x", "o= @x END", NULL},
	{"-o=", "o== END", NULL}, /* pflag: "-o=" is the value "=" */
	{"-f -", "f=- END", NULL},
	{"-f --live", "f=--live END", NULL}, /* a value may start with '-' */
	{"--filename=a=b", "f=a=b END", NULL},
	/* combined short options */
	{"-Rf dir/", "R=1 f=dir/ END", NULL},
	{"-Rfdir", "R=1 f=dir END", NULL},
	{"-Rf=dir", "R=1 f=dir END", NULL},
	{"-R=false", "R=0 END", NULL},
	{"-RR", "R=1 R=1 END", NULL},
	/* booleans: ParseBool's spellings */
	{"--overwrite", "overwrite=1 END", NULL},
	{"--overwrite=false", "overwrite=0 END", NULL},
	{"--overwrite=0 --overwrite=T --overwrite=False --overwrite=TRUE",
	 "overwrite=0 overwrite=1 overwrite=0 overwrite=1 END", NULL},
	{"--overwrite false", "overwrite=1 @false END", NULL}, /* as pflag */
	{"--overwrite=no", "ERR", "smpatch t: invalid value for --overwrite: 'no' (true or false)"},
	/* optional values (NoOptDefVal) */
	{"--dry-run", "dry=unchanged END", NULL},
	{"--dry-run=client", "dry=client END", NULL},
	{"--dry-run client", "dry=unchanged @client END", NULL},
	/* arguments anywhere; - and after -- */
	{"a -o yaml b", "@a o=yaml @b END", NULL},
	{"- -R", "@- R=1 END", NULL},
	{"-- -o x", "@-o @x END", NULL},
	{"-R -- --", "R=1 @-- END", NULL},
	/* kubectl's word separator normalisation */
	{"--field_selector=a", "field-selector=a END", NULL},
	/* help */
	{"-h", "HELP", NULL},
	{"--help", "HELP", NULL},
	{"-Rh", "R=1 HELP", NULL},
	{"--help=false -R", "R=1 END", NULL},
	/* errors */
	{"--foo", "ERR", "smpatch t: unknown option '--foo'"},
	{"--foo=1", "ERR", "smpatch t: unknown option '--foo'"},
	{"--dry", "ERR", "smpatch t: unknown option '--dry'"}, /* no abbreviations */
	{"-x", "ERR", "smpatch t: unknown option '-x'"},
	{"-Rx", "R=1 ERR", "smpatch t: unknown option '-x'"},
	{"---o", "ERR", "smpatch t: unknown option '---o'"},
	{"--=x", "ERR", "smpatch t: unknown option '--=x'"},
	{"-o", "ERR", "smpatch t: option '-o' needs a value"},
	{"--output", "ERR", "smpatch t: option '--output' needs a value"},
	{"-Rf", "R=1 ERR", "smpatch t: option '-f' needs a value"},
};

static void run(size_t k)
{
	char buf[512], *argv[32], out[1024], err[512];
	int argc = 0, c;
	size_t n = 0;
	cli_args a;
	FILE *f;

	snprintf(buf, sizeof(buf), "%s", cases[k].line);
	argv[argc++] = (char *)"t";
	for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
		argv[argc++] = strcmp(t, "\"\"") ? t : (char *)"";
	argv[argc] = NULL;

	/* The messages go to stderr: catch them in a file. */
	fflush(stderr);
	f = tmpfile();
	int saved = dup(2);
	dup2(fileno(f), 2);

	out[0] = '\0';
	cli_args_init(&a, argc, argv, opts);
	do {
		c = cli_args_next(&a);
		char item[128];
		if (c == CLI_ARGS_END)
			snprintf(item, sizeof(item), "END");
		else if (c == CLI_ARGS_HELP)
			snprintf(item, sizeof(item), "HELP");
		else if (c == CLI_ARGS_ERROR)
			snprintf(item, sizeof(item), "ERR");
		else if (c == CLI_ARGS_POSITIONAL)
			snprintf(item, sizeof(item), "@%s", a.value);
		else if (a.opt->kind == CLI_ARG_BOOL)
			snprintf(item, sizeof(item), "%s=%d",
			         a.opt->short_name ? (char[2]){a.opt->short_name, 0} : a.opt->name,
			         a.on);
		else
			snprintf(item, sizeof(item), "%s=%s",
			         c == O_DRY ? "dry" : a.opt->short_name ?
			         (char[2]){a.opt->short_name, 0} : a.opt->name, a.value);
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s", n ? " " : "", item);
	} while (c > 0 || c == CLI_ARGS_POSITIONAL);

	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	err[0] = '\0';
	if (!fgets(err, sizeof(err), f))
		err[0] = '\0';
	err[strcspn(err, "\n")] = '\0';
	fclose(f);

	if (strcmp(out, cases[k].want) != 0) {
		printf("FAIL: %s: got '%s', want '%s'\n", cases[k].line, out, cases[k].want);
		failures++;
	}
	if (cases[k].message && strcmp(err, cases[k].message) != 0) {
		printf("FAIL: %s: message '%s', want '%s'\n", cases[k].line, err, cases[k].message);
		failures++;
	}
	if (!cases[k].message && c != CLI_ARGS_ERROR && strcmp(cases[k].line, "--field_selector=a") &&
	    err[0]) {
		printf("FAIL: %s: unexpected message '%s'\n", cases[k].line, err);
		failures++;
	}
}

int main(void)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);

	for (size_t k = 0; k < n; k++)
		run(k);
	/* ParseBool's exact set */
	static const char *const good[] = {"1", "t", "T", "TRUE", "true", "True",
	                                   "0", "f", "F", "FALSE", "false", "False"};
	static const char *const bad[] = {"", "yes", "on", "tRUE", "2", "true "};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		bool v = i < 6 ? false : true;
		if (!cli_args_parse_bool(good[i], &v) || v != (i < 6)) {
			printf("FAIL: ParseBool '%s'\n", good[i]);
			failures++;
		}
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bool v;
		if (cli_args_parse_bool(bad[i], &v)) {
			printf("FAIL: ParseBool accepted '%s'\n", bad[i]);
			failures++;
		}
	}
	if (failures)
		return 1;
	printf("ok: %zu command lines\n", n);
	return 0;
}
