/*
 * diff_dirs.c - `-o diff` through an external program, as `kubectl diff`
 * runs KUBECTL_EXTERNAL_DIFF: the two sides of every entry written into
 * two temporary directories (LIVE-XXXXXX and MERGED-XXXXXX, each object a
 * file named as kubectl names it), then one run of the program over them.
 */
#include "diff_dirs.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct cli_diff_dirs {
	char live[4096], merged[4096];
	char **files;   /* every file written, to remove them */
	size_t n;
};

/* A new directory PREFIX-XXXXXX in $TMPDIR (else /tmp) into buf. */
static bool make_dir(char *buf, size_t size, const char *prefix)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if ((size_t)snprintf(buf, size, "%s/%s-XXXXXX", tmp, prefix) >= size)
		return false;
	return mkdtemp(buf) != NULL;
}

cli_diff_dirs *cli_diff_dirs_new(void)
{
	cli_diff_dirs *d = calloc(1, sizeof(*d));

	if (!d) {
		fprintf(stderr, "smpatch: error: out of memory\n");
		return NULL;
	}
	if (!make_dir(d->live, sizeof(d->live), "LIVE")) {
		fprintf(stderr, "smpatch: error: cannot make a directory for the diff: %s\n",
		        strerror(errno));
		free(d);
		return NULL;
	}
	if (!make_dir(d->merged, sizeof(d->merged), "MERGED")) {
		fprintf(stderr, "smpatch: error: cannot make a directory for the diff: %s\n",
		        strerror(errno));
		rmdir(d->live);
		free(d);
		return NULL;
	}
	return d;
}

void cli_diff_dirs_free(cli_diff_dirs *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		unlink(d->files[i]);
		free(d->files[i]);
	}
	free(d->files);
	rmdir(d->live);
	rmdir(d->merged);
	free(d);
}

/* Writes text into DIR/NAME and remembers the file. */
static int write_file(cli_diff_dirs *d, const char *dir, const char *name, const char *text,
                      size_t len, smp_error *err)
{
	size_t plen = strlen(dir) + strlen(name) + 2;
	char *path = malloc(plen), **grown;
	FILE *f;

	if (!path || !(grown = realloc(d->files, (d->n + 1) * sizeof(*grown)))) {
		free(path);
		memset(err, 0, sizeof(*err));
		err->code = SMP_ENOMEM;
		snprintf(err->message, sizeof(err->message), "out of memory");
		return SMP_ENOMEM;
	}
	d->files = grown;
	snprintf(path, plen, "%s/%s", dir, name);
	d->files[d->n++] = path;
	if (!(f = fopen(path, "w")) || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
		memset(err, 0, sizeof(*err));
		err->code = SMP_EIO;
		snprintf(err->file, sizeof(err->file), "%s", path);
		snprintf(err->message, sizeof(err->message), "cannot write: %s", strerror(errno));
		return SMP_EIO;
	}
	return 0;
}

int cli_diff_dirs_add(cli_diff_dirs *d, const smp_plan_entry *e, unsigned flags,
                      smp_error *err)
{
	char *live = NULL, *merged = NULL, name[1024];
	size_t llen = 0, mlen = 0;
	int rc;

	if (smp_plan_entry_diff_name(name, sizeof(name), e) >= sizeof(name) || strchr(name, '/')) {
		memset(err, 0, sizeof(*err));
		err->code = SMP_EINVALOBJ;
		snprintf(err->message, sizeof(err->message), "cannot name a file for the diff: "
		         "%.900s", name);
		return SMP_EINVALOBJ;
	}
	if ((rc = smp_plan_entry_diff_sides(&live, &llen, &merged, &mlen, e, flags, err)))
		return rc;
	/* the side an object lacks is no file (diff -N reads it as empty) */
	if (live)
		rc = write_file(d, d->live, name, live, llen, err);
	if (!rc && merged)
		rc = write_file(d, d->merged, name, merged, mlen, err);
	smp_free(live);
	smp_free(merged);
	return rc;
}

int cli_diff_dirs_run(cli_diff_dirs *d, const char *program)
{
	char *copy = strdup(program), *save = NULL, *w;
	char *argv[64];
	int argc = 0, status = 0, rc;
	pid_t pid;

	if (!copy) {
		fprintf(stderr, "smpatch: error: out of memory\n");
		return 2;
	}
	/* kubectl: the words of KUBECTL_EXTERNAL_DIFF split at spaces; the
	 * program, the two directories, then those of its arguments made of
	 * letters, digits, '-' and '=' only (the others are dropped) */
	w = strtok_r(copy, " ", &save);
	argv[argc++] = w ? w : copy;
	argv[argc++] = d->live;
	argv[argc++] = d->merged;
	while ((w = strtok_r(NULL, " ", &save)) && argc < 63)
		if (strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-=") ==
		    strlen(w))
			argv[argc++] = w;
	argv[argc] = NULL;
	rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (rc) {
		fprintf(stderr, "smpatch: error: KUBECTL_EXTERNAL_DIFF: cannot run \"%s\": %s\n",
		        argv[0], strerror(rc));
		free(copy);
		return 2;
	}
	free(copy);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 2;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	fprintf(stderr, "smpatch: error: KUBECTL_EXTERNAL_DIFF: the program ended by signal "
	        "%d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return 2;
}
