/*
 * test_print_to.c - smp_print_to (streaming output) against smp_print:
 * byte-identical output for every input of the codec corpus in every
 * format and option, pieces of at most 128 KiB, a failed print writes
 * nothing (NaN, infinities, the YAML depth limit), a failing write callback
 * stops the print with SMP_EIO and is not called again.
 *
 * Usage: test_print_to CORPUS_DIR...
 */
#include "smpatch.h"
#include "codec.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../check.h"
#include "corpus.h"

static int compared;

typedef struct sink {
	smp_buf out;
	size_t calls, max_piece;
	size_t fail_at; /* 1-based call that fails; 0 = never */
	bool empty_piece;
} sink;

static int collect(void *ctx, const char *data, size_t len)
{
	sink *s = ctx;

	s->calls++;
	if (len == 0)
		s->empty_piece = true;
	if (len > s->max_piece)
		s->max_piece = len;
	if (s->fail_at && s->calls >= s->fail_at)
		return -1;
	smp_buf_put(&s->out, data, len);
	return 0;
}

static void sink_init(sink *s)
{
	memset(s, 0, sizeof(*s));
	smp_buf_init(&s->out);
}

/* smp_print and smp_print_to agree on v for every output and option. */
static void compare(const smp_value *v, const char *what)
{
	static const smp_output outs[] = {SMP_OUT_JSON, SMP_OUT_JSON_INDENT, SMP_OUT_YAML};

	for (size_t o = 0; o < 3; o++) {
		for (int opt = 0; opt < 4; opt++) {
			smp_print_options po = SMP_PRINT_OPTIONS_INIT;
			smp_error e1, e2;
			char *want = NULL;
			size_t wlen = 0;
			sink s;

			po.output = outs[o];
			po.sort_keys = opt & 1;
			po.go_escape = (opt & 2) != 0;
			memset(&e1, 0, sizeof(e1));
			memset(&e2, 0, sizeof(e2));
			sink_init(&s);
			int rc1 = smp_print(&want, &wlen, v, &po, &e1);
			int rc2 = smp_print_to(collect, &s, v, &po, &e2);
			CHECK(rc1 == rc2, "%s (output %d, options %d): rc %d vs %d", what, (int)outs[o],
			      opt, rc1, rc2);
			if (rc1 == 0 && rc2 == 0) {
				CHECK(s.out.len == wlen && (wlen == 0 || memcmp(s.out.ptr, want, wlen) == 0),
				      "%s (output %d, options %d): streamed output differs (%zu vs %zu bytes)",
				      what, (int)outs[o], opt, s.out.len, wlen);
				CHECK(s.max_piece <= 128 * 1024 && !s.empty_piece,
				      "%s: a piece of %zu bytes", what, s.max_piece);
				compared++;
			} else if (rc1 == rc2) {
				CHECK(strcmp(e1.message, e2.message) == 0 && s.calls == 0,
				      "%s: failed print: '%s' vs '%s', %zu writes", what, e1.message,
				      e2.message, s.calls);
			}
			free(want);
			smp_buf_release(&s.out);
		}
	}
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		*len = (size_t)n;
	return buf;
}

static void corpus_file(const char *path)
{
	size_t len;
	char *buf = slurp(path, &len);
	smp_doc *doc = NULL;
	smp_error err;

	if (!buf) {
		CHECK(0, "cannot read %s", path);
		return;
	}
	if (smp_doc_parse(&doc, buf, len, NULL, &err) == 0) {
		for (size_t i = 0; i < smp_doc_count(doc); i++)
			compare(smp_doc_root(doc, i), path);
	}
	smp_doc_free(doc);
	free(buf);
}

static bool corpus_visit_file(const char *path, size_t size, void *ctx)
{
	(void)size;
	(void)ctx;
	corpus_file(path);
	return true;
}

static void corpus_dir(const char *dir)
{
	CHECK(corpus_walk(dir, corpus_input, corpus_visit_file, NULL), "cannot open %s", dir);
}

/* A big document: long strings full of escapes, deep and wide lists. */
static smp_doc *big_doc(void)
{
	smp_doc *doc = smp_doc_alloc();
	smp_arena *a = &doc->arena;
	smp_value *root = smpv_map(a, 0), *list = smpv_list(a, 0);
	smp_buf s;

	smp_buf_init(&s);
	for (size_t i = 0; i < 300000; i++)
		smp_buf_putc(&s, i % 7 == 0 ? '"' : i % 11 == 0 ? '\n' : i % 13 == 0 ? '<' : 'x');
	smpv_map_add_copy(a, root, "long", 4, smpv_str(a, s.ptr, s.len));
	for (int i = 0; i < 8000; i++) {
		smp_value *m = smpv_map(a, 0);
		smpv_map_add_copy(a, m, "name", 4, smpv_str(a, "n\xe2\x80\xa8", 4));
		smpv_map_add_copy(a, m, "value", 5, smpv_int(a, i));
		smpv_map_add_copy(a, m, "f", 1, smpv_float(a, i / 8.0));
		smpv_list_add(a, list, m);
	}
	smpv_map_add_copy(a, root, "items", 5, list);
	smp_value *deep = smpv_str(a, "bottom", 6);
	for (int i = 0; i < 300; i++) {
		smp_value *l = smpv_list(a, 0);
		smpv_list_add(a, l, deep);
		deep = l;
	}
	smpv_map_add_copy(a, root, "deep", 4, deep);
	smp_doc_push_root(doc, root);
	smp_buf_release(&s);
	return doc;
}

