/*
 * selector.c - label selectors (the labels.Parse grammar of
 * k8s.io/apimachinery, LabelSelector objects, node selector requirements)
 * and field selectors (fields.ParseSelector).
 *
 * Parse errors carry the 1-based byte column of the token at fault; the
 * message texts are the reference's ("found ')', expected: identifier").
 */
#include "apply/apply_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum op {
	OP_IN, OP_NOTIN, OP_EQ, OP_DEQ, OP_NEQ, OP_GT, OP_LT, OP_EXISTS, OP_NOTEXISTS
} op;

typedef struct str {
	const char *p;
	size_t n;
} str;

typedef struct req {
	str key;
	op op;
	str *vals;
	size_t nvals;
	int64_t ival; /* OP_GT / OP_LT */
} req;

struct smp_selector {
	smp_arena arena;
	req *reqs;
	size_t n, cap;
	bool nothing; /* a null LabelSelector: selects nothing */
	bool fields;  /* a field selector: keys are dotted paths of the object */
};

/* ---- building ---- */

static smp_selector *sel_new(void)
{
	smp_selector *s = calloc(1, sizeof(*s));

	if (s)
		smp_arena_init(&s->arena);
	return s;
}

void smp_selector_free(smp_selector *sel)
{
	if (!sel)
		return;
	smp_arena_release(&sel->arena);
	free(sel->reqs);
	free(sel);
}

static req *sel_add(smp_selector *s)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 4;
		req *r = realloc(s->reqs, ncap * sizeof(*r));
		if (!r)
			return NULL;
		s->reqs = r;
		s->cap = ncap;
	}
	memset(&s->reqs[s->n], 0, sizeof(req));
	return &s->reqs[s->n++];
}

