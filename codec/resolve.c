/*
 * resolve.c - YAML scalar resolution exactly as kubectl does it.
 *
 * kubectl reads YAML with sigs.k8s.io/yaml: go-yaml v2 decodes the text into
 * Go values (resolve() in go-yaml's resolve.go, YAML 1.1 rules), map keys are
 * turned into strings (convertToJSONableObject), the result is written as
 * JSON (encoding/json) and read back into an unstructured object (integers
 * that fit int64 become int64, every other number float64). This file
 * reproduces that whole chain for one scalar:
 *
 *   smp_resolve()       go-yaml's resolve(tag, text) -> null/bool/int/uint/float/str
 *   smp_scalar_value()  ... -> JSON -> unstructured value (e.g. 1.0 -> int 1,
 *                       uint64 -> float, NaN/Inf -> error like json.Marshal)
 *   smp_scalar_key()    ... -> the map key string (floats as
 *                       FormatFloat(f, 'g', -1, 32), null/uint64 keys rejected)
 *
 * Every rule here was checked against kubectl v1.32 (see tests/codec and
 * docs/CODEC.md).
 */
#include "codec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_PREFIX "tag:yaml.org,2002:"

static bool tag_is(const char *tag, const char *name)
{
	size_t pl = sizeof(TAG_PREFIX) - 1;
	return tag && strncmp(tag, TAG_PREFIX, pl) == 0 && strcmp(tag + pl, name) == 0;
}

/* "!!int" for messages, like go-yaml's shortTag. */
static void short_tag(char *buf, size_t size, const char *tag)
{
	size_t pl = sizeof(TAG_PREFIX) - 1;

	if (tag && strncmp(tag, TAG_PREFIX, pl) == 0)
		snprintf(buf, size, "!!%s", tag + pl);
	else
		snprintf(buf, size, "%s", tag ? tag : "");
}

/* ---- Go's strconv.ParseUint / ParseInt with base 0 ---- */

enum { PARSE_OK = 0, PARSE_SYNTAX, PARSE_RANGE };

