/*
 * stdlib.c - CEL's named functions: the standard ones (size, the type
 * conversions, type, dyn, contains, startsWith, endsWith, matches) and
 * the libraries Kubernetes 1.32 enables for CRD rules that need no data of
 * their own: cel-go's ext.Strings (version 2), ext.Sets, and Kubernetes'
 * lists and regex libraries (k8s.io/apiserver/pkg/cel/library).
 * Timestamps and durations are time.c's.
 */
#include "cel/eval_int.h"
#include "codec/codec.h"
#include "regex/regex.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is(const char *name, const char *want)
{
	return strcmp(name, want) == 0;
}

int64_t cel_str_runes(const cel_val *s)
{
	int64_t n = 0;

	for (size_t i = 0; i < s->u.s.n; i++)
		n += ((unsigned char)s->u.s.p[i] & 0xC0) != 0x80;
	return n;
}

uint64_t cel_traversal_cost(uint64_t size)
{
	return (uint64_t)ceil((double)size * 0.1);
}

/* The byte offset of rune index r in s (s->u.s.n when r is its length);
 * -1 when out of range. */
static ptrdiff_t rune_offset(const cel_val *s, int64_t r)
{
	size_t i = 0;

	if (r < 0)
		return -1;
	while (r > 0 && i < s->u.s.n) {
		i++;
		while (i < s->u.s.n && ((unsigned char)s->u.s.p[i] & 0xC0) == 0x80)
			i++;
		r--;
	}
	return r ? -1 : (ptrdiff_t)i;
}

static bool has_prefix(const cel_val *s, const cel_val *p)
{
	return p->u.s.n <= s->u.s.n && memcmp(s->u.s.p, p->u.s.p, p->u.s.n) == 0;
}

static bool has_suffix(const cel_val *s, const cel_val *p)
{
	return p->u.s.n <= s->u.s.n &&
	       memcmp(s->u.s.p + s->u.s.n - p->u.s.n, p->u.s.p, p->u.s.n) == 0;
}

static ptrdiff_t find(const cel_val *s, const cel_val *sub, size_t from)
{
	if (sub->u.s.n == 0)
		return (ptrdiff_t)from;
	for (size_t i = from; i + sub->u.s.n <= s->u.s.n; i++)
		if (memcmp(s->u.s.p + i, sub->u.s.p, sub->u.s.n) == 0)
			return (ptrdiff_t)i;
	return -1;
}

/* ---- conversions ---- */

static cel_val to_int(cel_eval *e, const cel_val *v)
{
	switch (v->kind) {
	case CEL_INT:
		return *v;
	case CEL_UINT:
		if (v->u.u > (uint64_t)INT64_MAX)
			return cel_error("integer overflow");
		return cel_int((int64_t)v->u.u);
	case CEL_DOUBLE:
		/* cel-go refuses the bounds themselves */
		if (isnan(v->u.d) || v->u.d <= -9223372036854775808.0 ||
		    v->u.d >= 9223372036854775807.0)
			return cel_error("integer overflow");
		return cel_int((int64_t)v->u.d);
	case CEL_STRING: {
		char buf[64], *end;
		long long r;

		if (v->u.s.n == 0 || v->u.s.n >= sizeof(buf))
			return cel__errorf(e, "type conversion error");
		memcpy(buf, v->u.s.p, v->u.s.n);
		buf[v->u.s.n] = '\0';
		errno = 0;
		r = strtoll(buf, &end, 10);
		if (errno || *end || buf[0] == ' ' || buf[0] == '+')
			return cel__errorf(e, "type conversion error");
		return cel_int(r);
	}
	case CEL_TIMESTAMP:
		return cel_int(v->u.t.sec);
	case CEL_DURATION:
		return cel_int(v->u.t.sec * 1000000000 + v->u.t.nsec);
	default:
		return cel__no_overload(e, "int");
	}
}

static cel_val to_uint(cel_eval *e, const cel_val *v)
{
	switch (v->kind) {
	case CEL_UINT:
		return *v;
	case CEL_INT:
		if (v->u.i < 0)
			return cel_error("unsigned integer overflow");
		return cel_uint((uint64_t)v->u.i);
	case CEL_DOUBLE:
		if (isnan(v->u.d) || v->u.d < 0 || v->u.d >= 18446744073709551615.0)
			return cel_error("unsigned integer overflow");
		return cel_uint((uint64_t)v->u.d);
	case CEL_STRING: {
		char buf[64], *end;
		unsigned long long r;

		if (v->u.s.n == 0 || v->u.s.n >= sizeof(buf) || v->u.s.p[0] == '-' ||
		    v->u.s.p[0] == '+' || v->u.s.p[0] == ' ')
			return cel__errorf(e, "type conversion error");
		memcpy(buf, v->u.s.p, v->u.s.n);
		buf[v->u.s.n] = '\0';
		errno = 0;
		r = strtoull(buf, &end, 10);
		if (errno || *end)
			return cel__errorf(e, "type conversion error");
		return cel_uint(r);
	}
	default:
		return cel__no_overload(e, "uint");
	}
}

