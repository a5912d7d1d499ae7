/*
 * test_hostile.c - hostile inputs end in an error or a correct result,
 * never a crash, a stack overflow or a memory blow-up: deep nesting, alias
 * bombs, a 50 MB document, invalid UTF-8, NUL bytes, and a few thousand
 * mutated copies of the corpus (a small deterministic fuzz run).
 *
 * Usage: test_hostile [CORPUS_DIR...]
 */
#include "smpatch.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "../check.h"
#include "corpus.h"

static double now(void)
{
	struct timespec ts;

	/* CPU time: other processes on a shared machine do not count. */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int parse(const char *buf, size_t len, smp_format fmt, smp_doc **doc, smp_error *err)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;

	po.format = fmt;
	*doc = NULL;
	memset(err, 0, sizeof(*err));
	return smp_doc_parse(doc, buf, len, &po, err);
}

/* Parses, and when that works prints every root in every format. */
static int exercise(const char *buf, size_t len, smp_format fmt)
{
	smp_doc *doc;
	smp_error err;
	int rc = parse(buf, len, fmt, &doc, &err);

	if (rc == 0) {
		for (size_t i = 0; i < smp_doc_count(doc); i++) {
			for (int o = 0; o < 3; o++) {
				smp_print_options po = SMP_PRINT_OPTIONS_INIT;
				char *s = NULL;
				po.output = (smp_output)o;
				if (smp_print(&s, NULL, smp_doc_root(doc, i), &po, &err) == 0)
					free(s);
			}
		}
	} else {
		CHECK(err.message[0] && err.code == rc, "error without a message (rc %d)", rc);
	}
	smp_doc_free(doc);
	return rc;
}

static void deep_nesting(void)
{
	size_t n = 1 << 20;
	char *buf = malloc(n);
	smp_doc *doc;
	smp_error err;
	int rc;

	memset(buf, '[', n);
	rc = parse(buf, n, SMP_FORMAT_JSON, &doc, &err);
	CHECK(rc == SMP_ELIMIT && err.column == 1001, "1 MB of [ as JSON: %d %s", rc, err.message);
	rc = parse(buf, n, SMP_FORMAT_AUTO, &doc, &err);
	CHECK(rc == SMP_ELIMIT, "1 MB of [ as YAML: %d %s", rc, err.message);
	memset(buf, '{', n);
	rc = parse(buf, n, SMP_FORMAT_YAML, &doc, &err);
	CHECK(rc == SMP_ELIMIT || rc == SMP_EPARSE, "1 MB of { as YAML: %d %s", rc, err.message);
	free(buf);

	/* 10,000-deep maps, block style and JSON */
	size_t depth = 10000, cap = depth * (depth + 8) + 16, len = 0;
	buf = malloc(cap);
	for (size_t i = 0; i < depth; i++) {
		memset(buf + len, ' ', i);
		len += i;
		memcpy(buf + len, "k:\n", 3);
		len += 3;
	}
	rc = parse(buf, len, SMP_FORMAT_YAML, &doc, &err);
	CHECK(rc == SMP_ELIMIT && err.line == 1001, "10000-deep YAML maps: %d %u %s", rc, err.line,
	      err.message);
	/* With the limit raised, it parses and prints (JSON iteratively). */
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	po.max_depth = 20000;
	rc = smp_doc_parse(&doc, buf, len, &po, &err);
	CHECK(rc == 0, "10000-deep YAML maps, max_depth 20000: %s", err.message);
	if (rc == 0) {
		char *s = NULL;
		size_t sl = 0;
		rc = smp_print(&s, &sl, smp_doc_root(doc, 0), NULL, &err);
		CHECK(rc == 0 && sl == 10000 * 6 + 4, "deep JSON print: %d len %zu", rc, sl);
		free(s);
		smp_print_options pr = SMP_PRINT_OPTIONS_INIT;
		pr.output = SMP_OUT_YAML;
		rc = smp_print(&s, &sl, smp_doc_root(doc, 0), &pr, &err);
		CHECK(rc == 0 || rc == SMP_ELIMIT, "deep YAML print: %d", rc);
		free(s);
		smp_doc_free(doc);
	}
	len = 0;
	for (size_t i = 0; i < depth; i++) {
		memcpy(buf + len, "{\"k\":", 5);
		len += 5;
	}
	rc = parse(buf, len, SMP_FORMAT_JSON, &doc, &err);
	CHECK(rc == SMP_ELIMIT, "10000-deep JSON maps: %d %s", rc, err.message);
	free(buf);
}