static int digit_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/* base 0: 0x/0X hex, 0b/0B binary, 0o/0O octal, leading 0 octal. */
static int go_parse_uint(const char *s, size_t n, int base, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0)
		return PARSE_SYNTAX;
	if (base == 0) {
		base = 10;
		if (s[0] == '0') {
			if (n >= 3 && (s[1] == 'x' || s[1] == 'X')) {
				base = 16;
				s += 2;
				n -= 2;
			} else if (n >= 3 && (s[1] == 'b' || s[1] == 'B')) {
				base = 2;
				s += 2;
				n -= 2;
			} else if (n >= 3 && (s[1] == 'o' || s[1] == 'O')) {
				base = 8;
				s += 2;
				n -= 2;
			} else if (n >= 2 && (s[1] == 'x' || s[1] == 'X' || s[1] == 'b' ||
			                      s[1] == 'B' || s[1] == 'o' || s[1] == 'O')) {
				return PARSE_SYNTAX; /* "0x" with no digits */
			} else {
				base = 8;
				s += 1;
				n -= 1;
				if (n == 0) {
					*out = 0;
					return PARSE_OK;
				}
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		int d = digit_val(s[i]);
		if (d >= base)
			return PARSE_SYNTAX;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) {
			/* Go stops at the first overflow with a range error. */
			return PARSE_RANGE;
		}
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return PARSE_OK;
}

static int go_parse_int(const char *s, size_t n, int base, int64_t *out)
{
	bool neg = false;
	uint64_t u;
	int rc;

	if (n == 0)
		return PARSE_SYNTAX;
	if (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-';
		s++;
		n--;
	}
	rc = go_parse_uint(s, n, base, &u);
	if (rc)
		return rc;
	if (!neg && u > (uint64_t)INT64_MAX)
		return PARSE_RANGE;
	if (neg && u > (uint64_t)INT64_MAX + 1)
		return PARSE_RANGE;
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	return PARSE_OK;
}

/* go-yaml's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool yaml_style_float(const char *s, size_t n)
{
	size_t i = 0, d;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	if (i < n && s[i] == '.') {
		i++;
		for (d = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++, d++)
			;
		if (!d)
			return false;
	} else {
		for (d = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++, d++)
			;
		if (!d)
			return false;
		if (i < n && s[i] == '.') {
			i++;
			while (i < n && s[i] >= '0' && s[i] <= '9')
				i++;
		}
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		for (d = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++, d++)
			;
		if (!d)
			return false;
	}
	return i == n;
}

/* strtod on a counted string; false when it overflows (Go's ErrRange). */
static bool parse_float(const char *s, size_t n, double *out)
{
	char small[128], *tmp = small;
	double d;

	if (n >= sizeof(small)) {
		tmp = malloc(n + 1);
		if (!tmp)
			return false;
	}
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	d = strtod(tmp, NULL);
	if (tmp != small)
		free(tmp);
	if (isinf(d))
		return false;
	*out = d;
	return true;
}

/* A subset of the timestamp forms go-yaml accepts (only needed to validate
 * explicit !!timestamp tags: untagged timestamps stay strings anyway). */
static bool digits(const char *s, size_t n, size_t *i, size_t min, size_t max)
{
	size_t k = 0;

	while (*i < n && k < max && s[*i] >= '0' && s[*i] <= '9') {
		(*i)++;
		k++;
	}
	return k >= min;
}

static bool is_timestamp(const char *s, size_t n)
{
	size_t i = 0;

	if (!digits(s, n, &i, 4, 4) || i >= n || s[i++] != '-' || !digits(s, n, &i, 1, 2) ||
	    i >= n || s[i++] != '-' || !digits(s, n, &i, 1, 2))
		return false;
	if (i == n)
		return true;
	bool tz = s[i] == 'T' || s[i] == 't';
	if (!tz && s[i] != ' ')
		return false;
	i++;
	if (!digits(s, n, &i, 1, 2) || i >= n || s[i++] != ':' || !digits(s, n, &i, 1, 2) ||
	    i >= n || s[i++] != ':' || !digits(s, n, &i, 1, 2))
		return false;
	if (i < n && s[i] == '.') {
		i++;
		if (!digits(s, n, &i, 1, 9))
			return false;
	}
	if (!tz)
		return i == n;
	if (i < n && s[i] == 'Z')
		return i + 1 == n;
	if (i < n && (s[i] == '+' || s[i] == '-')) {
		i++;
		return digits(s, n, &i, 2, 2) && i < n && s[i++] == ':' &&
		       digits(s, n, &i, 2, 2) && i == n;
	}
	return false;
}

/* The fixed words of go-yaml v2's resolve table. */
static bool lookup_word(const char *s, size_t n, smp_scalar *out)
{
	static const struct {
		const char *w;
		unsigned char len;
		signed char kind, b;
	} words[] = {
		{"y", 1, SMP_RS_BOOL, 1}, {"Y", 1, SMP_RS_BOOL, 1}, {"n", 1, SMP_RS_BOOL, 0},
		{"N", 1, SMP_RS_BOOL, 0}, {"~", 1, SMP_RS_NULL, 0}, {"", 0, SMP_RS_NULL, 0},
		{"on", 2, SMP_RS_BOOL, 1}, {"On", 2, SMP_RS_BOOL, 1}, {"ON", 2, SMP_RS_BOOL, 1},
		{"no", 2, SMP_RS_BOOL, 0}, {"No", 2, SMP_RS_BOOL, 0}, {"NO", 2, SMP_RS_BOOL, 0},
		{"yes", 3, SMP_RS_BOOL, 1}, {"Yes", 3, SMP_RS_BOOL, 1}, {"YES", 3, SMP_RS_BOOL, 1},
		{"off", 3, SMP_RS_BOOL, 0}, {"Off", 3, SMP_RS_BOOL, 0}, {"OFF", 3, SMP_RS_BOOL, 0},
		{"true", 4, SMP_RS_BOOL, 1}, {"True", 4, SMP_RS_BOOL, 1}, {"TRUE", 4, SMP_RS_BOOL, 1},
		{"null", 4, SMP_RS_NULL, 0}, {"Null", 4, SMP_RS_NULL, 0}, {"NULL", 4, SMP_RS_NULL, 0},
		{".nan", 4, SMP_RS_FLOAT, 0}, {".NaN", 4, SMP_RS_FLOAT, 0}, {".NAN", 4, SMP_RS_FLOAT, 0},
		{".inf", 4, SMP_RS_FLOAT, 1}, {".Inf", 4, SMP_RS_FLOAT, 1}, {".INF", 4, SMP_RS_FLOAT, 1},
		{"false", 5, SMP_RS_BOOL, 0}, {"False", 5, SMP_RS_BOOL, 0}, {"FALSE", 5, SMP_RS_BOOL, 0},
		{"+.inf", 5, SMP_RS_FLOAT, 1}, {"+.Inf", 5, SMP_RS_FLOAT, 1}, {"+.INF", 5, SMP_RS_FLOAT, 1},
		{"-.inf", 5, SMP_RS_FLOAT, -1}, {"-.Inf", 5, SMP_RS_FLOAT, -1}, {"-.INF", 5, SMP_RS_FLOAT, -1},
	};

	if (n > 5)
		return false;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (words[i].len == n && words[i].w[0] == (n ? s[0] : '\0') &&
		    memcmp(words[i].w, s, n) == 0) {
			out->kind = words[i].kind;
			if (out->kind == SMP_RS_BOOL)
				out->b = words[i].b;
			else if (out->kind == SMP_RS_FLOAT)
				out->f = words[i].b == 0 ? NAN : words[i].b > 0 ? INFINITY : -INFINITY;
			return true;
		}
	}
	return false;
}

