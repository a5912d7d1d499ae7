/*
 * cel_libs.c - the Kubernetes CEL libraries that need the apply layer
 * (apiserver/pkg/cel/library, 1.32), added to cel/ as its caller's
 * functions (cel_eval.ext):
 *
 * - quantity.go over resource.Quantity computed as Go computes it: an
 *   int64Amount{value, scale} while it fits, else an inf.Dec, so that
 *   asInteger, isInteger and asApproximateFloat see the representation Go
 *   has. Go's aliasing is kept too: add and sub copy the Quantity struct,
 *   so an inf.Dec is shared with the result and changed in place, and
 *   compareTo, isGreaterThan and isLessThan turn their receiver into an
 *   inf.Dec when either side is one; both show through a comprehension's
 *   variable (`l.all(q, q.add(1) == q)`). add and sub return a pointer,
 *   whose `==` with a Quantity on its left is "no such overload".
 * - format.go: format.named(), format.<name>() and validate(), with the
 *   apimachinery and kube-openapi validators' messages.
 */
#include "apply/check.h"
#include "apply/apply_int.h"
#include "cel/cel.h"
#include "codec/codec.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- quantity ---- */

static const char quantity_type[] = "kubernetes.Quantity";

/* An inf.Dec: sign * digits * 10^-scale (digits without leading zeros,
 * none for zero). Shared by a quantity and the results of its add/sub. */
typedef struct gdec {
	int sign;
	const char *digits;
	size_t n;
	int32_t scale;
} gdec;

/* A resource.Quantity: dec, or int64Amount{value, scale}. `o` first: the
 * value CEL holds is &o. */
typedef struct gq {
	cel_opaque o;
	gdec *dec;
	int64_t value;
	int32_t scale;
	bool pointer; /* made by add/sub (*apiservercel.Quantity) */
} gq;

/* Past this many digits an inf.Dec is not computed (Go would spend
 * gigabytes on a scale of 10^9); the call is an error, not predicted. */
#define DEC_MAX_DIGITS 100000

static cel_val oom(cel_eval *e)
{
	e->oom = true;
	return cel_error("out of memory");
}

/* |v|'s decimal digits into buf (room 20), returning their number (0 for
 * zero). */
static size_t u64_digits(char *buf, uint64_t v)
{
	char t[20];
	size_t n = 0;

	while (v) {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	}
	for (size_t i = 0; i < n; i++)
		buf[i] = t[n - 1 - i];
	return n;
}

static uint64_t mag64(int64_t v)
{
	return v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
}

/* inf.NewDec(value, -scale) in e's arena (int64Amount.AsDec). */
static gdec *dec_of_int(cel_eval *e, int64_t value, int32_t scale)
{
	gdec *d = smp_arena_alloc(&e->arena, sizeof(*d));
	char *p = smp_arena_alloc(&e->arena, 21);

	if (!d || !p)
		return NULL;
	d->n = u64_digits(p, mag64(value));
	d->digits = p;
	d->sign = value < 0 ? -1 : value > 0;
	d->scale = (int32_t)(0u - (uint32_t)scale); /* Go's int32 negation */
	return d;
}

static bool dec_of(cel_eval *e, gq *q)
{
	if (!q->dec) {
		q->dec = dec_of_int(e, q->value, q->scale);
		q->value = 0;
		q->scale = 0;
	}
	return q->dec != NULL;
}

/* The value's digits and exponent, without changing q (AsDec on a copy). */
static void value_of(const gq *q, char *buf, const char **dig, size_t *n, int64_t *exp, int *sign)
{
	if (q->dec) {
		*dig = q->dec->digits;
		*n = q->dec->n;
		*exp = -(int64_t)q->dec->scale;
		*sign = q->dec->sign;
	} else {
		*n = u64_digits(buf, mag64(q->value));
		*dig = buf;
		*exp = q->scale;
		*sign = q->value < 0 ? -1 : q->value > 0;
	}
}

/* Quantity.Cmp by value. */
static int gq_cmp(const gq *a, const gq *b)
{
	char ba[20], bb[20];
	const char *da, *db;
	size_t na, nb;
	int64_t ea, eb;
	int sa, sb, c;

	value_of(a, ba, &da, &na, &ea, &sa);
	value_of(b, bb, &db, &nb, &eb, &sb);
	if (sa != sb)
		return sa < sb ? -1 : 1;
	c = smp__mag_cmp(da, na, ea, db, nb, eb);
	return sa < 0 ? -c : c;
}

