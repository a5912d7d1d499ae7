/*
 * test_strings.c - the chunked (SSE2 or SWAR, simd.h) string paths of the
 * JSON reader and printer against plain byte-at-a-time reference versions
 * written here: every escape, control character, multi-byte and invalid
 * UTF-8 sequence at every offset around the 8- and 16-byte chunk edges,
 * strings ending exactly at the end of the buffer (exact-size malloc, so a
 * sanitizer sees any read past it), and random mixes. Also the duplicate
 * key detection (sorted and unsorted maps, small and indexed).
 *
 * Built twice: against the library, and against a codec built with
 * -DSMP_NO_SIMD (the portable fallback).
 */
#include "smpatch.h"
#include "codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../merge/rng.h"

/* ---- reference reader: the two-pass byte-at-a-time algorithm ---- */

typedef struct ref_result {
	int ok;
	char *out; /* room for 3 bytes per input byte */
	size_t len;
	const char *msg;
	size_t at; /* offset of the error from the opening quote */
	size_t end; /* offset of the closing quote */
	unsigned ctl;
} ref_result;

static int hexv(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int ref_hex4(const unsigned char *p, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexv(p[i]);
		if (h < 0)
			return -1;
		*v = *v << 4 | (uint32_t)h;
	}
	return 0;
}

/* buf[0] is the opening quote; len is all of the input. */
static void ref_read(ref_result *res, const unsigned char *buf, size_t len, bool yaml)
{
	const unsigned char *end = buf + len, *q = buf + 1, *s = q;
	uint32_t cp;

	char *o = res->out;

	memset(res, 0, sizeof(*res));
	res->out = o;
	/* Pass 1: the end, control characters. */
	while (q < end) {
		if (*q == '"')
			break;
		if (*q == '\\') {
			q += 2;
			continue;
		}
		if (*q < 0x20) {
			res->msg = "control";
			res->ctl = *q;
			res->at = (size_t)(q - buf);
			return;
		}
		if (*q >= 0x80) {
			size_t n = smp_utf8_decode(q, (size_t)(end - q), &cp);
			q += n ? n : 1;
			continue;
		}
		q++;
	}
	if (q >= end) {
		res->msg = "invalid JSON: unterminated string";
		res->at = 0;
		return;
	}
	/* Pass 2: decode. */
	size_t n = 0;
	for (const unsigned char *p = s; p < q;) {
		if (*p >= 0x80) {
			size_t k = smp_utf8_decode(p, (size_t)(q - p), &cp);
			if (!k) {
				memcpy(res->out + n, "\xef\xbf\xbd", 3);
				n += 3;
				p++;
			} else {
				memcpy(res->out + n, p, k);
				n += k;
				p += k;
			}
			continue;
		}
		if (*p != '\\') {
			res->out[n++] = (char)*p++;
			continue;
		}
		const unsigned char *e = p++;
		res->at = (size_t)(e - buf);
		switch (*p) {
		case '"': res->out[n++] = '"'; p++; break;
		case '\\': res->out[n++] = '\\'; p++; break;
		case '/':
			if (yaml) {
				res->msg = "no \\/ in YAML";
				return;
			}
			res->out[n++] = '/';
			p++;
			break;
		case 'b': res->out[n++] = '\b'; p++; break;
		case 'f': res->out[n++] = '\f'; p++; break;
		case 'n': res->out[n++] = '\n'; p++; break;
		case 'r': res->out[n++] = '\r'; p++; break;
		case 't': res->out[n++] = '\t'; p++; break;
		case 'u': {
			uint32_t c, lo;
			if (q - p < 5 || ref_hex4(p + 1, &c)) {
				res->msg = "invalid JSON: bad \\u escape in string";
				return;
			}
			p += 5;
			if (c >= 0xd800 && c <= 0xdfff && yaml) {
				res->msg = "no surrogates in YAML";
				return;
			}
			if (c >= 0xd800 && c <= 0xdbff) {
				if (q - p >= 6 && p[0] == '\\' && p[1] == 'u' && ref_hex4(p + 2, &lo) == 0 &&
				    lo >= 0xdc00 && lo <= 0xdfff) {
					c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				} else {
					c = 0xfffd;
				}
			} else if (c >= 0xdc00 && c <= 0xdfff) {
				c = 0xfffd;
			}
			n += smp_utf8_put(res->out + n, c);
			break;
		}
		default:
			res->msg = "invalid JSON: bad escape in string";
			return;
		}
	}
	res->ok = 1;
	res->len = n;
	res->end = (size_t)(q - buf);
}