static bool parse_int64(const char *p, size_t n, int64_t *out)
{
	char tmp[32];
	char *end;
	long long v;

	/* strconv.ParseInt(s, 10, 64): optional sign, decimal digits only. */
	if (n == 0 || n >= sizeof(tmp))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (!(c >= '0' && c <= '9') && !(i == 0 && (c == '+' || c == '-') && n > 1))
			return false;
	}
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	errno = 0;
	v = strtoll(tmp, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* NewRequirement's checks; `col` (may be NULL) gives each value's column
 * for the error. */
static int check_req(const req *r, const unsigned *vcol, unsigned kcol, bool fields,
                     smp_error *err)
{
	smp_buf b;
	int rc = 0;

	smp_buf_init(&b);
	if (!fields && smp_label_key_problems(&b, r->key.p, r->key.n)) {
		smp_buf q;
		smp_buf_init(&q);
		smp_quote_go(&q, r->key.p, r->key.n);
		rc = smp_err_set(err, SMP_EINVAL, NULL, 0, kcol, NULL,
		                 "invalid label key %s: %s", q.oom ? "" : q.ptr,
		                 b.oom ? "" : b.ptr);
		smp_buf_release(&q);
		goto out;
	}
	switch (r->op) {
	case OP_IN:
	case OP_NOTIN:
		if (r->nvals == 0)
			rc = smp_err_set(err, SMP_EINVAL, NULL, 0, kcol, NULL,
			                 "for 'in', 'notin' operators, values set can't be empty");
		break;
	case OP_EQ:
	case OP_DEQ:
	case OP_NEQ:
		if (r->nvals != 1)
			rc = smp_err_set(err, SMP_EINVAL, NULL, 0, kcol, NULL,
			                 "exact-match compatibility requires one single value");
		break;
	case OP_EXISTS:
	case OP_NOTEXISTS:
		if (r->nvals != 0)
			rc = smp_err_set(err, SMP_EINVAL, NULL, 0, kcol, NULL,
			                 "values set must be empty for exists and does not exist");
		break;
	case OP_GT:
	case OP_LT:
		if (r->nvals != 1) {
			rc = smp_err_set(err, SMP_EINVAL, NULL, 0, kcol, NULL,
			                 "for 'Gt', 'Lt' operators, exactly one value is required");
			break;
		}
		break;
	}
	if (rc)
		goto out;
	for (size_t i = 0; i < r->nvals && !fields; i++) {
		int64_t dummy;
		if ((r->op == OP_GT || r->op == OP_LT) &&
		    !parse_int64(r->vals[i].p, r->vals[i].n, &dummy)) {
			rc = smp_err_set(err, SMP_EINVAL, NULL, 0, vcol ? vcol[i] : kcol, NULL,
			                 "for 'Gt', 'Lt' operators, the value must be an integer");
			goto out;
		}
		if (smp_label_value_problems(&b, r->vals[i].p, r->vals[i].n)) {
			smp_buf q;
			smp_buf_init(&q);
			smp_quote_go(&q, r->vals[i].p, r->vals[i].n);
			rc = smp_err_set(err, SMP_EINVAL, NULL, 0, vcol ? vcol[i] : kcol, NULL,
			                 "invalid label value %s: %s", q.oom ? "" : q.ptr,
			                 b.oom ? "" : b.ptr);
			smp_buf_release(&q);
			goto out;
		}
	}
out:
	if (!rc && b.oom)
		rc = smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	smp_buf_release(&b);
	return rc;
}

/* ---- the string grammar ---- */

typedef enum tok {
	T_ERROR, T_EOS, T_CLOSE, T_COMMA, T_NOT, T_DEQ, T_EQ, T_GT, T_ID, T_IN, T_LT,
	T_NEQ, T_NOTIN, T_OPEN
} tok;

typedef struct item {
	tok t;
	str lit;
	unsigned col; /* 1-based start */
} item;

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_special(char c)
{
	return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' ||
	       c == '<';
}

static tok keyword(const char *p, size_t n)
{
	static const struct { const char *s; tok t; } kw[] = {
		{")", T_CLOSE}, {",", T_COMMA}, {"!", T_NOT}, {"==", T_DEQ}, {"=", T_EQ},
		{">", T_GT}, {"in", T_IN}, {"<", T_LT}, {"!=", T_NEQ}, {"notin", T_NOTIN},
		{"(", T_OPEN},
	};
	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (strlen(kw[i].s) == n && memcmp(kw[i].s, p, n) == 0)
			return kw[i].t;
	return T_ERROR;
}

/* Tokenises the whole input (the reference scans first, then parses). */
static int lex(item **out, size_t *count, const char *s)
{
	size_t len = strlen(s), pos = 0, n = 0, cap = 8;
	item *items = malloc(cap * sizeof(*items));

	if (!items)
		return SMP_ENOMEM;
	for (;;) {
		item it;
		while (pos < len && is_ws(s[pos]))
			pos++;
		it.col = (unsigned)pos + 1;
		it.lit.p = s + pos;
		if (pos >= len) {
			it.t = T_EOS;
			it.lit.n = 0;
		} else if (is_special(s[pos])) {
			/* Longest run of special symbols that still forms a token. */
			size_t start = pos, best = 0;
			tok bt = T_ERROR;
			while (pos < len && is_special(s[pos])) {
				tok t = keyword(s + start, pos - start + 1);
				if (t != T_ERROR) {
					bt = t;
					best = pos - start + 1;
				} else if (bt != T_ERROR) {
					break;
				}
				pos++;
			}
			if (bt == T_ERROR) {
				it.t = T_ERROR;
				it.lit.n = pos - start;
			} else {
				it.t = bt;
				it.lit.n = best;
				pos = start + best;
			}
		} else {
			size_t start = pos;
			while (pos < len && !is_special(s[pos]) && !is_ws(s[pos]))
				pos++;
			it.lit.n = pos - start;
			it.t = keyword(s + start, it.lit.n);
			if (it.t == T_ERROR)
				it.t = T_ID;
		}
		if (n == cap) {
			item *ni = realloc(items, cap * 2 * sizeof(*items));
			if (!ni) {
				free(items);
				return SMP_ENOMEM;
			}
			items = ni;
			cap *= 2;
		}
		items[n++] = it;
		if (it.t == T_EOS)
			break;
	}
	*out = items;
	*count = n;
	return 0;
}

typedef struct parser {
	item *items;
	size_t pos;
	smp_selector *sel;
	smp_error *err;
	/* scratch for the values of one requirement */
	str *vals;
	unsigned *vcols;
	size_t nvals, vcap;
} parser;

/* In a values context "in" and "notin" are plain identifiers. */
static tok peek(const parser *p, bool values)
{
	tok t = p->items[p->pos].t;
	if (values && (t == T_IN || t == T_NOTIN))
		t = T_ID;
	return t;
}

static const item *take(parser *p, bool values, tok *t)
{
	*t = peek(p, values);
	/* EOS is never passed: the parser stops there. */
	return &p->items[p->items[p->pos].t == T_EOS ? p->pos : p->pos++];
}

static int fail(parser *p, const item *it, const char *fmt, const char *extra)
{
	/* "found 'X', expected: ..." with X the literal of the token at fault. */
	char lit[128];
	size_t n = it->lit.n < sizeof(lit) - 1 ? it->lit.n : sizeof(lit) - 1;

	if (it->t == T_ERROR) {
		snprintf(lit, sizeof(lit), "error expected: keyword found '%.*s'", (int)n,
		         it->lit.p);
	} else {
		memcpy(lit, it->lit.p, n);
		lit[n] = '\0';
	}
	if (extra)
		return smp_err_set(p->err, SMP_EINVAL, NULL, 0, it->col, NULL, fmt, lit, extra);
	return smp_err_set(p->err, SMP_EINVAL, NULL, 0, it->col, NULL, fmt, lit);
}

static int add_val(parser *p, str v, unsigned col)
{
	/* The reference keeps a set; duplicates change nothing when matching,
	 * so they are kept rather than searched for (no quadratic scan). */
	if (p->nvals == p->vcap) {
		size_t ncap = p->vcap ? p->vcap * 2 : 8;
		str *nv = realloc(p->vals, ncap * sizeof(*nv));
		unsigned *nc;
		if (!nv)
			return SMP_ENOMEM;
		p->vals = nv;
		nc = realloc(p->vcols, ncap * sizeof(*nc));
		if (!nc)
			return SMP_ENOMEM;
		p->vcols = nc;
		p->vcap = ncap;
	}
	p->vals[p->nvals] = v;
	p->vcols[p->nvals++] = col;
	return 0;
}

/* The value set of an in/notin requirement: (a, b, ...) as labels.Parse
 * reads it. */
static int parse_values(parser *p)
{
	tok t;
	const item *it = take(p, true, &t);
	const item *look;
	static const str empty = {"", 0};

	if (t != T_OPEN)
		return fail(p, it, "found '%s' expected: '('", NULL);
	look = &p->items[p->pos];
	t = peek(p, true);
	if (t == T_CLOSE) {
		take(p, true, &t);
		return add_val(p, empty, look->col);
	}
	if (t != T_ID && t != T_COMMA)
		return fail(p, look, "found '%s', expected: ',', ')' or identifier", NULL);
	for (;;) {
		int rc;
		it = take(p, true, &t);
		if (t == T_ID) {
			if ((rc = add_val(p, it->lit, it->col)))
				return rc;
			t = peek(p, true);
			if (t == T_COMMA)
				continue;
			if (t == T_CLOSE)
				break;
			return fail(p, &p->items[p->pos], "found '%s', expected: ',' or ')'", NULL);
		} else if (t == T_COMMA) {
			tok t2 = peek(p, true);
			if (p->nvals == 0 && (rc = add_val(p, empty, it->col)))
				return rc;
			if (t2 == T_CLOSE) {
				if ((rc = add_val(p, empty, it->col)))
					return rc;
				break;
			}
			if (t2 == T_COMMA && (rc = add_val(p, empty, it->col)))
				return rc;
		} else {
			return fail(p, it, "found '%s', expected: ',', or identifier", NULL);
		}
	}
	take(p, true, &t); /* the ')' */
	return 0;
}

/* One requirement of a label selector: key, !key, key op value(s), with
 * labels.Parse's errors and positions. */
static int parse_requirement(parser *p)
{
	tok t;
	const item *it = take(p, true, &t);
	const item *key;
	bool notexists = false;
	op o;
	req *r;
	int rc;

	if (t == T_NOT) {
		notexists = true;
		it = take(p, true, &t);
	}
	if (t != T_ID)
		return fail(p, it, "found '%s', expected: identifier", NULL);
	key = it;
	{
		/* The key is validated before anything else is read. */
		req k = {key->lit, OP_EXISTS, NULL, 0, 0};
		if ((rc = check_req(&k, NULL, key->col, false, p->err)))
			return rc;
	}
	p->nvals = 0;
	t = peek(p, true);
	if (notexists || t == T_EOS || t == T_COMMA) {
		o = notexists ? OP_NOTEXISTS : OP_EXISTS;
	} else {
		it = take(p, false, &t);
		switch (t) {
		case T_IN: o = OP_IN; break;
		case T_EQ: o = OP_EQ; break;
		case T_DEQ: o = OP_DEQ; break;
		case T_GT: o = OP_GT; break;
		case T_LT: o = OP_LT; break;
		case T_NOTIN: o = OP_NOTIN; break;
		case T_NEQ: o = OP_NEQ; break;
		default:
			return fail(p, it, "found '%s', expected: %s",
			            "in, notin, =, ==, !=, gt, lt");
		}
		if (o == OP_IN || o == OP_NOTIN) {
			if ((rc = parse_values(p)))
				return rc;
		} else {
			static const str empty = {"", 0};
			t = peek(p, true);
			if (t == T_EOS || t == T_COMMA) {
				if ((rc = add_val(p, empty, p->items[p->pos].col)))
					return rc;
			} else {
				it = take(p, true, &t);
				if (t != T_ID)
					return fail(p, it, "found '%s', expected: identifier", NULL);
				if ((rc = add_val(p, it->lit, it->col)))
					return rc;
			}
		}
	}
	r = sel_add(p->sel);
	if (!r)
		return SMP_ENOMEM;
	r->key = key->lit;
	r->op = o;
	if (p->nvals) {
		r->vals = smp_arena_alloc(&p->sel->arena, p->nvals * sizeof(str));
		if (!r->vals)
			return SMP_ENOMEM;
		memcpy(r->vals, p->vals, p->nvals * sizeof(str));
		r->nvals = p->nvals;
	}
	if ((rc = check_req(r, p->vcols, key->col, false, p->err)))
		return rc;
	if (o == OP_GT || o == OP_LT)
		parse_int64(r->vals[0].p, r->vals[0].n, &r->ival);
	return 0;
}

static int parse_all(parser *p)
{
	for (;;) {
		tok t = peek(p, true);
		const item *it;
		int rc;

		if (t == T_EOS)
			return 0;
		if (t != T_ID && t != T_NOT)
			return fail(p, &p->items[p->pos],
			            "found '%s', expected: !, identifier, or 'end of string'", NULL);
		if ((rc = parse_requirement(p))) {
			/* The reference wraps every error below a requirement. */
			if (rc != SMP_ENOMEM)
				smp_error_prefix(p->err, "unable to parse requirement: ");
			return rc;
		}
		it = take(p, true, &t);
		if (t == T_EOS)
			return 0;
		if (t != T_COMMA)
			return fail(p, it, "found '%s', expected: ',' or 'end of string'", NULL);
		t = peek(p, true);
		if (t != T_ID && t != T_NOT)
			return fail(p, &p->items[p->pos],
			            "found '%s', expected: identifier after ','", NULL);
	}
}

int smp_selector_parse(smp_selector **out, const char *text, smp_error *err)
{
	parser p;
	smp_selector *sel;
	char *copy;
	size_t len;
	int rc;

	*out = NULL;
	if (!text)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL, "selector is NULL");
	sel = sel_new();
	if (!sel)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	/* Literals point into a copy the selector owns. */
	len = strlen(text);
	copy = smp_arena_strndup(&sel->arena, text, len);
	memset(&p, 0, sizeof(p));
	p.sel = sel;
	p.err = err;
	if (!copy || lex(&p.items, &len, copy)) {
		rc = smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
		goto out;
	}
	rc = parse_all(&p);
	if (rc == SMP_ENOMEM)
		smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
out:
	free(p.items);
	free(p.vals);
	free(p.vcols);
	if (rc) {
		smp_selector_free(sel);
		return rc;
	}
	*out = sel;
	return 0;
}