/* apiservercel.Quantity.Equal: the right side must be a Quantity, not the
 * pointer add and sub return (-2: no such overload). */
static int quantity_eq(const cel_opaque *a, const cel_opaque *b)
{
	const gq *y = (const gq *)b;

	if (y->pointer)
		return -2;
	return gq_cmp((const gq *)a, y);
}

static cel_val gq_val(gq *q)
{
	cel_val v;

	v.kind = CEL_OPAQUE;
	v.u.obj = &q->o;
	return v;
}

static gq *gq_new(cel_eval *e)
{
	gq *q = smp_arena_alloc(&e->arena, sizeof(*q));

	if (!q)
		return NULL;
	memset(q, 0, sizeof(*q));
	q->o.type = quantity_type;
	q->o.cmp = quantity_eq;
	return q;
}

/* resource.ParseQuantity as a CEL value. */
static cel_val parse(cel_eval *e, const cel_val *s)
{
	smp_quantity *p = NULL;
	smp_error err;
	smp__quantity_rep r;
	gq *q;
	int rc = smp_quantity_parse(&p, s->u.s.p, s->u.s.n, &err);

	if (rc == SMP_ENOMEM)
		return oom(e);
	if (rc) {
		char *m = smp_arena_strndup(&e->arena, err.message, strlen(err.message));

		return m ? cel_error(m) : oom(e);
	}
	smp__quantity_repr(p, &r);
	q = gq_new(e);
	if (!q)
		goto nomem;
	if (r.int64_amount) {
		/* digits * 10^(exp - go_exp) fits: the parser kept it an int64 */
		uint64_t m = 0;

		for (size_t i = 0; i < r.ndigits; i++)
			m = m * 10 + (uint64_t)(r.digits[i] - '0');
		for (int64_t i = r.go_exp; i < r.exp; i++)
			m *= 10;
		q->value = r.sign < 0 ? (int64_t)(0 - m) : (int64_t)m;
		q->scale = (int32_t)r.go_exp;
	} else {
		/* the unscaled digits: the value's, then exp - go_exp zeros
		 * (past DEC_MAX_DIGITS Go would allocate them: not predicted) */
		size_t z = (size_t)(r.ndigits ? r.exp - r.go_exp : 0);
		char *d;

		if (z > DEC_MAX_DIGITS) {
			smp_quantity_free(p);
			return cel_error("quantity too large to compute");
		}
		d = smp_arena_alloc(&e->arena, r.ndigits + z + 1);

		q->dec = smp_arena_alloc(&e->arena, sizeof(gdec));
		if (!d || !q->dec)
			goto nomem;
		memcpy(d, r.digits, r.ndigits);
		memset(d + r.ndigits, '0', z);
		d[r.ndigits + z] = '\0';
		q->dec->digits = d;
		q->dec->n = r.ndigits + z;
		q->dec->sign = r.sign;
		q->dec->scale = (int32_t)-r.go_exp;
	}
	smp_quantity_free(p);
	return gq_val(q);
nomem:
	smp_quantity_free(p);
	return oom(e);
}

/* positiveScaleInt64: base * 10^scale when it fits (a negative scale,
 * which Go's int32 subtraction can make, loops zero times: base). */
static bool scale_up(int64_t base, int64_t scale, int64_t *out)
{
	int64_t v = base;

	if (scale > 0 && base != 0) {
		if (base == INT64_MIN)
			return false;
		for (int64_t i = 0; i < scale; i++)
			if (__builtin_mul_overflow(v, 10, &v))
				return false;
	}
	*out = v;
	return true;
}

/* Go's int32 a - b (Scale arithmetic wraps). */
static int32_t sub32(int32_t a, int32_t b)
{
	return (int32_t)((uint32_t)a - (uint32_t)b);
}

/* int64Amount.Add: false (a unchanged) when the sum does not fit. */
static bool int_add(gq *a, int64_t bv, int32_t bs)
{
	int64_t c;

	if (bv == 0)
		return true;
	if (a->value == 0) {
		a->value = bv;
		a->scale = bs;
		return true;
	}
	if (a->scale == bs) {
		if (__builtin_add_overflow(a->value, bv, &c))
			return false;
		a->value = c;
	} else if (a->scale > bs) {
		if (!scale_up(a->value, sub32(a->scale, bs), &c) ||
		    __builtin_add_overflow(c, bv, &c))
			return false;
		a->scale = bs;
		a->value = c;
	} else {
		if (!scale_up(bv, sub32(bs, a->scale), &c) ||
		    __builtin_add_overflow(a->value, c, &c))
			return false;
		a->value = c;
	}
	return true;
}

