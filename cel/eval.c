/*
 * eval.c - the evaluation of a parsed CEL expression: variables and
 * comprehensions, the operators with cel-go's semantics (errors as values,
 * && and || absorbing an error when the other side decides, integer
 * overflow and division by zero as errors, heterogeneous equality and
 * cross-type numeric comparisons), member selection, indexing and the
 * optional syntax. Named functions are stdlib.c's.
 */
#include "cel/eval_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The variables in scope: the caller's, then the comprehensions'. */
typedef struct scope {
	const cel_var *vars;
	size_t nvars;
	struct binding {
		const char *name;
		cel_val val;
	} stack[64];
	size_t depth;
} scope;

typedef struct ev {
	cel_eval *e;
	scope sc;
	unsigned nest;
} ev;

static cel_val eval(ev *x, const cel_node *n);

void cel_eval_init(cel_eval *e, uint64_t cost_limit)
{
	smp_arena_init(&e->arena);
	e->cost = 0;
	e->limit = cost_limit;
	e->oom = false;
	e->ext = NULL;
}

void cel_eval_release(cel_eval *e)
{
	smp_arena_release(&e->arena);
}

cel_val cel__errorf(cel_eval *e, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return cel__str_copy(e, buf, (size_t)n, CEL_ERROR);
}

cel_val cel__no_overload(cel_eval *e, const char *fn)
{
	return cel__errorf(e, "no such overload: %s", fn);
}

cel_val cel__str_copy(cel_eval *e, const char *p, size_t n, cel_kind k)
{
	char *s = smp_arena_alloc(&e->arena, n + 1);
	cel_val v;

	if (!s) {
		e->oom = true;
		return cel_error("out of memory");
	}
	if (n)
		memcpy(s, p, n);
	s[n] = '\0';
	v.kind = (uint8_t)k;
	v.u.s.p = s;
	v.u.s.n = n;
	return v;
}

cel_val cel__list(cel_eval *e, const cel_val *items, uint32_t n)
{
	cel_agg *a = smp_arena_alloc(&e->arena, sizeof(*a));
	cel_val *it = n ? smp_arena_alloc(&e->arena, n * sizeof(*it)) : NULL;
	cel_val v;

	if (!a || (n && !it)) {
		e->oom = true;
		return cel_error("out of memory");
	}
	memset(a, 0, sizeof(*a));
	if (n)
		memcpy(it, items, n * sizeof(*it));
	a->items = it;
	a->n = n;
	v.kind = CEL_LIST;
	v.u.agg = a;
	return v;
}

static cel_val map_of(cel_eval *e, const cel_val *keys, const cel_val *items, uint32_t n)
{
	cel_agg *a = smp_arena_alloc(&e->arena, sizeof(*a));
	cel_val *k = n ? smp_arena_alloc(&e->arena, n * sizeof(*k)) : NULL;
	cel_val *it = n ? smp_arena_alloc(&e->arena, n * sizeof(*it)) : NULL;
	cel_val v;

	if (!a || (n && (!k || !it))) {
		e->oom = true;
		return cel_error("out of memory");
	}
	memset(a, 0, sizeof(*a));
	if (n) {
		memcpy(k, keys, n * sizeof(*k));
		memcpy(it, items, n * sizeof(*it));
	}
	a->keys = k;
	a->items = it;
	a->n = n;
	v.kind = CEL_MAP;
	v.u.agg = a;
	return v;
}

static bool is_err(const cel_val *v)
{
	return v->kind == CEL_ERROR;
}

/* ---- variables ---- */

static bool lookup(const ev *x, const char *name, size_t n, cel_val *out)
{
	for (size_t i = x->sc.depth; i-- > 0;)
		if (strlen(x->sc.stack[i].name) == n && !memcmp(x->sc.stack[i].name, name, n)) {
			*out = x->sc.stack[i].val;
			return true;
		}
	for (size_t i = 0; i < x->sc.nvars; i++)
		if (strlen(x->sc.vars[i].name) == n && !memcmp(x->sc.vars[i].name, name, n)) {
			*out = x->sc.vars[i].val;
			return true;
		}
	return false;
}

static cel_val type_val(const char *name)
{
	cel_val v = cel_str(name, strlen(name));

	v.kind = CEL_TYPE;
	return v;
}