/* ---- LabelSelector objects ---- */

static int obj_err(smp_error *err, const smp_value *at, const char *path, const char *fmt,
                   const char *arg)
{
	return smp_err_set(err, SMP_EINVAL, NULL, at ? at->line : 0, at ? at->col : 0, path,
	                   fmt, arg);
}

/* A requirement of a LabelSelector object (matchLabels or a
 * matchExpressions item) checked as metav1 validates it and added. */
static int add_obj_req(smp_selector *sel, const char *key, size_t klen, op o,
                       const smp_value *values, const char *path, smp_error *err)
{
	req *r = sel_add(sel);
	int rc;

	if (!r)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	r->key.p = smp_arena_strndup(&sel->arena, key, klen);
	r->key.n = klen;
	r->op = o;
	if (!r->key.p)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	if (values && values->type == SMP_STRING) {
		r->vals = smp_arena_alloc(&sel->arena, sizeof(str));
		if (!r->vals)
			return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
		r->vals[0].p = smp_arena_strndup(&sel->arena, values->u.s.ptr, values->u.s.len);
		r->vals[0].n = values->u.s.len;
		if (!r->vals[0].p)
			return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
		r->nvals = 1;
	} else if (values && values->type == SMP_LIST) {
		size_t n = values->u.list.len;
		r->vals = n ? smp_arena_alloc(&sel->arena, n * sizeof(str)) : NULL;
		if (n && !r->vals)
			return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
		for (size_t i = 0; i < n; i++) {
			const smp_value *v = values->u.list.items[i];
			if (v->type != SMP_STRING)
				return obj_err(err, v, path, "%s: values must be strings", path);
			r->vals[i].p = smp_arena_strndup(&sel->arena, v->u.s.ptr, v->u.s.len);
			r->vals[i].n = v->u.s.len;
			if (!r->vals[i].p)
				return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL,
				                   "out of memory");
		}
		r->nvals = n;
	} else if (values && values->type != SMP_NULL) {
		return obj_err(err, values, path, "%s: values must be a list of strings", path);
	}
	rc = check_req(r, NULL, 0, false, err);
	if (rc && rc != SMP_ENOMEM && err) {
		char pre[SMP_ERROR_PATH_MAX + 4];
		snprintf(pre, sizeof(pre), "%s: ", path);
		smp_error_prefix(err, pre);
		snprintf(err->path, sizeof(err->path), "%s", path);
	}
	if (!rc && (o == OP_GT || o == OP_LT))
		parse_int64(r->vals[0].p, r->vals[0].n, &r->ival);
	return rc;
}

