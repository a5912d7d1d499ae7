/*
 * test_scalars.c - table-driven test of every scalar rule: how a plain or
 * quoted YAML scalar, and a map key, reads (compared as compact JSON), and
 * the errors with their positions. Each expectation was checked against
 * kubectl v1.32 (`kubectl patch --local --type merge -p '{}' -o json`).
 */
#include "smpatch.h"
#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses `text` and prints root 0 as compact JSON; NULL on error. */
static char *to_json(const char *text, smp_format fmt, smp_error *err, int *rc)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc = NULL;
	char *out = NULL;

	po.format = fmt;
	po.filename = "t.yaml";
	memset(err, 0, sizeof(*err));
	*rc = smp_doc_parse(&doc, text, strlen(text), &po, err);
	if (*rc == 0) {
		if (smp_doc_count(doc) == 0) {
			out = strdup("<none>");
		} else {
			*rc = smp_print(&out, NULL, smp_doc_root(doc, 0), NULL, err);
		}
	}
	smp_doc_free(doc);
	return out;
}

/* value rules: `v: <text>` must read as {"v":<json>} */
static const struct {
	const char *yaml, *json;
} values[] = {
	/* booleans: exactly these spellings */
	{"y", "true"}, {"Y", "true"}, {"yes", "true"}, {"Yes", "true"}, {"YES", "true"},
	{"true", "true"}, {"True", "true"}, {"TRUE", "true"}, {"on", "true"}, {"On", "true"},
	{"ON", "true"}, {"n", "false"}, {"N", "false"}, {"no", "false"}, {"No", "false"},
	{"NO", "false"}, {"false", "false"}, {"False", "false"}, {"FALSE", "false"},
	{"off", "false"}, {"Off", "false"}, {"OFF", "false"},
	{"yEs", "\"yEs\""}, {"tRUE", "\"tRUE\""}, {"oN", "\"oN\""}, {"nO", "\"nO\""},
	{"yess", "\"yess\""}, {"t", "\"t\""}, {"f", "\"f\""},
	/* nulls */
	{"~", "null"}, {"null", "null"}, {"Null", "null"}, {"NULL", "null"}, {"", "null"},
	{"nULL", "\"nULL\""}, {"nil", "\"nil\""}, {"None", "\"None\""},
	/* decimal ints, signs, underscores */
	{"0", "0"}, {"7", "7"}, {"-7", "-7"}, {"+7", "7"}, {"1_000", "1000"}, {"1__0", "10"},
	{"1_", "1"}, {"_1", "\"_1\""}, {"-1_000_000", "-1000000"},
	/* other bases */
	{"0x1F", "31"}, {"0X1f", "31"}, {"-0x1F", "-31"}, {"+0x1F", "31"}, {"0x_ff", "255"},
	{"0xFFFF_FFFF", "4294967295"}, {"0b101", "5"}, {"0B101", "5"}, {"-0b101", "-5"},
	{"0b-101", "-5"}, {"0o17", "15"}, {"0O17", "15"}, {"017", "15"}, {"007", "7"},
	{"00", "0"}, {"08", "8"}, {"09", "9"}, {"0x", "\"0x\""}, {"0b", "\"0b\""},
	{"0o", "\"0o\""}, {"0xG", "\"0xG\""}, {"0b2", "\"0b2\""},
	/* int64 extremes and beyond (uint64 and larger become floats) */
	{"9223372036854775807", "9223372036854775807"},
	{"-9223372036854775808", "-9223372036854775808"},
	{"0x7FFFFFFFFFFFFFFF", "9223372036854775807"},
	{"-0x8000000000000000", "-9223372036854775808"},
	{"9223372036854775808", "9223372036854776000"},
	{"-9223372036854775809", "-9223372036854776000"},
	{"18446744073709551615", "18446744073709552000"},
	{"0xFFFFFFFFFFFFFFFF", "18446744073709552000"},
	{"18446744073709551616", "18446744073709552000"},
	{"0x1FFFFFFFFFFFFFFFF", "\"0x1FFFFFFFFFFFFFFFF\""},
	{"-0x8000000000000001", "\"-0x8000000000000001\""},
	{"07777777777777777777777777", "7.777777777777778e+24"},
	{"123456789012345678901234567890", "1.2345678901234568e+29"},
	/* floats; integral ones come out as ints, as after kubectl's JSON trip */
	{"1.0", "1"}, {"-0.0", "0"}, {"0.0", "0"}, {"1.5", "1.5"}, {"-1.5", "-1.5"},
	{".5", "0.5"}, {"-.5", "-0.5"}, {"+.5", "0.5"}, {"5.", "5"}, {"1e3", "1000"},
	{"1E3", "1000"}, {"1e+3", "1000"}, {"1e-3", "0.001"}, {"1.5e-7", "1.5e-7"},
	{"1_000.5", "1000.5"}, {"09.5", "9.5"}, {"1e21", "1e+21"},
	{"1e20", "100000000000000000000"}, {"1e-7", "1e-7"}, {"0.000001", "0.000001"},
	{"3.4028234663852886e+38", "3.4028234663852886e+38"},
	{"1.7976931348623157e+308", "1.7976931348623157e+308"},
	{"0.1", "0.1"}, {"0.30000000000000004", "0.30000000000000004"},
	{"5e-324", "5e-324"}, {"1e-400", "0"}, {"123456789.0", "123456789"},
	{"1e400", "\"1e400\""}, {"-1e400", "\"-1e400\""}, {".5e400", "\".5e400\""},
	{".e3", "\".e3\""}, {"1.2.3", "\"1.2.3\""}, {"1e", "\"1e\""}, {"0x1p3", "\"0x1p3\""},
	{".5_0", "\".5_0\""}, {"1,5", "\"1,5\""}, {"1 2", "\"1 2\""}, {"+", "\"+\""},
	{"-x", "\"-x\""}, {".", "\".\""},
	/* timestamps and base-60 forms stay strings */
	{"2001-12-14", "\"2001-12-14\""},
	{"2001-12-14t21:59:43.10-05:00", "\"2001-12-14t21:59:43.10-05:00\""},
	{"2001-12-14 21:59:43.10 -5", "\"2001-12-14 21:59:43.10 -5\""},
	{"12:30:00", "\"12:30:00\""}, {"1:20", "\"1:20\""}, {"190:20:30", "\"190:20:30\""},
	/* quoted scalars are always strings */
	{"\"yes\"", "\"yes\""}, {"'no'", "\"no\""}, {"\"123\"", "\"123\""},
	{"'1.5'", "\"1.5\""}, {"\"~\"", "\"~\""}, {"''", "\"\""}, {"\"null\"", "\"null\""},
	{"\"0x1F\"", "\"0x1F\""},
	/* explicit tags */
	{"!!str 123", "\"123\""}, {"!!str yes", "\"yes\""}, {"!!str", "\"\""},
	{"!!int \"12\"", "12"}, {"!!int 0x10", "16"}, {"!!float 1", "1"},
	{"!!float \"1.5\"", "1.5"}, {"!!float 0x10", "16"}, {"!!bool \"yes\"", "true"},
	{"!!null \"\"", "null"}, {"!!null ~", "null"}, {"!foo 123", "\"123\""},
	{"! 123", "\"123\""}, {"!!timestamp 2001-12-14", "\"2001-12-14\""},
	{"!<tag:yaml.org,2002:int> \"7\"", "7"}, {"!!binary aGVsbG8=", "\"hello\""},
	{"!!binary \"AAEC/w==\"", "\"\\u0000\\u0001\\u0002\xef\xbf\xbd\""},
	{"!!binary ////", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
	{"!!seq [1]", "[1]"}, {"!!str {a: 1}", "{\"a\":1}"},
	/* other strings */
	{"<<", "\"<<\""}, {"=", "\"=\""}, {"hello world", "\"hello world\""},
	{"a: b", NULL}, /* not a scalar: skipped below */
	{"\"\\u00e9\\U0001F600\"", "\"\xc3\xa9\xf0\x9f\x98\x80\""},
	{"\"a\\0b\"", "\"a\\u0000b\""},
};

/* key rules: `{<text>: 1}` must have the key <json> */
static const struct {
	const char *yaml, *key;
} keys[] = {
	{"1", "1"}, {"0x10", "16"}, {"-9223372036854775808", "-9223372036854775808"},
	{"1.5", "1.5"}, {"1e3", "1000"}, {"1.0", "1"}, {"0.1", "0.1"},
	{"3.14159265358979", "3.1415927"}, {"1e21", "1e+21"}, {"1e-7", "1e-07"},
	{"123456789.0", "1.2345679e+08"}, {"1234567.0", "1.234567e+06"},
	{"123456.0", "123456"}, {"0.0001", "0.0001"}, {"0.00001", "1e-05"},
	{"1e39", ".inf"}, {".inf", ".inf"}, {"-.inf", "-.inf"}, {".nan", ".nan"},
	{"-0.0", "-0"}, {"true", "true"}, {"off", "false"}, {"y", "true"}, {"N", "false"},
	{"2001-12-14", "2001-12-14"}, {"1e400", "1e400"}, {"!!str 1", "1"},
	{"\"1\"", "1"}, {"'true'", "true"}, {"\"<<\"", "<<"}, {"!!float 2", "2"},
	{"!!binary aGk=", "hi"},
};

/* errors: `text` must fail with `code` at line:col, message containing `msg` */
static const struct {
	const char *text;
	int code;
	unsigned line, col;
	const char *msg;
} errors[] = {
	{"v: .inf", SMP_EPARSE, 1, 4, "+Inf"},
	{"v: -.Inf", SMP_EPARSE, 1, 4, "-Inf"},
	{"v: .NaN", SMP_EPARSE, 1, 4, "NaN"},
	{"v: !!float .nan", SMP_EPARSE, 1, 4, "NaN"},
	{"v: !!int abc", SMP_EPARSE, 1, 4, "cannot decode !!str `abc` as a !!int"},
	{"v: !!bool 1", SMP_EPARSE, 1, 4, "cannot decode !!int `1` as a !!bool"},
	{"v: !!int 1.5", SMP_EPARSE, 1, 4, "cannot decode !!float `1.5` as a !!int"},
	{"v: !!null x", SMP_EPARSE, 1, 4, "as a !!null"},
	{"v: !!float abc", SMP_EPARSE, 1, 4, "as a !!float"},
	{"v: !!timestamp abc", SMP_EPARSE, 1, 4, "as a !!timestamp"},
	{"v: !!binary aGVsbG8", SMP_EPARSE, 1, 4, "invalid base64"},
	{"{~: a}", SMP_EPARSE, 1, 2, "unsupported map key"},
	{"a:\n  null: 1", SMP_EPARSE, 2, 3, "unsupported map key"},
	{"{18446744073709551615: a}", SMP_EPARSE, 1, 2, "uint64"},
	{"{[1]: a}", SMP_EPARSE, 1, 2, "invalid map key"},
	{"? {a: 1}\n: b", SMP_EPARSE, 1, 3, "invalid map key"},
	{"a: 1\nb: 2\na: 3", SMP_EPARSE, 3, 1, "duplicate key \"a\" (lines 1 and 3)"},
	{"on: 1\ntrue: 2", SMP_EPARSE, 2, 1, "duplicate key \"true\" (lines 1 and 2)"},
	{"{1: a, \"1\": b}", SMP_EPARSE, 1, 8, "duplicate key \"1\""},
	{"{1.0: a, 1: b}", SMP_EPARSE, 1, 10, "duplicate key \"1\""},
	{"a: *x", SMP_EPARSE, 1, 4, "unknown anchor 'x' referenced"},
	{"a: &x [*x]", SMP_EPARSE, 1, 8, "contains itself"},
	{"m: {<<: 5}", SMP_EPARSE, 1, 5, "map merge requires"},
	{"m: {<<: [{a: 1}, x]}", SMP_EPARSE, 1, 5, "map merge requires"},
	{"a: [1, 2\nb: 3", SMP_EPARSE, 2, 2, "invalid YAML"},
	{"a:\n\tb: 1", SMP_EPARSE, 2, 1, "invalid YAML"},
	{"a: x\x01y", SMP_EPARSE, 1, 5, "control characters"},
	{"a: 1\n--- x\n", SMP_EPARSE, 2, 5, "invalid YAML document separator: x"},
	{"%YAML 1.1\n---\na: 1", SMP_EPARSE, 2, 1, "document start"},
};

static void check_values(void)
{
	char text[256], want[256];
	smp_error err;
	int rc;

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		if (!values[i].json)
			continue;
		snprintf(text, sizeof(text), "v: %s\n", values[i].yaml);
		snprintf(want, sizeof(want), "{\"v\":%s}", values[i].json);
		char *got = to_json(text, SMP_FORMAT_YAML, &err, &rc);
		if (rc || !got || strcmp(got, want) != 0) {
			printf("FAIL value %-28s want %s got %s (rc %d: %s)\n", values[i].yaml, want,
			       got ? got : "-", rc, rc ? err.message : "");
			failures++;
		}
		free(got);
		/* The same scalar as a list item resolves the same way. */
		snprintf(text, sizeof(text), "- %s\n", values[i].yaml);
		snprintf(want, sizeof(want), "[%s]", values[i].json);
		got = to_json(text, SMP_FORMAT_YAML, &err, &rc);
		if (rc || !got || strcmp(got, want) != 0) {
			printf("FAIL item %-28s want %s got %s\n", values[i].yaml, want, got ? got : "-");
			failures++;
		}
		free(got);
	}
}