/* The type identifiers: int, string, list, google.protobuf.Timestamp... */
static bool type_ident(const char *name, size_t n, cel_val *out)
{
	static const char *const types[] = {
		"bool", "int", "uint", "double", "string", "bytes", "list", "map", "null_type",
		"type", "google.protobuf.Duration", "google.protobuf.Timestamp", "optional_type",
		"net.IP", "net.CIDR",
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i]) == n && !memcmp(types[i], name, n)) {
			*out = type_val(types[i]);
			return true;
		}
	return false;
}

/* A select chain of identifiers as one dotted name ("a.b.c"), for
 * qualified variable and type names; false when it is not one. */
static bool dotted(const cel_node *n, char *buf, size_t cap, size_t *len)
{
	if (n->op == N_IDENT) {
		if (n->nlen >= cap)
			return false;
		memcpy(buf, n->name, n->nlen);
		*len = n->nlen;
		return true;
	}
	if (n->op != N_SELECT || n->test || !dotted(n->target, buf, cap, len) ||
	    *len + 1 + n->nlen >= cap)
		return false;
	buf[(*len)++] = '.';
	memcpy(buf + *len, n->name, n->nlen);
	*len += n->nlen;
	return true;
}

/* ---- selection and indexing ---- */

static cel_val select_field(ev *x, const cel_val *t, const char *name, size_t n, bool test)
{
	cel_val key = cel_str(name, n), out;

	if (is_err(t))
		return *t;
	if (t->kind != CEL_MAP)
		return test ? cel__no_overload(x->e, "has")
		            : cel__errorf(x->e, "no such key: %.*s", (int)n, name);
	if (cel__map_find(x->e, t, &key, &out))
		return test ? cel_bool(true) : out;
	return test ? cel_bool(false) : cel__errorf(x->e, "no such key: %.*s", (int)n, name);
}

static cel_val optional_of(cel_eval *e, const cel_val *v)
{
	cel_val *p = smp_arena_alloc(&e->arena, sizeof(*p));
	cel_val o;

	if (!p) {
		e->oom = true;
		return cel_error("out of memory");
	}
	*p = *v;
	o.kind = CEL_OPTIONAL;
	o.u.opt = p;
	return o;
}

static cel_val optional_none(void)
{
	cel_val o;

	o.kind = CEL_OPTIONAL;
	o.u.opt = NULL;
	return o;
}

/* An index as a list position: an int, a uint or an integral double. */
static bool list_pos(const cel_val *i, int64_t *pos)
{
	if (i->kind == CEL_INT) {
		*pos = i->u.i;
		return true;
	}
	if (i->kind == CEL_UINT) {
		*pos = i->u.u > (uint64_t)INT64_MAX ? -1 : (int64_t)i->u.u;
		return true;
	}
	if (i->kind == CEL_DOUBLE && i->u.d == floor(i->u.d) && fabs(i->u.d) < 9.2e18) {
		*pos = (int64_t)i->u.d;
		return true;
	}
	return false;
}

static cel_val index_of(ev *x, const cel_val *t, const cel_val *i, bool opt)
{
	cel_val out;

	if (is_err(t))
		return *t;
	if (is_err(i))
		return *i;
	if (t->kind == CEL_OPTIONAL) {
		if (!t->u.opt)
			return *t;
		return index_of(x, t->u.opt, i, true);
	}
	if (t->kind == CEL_LIST) {
		int64_t p;

		if (!list_pos(i, &p))
			return cel__no_overload(x->e, "_[_]");
		if (p < 0 || p >= (int64_t)cel_len(t))
			return opt ? optional_none()
			           : cel__errorf(x->e, "index out of bounds: %lld", (long long)p);
		out = cel_item(x->e, t, (uint32_t)p);
		return opt ? optional_of(x->e, &out) : out;
	}
	if (t->kind == CEL_MAP) {
		if (i->kind != CEL_STRING && i->kind != CEL_INT && i->kind != CEL_UINT &&
		    i->kind != CEL_BOOL && i->kind != CEL_DOUBLE)
			return cel__no_overload(x->e, "_[_]");
		if (cel__map_find(x->e, t, i, &out))
			return opt ? optional_of(x->e, &out) : out;
		if (opt)
			return optional_none();
		if (i->kind == CEL_STRING)
			return cel__errorf(x->e, "no such key: %.*s", (int)i->u.s.n, i->u.s.p);
		return cel__errorf(x->e, "no such key");
	}
	return cel__no_overload(x->e, "_[_]");
}

