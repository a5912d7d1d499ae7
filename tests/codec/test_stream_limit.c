/*
 * test_stream_limit.c - the input limit (smp_parse_options.max_bytes,
 * default SMP_DEFAULT_MAX_BYTES) holds for streams and files: input over
 * the limit is refused with SMP_ELIMIT, a stream is not read much past the
 * limit, and the reader never holds more than the limit plus a small
 * constant. Run with a limit of a few MiB so CI needs no gigabytes.
 *
 * usage: test_stream_limit            (the test)
 *        test_stream_limit --child L  (reads stdin with limit L; used for
 *                                      the memory measurement)
 */
#define _DEFAULT_SOURCE /* wait4 */
#include "smpatch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

#include "../check.h"

#define MiB ((size_t)1 << 20)

/* Writes n bytes of YAML-ish filler to fd (stops quietly on EPIPE). */
static void fill(int fd, size_t n)
{
	static char chunk[65536];

	memset(chunk, 'a', sizeof(chunk));
	while (n > 0) {
		size_t k = n < sizeof(chunk) ? n : sizeof(chunk);
		ssize_t w = write(fd, chunk, k);
		if (w <= 0)
			return;
		n -= (size_t)w;
	}
}

/* Reads stdin with limit `limit`: exit 0 when refused with SMP_ELIMIT. */
static int child(size_t limit)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc = NULL;
	smp_error err;

	po.max_bytes = limit;
	int rc = smp_doc_parse_file(&doc, "-", &po, &err);
	smp_doc_free(doc);
	return rc == SMP_ELIMIT ? 0 : 1;
}

#ifndef SANITIZED
/* Runs this program as `--child limit` over a pipe fed `n` bytes; returns
 * its peak RSS in bytes (0 on failure). */
static size_t child_peak(const char *self, size_t limit, size_t n, int *status)
{
	int p[2];
	char lim[32];
	struct rusage ru;
	pid_t pid;

	if (pipe(p) != 0)
		return 0;
	snprintf(lim, sizeof(lim), "%zu", limit);
	pid = fork();
	if (pid == 0) {
		dup2(p[0], 0);
		close(p[0]);
		close(p[1]);
		execl(self, self, "--child", lim, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	fill(p[1], n);
	close(p[1]);
	if (pid < 0 || wait4(pid, status, 0, &ru) != pid)
		return 0;
	return (size_t)ru.ru_maxrss * 1024;
}

#endif

/* A stream over the limit is refused, and read no further than the limit
 * plus stdio's buffer. */
static void test_pipe_stops(void)
{
	const size_t limit = 1 * MiB, total = 4 * MiB;
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc = NULL;
	smp_error err;
	int p[2];
	pid_t pid;

	CHECK(pipe(p) == 0);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		fill(p[1], total);
		_exit(0);
	}
	close(p[1]);
	/* smp_doc_parse_file reads "-" from stdin. */
	int saved = dup(0);
	dup2(p[0], 0);
	close(p[0]);
	po.max_bytes = limit;
	int rc = smp_doc_parse_file(&doc, "-", &po, &err);
	CHECK(rc == SMP_ELIMIT);
	CHECK(doc == NULL);
	CHECK(strstr(err.message, "limit of 1048576 bytes") != NULL);
	CHECK(strcmp(err.file, "<stdin>") == 0);
	/* What is left (in stdin's buffer and in the pipe) was not used:
	 * the library took the limit plus one byte. */
	size_t left = 0, got;
	char buf[65536];
	while ((got = fread(buf, 1, sizeof(buf), stdin)) > 0)
		left += got;
	CHECK(total - left == limit + 1);
	clearerr(stdin);
	dup2(saved, 0);
	close(saved);
	waitpid(pid, NULL, 0);

	/* A stream exactly at the limit is read. */
	CHECK(pipe(p) == 0);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		ssize_t w = write(p[1], "a: ", 3);
		(void)w;
		fill(p[1], limit - 3);
		_exit(0);
	}
	close(p[1]);
	saved = dup(0);
	dup2(p[0], 0);
	close(p[0]);
	rc = smp_doc_parse_file(&doc, "-", &po, &err);
	if (rc)
		fprintf(stderr, "at the limit: %s\n", err.message);
	CHECK(rc == 0);
	smp_doc_free(doc);
	clearerr(stdin);
	dup2(saved, 0);
	close(saved);
	waitpid(pid, NULL, 0);
}

/* A regular file over the limit is refused before it is read (a sparse
 * file: nothing is written to disk), as file and as stdin, read or mapped. */
static void test_file_refused(void)
{
	char path[] = "/tmp/smp-limit-XXXXXX";
	int fd = mkstemp(path);
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc = NULL;
	smp_error err;

	CHECK(fd >= 0);
	CHECK(ftruncate(fd, (off_t)(SMP_DEFAULT_MAX_BYTES + 1)) == 0);
	for (int map = 0; map < 2; map++) {
		po.map_file = map;
		int rc = smp_doc_parse_file(&doc, path, &po, &err);
		CHECK(rc == SMP_ELIMIT);
		CHECK(strstr(err.message, "limit of 1073741824 bytes") != NULL);
		CHECK(strcmp(err.file, path) == 0);
	}
	int saved = dup(0);
	dup2(fd, 0);
	lseek(0, 0, SEEK_SET);
	po.map_file = false;
	CHECK(smp_doc_parse_file(&doc, "-", &po, &err) == SMP_ELIMIT);
	dup2(saved, 0);
	close(saved);
	/* Just over a small limit. */
	CHECK(ftruncate(fd, (off_t)(MiB + 1)) == 0);
	po.max_bytes = MiB;
	CHECK(smp_doc_parse_file(&doc, path, &po, &err) == SMP_ELIMIT);
	close(fd);
	unlink(path);
}

#ifndef SANITIZED
/* The memory held while a stream is refused: at most the limit plus a small
 * constant (it was twice the limit: the buffer doubled past it). */
static void test_memory(const char *self)
{
	const size_t limit = 64 * MiB;
	int st1 = -1, st2 = -1;
	size_t base = child_peak(self, limit, 1024, &st1);
	size_t peak = child_peak(self, limit, 3 * limit, &st2);

	CHECK(WIFEXITED(st2) && WEXITSTATUS(st2) == 0);
	CHECK(base > 0 && peak > 0);
	printf("peak RSS reading %zu MiB with a %zu MiB limit: %zu MiB (baseline %zu MiB)\n",
	       3 * limit / MiB, limit / MiB, peak / MiB, base / MiB);
	CHECK(peak <= base + limit + 8 * MiB);
}
#endif

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child((size_t)strtoull(argv[2], NULL, 10));
	signal(SIGPIPE, SIG_IGN);
	test_pipe_stops();
	test_file_refused();
#ifdef SANITIZED
	/* The sanitizer's allocator copies on realloc and keeps freed memory
	 * in quarantine: peak memory is measured in the plain build only. */
	printf("memory check skipped under the sanitizer\n");
#else
	test_memory(argv[0]);
#endif
	if (failures)
		printf("%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
