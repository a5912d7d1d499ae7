/*
 * yaml_read.c - YAML stream -> document tree, with libyaml's event API.
 *
 * Values are built as events arrive, with an explicit stack (no recursion),
 * so nesting is bounded by opts->max_depth before libyaml goes any deeper.
 * Scalars resolve as kubectl resolves them (resolve.c). Anchors are kept in
 * a hash table; an alias deep-copies the anchored value (later edits of one
 * copy must not show in another), and every copied node counts against
 * opts->max_alias_nodes, which stops billion-laughs documents before they
 * allocate. Merge keys follow go-yaml v2: entries are applied in document
 * order and later ones overwrite earlier ones (an explicit key written
 * before `<<` is overwritten by the merge, one written after it wins); in a
 * sequence of maps the earlier maps win.
 */
#include "codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct anchor {
	const char *name;   /* scratch arena */
	size_t nlen;
	smp_value *v;       /* containers: the value being / been built */
	bool done;
	size_t size;        /* nodes in the value (keys included) */
	size_t height;      /* nesting levels of the value */
	/* scalars: the raw scalar, resolved again on each use (as a value or
	 * as a key, which resolve differently) */
	bool scalar;
	const char *text, *tag;
	size_t tlen;
	bool plain;
	uint32_t line, col;
} anchor;

typedef struct yframe {
	smp_value *c;
	smp_keyset ks;
	smp_scratch items;  /* c's items while it is open */
	bool has_key;       /* maps: a key was read, its value comes next */
	bool merge;         /* ... and the key is << */
	const char *key;
	size_t klen;
	uint32_t kline, kcol;
	ptrdiff_t anchor;   /* anchor of this container, or -1 */
	size_t start_nodes;
	size_t height;      /* max height of the children so far */
} yframe;

typedef struct yr {
	yaml_parser_t parser;
	const char *buf;
	size_t len;
	smp_doc *doc;
	smp_arena *a;
	const smp_pctx *pc;
	smp_arena scratch;  /* anchor names and raw anchored scalars */
	yframe *st;
	size_t depth, cap;
	anchor *anchors;
	size_t nanchors, acap;
	uint32_t *aslots;   /* name hash -> anchor index + 1 */
	size_t aslot_cap;
	size_t nodes, alias_nodes;
	smp_value *root;
	bool nonfinite;     /* a NaN or infinity was read in this document */
	uint32_t base_line; /* line of the current chunk's start, 0-based */
	const char *chunk;  /* the piece libyaml reads (maybe a rewritten copy) */
	size_t chunk_len;
	/* kubectl's line reader ends every line with '\n', the last one of a
	 * file too: a piece that lacks it is read with one more (so a block
	 * scalar at the end of a file keeps its final line break). */
	bool add_nl;
	size_t fed;         /* bytes of the piece given to libyaml so far */
	int fix;            /* a libyaml/go-yaml difference to rewrite, FIX_* */
	size_t fix_a, fix_b;
	/* libyaml's mark.index counts characters, not bytes (and not a
	 * leading BOM): a cursor turns them into byte offsets. Marks mostly
	 * grow, so the cursor mostly moves forward. */
	size_t cur_char, cur_byte;
} yr;

/* Where libyaml 0.2.5 rejects what go-yaml v2 (kubectl) accepts, the piece
 * is rewritten to what go-yaml reads and parsed again. */
enum {
	FIX_NONE = 0,
	FIX_FLOW_COLON, /* [x:, y]: go-yaml reads the plain scalar "x:" */
	FIX_SQUOTE_ESC  /* "\'": go-yaml knows this escape */
};
#define MAX_FIXES 64

