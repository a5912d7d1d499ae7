/*
 * print.c - smp_print: compact and indented JSON exactly as Go's
 * encoding/json writes them (kubectl -o json), and the dispatch to the
 * YAML printer.
 *
 * The printers walk the tree with an explicit stack, so a tree of any depth
 * (the merge engine builds trees too) cannot overflow the C stack.
 */
#include "codec.h"
#include "simd.h"

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

/* The printer's output: a buffer, and when streaming, where it goes. */
typedef struct pout {
	smp_buf *b;
	smp_write_fn write;   /* NULL: everything stays in b */
	void *ctx;
	int wrc;              /* SMP_EIO once a write failed */
	smp_c_locale *loc;    /* switched back around the callback */
} pout;

/* From this many bytes in the buffer on, a streaming printer hands them
 * to the write callback. */
#define FLUSH_AT ((size_t)64 << 10)
/* Long strings are escaped this many input bytes at a time (room for
 * 6 output bytes each), with a chance to flush in between: a piece handed
 * to the callback stays under FLUSH_AT + 6 * STR_SEG + a line of
 * indentation, well under 128 KiB. */
#define STR_SEG ((size_t)8 << 10)

static void flush(pout *po)
{
	if (!po->write || po->b->oom || po->b->len == 0)
		return;
	if (!po->wrc) {
		/* The callback runs in the caller's locale, not ours. */
		locale_t ours = po->loc && po->loc->c ? uselocale(po->loc->old) : (locale_t)0;
		if (po->write(po->ctx, po->b->ptr, po->b->len) != 0)
			po->wrc = SMP_EIO;
		if (ours)
			uselocale(ours);
	}
	po->b->len = 0;
}

static inline void maybe_flush(pout *po)
{
	if (po && po->write && po->b->len >= FLUSH_AT)
		flush(po);
}

/*
 * s as a JSON string literal the way Go's encoding/json writes it. Plain
 * bytes are copied a chunk (simd.h) at a time straight into the buffer,
 * whose room is reserved up front (6 output bytes per input byte, for a
 * segment of a long string at a time).
 */
static void put_string(smp_buf *b, pout *po, const char *s, size_t n, bool go_escape)
{
	const unsigned char *q = (const unsigned char *)s, *end = q + n;
	char *o, *oend;
	size_t rest = n < STR_SEG ? n : STR_SEG;

	if (!smp_buf_reserve(b, rest * 6 + SMP_CHUNK + 16))
		return;
	o = b->ptr + b->len;
	oend = o + rest * 6 + SMP_CHUNK + 16;
	*o++ = '"';
	while (q < end) {
		if (oend - o < SMP_CHUNK + 8) {
			b->len = (size_t)(o - b->ptr);
			maybe_flush(po);
			rest = (size_t)(end - q) < STR_SEG ? (size_t)(end - q) : STR_SEG;
			if (!smp_buf_reserve(b, rest * 6 + SMP_CHUNK + 16))
				return;
			o = b->ptr + b->len;
			oend = o + rest * 6 + SMP_CHUNK + 16;
		}
		if (end - q >= SMP_CHUNK) {
			memcpy(o, q, SMP_CHUNK);
			size_t k = smp_json_special(q, go_escape);
			o += k;
			q += k;
			if (k == SMP_CHUNK)
				continue;
		} else {
			while (q < end && !smp_json_special_byte(*q, go_escape))
				*o++ = (char)*q++;
			if (q >= end)
				break;
		}
		unsigned char c = *q;
		if (c == '"') {
			/* JSON inside a string (the last-applied annotation). */
			o[0] = '\\';
			o[1] = '"';
			o += 2;
			q++;
			continue;
		}
		if (c < 0x80) {
			char e = 0;
			switch (c) {
			case '"': e = '"'; break;
			case '\\': e = '\\'; break;
			case '\b': e = 'b'; break;
			case '\f': e = 'f'; break;
			case '\n': e = 'n'; break;
			case '\r': e = 'r'; break;
			case '\t': e = 't'; break;
			}
			o[0] = '\\';
			if (e) {
				o[1] = e;
				o += 2;
			} else {
				memcpy(o + 1, "u00", 3);
				o[4] = hexd[c >> 4];
				o[5] = hexd[c & 15];
				o += 6;
			}
			q++;
			continue;
		}
		uint32_t cp;
		size_t len = smp_utf8_decode(q, (size_t)(end - q), &cp);
		if (len == 0) {
			/* Go replaces each invalid byte with U+FFFD. */
			memcpy(o, "\\ufffd", 6);
			o += 6;
			q++;
		} else if (cp == 0x2028 || cp == 0x2029) {
			/* Go always escapes these (they end lines in JavaScript). */
			memcpy(o, cp == 0x2028 ? "\\u2028" : "\\u2029", 6);
			o += 6;
			q += len;
		} else {
			memcpy(o, q, len);
			o += len;
			q += len;
		}
	}
	*o++ = '"';
	b->len = (size_t)(o - b->ptr);
}

