/*
 * value.c - CEL values: a document's values seen through cel_typing
 * (views that convert elements as they are read), element access, CEL's
 * heterogeneous equality with cross-type numeric comparison (cel-go's
 * default in Kubernetes 1.32), and type names.
 */
#include "cel/cel_int.h"
#include "cel/eval_int.h"

#include <math.h>
#include <string.h>

static cel_val agg_val(cel_eval *e, cel_kind k, const smp_value *json, const void *type,
                       const cel_typing *typing)
{
	cel_agg *a = smp_arena_alloc(&e->arena, sizeof(*a));
	cel_val v;

	if (!a) {
		e->oom = true;
		return cel_error("out of memory");
	}
	memset(a, 0, sizeof(*a));
	a->json = json;
	a->type = type;
	a->typing = typing;
	a->n = k == CEL_LIST ? json->u.list.len : json->u.map.len;
	v.kind = (uint8_t)k;
	v.u.agg = a;
	return v;
}

cel_val cel_from_json(cel_eval *e, const smp_value *v, const void *type,
                      const cel_typing *typing)
{
	cel_kind as = type && typing && typing->scalar ? typing->scalar(type) : CEL_NULL;

	switch (v ? v->type : SMP_NULL) {
	case SMP_NULL:
		return cel_null();
	case SMP_BOOL:
		return cel_bool(v->u.b);
	case SMP_INT:
		return as == CEL_DOUBLE ? cel_double((double)v->u.i) : cel_int(v->u.i);
	case SMP_FLOAT:
		return cel_double(v->u.f);
	case SMP_STRING:
		if (as == CEL_TIMESTAMP || as == CEL_DURATION) {
			cel_val s = cel_str(v->u.s.ptr, v->u.s.len);

			return as == CEL_TIMESTAMP ? cel__timestamp_parse(&s) : cel__duration_parse(&s);
		}
		if (as == CEL_BYTES)
			return cel__base64_bytes(e, v->u.s.ptr, v->u.s.len);
		return cel_str(v->u.s.ptr, v->u.s.len);
	case SMP_LIST:
		return agg_val(e, CEL_LIST, v, type, typing);
	case SMP_MAP:
		return agg_val(e, CEL_MAP, v, type, typing);
	default:
		return cel_null();
	}
}

uint32_t cel_len(const cel_val *v)
{
	return v->kind == CEL_LIST || v->kind == CEL_MAP ? v->u.agg->n : 0;
}

static const void *child_type(const cel_agg *a, const char *key, size_t klen)
{
	return a->type && a->typing && a->typing->child ? a->typing->child(a->type, key, klen)
	                                                : NULL;
}

cel_val cel_item(cel_eval *e, const cel_val *v, uint32_t i)
{
	const cel_agg *a = v->u.agg;

	if (!a->json)
		return a->items[i];
	if (v->kind == CEL_LIST)
		return cel_from_json(e, a->json->u.list.items[i], child_type(a, NULL, 0), a->typing);
	return cel_from_json(e, a->json->u.map.items[i].val,
	                     child_type(a, a->json->u.map.items[i].key,
	                                a->json->u.map.items[i].klen),
	                     a->typing);
}

cel_val cel_key(cel_eval *e, const cel_val *v, uint32_t i)
{
	const cel_agg *a = v->u.agg;

	(void)e;
	if (!a->json)
		return a->keys[i];
	return cel_str(a->json->u.map.items[i].key, a->json->u.map.items[i].klen);
}

/* Numeric comparison across int, uint and double: -1, 0, 1, or 2 when
 * unordered (NaN). */