static void check_keys(void)
{
	char text[256], want[256];
	smp_error err;
	int rc;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(text, sizeof(text), "%s : 1\n", keys[i].yaml);
		snprintf(want, sizeof(want), "{\"%s\":1}", keys[i].key);
		char *got = to_json(text, SMP_FORMAT_YAML, &err, &rc);
		if (rc || !got || strcmp(got, want) != 0) {
			printf("FAIL key %-28s want %s got %s (%s)\n", keys[i].yaml, want,
			       got ? got : "-", rc ? err.message : "");
			failures++;
		}
		free(got);
	}
}

static void check_errors(void)
{
	smp_error err;
	int rc;

	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		char *got = to_json(errors[i].text, SMP_FORMAT_YAML, &err, &rc);
		if (rc != errors[i].code || err.line != errors[i].line ||
		    err.column != errors[i].col || !strstr(err.message, errors[i].msg) ||
		    strcmp(err.file, "t.yaml") != 0) {
			printf("FAIL error %d (%s): want %d %u:%u \"%s\", got %d %u:%u \"%s\"\n",
			       (int)i, errors[i].msg, errors[i].code, errors[i].line, errors[i].col,
			       errors[i].msg, rc, err.line, err.column, err.message);
			failures++;
		}
		free(got);
	}
}

int main(void)
{
	check_values();
	check_keys();
	check_errors();
	printf("%zu value rules, %zu key rules, %zu error rules: %d failures\n",
	       sizeof(values) / sizeof(values[0]), sizeof(keys) / sizeof(keys[0]),
	       sizeof(errors) / sizeof(errors[0]), failures);
	return failures ? 1 : 0;
}
