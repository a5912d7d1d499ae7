/*
 * pathelem.c - path elements as SMD's fieldpath.PathElement: their order,
 * equality, hash, the text of conflict paths, and FieldsV1 keys.
 *
 * Values inside elements compare as SMD's value.Compare: numbers first
 * (ints and floats numerically), then strings, booleans, lists, maps, null.
 * Numbers read from FieldsV1 are floats (jsoniter reads them so), which
 * changes how a conflict path prints them (Go's %v: 1e+06), not how they
 * compare.
 */
#include "ssa/ssa.h"
#include "codec/codec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- values */

static double num(const smp_value *v)
{
	return v->type == SMP_INT ? (double)v->u.i : v->u.f;
}

static int fcmp(double a, double b)
{
	return a < b ? -1 : a == b ? 0 : 1;
}

static int bytes_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	int r = memcmp(a, b, an < bn ? an : bn);

	if (r)
		return r < 0 ? -1 : 1;
	return an < bn ? -1 : an > bn;
}

/* SMD's MapCompareUsing, quirks included (it counts keys of the union). */
static int map_cmp(const smp_value *a, const smp_value *b)
{
	size_t la = a->u.map.len, lb = b->u.map.len, i = 0, j = 0, k = 0;
	const smp_member **sa = NULL, **sb = NULL;
	int c = 0;

	if (la == 0 && lb == 0)
		return 0;
	if (smp_sorted_members(&sa, a, true) || smp_sorted_members(&sb, b, true)) {
		free(sa); /* no memory: equal, as no order can be told */
		return 0;
	}
	while (c == 0 && (i < la || j < lb)) {
		/* NULL arrays: the map's own order is key order */
		const smp_member *ma = i >= la ? NULL : smp_member_at(sa, a, i);
		const smp_member *mb = j >= lb ? NULL : smp_member_at(sb, b, j);
		int d = !ma ? 1 : !mb ? -1 : bytes_cmp(ma->key, ma->klen, mb->key, mb->klen);
		const smp_value *lv = d <= 0 ? ma->val : NULL, *rv = d >= 0 ? mb->val : NULL;

		if (k == la)
			c = -1;
		else if (k == lb)
			c = 1;
		else if (!lv)
			c = 1;
		else if (!rv)
			c = -1;
		else
			c = ssa_value_cmp(lv, rv);
		k++;
		if (d <= 0)
			i++;
		if (d >= 0)
			j++;
	}
	free(sa);
	free(sb);
	return c;
}

int ssa_value_cmp(const smp_value *a, const smp_value *b)
{
	if (a->type == SMP_FLOAT) {
		if (b->type == SMP_FLOAT || b->type == SMP_INT)
			return fcmp(a->u.f, num(b));
		return -1;
	} else if (b->type == SMP_FLOAT) {
		if (a->type == SMP_INT)
			return fcmp((double)a->u.i, b->u.f);
		return 1;
	}
	if (a->type == SMP_INT) {
		if (b->type != SMP_INT)
			return -1;
		return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
	} else if (b->type == SMP_INT) {
		return 1;
	}
	if (a->type == SMP_STRING) {
		if (b->type != SMP_STRING)
			return -1;
		return bytes_cmp(a->u.s.ptr, a->u.s.len, b->u.s.ptr, b->u.s.len);
	} else if (b->type == SMP_STRING) {
		return 1;
	}
	if (a->type == SMP_BOOL) {
		if (b->type != SMP_BOOL)
			return -1;
		return (int)a->u.b - (int)b->u.b;
	} else if (b->type == SMP_BOOL) {
		return 1;
	}
	if (a->type == SMP_LIST) {
		if (b->type != SMP_LIST)
			return -1;
		for (size_t i = 0;; i++) {
			int c;

			if (i >= a->u.list.len || i >= b->u.list.len)
				return i < b->u.list.len ? -1 : i < a->u.list.len ? 1 : 0;
			if ((c = ssa_value_cmp(a->u.list.items[i], b->u.list.items[i])))
				return c;
		}
	} else if (b->type == SMP_LIST) {
		return 1;
	}
	if (a->type == SMP_MAP) {
		if (b->type != SMP_MAP)
			return -1;
		return map_cmp(a, b);
	} else if (b->type == SMP_MAP) {
		return 1;
	}
	return 0; /* both null */
}