int cel__num_cmp(const cel_val *a, const cel_val *b)
{
	if (a->kind == b->kind) {
		switch (a->kind) {
		case CEL_INT:
			return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
		case CEL_UINT:
			return a->u.u < b->u.u ? -1 : a->u.u > b->u.u;
		default:
			if (isnan(a->u.d) || isnan(b->u.d))
				return 2;
			return a->u.d < b->u.d ? -1 : a->u.d > b->u.d;
		}
	}
	if (a->kind == CEL_INT && b->kind == CEL_UINT)
		return a->u.i < 0 || (uint64_t)a->u.i < b->u.u ? -1 : (uint64_t)a->u.i > b->u.u;
	if (a->kind == CEL_UINT && b->kind == CEL_INT)
		return -cel__num_cmp(b, a);
	if (a->kind == CEL_DOUBLE || b->kind == CEL_DOUBLE) {
		/* cel-go's compareDoubleInt and compareDoubleUint: out of the
		 * integer's range by the bounds as doubles, else the integer
		 * converted to a double (lossy, as Go converts it) */
		const cel_val *d = a->kind == CEL_DOUBLE ? a : b, *n = a->kind == CEL_DOUBLE ? b : a;
		int sign = a->kind == CEL_DOUBLE ? 1 : -1, r;
		double x = d->u.d, y;

		if (isnan(x))
			return 2;
		if (n->kind == CEL_INT) {
			if (x < (double)INT64_MIN)
				return sign * -1;
			if (x > (double)INT64_MAX)
				return sign;
			y = (double)n->u.i;
		} else {
			if (x < 0)
				return sign * -1;
			if (x > (double)UINT64_MAX)
				return sign;
			y = (double)n->u.u;
		}
		r = x < y ? -1 : x > y;
		return sign * r;
	}
	return 2;
}

static bool is_num(const cel_val *v)
{
	return v->kind == CEL_INT || v->kind == CEL_UINT || v->kind == CEL_DOUBLE;
}

/* Equality of two values without an evaluation (views of documents are
 * compared through a scratch evaluation of their own). */
static int equal_in(cel_eval *e, const cel_val *a, const cel_val *b)
{
	if (a->kind == CEL_ERROR || b->kind == CEL_ERROR)
		return -1;
	if (is_num(a) && is_num(b))
		return cel__num_cmp(a, b) == 0;
	/* a library type's Equal refuses another kind (no such overload);
	 * null is equal to null only, whichever side */
	if (a->kind == CEL_OPAQUE && b->kind != CEL_OPAQUE && b->kind != CEL_NULL)
		return -1;
	if (a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case CEL_NULL:
		return 1;
	case CEL_BOOL:
		return a->u.b == b->u.b;
	case CEL_STRING:
	case CEL_BYTES:
	case CEL_TYPE:
		return a->u.s.n == b->u.s.n && memcmp(a->u.s.p, b->u.s.p, a->u.s.n) == 0;
	case CEL_DURATION:
	case CEL_TIMESTAMP:
		return a->u.t.sec == b->u.t.sec && a->u.t.nsec == b->u.t.nsec;
	case CEL_IP:
	case CEL_CIDR:
		return cel__net_equal(a, b);
	case CEL_OPAQUE: {
		/* the library type's Equal: another type, or a value it does
		 * not take (cmp -2), is "no such overload" */
		int c = strcmp(a->u.obj->type, b->u.obj->type) == 0 && a->u.obj->cmp
		            ? a->u.obj->cmp(a->u.obj, b->u.obj)
		            : -2;

		return c == -2 ? -1 : c == 0;
	}
	case CEL_OPTIONAL:
		if (!a->u.opt || !b->u.opt)
			return !a->u.opt && !b->u.opt;
		return equal_in(e, a->u.opt, b->u.opt);
	case CEL_LIST: {
		uint32_t n = cel_len(a);

		if (n != cel_len(b))
			return 0;
		for (uint32_t i = 0; i < n; i++) {
			cel_val x = cel_item(e, a, i), y = cel_item(e, b, i);
			/* cel-go's lists and maps: only a false element decides
			 * (an element's error is passed over) */
			if (equal_in(e, &x, &y) == 0)
				return 0;
		}
		return 1;
	}
	case CEL_MAP: {
		uint32_t n = cel_len(a);

		if (n != cel_len(b))
			return 0;
		for (uint32_t i = 0; i < n; i++) {
			cel_val k = cel_key(e, a, i), x = cel_item(e, a, i), y;

			if (!cel__map_find(e, b, &k, &y))
				return 0;
			if (equal_in(e, &x, &y) == 0)
				return 0;
		}
		return 1;
	}
	default:
		return 0;
	}
}

int cel_equal(const cel_val *a, const cel_val *b)
{
	cel_eval e;
	int r;

	cel_eval_init(&e, 0);
	r = equal_in(&e, a, b);
	cel_eval_release(&e);
	return r;
}