static void test_big(void)
{
	smp_doc *doc = big_doc();
	const smp_value *root = smp_doc_root(doc, 0);

	compare(root, "big document");

	/* A write error stops the print at once. */
	for (size_t at = 1; at <= 3; at++) {
		smp_print_options po = SMP_PRINT_OPTIONS_INIT;
		smp_error err;
		sink s;
		for (int out = 0; out < 3; out++) {
			po.output = (smp_output)out;
			sink_init(&s);
			s.fail_at = at;
			int rc = smp_print_to(collect, &s, root, &po, &err);
			CHECK(rc == SMP_EIO && err.code == SMP_EIO && s.calls == at,
			      "write failing at call %zu (output %d): rc %d after %zu calls", at, out,
			      rc, s.calls);
			smp_buf_release(&s.out);
		}
	}

	/* A NaN or an infinity at the very end: nothing is written. */
	smp_value *items = (smp_value *)smp_map_get(root, "items");
	smp_value *last = items->u.list.items[items->u.list.len - 1];
	double bad[] = {NAN, INFINITY, -INFINITY};
	for (size_t k = 0; k < 3; k++) {
		last->u.map.items[2].val->u.f = bad[k];
		compare(root, "tree with a NaN/Inf");
		smp_print_options po = SMP_PRINT_OPTIONS_INIT;
		smp_error err;
		sink s;
		sink_init(&s);
		int rc = smp_print_to(collect, &s, root, &po, &err);
		CHECK(rc == SMP_EINVAL && s.calls == 0 && strstr(err.message, "unsupported value"),
		      "NaN/Inf: rc %d, %zu calls, %s", rc, s.calls, err.message);
	}
	smp_doc_free(doc);
}

static void test_yaml_depth(void)
{
	smp_doc *doc = smp_doc_alloc();
	smp_value *v = smpv_str(&doc->arena, "x", 1);

	for (int i = 0; i < 10050; i++) {
		smp_value *l = smpv_list(&doc->arena, 0);
		smpv_list_add(&doc->arena, l, v);
		v = l;
	}
	smp_doc_push_root(doc, v);
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	smp_error err;
	sink s;
	po.output = SMP_OUT_YAML;
	sink_init(&s);
	int rc = smp_print_to(collect, &s, v, &po, &err);
	CHECK(rc == SMP_ELIMIT && s.calls == 0, "YAML depth: rc %d, %zu calls", rc, s.calls);
	compare(v, "deep tree");
	smp_doc_free(doc);
}

static void test_args(void)
{
	smp_doc *doc = smp_doc_alloc();
	smp_value *v = smpv_null(&doc->arena);
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	smp_error err;
	sink s;

	sink_init(&s);
	CHECK(smp_print_to(NULL, &s, v, NULL, &err) == SMP_EINVAL, "NULL write");
	CHECK(smp_print_to(collect, &s, NULL, NULL, &err) == SMP_EINVAL, "NULL value");
	po.version = 99;
	CHECK(smp_print_to(collect, &s, v, &po, &err) == SMP_EINVAL, "bad version");
	po.version = SMP_PRINT_OPTIONS_VERSION;
	po.output = (smp_output)7;
	CHECK(smp_print_to(collect, &s, v, &po, &err) == SMP_EINVAL, "bad output");
	CHECK(s.calls == 0, "writes on bad arguments");
	/* NULL options: compact JSON; the context reaches the callback. */
	CHECK(smp_print_to(collect, &s, v, NULL, &err) == 0 && s.out.len == 4 &&
	              memcmp(s.out.ptr, "null", 4) == 0,
	      "null printed");
	smp_buf_release(&s.out);
	smp_doc_free(doc);
}

int main(int argc, char **argv)
{
	test_args();
	test_big();
	test_yaml_depth();
	for (int i = 1; i < argc; i++)
		corpus_dir(argv[i]);
	CHECK(argc < 2 || compared > 500, "only %d comparisons", compared);
	printf("%d comparisons; %d failures\n", compared, failures);
	return failures ? 1 : 0;
}
