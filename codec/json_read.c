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
#include "simd.h"

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
	char *sbuf; /* scratch for strings too long for the arena's free space */
	size_t scap;
	struct key_slot *keys; /* recent map keys (key_intern) */
	const char *next_release; /* when to call pc->release (NULL: never) */
} jr;

/* How often a mapped input is given back (pc->release). */
#define RELEASE_STEP ((size_t)2 << 20)

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

static void skip_ws_slow(jr *r)
{
	const char *p = r->p;

	while (p < r->end) {
		char c = *p;
		if (c == ' ') {
			/* Indentation: a chunk of spaces at a time. */
			if (r->end - p >= SMP_CHUNK)
				p += smp_first_nonspace((const unsigned char *)p);
			else
				p++;
			continue;
		}
		if (c == '\n') {
			r->line++;
			r->line_start = p + 1;
		} else if (c != '\t' && c != '\r') {
			break;
		}
		p++;
	}
	r->p = p;
}

/* Compact JSON has no blanks between tokens: test that inline. */
static inline void skip_ws(jr *r)
{
	if (r->p < r->end && (unsigned char)*r->p > ' ')
		return;
	skip_ws_slow(r);
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

/*
 * Pass-1 errors of a string whose escape at e failed: what the reader
 * reported before the strings were read in one pass (it first found the end
 * of the string, failing on a control character or a missing quote, and
 * only then decoded escapes), so errors stay the same: a control character
 * or a missing quote after a bad escape wins. 0 when there is neither.
 */
static int string_tail_error(jr *r, const unsigned char *q)
{
	const unsigned char *end = (const unsigned char *)r->end;

	while (q < end) {
		unsigned char c = *q;
		if (c == '"')
			return 0;
		if (c == '\\') {
			q += 2;
			continue;
		}
		if (c < 0x20) {
			r->p = (const char *)q;
			return fail_at(r, (const char *)q, SMP_EPARSE,
			               "invalid JSON: control character 0x%02x in string", c);
		}
		if (c >= 0x80) {
			uint32_t cp;
			size_t n = smp_utf8_decode(q, (size_t)(end - q), &cp);
			q += n ? n : 1;
			continue;
		}
		q++;
	}
	return fail_at(r, r->p, SMP_EPARSE, "invalid JSON: unterminated string");
}

/* Bytes of output room kept ahead while a string is decoded: one chunk
 * copied whole, or the largest thing one step writes (4 bytes), + NUL. */
#define STR_ROOM (SMP_CHUNK + 8)

/* Where the string being read is written. */
enum { OUT_ARENA, OUT_SCRATCH, OUT_BIG };

/* From this size on a string gets an arena block of its own (written in
 * place, then shrunk) instead of being copied from the scratch. */
#define BIG_STRING ((size_t)256 << 10)

/*
 * Grows the output of the string being read: from the arena's free space
 * to the reader's malloc'ed scratch, or for a long string to an arena block
 * of its own. Escapes never make a string longer, so the rest of the input
 * bounds it (only invalid UTF-8, 1 byte to 3, grows it further): one
 * allocation is usually enough, and its untouched part costs no memory.
 */
static int str_grow(jr *r, char **o, size_t *cap, size_t n, size_t rest, int *mode)
{
	smp_arena *a = &r->doc->arena;
	size_t lim = (size_t)64 << 20;
	size_t ncap = *cap * 2, bound = n + (rest < lim ? rest : lim) + 64;
	char *p;

	if (ncap < bound)
		ncap = bound;
	if (ncap < n + STR_ROOM)
		ncap = n + STR_ROOM;
	if (*mode == OUT_BIG) {
		if (!(p = smp_arena_big_resize(a, ncap)))
			return SMP_ENOMEM;
	} else if (n + STR_ROOM >= BIG_STRING) {
		if (!(p = smp_arena_big_begin(a, ncap)))
			return SMP_ENOMEM;
		memcpy(p, *o, n);
		*mode = OUT_BIG;
	} else if (*mode == OUT_ARENA) {
		/* Shorter strings go through the scratch (made large enough
		 * once for all of them). */
		ncap = BIG_STRING;
		if (r->scap < ncap) {
			p = malloc(ncap);
			if (!p)
				return SMP_ENOMEM;
			free(r->sbuf);
			r->sbuf = p;
			r->scap = ncap;
		}
		memcpy(r->sbuf, *o, n);
		p = r->sbuf;
		ncap = r->scap;
		*mode = OUT_SCRATCH;
	} else {
		/* Not reached: the scratch holds BIG_STRING bytes, and a longer
		 * string moves to a block of its own first. */
		if (!(p = realloc(r->sbuf, ncap)))
			return SMP_ENOMEM;
		r->sbuf = p;
		r->scap = ncap;
	}
	*o = p;
	*cap = ncap;
	return 0;
}

/*
 * Map keys repeat (name, value, image, ... once per list element): a small
 * direct-mapped cache of recent keys lets a repeated key share the arena
 * copy made the first time. A miss just replaces the slot.
 */
#define KEY_INTERN_MAX 24
#define KEY_INTERN_SLOTS 1024

typedef struct key_slot {
	const char *k;
	size_t n;
} key_slot;

/* The earlier copy of key o[0, n), or o itself (then remembered; the caller
 * keeps it in the arena). */
static const char *key_intern(jr *r, const char *o, size_t n)
{
	if (!r->keys) {
		r->keys = calloc(KEY_INTERN_SLOTS, sizeof(*r->keys));
		if (!r->keys)
			return o;
	}
	/* Hash of the first and the last 8 bytes and the length. o lies in
	 * the arena's free space, reserved with room for at least STR_ROOM
	 * (>= 16) bytes: short keys are read as 8 bytes and masked (on a big-endian
	 * machine the mask keeps other bytes: only the hit rate suffers, the
	 * memcmp below decides). */
	uint64_t w1, w2;
	memcpy(&w1, o, 8);
	if (n >= 8) {
		memcpy(&w2, o + n - 8, 8);
	} else {
		w1 &= n ? ~0ull >> (64 - 8 * n) : 0;
		w2 = 0;
	}
	uint64_t h = (w1 * 0x9e3779b97f4a7c15ull) ^ (w2 * 0xff51afd7ed558ccdull) ^ n;
	h ^= h >> 32;
	key_slot *sl = &r->keys[(h ^ (h >> 16)) & (KEY_INTERN_SLOTS - 1)];
	if (sl->k && sl->n == n && memcmp(sl->k, o, n) == 0)
		return sl->k;
	sl->k = o;
	sl->n = n;
	return o;
}

/*
 * Parses a string at r->p (the opening quote) into the arena in one pass
 * that finds the end, validates and unescapes, a chunk (simd.h) at a time:
 * plain bytes are copied a whole chunk at once, then the first special byte
 * is dealt with. The text goes straight to the arena's free space (no copy
 * when it fits, as almost every string does).
 */
/* One escape sequence of a JSON string (q at its backslash, two bytes at
 * least before end): its text appended at o + n, q moved past it. NULL, or
 * the message of a bad escape (go-yaml's where kubectl's YAML reader
 * differs from JSON). */
static inline const char *read_escape(jr *r, const unsigned char **qp, const unsigned char *end,
                                      char *o, size_t *n)
{
	const unsigned char *q = *qp;

	switch (q[1]) {
	case '"':
		/* JSON inside a string (the last-applied annotation) is full of
		 * these. */
		o[(*n)++] = '"';
		break;
	case '\\': o[(*n)++] = '\\'; break;
	case '/':
		/* go-yaml (kubectl's YAML reader) has no \/ escape. */
		if (r->pc->yaml_compat)
			return "no \\/ in YAML";
		o[(*n)++] = '/';
		break;
	case 'b': o[(*n)++] = '\b'; break;
	case 'f': o[(*n)++] = '\f'; break;
	case 'n': o[(*n)++] = '\n'; break;
	case 'r': o[(*n)++] = '\r'; break;
	case 't': o[(*n)++] = '\t'; break;
	case 'u': {
		uint32_t cp, lo;

		if (end - q < 6 || hex4((const char *)q + 2, &cp))
			return "invalid JSON: bad \\u escape in string";
		q += 6;
		if (cp >= 0xd800 && cp <= 0xdfff && r->pc->yaml_compat)
			return "no surrogates in YAML";
		if (cp >= 0xd800 && cp <= 0xdbff) {
			/* A high surrogate needs its low half; alone it is U+FFFD,
			 * as Go decodes it. */
			if (end - q >= 6 && q[0] == '\\' && q[1] == 'u' &&
			    hex4((const char *)q + 2, &lo) == 0 && lo >= 0xdc00 && lo <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				q += 6;
			} else {
				cp = 0xfffd;
			}
		} else if (cp >= 0xdc00 && cp <= 0xdfff) {
			cp = 0xfffd;
		}
		*n += smp_utf8_put(o + *n, cp);
		*qp = q;
		return NULL;
	}
	default:
		return "invalid JSON: bad escape in string";
	}
	*qp = q + 2;
	return NULL;
}

/* A JSON string (r->p at its opening quote) into the document's arena,
 * unescaped (keys of a few bytes shared with an earlier copy): the bytes
 * copied a chunk at a time up to the next quote, backslash, control or
 * non-ASCII byte; invalid UTF-8 becomes U+FFFD as Go decodes it. */
static int read_string(jr *r, const char **out, size_t *outlen, bool key)
{
	const unsigned char *q = (const unsigned char *)r->p + 1;
	const unsigned char *end = (const unsigned char *)r->end;
	smp_arena *a = &r->doc->arena;
	int mode = OUT_ARENA;
	size_t n = 0, cap;
	char *o = smp_arena_reserve(a, STR_ROOM, &cap);
	const char *emsg;
	const unsigned char *e;

	if (!o)
		return oom(r);
	for (;;) {
		if (cap - n < STR_ROOM && str_grow(r, &o, &cap, n, (size_t)(end - q), &mode))
			return oom(r);
		if ((size_t)(end - q) >= SMP_CHUNK) {
			memcpy(o + n, q, SMP_CHUNK);
			size_t k = smp_json_special(q, false);
			n += k;
			q += k;
			if (k == SMP_CHUNK)
				continue;
		} else {
			while (q < end && !smp_json_special_byte(*q, false))
				o[n++] = (char)*q++;
			if (q >= end)
				return fail_at(r, r->p, SMP_EPARSE, "invalid JSON: unterminated string");
		}
		unsigned char c = *q;
		if (c == '"')
			break;
		if (c >= 0x80) {
			uint32_t cp;
			size_t k = smp_utf8_decode(q, (size_t)(end - q), &cp);
			if (!k) {
				if (r->pc->invalid_utf8) {
					*r->pc->invalid_utf8 = true;
					return SMP_EPARSE;
				}
				/* Go's decoder turns each invalid byte into U+FFFD
				 * (3 bytes) instead of failing; kubectl does too. */
				memcpy(o + n, "\xef\xbf\xbd", 3);
				n += 3;
				q++;
			} else {
				memcpy(o + n, q, k);
				n += k;
				q += k;
			}
			continue;
		}
		if (c != '\\') {
			r->p = (const char *)q;
			return fail_at(r, (const char *)q, SMP_EPARSE,
			               "invalid JSON: control character 0x%02x in string", c);
		}
		e = q;
		if (end - q < 2)
			return fail_at(r, r->p, SMP_EPARSE, "invalid JSON: unterminated string");
		if ((emsg = read_escape(r, &q, end, o, &n)))
			goto bad;
	}
	if (mode == OUT_SCRATCH) {
		char *s = smp_arena_alloc(a, n + 1);
		if (!s)
			return oom(r);
		memcpy(s, o, n);
		o = s;
	} else if (mode == OUT_BIG) {
		o = smp_arena_big_end(a, n + 1);
	} else {
		o[n] = '\0';
		if (key && n <= KEY_INTERN_MAX) {
			/* A key seen before: share its copy. */
			const char *k = key_intern(r, o, n);
			if (k != o) {
				*out = k;
				*outlen = n;
				r->p = (const char *)q + 1;
				return 0;
			}
		}
		smp_arena_commit(a, n + 1);
	}
	o[n] = '\0';
	*out = o;
	*outlen = n;
	r->p = (const char *)q + 1;
	return 0;
bad:
	{
		int rc = string_tail_error(r, e + 2);
		if (rc)
			return rc;
	}
	return fail_at(r, (const char *)e, SMP_EPARSE, "%s", emsg);
}

/* A parsed value at line, col (fields other than the type and position
 * are the caller's). */
static inline smp_value *mk(jr *r, smp_type t, uint32_t line, uint32_t col)
{
	smp_value *v = smp_arena_alloc_fast(&r->doc->arena, sizeof(*v));

	if (v) {
		memset(&v->u, 0, sizeof(v->u));
		v->type = t;
		v->line = line;
		v->col = SMPV_COL(col);
	}
	return v;
}

/* A JSON number (r->p at it) as kubectl's decoding gives it: an integer
 * that fits int64 stays one, anything else a float64 (exact text kept for
 * printing); an invalid number is a parse error at its position. */
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
	const char *d0 = p;
	uint64_t u = 0;
	if (*p == '0') {
		p++;
	} else {
		/* Accumulated while scanning; only used up to 18 digits,
		 * which cannot overflow (unsigned wrap-around beyond is
		 * harmless and ignored). */
		while (p < r->end && *p >= '0' && *p <= '9')
			u = u * 10 + (uint64_t)(*p++ - '0');
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
	if (isint && p - d0 <= 18) {
		*out = mk(r, SMP_INT, 0, 0);
		if (!*out)
			return oom(r);
		(*out)->u.i = neg ? -(int64_t)u : (int64_t)u;
		r->p = p;
		return 0;
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
	int rc;

	for (;;) {
		smp_value *v = NULL;
		if (r->next_release && r->p >= r->next_release) {
			r->pc->release(r->pc->release_ctx, r->p);
			r->next_release = r->p + RELEASE_STEP;
		}
		skip_ws(r);
		if (r->p >= r->end)
			return unexpected(r, "a value");
		uint32_t line = r->line, col = col_of(r, r->p);
		switch (*r->p) {
		case '{':
		case '[': {
			bool map = *r->p == '{';
			v = mk(r, map ? SMP_MAP : SMP_LIST, line, col);
			if (!v)
				return oom(r);
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
			if ((rc = read_string(r, &s, &n, false)))
				return rc;
			if (n > SMPV_LEN_MAX)
				return fail_at(r, r->p, SMP_ELIMIT, "string longer than 4 GiB");
			v = mk(r, SMP_STRING, line, col);
			if (v) {
				v->u.s.ptr = s;
				v->u.s.len = n;
			}
			break;
		}
		case 't':
			if (!lit(r, "true", 4))
				return unexpected(r, "a value");
			v = mk(r, SMP_BOOL, line, col);
			if (v)
				v->u.b = true;
			break;
		case 'f':
			if (!lit(r, "false", 5))
				return unexpected(r, "a value");
			v = mk(r, SMP_BOOL, line, col);
			break;
		case 'n':
			if (!lit(r, "null", 4))
				return unexpected(r, "a value");
			v = mk(r, SMP_NULL, line, col);
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
			v->col = SMPV_COL(col);
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
			bool comma = r->p < r->end && *r->p == ',';
			if (comma) {
				r->p++;
				/* YAML flow collections may end in a comma. */
				if (r->pc->yaml_compat)
					skip_ws(r);
			}
			if (!(r->p < r->end && *r->p == (map ? '}' : ']')) ||
			    (comma && !r->pc->yaml_compat)) {
				if (!comma)
					return unexpected(r, map ? "',' or '}'" : "',' or ']'");
				if (map)
					goto key;
				break; /* next list element */
			}
			/* The container ends: it is the finished value now. */
			r->p++;
			v = f->c;
			if (smp_scratch_finish(&f->items, &r->doc->arena, v))
				return oom(r);
			r->depth--;
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
			if ((rc = read_string(r, &f->key, &f->klen, true)))
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
	r.next_release = pc->release && len > RELEASE_STEP ? buf + RELEASE_STEP : NULL;
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
	free(r.sbuf);
	free(r.keys);
	return rc;
}