/* ---------------------------------------------------------------- elements */

int ssa_pe_cmp(const ssa_pe *a, const ssa_pe *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	switch (a->kind) {
	case SSA_PE_FIELD:
		return bytes_cmp(a->u.name, a->n, b->u.name, b->n);
	case SSA_PE_KEY:
		for (uint32_t i = 0;; i++) {
			int c;

			if (i >= a->n || i >= b->n)
				return i < b->n ? -1 : i < a->n ? 1 : 0;
			c = bytes_cmp(a->u.keys[i].name, a->u.keys[i].nlen, b->u.keys[i].name,
			              b->u.keys[i].nlen);
			if (c || (c = ssa_value_cmp(a->u.keys[i].val, b->u.keys[i].val)))
				return c;
		}
	case SSA_PE_VALUE:
		return ssa_value_cmp(a->u.val, b->u.val);
	default:
		return a->u.index < b->u.index ? -1 : a->u.index > b->u.index;
	}
}

bool ssa_pe_eq(const ssa_pe *a, const ssa_pe *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case SSA_PE_FIELD:
		return a->n == b->n && memcmp(a->u.name, b->u.name, a->n) == 0;
	case SSA_PE_KEY:
		if (a->n != b->n)
			return false;
		for (uint32_t i = 0; i < a->n; i++)
			if (a->u.keys[i].nlen != b->u.keys[i].nlen ||
			    memcmp(a->u.keys[i].name, b->u.keys[i].name, a->u.keys[i].nlen) != 0 ||
			    !smpv_equal_numeric(a->u.keys[i].val, b->u.keys[i].val))
				return false;
		return true;
	case SSA_PE_VALUE:
		return smpv_equal_numeric(a->u.val, b->u.val);
	default:
		return a->u.index == b->u.index;
	}
}

uint64_t ssa_pe_hash(const ssa_pe *pe)
{
	uint64_t h = 0x100 + pe->kind;

	switch (pe->kind) {
	case SSA_PE_FIELD:
		return smp_hash_mix(h ^ smp_hash_bytes(pe->u.name, pe->n));
	case SSA_PE_KEY:
		for (uint32_t i = 0; i < pe->n; i++)
			h = smp_hash_mix(h * 31 + smp_hash_bytes(pe->u.keys[i].name, pe->u.keys[i].nlen)) +
			    smpv_hash_numeric(pe->u.keys[i].val);
		return smp_hash_mix(h);
	case SSA_PE_VALUE:
		return smp_hash_mix(h ^ smpv_hash_numeric(pe->u.val));
	default:
		return smp_hash_mix(h ^ (uint64_t)pe->u.index);
	}
}

/* ---------------------------------------------------------------- printing */

static const char hexd[] = "0123456789abcdef";

/* Roughly Go's unicode.IsPrint for the code points Quote escapes. */
static bool go_printable(uint32_t r)
{
	if (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0xad)
		return false;
	if ((r >= 0x200b && r <= 0x200f) || (r >= 0x2028 && r <= 0x202e) ||
	    (r >= 0x2060 && r <= 0x206f) || r == 0xfeff || (r >= 0xfff9 && r <= 0xfffb))
		return false;
	if ((r >= 0xd800 && r <= 0xf8ff) || r >= 0xf0000 || r == 0xfffe || r == 0xffff)
		return false;
	return true;
}

