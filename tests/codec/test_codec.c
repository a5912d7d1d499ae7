/*
 * test_codec.c - the JSON reader, the printers, the limits, and the round
 * trip property over the golden corpus.
 *
 * Usage: test_codec CORPUS_DIR... (directories with input.* files or *.yaml)
 */
#include "smpatch.h"
#include "codec.h"

#include <dirent.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../check.h"
#include "corpus.h"

static smp_doc *parse(const char *text, size_t len, smp_format fmt, smp_error *err, int *rc)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc = NULL;

	po.format = fmt;
	memset(err, 0, sizeof(*err));
	*rc = smp_doc_parse(&doc, text, len, &po, err);
	return doc;
}

static char *print(const smp_value *v, smp_output out, bool sort, bool go, int *rc)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	smp_error err;
	char *s = NULL;

	po.output = out;
	po.sort_keys = sort;
	po.go_escape = go;
	*rc = smp_print(&s, NULL, v, &po, &err);
	return s;
}

/* JSON text in, compact JSON out. */
static void json_roundtrip(const char *in, const char *want)
{
	smp_error err;
	int rc;
	smp_doc *doc = parse(in, strlen(in), SMP_FORMAT_JSON, &err, &rc);
	CHECK(rc == 0, "parse %s: %s", in, err.message);
	if (rc)
		return;
	char *got = print(smp_doc_root(doc, 0), SMP_OUT_JSON, false, true, &rc);
	CHECK(rc == 0 && got && strcmp(got, want) == 0, "%s -> want %s got %s", in, want,
	      got ? got : "-");
	free(got);
	smp_doc_free(doc);
}