/* Reads buf (a JSON string, maybe unterminated) with the library's reader
 * and compares with the reference. */
static void check_read(const unsigned char *body, size_t blen, bool closed, bool yaml)
{
	size_t len = 1 + blen + (closed ? 1 : 0);
	unsigned char *buf = malloc(len);
	ref_result ref;
	smp_error err;
	smp_pctx pc;
	smp_doc *doc = smp_doc_alloc();

	ref.out = malloc(3 * len + 16);
	if (!buf || !doc || !ref.out) {
		printf("out of memory\n");
		exit(1);
	}
	buf[0] = '"';
	memcpy(buf + 1, body, blen);
	if (closed)
		buf[len - 1] = '"';
	ref_read(&ref, buf, len, yaml);
	memset(&pc, 0, sizeof(pc));
	memset(&err, 0, sizeof(err));
	pc.file = "t";
	pc.max_depth = 100;
	pc.yaml_compat = yaml;
	pc.err = &err;
	/* A string that ends early (an escaped backslash before a quote) is
	 * read on its own. */
	int rc = smp_json_read(doc, (const char *)buf, ref.ok ? ref.end + 1 : len, &pc);
	if (ref.ok) {
		const smp_value *v = doc->nroots == 1 ? doc->roots[0] : NULL;
		size_t n = 0;
		const char *s = smp_value_string(v, &n);
		CHECK(rc == 0 && s && n == ref.len && memcmp(s, ref.out, n) == 0 && s[n] == '\0',
		      "body %.*s (len %zu, yaml %d): rc %d, got %zu bytes, want %zu (%s)",
		      (int)blen, (const char *)body, blen, yaml, rc, n, ref.len, err.message);
	} else {
		char want[128];
		if (strcmp(ref.msg, "control") == 0)
			snprintf(want, sizeof(want),
			         "invalid JSON: control character 0x%02x in string", ref.ctl);
		else
			snprintf(want, sizeof(want), "%s", ref.msg);
		CHECK(rc == SMP_EPARSE && strcmp(err.message, want) == 0 && err.line == 1 &&
		              err.column == ref.at + 1,
		      "body of %zu bytes (closed %d, yaml %d): rc %d %s at %u, want %s at %zu",
		      blen, closed, yaml, rc, err.message, err.column, want, ref.at + 1);
	}
	smp_doc_free(doc);
	free(ref.out);
	free(buf);
}

/* Strings longer than the arena's blocks (a block of their own, shrunk at
 * the end), some growing past the input's size (invalid bytes become three
 * each), several in one document. */
