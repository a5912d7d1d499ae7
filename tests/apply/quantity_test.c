/*
 * quantity_test.c - resource.Quantity: parsing, the string the API server
 * stores, comparison by value, scaled values and errors. The expectations
 * come from apimachinery's own quantity_test.go (TestQuantityParse,
 * TestQuantityString, TestQuantityParseEmit, the invalid list) where it has
 * them; the others follow its code (quantity.go, amount.go, suffix.go) and
 * say why in a comment.
 */
#include "tutil.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define DSI SMP_QUANTITY_DECIMAL_SI
#define BSI SMP_QUANTITY_BINARY_SI
#define DEX SMP_QUANTITY_DECIMAL_EXPONENT

/* input, the stored text, its format */
static const struct {
	const char *in;
	const char *out;
	smp_quantity_format format;
} cases[] = {
	/* TestQuantityParseEmit */
	{"1Ki", "1Ki", BSI},
	{"1Mi", "1Mi", BSI},
	{"1Gi", "1Gi", BSI},
	{"1024Mi", "1Gi", BSI},
	{"1000M", "1G", DSI},
	{".001Ki", "1024m", BSI},
	{".000001Ki", "1024u", DSI},  /* below 1: DecimalSI */
	{".000000001Ki", "1024n", DSI},
	{".000000000001Ki", "2n", DSI},
	{"-1Ki", "-1Ki", BSI},
	{"-1024Mi", "-1Gi", BSI},
	{"-.001Ki", "-1024m", BSI},
	{"-.000000000001Ki", "-2n", DSI},
	/* TestQuantityString: the canonical forms parse to themselves... */
	{"300Mi", "300Mi", BSI},
	{"6Ki", "6Ki", BSI},
	{"1001Gi", "1001Gi", BSI},
	{"1Ti", "1Ti", BSI},
	{"5", "5", DSI},
	{"500m", "500m", DSI},
	{"1G", "1G", DSI},
	{"1m", "1m", DSI},
	{"80m", "80m", DSI},
	{"1080m", "1080m", DSI},
	{"300M", "300M", DSI},
	{"1T", "1T", DSI},
	{"1E", "1E", DSI},
	{"1e21", "1e21", DEX},
	{"1234567M", "1234567M", DSI},
	{"1234567m", "1234567m", DSI},
	{"3k", "3k", DSI},
	{"1025", "1025", DSI},
	{"0", "0", DSI},
	{"1e9", "1e9", DEX},
	{"1e-3", "1e-3", DEX},
	{"1e-9", "1e-9", DEX},
	{"80e-3", "80e-3", DEX},
	{"300e6", "300e6", DEX},
	{"1e12", "1e12", DEX},
	{"3e3", "3e3", DEX},
	{"1n", "1n", DSI},
	{"80n", "80n", DSI},
	{"1080n", "1080n", DSI},
	{"1u", "1u", DSI},
	{"80u", "80u", DSI},
	{"1080u", "1080u", DSI},
	/* ...and the alternates become them */
	{"307200Ki", "300Mi", BSI},
	{"1025024Mi", "1001Gi", BSI},
	{"1024Gi", "1Ti", BSI},
	{"5000m", "5", DSI},
	{"0.5", "500m", DSI},
	{"0.001T", "1G", DSI},
	{"1000u", "1m", DSI},
	{"1.08", "1080m", DSI},
	{"1080000000n", "1080m", DSI},
	{"1000E", "1e21", DSI},    /* DecimalSI has nothing above E */
	{"5000E", "5e21", DSI},
	{"1000000E", "1e24", DSI},
	{".001e12", "1e9", DEX},
	{"0.001e0", "1e-3", DEX},
	{"1000e-12", "1e-9", DEX},
	{"00", "0", DSI},
	/* TestQuantityParse values, written canonically */
	{"0n", "0", DSI},
	{"0Ki", "0", BSI},
	{"0Ti", "0", BSI},
	{"8Ki", "8Ki", BSI},
	{"7Mi", "7Mi", BSI},
	{"4Pi", "4Pi", BSI},
	{"3Ei", "3Ei", BSI},
	{"100Ti", "100Ti", BSI},
	{"5n", "5n", DSI},
	{"50k", "50k", DSI},
	{"40T", "40T", DSI},
	{"300T", "300T", DSI},
	{"2P", "2P", DSI},
	{"1E-3", "1E-3", DEX},     /* kept as written (int64 path, scale % 3 == 0) */
	{"1e14", "100e12", DEX},
	{"1e13", "10e12", DEX},
	{"100.035k", "100.035k", DSI}, /* scale 0: kept as written */
	{"0.0005k", "500m", DSI},
	{"0.00050k", "500m", DSI},
	{"0.00500", "5m", DSI},
	{"0.05000", "50m", DSI},
	{"0.5e0", "500e-3", DEX},
	{"0.5e-1", "50e-3", DEX},
	{"0.5e-2", "5e-3", DEX},
	{"10.035M", "10.035M", DSI},
	{"1.2e3", "1200", DEX},
	{"1.3E+6", "1300e3", DEX},
	{"1.40e9", "1400e6", DEX},
	{"1.53E12", "1530e9", DEX},
	{"1.7E18", "1700e15", DEX},
	{"9.01", "9010m", DSI},
	{"8.1k", "8100", DSI},
	{"7.123456M", "7.123456M", DSI},
	{"6.987654321G", "6.987654321G", DSI},
	{"5.444T", "5.444T", DSI},
	{"5.4440T", "5444G", DSI},    /* scale 8: canonical */
	{"10.0350M", "10035k", DSI},
	{"40.1T", "40100G", DSI},
	{"2.5P", "2500T", DSI},
	{"1.01E", "1010P", DSI},
	{"3.001n", "4n", DSI},      /* rounds up to a whole nano */
	{"1.1E-9", "2e-9", DEX},
	{"0.0000000001", "1n", DSI},
	{"0.00000000050", "1n", DSI},
	{"0.5e-9", "1e-9", DEX},
	{"0.9n", "1n", DSI},
	{"0.00000012345", "124n", DSI},
	{"0.00000012354", "124n", DSI},
	{"9Ei", "9223372036854775807", BSI}, /* binary SI caps at 2^63-1 */
	{"9223372036854775807Ki", "9223372036854775807", BSI},
	{"12E", "12E", DSI},
	{"100.035Ki", "102435840m", BSI}, /* not whole: written as DecimalSI */
	{"0.5Mi", "512Ki", BSI},
	{"0.05Gi", "53687091200m", BSI},
	{"0.025Ti", "27487790694400m", BSI},
	{".001", "1m", DSI},
	{".0001k", "100m", DSI},
	/* the examples */
	{"1.5Gi", "1536Mi", BSI},
	{"1000m", "1", DSI},
	{"0.1", "100m", DSI},
	{"1e3", "1e3", DEX},        /* the reference keeps the exponent format */
	{"1000", "1k", DSI},
	{"2Gi", "2Gi", BSI},
	{"128974848", "128974848", DSI},
	{"129e6", "129e6", DEX},
	{"123Mi", "123Mi", BSI},
	/* texts the reference keeps as they are (int64 path, no "000" at
	 * the end, no leading 0 digit, exponent a multiple of 3) */
	{"+1", "+1", DSI},
	{"01", "01", DSI},
	{"1.500k", "1.500k", DSI},
	{"1.", "1.", DSI},
	{"1.G", "1.G", DSI},
	{"+1Ki", "+1Ki", BSI},
	{"1025Ki", "1025Ki", BSI},
	/* signs */
	{"-1", "-1", DSI},
	{"-0.5", "-500m", DSI},
	{"-1.5Gi", "-1536Mi", BSI},
	{"-9Ei", "-9223372036854775807", BSI},
	{"-0", "0", DSI},
	{"-0.0Ki", "0", BSI},
	/* binary SI below 1024, or not whole: decimal SI text */
	{"0.1Ki", "102400m", BSI},
	{"1.5Ki", "1536", BSI},
	{"1Pi", "1Pi", BSI},
	{"1Ei", "1Ei", BSI},
	{"7Ei", "7Ei", BSI},
	{"8Ei", "9223372036854775807", BSI},
	/* big values keep every digit */
	{"18446744073709551616", "18446744073709551616", DSI},
	{"123456789012345678901234567890", "123456789012345678901234567890", DSI},
	{"1000000000000000000000", "1e21", DSI},
	{"99999999999999999999k", "99999999999999999999k", DSI},
	{"1.2345", "1234500u", DSI},
	{"1e-10", "1e-9", DEX},
	{"2048", "2048", DSI},
	/* a number without digits is zero (parseQuantityString reads "0") */
	{".", "0", DSI},
	{"-", "0", DSI},
	{"m", "0", DSI},
	{"Ki", "0", BSI},
};