/* Go's strconv.Quote (what %q prints). */
static void go_quote(smp_buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	smp_buf_putc(b, '"');
	while (p < end) {
		uint32_t r;
		size_t len = smp_utf8_decode(p, (size_t)(end - p), &r);

		if (len == 0) {
			char e[4] = {'\\', 'x', hexd[*p >> 4], hexd[*p & 15]};

			smp_buf_put(b, e, 4);
			p++;
			continue;
		}
		if (r == '"' || r == '\\') {
			smp_buf_putc(b, '\\');
			smp_buf_putc(b, (char)r);
		} else if (go_printable(r)) {
			smp_buf_put(b, (const char *)p, len);
		} else {
			switch (r) {
			case '\a': smp_buf_puts(b, "\\a"); break;
			case '\b': smp_buf_puts(b, "\\b"); break;
			case '\f': smp_buf_puts(b, "\\f"); break;
			case '\n': smp_buf_puts(b, "\\n"); break;
			case '\r': smp_buf_puts(b, "\\r"); break;
			case '\t': smp_buf_puts(b, "\\t"); break;
			case '\v': smp_buf_puts(b, "\\v"); break;
			default:
				if (r < 0x20 || r == 0x7f)
					smp_buf_printf(b, "\\x%02x", (unsigned)r);
				else if (r < 0x10000)
					smp_buf_printf(b, "\\u%04x", (unsigned)r);
				else
					smp_buf_printf(b, "\\U%08x", (unsigned)r);
			}
		}
		p += len;
	}
	smp_buf_putc(b, '"');
}

void ssa_path_print(smp_buf *b, const ssa_pe *path, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ssa_pe_print(b, &path[i]);
}

/* ---------------------------------------------------------------- JSON out */

void ssa_json_put_string_html(smp_buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	if (!smp_buf_reserve(b, n + 2))
		return;
	smp_buf_putc(b, '"');
	while (p < end) {
		const unsigned char *q = p;

		while (q < end && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\' &&
		       *q != '<' && *q != '>' && *q != '&')
			q++;
		if (q > p) {
			smp_buf_put(b, (const char *)p, (size_t)(q - p));
			p = q;
			continue;
		}
		if (*p < 0x80) {
			switch (*p) {
			case '"': smp_buf_puts(b, "\\\""); break;
			case '\\': smp_buf_puts(b, "\\\\"); break;
			case '\n': smp_buf_puts(b, "\\n"); break;
			case '\r': smp_buf_puts(b, "\\r"); break;
			case '\t': smp_buf_puts(b, "\\t"); break;
			default: {
				char e[6] = {'\\', 'u', '0', '0', hexd[*p >> 4], hexd[*p & 15]};

				smp_buf_put(b, e, 6);
			}
			}
			p++;
			continue;
		}
		uint32_t r;
		size_t len = smp_utf8_decode(p, (size_t)(end - p), &r);

		if (len == 0) {
			smp_buf_puts(b, "\\ufffd");
			p++;
		} else if (r == 0x2028 || r == 0x2029) {
			smp_buf_puts(b, r == 0x2028 ? "\\u2028" : "\\u2029");
			p += len;
		} else {
			smp_buf_put(b, (const char *)p, len);
			p += len;
		}
	}
	smp_buf_putc(b, '"');
}

/* How a value is written: as SMD's value.ToString writes it (paths in
 * messages), or as JSON the way jsoniter writes it, with or without HTML
 * escaping (FieldsV1 keys, objects). */
typedef enum put_as { AS_STRING, AS_JSON, AS_JSON_HTML } put_as;

static void put_value(smp_buf *b, const smp_value *v, put_as as);

static void put_str(smp_buf *b, const char *s, size_t n, put_as as)
{
	if (as == AS_STRING)
		go_quote(b, s, n);
	else if (as == AS_JSON_HTML)
		ssa_json_put_string_html(b, s, n);
	else
		smp_json_put_string(b, s, n, false);
}

/* A map member, or a field of a key: k=v (ToString, the name as it is),
 * or "k":v. */
static void put_member(smp_buf *b, const char *k, size_t n, const smp_value *v, put_as as)
{
	if (as == AS_STRING)
		smp_buf_put(b, k, n);
	else
		put_str(b, k, n, as);
	smp_buf_putc(b, as == AS_STRING ? '=' : ':');
	put_value(b, v, as);
}