int smp_selector_from_object(smp_selector **out, const smp_value *obj, bool node_selector,
                             smp_error *err)
{
	smp_selector *sel;
	const smp_value *ml, *me;
	int rc = 0;

	*out = NULL;
	sel = sel_new();
	if (!sel)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	if (!obj || obj->type == SMP_NULL) {
		sel->nothing = true;
		*out = sel;
		return 0;
	}
	if (obj->type != SMP_MAP) {
		rc = obj_err(err, obj, "", "%sa label selector must be a map", "");
		goto out;
	}
	ml = smpv_map_get(obj, "matchLabels");
	me = smpv_map_get(obj, "matchExpressions");
	if (ml && ml->type == SMP_MAP) {
		for (size_t i = 0; i < ml->u.map.len && !rc; i++) {
			const smp_member *m = &ml->u.map.items[i];
			char path[SMP_ERROR_PATH_MAX];
			snprintf(path, sizeof(path), "matchLabels.%s", m->key);
			if (m->val->type != SMP_STRING)
				rc = obj_err(err, m->val, path, "%s: must be a string", path);
			else
				rc = add_obj_req(sel, m->key, m->klen, OP_EQ, m->val, path, err);
		}
	} else if (ml && ml->type != SMP_NULL) {
		rc = obj_err(err, ml, "matchLabels", "%s: must be a map", "matchLabels");
	}
	if (rc)
		goto out;
	if (me && me->type == SMP_LIST) {
		for (size_t i = 0; i < me->u.list.len && !rc; i++) {
			const smp_value *e = me->u.list.items[i];
			const smp_value *k, *o, *vals;
			const char *opname;
			char path[SMP_ERROR_PATH_MAX];
			op oo;

			snprintf(path, sizeof(path), "matchExpressions[%zu]", i);
			if (e->type != SMP_MAP) {
				rc = obj_err(err, e, path, "%s: must be a map", path);
				break;
			}
			k = smpv_map_get(e, "key");
			o = smpv_map_get(e, "operator");
			vals = smpv_map_get(e, "values");
			opname = o && o->type == SMP_STRING ? o->u.s.ptr : "";
			if (!k || k->type != SMP_STRING) {
				rc = obj_err(err, e, path, "%s.key: must be a string", path);
				break;
			}
			if (strcmp(opname, "In") == 0)
				oo = OP_IN;
			else if (strcmp(opname, "NotIn") == 0)
				oo = OP_NOTIN;
			else if (strcmp(opname, "Exists") == 0)
				oo = OP_EXISTS;
			else if (strcmp(opname, "DoesNotExist") == 0)
				oo = OP_NOTEXISTS;
			else if (node_selector && strcmp(opname, "Gt") == 0)
				oo = OP_GT;
			else if (node_selector && strcmp(opname, "Lt") == 0)
				oo = OP_LT;
			else {
				rc = smp_err_set(err, SMP_EINVAL, NULL, o ? o->line : e->line,
				                 o ? o->col : e->col, path,
				                 "%s: \"%s\" is not a valid %s operator", path, opname,
				                 node_selector ? "node selector" : "label selector");
				break;
			}
			rc = add_obj_req(sel, k->u.s.ptr, k->u.s.len, oo, vals, path, err);
		}
	} else if (me && me->type != SMP_NULL) {
		rc = obj_err(err, me, "matchExpressions", "%s: must be a list", "matchExpressions");
	}
out:
	if (rc) {
		smp_selector_free(sel);
		return rc;
	}
	*out = sel;
	return 0;
}