static int fail(yr *r, int code, uint32_t line, uint32_t col, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;

static int fail(yr *r, int code, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	smp_err_setv(r->pc->err, code, r->pc->file, line, col, NULL, fmt, ap);
	va_end(ap);
	return code;
}

static int oom(yr *r)
{
	return fail(r, SMP_ENOMEM, 0, 0, "out of memory");
}

/* Byte offset in the piece of libyaml's character index `idx`. */
static size_t char_to_byte(yr *r, size_t idx)
{
	const unsigned char *p = (const unsigned char *)r->chunk;
	size_t n = r->chunk_len;

	if (idx < r->cur_char) {
		r->cur_char = 0;
		r->cur_byte = n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
	}
	while (r->cur_char < idx && r->cur_byte < n) {
		unsigned char c = p[r->cur_byte];
		r->cur_byte += c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		r->cur_char++;
	}
	if (r->cur_byte > n)
		r->cur_byte = n;
	return r->cur_byte;
}

/* Line and column of a byte offset in the current piece. */
static void offset_pos(const yr *r, size_t off, uint32_t *line, uint32_t *col)
{
	uint32_t l = r->base_line + 1;
	size_t ls = 0;

	if (off > r->chunk_len)
		off = r->chunk_len;
	for (size_t i = 0; i < off; i++)
		if (r->chunk[i] == '\n') {
			l++;
			ls = i + 1;
		}
	/* Columns count characters, as libyaml's marks do (not a BOM). */
	uint32_t c = 1;
	if (ls == 0 && r->chunk_len >= 3 && memcmp(r->chunk, "\xef\xbb\xbf", 3) == 0)
		ls = off < 3 ? off : 3;
	for (size_t i = ls; i < off; i++)
		if (((unsigned char)r->chunk[i] & 0xc0) != 0x80)
			c++;
	*line = l;
	*col = c;
}

/* libyaml's error as a parse error: the problem in go-yaml's words and
 * the place (file:line:col) where libyaml saw it. */
static int libyaml_error(yr *r)
{
	yaml_parser_t *p = &r->parser;
	uint32_t line, col;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return oom(r);
	case YAML_READER_ERROR:
		offset_pos(r, p->problem_offset, &line, &col);
		if (p->problem_value != -1)
			return fail(r, SMP_EPARSE, line, col, "invalid YAML: %s (byte 0x%02x)",
			            p->problem ? p->problem : "cannot read input",
			            (unsigned)p->problem_value & 0xffu);
		return fail(r, SMP_EPARSE, line, col, "invalid YAML: %s",
		            p->problem ? p->problem : "cannot read input");
	default:
		if (p->error == YAML_SCANNER_ERROR && p->problem) {
			size_t from = char_to_byte(r, p->context_mark.index);
			size_t at = char_to_byte(r, p->problem_mark.index);
			if (strcmp(p->problem, "found unexpected ':'") == 0 && from < at &&
			    at < r->chunk_len && r->chunk[at] == ':' &&
			    !memchr(r->chunk + from, '\'', at - from) &&
			    !memchr(r->chunk + from, '"', at - from)) {
				/* Only a genuine plain scalar is quoted, so a
				 * rewrite can never feed on its own quotes. */
				r->fix = FIX_FLOW_COLON;
				r->fix_a = from;
				r->fix_b = at + 1;
			} else if (strcmp(p->problem, "found unknown escape character") == 0 &&
			           at + 1 < r->chunk_len && r->chunk[at] == '\\' &&
			           r->chunk[at + 1] == '\'') {
				r->fix = FIX_SQUOTE_ESC;
				r->fix_a = at;
			}
		}
		line = r->base_line + (uint32_t)p->problem_mark.line + 1;
		col = (uint32_t)p->problem_mark.column + 1;
		if (p->context)
			return fail(r, SMP_EPARSE, line, col, "invalid YAML: %s %s (line %u)",
			            p->problem ? p->problem : "syntax error", p->context,
			            (unsigned)(r->base_line + p->context_mark.line + 1));
		return fail(r, SMP_EPARSE, line, col, "invalid YAML: %s",
		            p->problem ? p->problem : "syntax error");
	}
}

/* ---- anchors ---- */

static void anchors_reset(yr *r)
{
	r->nanchors = 0;
	if (r->aslot_cap)
		memset(r->aslots, 0, r->aslot_cap * sizeof(*r->aslots));
}

static ptrdiff_t anchor_find(yr *r, const char *name, size_t n)
{
	if (!r->aslot_cap)
		return -1;
	size_t mask = r->aslot_cap - 1, s = smp_hash_bytes(name, n) & mask;
	while (r->aslots[s]) {
		anchor *an = &r->anchors[r->aslots[s] - 1];
		if (an->nlen == n && memcmp(an->name, name, n) == 0)
			return (ptrdiff_t)(r->aslots[s] - 1);
		s = (s + 1) & mask;
	}
	return -1;
}

static void aslot_insert(yr *r, size_t idx)
{
	size_t mask = r->aslot_cap - 1;
	size_t s = smp_hash_bytes(r->anchors[idx].name, r->anchors[idx].nlen) & mask;

	while (r->aslots[s])
		s = (s + 1) & mask;
	r->aslots[s] = (uint32_t)(idx + 1);
}

