/*
 * test_files.c - smp_doc_parse_file: regular files are read (or mapped,
 * with map_file), pipes and devices read; each way gives exactly what
 * smp_doc_parse gives for the same
 * bytes (values, errors with file:line:col, limits). Large inputs get one
 * arena block sized for the whole tree.
 */
#include "smpatch.h"
#include "codec.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"

static char dir[] = "/tmp/smp_test_files_XXXXXX";

static void write_file(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(s, 1, n, f) != n || fclose(f) != 0) {
		printf("cannot write %s\n", path);
		exit(1);
	}
}

/* Parses text from memory and from a file (read, or mapped); they must
 * agree. */
static void same_way(const char *name, const char *text, size_t n, size_t max_bytes,
                     smp_format fmt, bool map)
{
	char path[256];
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *d1 = NULL, *d2 = NULL;
	smp_error e1, e2;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_file(path, text, n);
	po.filename = path;
	po.max_bytes = max_bytes;
	po.format = fmt;
	memset(&e1, 0, sizeof(e1));
	memset(&e2, 0, sizeof(e2));
	int rc1 = smp_doc_parse(&d1, text, n, &po, &e1);
	po.filename = NULL; /* the path is the name */
	po.map_file = map;
	int rc2 = smp_doc_parse_file(&d2, path, &po, &e2);
	if (n > max_bytes && max_bytes) {
		/* From a file the size is known before reading. */
		CHECK(rc1 == SMP_ELIMIT && rc2 == SMP_ELIMIT && strstr(e2.message, "limit"),
		      "%s: over the limit: %d %d %s", name, rc1, rc2, e2.message);
	} else {
		CHECK(rc1 == rc2, "%s: rc %d vs %d (%s / %s)", name, rc1, rc2, e1.message, e2.message);
		if (rc1 == 0 && rc2 == 0) {
			CHECK(smp_doc_count(d1) == smp_doc_count(d2), "%s: root count", name);
			for (size_t i = 0; i < smp_doc_count(d1); i++)
				CHECK(smp_value_equal(smp_doc_root(d1, i), smp_doc_root(d2, i)) &&
				              smp_value_line(smp_doc_root(d1, i)) ==
				                      smp_value_line(smp_doc_root(d2, i)),
				      "%s: root %zu differs", name, i);
		} else if (rc1 == rc2) {
			CHECK(strcmp(e1.message, e2.message) == 0 && e1.line == e2.line &&
			              e1.column == e2.column && strcmp(e2.file, path) == 0,
			      "%s: errors differ: %s:%u:%u %s vs %s:%u:%u %s", name, e1.file, e1.line,
			      e1.column, e1.message, e2.file, e2.line, e2.column, e2.message);
		}
	}
	smp_doc_free(d1);
	smp_doc_free(d2);
	unlink(path);
}

static void same_fmt(const char *name, const char *text, size_t n, size_t max_bytes,
                     smp_format fmt)
{
	same_way(name, text, n, max_bytes, fmt, false);
	same_way(name, text, n, max_bytes, fmt, true);
}

/* A version 1 options struct (before map_file) is still accepted; an
 * unknown version is not. */
static void test_options_version(void)
{
	char path[256];
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *d = NULL;
	smp_error e;

	snprintf(path, sizeof(path), "%s/v1.json", dir);
	write_file(path, "{\"a\": [1, 2]}", 13);
	po.version = 1;
	int rc = smp_doc_parse_file(&d, path, &po, &e);
	CHECK(rc == 0 && smp_value_len(smp_map_get(smp_doc_root(d, 0), "a")) == 2,
	      "version 1 options: rc %d", rc);
	smp_doc_free(d);
	d = NULL;
	rc = smp_doc_parse(&d, "{}", 2, &po, &e);
	CHECK(rc == 0, "version 1 options, smp_doc_parse: rc %d", rc);
	smp_doc_free(d);
	d = NULL;
	po.version = 3;
	rc = smp_doc_parse_file(&d, path, &po, &e);
	CHECK(rc == SMP_EINVAL && !d, "version 3 options: rc %d", rc);
	rc = smp_doc_parse(&d, "{}", 2, &po, &e);
	CHECK(rc == SMP_EINVAL && !d, "version 3 options, smp_doc_parse: rc %d", rc);
	unlink(path);
}

static void same(const char *name, const char *text, size_t n, size_t max_bytes)
{
	same_fmt(name, text, n, max_bytes, SMP_FORMAT_AUTO);
}

