/*
 * common.c - error reporting, exit codes and output for the subcommands.
 */
#include "cli.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_exit_code(int code)
{
	switch (code) {
	case SMP_OK:
		return CLI_OK;
	case SMP_EINVAL:
		return CLI_USAGE;
	case SMP_EPARSE:
	case SMP_EPATCH:
	case SMP_ESCHEMA:
	case SMP_ELIMIT:
	case SMP_EINVALOBJ:
		return CLI_INVALID;
	case SMP_ECONFLICT:
	case SMP_EPRECOND:
		return CLI_CONFLICT;
	case SMP_EIO:
		/* A file that cannot be read is bad input from the user's side. */
		return CLI_INVALID;
	default:
		return CLI_INTERNAL;
	}
}

/* The library names no command-line flags: where a flag is the way out,
 * the CLI says which (in kubectl's words where kubectl has the message). */
static void add_hint(char *line, size_t size, int code)
{
	static const char ns_msg[] = "the namespace from the provided object \"";
	size_t n = strlen(line);
	const char *p;

	if (code == SMP_ESCHEMA && strstr(line, "no strategic merge schema for ")) {
		snprintf(line + n, size - n, "; for custom resources use --type merge");
	} else if (code == SMP_ESCHEMA &&
	           strstr(line, "strategic merge patch is not supported for ")) {
		snprintf(line + n, size - n, " locally, try --type merge");
	} else if (code == SMP_ECONFLICT &&
	           strstr(line, "changed in the live object since the last apply")) {
		snprintf(line + n, size - n, " (--overwrite=false)");
	} else if (code == SMP_EINVALOBJ && (p = strstr(line, ns_msg))) {
		p += sizeof(ns_msg) - 1;
		snprintf(line + n, size - n, ". You must pass '--namespace=%.*s' to perform this "
		         "operation.", (int)strcspn(p, "\""), p);
	}
}

int cli_fail(const smp_error *err)
{
	char line[SMP_ERROR_MESSAGE_MAX + SMP_ERROR_FILE_MAX + SMP_ERROR_PATH_MAX + 64];
	smp_error e = *err;

	/* smp_error_format puts the location first; "error:" goes after it. */
	if (e.file[0]) {
		char loc[SMP_ERROR_FILE_MAX + 32];
		if (e.line && e.column)
			snprintf(loc, sizeof(loc), "%s:%u:%u", e.file, e.line, e.column);
		else if (e.line)
			snprintf(loc, sizeof(loc), "%s:%u", e.file, e.line);
		else
			snprintf(loc, sizeof(loc), "%s", e.file);
		e.file[0] = '\0';
		smp_error_format(line, sizeof(line), &e);
		add_hint(line, sizeof(line), e.code);
		fprintf(stderr, "smpatch: %s: error: %s\n", loc, line);
	} else {
		smp_error_format(line, sizeof(line), &e);
		add_hint(line, sizeof(line), e.code);
		fprintf(stderr, "smpatch: error: %s\n", line);
	}
	return cli_exit_code(err->code);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "smpatch %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'smpatch %s --help'.\n", cmd);
	return CLI_USAGE;
}

int cli_args_other(const cli_args *a, int c, const char *help, const char **pos,
                   size_t *npos, size_t max)
{
	switch (c) {
	case CLI_ARGS_POSITIONAL:
		if (*npos == max)
			return cli_usage(a->argv[0], "too many arguments");
		pos[(*npos)++] = a->value;
		return -1;
	case CLI_ARGS_HELP:
		fputs(help, stdout);
		return CLI_OK;
	default:
		return CLI_USAGE;
	}
}

/* Whether cli_write has reported a failure (the program's output is
 * written from one thread; this is the CLI, not the library). */
static bool write_failed;

bool cli_write(const char *buf, size_t len)
{
	if (len && fwrite(buf, 1, len, stdout) != len) {
		if (!write_failed)
			fprintf(stderr, "smpatch: error: writing output: %s\n", strerror(errno));
		write_failed = true;
		return false;
	}
	return true;
}

int cli_finish(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		if (!write_failed) /* else cli_write has said so */
			fprintf(stderr, "smpatch: error: writing output: %s\n", strerror(errno));
		return CLI_INTERNAL;
	}
	return code;
}

int cli_output_option(const char *cmd, const char *name, smp_output *out)
{
	if (strcmp(name, "json") == 0)
		*out = SMP_OUT_JSON_INDENT;
	else if (strcmp(name, "yaml") == 0)
		*out = SMP_OUT_YAML;
	else
		return cli_usage(cmd, "unknown output format '%s' (json or yaml)", name);
	return CLI_OK;
}

static int write_stdout(void *ctx, const char *data, size_t len)
{
	(void)ctx;
	return cli_write(data, len) ? 0 : 1;
}

int cli_stream_value(const smp_value *v, smp_output out, bool sort_keys, smp_error *err)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;

	po.output = out;
	po.sort_keys = sort_keys;
	/* kubectl's JSON (json.Marshal / MarshalIndent) escapes <, >, &. */
	po.go_escape = out != SMP_OUT_YAML;
	return smp_print_to(write_stdout, NULL, v, &po, err);
}

/* ---- parsing input files side by side ---- */

int cli_parse_file(smp_doc **doc, const char *path, smp_error *err)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;

	po.map_file = true;
	return smp_doc_parse_file(doc, path, &po, err);
}

typedef struct parse_job {
	smp_doc *doc;
	const char *file;
	smp_error err;
	int rc;
} parse_job;

/* The files to parse; each thread takes the next one not yet taken. */
typedef struct parse_queue {
	parse_job *jobs;
	size_t n;
	atomic_size_t next;
} parse_queue;

static void *parse_worker(void *arg)
{
	parse_queue *q = arg;
	size_t i;

	while ((i = atomic_fetch_add(&q->next, 1)) < q->n) {
		parse_job *j = &q->jobs[i];
		memset(&j->err, 0, sizeof(j->err));
		j->rc = cli_parse_file(&j->doc, j->file, &j->err);
	}
	return NULL;
}

int cli_parse_files(smp_doc **docs, const char *const *files, size_t n, smp_error *err)
{
	parse_job jobs[8];
	pthread_t tid[8];
	size_t nthreads = 0;
	parse_queue q;
	int rc = 0;

	if (n == 0)
		return 0;
	if (n > 8) {
		memset(err, 0, sizeof(*err));
		err->code = SMP_EINVAL;
		snprintf(err->message, sizeof(err->message), "cli_parse_files: at most 8 files");
		for (size_t i = 0; i < n; i++)
			docs[i] = NULL;
		return SMP_EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		jobs[i].doc = NULL;
		jobs[i].file = files[i];
		jobs[i].rc = 0;
		docs[i] = NULL;
	}
	q.jobs = jobs;
	q.n = n;
	atomic_init(&q.next, 0);
	/* One thread per core at most (more would only take turns), this one
	 * included; the library is thread-safe and the documents independent.
	 * Should no thread start, this one parses every file. */
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t want = cores > 1 ? (size_t)cores - 1 : 0;
	for (size_t i = 0; i < want && i + 1 < n; i++)
		if (pthread_create(&tid[nthreads], NULL, parse_worker, &q) == 0)
			nthreads++;
	parse_worker(&q);
	for (size_t i = 0; i < nthreads; i++)
		pthread_join(tid[i], NULL);
	/* The first failure in argument order is the one reported. */
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].rc && !rc) {
			rc = jobs[i].rc;
			*err = jobs[i].err;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (rc)
			smp_doc_free(jobs[i].doc);
		else
			docs[i] = jobs[i].doc;
	}
	return rc;
}