static void alias_bombs(void)
{
	static const char laughs[] =
		"a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
		"b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
		"c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
		"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
		"e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
		"f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
		"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
		"h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
		"i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
	smp_doc *doc;
	smp_error err;
	long rss0 = maxrss_kb();
	double t0 = now();
	int rc = parse(laughs, sizeof(laughs) - 1, SMP_FORMAT_YAML, &doc, &err);
	double dt = now() - t0;

	CHECK(rc == SMP_ELIMIT, "billion laughs: %d %s", rc, err.message);
	CHECK(dt < 1.0, "billion laughs took %.2f s", dt);

	/* Wide fan-out that go-yaml's ratio check lets through: our absolute
	 * bound on alias nodes stops it. */
	char *buf = malloc(1 << 22), *p = buf;
	p += sprintf(p, "base: &x [");
	for (int i = 0; i < 1000; i++)
		p += sprintf(p, "%s%d", i ? "," : "", i);
	p += sprintf(p, "]\nrefs:\n");
	for (int i = 0; i < 2000; i++)
		p += sprintf(p, "- *x\n");
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	po.max_alias_nodes = 1000000;
	t0 = now();
	rc = smp_doc_parse(&doc, buf, (size_t)(p - buf), &po, &err);
	dt = now() - t0;
	CHECK(rc == SMP_ELIMIT, "fan-out: %d %s", rc, err.message);
	CHECK(dt < 1.0, "fan-out took %.2f s", dt);
	long grown = maxrss_kb() - rss0;
	CHECK(grown < 100 * 1024, "alias bombs grew memory by %ld kB", grown);
	free(buf);
	printf("alias bombs: stopped, memory growth %ld kB\n", grown);
}

/* A 50 MB document (generated, not committed), parsed correctly. */
static void big_document(void)
{
	size_t target = 50u << 20, cap = target + (1 << 16), len = 0;
	char *buf = malloc(cap);
	size_t items = 0;
	smp_doc *doc;
	smp_error err;
	int rc;

	len += (size_t)sprintf(buf, "apiVersion: v1\nkind: List\nitems:\n");
	while (len < target) {
		len += (size_t)sprintf(buf + len,
		                       "- name: item-%zu\n"
		                       "  value: %zu\n"
		                       "  ratio: %zu.5\n"
		                       "  enabled: %s\n"
		                       "  tags: [a, \"b\", 'c']\n"
		                       "  text: |\n"
		                       "    line one of item %zu\n"
		                       "    line two\n",
		                       items, items * 7, items, items % 2 ? "yes" : "off", items);
		items++;
	}
	double t0 = now();
	rc = parse(buf, len, SMP_FORMAT_AUTO, &doc, &err);
	double dt = now() - t0;
	CHECK(rc == 0, "50 MB YAML: %s", err.message);
	if (rc == 0) {
		const smp_value *list = smp_map_get(smp_doc_root(doc, 0), "items");
		const smp_value *last = smp_list_get(list, items - 1);
		char name[64];
		snprintf(name, sizeof(name), "item-%zu", items - 1);
		CHECK(smp_value_len(list) == items, "items %zu", smp_value_len(list));
		CHECK(strcmp(smp_value_string(smp_map_get(last, "name"), NULL), name) == 0, "name");
		CHECK(smp_value_int(smp_map_get(last, "value")) == (int64_t)(items - 1) * 7, "value");
		CHECK(smp_value_float(smp_map_get(last, "ratio")) == (double)(items - 1) + 0.5,
		      "ratio");
		CHECK(smp_value_bool(smp_map_get(last, "enabled")) == ((items - 1) % 2 == 1),
		      "bool");
		/* and through JSON: print compact, read back, equal */
		char *s = NULL;
		size_t sl;
		rc = smp_print(&s, &sl, smp_doc_root(doc, 0), NULL, &err);
		CHECK(rc == 0, "print 50 MB");
		smp_doc *back;
		double t1 = now();
		rc = parse(s, sl, SMP_FORMAT_JSON, &back, &err);
		double dt2 = now() - t1;
		CHECK(rc == 0 && smp_value_equal(smp_doc_root(doc, 0), smp_doc_root(back, 0)),
		      "50 MB JSON round trip: %s", err.message);
		printf("50 MB YAML (%zu items) parsed in %.2f s; its JSON (%zu MB) in %.2f s\n", items,
		       dt, sl >> 20, dt2);
		smp_doc_free(back);
		free(s);
	}
	smp_doc_free(doc);
	free(buf);
}

