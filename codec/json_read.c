/*
 * json_read.c - a strict RFC 8259 reader producing the document tree.
 *
 * Why not cJSON for parsing: cJSON_Parse records the failure position in a
 * process-wide global (cJSON_GetErrorPtr), written on every call: a data
 * race in a library that promises thread-safety. It also keeps every number
 * only as a double, so int64 values above 2^53 would silently change. This
 * reader keeps integers exact, reports line and column, bounds nesting with
 * an explicit stack (no recursion) and accepts a stream of concatenated
 * values the way Go's json.Decoder (and so kubectl) does.
 *
 * Numbers: an integer literal (no fraction, no exponent) that fits int64
 * is SMP_INT; any other number is SMP_FLOAT (strtod, correctly rounded).
 * This mirrors how Kubernetes decodes JSON into unstructured objects
 * (json.Number: Int64() first, then Float64()), e.g. 18446744073709551615
 * becomes the float 1.8446744073709552e19. A number too large for a double
 * is an error, as Go's ParseFloat reports it.
 */
#include "codec.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct frame {
	smp_value *c;        /* list or map being filled */
	smp_keyset ks;       /* map keys seen (maps only) */
	smp_scratch items;   /* c's items while it is open */
	const char *key;     /* pending key of a map entry */
	size_t klen;
	uint32_t kline, kcol;
} frame;

typedef struct jr {
	const char *p, *end, *start;
	const char *line_start;
	uint32_t line;
	smp_doc *doc;
	const smp_pctx *pc;
	frame *stack;
	size_t depth, cap;
} jr;

static uint32_t col_of(const jr *r, const char *at)
{
	return (uint32_t)(at - r->line_start) + 1;
}