void smp_json_put_string(smp_buf *b, const char *s, size_t n, bool go_escape)
{
	put_string(b, NULL, s, n, go_escape);
}

/* Scalars (anything but a non-empty list or map). */
static int put_json_scalar(pout *po, const smp_value *v, bool go_escape, smp_error *err)
{
	smp_buf *b = po->b;
	char num[40];
	int rc;

	switch (v->type) {
	case SMP_NULL:
		put(b, "null", 4);
		break;
	case SMP_BOOL:
		if (v->u.b)
			put(b, "true", 4);
		else
			put(b, "false", 5);
		break;
	case SMP_INT:
		put(b, num, smp_format_int(num, v->u.i));
		break;
	case SMP_FLOAT:
		if ((rc = smp_float_check(v, err)))
			return rc;
		put(b, num, smp_format_float(num, v->u.f));
		break;
	case SMP_STRING:
		put_string(b, po, v->u.s.ptr, v->u.s.len, go_escape);
		break;
	case SMP_LIST:
		put(b, "[]", 2);
		break;
	case SMP_MAP:
		put(b, "{}", 2);
		break;
	}
	return 0;
}

typedef struct pframe {
	const smp_value *c;
	const smp_member **members; /* maps: entries in print order */
	size_t i, n;
} pframe;

static void newline_indent(smp_buf *b, pout *po, size_t depth)
{
	static const char nl[] = "\n                                                                ";
	size_t n = 1 + 4 * depth;

	if (n <= sizeof(nl) - 1) {
		put(b, nl, n);
		return;
	}
	put(b, nl, sizeof(nl) - 1);
	/* A deep tree's indentation alone can exceed a piece: hand it over
	 * as it grows (smp_print_to's pieces stay within their bound). */
	for (n -= sizeof(nl) - 1; n > 64; n -= 64) {
		put(b, nl + 1, 64);
		maybe_flush(po);
	}
	put(b, nl + 1, n);
}

/* JSON of root without recursion (a stack of frames): compact or
 * indented as encoding/json's MarshalIndent, keys sorted when asked,
 * strings escaped as Go escapes them (<, >, & and U+2028/9) with
 * go_escape; numbers as Go prints float64 and int64. */