/* Number forms, for a scalar starting with a digit or a sign. */
static void resolve_number(const char *in, size_t n, smp_scalar *out)
{
	char small[128], *plain = small;
	size_t pn = 0;
	int64_t iv;
	uint64_t uv;
	double fv;

	/* go-yaml strips every '_' first. */
	if (n >= sizeof(small)) {
		plain = malloc(n + 1);
		if (!plain)
			return; /* stays a string: harmless under memory pressure */
	}
	for (size_t i = 0; i < n; i++)
		if (in[i] != '_')
			plain[pn++] = in[i];
	if (go_parse_int(plain, pn, 0, &iv) == PARSE_OK) {
		out->kind = SMP_RS_INT;
		out->i = iv;
	} else if (go_parse_uint(plain, pn, 0, &uv) == PARSE_OK) {
		out->kind = SMP_RS_UINT;
		out->u = uv;
	} else if (yaml_style_float(plain, pn) && parse_float(plain, pn, &fv)) {
		out->kind = SMP_RS_FLOAT;
		out->f = fv;
	} else if (pn >= 2 && plain[0] == '0' && plain[1] == 'b') {
		/* go-yaml's own 0b branch: ParseInt(plain[2:], 2) takes a sign
		 * ("0b-101" is -5). */
		if (go_parse_int(plain + 2, pn - 2, 2, &iv) == PARSE_OK) {
			out->kind = SMP_RS_INT;
			out->i = iv;
		} else if (go_parse_uint(plain + 2, pn - 2, 2, &uv) == PARSE_OK) {
			out->kind = SMP_RS_UINT;
			out->u = uv;
		}
	} else if (pn >= 3 && plain[0] == '-' && plain[1] == '0' && plain[2] == 'b') {
		/* ParseInt("-" + plain[3:], 2) */
		plain[2] = '-';
		if (go_parse_int(plain + 2, pn - 2, 2, &iv) == PARSE_OK) {
			out->kind = SMP_RS_INT;
			out->i = iv;
		}
	}
	/* go-yaml v2 as vendored by kubectl v1.32 has no big.Int fallback:
	 * 0x1FFFFFFFFFFFFFFFF stays a string. */
	if (plain != small)
		free(plain);
}

/* resolve() of go-yaml v2 for an untagged plain scalar (or a tag that asks
 * for resolution). */