/* The anchor entry for `name`, new or redefined (a later &x replaces x). */
static anchor *anchor_define(yr *r, const char *name, ptrdiff_t *idx)
{
	size_t n = strlen(name);
	ptrdiff_t i = anchor_find(r, name, n);
	anchor *an;

	if (i < 0) {
		if (r->nanchors == r->acap) {
			size_t ncap = r->acap ? r->acap * 2 : 16;
			anchor *na = realloc(r->anchors, ncap * sizeof(*na));
			if (!na)
				return NULL;
			r->anchors = na;
			r->acap = ncap;
		}
		if (2 * (r->nanchors + 1) > r->aslot_cap) {
			size_t ncap = r->aslot_cap ? r->aslot_cap * 2 : 32;
			uint32_t *ns = calloc(ncap, sizeof(*ns));
			if (!ns)
				return NULL;
			free(r->aslots);
			r->aslots = ns;
			r->aslot_cap = ncap;
			for (size_t k = 0; k < r->nanchors; k++)
				aslot_insert(r, k);
		}
		i = (ptrdiff_t)r->nanchors++;
		an = &r->anchors[i];
		an->name = smp_arena_strndup(&r->scratch, name, n);
		if (!an->name) {
			r->nanchors--;
			return NULL;
		}
		an->nlen = n;
		aslot_insert(r, (size_t)i);
	}
	an = &r->anchors[i];
	an->v = NULL;
	an->done = false;
	an->scalar = false;
	an->size = an->height = 0;
	*idx = i;
	return an;
}

/* ---- building ---- */

static yframe *top(yr *r)
{
	return r->depth ? &r->st[r->depth - 1] : NULL;
}

static bool key_position(yr *r)
{
	yframe *f = top(r);
	return f && f->c->type == SMP_MAP && !f->has_key;
}

static int dup_error(yr *r, yframe *f, size_t i)
{
	uint32_t l1, c1;

	smp_keyset_pos(&f->ks, i, &l1, &c1);
	return smp_dup_key_error(r->pc, f->key, f->klen, l1, c1, f->kline, f->kcol);
}

/* Sets an entry written in the document. The recorded line is 0 for an
 * entry that only came from a merge, so a second explicit key is an error
 * while an explicit key over a merged one is not. */
static int map_set_explicit(yr *r, yframe *f, smp_value *v)
{
	ptrdiff_t i = smp_keyset_find(&f->ks, f->c, f->key, f->klen);

	if (i < 0)
		return smp_scratch_room(&f->items, f->c) ||
		               smp_keyset_add(&f->ks, r->a, f->c, f->key, f->klen, v, f->kline,
		                              f->kcol)
		               ? oom(r)
		               : 0;
	if (f->ks.pos[2 * i] != 0 && !r->pc->allow_dup)
		return dup_error(r, f, (size_t)i);
	f->c->u.map.items[i].val = v;
	f->ks.pos[2 * i] = f->kline;
	f->ks.pos[2 * i + 1] = f->kcol;
	return 0;
}

static int merge_map(yr *r, yframe *f, const smp_value *src)
{
	for (size_t k = 0; k < src->u.map.len; k++) {
		const smp_member *m = &src->u.map.items[k];
		ptrdiff_t i = smp_keyset_find(&f->ks, f->c, m->key, m->klen);
		if (i >= 0) {
			f->c->u.map.items[i].val = m->val;
		} else if (smp_scratch_room(&f->items, f->c) ||
		           smp_keyset_add(&f->ks, r->a, f->c, m->key, m->klen, m->val, 0, 0)) {
			return oom(r);
		}
	}
	return 0;
}

static int merge_value(yr *r, yframe *f, smp_value *v)
{
	if (v->type == SMP_MAP)
		return merge_map(r, f, v);
	if (v->type == SMP_LIST) {
		for (size_t k = 0; k < v->u.list.len; k++)
			if (v->u.list.items[k]->type != SMP_MAP)
				goto bad;
		/* Backwards: earlier maps take precedence. */
		for (size_t k = v->u.list.len; k-- > 0;) {
			int rc = merge_map(r, f, v->u.list.items[k]);
			if (rc)
				return rc;
		}
		return 0;
	}
bad:
	return fail(r, SMP_EPARSE, f->kline, f->kcol,
	            "map merge requires map or sequence of maps as the value");
}