/* ---- matching ---- */

static bool has_val(const req *r, const char *p, size_t n)
{
	for (size_t i = 0; i < r->nvals; i++)
		if (r->vals[i].n == n && memcmp(r->vals[i].p, p, n) == 0)
			return true;
	return false;
}

/* A label's value: `found` false when the key is absent. Non-string values
 * (a malformed labels map) never equal a selector value. */
static bool req_matches(const req *r, bool found, const char *v, size_t vn)
{
	int64_t iv;

	switch (r->op) {
	case OP_IN:
	case OP_EQ:
	case OP_DEQ:
		return found && v && has_val(r, v, vn);
	case OP_NOTIN:
	case OP_NEQ:
		return !found || !v || !has_val(r, v, vn);
	case OP_EXISTS:
		return found;
	case OP_NOTEXISTS:
		return !found;
	case OP_GT:
	case OP_LT:
		if (!found || !v || !parse_int64(v, vn, &iv))
			return false;
		return r->op == OP_GT ? iv > r->ival : iv < r->ival;
	}
	return false;
}

bool smp_selector_matches(const smp_selector *sel, const smp_value *labels)
{
	if (!sel || sel->nothing || sel->fields)
		return false;
	for (size_t i = 0; i < sel->n; i++) {
		const req *r = &sel->reqs[i];
		ptrdiff_t at = labels ? smpv_map_find(labels, r->key.p, r->key.n) : -1;
		const smp_value *v = at >= 0 ? labels->u.map.items[at].val : NULL;
		bool str_ok = v && v->type == SMP_STRING;

		if (!req_matches(r, at >= 0, str_ok ? v->u.s.ptr : NULL, str_ok ? v->u.s.len : 0))
			return false;
	}
	return true;
}