/* z = x + y (sign of y flipped when neg) as inf.Dec.Add: at the larger
 * scale. z may be x (the shared inf.Dec is changed in place). */
static int dec_add(cel_eval *e, gdec *z, const gdec *x, const gdec *y, bool neg)
{
	int32_t s = x->scale > y->scale ? x->scale : y->scale;
	size_t zx = x->n ? (size_t)((int64_t)s - x->scale) : 0;
	size_t zy = y->n ? (size_t)((int64_t)s - y->scale) : 0;
	size_t lx = x->n + zx, ly = y->n + zy, n = (lx > ly ? lx : ly) + 1;
	int sx = x->sign, sy = neg ? -y->sign : y->sign, sign;
	char *out;

	if (zx > DEC_MAX_DIGITS || zy > DEC_MAX_DIGITS)
		return -1;
	out = smp_arena_alloc(&e->arena, n + 1);
	if (!out)
		return -2;
	/* |x| and |y| aligned, digit i from the right */
#define DIG(d, l, zz, i) ((i) < (zz) ? 0 : (i) < (l) ? (d)->digits[(l) - 1 - (i)] - '0' : 0)
	if (!sx || !sy || sx == sy) {
		int carry = 0;

		for (size_t i = 0; i < n; i++) {
			int t = DIG(x, lx, zx, i) + DIG(y, ly, zy, i) + carry;

			out[n - 1 - i] = (char)('0' + t % 10);
			carry = t / 10;
		}
		sign = sx ? sx : sy;
	} else {
		/* the larger magnitude minus the smaller */
		int c = smp__mag_cmp(x->digits, x->n, -(int64_t)x->scale, y->digits, y->n,
		                     -(int64_t)y->scale);
		const gdec *big = c >= 0 ? x : y, *small = c >= 0 ? y : x;
		size_t lb = c >= 0 ? lx : ly, ls = c >= 0 ? ly : lx;
		size_t zb = c >= 0 ? zx : zy, zs = c >= 0 ? zy : zx;
		int borrow = 0;

		for (size_t i = 0; i < n; i++) {
			int t = DIG(big, lb, zb, i) - DIG(small, ls, zs, i) - borrow;

			borrow = t < 0;
			out[n - 1 - i] = (char)('0' + (t + 10) % 10);
		}
		sign = c == 0 ? 0 : c > 0 ? sx : sy;
	}
#undef DIG
	size_t k = 0;

	while (k < n && out[k] == '0')
		k++;
	out[n] = '\0';
	z->digits = out + k;
	z->n = n - k;
	z->sign = z->n ? sign : 0;
	z->scale = s;
	return 0;
}

/* q.add(y) / q.sub(y) (y: a quantity, or an int as NewQuantity makes it):
 * Go's Quantity.Add and Sub on a copy of q. */
static cel_val add_sub(cel_eval *e, gq *q, const gq *yq, int64_t yi, bool sub)
{
	gq *r = gq_new(e);
	int64_t yv = yq ? yq->value : yi;
	int32_t ys = yq ? yq->scale : 0;
	gdec ytmp;
	const gdec *yd;
	int rc;

	if (!r)
		return oom(e);
	r->dec = q->dec; /* the struct copy shares the inf.Dec */
	r->value = q->value;
	r->scale = q->scale;
	r->pointer = true;
	if (!r->dec && !(yq && yq->dec)) {
		/* int64Amount.Sub negates with Go's wrap */
		int64_t v = sub ? (int64_t)(0 - (uint64_t)yv) : yv;

		if (int_add(r, v, ys))
			return gq_val(r);
	}
	if (!dec_of(e, r))
		return oom(e);
	if (yq && yq->dec) {
		yd = yq->dec;
	} else {
		gdec *t = dec_of_int(e, yv, ys);

		if (!t)
			return oom(e);
		ytmp = *t;
		yd = &ytmp;
	}
	rc = dec_add(e, r->dec, r->dec, yd, sub);
	if (rc == -2)
		return oom(e);
	if (rc)
		return cel_error("quantity arithmetic out of range");
	return gq_val(r);
}