/* ---- arithmetic ---- */

static cel_val add(ev *x, const cel_val *a, const cel_val *b, int sign)
{
	if (a->kind != b->kind) {
		if ((a->kind == CEL_TIMESTAMP || a->kind == CEL_DURATION) &&
		    (b->kind == CEL_TIMESTAMP || b->kind == CEL_DURATION))
			return cel__time_add(x->e, a, b, sign);
		return cel__no_overload(x->e, sign > 0 ? "_+_" : "_-_");
	}
	switch (a->kind) {
	case CEL_INT: {
		int64_t r;

		if (sign > 0 ? __builtin_add_overflow(a->u.i, b->u.i, &r)
		             : __builtin_sub_overflow(a->u.i, b->u.i, &r))
			return cel_error("integer overflow");
		return cel_int(r);
	}
	case CEL_UINT: {
		uint64_t r;

		if (sign > 0 ? __builtin_add_overflow(a->u.u, b->u.u, &r)
		             : __builtin_sub_overflow(a->u.u, b->u.u, &r))
			return cel_error("unsigned integer overflow");
		return cel_uint(r);
	}
	case CEL_DOUBLE:
		return cel_double(sign > 0 ? a->u.d + b->u.d : a->u.d - b->u.d);
	case CEL_STRING:
	case CEL_BYTES: {
		char *p;
		cel_val v;

		if (sign < 0)
			break;
		if (!cel__charge(x->e, (a->u.s.n + b->u.s.n) / 10))
			return cel_error("operation cancelled: actual cost limit exceeded");
		p = smp_arena_alloc(&x->e->arena, a->u.s.n + b->u.s.n + 1);
		if (!p) {
			x->e->oom = true;
			return cel_error("out of memory");
		}
		memcpy(p, a->u.s.p, a->u.s.n);
		memcpy(p + a->u.s.n, b->u.s.p, b->u.s.n);
		p[a->u.s.n + b->u.s.n] = '\0';
		v.kind = a->kind;
		v.u.s.p = p;
		v.u.s.n = a->u.s.n + b->u.s.n;
		return v;
	}
	case CEL_LIST: {
		uint32_t na = cel_len(a), nb = cel_len(b);
		cel_val *it;

		if (sign < 0)
			break;
		if (!cel__charge(x->e, (na + nb) / 10))
			return cel_error("operation cancelled: actual cost limit exceeded");
		it = smp_arena_alloc(&x->e->arena, ((size_t)na + nb + 1) * sizeof(*it));
		if (!it) {
			x->e->oom = true;
			return cel_error("out of memory");
		}
		for (uint32_t i = 0; i < na; i++)
			it[i] = cel_item(x->e, a, i);
		for (uint32_t i = 0; i < nb; i++)
			it[na + i] = cel_item(x->e, b, i);
		return cel__list(x->e, it, na + nb);
	}
	case CEL_DURATION:
	case CEL_TIMESTAMP:
		return cel__time_add(x->e, a, b, sign);
	default:
		break;
	}
	return cel__no_overload(x->e, sign > 0 ? "_+_" : "_-_");
}