static char *big_json(size_t items, size_t *len)
{
	smp_buf b;

	smp_buf_init(&b);
	smp_buf_puts(&b, "{\"kind\":\"List\",\"items\":[");
	for (size_t i = 0; i < items; i++)
		smp_buf_printf(&b, "%s{\"name\":\"item-%zu\",\"value\":\"v\\\"%zu\\\"\",\"n\":%zu}",
		               i ? "," : "", i, i * 7, i);
	smp_buf_puts(&b, "]}");
	return smp_buf_detach(&b, len);
}

static void test_regular(void)
{
	size_t n;
	char *big = big_json(60000, &n); /* about 4 MB: one block for the tree */

	same("big.json", big, n, 0);
	same("limit.json", big, n, n - 1);
	same("exact.json", big, n, n);
	/* Read as YAML: the JSON reader (which gives mapped pages back as it
	 * goes) first, then libyaml from the start when JSON is not enough
	 * (here: a comment after the value). */
	same_fmt("big-as.yaml", big, n, 0, SMP_FORMAT_YAML);
	{
		char *y = malloc(n + 8);
		memcpy(y, big, n);
		memcpy(y + n, "\n# end\n", 7);
		same_fmt("big-comment.yaml", y, n + 7, 0, SMP_FORMAT_YAML);
		free(y);
	}
	/* Invalid UTF-8 late in a large file: the reader works on a
	 * converted copy, not the mapping. */
	{
		char *c = malloc(n);
		memcpy(c, big, n);
		c[n - 40] = (char)0xff;
		same("big-latin1.json", c, n, 0);
		free(c);
	}
	/* An error near the end of a large file: same position. */
	big[n - 5] = 'x';
	same("bad.json", big, n, 0);
	free(big);
	same("empty.json", "", 0, 0);
	same("blank.yaml", "\n\n# nothing\n", 12, 0);
	same("doc.yaml", "a: 1\nb: [x, y]\n---\nc: \"\\u00e9\"\n", 31, 0);
	same("bad.yaml", "a: 1\n  b: 2\n", 12, 0);
	same("bom.json", "\xef\xbb\xbf{\"a\":1}", 10, 0);
	same("latin1.json", "{\"a\":\"\xe9\"}", 9, 0);
	same("noeol.json", "{\"a\":[1,2", 9, 0);
}

/* A large input gets one block sized for its whole tree. */
static void test_one_block(void)
{
	size_t n;
	char *big = big_json(60000, &n);
	smp_doc *doc = NULL;
	smp_error err;

	CHECK(smp_doc_parse(&doc, big, n, NULL, &err) == 0, "parse: %s", err.message);
	if (doc) {
		const smp_arena_block *first = doc->arena.head;
		while (first && first->prev)
			first = first->prev;
		CHECK(first && first->size >= 3 * n, "first block of %zu bytes for %zu",
		      first ? first->size : 0, n);
	}
	smp_doc_free(doc);
	free(big);
}

#if defined(__SANITIZE_ADDRESS__)
#define SMP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SMP_ASAN 1
#endif
#endif

/* With too little address space for the hinted block (a strict overcommit
 * policy, a ulimit -v), the arena falls back to ordinary blocks. */