/* TestQuantityParse's invalid list and a few more. */
static const struct {
	const char *in;
	const char *msg;
} bad[] = {
	{"", "quantities must match the regular expression"},
	{"1.1.M", "quantities must match the regular expression"},
	{"1+1.0M", "quantities must match the regular expression"},
	{"0.1mi", "unable to parse quantity's suffix"},
	{"0.1am", "quantities must match the regular expression"},
	{"aoeu", "quantities must match the regular expression"},
	{".5i", "unable to parse quantity's suffix"},
	{"1i", "unable to parse quantity's suffix"},
	{"-3.01i", "unable to parse quantity's suffix"},
	{"-3.01e-", "unable to parse quantity's suffix"},
	{" 1", "quantities must match the regular expression"},
	{"1 ", "quantities must match the regular expression"},
	{"1KiB", "quantities must match the regular expression"},
	{"1e", "unable to parse quantity's suffix"},
	{"1ee3", "unable to parse quantity's suffix"},
	{"1e99999999999999999999", "unable to parse quantity's suffix"},
	{"--1", "unable to parse quantity's suffix"}, /* suffix "-1" */
	{".e-20", "unable to parse numeric part of quantity"},
	{"1,5", "quantities must match the regular expression"},
};

static smp_quantity *parse(const char *s)
{
	smp_quantity *q = NULL;
	smp_error err;

	if (smp_quantity_parse(&q, s, strlen(s), &err)) {
		fprintf(stderr, "parse %s: %s\n", s, err.message);
		failures++;
	}
	return q;
}