static void test_reader_long(void)
{
	size_t sizes[] = {200000, 262100, 262144, 300000, 1100000, 3000000};
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		size_t n = sizes[si];
		unsigned char *body = malloc(n);
		for (int kind = 0; kind < 4; kind++) {
			for (size_t i = 0; i < n; i++) {
				switch (kind) {
				case 0: body[i] = (unsigned char)('a' + i % 26); break;
				case 1: body[i] = i % 9 == 8 ? '"' : i % 9 == 7 ? '\\' : 'x'; break;
				case 2: body[i] = 0xff; break; /* every byte grows to three */
				default: body[i] = i > n / 2 ? 0xfe : (unsigned char)('0' + i % 10); break;
				}
			}
			check_read(body, n, true, false);
		}
		free(body);
	}
	/* Several long strings in one document, and short ones between. */
	smp_buf b;
	smp_buf_init(&b);
	smp_buf_putc(&b, '[');
	for (int i = 0; i < 12; i++) {
		smp_buf_puts(&b, i ? ",\"" : "\"");
		size_t n = i % 3 == 0 ? 400000 + (size_t)i * 1000 : (size_t)i * 37;
		for (size_t j = 0; j < n; j++)
			smp_buf_putc(&b, j % 5 == 4 ? 'Q' : (char)('a' + (i + (int)j) % 26));
		smp_buf_puts(&b, "\\n\"");
	}
	smp_buf_putc(&b, ']');
	smp_doc *doc = NULL;
	smp_error err;
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	int rc = smp_doc_parse(&doc, b.ptr, b.len, &po, &err);
	CHECK(rc == 0 && smp_value_len(smp_doc_root(doc, 0)) == 12, "12 strings: %s", err.message);
	for (int i = 0; rc == 0 && i < 12; i++) {
		size_t n = i % 3 == 0 ? 400000 + (size_t)i * 1000 : (size_t)i * 37, len;
		const char *s = smp_value_string(smp_list_get(smp_doc_root(doc, 0), (size_t)i), &len);
		bool ok = s && len == n + 1 && s[n] == '\n' && s[n + 1] == '\0';
		for (size_t j = 0; ok && j < n; j++)
			ok = s[j] == (j % 5 == 4 ? 'Q' : (char)('a' + (i + (int)j) % 26));
		CHECK(ok, "string %d of the 12", i);
	}
	smp_doc_free(doc);
	smp_buf_release(&b);
}

static const char *const events[] = {
	"\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0041", "\\u00e9",
	"\\u20AC", "\\ud83d\\ude00", "\\ud800", "\\udc00", "\\ud800\\u0041", "\\ud800x",
	"\\uZZ00", "\\u12", "\\x", "\\\x01", "\x01", "\x1f", "\x7f", "\xc3\xa9",
	"\xe2\x82\xac", "\xe2\x80\xa8", "\xf0\x9f\x98\x80", "\xff", "\xc3", "\xe2\x82",
	"\xed\xa0\x80", "\xc0\x80", "\xf4\x90\x80\x80", "<>&", "\\", "\t", "\n",
};
#define NEVENTS (sizeof(events) / sizeof(events[0]))

static void test_reader_edges(void)
{
	unsigned char body[256];

	for (size_t ev = 0; ev < NEVENTS; ev++) {
		size_t el = strlen(events[ev]);
		for (size_t k = 0; k <= 34; k++) {
			for (size_t m = 0; m <= 34; m++) {
				memset(body, 'a' + (int)(k % 26), k);
				memcpy(body + k, events[ev], el);
				memset(body + k + el, 'z', m);
				for (int closed = 0; closed < 2; closed++)
					for (int yaml = 0; yaml < 2; yaml++)
						check_read(body, k + el + m, closed, yaml);
			}
		}
	}
}

static void test_reader_random(void)
{
	unsigned char body[1024];

	for (int iter = 0; iter < 30000; iter++) {
		size_t n = 0, parts = pick(24);
		for (size_t i = 0; i < parts; i++) {
			if (pick(3)) {
				size_t run = pick(20);
				for (size_t j = 0; j < run; j++)
					body[n++] = (unsigned char)('A' + pick(26));
			} else {
				/* Mostly well-formed events, so the string gets far. */
				size_t ev = pick(4) ? pick(12) : pick(NEVENTS);
				size_t el = strlen(events[ev]);
				memcpy(body + n, events[ev], el);
				n += el;
			}
		}
		check_read(body, n, pick(8) != 0, pick(4) == 0);
	}
}

/* ---- reference printer ---- */