static cel_val mul_div(ev *x, cel_fn fn, const cel_val *a, const cel_val *b)
{
	const char *name = fn == F_MUL ? "_*_" : fn == F_DIV ? "_/_" : "_%_";

	if (a->kind != b->kind)
		return cel__no_overload(x->e, name);
	switch (a->kind) {
	case CEL_INT: {
		int64_t r;

		if (fn == F_MUL) {
			if (__builtin_mul_overflow(a->u.i, b->u.i, &r))
				return cel_error("integer overflow");
			return cel_int(r);
		}
		if (b->u.i == 0)
			return cel_error(fn == F_DIV ? "division by zero" : "modulus by zero");
		if (a->u.i == INT64_MIN && b->u.i == -1)
			return cel_error("integer overflow");
		return cel_int(fn == F_DIV ? a->u.i / b->u.i : a->u.i % b->u.i);
	}
	case CEL_UINT: {
		uint64_t r;

		if (fn == F_MUL) {
			if (__builtin_mul_overflow(a->u.u, b->u.u, &r))
				return cel_error("unsigned integer overflow");
			return cel_uint(r);
		}
		if (b->u.u == 0)
			return cel_error(fn == F_DIV ? "division by zero" : "modulus by zero");
		return cel_uint(fn == F_DIV ? a->u.u / b->u.u : a->u.u % b->u.u);
	}
	case CEL_DOUBLE:
		if (fn == F_MOD)
			break;
		return cel_double(fn == F_MUL ? a->u.d * b->u.d : a->u.d / b->u.d);
	default:
		break;
	}
	return cel__no_overload(x->e, name);
}

/* <, <=, >, >=: numbers across types, strings and bytes bytewise, bools,
 * timestamps and durations. */
static cel_val compare(ev *x, cel_fn fn, const cel_val *a, const cel_val *b)
{
	static const char *const names[] = {"_<_", "_<=_", "_>_", "_>=_"};
	const char *name = names[fn - F_LT];
	bool na = a->kind == CEL_INT || a->kind == CEL_UINT || a->kind == CEL_DOUBLE;
	bool nb = b->kind == CEL_INT || b->kind == CEL_UINT || b->kind == CEL_DOUBLE;
	int c;

	if (na && nb) {
		c = cel__num_cmp(a, b);
		if (c == 2)
			return cel_bool(false);
	} else if (a->kind != b->kind) {
		return cel__no_overload(x->e, name);
	} else {
		switch (a->kind) {
		case CEL_STRING:
		case CEL_BYTES: {
			size_t m = a->u.s.n < b->u.s.n ? a->u.s.n : b->u.s.n;

			c = memcmp(a->u.s.p, b->u.s.p, m);
			if (!c)
				c = a->u.s.n < b->u.s.n ? -1 : a->u.s.n > b->u.s.n;
			break;
		}
		case CEL_BOOL:
			c = (int)a->u.b - (int)b->u.b;
			break;
		case CEL_DURATION:
		case CEL_TIMESTAMP:
			c = a->u.t.sec < b->u.t.sec ? -1 : a->u.t.sec > b->u.t.sec ? 1
			  : a->u.t.nsec < b->u.t.nsec ? -1 : a->u.t.nsec > b->u.t.nsec;
			break;
		default:
			return cel__no_overload(x->e, name);
		}
		c = c < 0 ? -1 : c > 0;
	}
	switch (fn) {
	case F_LT:
		return cel_bool(c < 0);
	case F_LE:
		return cel_bool(c <= 0);
	case F_GT:
		return cel_bool(c > 0);
	default:
		return cel_bool(c >= 0);
	}
}

static cel_val in_op(ev *x, const cel_val *a, const cel_val *b)
{
	if (b->kind == CEL_LIST) {
		uint32_t n = cel_len(b);

		for (uint32_t i = 0; i < n; i++) {
			cel_val it = cel_item(x->e, b, i);

			if (cel__equal(x->e, a, &it) == 1)
				return cel_bool(true);
		}
		return cel_bool(false);
	}
	if (b->kind == CEL_MAP) {
		cel_val out;

		return cel_bool(cel__map_find(x->e, b, a, &out));
	}
	return cel__no_overload(x->e, "@in");
}

static cel_val map_of(cel_eval *e, const cel_val *keys, const cel_val *items, uint32_t n);

/* The map macros' step: the accumulator with one entry (F_MAP_INSERT) or
 * a map's entries (F_MAP_MERGE) added; a key it has already is an error. */