static void test_table(void)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);

	for (size_t i = 0; i < n; i++) {
		smp_quantity *q = parse(cases[i].in), *back;
		const char *s;
		size_t len;

		if (!q)
			continue;
		s = smp_quantity_string(q, &len);
		CHECK(strcmp(s, cases[i].out) == 0 && len == strlen(s),
		      "%s: got %s, want %s", cases[i].in, s, cases[i].out);
		CHECK(smp_quantity_format_of(q) == cases[i].format, "%s: format %d, want %d",
		      cases[i].in, (int)smp_quantity_format_of(q), (int)cases[i].format);
		/* The stored text reads back as the same value and itself. */
		back = parse(s);
		if (back) {
			CHECK(smp_quantity_cmp(q, back) == 0, "%s: %s is another value",
			      cases[i].in, s);
			CHECK(strcmp(smp_quantity_string(back, NULL), s) == 0,
			      "%s: %s is not stable (%s)", cases[i].in, s,
			      smp_quantity_string(back, NULL));
		}
		smp_quantity_free(back);
		smp_quantity_free(q);
	}
	printf("quantity: %zu parse cases\n", n);
}

static void test_errors(void)
{
	size_t n = sizeof(bad) / sizeof(bad[0]);

	for (size_t i = 0; i < n; i++) {
		smp_quantity *q = (smp_quantity *)&q;
		smp_error err;
		int rc = smp_quantity_parse(&q, bad[i].in, strlen(bad[i].in), &err);

		CHECK(rc == SMP_EINVALOBJ && q == NULL, "%s: rc %d", bad[i].in, rc);
		if (rc)
			CHECK(strncmp(err.message, bad[i].msg, strlen(bad[i].msg)) == 0,
			      "%s: message %s", bad[i].in, err.message);
	}
	/* The whole message of the format error is the reference's. */
	{
		smp_quantity *q;
		smp_error err;
		smp_quantity_parse(&q, "x", 1, &err);
		CHECK(strcmp(err.message, "quantities must match the regular expression "
		                          "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'") == 0,
		      "message %s", err.message);
	}
	CHECK(smp_quantity_parse(NULL, "1", 1, NULL) == SMP_EINVAL, "NULL out");
	printf("quantity: %zu error cases\n", n);
}

static void test_cmp(void)
{
	static const struct {
		const char *a, *b;
		int want;
	} t[] = {
		{"0", "0", 0},        {"100m", "50m", 1},    {"50m", "100m", -1},
		{"10000T", "100Gi", 1}, {"1Gi", "1024Mi", 0}, {"0.5", "500m", 0},
		{"1e3", "1k", 0},     {"-1", "0", -1},       {"-1", "-2", 1},
		{"9Ei", "9223372036854775807", 0}, {"1n", "1u", -1}, {"1E", "999P", 1},
		{"18446744073709551616", "18446744073709551615", 1},
		{"1.2345", "1234500u", 0}, {"1000E", "1e21", 0}, {"0Ki", "-0", 0},
		{"1Ki", "1000", 1},   {"1k", "1000", 0},     {"-1Gi", "-1G", -1},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smp_quantity *a = parse(t[i].a), *b = parse(t[i].b);
		if (a && b) {
			CHECK(smp_quantity_cmp(a, b) == t[i].want, "cmp(%s, %s) = %d",
			      t[i].a, t[i].b, smp_quantity_cmp(a, b));
			CHECK(smp_quantity_cmp(b, a) == -t[i].want, "cmp(%s, %s) reversed",
			      t[i].a, t[i].b);
		}
		smp_quantity_free(a);
		smp_quantity_free(b);
	}
	CHECK(smp_quantity_cmp(NULL, NULL) == 0, "NULL cmp");
}