static void ref_put_string(smp_buf *b, const unsigned char *p, size_t n, bool go)
{
	static const char hexd[] = "0123456789abcdef";

	smp_buf_putc(b, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		if (c >= 0x80) {
			uint32_t cp;
			size_t k = smp_utf8_decode(p + i, n - i, &cp);
			if (!k) {
				smp_buf_puts(b, "\\ufffd");
				i++;
			} else if (cp == 0x2028 || cp == 0x2029) {
				smp_buf_puts(b, cp == 0x2028 ? "\\u2028" : "\\u2029");
				i += k;
			} else {
				smp_buf_put(b, (const char *)p + i, k);
				i += k;
			}
			continue;
		}
		i++;
		switch (c) {
		case '"': smp_buf_puts(b, "\\\""); break;
		case '\\': smp_buf_puts(b, "\\\\"); break;
		case '\b': smp_buf_puts(b, "\\b"); break;
		case '\f': smp_buf_puts(b, "\\f"); break;
		case '\n': smp_buf_puts(b, "\\n"); break;
		case '\r': smp_buf_puts(b, "\\r"); break;
		case '\t': smp_buf_puts(b, "\\t"); break;
		default:
			if (c < 0x20 || (go && (c == '<' || c == '>' || c == '&'))) {
				char e[6] = {'\\', 'u', '0', '0', hexd[c >> 4], hexd[c & 15]};
				smp_buf_put(b, e, 6);
			} else {
				smp_buf_putc(b, (char)c);
			}
		}
	}
	smp_buf_putc(b, '"');
}

static void check_print(const unsigned char *s, size_t n)
{
	for (int go = 0; go < 2; go++) {
		smp_buf want, got;
		/* The string in its own exact-size allocation. */
		unsigned char *copy = malloc(n ? n : 1);
		memcpy(copy, s, n);
		smp_buf_init(&want);
		smp_buf_init(&got);
		ref_put_string(&want, copy, n, go);
		smp_json_put_string(&got, (const char *)copy, n, go);
		smp_buf_put(&got, "", 0);
		CHECK(!want.oom && !got.oom && want.len == got.len &&
		              memcmp(want.ptr, got.ptr, want.len) == 0,
		      "print of %zu bytes (go %d): got %s want %s", n, go, got.ptr ? got.ptr : "-",
		      want.ptr ? want.ptr : "-");
		smp_buf_release(&want);
		smp_buf_release(&got);
		free(copy);
	}
}

static const char *const raw_events[] = {
	"\"", "\\", "\b", "\f", "\n", "\r", "\t", "\x01", "\x1f", "\x7f", "<", ">", "&",
	"\xc3\xa9", "\xe2\x82\xac", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xf0\x9f\x98\x80", "\xff",
	"\xc3", "\xe2\x82", "\xed\xa0\x80", "\xc0\x80", "\x00",
};
#define NRAW (sizeof(raw_events) / sizeof(raw_events[0]))

static void test_printer(void)
{
	unsigned char s[512];

	for (size_t ev = 0; ev < NRAW; ev++) {
		size_t el = ev == NRAW - 1 ? 1 : strlen(raw_events[ev]);
		for (size_t k = 0; k <= 34; k++)
			for (size_t m = 0; m <= 34; m++) {
				memset(s, 'a' + (int)(k % 26), k);
				memcpy(s + k, raw_events[ev], el);
				memset(s + k + el, 'z', m);
				check_print(s, k + el + m);
			}
	}
	for (int iter = 0; iter < 20000; iter++) {
		size_t n = 0, parts = pick(24);
		for (size_t i = 0; i < parts; i++) {
			if (pick(3)) {
				size_t run = pick(20);
				for (size_t j = 0; j < run; j++)
					s[n++] = (unsigned char)(' ' + pick(95));
			} else {
				size_t ev = pick(NRAW);
				size_t el = ev == NRAW - 1 ? 1 : strlen(raw_events[ev]);
				memcpy(s + n, raw_events[ev], el);
				n += el;
			}
		}
		check_print(s, n);
	}
}

