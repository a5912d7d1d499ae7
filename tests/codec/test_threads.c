/*
 * test_threads.c - parsing and printing from several threads at once give
 * the same results as doing it alone (no global state in the codec).
 *
 * Usage: test_threads CORPUS_DIR
 */
#include "smpatch.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "corpus.h"

#define MAXF 256
#define THREADS 4

static char *text[MAXF], *expect[MAXF];
static size_t text_len[MAXF], nfiles;

/* Everything a file turns into: each root in the three formats, or the
 * error line. */
static char *render(const char *buf, size_t len)
{
	smp_doc *doc = NULL;
	smp_error err;
	size_t cap = 1024, n = 0;
	char *out = malloc(cap);

	out[0] = '\0';
	if (smp_doc_parse(&doc, buf, len, NULL, &err)) {
		char line[2048];
		smp_error_format(line, sizeof(line), &err);
		free(out);
		return strdup(line);
	}
	for (size_t i = 0; i < smp_doc_count(doc); i++) {
		for (int o = 0; o < 3; o++) {
			smp_print_options po = SMP_PRINT_OPTIONS_INIT;
			char *s = NULL;
			size_t sl = 0;
			po.output = (smp_output)o;
			po.sort_keys = o == 1;
			if (smp_print(&s, &sl, smp_doc_root(doc, i), &po, &err))
				continue;
			while (n + sl + 1 > cap) {
				cap *= 2;
				out = realloc(out, cap);
			}
			memcpy(out + n, s, sl + 1);
			n += sl;
			free(s);
		}
	}
	smp_doc_free(doc);
	return out;
}

static void *worker(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int round = 0; round < 5; round++)
		for (size_t i = 0; i < nfiles; i++) {
			char *r = render(text[i], text_len[i]);
			if (strcmp(r, expect[i]) != 0)
				bad++;
			free(r);
		}
	return (void *)bad;
}

static bool input_only(const char *path)
{
	return strncmp(corpus_base(path), "input.", 6) == 0;
}

static bool load_visit(const char *path, size_t size, void *ctx)
{
	FILE *f = fopen(path, "rb");

	(void)ctx;
	if (!f)
		return true;
	text[nfiles] = malloc(size + 1);
	text_len[nfiles] = text[nfiles] ? fread(text[nfiles], 1, size, f) : 0;
	fclose(f);
	nfiles++;
	return nfiles < MAXF;
}

static void load(const char *dir)
{
	corpus_walk(dir, input_only, load_visit, NULL);
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];
	long bad = 0;

	if (argc > 1)
		load(argv[1]);
	if (nfiles < 20) {
		printf("FAIL: corpus too small (%zu files)\n", nfiles);
		return 1;
	}
	for (size_t i = 0; i < nfiles; i++)
		expect[i] = render(text[i], text_len[i]);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		bad += (long)r;
	}
	for (size_t i = 0; i < nfiles; i++) {
		free(text[i]);
		free(expect[i]);
	}
	printf("%d threads x 5 rounds x %zu files: %ld differences\n", THREADS, nfiles, bad);
	return bad ? 1 : 0;
}