static cel_val map_step(ev *x, const cel_node *n)
{
	cel_val acc = eval(x, n->args[0]), k, v, add, prev;
	uint32_t na, nadd, m = 0;
	cel_val *keys, *vals;

	if (is_err(&acc))
		return acc;
	if (n->fn == F_MAP_INSERT) {
		k = eval(x, n->args[1]);
		if (is_err(&k))
			return k;
		v = eval(x, n->args[2]);
		if (is_err(&v))
			return v;
		add = map_of(x->e, &k, &v, 1);
	} else {
		add = eval(x, n->args[1]);
		if (is_err(&add))
			return add;
		if (add.kind != CEL_MAP)
			return cel__no_overload(x->e, "transformMapEntry");
	}
	na = cel_len(&acc);
	nadd = cel_len(&add);
	keys = smp_arena_alloc(&x->e->arena, ((size_t)na + nadd + 1) * sizeof(*keys));
	vals = smp_arena_alloc(&x->e->arena, ((size_t)na + nadd + 1) * sizeof(*vals));
	if (!keys || !vals) {
		x->e->oom = true;
		return cel_error("out of memory");
	}
	for (uint32_t i = 0; i < na; i++) {
		keys[m] = cel_key(x->e, &acc, i);
		vals[m++] = cel_item(x->e, &acc, i);
	}
	for (uint32_t i = 0; i < nadd; i++) {
		k = cel_key(x->e, &add, i);
		if (cel__map_find(x->e, &acc, &k, &prev))
			return cel__errorf(x->e, "insert failed: key already exists");
		keys[m] = k;
		vals[m++] = cel_item(x->e, &add, i);
	}
	return map_of(x->e, keys, vals, m);
}

/* ---- calls ---- */

static cel_val operator_call(ev *x, const cel_node *n)
{
	cel_val a, b, c;

	switch (n->fn) {
	case F_COND:
		c = eval(x, n->args[0]);
		if (is_err(&c))
			return c;
		if (c.kind != CEL_BOOL)
			return cel__no_overload(x->e, "_?_:_");
		return eval(x, n->args[c.u.b ? 1 : 2]);
	case F_AND:
	case F_OR: {
		bool stop = n->fn == F_OR; /* the value that decides */

		a = eval(x, n->args[0]);
		if (a.kind == CEL_BOOL && a.u.b == stop)
			return a;
		b = eval(x, n->args[1]);
		if (b.kind == CEL_BOOL && b.u.b == stop)
			return b;
		if (a.kind == CEL_BOOL && b.kind == CEL_BOOL)
			return cel_bool(!stop);
		if (is_err(&a))
			return a;
		if (is_err(&b))
			return b;
		return cel__no_overload(x->e, stop ? "_||_" : "_&&_");
	}
	case F_NOT_STRICTLY_FALSE:
		a = eval(x, n->args[0]);
		return cel_bool(!(a.kind == CEL_BOOL && !a.u.b));
	case F_MAP_INSERT:
	case F_MAP_MERGE:
		return map_step(x, n);
	default:
		break;
	}
	a = eval(x, n->args[0]);
	if (is_err(&a))
		return a;
	if (n->fn == F_NOT) {
		if (a.kind != CEL_BOOL)
			return cel__no_overload(x->e, "!_");
		return cel_bool(!a.u.b);
	}
	if (n->fn == F_NEG) {
		if (a.kind == CEL_INT) {
			if (a.u.i == INT64_MIN)
				return cel_error("integer overflow");
			return cel_int(-a.u.i);
		}
		if (a.kind == CEL_DOUBLE)
			return cel_double(-a.u.d);
		if (a.kind == CEL_DURATION) {
			a.u.t.sec = -a.u.t.sec;
			a.u.t.nsec = -a.u.t.nsec;
			return a;
		}
		return cel__no_overload(x->e, "-_");
	}
	b = eval(x, n->args[1]);
	if (is_err(&b))
		return b;
	switch (n->fn) {
	case F_ADD:
		return add(x, &a, &b, 1);
	case F_SUB:
		return add(x, &a, &b, -1);
	case F_MUL:
	case F_DIV:
	case F_MOD:
		return mul_div(x, n->fn, &a, &b);
	case F_EQ:
	case F_NE: {
		int r = cel__equal(x->e, &a, &b);

		/* cel-go: == is Equal's result (an error when it refuses), != is
		 * whether Equal is not true */
		if (r < 0 && n->fn == F_EQ)
			return cel__no_overload(x->e, "_==_");
		return cel_bool(n->fn == F_EQ ? r == 1 : r != 1);
	}
	case F_LT:
	case F_LE:
	case F_GT:
	case F_GE:
		return compare(x, n->fn, &a, &b);
	case F_IN:
		return in_op(x, &a, &b);
	case F_INDEX:
		return index_of(x, &a, &b, false);
	case F_OINDEX:
		if (a.kind != CEL_OPTIONAL && a.kind != CEL_LIST && a.kind != CEL_MAP)
			return cel__no_overload(x->e, "_[?_]");
		return index_of(x, &a, &b, true);
	default:
		return cel__no_overload(x->e, "?");
	}
}