static void test_hint_fallback(void)
{
#if defined(SMP_ASAN)
	printf("(address space test skipped under AddressSanitizer)\n");
#else
	size_t n = 8u << 20;
	char *text = malloc(n + 16);
	pid_t pid;
	int status;

	memcpy(text, "{\"a\":\"", 6);
	memset(text + 6, 'x', n - 8);
	memcpy(text + n - 2, "\"}", 2);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		long pages = 0;
		FILE *f = fopen("/proc/self/statm", "r");
		if (!f || fscanf(f, "%ld", &pages) != 1)
			_exit(77);
		fclose(f);
		/* Room for the tree (about n) but not for 3n + 1 MiB. */
		struct rlimit rl;
		rl.rlim_cur = rl.rlim_max =
			(rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (rlim_t)(2 * n) + (6u << 20);
		if (setrlimit(RLIMIT_AS, &rl) != 0)
			_exit(77);
		smp_doc *doc = NULL;
		smp_error err;
		int rc = smp_doc_parse(&doc, text, n, NULL, &err);
		size_t len = 0;
		smp_value_string(smp_map_get(smp_doc_root(doc, 0), "a"), &len);
		_exit(rc == 0 && len == n - 8 ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	              (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 77),
	      "parse with little address space failed");
	free(text);
#endif
}

/* JSON is read as it is first; invalid UTF-8 anywhere makes it read the
 * cleaned text instead, as kubectl's decoder sees it: a truncated sequence
 * is one U+FFFD (maximal subpart), errors name the cleaned bytes. */
static void test_invalid_utf8(void)
{
	static const struct {
		const char *in, *key, *want, *err;
	} cases[] = {
		{"{\"a\":\"\xe2\x82x\"}", "a", "\xef\xbf\xbdx", NULL},
		{"{\"a\":\"\xff\xfe\"}", "a", "\xef\xbf\xbd\xef\xbf\xbd", NULL},
		{"{\"a\":\"ok\",\"b\":\"\xf0\x9f\x98\"}", "b", "\xef\xbf\xbd", NULL},
		{"{\"\xc3\":1}", "\xef\xbf\xbd", NULL, NULL},
		{"{\"a\":1}\xff", NULL, NULL, "unexpected byte 0xef"},
		{"{\"a\":\"\xff\",}", NULL, NULL, "unexpected character '}'"},
		{"{\"a\":\"\xe9\"\n,\n\"a\":2}", NULL, NULL, "duplicate key \"a\""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		smp_doc *doc = NULL;
		smp_error err;
		int rc = smp_doc_parse(&doc, cases[i].in, strlen(cases[i].in), NULL, &err);
		if (cases[i].err) {
			CHECK(rc == SMP_EPARSE && strstr(err.message, cases[i].err),
			      "case %zu: rc %d %s", i, rc, rc ? err.message : "");
		} else if (cases[i].want) {
			size_t n = 0;
			const char *v = smp_value_string(smp_map_get(smp_doc_root(doc, 0), cases[i].key), &n);
			CHECK(rc == 0 && v && n == strlen(cases[i].want) && memcmp(v, cases[i].want, n) == 0,
			      "case %zu: rc %d %s", i, rc, rc ? err.message : "");
		} else {
			CHECK(rc == 0 && smp_map_get(smp_doc_root(doc, 0), cases[i].key),
			      "case %zu: rc %d %s", i, rc, rc ? err.message : "");
		}
		smp_doc_free(doc);
	}
}

/* Standard input (a pipe here) and devices are read, not mapped. */
static void test_pipe_and_devices(void)
{
	const char *text = "{\"a\":[1,2,3],\"b\":\"x\"}";
	int fd[2], saved = dup(0);
	smp_doc *doc = NULL;
	smp_error err;

	if (saved < 0 || pipe(fd) != 0) {
		CHECK(0, "pipe");
		return;
	}
	CHECK(write(fd[1], text, strlen(text)) == (ssize_t)strlen(text), "write to pipe");
	close(fd[1]);
	dup2(fd[0], 0);
	close(fd[0]);
	clearerr(stdin);
	int rc = smp_doc_parse_file(&doc, "-", NULL, &err);
	dup2(saved, 0);
	close(saved);
	clearerr(stdin);
	CHECK(rc == 0 && smp_value_len(smp_value_at(smp_doc_root(doc, 0), "a")) == 3,
	      "stdin pipe: %d %s", rc, err.message);
	smp_doc_free(doc);
	doc = NULL;
	rc = smp_doc_parse_file(&doc, "/dev/null", NULL, &err);
	CHECK(rc == 0 && smp_doc_count(doc) == 0, "/dev/null: %d %s", rc, err.message);
	smp_doc_free(doc);
	doc = NULL;
	rc = smp_doc_parse_file(&doc, dir, NULL, &err);
	CHECK(rc == SMP_EIO && doc == NULL, "a directory: %d %s", rc, err.message);
	rc = smp_doc_parse_file(&doc, "/nonexistent/x.json", NULL, &err);
	CHECK(rc == SMP_EIO && strstr(err.message, "cannot open"), "missing file: %d %s", rc,
	      err.message);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("mkdtemp failed\n");
		return 1;
	}
	/* First: earlier tests leave free memory in malloc's heap, which a
	 * limit on address space does not see. */
	test_hint_fallback();
	test_regular();
	test_one_block();
	test_invalid_utf8();
	test_pipe_and_devices();
	test_options_version();
	rmdir(dir);
	if (failures) {
		printf("%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