/* Hands a finished value to its parent (or makes it the document root). */
static int deliver(yr *r, smp_value *v, size_t height)
{
	yframe *f = top(r);
	int rc;

	if (!f) {
		r->root = v;
		return 0;
	}
	if (height > f->height)
		f->height = height;
	if (f->c->type == SMP_LIST)
		return smp_scratch_room(&f->items, f->c) || smpv_list_add(r->a, f->c, v) ? oom(r) : 0;
	f->has_key = false;
	if (f->merge) {
		f->merge = false;
		return merge_value(r, f, v);
	}
	rc = map_set_explicit(r, f, v);
	return rc;
}

/* go-yaml's guard against alias bombs (decode.go allowedAliasRatio), which
 * kubectl applies on top of our absolute limit. */
static double allowed_alias_ratio(size_t decodes)
{
	if (decodes <= 400000)
		return 0.99;
	if (decodes >= 4000000)
		return 0.10;
	return 0.99 - 0.89 * ((double)(decodes - 400000) / 3600000.0);
}

/* go-yaml runs this check at every node it decodes; so do we, once
 * aliases are in play (the ratio only grows during an alias expansion, so
 * checking at its end is the same). */
static int ratio_check(yr *r, uint32_t line, uint32_t col)
{
	if (r->alias_nodes > 100 && r->nodes > 1000 &&
	    (double)r->alias_nodes / (double)r->nodes > allowed_alias_ratio(r->nodes))
		return fail(r, SMP_ELIMIT, line, col,
		            "document contains excessive aliasing (as go-yaml rejects it)");
	return 0;
}

/* ---- scalars ---- */

/* A !!binary scalar: its base64 decoded, as a string (invalid UTF-8
 * replaced, as kubectl's decoder does). */
static int binary(yr *r, smp_value **out, const char *s, size_t n, uint32_t line, uint32_t col)
{
	char *d = smp_arena_alloc(r->a, n + 1);
	size_t dl;

	if (!d)
		return oom(r);
	if (smp_base64_decode(d, &dl, s, n))
		return fail(r, SMP_EPARSE, line, col, "!!binary value contains invalid base64 data");
	d[dl] = '\0';
	return (*out = smp_str_sanitized(r->a, d, dl)) ? 0 : oom(r);
}

/* A YAML scalar's value as kubectl reads it (smp_resolve: go-yaml's
 * resolution, then the JSON round trip), at line:col for errors. */
static int scalar_value(yr *r, const char *s, size_t n, const char *tag, bool plain,
                        uint32_t line, uint32_t col, smp_value **out)
{
	smp_scalar sc;
	char msg[200];
	smp_value *v = NULL;
	int rc;

	if (smp_resolve(&sc, s, n, tag, plain, msg, sizeof(msg)))
		return fail(r, SMP_EPARSE, line, col, "%s", msg);
	switch (sc.kind) {
	case SMP_RS_NULL:
		v = smpv_null(r->a);
		break;
	case SMP_RS_BOOL:
		v = smpv_bool(r->a, sc.b);
		break;
	case SMP_RS_INT:
		v = smpv_int(r->a, sc.i);
		break;
	case SMP_RS_UINT:
		/* JSON text of a uint64 above INT64_MAX reads back as a float. */
		v = smpv_float(r->a, (double)sc.u);
		break;
	case SMP_RS_FLOAT:
		rc = smp_float_to_value(r->a, sc.f, &v);
		if (rc == SMP_EINVAL) {
			/* kubectl fails only when json.Marshal meets it, i.e. if
			 * no later duplicate or merge replaces it: checked at the
			 * end of the document. */
			v = smpv_float(r->a, sc.f);
			r->nonfinite = true;
		}
		break;
	case SMP_RS_BINARY:
		if ((rc = binary(r, &v, s, n, line, col)))
			return rc;
		break;
	default:
		v = smpv_str(r->a, s, n);
		break;
	}
	if (!v)
		return oom(r);
	v->line = line;
	v->col = SMPV_COL(col);
	r->nodes++;
	*out = v;
	return r->alias_nodes > 100 ? ratio_check(r, line, col) : 0;
}

