/*
 * args.c - the command-line parser of every command (args.h), following
 * pflag's parseLongArg / parseSingleShortArg so that what kubectl accepts
 * is accepted here, with the same meaning.
 */
#include "args.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* -h / --help: every command's, not in the tables. */
static const cli_option help_option = {"help", 'h', CLI_ARG_BOOL, CLI_ARGS_HELP, NULL, NULL};

void cli_args_init(cli_args *a, int argc, char **argv, const cli_option *opts)
{
	memset(a, 0, sizeof(*a));
	a->cmd = argc > 0 ? argv[0] : "";
	a->argc = argc;
	a->argv = argv;
	a->opts = opts;
	a->next = 1;
}

bool cli_args_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
	static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(s, yes[i]) == 0) {
			*out = true;
			return true;
		}
		if (strcmp(s, no[i]) == 0) {
			*out = false;
			return true;
		}
	}
	return false;
}

/* Long names compare with '_' read as '-' (kubectl's WordSepNormalizeFunc). */
static bool name_is(const char *name, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && name[i]; i++)
		if (name[i] != (s[i] == '_' ? '-' : s[i]))
			return false;
	return i == n && name[i] == '\0';
}

const cli_option *cli_args_find(const cli_option *opts, const char *name, size_t n, char c)
{
	for (const cli_option *o = opts; o && o->name; o++)
		if (name ? name_is(o->name, name, n) : (c && o->short_name == c))
			return o;
	if (name ? name_is(help_option.name, name, n) : c == help_option.short_name)
		return &help_option;
	return NULL;
}

/* The result for option o with value v (NULL: none given). */
static int found(cli_args *a, const cli_option *o, const char *v)
{
	a->opt = o;
	a->value = v;
	a->on = false;
	if (o->kind == CLI_ARG_BOOL) {
		a->value = NULL;
		a->on = true;
		if (v && !cli_args_parse_bool(v, &a->on)) {
			cli_usage(a->cmd, "invalid value for %s: '%s' (true or false)", a->spelled, v);
			return CLI_ARGS_ERROR;
		}
		if (o->id == CLI_ARGS_HELP && !a->on)
			return cli_args_next(a); /* --help=false: as if absent */
	} else if (o->kind == CLI_ARG_OPTIONAL && !v) {
		a->value = o->noopt;
	}
	return o->id;
}

static int unknown(cli_args *a, const char *spelled)
{
	cli_usage(a->cmd, "unknown option '%s'", spelled);
	return CLI_ARGS_ERROR;
}

static int needs_value(cli_args *a)
{
	cli_usage(a->cmd, "option '%s' needs a value", a->spelled);
	return CLI_ARGS_ERROR;
}

/* The next short option of the group a->shorts ("Rf" of -Rf). */
static int next_short(cli_args *a)
{
	const char *s = a->shorts;
	const cli_option *o = cli_args_find(a->opts, NULL, 0, s[0]);

	snprintf(a->spelled, sizeof(a->spelled), "-%c", s[0]);
	a->shorts = s[1] ? s + 1 : NULL;
	if (!o)
		return unknown(a, a->spelled);
	if (s[1] == '=' && s[2]) { /* -o=json, -R=false (pflag: "-f=" gives "=") */
		a->shorts = NULL;
		return found(a, o, s + 2);
	}
	if (o->kind != CLI_ARG_VALUE)
		return found(a, o, NULL);
	if (s[1]) { /* -ojson, -Rfdir */
		a->shorts = NULL;
		return found(a, o, s + 1);
	}
	if (a->next >= a->argc)
		return needs_value(a);
	return found(a, o, a->argv[a->next++]);
}

static int next_long(cli_args *a, const char *arg)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t n = eq ? (size_t)(eq - name) : strlen(name);
	const cli_option *o;

	if (n == 0 || name[0] == '-')
		return unknown(a, arg);
	o = cli_args_find(a->opts, name, n, 0);
	snprintf(a->spelled, sizeof(a->spelled), "--%.*s", (int)(n < 60 ? n : 60), name);
	if (!o)
		return unknown(a, a->spelled);
	if (strncmp(o->name, name, n) != 0) /* kubectl warns of '_' too */
		fprintf(stderr, "smpatch %s: warning: %s is deprecated, use --%s\n", a->cmd,
		        a->spelled, o->name);
	snprintf(a->spelled, sizeof(a->spelled), "--%s", o->name);
	if (eq)
		return found(a, o, eq + 1);
	if (o->kind != CLI_ARG_VALUE)
		return found(a, o, NULL);
	if (a->next >= a->argc)
		return needs_value(a);
	return found(a, o, a->argv[a->next++]);
}

int cli_args_next(cli_args *a)
{
	const char *arg;

	a->opt = NULL;
	a->value = NULL;
	a->on = false;
	a->spelled[0] = '\0';
	if (a->shorts)
		return next_short(a);
	if (a->next >= a->argc)
		return CLI_ARGS_END;
	arg = a->argv[a->next++];
	if (a->rest || arg[0] != '-' || arg[1] == '\0') {
		a->value = arg;
		return CLI_ARGS_POSITIONAL;
	}
	if (arg[1] == '-') {
		if (arg[2] == '\0') { /* "--": the rest are arguments */
			a->rest = true;
			return cli_args_next(a);
		}
		return next_long(a, arg);
	}
	a->shorts = arg + 1;
	return next_short(a);
}