static void test_json_reader(void)
{
	smp_error err;
	int rc;
	smp_doc *doc;

	/* int64 extremes exactly; beyond them floats */
	json_roundtrip("[9223372036854775807,-9223372036854775808]",
	               "[9223372036854775807,-9223372036854775808]");
	json_roundtrip("[9223372036854775808,-9223372036854775809,18446744073709551615]",
	               "[9223372036854776000,-9223372036854776000,18446744073709552000]");
	{
		const char *t = "[9223372036854775807, 1.0, 1, -0]";
		doc = parse(t, strlen(t), SMP_FORMAT_JSON, &err, &rc);
	}
	CHECK(rc == 0, "parse");
	if (!rc) {
		const smp_value *l = smp_doc_root(doc, 0);
		CHECK(smp_value_type(smp_list_get(l, 0)) == SMP_INT &&
		              smp_value_int(smp_list_get(l, 0)) == INT64_MAX,
		      "int64 max");
		CHECK(smp_value_type(smp_list_get(l, 1)) == SMP_FLOAT, "1.0 is a float");
		CHECK(smp_value_type(smp_list_get(l, 2)) == SMP_INT, "1 is an int");
		CHECK(!smp_value_equal(smp_list_get(l, 1), smp_list_get(l, 2)), "1 != 1.0");
		CHECK(smp_value_line(smp_list_get(l, 3)) == 1 &&
		              smp_value_column(smp_list_get(l, 3)) == 31,
		      "position of -0: %u:%u", smp_value_line(smp_list_get(l, 3)),
		      smp_value_column(smp_list_get(l, 3)));
	}
	smp_doc_free(doc);

	/* escapes, surrogates, NUL */
	json_roundtrip("\"\\ud83d\\ude00\\u00e9\\/\"", "\"\xf0\x9f\x98\x80\xc3\xa9/\"");
	json_roundtrip("\"\\ud800x\\udc00\"", "\"\xef\xbf\xbdx\xef\xbf\xbd\"");
	doc = parse("{\"a\\u0000b\": \"x\\u0000y\"}", 24, SMP_FORMAT_JSON, &err, &rc);
	CHECK(rc == 0, "NUL escapes: %s", err.message);
	if (!rc) {
		size_t kl, vl;
		const smp_value *m = smp_doc_root(doc, 0);
		const char *k = smp_map_key(m, 0, &kl);
		const char *v = smp_value_string(smp_map_value(m, 0), &vl);
		CHECK(kl == 3 && memcmp(k, "a\0b", 3) == 0, "key with NUL");
		CHECK(vl == 3 && memcmp(v, "x\0y", 3) == 0, "value with NUL");
		char *o = print(m, SMP_OUT_JSON, false, false, &rc);
		CHECK(o && strcmp(o, "{\"a\\u0000b\":\"x\\u0000y\"}") == 0, "NUL printed: %s",
		      o ? o : "-");
		free(o);
		o = print(m, SMP_OUT_YAML, false, false, &rc);
		CHECK(o && strcmp(o, "\"a\\0b\": \"x\\0y\"\n") == 0, "NUL in YAML: %s", o ? o : "-");
		free(o);
	}
	smp_doc_free(doc);

	/* streams of values, as Go's json.Decoder reads them */
	{
		const char *t = "{}{\"a\":1} [1]\n\"s\" 2 true null";
		doc = parse(t, strlen(t), SMP_FORMAT_JSON, &err, &rc);
	}
	CHECK(rc == 0 && smp_doc_count(doc) == 7, "stream: rc %d count %zu", rc,
	      smp_doc_count(doc));
	smp_doc_free(doc);

	/* errors carry positions */
	static const struct {
		const char *in;
		unsigned line, col;
		const char *msg;
	} errs[] = {
		{"{\"a\":1,}", 1, 8, "expected a string key"},
		{"{\n  \"a\": [1,\n  2,,]}", 3, 5, "expected a value"},
		{"[1 2]", 1, 4, "expected ',' or ']'"},
		{"{\"a\" 1}", 1, 6, "expected ':'"},
		{"\"abc", 1, 1, "unterminated string"},
		{"\"a\\x\"", 1, 3, "bad escape"},
		{"\"\\u12\"", 1, 2, "bad \\u escape"},
		{"[01]", 1, 3, "expected ',' or ']'"},
		{"[1.]", 1, 4, "digit after the decimal point"},
		{"[1e]", 1, 4, "digit in the exponent"},
		{"[-]", 1, 3, "a digit"},
		{"[1e400]", 1, 2, "out of range"},
		{"[tru]", 1, 2, "expected a value"},
		{"{\"a\":1,\"a\":2}", 1, 8, "duplicate key \"a\""},
		{"[\"a\tb\"]", 1, 4, "control character"},
		{"{} x", 1, 4, "expected a value"},
	};
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		doc = parse(errs[i].in, strlen(errs[i].in), SMP_FORMAT_JSON, &err, &rc);
		CHECK(rc == SMP_EPARSE && err.line == errs[i].line && err.column == errs[i].col &&
		              strstr(err.message, errs[i].msg),
		      "%s: want %u:%u %s, got %d %u:%u %s", errs[i].in, errs[i].line, errs[i].col,
		      errs[i].msg, rc, err.line, err.column, err.message);
		smp_doc_free(doc);
	}

	/* duplicates allowed on request: the last one wins */
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	po.allow_duplicate_keys = true;
	rc = smp_doc_parse(&doc, "{\"a\":1,\"b\":2,\"a\":3}", 19, &po, &err);
	CHECK(rc == 0 && smp_value_len(smp_doc_root(doc, 0)) == 2 &&
	              smp_value_int(smp_map_get(smp_doc_root(doc, 0), "a")) == 3,
	      "allow_duplicate_keys");
	smp_doc_free(doc);
	rc = smp_doc_parse(&doc, "a: 1\nb: 2\na: 3\n", 15, &po, &err);
	CHECK(rc == 0 && smp_value_int(smp_map_get(smp_doc_root(doc, 0), "a")) == 3,
	      "allow_duplicate_keys yaml");
	smp_doc_free(doc);

	/* many keys: the duplicate index (no quadratic scan) */
	{
		size_t n = 20000;
		char *big = malloc(n * 16 + 16), *p = big;
		p += sprintf(p, "{");
		for (size_t i = 0; i < n; i++)
			p += sprintf(p, "%s\"k%zu\":%zu", i ? "," : "", i, i);
		p += sprintf(p, ",\"k%zu\":0}", n / 2);
		doc = parse(big, (size_t)(p - big), SMP_FORMAT_JSON, &err, &rc);
		CHECK(rc == SMP_EPARSE && strstr(err.message, "duplicate key \"k10000\""),
		      "dup in big map: %s", err.message);
		smp_doc_free(doc);
		free(big);
	}
}