/* Quantity.AsInt64. */
static bool as_int64(const gq *q, int64_t *out)
{
	if (q->dec || q->scale < 0)
		return false;
	return scale_up(q->value, q->scale, out);
}

/* math.Pow10, with Go's tables (a product or quotient of two entries, not
 * always the nearest double). */
static double go_pow10(int64_t n)
{
	static const double tab[32] = {
		1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07, 1e08, 1e09, 1e10,
		1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
		1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31};
	static const double pos32[10] = {1e00,  1e32,  1e64,  1e96,  1e128,
	                                 1e160, 1e192, 1e224, 1e256, 1e288};
	static const double neg32[11] = {1e-00,  1e-32,  1e-64,  1e-96,  1e-128, 1e-160,
	                                 1e-192, 1e-224, 1e-256, 1e-288, 1e-320};

	if (n >= 0 && n <= 308)
		return pos32[n / 32] * tab[n % 32];
	if (n >= -323 && n <= 0)
		return neg32[-n / 32] / tab[-n % 32];
	return n > 0 ? INFINITY : 0;
}

/* Quantity.AsApproximateFloat64: the unscaled value (big.Float's nearest
 * double) times Pow10 of its exponent. */
static cel_val approx(cel_eval *e, const gq *q)
{
	double base;
	int64_t exp;

	if (q->dec) {
		char *s = smp_arena_alloc(&e->arena, q->dec->n + 3);

		if (!s)
			return oom(e);
		s[0] = q->dec->sign < 0 ? '-' : '+';
		s[1] = '0';
		memcpy(s + 2, q->dec->digits, q->dec->n);
		s[q->dec->n + 2] = '\0';
		base = strtod(s, NULL);
		exp = -(int64_t)q->dec->scale;
	} else {
		base = (double)q->value;
		exp = q->scale;
	}
	return cel_double(exp == 0 ? base : base * go_pow10(exp));
}

static bool is_q(const cel_val *v)
{
	return v->kind == CEL_OPAQUE && v->u.obj->type == quantity_type;
}

/* The quantity library's functions; *found false for others. */
static cel_val quantity_call(cel_eval *e, const char *name, const cel_val *r, const cel_val *a,
                             uint32_t n, bool *found)
{
	*found = true;
	if (!r && n == 1 && a[0].kind == CEL_STRING &&
	    (!strcmp(name, "quantity") || !strcmp(name, "isQuantity")))
		e->cost += cel_traversal_cost((uint64_t)cel_str_runes(&a[0]));
	if (!r && n == 1 && a[0].kind == CEL_STRING) {
		if (!strcmp(name, "quantity"))
			return parse(e, &a[0]);
		if (!strcmp(name, "isQuantity")) {
			smp_quantity *p = NULL;
			int rc = smp_quantity_parse(&p, a[0].u.s.p, a[0].u.s.n, NULL);

			smp_quantity_free(p);
			return rc == SMP_ENOMEM ? oom(e) : cel_bool(rc == 0);
		}
	}
	if (!r && n == 1 && is_q(&a[0]) && !strcmp(name, "sign")) {
		const gq *q = (const gq *)a[0].u.obj;

		return cel_int(q->dec ? q->dec->sign : q->value < 0 ? -1 : q->value > 0);
	}
	if (r && is_q(r)) {
		/* the CEL value's *resource.Quantity: calls may change it */
		gq *q = (gq *)(uintptr_t)r->u.obj;
		int64_t i;

		if (n == 0 && !strcmp(name, "isInteger"))
			return cel_bool(as_int64(q, &i));
		if (n == 0 && !strcmp(name, "asInteger"))
			return as_int64(q, &i) ? cel_int(i)
			                       : cel_error("cannot convert value to integer");
		if (n == 0 && !strcmp(name, "asApproximateFloat"))
			return approx(e, q);
		if (n == 1 && is_q(&a[0]) &&
		    (!strcmp(name, "isGreaterThan") || !strcmp(name, "isLessThan") ||
		     !strcmp(name, "compareTo"))) {
			const gq *y = (const gq *)a[0].u.obj;
			int c;

			/* Quantity.Cmp: q.AsDec() unless both are int64Amounts */
			if ((q->dec || y->dec) && !dec_of(e, q))
				return oom(e);
			c = gq_cmp(q, y);
			if (name[0] == 'c')
				return cel_int(c);
			return cel_bool(name[2] == 'G' ? c > 0 : c < 0);
		}
		if (n == 1 && (!strcmp(name, "add") || !strcmp(name, "sub"))) {
			if (is_q(&a[0]))
				return add_sub(e, q, (const gq *)a[0].u.obj, 0, name[0] == 's');
			if (a[0].kind == CEL_INT)
				return add_sub(e, q, NULL, a[0].u.i, name[0] == 's');
		}
	}
	*found = false;
	return cel_null();
}