static void bad_bytes(void)
{
	smp_doc *doc;
	smp_error err;
	int rc;

	/* invalid UTF-8 becomes U+FFFD, as kubectl's input decoder does */
	static const char bad_yaml[] = "a: \xff\xc0\xaf \xe2\x82\n";
	rc = parse(bad_yaml, sizeof(bad_yaml) - 1, SMP_FORMAT_YAML, &doc, &err);
	CHECK(rc == 0, "invalid UTF-8 YAML: %s", err.message);
	if (rc == 0) {
		size_t n;
		const char *s = smp_value_string(smp_map_get(smp_doc_root(doc, 0), "a"), &n);
		CHECK(n == 13 && memcmp(s, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd", 13) == 0,
		      "replacement: %zu", n);
	}
	smp_doc_free(doc);
	static const char bad_json[] = "{\"\xff\": \"\xfe\"}";
	rc = parse(bad_json, sizeof(bad_json) - 1, SMP_FORMAT_JSON, &doc, &err);
	CHECK(rc == 0 && smp_map_get(smp_doc_root(doc, 0), "\xef\xbf\xbd"), "invalid UTF-8 JSON");
	smp_doc_free(doc);
	/* raw NUL: an error in YAML and in a JSON string; anywhere else too */
	rc = parse("a: x\0y\n", 7, SMP_FORMAT_YAML, &doc, &err);
	CHECK(rc == SMP_EPARSE && err.line == 1 && err.column == 5, "NUL YAML: %s", err.message);
	rc = parse("{\"a\": \"x\0y\"}", 12, SMP_FORMAT_JSON, &doc, &err);
	CHECK(rc == SMP_EPARSE, "NUL JSON string");
	rc = parse("{\"a\": 1}\0", 9, SMP_FORMAT_JSON, &doc, &err);
	CHECK(rc == SMP_EPARSE, "NUL after JSON");
	rc = parse("\0\0\0\0", 4, SMP_FORMAT_AUTO, &doc, &err);
	CHECK(rc == SMP_EPARSE, "only NULs");
	/* NUL inside values via escapes is fine */
	rc = parse("a: \"x\\0y\"\n", 10, SMP_FORMAT_YAML, &doc, &err);
	CHECK(rc == 0, "escaped NUL YAML");
	smp_doc_free(doc);
	/* UTF-16 is not UTF-8: an error or replacement text, never a crash */
	exercise("\xff\xfe" "a\0:\0 \0" "1\0", 10, SMP_FORMAT_AUTO);
}

/* ---- a small deterministic fuzz run over the corpus ---- */

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static unsigned long long next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char *corpus[512];
static size_t corpus_len[512], ncorpus;

/* Inputs, YAML files and the expected YAML outputs. */
static bool input_or_yaml(const char *path)
{
	const char *name = corpus_base(path);

	return strncmp(name, "input.", 6) == 0 || (strstr(name, ".yaml") && !corpus_args(path)) ||
	       corpus_output(path, "yaml");
}

static bool load_visit(const char *path, size_t size, void *ctx)
{
	FILE *f = size <= 200000 ? fopen(path, "rb") : NULL;

	(void)ctx;
	if (!f)
		return true;
	char *b = malloc(size + 1);
	if (b && fread(b, 1, size, f) == size) {
		corpus[ncorpus] = b;
		corpus_len[ncorpus++] = size;
	} else {
		free(b);
	}
	fclose(f);
	return ncorpus < 512;
}

static void load_dir(const char *dir)
{
	if (ncorpus < 512)
		corpus_walk(dir, input_or_yaml, load_visit, NULL);
}

static void fuzz(int rounds)
{
	static const char *tokens[] = {"&a ", "*a", "<<: ", "- ", ": ", "{", "}", "[", "]",
	                               "\"", "'", "|", ">", "\n", "#", "!!int ", "---\n",
	                               "\\u", "\xff", "\0", "~", "1e400", ",", "? "};
	int ok = 0, err = 0;

	if (!ncorpus)
		return;
	for (int r = 0; r < rounds; r++) {
		size_t k = next_rand() % ncorpus, n = corpus_len[k];
		char *b = malloc(n + 64);
		memcpy(b, corpus[k], n);
		int edits = 1 + (int)(next_rand() % 4);
		for (int e = 0; e < edits && n; e++) {
			size_t at = next_rand() % n;
			switch (next_rand() % 3) {
			case 0:
				b[at] = (char)next_rand();
				break;
			case 1: { /* insert a token */
				const char *t = tokens[next_rand() % (sizeof(tokens) / sizeof(*tokens))];
				size_t tl = t[0] ? strlen(t) : 1;
				if (n + tl < corpus_len[k] + 64) {
					memmove(b + at + tl, b + at, n - at);
					memcpy(b + at, t, tl);
					n += tl;
				}
				break;
			}
			default: /* cut */
				n = at;
				break;
			}
		}
		if (exercise(b, n, SMP_FORMAT_AUTO) == 0)
			ok++;
		else
			err++;
		free(b);
	}
	printf("fuzz: %d mutated inputs, %d parsed, %d rejected\n", rounds, ok, err);
}

int main(int argc, char **argv)
{
	deep_nesting();
	alias_bombs();
	bad_bytes();
	big_document();
	for (int i = 1; i < argc; i++)
		load_dir(argv[i]);
	fuzz(3000);
	for (size_t i = 0; i < ncorpus; i++)
		free(corpus[i]);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