/* JSON text read in YAML mode: the JSON fast path must agree with libyaml. */
static void test_json_as_yaml(void)
{
	static const struct {
		const char *in, *want;
	} t[] = {
		{"{\"a\": [1, 2,], \"b\": {\"c\": 1.0,},}", "{\"a\":[1,2],\"b\":{\"c\":1}}"},
		{"{\"a\": 1e400}", "{\"a\":\"1e400\"}"},         /* libyaml path */
		{"{\"a\": -0.0, \"b\": 1.5e3, \"c\": 18446744073709551615}",
		 "{\"a\":0,\"b\":1500,\"c\":18446744073709552000}"},
		{"[1, \"yes\", yes]", "[1,\"yes\",true]"},          /* libyaml path */
		{"{\"a\": 1} # comment", "{\"a\":1}"},              /* libyaml path */
		{"{\"a\": \"x\\\\/y\"}", "{\"a\":\"x\\\\/y\"}"},
		{"{\"a\":\t\"tab\"}", "{\"a\":\"tab\"}"},
	};
	smp_error err;
	int rc;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smp_doc *doc = parse(t[i].in, strlen(t[i].in), SMP_FORMAT_YAML, &err, &rc);
		char *got = rc ? NULL : print(smp_doc_root(doc, 0), SMP_OUT_JSON, false, false, &rc);
		CHECK(got && strcmp(got, t[i].want) == 0, "%s as YAML: want %s got %s (%s)", t[i].in,
		      t[i].want, got ? got : "-", err.message);
		free(got);
		smp_doc_free(doc);
	}
	/* errors still come from the YAML reader, with its positions */
	const char *dup = "{\"a\": 1,\n \"a\": 2}";
	smp_doc *doc = parse(dup, strlen(dup), SMP_FORMAT_YAML, &err, &rc);
	CHECK(rc == SMP_EPARSE && err.line == 2 && strstr(err.message, "duplicate key"),
	      "dup in JSON-as-YAML: %d %u %s", rc, err.line, err.message);
	smp_doc_free(doc);
	/* kubectl's YAML reader knows no \/ escape, even in JSON text */
	doc = parse("[\"x\\/y\"]", 8, SMP_FORMAT_YAML, &err, &rc);
	CHECK(rc == SMP_EPARSE && err.column == 4 && strstr(err.message, "unknown escape"),
	      "\\/ as YAML: %d %u %s", rc, err.column, err.message);
	smp_doc_free(doc);
	doc = parse("{\"a\": [1, 2}", 12, SMP_FORMAT_YAML, &err, &rc);
	CHECK(rc == SMP_EPARSE && strstr(err.message, "invalid YAML"), "syntax: %s", err.message);
	smp_doc_free(doc);
}