/* A scalar in key position: the string sigs.k8s.io/yaml makes of it. */
static int scalar_key(yr *r, yframe *f, const char *s, size_t n, const char *tag,
                      bool plain, uint32_t line, uint32_t col)
{
	smp_scalar sc;
	char msg[200], num[40];
	const char *k = NULL;
	size_t kl = 0;
	int rc;

	f->kline = line;
	f->kcol = col;
	f->has_key = true;
	f->merge = false;
	r->nodes++;
	if (r->alias_nodes > 100 && (rc = ratio_check(r, line, col)))
		return rc;
	if (n == 2 && s[0] == '<' && s[1] == '<' &&
	    (plain || (tag && strcmp(tag, "tag:yaml.org,2002:merge") == 0))) {
		f->merge = true;
		return 0;
	}
	if (smp_resolve(&sc, s, n, tag, plain, msg, sizeof(msg)))
		return fail(r, SMP_EPARSE, line, col, "%s", msg);
	switch (sc.kind) {
	case SMP_RS_NULL:
		return fail(r, SMP_EPARSE, line, col, "unsupported map key: null");
	case SMP_RS_UINT:
		return fail(r, SMP_EPARSE, line, col,
		            "unsupported map key of type uint64: %.*s", n > 40 ? 40 : (int)n, s);
	case SMP_RS_BOOL:
		k = sc.b ? "true" : "false";
		kl = strlen(k);
		break;
	case SMP_RS_INT:
		kl = (size_t)snprintf(num, sizeof(num), "%lld", (long long)sc.i);
		k = num;
		break;
	case SMP_RS_FLOAT:
		kl = smp_format_float_g(num, sc.f, true);
		k = num;
		break;
	case SMP_RS_BINARY: {
		smp_value *sv;

		if ((rc = binary(r, &sv, s, n, line, col)))
			return rc;
		f->key = sv->u.s.ptr;
		f->klen = sv->u.s.len;
		return 0;
	}
	default:
		k = s;
		kl = n;
		break;
	}
	f->key = smp_arena_strndup(r->a, k, kl);
	f->klen = kl;
	return f->key ? 0 : oom(r);
}

/* libyaml 0.2.5 accepts "\/" in double-quoted scalars; go-yaml, and so
 * kubectl, reject it ("found unknown escape character"). libyaml hands us
 * the decoded text, so look at the source. */
static int check_escapes(yr *r, const yaml_event_t *ev)
{
	size_t a = char_to_byte(r, ev->start_mark.index);
	size_t b = char_to_byte(r, ev->end_mark.index);

	if (b > r->chunk_len)
		b = r->chunk_len;
	for (size_t i = a + 1; i + 1 < b; i++) {
		if (r->chunk[i] != '\\')
			continue;
		if (r->chunk[i + 1] == '/') {
			uint32_t line, col;
			offset_pos(r, i, &line, &col);
			return fail(r, SMP_EPARSE, line, col,
			            "invalid YAML: found unknown escape character \\/ (kubectl's "
			            "YAML reader has no such escape)");
		}
		i++; /* skip the escaped character */
	}
	return 0;
}

static int on_scalar(yr *r, yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	size_t n = ev->data.scalar.length;
	const char *tag = (const char *)ev->data.scalar.tag;
	bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !tag;
	uint32_t line = r->base_line + (uint32_t)ev->start_mark.line + 1;
	uint32_t col = (uint32_t)ev->start_mark.column + 1;
	int rc;

	if (ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE &&
	    memchr(s, '/', n) && (rc = check_escapes(r, ev)))
		return rc;

	if (ev->data.scalar.anchor) {
		ptrdiff_t idx;
		anchor *an = anchor_define(r, (const char *)ev->data.scalar.anchor, &idx);
		if (!an)
			return oom(r);
		an->scalar = true;
		an->done = true;
		an->size = 1;
		an->text = smp_arena_strndup(&r->scratch, s, n);
		an->tlen = n;
		an->tag = tag ? smp_arena_strndup(&r->scratch, tag, strlen(tag)) : NULL;
		an->plain = plain;
		an->line = line;
		an->col = col;
		if (!an->text || (tag && !an->tag))
			return oom(r);
	}
	if (key_position(r))
		return scalar_key(r, top(r), s, n, tag, plain, line, col);
	smp_value *v;
	if ((rc = scalar_value(r, s, n, tag, plain, line, col, &v)))
		return rc;
	return deliver(r, v, 0);
}

/* ---- aliases ---- */

/* An alias: the anchored value again (shared, not copied), counted
 * against the alias-node limit (billion laughs); an unknown anchor is
 * go-yaml's error. */