bool smp_selector_is_empty(const smp_selector *sel)
{
	return sel && !sel->nothing && sel->n == 0;
}

/* ---- field selectors ---- */

/* fields.ParseSelector: terms split at unescaped ',', each at the first
 * "!=", "==" or "=", values unescaped (\\ \, \=). */
int smp_field_selector_parse(smp_selector **out, const char *text, smp_error *err)
{
	smp_selector *sel;
	size_t len, start = 0;
	int rc = 0;

	*out = NULL;
	if (!text)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL, "selector is NULL");
	sel = sel_new();
	if (!sel)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	sel->fields = true;
	len = strlen(text);
	while (start <= len && !rc) {
		size_t end = start, opat = SIZE_MAX, oplen = 0;
		op o = OP_EQ;
		req *r;
		char *val;
		size_t vn = 0;

		while (end < len && text[end] != ',') {
			if (text[end] == '\\' && end + 1 < len)
				end++;
			end++;
		}
		if (end == start) {
			start = end + 1;
			continue;
		}
		for (size_t i = start; i < end && opat == SIZE_MAX; i++) {
			if (text[i] == '!' && i + 1 < end && text[i + 1] == '=') {
				opat = i, oplen = 2, o = OP_NEQ;
			} else if (text[i] == '=' && i + 1 < end && text[i + 1] == '=') {
				opat = i, oplen = 2, o = OP_DEQ;
			} else if (text[i] == '=') {
				opat = i, oplen = 1, o = OP_EQ;
			}
		}
		if (opat == SIZE_MAX) {
			rc = smp_err_set(err, SMP_EINVAL, NULL, 0, (unsigned)start + 1, NULL,
			                 "invalid selector: '%s'; can't understand '%.*s'", text,
			                 (int)(end - start), text + start);
			break;
		}
		val = smp_arena_alloc(&sel->arena, end - opat - oplen + 1);
		r = sel_add(sel);
		if (!val || !r) {
			rc = smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
			break;
		}
		for (size_t i = opat + oplen; i < end; i++) {
			char c = text[i];
			if (c == '\\') {
				char nx = i + 1 < end ? text[i + 1] : '\0';
				if (nx != '\\' && nx != ',' && nx != '=') {
					rc = smp_err_set(err, SMP_EINVAL, NULL, 0, (unsigned)i + 1, NULL,
					                 "invalid field selector: invalid escape "
					                 "sequence: \\%c", nx);
					break;
				}
				c = nx;
				i++;
			} else if (c == ',' || c == '=') {
				rc = smp_err_set(err, SMP_EINVAL, NULL, 0, (unsigned)i + 1, NULL,
				                 "invalid field selector: unescaped character in value: %c", c);
				break;
			}
			val[vn++] = c;
		}
		val[vn] = '\0';
		r->key.p = smp_arena_strndup(&sel->arena, text + start, opat - start);
		r->key.n = opat - start;
		r->op = o;
		r->vals = smp_arena_alloc(&sel->arena, sizeof(str));
		if (!rc && (!r->key.p || !r->vals))
			rc = smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
		if (!rc) {
			r->vals[0].p = val;
			r->vals[0].n = vn;
			r->nvals = 1;
		}
		start = end + 1;
	}
	if (rc) {
		smp_selector_free(sel);
		return rc;
	}
	*out = sel;
	return 0;
}