static void test_limits(void)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_error err;
	smp_doc *doc = NULL;
	int rc;

	po.max_depth = 3;
	rc = smp_doc_parse(&doc, "[[[1]]]", 7, &po, &err);
	CHECK(rc == 0, "depth 3 ok");
	smp_doc_free(doc);
	rc = smp_doc_parse(&doc, "[[[[1]]]]", 9, &po, &err);
	CHECK(rc == SMP_ELIMIT && err.column == 4, "depth 4 json: %d %s", rc, err.message);
	rc = smp_doc_parse(&doc, "a:\n b:\n  c:\n   d: 1\n", 20, &po, &err);
	CHECK(rc == SMP_ELIMIT && err.line == 4, "depth 4 yaml: %d %u %s", rc, err.line,
	      err.message);
	/* an alias may not push a value past the limit either */
	rc = smp_doc_parse(&doc, "a: &x [[1]]\nb: [*x]\n", 20, &po, &err);
	CHECK(rc == SMP_ELIMIT && err.line == 2, "depth via alias: %d %s", rc, err.message);

	po = (smp_parse_options)SMP_PARSE_OPTIONS_INIT;
	po.max_alias_nodes = 10;
	rc = smp_doc_parse(&doc, "a: &x [1, 2, 3]\nb: *x\nc: *x\n", 27, &po, &err);
	CHECK(rc == 0, "8 alias nodes ok: %s", err.message);
	smp_doc_free(doc);
	rc = smp_doc_parse(&doc, "a: &x [1, 2, 3]\nb: *x\nc: *x\nd: *x\n", 33, &po, &err);
	CHECK(rc == SMP_ELIMIT && err.line == 4 && strstr(err.message, "10 nodes"),
	      "alias limit: %d %u %s", rc, err.line, err.message);

	po = (smp_parse_options)SMP_PARSE_OPTIONS_INIT;
	po.max_bytes = 4;
	rc = smp_doc_parse(&doc, "a: 12", 5, &po, &err);
	CHECK(rc == SMP_ELIMIT, "max_bytes");
	po.max_bytes = 0;
	po.version = 99;
	rc = smp_doc_parse(&doc, "a: 1", 4, &po, &err);
	CHECK(rc == SMP_EINVAL && doc == NULL, "bad version");
	rc = smp_doc_parse(&doc, "", 0, NULL, &err);
	CHECK(rc == 0 && smp_doc_count(doc) == 0, "empty input");
	smp_doc_free(doc);
	rc = smp_doc_parse_file(&doc, "/nonexistent/x.yaml", NULL, &err);
	CHECK(rc == SMP_EIO && strcmp(err.file, "/nonexistent/x.yaml") == 0, "missing file");
	rc = smp_doc_parse(&doc, "a: 1", 4, NULL, NULL);
	CHECK(rc == 0, "NULL err and opts");
	smp_doc_free(doc);
}

static void test_float_format(void)
{
	static const struct {
		double d;
		const char *json, *yaml;
	} t[] = {
		{1e21, "1e+21", "1e+21"},
		{1e-7, "1e-7", "1e-07"},
		{3.4028234663852886e+38, "3.4028234663852886e+38", "3.4028234663852886e+38"},
		{1.7976931348623157e+308, "1.7976931348623157e+308", "1.7976931348623157e+308"},
		{0.000001, "0.000001", "1e-06"},
		{1e20, "100000000000000000000", "1e+20"},
		{9.999999999999999e20, "999999999999999900000", "9.999999999999999e+20"},
		{0.1, "0.1", "0.1"},
		{0.30000000000000004, "0.30000000000000004", "0.30000000000000004"},
		{5e-324, "5e-324", "5e-324"},
		{2.2250738585072014e-308, "2.2250738585072014e-308", "2.2250738585072014e-308"},
		{123456789.123, "123456789.123", "1.23456789123e+08"},
		{-1.5, "-1.5", "-1.5"},
		{1.0, "1", "1"},
		{-0.0, "-0", "-0"},
		{100, "100", "100"},
		{123456, "123456", "123456"},
		{1234567, "1234567", "1.234567e+06"},
		{0.0001, "0.0001", "0.0001"},
		{0.00001, "0.00001", "1e-05"},
		{1e-10, "1e-10", "1e-10"},
		{1.5e300, "1.5e+300", "1.5e+300"},
		{18446744073709551615.0, "18446744073709552000", "1.8446744073709552e+19"},
	};
	char buf[40];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smp_format_float(buf, t[i].d);
		CHECK(strcmp(buf, t[i].json) == 0, "json %.17g: want %s got %s", t[i].d, t[i].json,
		      buf);
		smp_format_float_g(buf, t[i].d, false);
		CHECK(strcmp(buf, t[i].yaml) == 0, "yaml %.17g: want %s got %s", t[i].d, t[i].yaml,
		      buf);
		CHECK(strtod(buf, NULL) == t[i].d, "g form reads back");
	}
	/* shortest round trip over a spread of values */
	unsigned long long x = 88172645463325252ull;
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double d;
		memcpy(&d, &x, sizeof(d));
		if (isnan(d) || isinf(d))
			continue;
		smp_format_float(buf, d);
		if (strtod(buf, NULL) != d) {
			CHECK(0, "json float %a -> %s does not read back", d, buf);
			break;
		}
	}
}