static int on_alias(yr *r, yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	uint32_t line = r->base_line + (uint32_t)ev->start_mark.line + 1;
	uint32_t col = (uint32_t)ev->start_mark.column + 1;
	ptrdiff_t i = anchor_find(r, name, strlen(name));
	anchor *an;
	smp_value *v;
	int rc;

	if (i < 0)
		return fail(r, SMP_EPARSE, line, col, "unknown anchor '%s' referenced", name);
	an = &r->anchors[i];
	if (!an->done)
		return fail(r, SMP_EPARSE, line, col, "anchor '%s' value contains itself", name);
	if (an->size > r->pc->max_alias_nodes ||
	    r->alias_nodes > r->pc->max_alias_nodes - an->size)
		return fail(r, SMP_ELIMIT, line, col,
		            "aliases expand to more than %zu nodes (alias '%s')",
		            r->pc->max_alias_nodes, name);
	r->alias_nodes += an->size;
	r->nodes++; /* go-yaml counts the alias node itself too */
	if (an->scalar) {
		if (key_position(r))
			return scalar_key(r, top(r), an->text, an->tlen, an->tag, an->plain, line,
			                  col);
		if ((rc = scalar_value(r, an->text, an->tlen, an->tag, an->plain, line, col, &v)))
			return rc;
		r->nodes += an->size - 1;
	} else {
		if (key_position(r))
			return fail(r, SMP_EPARSE, line, col, "invalid map key: a %s",
			            an->v->type == SMP_MAP ? "mapping" : "sequence");
		if (r->depth + an->height > r->pc->max_depth)
			return fail(r, SMP_ELIMIT, line, col, "nesting deeper than %zu levels",
			            r->pc->max_depth);
		v = smpv_copy(r->a, an->v);
		if (!v)
			return oom(r);
		v->line = line;
		v->col = SMPV_COL(col);
		r->nodes += an->size;
	}
	if ((rc = ratio_check(r, line, col)))
		return rc;
	return deliver(r, v, an->scalar ? 0 : an->height);
}

/* ---- collections ---- */

/* The start of a mapping or sequence: a new container pushed on the
 * reader's stack (its anchor recorded), checked against the depth
 * limit. */
static int on_start(yr *r, yaml_event_t *ev, bool map)
{
	uint32_t line = r->base_line + (uint32_t)ev->start_mark.line + 1;
	uint32_t col = (uint32_t)ev->start_mark.column + 1;
	const yaml_char_t *anchor_name =
		map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
	smp_value *v;
	yframe *f;
	int rc;

	if (key_position(r))
		return fail(r, SMP_EPARSE, line, col, "invalid map key: a %s",
		            map ? "mapping" : "sequence");
	if (r->depth >= r->pc->max_depth)
		return fail(r, SMP_ELIMIT, line, col, "nesting deeper than %zu levels",
		            r->pc->max_depth);
	v = map ? smpv_map(r->a, 0) : smpv_list(r->a, 0);
	if (!v)
		return oom(r);
	v->line = line;
	v->col = SMPV_COL(col);
	if (r->depth == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 32;
		yframe *ns = realloc(r->st, ncap * sizeof(*ns));
		if (!ns)
			return oom(r);
		for (size_t k = r->cap; k < ncap; k++) {
			smp_keyset_init(&ns[k].ks);
			ns[k].items.p = NULL;
			ns[k].items.cap = 0;
		}
		r->st = ns;
		r->cap = ncap;
	}
	f = &r->st[r->depth++];
	f->c = v;
	f->has_key = f->merge = false;
	f->key = NULL;
	f->klen = 0;
	f->anchor = -1;
	f->start_nodes = r->nodes;
	f->height = 0;
	if (map)
		smp_keyset_reset(&f->ks);
	r->nodes++;
	if (r->alias_nodes > 100 && (rc = ratio_check(r, line, col)))
		return rc;
	if (anchor_name) {
		anchor *an = anchor_define(r, (const char *)anchor_name, &f->anchor);
		if (!an)
			return oom(r);
		an->v = v;
	}
	return 0;
}

static int on_end(yr *r)
{
	yframe *f = top(r);
	smp_value *v = f->c;
	size_t height = f->height + 1;

	if (smp_scratch_finish(&f->items, r->a, v))
		return oom(r);
	if (f->anchor >= 0) {
		anchor *an = &r->anchors[f->anchor];
		/* The anchor may have been redefined inside; only finish ours. */
		if (an->v == v) {
			an->done = true;
			an->height = height;
			an->size = r->nodes - f->start_nodes;
		}
	}
	r->depth--;
	return deliver(r, v, height);
}

/*
 * kubectl does not hand the whole stream to the YAML parser: its
 * YAMLReader first cuts the text at every line that starts with "---"
 * (the line itself is dropped; anything but white space or a # comment
 * after the dashes is an "invalid Yaml document separator" error), and
 * go-yaml then reads only the first document of each piece: a %YAML
 * directive makes its piece invalid and whatever follows "..." inside a
 * piece is ignored. We cut and read the same way.
 */