/* ---- format ---- */

static const char format_type[] = "kubernetes.NamedFormat";

/* Each format's MaxRegexSize (library/format.go), for the cost of
 * validate: the lengths of the patterns the validators stand for. */
static const uint16_t max_regex[] = {30, 60, 30, 60, 30, 60, 30, 40, 1103, 70, 84, 71, 71};

enum fmt_kind {
	F_DNS1123_LABEL, F_DNS1123_SUBDOMAIN, F_DNS1035_LABEL, F_QUALIFIED_NAME,
	F_DNS1123_LABEL_PREFIX, F_DNS1123_SUBDOMAIN_PREFIX, F_DNS1035_LABEL_PREFIX,
	F_LABEL_VALUE, F_URI, F_UUID, F_BYTE, F_DATE, F_DATETIME, F_COUNT
};

static int format_eq(const cel_opaque *a, const cel_opaque *b)
{
	return a == b ? 0 : 1; /* one constant per format: Equal by Name */
}

/* The library's ConstantFormats, by the names CEL uses. */
static const cel_opaque formats[F_COUNT] = {
	{format_type, "dns1123Label", 12, format_eq},
	{format_type, "dns1123Subdomain", 16, format_eq},
	{format_type, "dns1035Label", 12, format_eq},
	{format_type, "qualifiedName", 13, format_eq},
	{format_type, "dns1123LabelPrefix", 18, format_eq},
	{format_type, "dns1123SubdomainPrefix", 22, format_eq},
	{format_type, "dns1035LabelPrefix", 18, format_eq},
	{format_type, "labelValue", 10, format_eq},
	{format_type, "uri", 3, format_eq},
	{format_type, "uuid", 4, format_eq},
	{format_type, "byte", 4, format_eq},
	{format_type, "date", 4, format_eq},
	{format_type, "datetime", 8, format_eq},
};

static const cel_opaque *format_named(const char *s, size_t n)
{
	for (int i = 0; i < F_COUNT; i++)
		if (formats[i].len == n && !memcmp(formats[i].text, s, n))
			return &formats[i];
	return NULL;
}

/* The ValidateFunc of format f for s: its messages, "\n"-separated, in b.
 * -1 when not predicted here, -2 when memory ran out. */
static int format_msgs(cel_eval *e, smp_buf *b, int f, const char *s, size_t n)
{
	char *masked = NULL;

	switch (f) {
	case F_DNS1123_LABEL_PREFIX:
	case F_DNS1123_SUBDOMAIN_PREFIX:
	case F_DNS1035_LABEL_PREFIX:
		/* maskTrailingDash: name[:len-2] + "a" */
		if (n > 1 && s[n - 1] == '-') {
			masked = malloc(n);
			if (!masked)
				return -2;
			memcpy(masked, s, n - 2);
			masked[n - 2] = 'a';
			s = masked;
			n--;
		}
		f = f == F_DNS1123_LABEL_PREFIX       ? F_DNS1123_LABEL
		    : f == F_DNS1123_SUBDOMAIN_PREFIX ? F_DNS1123_SUBDOMAIN
		                                      : F_DNS1035_LABEL;
		break;
	default:
		break;
	}
	switch (f) {
	case F_DNS1123_LABEL:
		smp__name_list(b, s, n, NAME_LABEL);
		break;
	case F_DNS1123_SUBDOMAIN:
		smp__name_list(b, s, n, NAME_SUBDOMAIN);
		break;
	case F_DNS1035_LABEL:
		smp__name_list(b, s, n, NAME_DNS1035);
		break;
	case F_QUALIFIED_NAME:
		smp_label_key_list(b, s, n, "\n");
		break;
	case F_LABEL_VALUE:
		smp_label_value_list(b, s, n, "\n");
		break;
	case F_URI: {
		const char *m;
		size_t ml;

		if (!cel_url_request_uri(e, s, n, &m, &ml)) {
			if (e->oom)
				return -2;
			smp_buf_put(b, m, ml);
		}
		break;
	}
	default: {
		/* kube-openapi's strfmt formats: one message each */
		static const char *const strfmt[][2] = {
			{"uuid", "does not match the UUID format"}, {"byte", "invalid base64"},
			{"date", "invalid date"}, {"datetime", "invalid datetime"}};
		const char *const *m = strfmt[f - F_UUID];

		if (!smp__strfmt_check(m[0], s, n))
			smp_buf_puts(b, m[1]);
		break;
	}
	}
	free(masked);
	return 0;
}