static int fail_at(const jr *r, const char *at, int code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

static int fail_at(const jr *r, const char *at, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	smp_err_setv(r->pc->err, code, r->pc->file, r->line, col_of(r, at), NULL, fmt, ap);
	va_end(ap);
	return code;
}

static int oom(const jr *r)
{
	return smp_err_set(r->pc->err, SMP_ENOMEM, r->pc->file, 0, 0, NULL, "out of memory");
}

static void skip_ws(jr *r)
{
	const char *p = r->p;

	while (p < r->end) {
		char c = *p;
		if (c == '\n') {
			r->line++;
			r->line_start = p + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			break;
		}
		p++;
	}
	r->p = p;
}

static const char *describe(const jr *r, char *buf, size_t size)
{
	unsigned char c;

	if (r->p >= r->end)
		return "end of input";
	c = (unsigned char)*r->p;
	if (c >= 0x21 && c < 0x7f)
		snprintf(buf, size, "character '%c'", c);
	else
		snprintf(buf, size, "byte 0x%02x", c);
	return buf;
}

static int unexpected(const jr *r, const char *what)
{
	char b[32];

	return fail_at(r, r->p, SMP_EPARSE, "invalid JSON: unexpected %s, expected %s",
	               describe(r, b, sizeof(b)), what);
}

static int hex4(const char *p, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* Parses a string at r->p (the opening quote) into the arena. */
static int read_string(jr *r, const char **out, size_t *outlen)
{
	const char *q = r->p + 1, *s = q;
	bool esc = false;
	size_t nbad = 0;

	/* First pass: find the end, validate, learn whether escapes exist. */
	while (q < r->end) {
		q += smp_json_plain_run((const unsigned char *)q, (size_t)(r->end - q), false);
		if (q >= r->end)
			break;
		unsigned char c = (unsigned char)*q;
		if (c == '"')
			break;
		if (c == '\\') {
			esc = true;
			q += 2;
			continue;
		}
		if (c < 0x20) {
			r->p = q;
			return fail_at(r, q, SMP_EPARSE,
			               "invalid JSON: control character 0x%02x in string", c);
		}
		if (c >= 0x80) {
			uint32_t cp;
			size_t n = smp_utf8_decode((const unsigned char *)q, (size_t)(r->end - q),
			                           &cp);
			if (!n) {
				/* Go's decoder turns each invalid byte into U+FFFD
				 * (3 bytes) instead of failing; kubectl does too. */
				nbad++;
				esc = true;
				n = 1;
			}
			q += n;
			continue;
		}
		q++;
	}
	if (q >= r->end)
		return fail_at(r, r->p, SMP_EPARSE, "invalid JSON: unterminated string");
	size_t rawlen = (size_t)(q - s);
	char *o = smp_arena_alloc(&r->doc->arena, rawlen + 2 * nbad + 1);
	if (!o)
		return oom(r);
	if (!esc) {
		memcpy(o, s, rawlen);
		o[rawlen] = '\0';
		*out = o;
		*outlen = rawlen;
		r->p = q + 1;
		return 0;
	}
	size_t n = 0;
	for (const char *p = s; p < q;) {
		if ((unsigned char)*p >= 0x80) {
			uint32_t cp;
			size_t k = smp_utf8_decode((const unsigned char *)p, (size_t)(q - p), &cp);
			if (!k) {
				memcpy(o + n, "\xef\xbf\xbd", 3);
				n += 3;
				p++;
			} else {
				memcpy(o + n, p, k);
				n += k;
				p += k;
			}
			continue;
		}
		if (*p != '\\') {
			o[n++] = *p++;
			continue;
		}
		const char *e = p;
		p++;
		switch (*p) {
		case '"': o[n++] = '"'; p++; break;
		case '\\': o[n++] = '\\'; p++; break;
		case '/':
			/* go-yaml (kubectl's YAML reader) has no \/ escape. */
			if (r->pc->yaml_compat)
				return fail_at(r, e, SMP_EPARSE, "no \\/ in YAML");
			o[n++] = '/';
			p++;
			break;
		case 'b': o[n++] = '\b'; p++; break;
		case 'f': o[n++] = '\f'; p++; break;
		case 'n': o[n++] = '\n'; p++; break;
		case 'r': o[n++] = '\r'; p++; break;
		case 't': o[n++] = '\t'; p++; break;
		case 'u': {
			uint32_t c, lo;
			if (q - p < 5 || hex4(p + 1, &c))
				return fail_at(r, e, SMP_EPARSE,
				               "invalid JSON: bad \\u escape in string");
			p += 5;
			if (c >= 0xd800 && c <= 0xdfff && r->pc->yaml_compat)
				return fail_at(r, e, SMP_EPARSE, "no surrogates in YAML");
			if (c >= 0xd800 && c <= 0xdbff) {
				/* A high surrogate needs its low half; alone it is
				 * U+FFFD, as Go decodes it. */
				if (q - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
				    hex4(p + 2, &lo) == 0 && lo >= 0xdc00 && lo <= 0xdfff) {
					c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				} else {
					c = 0xfffd;
				}
			} else if (c >= 0xdc00 && c <= 0xdfff) {
				c = 0xfffd;
			}
			/* Escapes are 6+ bytes and expand to at most 4: fits. */
			n += smp_utf8_put(o + n, c);
			break;
		}
		default:
			return fail_at(r, e, SMP_EPARSE, "invalid JSON: bad escape in string");
		}
	}
	o[n] = '\0';
	*out = o;
	*outlen = n;
	r->p = q + 1;
	return 0;
}

static int read_number(jr *r, smp_value **out)
{
	const char *s = r->p, *p = s;
	bool neg = false, isint = true;

	if (p < r->end && *p == '-') {
		neg = true;
		p++;
	}
	if (p >= r->end || !(*p >= '0' && *p <= '9')) {
		r->p = p;
		return unexpected(r, "a digit");
	}
	if (*p == '0') {
		p++;
	} else {
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < r->end && *p == '.') {
		isint = false;
		p++;
		if (p >= r->end || !(*p >= '0' && *p <= '9')) {
			r->p = p;
			return unexpected(r, "a digit after the decimal point");
		}
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < r->end && (*p == 'e' || *p == 'E')) {
		isint = false;
		p++;
		if (p < r->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= r->end || !(*p >= '0' && *p <= '9')) {
			r->p = p;
			return unexpected(r, "a digit in the exponent");
		}
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (isint) {
		/* Accumulate negatively so INT64_MIN fits. */
		int64_t v = 0;
		bool ovf = false;
		for (const char *d = neg ? s + 1 : s; d < p; d++) {
			int dig = *d - '0';
			if (v < (INT64_MIN + dig) / 10) {
				ovf = true;
				break;
			}
			v = v * 10 - dig;
		}
		if (!ovf && !neg && v == INT64_MIN)
			ovf = true;
		if (!ovf) {
			*out = smpv_int(&r->doc->arena, neg ? v : -v);
			if (!*out)
				return oom(r);
			r->p = p;
			return 0;
		}
	}
	/* strtod needs a NUL-terminated copy; the input need not have one. */
	size_t n = (size_t)(p - s);
	char small[64], *tmp = small;
	if (n >= sizeof(small)) {
		tmp = malloc(n + 1);
		if (!tmp)
			return oom(r);
	}
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	double d = strtod(tmp, NULL);
	if (tmp != small)
		free(tmp);
	if (isinf(d))
		return fail_at(r, s, SMP_EPARSE, "number %.*s is out of range for a float64",
		               n > 40 ? 40 : (int)n, s);
	if (r->pc->yaml_compat) {
		if (smp_float_to_value(&r->doc->arena, d, out))
			return oom(r);
	} else {
		*out = smpv_float(&r->doc->arena, d);
	}
	if (!*out)
		return oom(r);
	r->p = p;
	return 0;
}

static bool lit(jr *r, const char *w, size_t n)
{
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0)
		return false;
	r->p += n;
	return true;
}

static int push(jr *r, smp_value *c)
{
	if (r->depth >= r->pc->max_depth)
		return fail_at(r, r->p, SMP_ELIMIT, "nesting deeper than %zu levels",
		               r->pc->max_depth);
	if (r->depth == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 32;
		frame *n = realloc(r->stack, ncap * sizeof(*n));
		if (!n)
			return oom(r);
		for (size_t i = r->cap; i < ncap; i++) {
			smp_keyset_init(&n[i].ks);
			n[i].items.p = NULL;
			n[i].items.cap = 0;
		}
		r->stack = n;
		r->cap = ncap;
	}
	frame *f = &r->stack[r->depth++];
	f->c = c;
	f->key = NULL;
	if (c->type == SMP_MAP)
		smp_keyset_reset(&f->ks);
	return 0;
}

/* Adds a finished value to the open container (or makes it a root). */
static int attach(jr *r, smp_value *v)
{
	if (r->depth == 0)
		return smp_doc_push_root(r->doc, v) ? oom(r) : 0;
	frame *f = &r->stack[r->depth - 1];
	if (f->c->type == SMP_LIST)
		return smp_scratch_room(&f->items, f->c) || smpv_list_add(&r->doc->arena, f->c, v)
		               ? oom(r)
		               : 0;
	ptrdiff_t i = smp_keyset_find(&f->ks, f->c, f->key, f->klen);
	if (i >= 0) {
		if (r->pc->allow_dup) {
			/* Last one wins, as in Go. */
			f->c->u.map.items[i].val = v;
			return 0;
		}
		uint32_t l1, c1;
		smp_keyset_pos(&f->ks, (size_t)i, &l1, &c1);
		return smp_dup_key_error(r->pc, f->key, f->klen, l1, c1, f->kline, f->kcol);
	}
	if (smp_scratch_room(&f->items, f->c))
		return oom(r);
	return smp_keyset_add(&f->ks, &r->doc->arena, f->c, f->key, f->klen, v, f->kline,
	                      f->kcol)
	               ? oom(r)
	               : 0;
}

/*
 * One root value. States: expecting a value; after a value inside a
 * container (',' or close); expecting a key.
 */
static int read_value(jr *r)
{
	smp_arena *a = &r->doc->arena;
	int rc;

	for (;;) {
		smp_value *v = NULL;
		skip_ws(r);
		if (r->p >= r->end)
			return unexpected(r, "a value");
		uint32_t line = r->line, col = col_of(r, r->p);
		switch (*r->p) {
		case '{':
		case '[': {
			bool map = *r->p == '{';
			v = map ? smpv_map(a, 0) : smpv_list(a, 0);
			if (!v)
				return oom(r);
			v->line = line;
			v->col = col;
			if ((rc = push(r, v)))
				return rc;
			r->p++;
			skip_ws(r);
			if (r->p < r->end && *r->p == (map ? '}' : ']')) {
				r->p++;
				r->depth--;
				break; /* empty container is a finished value */
			}
			if (map)
				goto key;
			continue;
		}
		case '"': {
			const char *s;
			size_t n;
			if ((rc = read_string(r, &s, &n)))
				return rc;
			v = smpv_str_ref(a, s, n);
			break;
		}
		case 't':
			if (!lit(r, "true", 4))
				return unexpected(r, "a value");
			v = smpv_bool(a, true);
			break;
		case 'f':
			if (!lit(r, "false", 5))
				return unexpected(r, "a value");
			v = smpv_bool(a, false);
			break;
		case 'n':
			if (!lit(r, "null", 4))
				return unexpected(r, "a value");
			v = smpv_null(a);
			break;
		default:
			if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9')) {
				if ((rc = read_number(r, &v)))
					return rc;
				break;
			}
			return unexpected(r, "a value");
		}
		if (!v)
			return oom(r);
		if (v->line == 0) {
			v->line = line;
			v->col = col;
		}
		/* A finished value: attach it, then close containers as needed. */
		for (;;) {
			if (v) {
				if ((rc = attach(r, v)))
					return rc;
				v = NULL;
			}
			if (r->depth == 0)
				return 0;
			frame *f = &r->stack[r->depth - 1];
			bool map = f->c->type == SMP_MAP;
			skip_ws(r);
			if (r->p < r->end && *r->p == ',') {
				r->p++;
				if (r->pc->yaml_compat) {
					/* YAML flow collections may end in a comma. */
					skip_ws(r);
					if (r->p < r->end && *r->p == (map ? '}' : ']')) {
						r->p++;
						v = f->c;
						if (smp_scratch_finish(&f->items, &r->doc->arena, v))
							return oom(r);
						r->depth--;
						continue;
					}
				}
				if (map)
					goto key;
				break; /* next list element */
			}
			if (r->p < r->end && *r->p == (map ? '}' : ']')) {
				r->p++;
				v = f->c;
				if (smp_scratch_finish(&f->items, &r->doc->arena, v))
					return oom(r);
				r->depth--;
				continue;
			}
			return unexpected(r, map ? "',' or '}'" : "',' or ']'");
		}
		continue;
key:
		skip_ws(r);
		if (r->p >= r->end || *r->p != '"')
			return unexpected(r, "a string key");
		{
			frame *f = &r->stack[r->depth - 1];
			f->kline = r->line;
			f->kcol = col_of(r, r->p);
			if ((rc = read_string(r, &f->key, &f->klen)))
				return rc;
		}
		skip_ws(r);
		if (r->p >= r->end || *r->p != ':')
			return unexpected(r, "':'");
		r->p++;
	}
}

int smp_json_read(smp_doc *doc, const char *buf, size_t len, const smp_pctx *pc)
{
	jr r;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	r.p = r.start = r.line_start = buf;
	r.end = buf + len;
	r.line = 1;
	r.doc = doc;
	r.pc = pc;
	for (;;) {
		skip_ws(&r);
		if (r.p >= r.end)
			break;
		if ((rc = read_value(&r)))
			break;
		if (pc->yaml_compat) {
			skip_ws(&r);
			if (r.p < r.end)
				rc = SMP_EPARSE; /* more than one value: YAML's business */
			break;
		}
	}
	for (size_t i = 0; i < r.cap; i++) {
		smp_keyset_free(&r.stack[i].ks);
		smp_scratch_free(&r.stack[i].items);
	}
	free(r.stack);
	return rc;
}