static bool go_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* The first NaN or infinity left in the finished document is an error, as
 * json.Marshal reports it in kubectl. Iterative: the tree may be deep. */
static int check_finite(yr *r, const smp_value *root)
{
	typedef struct {
		const smp_value *c;
		size_t i;
	} it;
	it *st = NULL;
	size_t n = 0, cap = 0;
	const smp_value *v = root;
	int rc = 0;

	for (;;) {
		if (v) {
			if (v->type == SMP_FLOAT && (v->u.f != v->u.f || v->u.f - v->u.f != 0)) {
				rc = fail(r, SMP_EPARSE, v->line, v->col,
				          "json: unsupported value: %s (kubectl cannot convert it to "
				          "JSON)",
				          v->u.f != v->u.f ? "NaN" : v->u.f > 0 ? "+Inf" : "-Inf");
				break;
			}
			if ((v->type == SMP_LIST && v->u.list.len) || (v->type == SMP_MAP && v->u.map.len)) {
				if (n == cap) {
					size_t nc = cap ? cap * 2 : 32;
					it *ns = realloc(st, nc * sizeof(*ns));
					if (!ns) {
						rc = oom(r);
						break;
					}
					st = ns;
					cap = nc;
				}
				st[n].c = v;
				st[n++].i = 0;
			}
			v = NULL;
		}
		if (!n)
			break;
		it *t = &st[n - 1];
		size_t len = t->c->type == SMP_LIST ? t->c->u.list.len : t->c->u.map.len;
		if (t->i == len) {
			n--;
			continue;
		}
		v = t->c->type == SMP_LIST ? t->c->u.list.items[t->i] : t->c->u.map.items[t->i].val;
		t->i++;
	}
	free(st);
	return rc;
}

/* libyaml's input: the piece, then the '\n' kubectl's line reader adds. */
static int feed(void *data, unsigned char *buffer, size_t size, size_t *size_read)
{
	yr *r = data;
	size_t total = r->chunk_len + (r->add_nl ? 1 : 0), n = total - r->fed;

	if (n > size)
		n = size;
	if (r->fed < r->chunk_len) {
		size_t m = r->chunk_len - r->fed < n ? r->chunk_len - r->fed : n;
		memcpy(buffer, r->chunk + r->fed, m);
		if (m < n)
			buffer[m] = '\n';
	} else if (n) {
		buffer[0] = '\n';
	}
	r->fed += n;
	*size_read = n;
	return 1;
}