static void test_printers(void)
{
	smp_error err;
	int rc;
	const char *in = "{\"b\": [1, {\"x\": null}, [], {}], \"a\": \"<&>\\u2028\\u0001\", "
	                 "\"c\": {\"z\": 1.5, \"y\": true}}";
	smp_doc *doc = parse(in, strlen(in), SMP_FORMAT_JSON, &err, &rc);
	const smp_value *v = smp_doc_root(doc, 0);
	char *s;

	s = print(v, SMP_OUT_JSON, false, false, &rc);
	CHECK(s && strcmp(s, "{\"b\":[1,{\"x\":null},[],{}],\"a\":\"<&>\\u2028\\u0001\","
	                     "\"c\":{\"z\":1.5,\"y\":true}}") == 0,
	      "compact: %s", s);
	free(s);
	s = print(v, SMP_OUT_JSON, true, true, &rc);
	CHECK(s && strcmp(s, "{\"a\":\"\\u003c\\u0026\\u003e\\u2028\\u0001\",\"b\":[1,{\"x\":"
	                     "null},[],{}],\"c\":{\"y\":true,\"z\":1.5}}") == 0,
	      "sorted go-escaped: %s", s);
	free(s);
	s = print(v, SMP_OUT_JSON_INDENT, true, true, &rc);
	CHECK(s && strcmp(s, "{\n    \"a\": \"\\u003c\\u0026\\u003e\\u2028\\u0001\",\n"
	                     "    \"b\": [\n        1,\n        {\n            \"x\": null\n"
	                     "        },\n        [],\n        {}\n    ],\n    \"c\": {\n"
	                     "        \"y\": true,\n        \"z\": 1.5\n    }\n}\n") == 0,
	      "indented: %s", s);
	free(s);
	s = print(v, SMP_OUT_YAML, false, false, &rc);
	CHECK(s && strcmp(s, "b:\n- 1\n- x: null\n- []\n- {}\na: \"<&>\\u2028\\x01\"\nc:\n"
	                     "  z: 1.5\n  \"y\": true\n") == 0,
	      "yaml: %s", s);
	free(s);
	smp_doc_free(doc);

	/* NaN and infinities cannot be printed */
	smp_doc *d2;
	smp_doc_new(&d2, &err);
	smp_value *nan = smpv_float(&d2->arena, NAN);
	rc = smp_print(&s, NULL, nan, NULL, &err);
	CHECK(rc == SMP_EINVAL && s == NULL && strstr(err.message, "NaN"), "NaN json");
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	po.output = SMP_OUT_YAML;
	smp_value *inf = smpv_float(&d2->arena, -INFINITY);
	rc = smp_print(&s, NULL, inf, &po, &err);
	CHECK(rc == SMP_EINVAL && strstr(err.message, "-Inf"), "Inf yaml");
	/* invalid UTF-8 in a built string: \ufffd per byte, as Go */
	smp_value *bad = smpv_str(&d2->arena, "a\xff\xe2\x82z", 5);
	rc = smp_print(&s, NULL, bad, NULL, &err);
	CHECK(rc == 0 && strcmp(s, "\"a\\ufffd\\ufffd\\ufffdz\"") == 0, "invalid utf8: %s", s);
	free(s);
	rc = smp_print(&s, NULL, NULL, NULL, &err);
	CHECK(rc == SMP_EINVAL, "NULL value");
	/* a NULL inside a built tree is a bug to report, not a crash */
	smp_value *holey = smpv_list(&d2->arena, 1);
	smpv_list_add(&d2->arena, holey, NULL);
	rc = smp_print(&s, NULL, holey, NULL, &err);
	CHECK(rc == SMP_EINTERNAL && s == NULL, "NULL in tree, JSON: %d", rc);
	rc = smp_print(&s, NULL, holey, &po, &err);
	CHECK(rc == SMP_EINTERNAL && s == NULL, "NULL in tree, YAML: %d", rc);
	smp_doc_free(d2);
}

/* Random strings from an alphabet of YAML troublemakers must survive the
 * YAML printer as values and as keys, and the JSON printer. */