/* f.validate(s): optional.none() when valid, else optional.of(messages). */
static cel_val format_validate(cel_eval *e, const cel_opaque *f, const cel_val *s)
{
	smp_buf b;
	cel_val r, *opt;
	int rc;

	/* cost.go: the string's traversal (one more) times a quarter of the
	 * pattern's length */
	e->cost += cel_traversal_cost((uint64_t)cel_str_runes(s) + 1) *
	           (uint64_t)ceil(max_regex[f - formats] * 0.25);
	smp_buf_init(&b);
	rc = format_msgs(e, &b, (int)(f - formats), s->u.s.p, s->u.s.n);
	if (rc == -2 || b.oom) {
		smp_buf_release(&b);
		return oom(e);
	}
	if (rc < 0) {
		smp_buf_release(&b);
		return cel_error("format not predicted");
	}
	r.kind = CEL_OPTIONAL;
	r.u.opt = NULL;
	if (b.len) {
		/* the messages as a list of strings */
		char *text = smp_arena_strndup(&e->arena, b.ptr, b.len);
		uint32_t k = 1;

		for (size_t i = 0; i < b.len; i++)
			k += b.ptr[i] == '\n';
		cel_val *items = smp_arena_alloc(&e->arena, k * sizeof(cel_val));
		cel_agg *agg = smp_arena_alloc(&e->arena, sizeof(*agg));

		opt = smp_arena_alloc(&e->arena, sizeof(*opt));
		if (!text || !items || !agg || !opt) {
			smp_buf_release(&b);
			return oom(e);
		}
		memset(agg, 0, sizeof(*agg));
		for (uint32_t i = 0, at = 0; i < k; i++) {
			const char *nl = memchr(text + at, '\n', b.len - at);
			size_t len = nl ? (size_t)(nl - text - at) : b.len - at;

			items[i] = cel_str(text + at, len);
			at += (uint32_t)len + 1;
		}
		agg->n = k;
		agg->items = items;
		opt->kind = CEL_LIST;
		opt->u.agg = agg;
		r.u.opt = opt;
	}
	smp_buf_release(&b);
	return r;
}

static cel_val format_call(cel_eval *e, const char *name, const cel_val *r, const cel_val *a,
                           uint32_t n, bool *found)
{
	cel_val v;

	*found = true;
	if (!r && !strncmp(name, "format.", 7)) {
		const char *f = name + 7;

		if (n == 1 && !strcmp(f, "named") && a[0].kind == CEL_STRING) {
			const cel_opaque *o = format_named(a[0].u.s.p, a[0].u.s.n);
			cel_val *in = o ? smp_arena_alloc(&e->arena, sizeof(*in)) : NULL;

			if (o && !in)
				return oom(e);
			if (in) {
				in->kind = CEL_OPAQUE;
				in->u.obj = o;
			}
			v.kind = CEL_OPTIONAL;
			v.u.opt = in;
			return v;
		}
		const cel_opaque *o = n == 0 ? format_named(f, strlen(f)) : NULL;

		if (o) {
			v.kind = CEL_OPAQUE;
			v.u.obj = o;
			return v;
		}
	}
	if (r && r->kind == CEL_OPAQUE && r->u.obj->type == format_type && n == 1 &&
	    a[0].kind == CEL_STRING && !strcmp(name, "validate"))
		return format_validate(e, r->u.obj, &a[0]);
	*found = false;
	return cel_null();
}

cel_val smp__cel_libs(cel_eval *e, const char *name, const cel_val *r, const cel_val *a,
                      uint32_t n, bool *found)
{
	cel_val v = quantity_call(e, name, r, a, n, found);

	if (*found)
		return v;
	return format_call(e, name, r, a, n, found);
}
