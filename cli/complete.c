/*
 * complete.c - shell completion: `smpatch completion bash|zsh` prints a
 * script; the script calls the hidden `smpatch __complete WORD...` (the
 * words after the program name, the last one being completed), which reads
 * the same option tables as the parser (args.h), so the two cannot drift.
 *
 * __complete prints a first line saying what to offer, then its data:
 *   words          then the candidates, one a line (whole words)
 *   files PART     complete PART (the end of the word) as a file name
 *   dirs PART      ... as a directory name
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const char completion_help[] =
	"Usage: smpatch completion bash|zsh\n"
	"\n"
	"Prints a script that makes the shell complete smpatch's commands, options,\n"
	"option values (output formats, patch types, ...) and file names. Load it\n"
	"in the current shell, or install it for every session:\n"
	"\n"
	"  source <(smpatch completion bash)          # bash, this shell\n"
	"  smpatch completion bash > /etc/bash_completion.d/smpatch\n"
	"  source <(smpatch completion zsh)           # zsh (after compinit)\n"
	"  smpatch completion zsh > \"${fpath[1]}/_smpatch\"\n"
	"\n"
	"Options:\n"
	"  -h, --help  show this help\n";

/* Joins the words bash split at COMP_WORDBREAKS (--output=json arrives as
 * "--output" "=" "json") by their positions in the line, so smpatch sees
 * the words it will be given; candidates are whole words, and what readline
 * replaces (the text after the last word break) is cut from their front. */
static const char bash_script[] =
	"# bash completion for smpatch (smpatch completion bash)\n"
	"_smpatch() {\n"
	"    local line=${COMP_LINE:0:COMP_POINT} w rest lead start pos=0 end=-1 i\n"
	"    local -a words=() out=()\n"
	"    for ((i = 0; i <= COMP_CWORD; i++)); do\n"
	"        w=${COMP_WORDS[i]}\n"
	"        rest=${line:pos}\n"
	"        lead=${rest%%[![:space:]]*}\n"
	"        start=$((pos + ${#lead}))\n"
	"        ((i == COMP_CWORD)) && w=${line:start}\n"
	"        if ((i > 1 && start == end)); then\n"
	"            words[-1]+=$w\n"
	"        elif ((i > 0)); then\n"
	"            words+=(\"$w\")\n"
	"        fi\n"
	"        pos=$((start + ${#w})) end=$((start + ${#w}))\n"
	"    done\n"
	"    if ((COMP_CWORD == 0)); then return; fi\n"
	"    mapfile -t out < <(\"${COMP_WORDS[0]}\" __complete \"${words[@]}\" 2>/dev/null)\n"
	"    local cur=${words[-1]} rl=${line##*[$COMP_WORDBREAKS]} pre c part\n"
	"    pre=${cur%\"$rl\"}\n"
	"    COMPREPLY=()\n"
	"    case ${out[0]} in\n"
	"    files* | dirs*)\n"
	"        part=${out[0]#* }; [[ ${out[0]} == *' '* ]] || part=\n"
	"        local head=${cur%\"$part\"}\n"
	"        compopt -o filenames 2>/dev/null\n"
	"        if [[ ${out[0]} == dirs* ]]; then\n"
	"            mapfile -t out < <(compgen -d -- \"$part\")\n"
	"        else\n"
	"            mapfile -t out < <(compgen -f -- \"$part\")\n"
	"        fi\n"
	"        for c in \"${out[@]}\"; do\n"
	"            c=$head$c\n"
	"            [[ $c == \"$pre\"* ]] && COMPREPLY+=(\"${c#\"$pre\"}\")\n"
	"        done ;;\n"
	"    words)\n"
	"        for c in \"${out[@]:1}\"; do\n"
	"            [[ $c == \"$pre\"* ]] && COMPREPLY+=(\"${c#\"$pre\"}\")\n"
	"        done ;;\n"
	"    esac\n"
	"}\n"
	"complete -F _smpatch smpatch kubectl-smpatch\n";