/* Whether the identifier a select chain starts from is a variable (then
 * a.b.f() is a method call, not the namespaced function a.b.f). */
static bool root_bound(const ev *x, const cel_node *n)
{
	cel_val v;

	while (n->op == N_SELECT)
		n = n->target;
	return n->op == N_IDENT && lookup(x, n->name, n->nlen, &v);
}

static cel_val named_call(ev *x, const cel_node *n)
{
	cel_val recv, args[8];
	bool found;

	if (n->nargs > 8)
		return cel__no_overload(x->e, n->name);
	if (n->target) {
		/* a qualified global function (a namespace): optional.of(...) */
		char qn[128];
		size_t ql;

		if (n->nlen + 2 < sizeof(qn) &&
		    dotted(n->target, qn, sizeof(qn) - n->nlen - 2, &ql) && !root_bound(x, n->target)) {
			cel_val tv;

			if (!lookup(x, qn, ql, &tv) && ql == 8 && !memcmp(qn, "optional", 8)) {
				for (uint32_t i = 0; i < n->nargs; i++)
					args[i] = eval(x, n->args[i]);
				if (!strcmp(n->name, "of") && n->nargs == 1)
					return is_err(&args[0]) ? args[0] : optional_of(x->e, &args[0]);
				if (!strcmp(n->name, "none") && n->nargs == 0)
					return optional_none();
				if (!strcmp(n->name, "ofNonZeroValue") && n->nargs == 1) {
					cel_val *v = &args[0];
					bool zero = v->kind == CEL_NULL || (v->kind == CEL_BOOL && !v->u.b) ||
					            (v->kind == CEL_INT && !v->u.i) ||
					            (v->kind == CEL_UINT && !v->u.u) ||
					            (v->kind == CEL_DOUBLE && v->u.d == 0) ||
					            ((v->kind == CEL_STRING || v->kind == CEL_BYTES) &&
					             !v->u.s.n) ||
					            ((v->kind == CEL_LIST || v->kind == CEL_MAP) && !cel_len(v));

					if (is_err(v))
						return *v;
					return zero ? optional_none() : optional_of(x->e, v);
				}
				return cel__no_overload(x->e, n->name);
			}
			if (!lookup(x, qn, ql, &tv)) {
				/* a namespaced function: strings.quote, sets.contains */
				memcpy(qn + ql, ".", 1);
				memcpy(qn + ql + 1, n->name, n->nlen + 1);
				for (uint32_t i = 0; i < n->nargs; i++) {
					args[i] = eval(x, n->args[i]);
					if (is_err(&args[i]))
						return args[i];
				}
				cel_val r = cel__call(x->e, qn, NULL, args, n->nargs, &found);

				if (found)
					return r;
				return cel__errorf(x->e, "no such overload: %s", qn);
			}
		}
		recv = eval(x, n->target);
		if (is_err(&recv))
			return recv;
		/* optional's methods, lazily: orValue's argument only when none */
		if (recv.kind == CEL_OPTIONAL) {
			if (!strcmp(n->name, "hasValue") && n->nargs == 0)
				return cel_bool(recv.u.opt != NULL);
			if (!strcmp(n->name, "value") && n->nargs == 0)
				return recv.u.opt ? *recv.u.opt
				                  : cel_error("optional.none() dereference");
			if (!strcmp(n->name, "orValue") && n->nargs == 1)
				return recv.u.opt ? *recv.u.opt : eval(x, n->args[0]);
			if (!strcmp(n->name, "or") && n->nargs == 1)
				return recv.u.opt ? recv : eval(x, n->args[0]);
		}
	}
	for (uint32_t i = 0; i < n->nargs; i++) {
		args[i] = eval(x, n->args[i]);
		if (is_err(&args[i]))
			return args[i];
	}
	cel_val r;

	if (n->re) {
		/* a literal pattern, compiled with the program */
		const cel_val *s = n->target ? &recv : &args[0], *pat = n->target ? &args[0] : &args[1];
		bool limited = n->target && n->nargs == 2 && args[1].kind == CEL_INT;

		if (n->target ? n->nargs == 1 || (limited && !strcmp(n->name, "findAll"))
		              : n->nargs == 2 && !strcmp(n->name, "matches"))
			return cel__regex_call(x->e, n->name, s, pat, n->re, limited ? args[1].u.i : -1,
			                       &found);
	}
	r = cel__call(x->e, n->name, n->target ? &recv : NULL, args, n->nargs, &found);

	if (!found)
		return cel__errorf(x->e, "no such overload: %s", n->name);
	return r;
}