/* v as SMD's ToString or as JSON (`as`); map members in key order. */
static void put_value(smp_buf *b, const smp_value *v, put_as as)
{
	char num_buf[40];

	switch (v->type) {
	case SMP_NULL:
		smp_buf_puts(b, "null");
		break;
	case SMP_FLOAT:
		if (as == AS_STRING)
			smp_buf_put(b, num_buf, smp_format_float_g(num_buf, v->u.f, false));
		else if (isfinite(v->u.f))
			smp_buf_put(b, num_buf, smp_format_float(num_buf, v->u.f));
		else
			smp_buf_puts(b, "null");
		break;
	case SMP_INT:
		smp_buf_put(b, num_buf, smp_format_int(num_buf, v->u.i));
		break;
	case SMP_STRING:
		put_str(b, v->u.s.ptr, v->u.s.len, as);
		break;
	case SMP_BOOL:
		smp_buf_puts(b, v->u.b ? "true" : "false");
		break;
	case SMP_LIST:
		smp_buf_putc(b, '[');
		for (size_t i = 0; i < v->u.list.len; i++) {
			if (i)
				smp_buf_putc(b, ',');
			put_value(b, v->u.list.items[i], as);
		}
		smp_buf_putc(b, ']');
		break;
	case SMP_MAP: {
		const smp_member **m = NULL;

		if (smp_sorted_members(&m, v, true)) {
			b->oom = true;
			break;
		}
		/* Go iterates maps in random order; sorted here (m NULL: the
		 * map's own order is key order). ToString writes the members
		 * one after the other, without braces or commas. */
		if (as != AS_STRING)
			smp_buf_putc(b, '{');
		for (size_t i = 0; i < v->u.map.len; i++) {
			const smp_member *x = smp_member_at(m, v, i);

			if (i && as != AS_STRING)
				smp_buf_putc(b, ',');
			put_member(b, x->key, x->klen, x->val, as);
		}
		if (as != AS_STRING)
			smp_buf_putc(b, '}');
		free(m);
		break;
	}
	}
}

/* A path element as SMD prints it in paths (.name, [k="v",n=1], [=v],
 * [3]) or, fieldsv1, as its FieldsV1 key (f:name, k:{"k":"v"}, v:..., i:3). */
static void put_pe(smp_buf *b, const ssa_pe *pe, bool fieldsv1)
{
	static const char *const open[2][4] = {{".", "[", "[=", "["}, {"f:", "k:{", "v:", "i:"}};
	static const char *const close[2][4] = {{"", "]", "]", "]"}, {"", "}", "", ""}};
	put_as as = fieldsv1 ? AS_JSON_HTML : AS_STRING;
	int k = pe->kind < SSA_PE_INDEX ? pe->kind : SSA_PE_INDEX;

	smp_buf_puts(b, open[fieldsv1][k]);
	switch (pe->kind) {
	case SSA_PE_FIELD:
		smp_buf_put(b, pe->u.name, pe->n);
		break;
	case SSA_PE_KEY:
		for (uint32_t i = 0; i < pe->n; i++) {
			if (i)
				smp_buf_putc(b, ',');
			put_member(b, pe->u.keys[i].name, pe->u.keys[i].nlen, pe->u.keys[i].val, as);
		}
		break;
	case SSA_PE_VALUE:
		put_value(b, pe->u.val, as);
		break;
	default:
		smp_buf_printf(b, "%lld", (long long)pe->u.index);
		break;
	}
	smp_buf_puts(b, close[fieldsv1][k]);
}

void ssa_pe_print(smp_buf *b, const ssa_pe *pe)
{
	put_pe(b, pe, false);
}

void ssa_pe_fieldsv1_key(smp_buf *b, const ssa_pe *pe)
{
	put_pe(b, pe, true);
}

void ssa_json_put_value(smp_buf *b, const smp_value *v, bool html)
{
	put_value(b, v, html ? AS_JSON_HTML : AS_JSON);
}