/* The text a field has for a field selector: strings as they are, numbers
 * and booleans in their JSON form; maps and lists have none. */
static bool field_text(const smp_value *v, char *buf, size_t size, const char **p,
                       size_t *n)
{
	switch (v->type) {
	case SMP_STRING:
		*p = v->u.s.ptr;
		*n = v->u.s.len;
		return true;
	case SMP_BOOL:
		*p = v->u.b ? "true" : "false";
		*n = strlen(*p);
		return true;
	case SMP_INT:
		*n = (size_t)snprintf(buf, size, "%lld", (long long)v->u.i);
		*p = buf;
		return true;
	case SMP_FLOAT:
		*n = (size_t)snprintf(buf, size, "%.17g", v->u.f);
		*p = buf;
		return true;
	default:
		return false;
	}
}

bool smp_field_selector_matches(const smp_selector *sel, const smp_value *object)
{
	if (!sel || !sel->fields)
		return false;
	for (size_t i = 0; i < sel->n; i++) {
		const req *r = &sel->reqs[i];
		const smp_value *v = smp_value_at(object, r->key.p);
		char buf[40];
		const char *p = "";
		size_t n = 0;
		bool eq;

		/* An absent field reads as "" (fields.Set.Get). */
		if (v && !field_text(v, buf, sizeof(buf), &p, &n))
			return false;
		eq = n == r->vals[0].n && memcmp(p, r->vals[0].p, n) == 0;
		if (r->op == OP_NEQ ? eq : !eq)
			return false;
	}
	return true;
}