/* ---- literals of aggregates ---- */

static cel_val list_lit(ev *x, const cel_node *n)
{
	cel_val *it = n->nargs ? smp_arena_alloc(&x->e->arena, n->nargs * sizeof(*it)) : NULL;
	uint32_t k = 0;

	if (n->nargs && !it) {
		x->e->oom = true;
		return cel_error("out of memory");
	}
	for (uint32_t i = 0; i < n->nargs; i++) {
		cel_val v = eval(x, n->args[i]);

		if (is_err(&v))
			return v;
		if (n->opt && n->opt[i]) {
			if (v.kind != CEL_OPTIONAL)
				return cel__no_overload(x->e, "optional");
			if (!v.u.opt)
				continue;
			v = *v.u.opt;
		}
		it[k++] = v;
	}
	return cel__list(x->e, it, k);
}

static cel_val map_lit(ev *x, const cel_node *n)
{
	uint32_t m = n->nargs / 2, k = 0;
	cel_val *keys = m ? smp_arena_alloc(&x->e->arena, m * sizeof(*keys)) : NULL;
	cel_val *vals = m ? smp_arena_alloc(&x->e->arena, m * sizeof(*vals)) : NULL;

	if (m && (!keys || !vals)) {
		x->e->oom = true;
		return cel_error("out of memory");
	}
	for (uint32_t i = 0; i < m; i++) {
		cel_val kv = eval(x, n->args[2 * i]), vv, prev;

		if (is_err(&kv))
			return kv;
		if (kv.kind != CEL_STRING && kv.kind != CEL_INT && kv.kind != CEL_UINT &&
		    kv.kind != CEL_BOOL)
			return cel__errorf(x->e, "unsupported key type");
		vv = eval(x, n->args[2 * i + 1]);
		if (is_err(&vv))
			return vv;
		if (n->opt && n->opt[i]) {
			if (vv.kind != CEL_OPTIONAL)
				return cel__no_overload(x->e, "optional");
			if (!vv.u.opt)
				continue;
			vv = *vv.u.opt;
		}
		cel_val sofar = map_of(x->e, keys, vals, k);

		if (cel__map_find(x->e, &sofar, &kv, &prev))
			return cel__errorf(x->e, "Failed with repeated key");
		keys[k] = kv;
		vals[k++] = vv;
	}
	return map_of(x->e, keys, vals, k);
}

/* ---- comprehensions ---- */

static bool push(ev *x, const char *name, cel_val v)
{
	if (x->sc.depth >= sizeof(x->sc.stack) / sizeof(x->sc.stack[0]))
		return false;
	x->sc.stack[x->sc.depth].name = name;
	x->sc.stack[x->sc.depth].val = v;
	x->sc.depth++;
	return true;
}

