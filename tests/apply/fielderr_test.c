/*
 * fielderr_test.c - Go's quoting of the values the server's field errors
 * print (strconv.Quote), Go's base64 decoding errors (the offset of
 * base64.StdEncoding's CorruptInputError), and the Status of a field
 * error list. The expected texts are Go's answers (a Go 1.26 program
 * calling strconv.Quote and base64.StdEncoding.DecodeString on each
 * input, and apimachinery's errors.NewInvalid below); the
 * Statuses of the rules themselves are judged by the real API server
 * (tests/realserver/refusals.py).
 */
#include "tutil.h"
#include "apply/fielderr.h"
#include "codec/codec.h"

#include <stdio.h>
#include <string.h>

static void test_quote(void)
{
	static const struct {
		const char *in, *want;
	} t[] = {
		{"plain", "\"plain\""},
		{"k\"quote", "\"k\\\"quote\""},
		{"back\\slash", "\"back\\\\slash\""},
		{"\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87", "\"\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87\""},
		{"\a\b\f\n\r\t\v", "\"\\a\\b\\f\\n\\r\\t\\v\""},
		{"\x01\x7f", "\"\\x01\\x7f\""},
		{"\xff\xfe", "\"\\xff\\xfe\""},
		{"\xc2\xad\xe2\x80\x8b\xe2\x80\xa8", "\"\\u00ad\\u200b\\u2028\""},
		{"\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""},
		{"\xc2\xa0x", "\"\\u00a0x\""},
		{"\xef\xbb\xbf", "\"\\ufeff\""},
		{"\xf3\xb0\x80\x80", "\"\\U000f0000\""},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smp_buf b;

		smp_buf_init(&b);
		smp_quote_go(&b, t[i].in, strlen(t[i].in));
		CHECK(b.ptr && strcmp(b.ptr, t[i].want) == 0, "quote %zu: got %s want %s", i,
		      b.ptr ? b.ptr : "?", t[i].want);
		smp_buf_release(&b);
	}
}

static void test_base64(void)
{
	static const struct {
		const char *in;
		long want;
	} t[] = {
		{"", -1}, {"AA==", -1}, {"AAE=-e", 4}, {"not base64!", 3}, {"A", 0}, {"AA", 0},
		{"AAA", 0}, {"AA=", 3}, {"AA=A", 2}, {"AA==x", 4}, {"AAA=\n", -1}, {"AA\n==", -1},
		{"A===", 1}, {"=AAA", 0}, {"AAAA\r\nAAAA", -1}, {"AAAA=", 4}, {"AA==\n\nx", 6},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		long got = smp_base64_check(t[i].in, strlen(t[i].in));
		char out[16];
		size_t n = 0;

		CHECK(got == t[i].want, "base64 %zu (%s): got %ld want %ld", i, t[i].in, got, t[i].want);
		CHECK((smp_base64_decode(out, &n, t[i].in, strlen(t[i].in)) == 0) == (t[i].want < 0),
		      "base64 %zu: decode and check disagree", i);
	}
}

/* Two causes with one text and one other: the message lists each text
 * once, in brackets; the causes are all there. The expected Status is
 * apimachinery v0.32.4's errors.NewInvalid(GroupKind{apps, Deployment},
 * `a"b`, ...) of the same field.ErrorList, marshalled by encoding/json. */
static void test_status(void)
{
	smp_doc *obj = NULL, *st = NULL;
	smp_felist l;
	smp_error err;
	char *s = NULL;
	size_t at;

	obj = parse_json("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\","
	                 "\"metadata\":{\"name\":\"a\\\"b\"}}");
	if (!obj)
		return;
	smp_fe_init(&l);
	at = smp_fe_child(&l, "metadata");
	smp_fe_add_str(&l, SMP_FE_INVALID, "labels", NULL, "-y", 2, "bad");
	smp_fe_add_str(&l, SMP_FE_INVALID, "labels", NULL, "-y", 2, "bad");
	smp_fe_pop(&l, at);
	smp_fe_add(&l, SMP_FE_REQUIRED, "spec", NULL, NULL, NULL);
	CHECK(l.rc == 0 && l.n == 3);
	CHECK(smp__fe_status(&st, &err, &l, smp_doc_root(obj, 0)) == SMP_EINVALOBJ);
	smp_print(&s, NULL, smp_doc_root(st, 0), NULL, NULL);
	CHECK_STR(s, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
	          "\"Failure\",\"message\":\"Deployment.apps \\\"a\\\\\\\"b\\\" is invalid: "
	          "[metadata.labels: Invalid value: \\\"-y\\\": bad, spec: Required value]\","
	          "\"reason\":\"Invalid\",\"details\":{\"name\":\"a\\\"b\",\"group\":\"apps\","
	          "\"kind\":\"Deployment\",\"causes\":[{\"reason\":\"FieldValueInvalid\","
	          "\"message\":\"Invalid value: \\\"-y\\\": bad\",\"field\":\"metadata.labels\"},"
	          "{\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value: \\\"-y\\\": bad\","
	          "\"field\":\"metadata.labels\"},{\"reason\":\"FieldValueRequired\",\"message\":"
	          "\"Required value\",\"field\":\"spec\"}]},\"code\":422}");
	CHECK_STR(err.path, "metadata.labels");
	smp_free(s);
	smp_doc_free(st);
	smp_doc_free(obj);
	smp_fe_release(&l);
}

int main(void)
{
	test_quote();
	test_base64();
	test_status();
	return check_status();
}
