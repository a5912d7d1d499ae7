/*
 * print.c - smp_print: compact and indented JSON exactly as Go's
 * encoding/json writes them (kubectl -o json), and the dispatch to the
 * YAML printer.
 *
 * The printers walk the tree with an explicit stack, so a tree of any depth
 * (the merge engine builds trees too) cannot overflow the C stack.
 */
#include "codec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char hexd[] = "0123456789abcdef";

/* Appends without the call and the NUL of smp_buf_put when there is room
 * (smp_print writes the final NUL). */
static inline void put(smp_buf *b, const char *s, size_t n)
{
	if (b->len + n < b->cap) {
		memcpy(b->ptr + b->len, s, n);
		b->len += n;
	} else {
		smp_buf_put(b, s, n);
	}
}

static inline void put1(smp_buf *b, char c)
{
	if (b->len + 1 < b->cap)
		b->ptr[b->len++] = c;
	else
		smp_buf_putc(b, c);
}

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull
/* High bit set in each byte of x equal to c (exact: no false positives
 * that matter, the caller re-checks byte by byte). */
static inline uint64_t bytes_eq(uint64_t x, unsigned char c)
{
	uint64_t y = x ^ (ONES * c);
	return (y - ONES) & ~y & HIGHS;
}

size_t smp_json_plain_run(const unsigned char *p, size_t n, bool go_escape)
{
	size_t i = 0;

	/* Eight bytes at a time while none is special. */
	while (i + 8 <= n) {
		uint64_t x;
		memcpy(&x, p + i, 8);
		uint64_t bad = (x & HIGHS) | ((x - ONES * 0x20) & ~x & HIGHS) | bytes_eq(x, '"') |
		               bytes_eq(x, '\\');
		if (go_escape)
			bad |= bytes_eq(x, '<') | bytes_eq(x, '>') | bytes_eq(x, '&');
		if (bad)
			break;
		i += 8;
	}
	for (; i < n; i++) {
		unsigned char c = p[i];
		if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\' ||
		    (go_escape && (c == '<' || c == '>' || c == '&')))
			break;
	}
	return i;
}

void smp_json_put_string(smp_buf *b, const char *s, size_t n, bool go_escape)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, start = 0;

	put1(b, '"');
	while (i < n) {
		i += smp_json_plain_run(p + i, n - i, go_escape);
		if (i >= n)
			break;
		unsigned char c = p[i];
		if (c < 0x80) {
			smp_buf_put(b, s + start, i - start);
			switch (c) {
			case '"': smp_buf_put(b, "\\\"", 2); break;
			case '\\': smp_buf_put(b, "\\\\", 2); break;
			case '\b': smp_buf_put(b, "\\b", 2); break;
			case '\f': smp_buf_put(b, "\\f", 2); break;
			case '\n': smp_buf_put(b, "\\n", 2); break;
			case '\r': smp_buf_put(b, "\\r", 2); break;
			case '\t': smp_buf_put(b, "\\t", 2); break;
			default: {
				char e[6] = {'\\', 'u', '0', '0', hexd[c >> 4], hexd[c & 15]};
				smp_buf_put(b, e, 6);
			}
			}
			i++;
			start = i;
			continue;
		}
		uint32_t cp;
		size_t len = smp_utf8_decode(p + i, n - i, &cp);
		if (len == 0) {
			/* Go replaces each invalid byte with U+FFFD. */
			smp_buf_put(b, s + start, i - start);
			smp_buf_put(b, "\\ufffd", 6);
			i++;
			start = i;
			continue;
		}
		if (cp == 0x2028 || cp == 0x2029) {
			/* Go always escapes these (they end lines in JavaScript). */
			smp_buf_put(b, s + start, i - start);
			smp_buf_put(b, cp == 0x2028 ? "\\u2028" : "\\u2029", 6);
			i += len;
			start = i;
			continue;
		}
		i += len;
	}
	put(b, s + start, n - start);
	put1(b, '"');
}

static int member_cmp(const smp_member *a, const smp_member *b);

static int key_cmp(const void *x, const void *y)
{
	return member_cmp(*(const smp_member *const *)x, *(const smp_member *const *)y);
}

static int member_cmp(const smp_member *a, const smp_member *b)
{
	size_t n = a->klen < b->klen ? a->klen : b->klen;
	int c = memcmp(a->key, b->key, n);

	if (c)
		return c;
	return a->klen < b->klen ? -1 : a->klen > b->klen;
}

int smp_sorted_members(const smp_member ***out, const smp_value *map, bool sort)
{
	size_t n = map->u.map.len;
	const smp_member **v;
	bool sorted = true;

	*out = NULL;
	if (!sort || n < 2)
		return 0;
	/* Maps are often in order already (kubectl's output always is). */
	for (size_t i = 1; i < n && sorted; i++)
		sorted = member_cmp(&map->u.map.items[i - 1], &map->u.map.items[i]) <= 0;
	if (sorted)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return SMP_ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = &map->u.map.items[i];
	qsort(v, n, sizeof(*v), key_cmp);
	*out = v;
	return 0;
}

int smp_float_check(const smp_value *v, smp_error *err)
{
	if (isnan(v->u.f))
		return smp_err_set(err, SMP_EINVAL, NULL, v->line, v->col, NULL,
		                   "json: unsupported value: NaN");
	if (isinf(v->u.f))
		return smp_err_set(err, SMP_EINVAL, NULL, v->line, v->col, NULL,
		                   "json: unsupported value: %cInf", v->u.f < 0 ? '-' : '+');
	return 0;
}