static cel_val comprehension(ev *x, const cel_node *n)
{
	const cel_comp *c = n->comp;
	cel_val range = eval(x, c->range), accu;
	size_t base = x->sc.depth;
	uint32_t len;

	if (is_err(&range))
		return range;
	if (range.kind != CEL_LIST && range.kind != CEL_MAP)
		return cel__no_overload(x->e, "comprehension");
	accu = eval(x, c->init);
	len = cel_len(&range);
	/* the slots: accu, then the iteration variables */
	if (!push(x, c->accu, accu) || !push(x, c->iter ? c->iter : "", cel_null()) ||
	    !push(x, c->iter2 ? c->iter2 : "", cel_null())) {
		x->sc.depth = base;
		return cel_error("comprehensions nested too deeply");
	}
	for (uint32_t i = 0; i < len; i++) {
		cel_val cond;

		if (!cel__charge(x->e, 1)) {
			x->sc.depth = base;
			return cel_error("operation cancelled: actual cost limit exceeded");
		}
		if (range.kind == CEL_LIST) {
			if (c->iter2) {
				x->sc.stack[base + 1].val = cel_int(i);
				x->sc.stack[base + 2].val = cel_item(x->e, &range, i);
			} else {
				x->sc.stack[base + 1].val = cel_item(x->e, &range, i);
			}
		} else {
			x->sc.stack[base + 1].val = cel_key(x->e, &range, i);
			if (c->iter2)
				x->sc.stack[base + 2].val = cel_item(x->e, &range, i);
		}
		cond = eval(x, c->cond);
		if (cond.kind == CEL_BOOL && !cond.u.b)
			break;
		x->sc.stack[base].val = eval(x, c->step);
		if (x->e->oom)
			break;
	}
	/* the result sees the accumulator, not the iteration variables */
	x->sc.depth = base + 1;
	accu = eval(x, c->result);
	x->sc.depth = base;
	return accu;
}

/* ---- the walk ---- */

static cel_val eval(ev *x, const cel_node *n)
{
	cel_val v;

	if (!n)
		return cel_error("internal error: no node");
	if (x->e->oom)
		return cel_error("out of memory");
	if (!cel__charge(x->e, 1))
		return cel_error("operation cancelled: actual cost limit exceeded");
	if (++x->nest > 1000) {
		x->nest--;
		return cel_error("recursion limit exceeded");
	}
	switch (n->op) {
	case N_LIT:
		v = n->lit;
		break;
	case N_IDENT:
		if (!lookup(x, n->name, n->nlen, &v) && !type_ident(n->name, n->nlen, &v))
			v = cel__errorf(x->e, "no such attribute: %.*s", (int)n->nlen, n->name);
		break;
	case N_SELECT: {
		char qn[256];
		size_t ql;

		if (!n->test && dotted(n, qn, sizeof(qn), &ql) &&
		    (lookup(x, qn, ql, &v) || type_ident(qn, ql, &v)))
			break;
		cel_val t = eval(x, n->target);

		if (t.kind == CEL_OPTIONAL) {
			/* selection through an optional gives an optional; has()
			 * through one is false when it is empty */
			if (!t.u.opt) {
				v = n->test ? cel_bool(false) : t;
				break;
			}
			cel_val inner = *t.u.opt;

			v = select_field(x, &inner, n->name, n->nlen, n->test);
			if (!n->test && !is_err(&v))
				v = optional_of(x->e, &v);
			else if (!n->test && inner.kind == CEL_MAP)
				v = optional_none();
			break;
		}
		v = select_field(x, &t, n->name, n->nlen, n->test);
		break;
	}
	case N_OSELECT: {
		cel_val t = eval(x, n->target), out, key = cel_str(n->name, n->nlen);

		if (t.kind == CEL_OPTIONAL) {
			if (!t.u.opt) {
				v = t;
				break;
			}
			t = *t.u.opt;
		}
		if (is_err(&t))
			v = t;
		else if (t.kind == CEL_MAP)
			v = cel__map_find(x->e, &t, &key, &out) ? optional_of(x->e, &out)
			                                         : optional_none();
		else
			v = cel__errorf(x->e, "no such key: %.*s", (int)n->nlen, n->name);
		break;
	}
	case N_CALL:
		v = n->fn == F_NONE ? named_call(x, n) : operator_call(x, n);
		break;
	case N_LIST:
		v = list_lit(x, n);
		break;
	case N_MAP:
		v = map_lit(x, n);
		break;
	case N_COMP:
		v = comprehension(x, n);
		break;
	default:
		v = cel__errorf(x->e, "unsupported expression");
		break;
	}
	x->nest--;
	return v;
}

cel_val cel_run(cel_eval *e, const cel_program *p, const cel_var *vars, size_t nvars)
{
	ev x;

	memset(&x, 0, sizeof(x));
	x.e = e;
	x.sc.vars = vars;
	x.sc.nvars = nvars;
	return eval(&x, p->root);
}