/* Reads the first document of r->chunk (one kubectl piece). */
static int parse_piece(yr *r)
{
	yaml_event_t ev;
	int rc = 0;
	bool done = false;

	if (!yaml_parser_initialize(&r->parser))
		return oom(r);
	r->add_nl = r->chunk_len && r->chunk[r->chunk_len - 1] != '\n';
	r->fed = 0;
	yaml_parser_set_input(&r->parser, feed, r);
	r->fix = FIX_NONE;
	r->depth = 0;
	r->cur_char = 0;
	r->cur_byte = r->chunk_len >= 3 && memcmp(r->chunk, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
	anchors_reset(r);
	smp_arena_release(&r->scratch);
	smp_arena_init(&r->scratch);
	r->root = NULL;
	r->nonfinite = false;
	r->nodes = 1; /* the document node, as go-yaml counts */
	r->alias_nodes = 0;
	while (!done && !rc) {
		if (!yaml_parser_parse(&r->parser, &ev)) {
			rc = libyaml_error(r);
			break;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_END_EVENT:
			if (r->nonfinite && r->root && (rc = check_finite(r, r->root)))
				break;
			/* Empty documents (and null ones, which kubectl skips too)
			 * give no root. */
			if (r->root && r->root->type != SMP_NULL && smp_doc_push_root(r->doc, r->root))
				rc = oom(r);
			r->root = NULL;
			done = true; /* go-yaml reads one document per piece */
			break;
		case YAML_SCALAR_EVENT:
			rc = on_scalar(r, &ev);
			break;
		case YAML_ALIAS_EVENT:
			rc = on_alias(r, &ev);
			break;
		case YAML_SEQUENCE_START_EVENT:
			rc = on_start(r, &ev, false);
			break;
		case YAML_MAPPING_START_EVENT:
			rc = on_start(r, &ev, true);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			rc = on_end(r);
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&r->parser);
	return rc;
}

/* The piece with the difference at r->fix_a.. rewritten; NULL on ENOMEM. */
static char *rewrite(const yr *r, size_t *len)
{
	const char *c = r->chunk;
	size_t n = r->chunk_len, a = r->fix_a, b = r->fix_b, w = 0;
	char *o;

	if (r->fix == FIX_SQUOTE_ESC) {
		o = malloc(n + 3);
		if (!o)
			return NULL;
		memcpy(o, c, a);
		memcpy(o + a, "\\x27", 4);
		memcpy(o + a + 4, c + a + 2, n - a - 2);
		*len = n + 2;
		return o;
	}
	/* FIX_FLOW_COLON: the plain scalar c[a, b) becomes '...'. */
	o = malloc(2 * n + 3);
	if (!o)
		return NULL;
	memcpy(o, c, a);
	w = a;
	o[w++] = '\'';
	for (size_t i = a; i < b; i++) {
		if (c[i] == '\'')
			o[w++] = '\'';
		o[w++] = c[i];
	}
	o[w++] = '\'';
	memcpy(o + w, c + b, n - b);
	*len = w + n - b;
	return o;
}

static int read_chunk(yr *r, size_t start, size_t end)
{
	char *copy = NULL;
	int rc;

	r->chunk = r->buf + start;
	r->chunk_len = end - start;
	for (int tries = 0;; tries++) {
		rc = parse_piece(r);
		if (rc == 0 || r->fix == FIX_NONE || tries == MAX_FIXES)
			break;
		size_t nl;
		char *n = rewrite(r, &nl);
		if (!n) {
			rc = oom(r);
			break;
		}
		free(copy);
		copy = n;
		r->chunk = n;
		r->chunk_len = nl;
	}
	free(copy);
	return rc;
}

int smp_yaml_read(smp_doc *doc, const char *buf, size_t len, const smp_pctx *pc)
{
	yr r;
	int rc = 0;
	size_t pos = 0, cstart = 0;
	uint32_t line = 0; /* 0-based line of pos */

	/* JSON is YAML too, and large JSON documents read in YAML mode
	 * (e.g. OpenAPI documents with trailing commas) are common: the JSON
	 * reader, in YAML-compatible mode, does them several times faster than
	 * libyaml. Whatever it does not take goes the libyaml way. */
	size_t i0 = 0;
	while (i0 < len && (buf[i0] == ' ' || buf[i0] == '\t' || buf[i0] == '\r' || buf[i0] == '\n'))
		i0++;
	if (i0 < len && (buf[i0] == '{' || buf[i0] == '[')) {
		smp_pctx jc = *pc;
		smp_error scratch_err;
		size_t nroots = doc->nroots;
		jc.yaml_compat = true;
		jc.err = &scratch_err;
		rc = smp_json_read(doc, buf, len, &jc);
		if (rc == 0)
			return 0;
		if (rc == SMP_ENOMEM)
			return smp_err_set(pc->err, SMP_ENOMEM, pc->file, 0, 0, NULL, "out of memory");
		doc->nroots = nroots;
		rc = 0;
	}

	memset(&r, 0, sizeof(r));
	r.buf = buf;
	r.len = len;
	r.doc = doc;
	r.a = &doc->arena;
	r.pc = pc;
	smp_arena_init(&r.scratch);
	while (!rc && pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		size_t next = nl ? end + 1 : len;
		if (end - pos >= 3 && memcmp(buf + pos, "---", 3) == 0) {
			size_t k = pos + 3;
			while (k < end && go_space(buf[k]))
				k++;
			if (k < end && buf[k] != '#') {
				size_t e = end;
				while (e > k && go_space(buf[e - 1]))
					e--;
				rc = fail(&r, SMP_EPARSE, line + 1, (uint32_t)(k - pos) + 1,
				          "invalid YAML document separator: %.*s",
				          e - k > 60 ? 60 : (int)(e - k), buf + k);
				break;
			}
			if (pos > cstart)
				rc = read_chunk(&r, cstart, pos);
			cstart = next;
			r.base_line = line + 1;
		}
		pos = next;
		line++;
	}
	if (!rc && cstart < len)
		rc = read_chunk(&r, cstart, len);
	for (size_t i = 0; i < r.cap; i++) {
		smp_keyset_free(&r.st[i].ks);
		smp_scratch_free(&r.st[i].items);
	}
	free(r.st);
	free(r.anchors);
	free(r.aslots);
	smp_arena_release(&r.scratch);
	return rc;
}