/* ---------------------------------------------------------------- JSON in */

/* A small JSON reader for the payloads of k: and v: keys, into the call's
 * arena. Numbers become floats, as jsoniter reads them. */
typedef struct jin {
	ssa_ctx *c;
	const char *p, *end;
	const char *msg;
} jin;

static void skip_ws(jin *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static int read_hex4(jin *j, uint32_t *out)
{
	uint32_t v = 0;

	if (j->end - j->p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int h = hexval(j->p[i]);

		if (h < 0)
			return -1;
		v = v << 4 | (uint32_t)h;
	}
	j->p += 4;
	*out = v;
	return 0;
}

/* Reads a string (j->p at the opening quote) into the arena. */
static int read_string(jin *j, const char **out, size_t *outlen)
{
	const char *s = ++j->p;
	char *buf, *o;

	while (j->p < j->end && *j->p != '"' && *j->p != '\\')
		j->p++;
	if (j->p < j->end && *j->p == '"') {
		*out = s;
		*outlen = (size_t)(j->p - s);
		j->p++;
		return 0;
	}
	/* Escapes: at most as long as the rest of the text. */
	if (!(buf = ssa_alloc(j->c, (size_t)(j->end - s) + 1)))
		return SMP_ENOMEM;
	memcpy(buf, s, (size_t)(j->p - s));
	o = buf + (j->p - s);
	while (j->p < j->end && *j->p != '"') {
		if (*j->p != '\\') {
			*o++ = *j->p++;
			continue;
		}
		if (++j->p >= j->end)
			break;
		switch (*j->p++) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			uint32_t cp, lo;

			if (read_hex4(j, &cp)) {
				j->msg = "invalid \\u escape";
				return SMP_EINVAL;
			}
			if (cp >= 0xd800 && cp < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' &&
			    j->p[1] == 'u') {
				const char *save = j->p;

				j->p += 2;
				if (!read_hex4(j, &lo) && lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					j->p = save;
			}
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;
			o += smp_utf8_put(o, cp);
			break;
		}
		default:
			j->msg = "invalid escape";
			return SMP_EINVAL;
		}
	}
	if (j->p >= j->end) {
		j->msg = "unterminated string";
		return SMP_EINVAL;
	}
	j->p++;
	*o = 0;
	*out = buf;
	*outlen = (size_t)(o - buf);
	return 0;
}

static int read_value(jin *j, smp_value **out, size_t depth);

/* Reads an object's pairs (j->p at its '{'), each handed to add(ctx, key,
 * length, value): 0, the add's non-zero value, or SMP_EINVAL with j->msg. */
static int read_pairs(jin *j, size_t depth,
                      int (*add)(jin *j, void *ctx, const char *k, size_t kn, smp_value *v),
                      void *ctx)
{
	int rc;

	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		const char *k;
		size_t kn;
		smp_value *v;

		skip_ws(j);
		if (j->p >= j->end || *j->p != '"') {
			j->msg = "expected a string key";
			return SMP_EINVAL;
		}
		if ((rc = read_string(j, &k, &kn)))
			return rc;
		skip_ws(j);
		if (j->p >= j->end || *j->p != ':') {
			j->msg = "expected ':'";
			return SMP_EINVAL;
		}
		j->p++;
		if ((rc = read_value(j, &v, depth + 1)) || (rc = add(j, ctx, k, kn, v)))
			return rc;
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			return 0;
		}
		j->msg = "expected ',' or '}'";
		return SMP_EINVAL;
	}
}

/* read_pairs into a map value. */
static int add_to_map(jin *j, void *m, const char *k, size_t kn, smp_value *v)
{
	return smpv_map_add(&j->c->arena, m, k, kn, v) ? ssa_oom(j->c) : 0;
}