static void test_scaled(void)
{
	static const struct {
		const char *in;
		int scale;
		int64_t want;
		bool ok;
	} t[] = {
		{"0.5", -3, 500, true},     {"1.5", 0, 2, true},
		{"100m", 0, 1, true},       {"-1.5", 0, -2, true},
		{"1Ki", 0, 1024, true},     {"1n", -9, 1, true},
		{"1n", 0, 1, true},         {"1k", 3, 1, true},
		{"1e20", 0, INT64_MAX, false},
		{"9223372036854775807", 0, INT64_MAX, true},
		{"9223372036854775807", -3, INT64_MAX, false},
		{"-9223372036854775808", 0, INT64_MIN, true},
		{"0", 0, 0, true},          {"1234567", 3, 1235, true},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smp_quantity *q = parse(t[i].in);
		int64_t v = 7;
		bool ok = smp_quantity_scaled_value(&v, q, t[i].scale);
		CHECK(ok == t[i].ok && v == t[i].want, "%s scale %d: %lld %d", t[i].in,
		      t[i].scale, (long long)v, ok);
		smp_quantity_free(q);
	}
}

/* RoundUp(-3), as SetDefaults_ResourceList applies it. */
static void test_round_up(void)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{"1.2345", "1235m"}, {"5n", "1m"},       {"100m", "100m"},
		{"+1", "+1"},        {"1.500k", "1.500k"}, {"0.0000000001", "1m"},
		{"-1.2345", "-1235m"}, {"1Ki", "1Ki"},    {"0.5Ki", "512"},
		{".000000001Ki", "1m"}, {"1e-9", "1e-3"}, {"0", "0"},
		{"1000m", "1"},      {"1.5Gi", "1536Mi"}, {"0.1m", "1m"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smp_quantity *q = parse(t[i].in), *r = NULL;
		smp_error err;
		if (q && smp_quantity_round_up(&r, q, -3, &err) == 0)
			CHECK(strcmp(smp_quantity_string(r, NULL), t[i].out) == 0,
			      "round_up(%s) = %s, want %s", t[i].in,
			      smp_quantity_string(r, NULL), t[i].out);
		else
			CHECK(0, "round_up(%s) failed", t[i].in);
		smp_quantity_free(q);
		smp_quantity_free(r);
	}
}

static void test_values(void)
{
	static const struct {
		const char *json, *out;
	} t[] = {
		{"{\"v\":0.5}", "500m"},      {"{\"v\":1000}", "1k"},
		{"{\"v\":\" 1 \"}", "1"},     {"{\"v\":null}", "0"},
		{"{\"v\":1e21}", "1e+21"}, /* Go writes 1e+21: kept */     {"{\"v\":\"1536Mi\"}", "1536Mi"},
		{"{\"v\":\"\\u00a01Gi\\t\"}", "1Gi"}, {"{\"v\":-2}", "-2"},
		{"{\"v\":0.1}", "100m"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smp_doc *doc = parse_json(t[i].json);
		smp_quantity *q = NULL;
		smp_error err;
		if (!doc)
			continue;
		if (smp_quantity_from_value(&q, smp_map_get(smp_doc_root(doc, 0), "v"), "v",
		                            &err) == 0)
			CHECK(strcmp(smp_quantity_string(q, NULL), t[i].out) == 0, "%s: %s",
			      t[i].json, smp_quantity_string(q, NULL));
		else
			CHECK(0, "%s: %s", t[i].json, err.message);
		smp_quantity_free(q);
		smp_doc_free(doc);
	}
	/* Booleans, maps, lists: the format error, naming the field. */
	{
		smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
		smp_doc *doc = NULL;
		smp_quantity *q = NULL;
		smp_error err;
		const char *y = "spec:\n  cpu: true\n  mem: [1]\n";
		po.format = SMP_FORMAT_YAML;
		if (smp_doc_parse(&doc, y, strlen(y), &po, &err) == 0) {
			const smp_value *cpu = smp_value_at(smp_doc_root(doc, 0), "spec.cpu");
			int rc = smp_quantity_from_value(&q, cpu, "spec.cpu", &err);
			CHECK(rc == SMP_EINVALOBJ && strcmp(err.path, "spec.cpu") == 0 &&
			          err.line == 2 && err.column == 8,
			      "bool: rc %d path %s %u:%u", rc, err.path, err.line, err.column);
			rc = smp_quantity_from_value(
				&q, smp_value_at(smp_doc_root(doc, 0), "spec.mem"), NULL, &err);
			CHECK(rc == SMP_EINVALOBJ && err.path[0] == '\0', "list: rc %d", rc);
			smp_doc_free(doc);
		} else {
			CHECK(0, "yaml: %s", err.message);
		}
	}
}

int main(void)
{
	test_table();
	test_errors();
	test_cmp();
	test_scaled();
	test_round_up();
	test_values();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