static const char zsh_script[] =
	"#compdef smpatch kubectl-smpatch\n"
	"# zsh completion for smpatch (smpatch completion zsh)\n"
	"_smpatch() {\n"
	"    local -a out\n"
	"    out=(\"${(@f)$(${words[1]} __complete \"${(@)words[2,CURRENT]}\" 2>/dev/null)}\")\n"
	"    case ${out[1]} in\n"
	"    files* | dirs*)\n"
	"        local part=${out[1]#* } cur=${words[CURRENT]}\n"
	"        [[ ${out[1]} == *' '* ]] || part=\n"
	"        compset -P \"${(b)cur%$part}\"\n"
	"        if [[ ${out[1]} == dirs* ]]; then _files -/; else _files; fi ;;\n"
	"    words)\n"
	"        (( ${#out} > 1 )) && compadd -Q -- \"${(@)out[2,-1]}\" ;;\n"
	"    esac\n"
	"}\n"
	"if [[ $funcstack[1] == _smpatch ]]; then _smpatch \"$@\"; "
	"else compdef _smpatch smpatch kubectl-smpatch; fi\n";

int cmd_completion(int argc, char **argv)
{
	const char *shell = NULL;
	cli_args a;
	int c;

	cli_args_init(&a, argc, argv, NULL);
	while ((c = cli_args_next(&a)) != CLI_ARGS_END) {
		switch (c) {
		case CLI_ARGS_HELP:
			fputs(completion_help, stdout);
			return CLI_OK;
		case CLI_ARGS_POSITIONAL:
			if (shell)
				return cli_usage(argv[0], "too many arguments");
			shell = a.value;
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (!shell)
		return cli_usage(argv[0], "missing SHELL (bash or zsh)");
	if (strcmp(shell, "bash") == 0)
		fputs(bash_script, stdout);
	else if (strcmp(shell, "zsh") == 0)
		fputs(zsh_script, stdout);
	else
		return cli_usage(argv[0], "unknown shell '%s' (bash or zsh)", shell);
	return CLI_OK;
}

/* ---- __complete ---- */

static bool starts(const char *s, const char *prefix, size_t n)
{
	return strncmp(s, prefix, n) == 0;
}

/* Prints the words of a completion spec ("json yaml", "@file", "@dir",
 * "@command"; NULL or "" nothing) that complete `part`, each after
 * `head` (what precedes the value in the word). */
static void offer(const char *spec, const char *head, size_t nhead, const char *part)
{
	size_t np = strlen(part);

	if (!spec || !*spec) {
		puts("words");
		return;
	}
	if (strcmp(spec, "@file") == 0 || strcmp(spec, "@dir") == 0) {
		printf("%s %s\n", spec[1] == 'f' ? "files" : "dirs", part);
		return;
	}
	puts("words");
	if (strcmp(spec, "@command") == 0) {
		for (const cli_command *c = cli_commands; c->name; c++)
			if (starts(c->name, part, np))
				printf("%.*s%s\n", (int)nhead, head, c->name);
		return;
	}
	for (const char *w = spec; *w;) {
		size_t n = strcspn(w, " ");
		if (n >= np && starts(w, part, np))
			printf("%.*s%.*s\n", (int)nhead, head, (int)n, w);
		w += n;
		w += strspn(w, " ");
	}
}

/* The spec of the argument at position `pos` ("view set;" -> pos 0 "view
 * set", later ""; "@file" -> every position). Copied into buf. */
static const char *arg_spec(const char *args, int pos, char *buf, size_t size)
{
	const char *s = args ? args : "";

	for (int i = 0; i < pos; i++) {
		const char *semi = strchr(s, ';');
		if (!semi)
			break; /* the last spec repeats */
		s = semi + 1;
	}
	snprintf(buf, size, "%.*s", (int)strcspn(s, ";"), s);
	return buf;
}

/* Every option, "--name" and "-x", that begins with cur. */
static void offer_options(const cli_option *opts, const char *cur)
{
	size_t n = strlen(cur);
	char w[80];

	puts("words");
	for (const cli_option *o = opts; o && o->name; o++) {
		snprintf(w, sizeof(w), "--%s", o->name);
		if (starts(w, cur, n))
			puts(w);
		if (o->short_name && n <= 2) {
			snprintf(w, sizeof(w), "-%c", o->short_name);
			if (starts(w, cur, n))
				puts(w);
		}
	}
	if (starts("--help", cur, n))
		puts("--help");
}

/* The current word begins with '-' (not "--"): a group of short options.
 * A value-taking option with text after it completes that text. */
static void complete_shorts(const cli_option *opts, const char *cur)
{
	for (size_t i = 1; cur[i]; i++) {
		const cli_option *o = cli_args_find(opts, NULL, 0, cur[i]);
		if (!o)
			break;
		if (o->kind == CLI_ARG_VALUE && cur[i + 1]) {
			size_t at = i + 1 + (cur[i + 1] == '=');
			offer(o->values, cur, at, cur + at);
			return;
		}
	}
	/* "-o", "-R": the word as it is (the shell adds a space). */
	puts("words");
	if (cli_args_find(opts, NULL, 0, cur[1]) && !cur[2])
		puts(cur);
}

int cmd_complete(int argc, char **argv)
{
	const cli_command *cmd = NULL;
	const cli_option *pending = NULL, *opts;
	const char *cur;
	bool rest = false;
	int npos = 0;
	char spec[256];

	if (argc < 2) {
		puts("words");
		return CLI_OK;
	}
	cur = argv[argc - 1];
	if (argc == 2) { /* the command name */
		if (cur[0] == '-') {
			puts("words");
			if (starts("--help", cur, strlen(cur)))
				puts("--help");
			if (starts("--version", cur, strlen(cur)))
				puts("--version");
		} else {
			offer("@command", "", 0, cur);
		}
		return CLI_OK;
	}
	for (const cli_command *c = cli_commands; c->name; c++)
		if (strcmp(argv[1], c->name) == 0)
			cmd = c;
	if (!cmd) {
		puts("words");
		return CLI_OK;
	}
	opts = cmd->opts;
	/* What the words before the current one leave open. */
	for (int i = 2; i < argc - 1; i++) {
		const char *w = argv[i];
		if (pending) {
			pending = NULL;
		} else if (rest || w[0] != '-' || !w[1]) {
			npos++;
		} else if (strcmp(w, "--") == 0) {
			rest = true;
		} else if (w[1] == '-') {
			const char *eq = strchr(w + 2, '=');
			const cli_option *o = cli_args_find(opts, w + 2,
			                                    eq ? (size_t)(eq - w - 2) : strlen(w + 2), 0);
			if (o && o->kind == CLI_ARG_VALUE && !eq)
				pending = o;
		} else {
			for (size_t k = 1; w[k]; k++) {
				const cli_option *o = cli_args_find(opts, NULL, 0, w[k]);
				if (!o || o->kind == CLI_ARG_VALUE) {
					if (o && !w[k + 1])
						pending = o;
					break;
				}
			}
		}
	}
	if (pending) {
		offer(pending->values, "", 0, cur);
	} else if (!rest && starts(cur, "--", 2) && strchr(cur, '=')) {
		const char *eq = strchr(cur, '=');
		const cli_option *o = cli_args_find(opts, cur + 2, (size_t)(eq - cur - 2), 0);
		offer(!o ? NULL : o->kind == CLI_ARG_BOOL ? "true false" : o->values, cur,
		      (size_t)(eq + 1 - cur), eq + 1);
	} else if (!rest && (strcmp(cur, "-") == 0 || starts(cur, "--", 2))) {
		offer_options(opts, cur);
	} else if (!rest && cur[0] == '-') {
		complete_shorts(opts, cur);
	} else {
		offer(arg_spec(cmd->args, npos, spec, sizeof(spec)), "", 0, cur);
	}
	return CLI_OK;
}