static int read_number(jin *j, smp_value **out)
{
	const char *s = j->p;
	char tmp[64];
	smp_c_locale loc;
	double d;
	size_t n;

	while (j->p < j->end && (strchr("+-.eE", *j->p) || (*j->p >= '0' && *j->p <= '9')))
		j->p++;
	n = (size_t)(j->p - s);
	if (n == 0 || n >= sizeof(tmp)) {
		j->msg = "invalid number";
		return SMP_EINVAL;
	}
	memcpy(tmp, s, n);
	tmp[n] = 0;
	smp_c_locale_enter(&loc);
	char *e;
	d = strtod(tmp, &e);
	smp_c_locale_leave(&loc);
	if (*e || !isfinite(d)) {
		j->msg = "invalid number";
		return SMP_EINVAL;
	}
	if (!(*out = smpv_float(&j->c->arena, d)))
		return ssa_oom(j->c);
	return 0;
}

/* One JSON value of a path element's payload (jsoniter's reading:
 * numbers as floats) into the call's arena. */
static int read_value(jin *j, smp_value **out, size_t depth)
{
	int rc;

	if (depth > SSA_MAX_DEPTH) {
		j->msg = "nesting too deep";
		return SMP_EINVAL;
	}
	skip_ws(j);
	if (j->p >= j->end) {
		j->msg = "unexpected end of value";
		return SMP_EINVAL;
	}
	switch (*j->p) {
	case '"': {
		const char *s;
		size_t n;

		if ((rc = read_string(j, &s, &n)))
			return rc;
		if (!(*out = smpv_str_ref(&j->c->arena, s, n)))
			return ssa_oom(j->c);
		return 0;
	}
	case '{': {
		smp_value *m = smpv_map(&j->c->arena, 4);

		if (!m)
			return ssa_oom(j->c);
		if ((rc = read_pairs(j, depth, add_to_map, m)))
			return rc;
		*out = m;
		return 0;
	}
	case '[': {
		smp_value *l = smpv_list(&j->c->arena, 4);

		if (!l)
			return ssa_oom(j->c);
		j->p++;
		skip_ws(j);
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			*out = l;
			return 0;
		}
		for (;;) {
			smp_value *v;

			if ((rc = read_value(j, &v, depth + 1)))
				return rc;
			if (smpv_list_add(&j->c->arena, l, v))
				return ssa_oom(j->c);
			skip_ws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			if (j->p < j->end && *j->p == ']') {
				j->p++;
				*out = l;
				return 0;
			}
			j->msg = "expected ',' or ']'";
			return SMP_EINVAL;
		}
	}
	case 't':
	case 'f':
	case 'n': {
		const char *w = *j->p == 't' ? "true" : *j->p == 'f' ? "false" : "null";
		size_t wl = strlen(w);

		if ((size_t)(j->end - j->p) < wl || memcmp(j->p, w, wl) != 0) {
			j->msg = "invalid literal";
			return SMP_EINVAL;
		}
		j->p += wl;
		*out = *w == 'n' ? smpv_null(&j->c->arena) : smpv_bool(&j->c->arena, *w == 't');
		if (!*out)
			return ssa_oom(j->c);
		return 0;
	}
	default:
		return read_number(j, out);
	}
}

static int kv_cmp(const void *x, const void *y)
{
	const ssa_kv *a = x, *b = y;

	return bytes_cmp(a->name, a->nlen, b->name, b->nlen);
}

/* Insertion sort: keys are few. */
void ssa_kv_sort(ssa_kv *kv, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		ssa_kv x = kv[i];
		size_t k = i;

		while (k > 0 && kv_cmp(&kv[k - 1], &x) > 0) {
			kv[k] = kv[k - 1];
			k--;
		}
		kv[k] = x;
	}
}

/* Up to 8 pairs of a k: key, in the order read. */
typedef struct few {
	ssa_kv kv[8];
	size_t n;
} few;

/* read_pairs into a few: a ninth pair is -1 (too many for it). */
static int add_to_few(jin *j, void *ctx, const char *k, size_t kn, smp_value *v)
{
	few *f = ctx;

	(void)j;
	if (f->n == 8)
		return -1;
	f->kv[f->n].name = k;
	f->kv[f->n].nlen = (uint32_t)kn;
	f->kv[f->n].val = v;
	f->n++;
	return 0;
}