/* ---- duplicate keys ---- */

/* A map of the given keys (single letters and digits); a duplicate must be
 * reported at the second occurrence of the first repeated key, else every
 * key is there in order. */
static void check_keys(const char *const *keys, size_t n)
{
	smp_buf b;
	size_t cols[300], dup = n, first = 0;

	smp_buf_init(&b);
	smp_buf_putc(&b, '{');
	for (size_t i = 0; i < n; i++) {
		if (i)
			smp_buf_putc(&b, ',');
		cols[i] = b.len + 1;
		smp_buf_printf(&b, "\"%s\":%zu", keys[i], i);
	}
	smp_buf_putc(&b, '}');
	for (size_t i = 0; i < n && dup == n; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(keys[i], keys[j]) == 0) {
				dup = i;
				first = j;
				break;
			}
	smp_doc *doc = NULL;
	smp_error err;
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	po.format = SMP_FORMAT_JSON;
	int rc = smp_doc_parse(&doc, b.ptr, b.len, &po, &err);
	if (dup < n) {
		char want[256];
		snprintf(want, sizeof(want), "duplicate key \"%s\" (line 1, columns %zu and %zu)",
		         keys[dup], cols[first], cols[dup]);
		CHECK(rc == SMP_EPARSE && strcmp(err.message, want) == 0,
		      "%s: got %s, want %s", b.ptr, rc ? err.message : "success", want);
	} else {
		const smp_value *m = rc == 0 ? smp_doc_root(doc, 0) : NULL;
		bool ok = m && smp_value_len(m) == n;
		for (size_t i = 0; ok && i < n; i++)
			ok = strcmp(smp_map_key(m, i, NULL), keys[i]) == 0 &&
			     smp_value_int(smp_map_value(m, i)) == (int64_t)i;
		CHECK(ok, "%s: rc %d %s", b.ptr, rc, rc ? err.message : "");
	}
	/* Duplicates allowed: the last value wins, at the first position. */
	smp_doc_free(doc);
	doc = NULL;
	po.allow_duplicate_keys = true;
	rc = smp_doc_parse(&doc, b.ptr, b.len, &po, &err);
	CHECK(rc == 0, "%s with duplicates allowed: %s", b.ptr, err.message);
	if (rc == 0) {
		const smp_value *m = smp_doc_root(doc, 0);
		for (size_t i = 0; i < n; i++) {
			size_t last = i;
			for (size_t j = 0; j < n; j++)
				if (strcmp(keys[j], keys[i]) == 0)
					last = j;
			CHECK(smp_value_int(smp_map_get(m, keys[i])) == (int64_t)last,
			      "%s: key %s is not its last value", b.ptr, keys[i]);
		}
	}
	smp_doc_free(doc);
	smp_buf_release(&b);
}

static void test_keys(void)
{
	static char names[300][8];
	const char *keys[300];

	for (int i = 0; i < 300; i++)
		snprintf(names[i], sizeof(names[i]), "k%03d", i);
	for (int iter = 0; iter < 3000; iter++) {
		size_t n = 1 + pick(iter % 10 == 0 ? 300 : 40);
		int mode = (int)pick(4);
		for (size_t i = 0; i < n; i++) {
			size_t idx = i;
			if (mode == 1)
				idx = pick(300); /* random order, repeats likely */
			else if (mode == 2)
				idx = n - 1 - i; /* decreasing */
			keys[i] = names[idx];
		}
		if (mode == 3 && n > 1) {
			/* Sorted, then one repeat or one out-of-order key. */
			size_t at = pick((uint32_t)n);
			keys[at] = names[pick((uint32_t)n)];
		}
		check_keys(keys, n);
	}
}

int main(void)
{
	test_reader_edges();
	test_reader_random();
	test_reader_long();
	test_printer();
	test_keys();
	if (failures) {
		printf("%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