static void test_string_quoting(void)
{
	static const char *atoms[] = {
		"a", "Z", "0", "1", "9", "x1", " ", "  ", ":", ": ", "#", " #", "-", "- ", "?",
		"? ", "'", "\"", "\\", "\n", "\n\n", "\t", "\r", "{", "}", "[", "]", ",", "&",
		"*", "!", "|", ">", "%", "@", "`", "~", "<<", "---", "...", ".", "e", "E", "+",
		"_", "0x", "0b", "0o", "yes", "no", "on", "off", "y", "n", "null", "true",
		".inf", ".nan", "2001-12-14", "1:20", "\xc3\xa9", "\xe2\x80\xa8", "\xc2\x85",
		"\xef\xbb\xbf", "\x01", "\x7f", "\x1b", "=", "\xf0\x9f\x98\x80",
	};
	unsigned long long x = 0x2545f4914f6cdd1dull;
	smp_doc *doc;
	smp_error err;
	int bad = 0;

	smp_doc_new(&doc, &err);
	for (int i = 0; i < 20000 && bad < 5; i++) {
		char buf[256];
		size_t n = 0;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int parts = (int)(x % 6);
		for (int p = 0; p < parts; p++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			const char *a = atoms[x % (sizeof(atoms) / sizeof(atoms[0]))];
			size_t al = strlen(a);
			memcpy(buf + n, a, al);
			n += al;
		}
		smp_value *str = smpv_str(&doc->arena, buf, n);
		smp_value *map = smpv_map(&doc->arena, 1);
		smpv_map_add(&doc->arena, map, str->u.s.ptr, n, smpv_str(&doc->arena, buf, n));
		smp_value *list = smpv_list(&doc->arena, 2);
		smpv_list_add(&doc->arena, list, map);
		smpv_list_add(&doc->arena, list, str);
		for (int out = 0; out < 3; out++) {
			int rc;
			char *s = print(list, (smp_output)out, false, out != 2, &rc);
			smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
			smp_doc *back = NULL;
			po.format = out == 2 ? SMP_FORMAT_YAML : SMP_FORMAT_JSON;
			rc = s ? smp_doc_parse(&back, s, strlen(s), &po, &err) : -1;
			if (rc || smp_doc_count(back) != 1 || !smpv_equal(list, smp_doc_root(back, 0))) {
				CHECK(0, "string %d (%zu bytes) does not survive output %d: %s\n%s", i, n,
				      out, rc ? err.message : "differs", s ? s : "-");
				bad++;
			}
			smp_doc_free(back);
			free(s);
		}
	}
	smp_doc_free(doc);
}

/* A decimal-comma locale set by the application must not leak into the
 * numbers (run only where such a locale is installed, e.g. with LOCPATH). */
static void test_locale(void)
{
	static const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
	const char *got = NULL;
	char buf[16];
	int rc;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !got; i++)
		got = setlocale(LC_ALL, names[i]);
	snprintf(buf, sizeof(buf), "%.1f", 1.5);
	if (!got || strcmp(buf, "1,5") != 0) {
		printf("locale test skipped: no decimal-comma locale installed\n");
		setlocale(LC_ALL, "C");
		return;
	}
	smp_error err;
	smp_doc *doc = parse("{\"a\": [1.5, 2.5e-7]}\n", 21, SMP_FORMAT_JSON, &err, &rc);
	char *s = rc ? NULL : print(smp_doc_root(doc, 0), SMP_OUT_JSON, false, false, &rc);
	CHECK(s && strcmp(s, "{\"a\":[1.5,2.5e-7]}") == 0, "locale %s: %s", got, s ? s : err.message);
	free(s);
	smp_doc_free(doc);
	doc = parse("a: 1.5\n", 7, SMP_FORMAT_YAML, &err, &rc);
	s = rc ? NULL : print(smp_doc_root(doc, 0), SMP_OUT_YAML, false, false, &rc);
	CHECK(s && strcmp(s, "a: 1.5\n") == 0, "locale %s yaml: %s", got, s ? s : err.message);
	free(s);
	smp_doc_free(doc);
	printf("locale test ran in %s\n", got);
	setlocale(LC_ALL, "C");
}