static cel_val to_double(cel_eval *e, const cel_val *v)
{
	switch (v->kind) {
	case CEL_DOUBLE:
		return *v;
	case CEL_INT:
		return cel_double((double)v->u.i);
	case CEL_UINT:
		return cel_double((double)v->u.u);
	case CEL_STRING: {
		char buf[128], *end;
		double d;
		smp_c_locale cl;

		if (v->u.s.n == 0 || v->u.s.n >= sizeof(buf))
			return cel__errorf(e, "type conversion error");
		memcpy(buf, v->u.s.p, v->u.s.n);
		buf[v->u.s.n] = '\0';
		smp_c_locale_enter(&cl);
		d = strtod(buf, &end);
		smp_c_locale_leave(&cl);
		if (*end || buf[0] == ' ' || (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')))
			return cel__errorf(e, "type conversion error");
		return cel_double(d);
	}
	default:
		return cel__no_overload(e, "double");
	}
}

/* string(double): Go's strconv.FormatFloat(d, 'g', -1, 64). */
static cel_val to_string(cel_eval *e, const cel_val *v)
{
	char buf[40];
	size_t n;

	switch (v->kind) {
	case CEL_STRING:
		return *v;
	case CEL_INT:
		n = smp_format_int(buf, v->u.i);
		return cel__str_copy(e, buf, n, CEL_STRING);
	case CEL_UINT:
		n = (size_t)snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v->u.u);
		return cel__str_copy(e, buf, n, CEL_STRING);
	case CEL_DOUBLE:
		if (isinf(v->u.d))
			return cel_str(v->u.d > 0 ? "+Inf" : "-Inf", 4);
		if (isnan(v->u.d))
			return cel_str("NaN", 3);
		n = smp_format_float_g(buf, v->u.d, false);
		return cel__str_copy(e, buf, n, CEL_STRING);
	case CEL_BOOL:
		return v->u.b ? cel_str("true", 4) : cel_str("false", 5);
	case CEL_BYTES:
		for (size_t i = 0; i < v->u.s.n;) {
			uint32_t cp;
			size_t k = smp_utf8_decode((const unsigned char *)v->u.s.p + i, v->u.s.n - i, &cp);

			if (!k)
				return cel__errorf(e, "invalid UTF-8 in bytes, cannot convert to string");
			i += k;
		}
		return cel__str_copy(e, v->u.s.p, v->u.s.n, CEL_STRING);
	case CEL_TIMESTAMP:
	case CEL_DURATION:
		return cel__time_string(e, v);
	case CEL_IP:
	case CEL_CIDR: {
		smp_buf b;
		cel_val r;

		smp_buf_init(&b);
		cel__net_string(&b, v);
		r = b.oom ? cel_error("out of memory") : cel__str_copy(e, b.ptr, b.len, CEL_STRING);
		smp_buf_release(&b);
		return r;
	}
	default:
		return cel__no_overload(e, "string");
	}
}

/* ---- ext.Strings (version 2) ---- */

static cel_val lower_upper(cel_eval *e, const cel_val *s, bool upper)
{
	cel_val r = cel__str_copy(e, s->u.s.p, s->u.s.n, CEL_STRING);
	char *p = (char *)r.u.s.p;

	if (r.kind != CEL_STRING)
		return r;
	for (size_t i = 0; i < r.u.s.n; i++) {
		if (upper && p[i] >= 'a' && p[i] <= 'z')
			p[i] = (char)(p[i] - 32);
		else if (!upper && p[i] >= 'A' && p[i] <= 'Z')
			p[i] = (char)(p[i] + 32);
	}
	return r;
}

static cel_val replace(cel_eval *e, const cel_val *s, const cel_val *from, const cel_val *to,
                       int64_t limit)
{
	smp_buf b;
	size_t at = 0;
	cel_val r;

	smp_buf_init(&b);
	while (limit != 0) {
		ptrdiff_t j = find(s, from, at);

		if (j < 0)
			break;
		smp_buf_put(&b, s->u.s.p + at, (size_t)j - at);
		smp_buf_put(&b, to->u.s.p, to->u.s.n);
		if (from->u.s.n == 0) {
			/* Go's Replace with an empty old: after each rune */
			if ((size_t)j >= s->u.s.n) {
				at = s->u.s.n;
				limit--;
				break;
			}
			size_t k = 1;

			while ((size_t)j + k < s->u.s.n && ((unsigned char)s->u.s.p[j + k] & 0xC0) == 0x80)
				k++;
			smp_buf_put(&b, s->u.s.p + j, k);
			at = (size_t)j + k;
		} else {
			at = (size_t)j + from->u.s.n;
		}
		if (limit > 0)
			limit--;
	}
	if (at <= s->u.s.n)
		smp_buf_put(&b, s->u.s.p + at, s->u.s.n - at);
	r = b.oom ? cel_error("out of memory") : cel__str_copy(e, b.ptr ? b.ptr : "", b.len,
	                                                        CEL_STRING);
	smp_buf_release(&b);
	return r;
}

static cel_val split(cel_eval *e, const cel_val *s, const cel_val *sep, int64_t limit)
{
	cel_val parts[1024];
	uint32_t n = 0;
	size_t at = 0;

	if (limit == 0)
		return cel__list(e, NULL, 0);
	if (sep->u.s.n == 0) {
		/* each rune, the last part the rest */
		while (at < s->u.s.n && n < 1024) {
			size_t k = 1;

			if (limit > 0 && (int64_t)n == limit - 1) {
				parts[n++] = cel_str(s->u.s.p + at, s->u.s.n - at);
				at = s->u.s.n;
				break;
			}
			while (at + k < s->u.s.n && ((unsigned char)s->u.s.p[at + k] & 0xC0) == 0x80)
				k++;
			parts[n++] = cel_str(s->u.s.p + at, k);
			at += k;
		}
		return cel__list(e, parts, n);
	}
	while (n < 1023) {
		ptrdiff_t j;

		if (limit > 0 && (int64_t)n == limit - 1)
			break;
		j = find(s, sep, at);
		if (j < 0)
			break;
		parts[n++] = cel_str(s->u.s.p + at, (size_t)j - at);
		at = (size_t)j + sep->u.s.n;
	}
	parts[n++] = cel_str(s->u.s.p + at, s->u.s.n - at);
	return cel__list(e, parts, n);
}

/* Unicode white space as Go's unicode.IsSpace (strings.TrimSpace). */
static bool space_rune(uint32_t c)
{
	return c == ' ' || (c >= 0x09 && c <= 0x0d) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
	       (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
	       c == 0x205f || c == 0x3000;
}

static cel_val trim(const cel_val *s)
{
	size_t a = 0, b = s->u.s.n;

	while (a < b) {
		uint32_t cp;
		size_t k = smp_utf8_decode((const unsigned char *)s->u.s.p + a, b - a, &cp);

		if (!k || !space_rune(cp))
			break;
		a += k;
	}
	while (b > a) {
		size_t st = b - 1;
		uint32_t cp;

		while (st > a && ((unsigned char)s->u.s.p[st] & 0xC0) == 0x80)
			st--;
		if (!smp_utf8_decode((const unsigned char *)s->u.s.p + st, b - st, &cp) ||
		    !space_rune(cp))
			break;
		b = st;
	}
	return cel_str(s->u.s.p + a, b - a);
}

static cel_val format(cel_eval *e, const cel_val *f, const cel_val *args);

static cel_val strings_ext(cel_eval *e, const char *name, const cel_val *r, const cel_val *a,
                           uint32_t n, bool *found)
{
	*found = true;
	if (r && r->kind == CEL_STRING) {
		if (is(name, "charAt") && n == 1 && a[0].kind == CEL_INT) {
			ptrdiff_t o = rune_offset(r, a[0].u.i);
			size_t k = 1;

			if (o < 0)
				return cel__errorf(e, "index out of range: %lld", (long long)a[0].u.i);
			if ((size_t)o == r->u.s.n)
				return cel_str("", 0);
			while ((size_t)o + k < r->u.s.n && ((unsigned char)r->u.s.p[o + k] & 0xC0) == 0x80)
				k++;
			return cel_str(r->u.s.p + o, k);
		}
		if ((is(name, "indexOf") || is(name, "lastIndexOf")) && (n == 1 || n == 2) &&
		    a[0].kind == CEL_STRING && (n == 1 || a[1].kind == CEL_INT)) {
			bool last = name[0] == 'l';
			int64_t len = cel_str_runes(r), from = n == 2 ? a[1].u.i : (last ? len : 0);
			ptrdiff_t hit = -1;

			if (from < 0 || from > len)
				return cel__errorf(e, "index out of range: %lld", (long long)from);
			if (!last) {
				hit = find(r, &a[0], (size_t)rune_offset(r, from));
			} else {
				size_t lim = (size_t)rune_offset(r, from);

				for (size_t i = 0; i + a[0].u.s.n <= r->u.s.n && i <= lim; i++)
					if (memcmp(r->u.s.p + i, a[0].u.s.p, a[0].u.s.n) == 0)
						hit = (ptrdiff_t)i;
			}
			if (hit < 0)
				return cel_int(-1);
			cel_val pre = cel_str(r->u.s.p, (size_t)hit);

			return cel_int(cel_str_runes(&pre));
		}
		if (is(name, "lowerAscii") && n == 0)
			return lower_upper(e, r, false);
		if (is(name, "upperAscii") && n == 0)
			return lower_upper(e, r, true);
		if (is(name, "replace") && (n == 2 || n == 3) && a[0].kind == CEL_STRING &&
		    a[1].kind == CEL_STRING && (n == 2 || a[2].kind == CEL_INT))
			return replace(e, r, &a[0], &a[1], n == 3 ? a[2].u.i : -1);
		if (is(name, "split") && (n == 1 || n == 2) && a[0].kind == CEL_STRING &&
		    (n == 1 || a[1].kind == CEL_INT))
			return split(e, r, &a[0], n == 2 ? a[1].u.i : -1);
		if (is(name, "substring") && (n == 1 || n == 2) && a[0].kind == CEL_INT &&
		    (n == 1 || a[1].kind == CEL_INT)) {
			int64_t len = cel_str_runes(r), b0 = a[0].u.i, b1 = n == 2 ? a[1].u.i : len;
			ptrdiff_t o0, o1;

			if (b0 < 0 || b0 > len)
				return cel__errorf(e, "index out of range: %lld", (long long)b0);
			if (b1 < 0 || b1 > len)
				return cel__errorf(e, "index out of range: %lld", (long long)b1);
			if (b0 > b1)
				return cel__errorf(e, "invalid substring range. start: %lld, end: %lld",
				                   (long long)b0, (long long)b1);
			o0 = rune_offset(r, b0);
			o1 = rune_offset(r, b1);
			return cel_str(r->u.s.p + o0, (size_t)(o1 - o0));
		}
		if (is(name, "trim") && n == 0)
			return trim(r);
		if (is(name, "format") && n == 1 && a[0].kind == CEL_LIST)
			return format(e, r, &a[0]);
	}
	if (r && r->kind == CEL_LIST && is(name, "join") && (n == 0 || (n == 1 &&
	                                                              a[0].kind == CEL_STRING))) {
		smp_buf b;
		uint32_t len = cel_len(r);
		cel_val out;

		smp_buf_init(&b);
		for (uint32_t i = 0; i < len; i++) {
			cel_val it = cel_item(e, r, i);

			if (it.kind != CEL_STRING) {
				smp_buf_release(&b);
				return cel__no_overload(e, "join");
			}
			if (i && n == 1)
				smp_buf_put(&b, a[0].u.s.p, a[0].u.s.n);
			smp_buf_put(&b, it.u.s.p, it.u.s.n);
		}
		out = b.oom ? cel_error("out of memory")
		            : cel__str_copy(e, b.ptr ? b.ptr : "", b.len, CEL_STRING);
		smp_buf_release(&b);
		return out;
	}
	*found = false;
	return cel_null();
}

/* ---- ext.Strings' format (version 1 on) ---- */

static bool fmt_s(cel_eval *e, smp_buf *b, const cel_val *v);

static void put_double_word(smp_buf *b, double d)
{
	smp_buf_puts(b, isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
}

/* %s of one value; false when it has no string form. */
static bool fmt_s(cel_eval *e, smp_buf *b, const cel_val *v)
{
	char num[40];

	switch (v->kind) {
	case CEL_STRING:
	case CEL_BYTES:
	case CEL_TYPE:
		smp_buf_put(b, v->u.s.p, v->u.s.n);
		return true;
	case CEL_NULL:
		smp_buf_puts(b, "null");
		return true;
	case CEL_BOOL:
		smp_buf_puts(b, v->u.b ? "true" : "false");
		return true;
	case CEL_INT:
		smp_buf_put(b, num, smp_format_int(num, v->u.i));
		return true;
	case CEL_UINT:
		smp_buf_printf(b, "%llu", (unsigned long long)v->u.u);
		return true;
	case CEL_DOUBLE:
		if (isnan(v->u.d) || isinf(v->u.d))
			put_double_word(b, v->u.d);
		else
			smp_buf_put(b, num, smp_format_float_g(num, v->u.d, false));
		return true;
	case CEL_TIMESTAMP:
	case CEL_DURATION: {
		cel_val t = cel__time_string(e, v);

		if (t.kind != CEL_STRING)
			return false;
		smp_buf_put(b, t.u.s.p, t.u.s.n);
		return true;
	}
	case CEL_LIST: {
		uint32_t n = cel_len(v);

		smp_buf_putc(b, '[');
		for (uint32_t i = 0; i < n; i++) {
			cel_val it = cel_item(e, v, i);

			if (i)
				smp_buf_puts(b, ", ");
			if (!fmt_s(e, b, &it))
				return false;
		}
		smp_buf_putc(b, ']');
		return true;
	}
	case CEL_MAP: {
		/* entries sorted by their keys' text */
		uint32_t n = cel_len(v);
		smp_buf *keys = calloc(n ? n : 1, sizeof(*keys));
		uint32_t *order = calloc(n ? n : 1, sizeof(*order));
		bool ok = keys && order;

		for (uint32_t i = 0; ok && i < n; i++) {
			cel_val k = cel_key(e, v, i);

			smp_buf_init(&keys[i]);
			ok = fmt_s(e, &keys[i], &k) && !keys[i].oom;
			order[i] = i;
		}
		for (uint32_t i = 1; ok && i < n; i++)
			for (uint32_t j = i; j > 0; j--) {
				smp_buf *x = &keys[order[j - 1]], *y = &keys[order[j]];
				size_t m = x->len < y->len ? x->len : y->len;
				int c = memcmp(x->ptr, y->ptr, m);

				if (c < 0 || (c == 0 && x->len <= y->len))
					break;
				uint32_t t = order[j];

				order[j] = order[j - 1];
				order[j - 1] = t;
			}
		smp_buf_putc(b, '{');
		for (uint32_t i = 0; ok && i < n; i++) {
			cel_val it = cel_item(e, v, order[i]);

			if (i)
				smp_buf_puts(b, ", ");
			smp_buf_put(b, keys[order[i]].ptr, keys[order[i]].len);
			smp_buf_puts(b, ": ");
			ok = fmt_s(e, b, &it);
		}
		smp_buf_putc(b, '}');
		for (uint32_t i = 0; keys && i < n; i++)
			smp_buf_release(&keys[i]);
		free(keys);
		free(order);
		return ok;
	}
	default:
		return false;
	}
}

/* Digits of u in base 2, 8 or 16. */
static void put_base(smp_buf *b, uint64_t u, unsigned base, bool upper)
{
	char d[72];
	int n = 0;

	do {
		d[n++] = (upper ? "0123456789ABCDEF" : "0123456789abcdef")[u % base];
		u /= base;
	} while (u);
	while (n)
		smp_buf_putc(b, d[--n]);
}

static cel_val format(cel_eval *e, const cel_val *f, const cel_val *args)
{
	smp_buf b;
	uint32_t ai = 0, na = cel_len(args);
	cel_val r;
	const char *p = f->u.s.p, *end = p + f->u.s.n;
	const char *err = NULL;

	smp_buf_init(&b);
	while (p < end && !err) {
		int prec = -1;
		char verb;
		cel_val v;

		if (*p != '%') {
			smp_buf_putc(&b, *p++);
			continue;
		}
		if (++p >= end) {
			err = "could not find formatting clause after '%'";
			break;
		}
		if (*p == '%') {
			smp_buf_putc(&b, *p++);
			continue;
		}
		if (*p == '.') {
			prec = 0;
			p++;
			while (p < end && *p >= '0' && *p <= '9' && prec < 1000)
				prec = prec * 10 + (*p++ - '0');
		}
		if (p >= end) {
			err = "unexpected end of format string";
			break;
		}
		verb = *p++;
		if (ai >= na) {
			r = cel__errorf(e, "index %u out of range", ai);
			smp_buf_release(&b);
			return r;
		}
		v = cel_item(e, args, ai++);
		switch (verb) {
		case 's':
			if (!fmt_s(e, &b, &v))
				err = "string clause can only be used on strings, bools, bytes, ints, doubles, "
				      "maps, lists, types, durations, and timestamps";
			break;
		case 'd':
			if (v.kind == CEL_INT || v.kind == CEL_UINT)
				fmt_s(e, &b, &v);
			else if (v.kind == CEL_DOUBLE && (isnan(v.u.d) || isinf(v.u.d)))
				put_double_word(&b, v.u.d);
			else
				err = "decimal clause can only be used on integers";
			break;
		case 'f':
		case 'e': {
			double d;

			if (v.kind == CEL_DOUBLE)
				d = v.u.d;
			else if (v.kind == CEL_INT)
				d = (double)v.u.i;
			else if (v.kind == CEL_UINT)
				d = (double)v.u.u;
			else {
				err = verb == 'f' ? "fixed-point clause can only be used on doubles"
				                  : "scientific clause can only be used on doubles";
				break;
			}
			if (isnan(d) || isinf(d))
				put_double_word(&b, d);
			else
				smp_buf_printf(&b, verb == 'f' ? "%.*f" : "%.*e", prec < 0 ? 6 : prec, d);
			break;
		}
		case 'x':
		case 'X':
			if (v.kind == CEL_INT) {
				if (v.u.i < 0)
					smp_buf_putc(&b, '-');
				put_base(&b, v.u.i < 0 ? 0 - (uint64_t)v.u.i : (uint64_t)v.u.i, 16,
				         verb == 'X');
			} else if (v.kind == CEL_UINT) {
				put_base(&b, v.u.u, 16, verb == 'X');
			} else if (v.kind == CEL_STRING || v.kind == CEL_BYTES) {
				for (size_t i = 0; i < v.u.s.n; i++)
					smp_buf_printf(&b, verb == 'X' ? "%02X" : "%02x",
					               (unsigned char)v.u.s.p[i]);
			} else {
				err = "only integers, byte buffers, and strings can be formatted as hex";
			}
			break;
		case 'o':
		case 'b':
			if (v.kind == CEL_INT) {
				if (v.u.i < 0)
					smp_buf_putc(&b, '-');
				put_base(&b, v.u.i < 0 ? 0 - (uint64_t)v.u.i : (uint64_t)v.u.i,
				         verb == 'o' ? 8 : 2, false);
			} else if (v.kind == CEL_UINT) {
				put_base(&b, v.u.u, verb == 'o' ? 8 : 2, false);
			} else if (verb == 'b' && v.kind == CEL_BOOL) {
				smp_buf_putc(&b, v.u.b ? '1' : '0');
			} else {
				err = verb == 'o' ? "octal clause can only be used on integers"
				                  : "only integers and bools can be formatted as binary";
			}
			break;
		default:
			err = "unrecognized formatting clause";
			break;
		}
	}
	if (err)
		r = cel__errorf(e, "%s", err);
	else if (b.oom)
		r = cel_error("out of memory");
	else
		r = cel__str_copy(e, b.ptr ? b.ptr : "", b.len, CEL_STRING);
	smp_buf_release(&b);
	return r;
}

/* ---- Kubernetes' lists library ---- */

static cel_val lists_lib(cel_eval *e, const char *name, const cel_val *r, const cel_val *a,
                         uint32_t n, bool *found)
{
	uint32_t len = cel_len(r);

	*found = true;
	if (is(name, "isSorted") && n == 0) {
		for (uint32_t i = 1; i < len; i++) {
			cel_val p = cel_item(e, r, i - 1), q = cel_item(e, r, i);
			bool np = p.kind == CEL_INT || p.kind == CEL_UINT || p.kind == CEL_DOUBLE;
			bool nq = q.kind == CEL_INT || q.kind == CEL_UINT || q.kind == CEL_DOUBLE;
			int c;

			if (np && nq) {
				c = cel__num_cmp(&p, &q);
			} else if (p.kind == q.kind && (p.kind == CEL_STRING || p.kind == CEL_BYTES)) {
				size_t m = p.u.s.n < q.u.s.n ? p.u.s.n : q.u.s.n;

				c = memcmp(p.u.s.p, q.u.s.p, m);
				if (!c)
					c = p.u.s.n < q.u.s.n ? -1 : p.u.s.n > q.u.s.n;
			} else if (p.kind == q.kind && p.kind == CEL_BOOL) {
				c = (int)p.u.b - (int)q.u.b;
			} else {
				return cel__no_overload(e, "isSorted");
			}
			if (c > 0)
				return cel_bool(false);
		}
		return cel_bool(true);
	}
	if ((is(name, "min") || is(name, "max")) && n == 0) {
		cel_val best;
		bool mx = name[1] == 'a';

		if (!len)
			return cel__errorf(e, "%s called on empty list", name);
		best = cel_item(e, r, 0);
		for (uint32_t i = 1; i < len; i++) {
			cel_val q = cel_item(e, r, i);
			int c = cel__num_cmp(&q, &best);

			if (q.kind == CEL_STRING && best.kind == CEL_STRING) {
				size_t m = q.u.s.n < best.u.s.n ? q.u.s.n : best.u.s.n;

				c = memcmp(q.u.s.p, best.u.s.p, m);
				if (!c)
					c = q.u.s.n < best.u.s.n ? -1 : q.u.s.n > best.u.s.n;
			} else if (c == 2) {
				return cel__no_overload(e, name);
			}
			if (mx ? c > 0 : c < 0)
				best = q;
		}
		return best;
	}
	if (is(name, "sum") && n == 0) {
		cel_val acc = cel_int(0);

		for (uint32_t i = 0; i < len; i++) {
			cel_val q = cel_item(e, r, i);

			if (i == 0) {
				acc = q;
				continue;
			}
			if (q.kind != acc.kind)
				return cel__no_overload(e, "sum");
			if (q.kind == CEL_INT) {
				if (__builtin_add_overflow(acc.u.i, q.u.i, &acc.u.i))
					return cel_error("integer overflow");
			} else if (q.kind == CEL_UINT) {
				if (__builtin_add_overflow(acc.u.u, q.u.u, &acc.u.u))
					return cel_error("unsigned integer overflow");
			} else if (q.kind == CEL_DOUBLE) {
				acc.u.d += q.u.d;
			} else {
				return cel__no_overload(e, "sum");
			}
		}
		return acc;
	}
	if ((is(name, "indexOf") || is(name, "lastIndexOf")) && n == 1) {
		int64_t hit = -1;

		for (uint32_t i = 0; i < len; i++) {
			cel_val q = cel_item(e, r, i);

			if (cel__equal(e, &q, &a[0]) == 1) {
				hit = i;
				if (name[0] == 'i')
					break;
			}
		}
		return cel_int(hit);
	}
	*found = false;
	return cel_null();
}

/* ---- regular expressions ---- */

cel_val cel__regex_call(cel_eval *e, const char *name, const cel_val *s, const cel_val *pat,
                        const smp_regex *pre, int64_t limit, bool *found)
{
	smp_regex *own = NULL;
	const smp_regex *re = pre;
	char msg[200];
	int rc;
	bool m;

	*found = true;
	if (s->kind != CEL_STRING || pat->kind != CEL_STRING)
		return cel__no_overload(e, name);
	if (!cel__charge(e, s->u.s.n / 10 + 1))
		return cel_error("operation cancelled: actual cost limit exceeded");
	if (!re) {
		rc = smp_regex_compile(&own, pat->u.s.p, pat->u.s.n, msg, sizeof(msg));
		if (rc == -2) {
			e->oom = true;
			return cel_error("out of memory");
		}
		if (rc)
			return cel__errorf(e, "error parsing regexp: %s", msg);
		re = own;
	}
	if (is(name, "matches")) {
		m = smp_regex_search(re, s->u.s.p, s->u.s.n);
		smp_regex_free(own);
		return cel_bool(m);
	}
	/* Kubernetes' regex library: find (the first match, "" when none)
	 * and findAll (every match, at most `limit` when limit >= 0; after an
	 * empty match the search goes on one rune further, as Go's does) */
	cel_val parts[256], r;
	uint32_t np = 0;
	size_t at = 0, st, en, prev_end = (size_t)-1;

	while (np < (is(name, "find") ? 1u : limit < 0 || limit > 256 ? 256u : (uint32_t)limit) &&
	       smp_regex_find(re, s->u.s.p, s->u.s.n, at, &st, &en)) {
		if (en == st && st == prev_end) {
			/* an empty match right after the previous one: skipped */
		} else {
			parts[np++] = cel_str(s->u.s.p + st, en - st);
			prev_end = en;
		}
		if (en > st) {
			at = en;
		} else {
			if (st >= s->u.s.n)
				break;
			at = st + 1;
			while (at < s->u.s.n && ((unsigned char)s->u.s.p[at] & 0xC0) == 0x80)
				at++;
		}
	}
	smp_regex_free(own);
	if (is(name, "find"))
		return np ? parts[0] : cel_str("", 0);
	if (np == 256 && (limit < 0 || limit > 256))
		return cel_error("findAll: too many matches"); /* not worded as the server */
	r = cel__list(e, parts, np);
	return r;
}

/* ---- ext.Sets ---- */

static cel_val sets_call(cel_eval *e, const char *name, const cel_val *a, uint32_t n,
                         bool *found)
{
	*found = true;
	if (n != 2 || a[0].kind != CEL_LIST || a[1].kind != CEL_LIST)
		return cel__no_overload(e, name);
	uint32_t la = cel_len(&a[0]), lb = cel_len(&a[1]);
	bool all_b_in_a = true, any = false;

	for (uint32_t j = 0; j < lb; j++) {
		cel_val y = cel_item(e, &a[1], j);
		bool in = false;

		for (uint32_t i = 0; i < la && !in; i++) {
			cel_val x = cel_item(e, &a[0], i);

			in = cel__equal(e, &x, &y) == 1;
		}
		all_b_in_a &= in;
		any |= in;
	}
	if (is(name, "sets.contains"))
		return cel_bool(all_b_in_a);
	if (is(name, "sets.intersects"))
		return cel_bool(any);
	if (is(name, "sets.equivalent")) {
		bool all_a_in_b = true;

		for (uint32_t i = 0; i < la && all_a_in_b; i++) {
			cel_val x = cel_item(e, &a[0], i);
			bool in = false;

			for (uint32_t j = 0; j < lb && !in; j++) {
				cel_val y = cel_item(e, &a[1], j);

				in = cel__equal(e, &x, &y) == 1;
			}
			all_a_in_b &= in;
		}
		return cel_bool(all_a_in_b && all_b_in_a);
	}
	*found = false;
	return cel_null();
}

cel_val cel__call(cel_eval *e, const char *name, const cel_val *recv, const cel_val *args,
                  uint32_t nargs, bool *found)
{
	const cel_val *a = args;
	cel_val r;

	*found = true;
	/* the global forms of the receiver functions: f(x, ...) as x.f(...) */
	if (!recv && nargs >= 1 &&
	    (is(name, "size") || is(name, "contains") || is(name, "startsWith") ||
	     is(name, "endsWith") || is(name, "matches"))) {
		recv = &args[0];
		a = args + 1;
		nargs--;
	}
	if (recv && !strncmp(name, "get", 3)) {
		r = cel__time_call(e, name, recv, a, nargs, found);
		if (*found)
			return r;
		*found = true;
	}
	if (is(name, "size") && recv && nargs == 0) {
		if (recv->kind == CEL_STRING)
			return cel_int(cel_str_runes(recv));
		if (recv->kind == CEL_BYTES)
			return cel_int((int64_t)recv->u.s.n);
		if (recv->kind == CEL_LIST || recv->kind == CEL_MAP)
			return cel_int(cel_len(recv));
		return cel__no_overload(e, "size");
	}
	if ((is(name, "contains") || is(name, "startsWith") || is(name, "endsWith")) && recv &&
	    nargs == 1) {
		if (recv->kind != CEL_STRING || a[0].kind != CEL_STRING)
			return cel__no_overload(e, name);
		if (!cel__charge(e, recv->u.s.n / 10))
			return cel_error("operation cancelled: actual cost limit exceeded");
		if (name[0] == 'c')
			return cel_bool(find(recv, &a[0], 0) >= 0);
		return cel_bool(name[0] == 's' ? has_prefix(recv, &a[0]) : has_suffix(recv, &a[0]));
	}
	if (is(name, "matches") && recv && nargs == 1)
		return cel__regex_call(e, name, recv, &a[0], NULL, -1, found);
	if ((is(name, "find") || is(name, "findAll")) && recv && recv->kind == CEL_STRING &&
	    (nargs == 1 || (nargs == 2 && is(name, "findAll") && a[1].kind == CEL_INT)))
		return cel__regex_call(e, name, recv, &a[0], NULL, nargs == 2 ? a[1].u.i : -1,
		                       found);
	if (!recv && nargs == 1) {
		if (is(name, "int"))
			return to_int(e, &a[0]);
		if (is(name, "uint"))
			return to_uint(e, &a[0]);
		if (is(name, "double"))
			return to_double(e, &a[0]);
		if (is(name, "string"))
			return to_string(e, &a[0]);
		if (is(name, "bytes")) {
			if (a[0].kind == CEL_BYTES)
				return a[0];
			if (a[0].kind == CEL_STRING)
				return cel__str_copy(e, a[0].u.s.p, a[0].u.s.n, CEL_BYTES);
			return cel__no_overload(e, "bytes");
		}
		if (is(name, "bool")) {
			static const char *const t[] = {"true", "True", "TRUE", "t", "1"};
			static const char *const f[] = {"false", "False", "FALSE", "f", "0"};

			if (a[0].kind == CEL_BOOL)
				return a[0];
			if (a[0].kind != CEL_STRING)
				return cel__no_overload(e, "bool");
			for (size_t i = 0; i < 5; i++) {
				if (strlen(t[i]) == a[0].u.s.n && !memcmp(t[i], a[0].u.s.p, a[0].u.s.n))
					return cel_bool(true);
				if (strlen(f[i]) == a[0].u.s.n && !memcmp(f[i], a[0].u.s.p, a[0].u.s.n))
					return cel_bool(false);
			}
			return cel__errorf(e, "type conversion error");
		}
		if (is(name, "dyn"))
			return a[0];
		if (is(name, "type")) {
			const char *t = cel_type_name(&a[0]);
			cel_val v = cel_str(t, strlen(t));

			v.kind = CEL_TYPE;
			return v;
		}
		if (is(name, "duration") || is(name, "timestamp")) {
			if (a[0].kind == (name[0] == 'd' ? CEL_DURATION : CEL_TIMESTAMP))
				return a[0];
			if (name[0] == 't' && a[0].kind == CEL_INT)
				return cel__timestamp(a[0].u.i, 0);
			if (a[0].kind != CEL_STRING)
				return cel__no_overload(e, name);
			return name[0] == 'd' ? cel__duration_parse(&a[0]) : cel__timestamp_parse(&a[0]);
		}
	}
	if (!strncmp(name, "sets.", 5))
		return sets_call(e, name, a, nargs, found);
	if (recv) {
		r = strings_ext(e, name, recv, a, nargs, found);
		if (*found)
			return r;
		if (recv->kind == CEL_LIST) {
			r = lists_lib(e, name, recv, a, nargs, found);
			if (*found)
				return r;
		}
	}
	if (is(name, "strings.quote") && nargs == 1 && a[0].kind == CEL_STRING) {
		/* ext.Strings' quote: C escapes for \a \b \f \n \r \t \v \\ ",
		 * invalid UTF-8 as U+FFFD */
		smp_buf b;
		const char *p = a[0].u.s.p;

		smp_buf_init(&b);
		smp_buf_putc(&b, '"');
		for (size_t i = 0; i < a[0].u.s.n;) {
			static const char esc[] = "\a\b\f\n\r\t\v";
			uint32_t cp;
			size_t k = smp_utf8_decode((const unsigned char *)p + i, a[0].u.s.n - i, &cp);
			const char *hit = k == 1 && p[i] ? strchr(esc, p[i]) : NULL;

			if (!k) {
				smp_buf_puts(&b, "\xef\xbf\xbd");
				i++;
				continue;
			}
			if (hit) {
				smp_buf_putc(&b, '\\');
				smp_buf_putc(&b, "abfnrtv"[hit - esc]);
			} else if (p[i] == '\\' || p[i] == '"') {
				smp_buf_putc(&b, '\\');
				smp_buf_putc(&b, p[i]);
			} else {
				smp_buf_put(&b, p + i, k);
			}
			i += k;
		}
		smp_buf_putc(&b, '"');
		r = b.oom ? cel_error("out of memory")
		          : cel__str_copy(e, b.ptr ? b.ptr : "", b.len, CEL_STRING);
		smp_buf_release(&b);
		return r;
	}
	r = cel__net_call(e, name, recv, a, nargs, found);
	if (*found)
		return r;
	r = cel__url_call(e, name, recv, a, nargs, found);
	if (*found)
		return r;
	if (e->ext) {
		r = e->ext(e, name, recv, a, nargs, found);
		if (*found)
			return r;
	}
	*found = false;
	return cel_null();
}