static void resolve_plain(const char *s, size_t n, bool ts_ok, smp_scalar *out)
{
	unsigned char c = n ? (unsigned char)s[0] : 0;

	out->kind = SMP_RS_STR;
	out->timestamp = false;
	if (n == 0) {
		out->kind = SMP_RS_NULL;
		return;
	}
	bool sign = c == '+' || c == '-', digit = c >= '0' && c <= '9';
	bool word = strchr("yYnNtTfFoO~", c) != NULL;
	if (!sign && !digit && !word && c != '.')
		return;
	if (lookup_word(s, n, out))
		return;
	if (c == '.') {
		double f;
		/* ParseFloat(in): only plain decimal forms start with '.'. */
		if (!memchr(s, '_', n) && yaml_style_float(s, n) && parse_float(s, n, &f)) {
			out->kind = SMP_RS_FLOAT;
			out->f = f;
		}
		return;
	}
	if (sign || digit) {
		if (ts_ok && is_timestamp(s, n)) {
			out->timestamp = true;
			return; /* go-yaml v2 hands timestamps to interface{} as strings */
		}
		resolve_number(s, n, out);
	}
}

int smp_resolve(smp_scalar *out, const char *s, size_t n, const char *tag, bool plain,
                char *msg, size_t msgsize)
{
	memset(out, 0, sizeof(*out));
	out->kind = SMP_RS_STR;
	if (!tag || !tag[0]) {
		/* Untagged: plain scalars resolve, quoted and block ones are strings. */
		if (plain)
			resolve_plain(s, n, true, out);
		return 0;
	}
	if (tag_is(tag, "str"))
		return 0;
	if (tag_is(tag, "binary")) {
		out->kind = SMP_RS_BINARY;
		return 0;
	}
	bool want_null = tag_is(tag, "null"), want_bool = tag_is(tag, "bool");
	bool want_int = tag_is(tag, "int"), want_float = tag_is(tag, "float");
	bool want_ts = tag_is(tag, "timestamp");
	if (!want_null && !want_bool && !want_int && !want_float && !want_ts)
		return 0; /* custom or collection tags: the text stays a string */
	resolve_plain(s, n, want_ts, out);
	int got = out->kind;
	bool ok = (want_null && got == SMP_RS_NULL) || (want_bool && got == SMP_RS_BOOL) ||
	          (want_int && (got == SMP_RS_INT || got == SMP_RS_UINT)) ||
	          (want_float && got == SMP_RS_FLOAT) || (want_ts && out->timestamp);
	if (want_float && (got == SMP_RS_INT || got == SMP_RS_UINT)) {
		/* !!float 1 is the float 1.0 (go-yaml converts int and int64;
		 * a uint64 is an error there). */
		if (got == SMP_RS_INT) {
			out->f = (double)out->i;
			out->kind = SMP_RS_FLOAT;
			ok = true;
		}
	}
	if (!ok) {
		char want[64];
		const char *gotname = "!!str";
		if (got == SMP_RS_NULL)
			gotname = "!!null";
		else if (got == SMP_RS_BOOL)
			gotname = "!!bool";
		else if (got == SMP_RS_INT || got == SMP_RS_UINT)
			gotname = "!!int";
		else if (got == SMP_RS_FLOAT)
			gotname = "!!float";
		else if (out->timestamp)
			gotname = "!!timestamp";
		short_tag(want, sizeof(want), tag);
		snprintf(msg, msgsize, "cannot decode %s `%.*s` as a %s", gotname,
		         n > 60 ? 60 : (int)n, s, want);
		return SMP_EPARSE;
	}
	return 0;
}

/* ---- the JSON round trip ---- */

bool smp_float_is_int(double f, int64_t *out)
{
	char txt[40];
	size_t n;

	if (isnan(f) || isinf(f) || f != floor(f))
		return false;
	/* kubectl writes the float as JSON and reads it back: when Go's text
	 * has no '.' or exponent and fits int64, it becomes an integer. Below
	 * 2^53 an integral double's shortest text is the integer itself;
	 * above, the text may end in zeros, so take the value from the text. */
	if (fabs(f) < 9007199254740992.0) {
		*out = (int64_t)f;
		return true;
	}
	n = smp_format_float(txt, f);
	return !memchr(txt, '.', n) && !memchr(txt, 'e', n) &&
	       go_parse_int(txt, n, 10, out) == PARSE_OK;
}

int smp_float_to_value(smp_arena *a, double f, smp_value **out)
{
	int64_t iv;

	*out = NULL;
	if (isnan(f) || isinf(f))
		return SMP_EINVAL;
	*out = smp_float_is_int(f, &iv) ? smpv_int(a, iv) : smpv_float(a, f);
	return *out ? 0 : SMP_ENOMEM;
}