int ssa_pe_parse_key(ssa_ctx *c, ssa_pe *out, const char *s, size_t n, char *msg,
                     size_t msgsize)
{
	jin j = {c, s + 2, s + n, NULL};
	smp_value *v = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (n < 2) {
		snprintf(msg, msgsize, "key must be 2 characters long: %.*s", (int)n, s);
		return SMP_EINVAL;
	}
	if (s[1] != ':') {
		snprintf(msg, msgsize, "missing colon: %.*s", (int)(n > 200 ? 200 : n), s);
		return SMP_EINVAL;
	}
	switch (s[0]) {
	case 'f':
		out->kind = SSA_PE_FIELD;
		out->u.name = s + 2;
		out->n = (uint32_t)(n - 2);
		return 0;
	case 'v':
		if ((rc = read_value(&j, &v, 0))) {
			if (rc == SMP_EINVAL)
				snprintf(msg, msgsize, "%s in %.*s", j.msg, (int)(n > 200 ? 200 : n), s);
			return rc;
		}
		out->kind = SSA_PE_VALUE;
		out->u.val = v;
		return 0;
	case 'k': {
		ssa_kv *kv;
		few f;

		f.n = 0;
		skip_ws(&j);
		if (j.p < j.end && *j.p == '{' && read_pairs(&j, 0, add_to_few, &f) == 0) {
			/* the usual key (k:{"name":"web"}): its pairs read straight
			 * into the element, no map built for them; anything else is
			 * read again below, for the reader's messages */
			if (!(kv = ssa_alloc(c, (f.n ? f.n : 1) * sizeof(*kv))))
				return SMP_ENOMEM;
			memcpy(kv, f.kv, f.n * sizeof(*kv));
			ssa_kv_sort(kv, f.n);
			out->kind = SSA_PE_KEY;
			out->u.keys = kv;
			out->n = (uint32_t)f.n;
			return 0;
		}
		j.p = s + 2;
		if ((rc = read_value(&j, &v, 0)) == 0 && v->type != SMP_MAP) {
			j.msg = "expected an object";
			rc = SMP_EINVAL;
		}
		if (rc) {
			if (rc == SMP_EINVAL)
				snprintf(msg, msgsize, "%s in %.*s", j.msg, (int)(n > 200 ? 200 : n), s);
			return rc;
		}
		if (!(kv = ssa_alloc(c, (v->u.map.len ? v->u.map.len : 1) * sizeof(*kv))))
			return SMP_ENOMEM;
		for (size_t i = 0; i < v->u.map.len; i++) {
			kv[i].name = v->u.map.items[i].key;
			kv[i].nlen = (uint32_t)v->u.map.items[i].klen;
			kv[i].val = v->u.map.items[i].val;
		}
		ssa_kv_sort(kv, v->u.map.len);
		out->kind = SSA_PE_KEY;
		out->u.keys = kv;
		out->n = (uint32_t)v->u.map.len;
		return 0;
	}
	case 'i': {
		const char *p = s + 2, *e = s + n;
		bool neg = false;
		uint64_t x = 0;

		if (p < e && (*p == '+' || *p == '-'))
			neg = *p++ == '-';
		if (p == e)
			goto bad_index;
		for (; p < e; p++) {
			if (*p < '0' || *p > '9' || x > (UINT64_MAX - 9) / 10)
				goto bad_index;
			x = x * 10 + (uint64_t)(*p - '0');
		}
		if (x > (uint64_t)INT64_MAX + neg)
			goto bad_index;
		out->kind = SSA_PE_INDEX;
		out->u.index = neg ? (int64_t)(0 - x) : (int64_t)x;
		return 0;
bad_index:
		snprintf(msg, msgsize, "strconv.Atoi: parsing \"%.*s\": invalid syntax",
		         (int)(n - 2 > 200 ? 200 : n - 2), s + 2);
		return SMP_EINVAL;
	}
	default:
		return 1;
	}
}