int cel__equal(cel_eval *e, const cel_val *a, const cel_val *b)
{
	return equal_in(e, a, b);
}

/* Kubernetes' unescaping of a property name (apiserver/pkg/cel/escaping.go):
 * __{keyword}__ for CEL's reserved words, then __underscores__, __dot__,
 * __dash__ and __slash__ for "__", ".", "-" and "/". Into buf (cap bytes);
 * its length, or (size_t)-1 when it does not fit. */
static size_t unescape(const char *p, size_t n, char *buf, size_t cap)
{
	static const char *const reserved[] = {
		"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
		"function", "if", "import", "let", "loop", "package", "namespace", "return", "var",
		"void", "while",
	};
	static const struct {
		const char *from, *to;
	} esc[] = {{"__underscores__", "__"}, {"__dot__", "."}, {"__dash__", "-"},
	           {"__slash__", "/"}};
	size_t o = 0;

	if (n > 4 && p[0] == '_' && p[1] == '_' && p[n - 1] == '_' && p[n - 2] == '_')
		for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
			if (strlen(reserved[i]) == n - 4 && !memcmp(p + 2, reserved[i], n - 4)) {
				if (n - 4 > cap)
					return (size_t)-1;
				memcpy(buf, p + 2, n - 4);
				return n - 4;
			}
	for (size_t i = 0; i < n;) {
		size_t k, el = 0;

		for (k = 0; k < sizeof(esc) / sizeof(esc[0]); k++) {
			el = strlen(esc[k].from);
			if (n - i >= el && !memcmp(p + i, esc[k].from, el))
				break;
		}
		if (k < sizeof(esc) / sizeof(esc[0])) {
			size_t tl = strlen(esc[k].to);

			if (o + tl > cap)
				return (size_t)-1;
			memcpy(buf + o, esc[k].to, tl);
			o += tl;
			i += el;
		} else {
			if (o + 1 > cap)
				return (size_t)-1;
			buf[o++] = p[i++];
		}
	}
	return o;
}

bool cel__map_find(cel_eval *e, const cel_val *m, const cel_val *key, cel_val *out)
{
	const cel_agg *a = m->u.agg;

	if (a->json) {
		ptrdiff_t j;
		char name[256];
		const char *k = key->u.s.p;
		size_t kn = key->u.s.n;

		if (key->kind != CEL_STRING)
			return false;
		if (a->type && a->typing && a->typing->object && a->typing->object(a->type) &&
		    memchr(k, '_', kn)) {
			kn = unescape(key->u.s.p, key->u.s.n, name, sizeof(name));
			if (kn == (size_t)-1)
				return false;
			k = name;
		}
		j = smpv_map_find(a->json, k, kn);
		if (j < 0)
			return false;
		*out = cel_from_json(e, a->json->u.map.items[j].val, child_type(a, k, kn), a->typing);
		return true;
	}
	for (uint32_t i = 0; i < a->n; i++) {
		const cel_val *k = &a->keys[i];

		if ((is_num(k) && is_num(key) && cel__num_cmp(k, key) == 0) ||
		    (k->kind == key->kind && !is_num(k) && equal_in(e, k, key) == 1)) {
			*out = a->items[i];
			return true;
		}
	}
	return false;
}

const char *cel_type_name(const cel_val *v)
{
	switch (v->kind) {
	case CEL_NULL:
		return "null_type";
	case CEL_BOOL:
		return "bool";
	case CEL_INT:
		return "int";
	case CEL_UINT:
		return "uint";
	case CEL_DOUBLE:
		return "double";
	case CEL_STRING:
		return "string";
	case CEL_BYTES:
		return "bytes";
	case CEL_LIST:
		return "list";
	case CEL_MAP:
		return "map";
	case CEL_TYPE:
		return "type";
	case CEL_DURATION:
		return "google.protobuf.Duration";
	case CEL_TIMESTAMP:
		return "google.protobuf.Timestamp";
	case CEL_OPTIONAL:
		return "optional_type";
	case CEL_IP:
		return "net.IP";
	case CEL_CIDR:
		return "net.CIDR";
	case CEL_OPAQUE:
		return v->u.obj->type;
	default:
		return "error";
	}
}