/* ---- round trip over the corpus ---- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* Integral floats read back as ints (kubectl's JSON trip): compare modulo that. */
static bool equal_modulo_int(const smp_value *a, const smp_value *b)
{
	if (a->type == SMP_FLOAT && b->type == SMP_INT)
		return a->u.f == (double)b->u.i;
	if (a->type != b->type)
		return false;
	if (a->type == SMP_LIST) {
		if (a->u.list.len != b->u.list.len)
			return false;
		for (size_t i = 0; i < a->u.list.len; i++)
			if (!equal_modulo_int(a->u.list.items[i], b->u.list.items[i]))
				return false;
		return true;
	}
	if (a->type == SMP_MAP) {
		if (a->u.map.len != b->u.map.len)
			return false;
		for (size_t i = 0; i < a->u.map.len; i++) {
			const smp_member *m = &a->u.map.items[i];
			ptrdiff_t j = smpv_map_find(b, m->key, m->klen);
			if (j < 0 || !equal_modulo_int(m->val, b->u.map.items[j].val))
				return false;
		}
		return true;
	}
	return smpv_equal(a, b);
}

static int roundtrips;

static void roundtrip_file(const char *path)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_error err;
	smp_doc *doc = NULL;
	size_t len;
	char *buf = slurp(path, &len);
	bool from_json;

	if (!buf)
		return;
	po.filename = path;
	if (smp_doc_parse(&doc, buf, len, &po, &err)) {
		free(buf);
		return; /* error cases are the golden tests' business */
	}
	from_json = strstr(path, ".json") != NULL;
	for (size_t i = 0; i < smp_doc_count(doc); i++) {
		const smp_value *v = smp_doc_root(doc, i);
		for (int out = 0; out < 3; out++) {
			char *s = NULL;
			size_t sl;
			smp_print_options pr = SMP_PRINT_OPTIONS_INIT;
			pr.output = (smp_output)out;
			pr.sort_keys = i % 2;
			if (smp_print(&s, &sl, v, &pr, &err)) {
				CHECK(0, "%s: print %d: %s", path, out, err.message);
				continue;
			}
			smp_parse_options p2 = SMP_PARSE_OPTIONS_INIT;
			p2.format = out == SMP_OUT_YAML ? SMP_FORMAT_YAML : SMP_FORMAT_JSON;
			smp_doc *back = NULL;
			int rc = smp_doc_parse(&back, s, sl, &p2, &err);
			CHECK(rc == 0 && smp_doc_count(back) == (v->type == SMP_NULL ? 0u : 1u),
			      "%s doc %zu output %d does not read back: %s", path, i, out, err.message);
			if (rc == 0 && smp_doc_count(back) == 1) {
				const smp_value *w = smp_doc_root(back, 0);
				/* YAML input has no integral floats (they read as
				 * ints), so it must come back exactly; from JSON,
				 * 1.0 may come back as 1. */
				bool ok = from_json ? equal_modulo_int(v, w) : smpv_equal(v, w);
				CHECK(ok, "%s doc %zu: output %d reads back different:\n%s", path, i, out, s);
				roundtrips++;
			}
			smp_doc_free(back);
			free(s);
		}
	}
	smp_doc_free(doc);
	free(buf);
}

static bool roundtrip_visit(const char *path, size_t size, void *ctx)
{
	(void)size;
	(void)ctx;
	roundtrip_file(path);
	return true;
}

static void roundtrip_dir(const char *dir)
{
	CHECK(corpus_walk(dir, corpus_input, roundtrip_visit, NULL), "cannot open %s", dir);
}

int main(int argc, char **argv)
{
	test_json_reader();
	test_json_as_yaml();
	test_limits();
	test_float_format();
	test_printers();
	test_string_quoting();
	test_locale();
	for (int i = 1; i < argc; i++)
		roundtrip_dir(argv[i]);
	CHECK(argc < 2 || roundtrips > 100, "only %d round trips", roundtrips);
	printf("%d round trips; %d failures\n", roundtrips, failures);
	return failures ? 1 : 0;
}