/* Scalars (anything but a non-empty list or map). */
static int put_json_scalar(smp_buf *b, const smp_value *v, bool go_escape, smp_error *err)
{
	char num[40];
	int rc;

	switch (v->type) {
	case SMP_NULL:
		smp_buf_put(b, "null", 4);
		break;
	case SMP_BOOL:
		if (v->u.b)
			smp_buf_put(b, "true", 4);
		else
			smp_buf_put(b, "false", 5);
		break;
	case SMP_INT:
		put(b, num, smp_format_int(num, v->u.i));
		break;
	case SMP_FLOAT:
		if ((rc = smp_float_check(v, err)))
			return rc;
		smp_buf_put(b, num, smp_format_float(num, v->u.f));
		break;
	case SMP_STRING:
		smp_json_put_string(b, v->u.s.ptr, v->u.s.len, go_escape);
		break;
	case SMP_LIST:
		smp_buf_put(b, "[]", 2);
		break;
	case SMP_MAP:
		smp_buf_put(b, "{}", 2);
		break;
	}
	return 0;
}

typedef struct pframe {
	const smp_value *c;
	const smp_member **members; /* maps: entries in print order */
	size_t i, n;
} pframe;

static void newline_indent(smp_buf *b, size_t depth)
{
	static const char nl[] = "\n                                                                ";
	size_t n = 1 + 4 * depth;

	if (n <= sizeof(nl) - 1) {
		put(b, nl, n);
		return;
	}
	put(b, nl, sizeof(nl) - 1);
	for (n -= sizeof(nl) - 1; n > 64; n -= 64)
		put(b, nl + 1, 64);
	put(b, nl + 1, n);
}

static int print_json(smp_buf *b, const smp_value *root, bool indent, bool sort,
                      bool go_escape, smp_error *err)
{
	pframe *st = NULL;
	size_t depth = 0, cap = 0;
	const smp_value *v = root;
	int rc = 0;

	for (;;) {
		/* Emit v: open a container or print a scalar. */
		if (v) {
			bool open = (v->type == SMP_LIST && v->u.list.len) ||
			            (v->type == SMP_MAP && v->u.map.len);
			if (!open) {
				if ((rc = put_json_scalar(b, v, go_escape, err)))
					goto out;
			} else {
				if (depth == cap) {
					size_t ncap = cap ? cap * 2 : 16;
					pframe *ns = realloc(st, ncap * sizeof(*ns));
					if (!ns) {
						rc = SMP_ENOMEM;
						goto out;
					}
					st = ns;
					cap = ncap;
				}
				pframe *f = &st[depth++];
				f->c = v;
				f->i = 0;
				f->members = NULL;
				if (v->type == SMP_MAP) {
					f->n = v->u.map.len;
					if ((rc = smp_sorted_members(&f->members, v, sort))) {
						depth--;
						goto out;
					}
					put1(b, '{');
				} else {
					f->n = v->u.list.len;
					put1(b, '[');
				}
			}
			v = NULL;
		}
		if (depth == 0)
			break;
		pframe *f = &st[depth - 1];
		if (f->i == f->n) {
			bool map = f->c->type == SMP_MAP;
			free(f->members);
			depth--;
			if (indent)
				newline_indent(b, depth);
			put1(b, map ? '}' : ']');
			continue;
		}
		if (f->i)
			put1(b, ',');
		if (indent)
			newline_indent(b, depth);
		if (f->c->type == SMP_MAP) {
			const smp_member *m =
				f->members ? f->members[f->i] : &f->c->u.map.items[f->i];
			smp_json_put_string(b, m->key, m->klen, go_escape);
			if (indent)
				put(b, ": ", 2);
			else
				put1(b, ':');
			v = m->val;
		} else {
			v = f->c->u.list.items[f->i];
		}
		f->i++;
		if (!v) {
			rc = smp_err_set(err, SMP_EINTERNAL, NULL, 0, 0, NULL,
			                 "smp_print: NULL value in tree");
			goto out;
		}
	}
	if (indent)
		smp_buf_putc(b, '\n');
out:
	while (depth)
		free(st[--depth].members);
	free(st);
	return rc;
}

int smp_print(char **out, size_t *len, const smp_value *v, const smp_print_options *opts,
              smp_error *err)
{
	smp_print_options def = SMP_PRINT_OPTIONS_INIT;
	smp_buf b;
	int rc;

	if (out)
		*out = NULL;
	if (len)
		*len = 0;
	if (!opts)
		opts = &def;
	if (!out || !v || opts->version != SMP_PRINT_OPTIONS_VERSION)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "smp_print: invalid arguments");
	smp_buf_init(&b);
	smp_c_locale loc;
	smp_c_locale_enter(&loc);
	switch (opts->output) {
	case SMP_OUT_JSON:
	case SMP_OUT_JSON_INDENT:
		rc = print_json(&b, v, opts->output == SMP_OUT_JSON_INDENT, opts->sort_keys,
		                opts->go_escape, err);
		break;
	case SMP_OUT_YAML:
		rc = smp_yaml_print(&b, v, opts->sort_keys, err);
		break;
	default:
		rc = smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                 "smp_print: unknown output format %d", (int)opts->output);
		break;
	}
	smp_c_locale_leave(&loc);
	if (rc) {
		if (rc == SMP_ENOMEM)
			smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
		smp_buf_release(&b);
		return rc;
	}
	smp_buf_put(&b, "", 0); /* the NUL the fast appends left out */
	*out = smp_buf_detach(&b, len);
	if (!*out)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	return 0;
}