static int print_json(pout *po, const smp_value *root, bool indent, bool sort,
                      bool go_escape, smp_error *err)
{
	smp_buf *b = po->b;
	pframe *st = NULL;
	size_t depth = 0, cap = 0;
	const smp_value *v = root;
	int rc = 0;

	for (;;) {
		maybe_flush(po);
		if (po->wrc) {
			/* The write callback failed: no point going on. */
			rc = po->wrc;
			goto out;
		}
		/* Emit v: open a container or print a scalar. */
		if (v) {
			bool open = (v->type == SMP_LIST && v->u.list.len) ||
			            (v->type == SMP_MAP && v->u.map.len);
			if (!open) {
				if ((rc = put_json_scalar(po, v, go_escape, err)))
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
				newline_indent(b, po, depth);
			put1(b, map ? '}' : ']');
			continue;
		}
		if (f->i)
			put1(b, ',');
		if (indent)
			newline_indent(b, po, depth);
		if (f->c->type == SMP_MAP) {
			const smp_member *m = smp_member_at(f->members, f->c, f->i);
			put_string(b, po, m->key, m->klen, go_escape);
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
			rc = smp__err(err, SMP_EINTERNAL, "smp_print: NULL value in tree");
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

static int check_args(const smp_value *v, const smp_print_options *opts, smp_error *err)
{
	if (!v || opts->version != SMP_PRINT_OPTIONS_VERSION)
		return smp__err(err, SMP_EINVAL, "smp_print: invalid arguments");
	if (opts->output != SMP_OUT_JSON && opts->output != SMP_OUT_JSON_INDENT &&
	    opts->output != SMP_OUT_YAML)
		return smp__err(err, SMP_EINVAL,
		                "smp_print: unknown output format %d", (int)opts->output);
	return 0;
}

/* Prints into po->b (streaming to po->write when set). */
static int print_any(pout *po, const smp_value *v, const smp_print_options *opts,
                     smp_error *err)
{
	smp_c_locale loc;
	int rc;

	smp_c_locale_enter(&loc);
	po->loc = &loc;
	if (opts->output == SMP_OUT_YAML)
		rc = smp_yaml_print(po->b, v, opts->sort_keys, err);
	else
		rc = print_json(po, v, opts->output == SMP_OUT_JSON_INDENT, opts->sort_keys,
		                opts->go_escape, err);
	if (rc == 0 && po->b->oom)
		rc = SMP_ENOMEM;
	if (rc == 0)
		flush(po);
	po->loc = NULL;
	smp_c_locale_leave(&loc);
	if (rc == SMP_ENOMEM)
		smp__err(err, SMP_ENOMEM, "out of memory");
	return rc;
}

int smp_print_buf(smp_buf *b, const smp_value *v, const smp_print_options *opts,
                  smp_error *err)
{
	pout po = {b, NULL, NULL, 0, NULL};
	int rc;

	if ((rc = check_args(v, opts, err)) || (rc = print_any(&po, v, opts, err)))
		return rc;
	smp_buf_put(b, "", 0); /* the NUL the fast appends left out */
	return b->oom ? smp__err(err, SMP_ENOMEM, "out of memory") : 0;
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
	if (!out)
		return smp__err(err, SMP_EINVAL, "smp_print: invalid arguments");
	smp_buf_init(&b);
	if ((rc = smp_print_buf(&b, v, opts, err))) {
		smp_buf_release(&b);
		return rc;
	}
	*out = smp_buf_detach(&b, len);
	if (!*out)
		return smp__err(err, SMP_ENOMEM, "out of memory");
	return 0;
}

/*
 * Whether printing v as JSON can fail for a reason other than memory: a
 * float JSON cannot hold or a NULL value (a bug elsewhere). A walk without
 * output, so that a streamed print fails before its first byte.
 */
static bool json_printable(const smp_value *root, bool *nomem)
{
	const smp_value *small[64], **st = small;
	size_t depth = 0, cap = 64;
	bool ok = true;

	*nomem = false;
	st[depth++] = root;
	while (depth && ok) {
		const smp_value *v = st[--depth];
		if (!v) {
			ok = false;
			break;
		}
		switch (v->type) {
		case SMP_FLOAT:
			ok = isfinite(v->u.f);
			break;
		case SMP_LIST:
		case SMP_MAP: {
			size_t n = v->type == SMP_LIST ? v->u.list.len : v->u.map.len;
			if (n > cap - depth) {
				size_t ncap = cap;
				while (n > ncap - depth)
					ncap *= 2;
				const smp_value **ns = st == small ? malloc(ncap * sizeof(*ns))
				                                   : realloc(st, ncap * sizeof(*ns));
				if (!ns) {
					*nomem = true;
					ok = false;
					break;
				}
				if (st == small)
					memcpy(ns, small, depth * sizeof(*ns));
				st = ns;
				cap = ncap;
			}
			/* Only containers and floats need a look. */
			for (size_t i = 0; i < n; i++) {
				const smp_value *c = v->type == SMP_LIST ? v->u.list.items[i]
				                                         : v->u.map.items[i].val;
				if (!c || c->type >= SMP_LIST || c->type == SMP_FLOAT)
					st[depth++] = c;
			}
			break;
		}
		default:
			break;
		}
	}
	if (st != small)
		free(st);
	return ok;
}

int smp_print_to(smp_write_fn write, void *ctx, const smp_value *v,
                 const smp_print_options *opts, smp_error *err)
{
	smp_print_options def = SMP_PRINT_OPTIONS_INIT;
	smp_buf b;
	pout po = {&b, write, ctx, 0, NULL};
	int rc;

	if (!opts)
		opts = &def;
	if (!write)
		return smp__err(err, SMP_EINVAL, "smp_print_to: invalid arguments");
	if ((rc = check_args(v, opts, err)))
		return rc;
	smp_buf_init(&b);
	if (opts->output == SMP_OUT_YAML) {
		/* The YAML printer can fail anywhere (depth): it prints into
		 * memory, which is then written out in pieces. */
		po.write = NULL;
		rc = print_any(&po, v, opts, err);
		for (size_t off = 0; rc == 0 && off < b.len; off += FLUSH_AT) {
			size_t n = b.len - off < FLUSH_AT ? b.len - off : FLUSH_AT;
			if (write(ctx, b.ptr + off, n) != 0)
				rc = SMP_EIO;
		}
	} else {
		bool nomem;
		if (!json_printable(v, &nomem)) {
			/* Let the printer find (and report) the failure, in memory,
			 * so nothing is written. */
			po.write = NULL;
			rc = nomem ? SMP_ENOMEM : print_any(&po, v, opts, err);
			if (rc == 0)
				rc = smp__err(err, SMP_EINTERNAL,
				              "smp_print_to: unprintable tree printed");
			else if (rc == SMP_ENOMEM)
				smp__err(err, SMP_ENOMEM, "out of memory");
		} else {
			rc = print_any(&po, v, opts, err);
			if (rc == 0)
				rc = po.wrc;
		}
	}
	if (rc == SMP_EIO)
		smp__err(err, SMP_EIO, "smp_print_to: write failed");
	smp_buf_release(&b);
	return rc;
}
