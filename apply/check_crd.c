/*
 * check_crd.c - a custom resource refused as apiextensions-apiserver's
 * customResourceStrategy refuses it (pkg/registry/customresource, 1.32):
 * the ObjectMeta every strategy checks, then its CRD version's schema as
 * kube-openapi's validate package checks it (the errors turned into field
 * errors by kubeOpenAPIResultToFieldErrors), then the invariants of
 * x-kubernetes-list-type set and map (structurallisttype), then the
 * x-kubernetes-validations rules as the CEL validator runs them
 * (schema/cel/validation.go, with cel/), or, after an error that blocks
 * them, the server's "some validation rules were not checked" error.
 *
 * An update ratchets (CRDValidationRatcheting, on in 1.32): the errors a
 * node of the schema finds are dropped when the node's value is unchanged
 * from the live object's at the same place (correlated by property, map
 * key and the keys of a list-type map; ratcheting.go and
 * cel/common/equality.go), the list invariants only hold when the live
 * object kept them, and a failed rule that does not read oldSelf is only
 * a warning where the value (or its nearest correlated parent) is
 * unchanged. Transition rules run where the live value correlates.
 *
 * kube-openapi and the CEL validator walk properties and maps in Go's map
 * order: the causes of several fields come in an order that changes
 * between runs; these come in the object's own order. What the server
 * would word in a way this file cannot (a compound value printed by %#v,
 * the formats without a checker in strfmt.c, allOf/oneOf/not, an embedded
 * resource's ObjectMeta, a CEL function not written yet, an evaluation
 * error other than a missing key, a cost near the server's limits) makes
 * the result unpredictable rather than wrong.
 */
#include "apply/check.h"
#include "apply/apply_int.h"
#include "cel/cel.h"
#include "codec/codec.h"
#include "regex/regex.h"
#include "schema/schema.h"

#include <float.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct cv {
	smp_felist *l;
	const smp_schema *s;
	char msg[1024];  /* a kube-openapi message being made */
	unsigned depth;
	uint64_t cost;   /* the CEL rules' cost so far */
} cv;

/* Whether t is a node of the CRD's own schema (not a built-in type the
 * loader put in, such as the root's ObjectMeta or an implicit kind). */
static bool own(const smp_stype *t)
{
	return t && (t->flags & SMP_SFLAG_OPENAPI_V3) && t != &smp_stype_implicit_string &&
	       t != &smp_stype_any;
}

/* The type of a property, a map value or a list item of t; NULL when the
 * schema says nothing of it. */
static const smp_stype *prop_type(const smp_stype *t, const char *k, size_t n)
{
	const smp_sfield *f;

	if (!t)
		return NULL;
	if (t->kind == SMP_SKIND_OBJECT)
		return (f = smp_stype_field(t, k, n)) ? f->type : NULL;
	if (t->kind == SMP_SKIND_MAP && !(t->flags & SMP_SFLAG_NO_PROPERTIES))
		return t->elem;
	return NULL;
}

/* ---- values as Go prints them ---- */

/* The JSON type name kube-openapi infers for a decoded value. */
static const char *sch_type(const smp_value *v)
{
	switch (v->type) {
	case SMP_BOOL:
		return "boolean";
	case SMP_STRING:
		return "string";
	case SMP_INT:
		return "integer";
	case SMP_FLOAT:
		return "number";
	case SMP_LIST:
		return "array";
	case SMP_MAP:
		return "object";
	default:
		return "null";
	}
}

/* %v of an int64 or a float64 into buf (32 bytes). */
static const char *num_v(char *buf, const smp_value *v)
{
	size_t n = v->type == SMP_INT ? smp_format_int(buf, v->u.i)
	                              : smp_format_float_g(buf, v->u.f, false);

	buf[n] = '\0';
	return buf;
}

/* The field error's value (ErrorBody): %q of a string, %v of a number or
 * a boolean, "null"; false for a list or a map (%#v: not worded here). */
static bool bad_value(cv *c, const smp_value *v)
{
	char num[32];

	c->l->val.len = 0;
	switch (v ? v->type : SMP_NULL) {
	case SMP_NULL:
		smp_buf_puts(&c->l->val, "\"null\"");
		return true;
	case SMP_BOOL:
		smp_buf_puts(&c->l->val, v->u.b ? "true" : "false");
		return true;
	case SMP_INT:
	case SMP_FLOAT:
		smp_buf_puts(&c->l->val, num_v(num, v));
		return true;
	case SMP_STRING:
		smp_quote_go(&c->l->val, v->u.s.ptr, v->u.s.len);
		return true;
	default:
		return false;
	}
}

/* swag.IsFloat64AJSONInteger, with Go's float-to-uint64 conversion on
 * amd64 for negative values (through int64, so -2.0 is no integer). */
static bool json_integer(double f)
{
	double g, diff;
	uint64_t u;

	if (isnan(f) || isinf(f) || f < -9007199254740992.0 || f > 9007199254740992.0)
		return false;
	u = f < 0 ? (uint64_t)(int64_t)f : (uint64_t)f;
	g = (double)u;
	diff = fabs(f - g);
	if (f == g)
		return true;
	if (f == 0 || g == 0 || diff < DBL_TRUE_MIN)
		return false; /* diff < epsilon * SmallestNonzeroFloat64, which is 0 */
	return diff / fmin(fabs(f) + fabs(g), DBL_MAX) < 1e-9;
}

/* ---- errors as kubeOpenAPIResultToFieldErrors makes them ---- */

/* kube-openapi's name of the current node: the path ("spec.ports[0]"). */
static const char *name(cv *c)
{
	return c->l->path.ptr ? c->l->path.ptr : "";
}

static void msgf(cv *c, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void msgf(cv *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
}

/* An error whose value is the node's (Invalid or TypeInvalid), with the
 * message made by msgf. */
static void add_valued(cv *c, smp_fe_type t, const smp_value *v, const smp_value *at)
{
	if (!bad_value(c, v)) {
		c->l->unpredictable = true;
		return;
	}
	smp_fe_add_val(c->l, t, NULL, at, c->msg);
}

/* InvalidType: a TypeInvalid error whose value is the type name found. */
static void type_error(cv *c, const char *want, const char *found, const smp_value *at)
{
	c->l->val.len = 0;
	smp_quote_go(&c->l->val, found, strlen(found));
	msgf(c, "%s in body must be of type %s: %s", name(c), want, c->l->val.ptr);
	smp_fe_add_val(c->l, SMP_FE_TYPE_INVALID, NULL, at, c->msg);
}

/* ---- the validators of one node (SchemaValidator.Validate) ---- */

static void node(cv *c, const smp_value *v, const smp_stype *t, const smp_value *old,
                 bool correlated);

/* The type names of t's schema (spec.Schema.Type): int-or-string's two,
 * else the declared one; written into `names` joined by ",". */
static size_t types_of(const smp_stype *t, const char **list, char *names, size_t n)
{
	if (t->flags & SMP_SFLAG_INT_OR_STRING) {
		list[0] = "integer";
		list[1] = "string";
		snprintf(names, n, "integer,string");
		return 2;
	}
	if (t->type_name) {
		list[0] = t->type_name;
		snprintf(names, n, "%s", t->type_name);
		return 1;
	}
	names[0] = '\0';
	return 0;
}

static bool has_type(const char *const *list, size_t n, const char *want)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], want) == 0)
			return true;
	return false;
}

/* typeValidator.Validate (for a value that is not null). */
static void check_type(cv *c, const smp_value *v, const smp_stype *t, const smp_svalid *sv)
{
	const char *list[2], *st = sch_type(v);
	const char *fmt = sv ? sv->format : NULL;
	char names[32];
	size_t nt = types_of(t, list, names, sizeof(names));
	bool number = has_type(list, nt, "number"), integer = has_type(list, nt, "integer");
	bool is_float_int = v->type == SMP_FLOAT && json_integer(v->u.f) && integer;
	bool is_int_float = v->type == SMP_INT && number;
	const char *vfmt = v->type == SMP_INT ? "int64" : v->type == SMP_FLOAT ? "float64" : "";

	if (!nt && !fmt)
		return; /* the validator does not apply */
	if (v->type != SMP_STRING && v->type != SMP_LIST && fmt &&
	    !(has_type(list, nt, st) || strcmp(vfmt, fmt) == 0 || is_float_int || is_int_float)) {
		type_error(c, fmt, vfmt, v);
		return;
	}
	if (!(number || integer) && fmt && (v->type == SMP_STRING || v->type == SMP_LIST))
		return;
	if (!(has_type(list, nt, st) || is_float_int || is_int_float))
		type_error(c, names, st, v);
}

/* stringValidator: the first of maxLength, minLength and pattern that
 * fails. */
static void check_string(cv *c, const smp_value *v, const smp_svalid *sv)
{
	int64_t runes = 0;

	if (!sv)
		return;
	for (uint32_t i = 0; i < v->u.s.len; i++)
		runes += ((unsigned char)v->u.s.ptr[i] & 0xC0) != 0x80;
	if ((sv->has & SMP_SV_MAX_LENGTH) && runes > sv->max_length) {
		char d[64];

		snprintf(d, sizeof(d), "may not be more than %" PRId64 " bytes", sv->max_length);
		smp_fe_add(c->l, SMP_FE_TOO_LONG, NULL, v, NULL, sv->max_length >= 0 ? d
		                                                          : "value is too long");
		return;
	}
	if ((sv->has & SMP_SV_MIN_LENGTH) && runes < sv->min_length) {
		msgf(c, "%s in body should be at least %" PRId64 " chars long", name(c),
		     sv->min_length);
		add_valued(c, SMP_FE_INVALID, v, v);
		return;
	}
	if (sv->pattern) {
		if (!sv->re) {
			c->l->unpredictable = true; /* the server refuses such a CRD */
			return;
		}
		if (!smp_regex_search(sv->re, v->u.s.ptr, v->u.s.len)) {
			msgf(c, "%s in body should match '%s'", name(c), sv->pattern);
			add_valued(c, SMP_FE_INVALID, v, v);
		}
	}
}

/* formatValidator: FormatOf's InvalidType ("must be of type <format>"
 * with the value) when the format's validator refuses the string; a
 * format without a checker here (strfmt.c) is not predicted. */
static void check_format(cv *c, const smp_value *v, const smp_stype *t, const smp_svalid *sv)
{
	int ok;

	if (!sv || !sv->format)
		return;
	ok = smp__strfmt_check(sv->format, v->u.s.ptr, v->u.s.len);
	if (ok == -2) {
		c->l->rc = SMP_ENOMEM;
	} else if (ok < 0) {
		c->l->unpredictable = true;
	} else if (!ok) {
		c->l->val.len = 0;
		smp_quote_go(&c->l->val, v->u.s.ptr, v->u.s.len);
		/* the schema's own name: "date-time" */
		msgf(c, "%s in body must be of type %s: %s", name(c), t->format ? t->format : sv->format,
		     c->l->val.ptr);
		smp_fe_add_val(c->l, SMP_FE_TYPE_INVALID, NULL, v, c->msg);
	}
}

/* numberValidator: multipleOf, minimum, maximum (in that order), each in
 * the value's own type: an int64 against the bound truncated to an int64
 * (MaximumNativeType), a float64 against the float64 bound. */
static void check_number(cv *c, const smp_value *v, const smp_svalid *sv)
{
	char bound[32];
	bool isint = v->type == SMP_INT;
	double f = isint ? (double)v->u.i : v->u.f;

	if (!sv)
		return;
	if (sv->multiple_of) {
		double m = sv->multiple_of->type == SMP_INT ? (double)sv->multiple_of->u.i
		                                            : sv->multiple_of->u.f;

		if (isint) {
			int64_t mi = (int64_t)m;

			if (mi <= 0) {
				c->l->unpredictable = true; /* Go divides by zero */
			} else if (v->u.i % mi != 0) {
				snprintf(bound, sizeof(bound), "%" PRId64, mi);
				msgf(c, "%s in body should be a multiple of %s", name(c), bound);
				add_valued(c, SMP_FE_INVALID, v, v);
			}
		} else if (m <= 0 || f < 0) {
			c->l->unpredictable = true;
		} else if (!json_integer(f / m)) {
			msgf(c, "%s in body should be a multiple of %s", name(c),
			     num_v(bound, sv->multiple_of));
			add_valued(c, SMP_FE_INVALID, v, v);
		}
	}
	for (int pass = 0; pass < 2; pass++) {
		const smp_value *b = pass ? sv->maximum : sv->minimum;
		bool excl = sv->has & (pass ? SMP_SV_EXCL_MAX : SMP_SV_EXCL_MIN);
		double bf;
		bool fails;

		if (!b)
			continue;
		bf = b->type == SMP_INT ? (double)b->u.i : b->u.f;
		if (isint) {
			int64_t bi = b->type == SMP_INT ? b->u.i : (int64_t)bf;

			if (b->type == SMP_FLOAT && (bf >= 9.2e18 || bf <= -9.2e18)) {
				c->l->unpredictable = true;
				continue;
			}
			fails = pass ? (excl ? v->u.i >= bi : v->u.i > bi)
			             : (excl ? v->u.i <= bi : v->u.i < bi);
			snprintf(bound, sizeof(bound), "%" PRId64, bi);
		} else {
			fails = pass ? (excl ? f >= bf : f > bf) : (excl ? f <= bf : f < bf);
			bound[smp_format_float_g(bound, bf, false)] = '\0';
		}
		if (!fails)
			continue;
		msgf(c, "%s in body should be %s %s", name(c),
		     pass ? (excl ? "less than" : "less than or equal to")
		          : (excl ? "greater than" : "greater than or equal to"),
		     bound);
		add_valued(c, SMP_FE_INVALID, v, v);
	}
}

/* A count error: TooMany (maxItems, maxProperties) or Invalid with the
 * count as its value (minItems, minProperties). */
static void check_count(cv *c, const smp_value *v, int64_t size, const smp_svalid *sv,
                        bool items)
{
	uint32_t maxb = items ? SMP_SV_MAX_ITEMS : SMP_SV_MAX_PROPS;
	uint32_t minb = items ? SMP_SV_MIN_ITEMS : SMP_SV_MIN_PROPS;
	int64_t max = items ? sv->max_items : sv->max_props;
	int64_t min = items ? sv->min_items : sv->min_props;
	const char *what = items ? "items" : "properties";
	char d[64];

	/* the object validator checks the minimum first, the slice validator
	 * the minimum first too */
	if ((sv->has & minb) && size < min) {
		msgf(c, "%s in body should have at least %" PRId64 " %s", name(c), min, what);
		smp_fe_add_int(c->l, SMP_FE_INVALID, NULL, v, size, c->msg);
	}
	if ((sv->has & maxb) && size > max) {
		snprintf(d, sizeof(d), max >= 0 ? "must have at most %" PRId64 " items"
		                                : "has too many items", max);
		smp_fe_add_int(c->l, SMP_FE_TOO_MANY, NULL, v, size, d);
	}
}

/* reflect's conversion of the data to an enum value's type, then
 * DeepEqual (basicCommonValidator): an int converts to a float, a float
 * to an int (truncated), an int to a string (its rune). */
static bool enum_match(const smp_value *d, const smp_value *e)
{
	char rune[8];
	size_t n;

	if (!d || d->type == SMP_NULL || !e || e->type == SMP_NULL)
		return false;
	switch (e->type) {
	case SMP_INT:
		if (d->type == SMP_FLOAT)
			return !isnan(d->u.f) && fabs(d->u.f) < 9.2e18 && (int64_t)d->u.f == e->u.i;
		return d->type == SMP_INT && d->u.i == e->u.i;
	case SMP_FLOAT:
		if (d->type == SMP_INT)
			return (double)d->u.i == e->u.f;
		return d->type == SMP_FLOAT && d->u.f == e->u.f;
	case SMP_STRING:
		if (d->type == SMP_INT) {
			int64_t r = d->u.i;

			n = smp_utf8_put(rune, r < 0 || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)
			                               ? 0xFFFD : (uint32_t)r);
			return n == e->u.s.len && memcmp(rune, e->u.s.ptr, n) == 0;
		}
		return d->type == SMP_STRING && smpv_equal(d, e);
	default:
		return d->type == e->type && smpv_equal(d, e);
	}
}

/* basicCommonValidator: the enum, as field.NotSupported words it. */
static void check_enum(cv *c, const smp_value *v, const smp_svalid *sv)
{
	smp_buf valid;
	smp_error err;

	if (!sv || !sv->enums)
		return;
	for (uint32_t i = 0; i < sv->enums->u.list.len; i++)
		if (enum_match(v, sv->enums->u.list.items[i]))
			return;
	if (!bad_value(c, v)) {
		c->l->unpredictable = true;
		return;
	}
	smp_buf_init(&valid);
	smp_buf_puts(&valid, "supported values: ");
	for (uint32_t i = 0; i < sv->enums->u.list.len; i++) {
		const smp_value *e = sv->enums->u.list.items[i];
		smp_buf one;

		smp_buf_init(&one);
		if (e->type == SMP_STRING) {
			smp_buf_put(&one, e->u.s.ptr, e->u.s.len);
		} else {
			smp_print_options po = SMP_PRINT_OPTIONS_INIT;

			po.sort_keys = true; /* json.Marshal */
			po.go_escape = true;
			if (smp_print_buf(&one, e, &po, &err))
				one.oom = true;
		}
		smp_buf_puts(&valid, i ? ", " : "");
		smp_quote_go(&valid, one.ptr ? one.ptr : "", one.len);
		if (one.oom)
			valid.oom = true;
		smp_buf_release(&one);
	}
	if (valid.oom)
		c->l->rc = SMP_ENOMEM;
	else
		smp_fe_add_val(c->l, SMP_FE_NOT_SUPPORTED, NULL, v, valid.ptr);
	smp_buf_release(&valid);
}

/* objectValidator: the property counts, the map values, the properties,
 * then the required ones. */
static void check_object(cv *c, const smp_value *v, const smp_stype *t, const smp_svalid *sv,
                         const smp_value *old, bool correlated)
{
	bool root = c->l->path.len == 0;

	if (sv)
		check_count(c, v, v->u.map.len, sv, false);
	for (uint32_t i = 0; i < v->u.map.len && !c->l->rc; i++) {
		const smp_member *m = &v->u.map.items[i];
		const smp_stype *ct = prop_type(t, m->key, m->klen);
		const smp_value *ov = NULL;
		size_t at;
		ptrdiff_t j;

		if (!own(ct))
			continue;
		/* SubPropertyValidator: correlated by key, the root's apiVersion
		 * and kind never */
		if (correlated && old && old->type == SMP_MAP &&
		    !(root && ((m->klen == 10 && memcmp(m->key, "apiVersion", 10) == 0) ||
		               (m->klen == 4 && memcmp(m->key, "kind", 4) == 0))) &&
		    (j = smpv_map_find(old, m->key, m->klen)) >= 0)
			ov = old->u.map.items[j].val;
		at = c->l->path.len;
		if (at)
			smp_buf_putc(&c->l->path, '.');
		smp_buf_put(&c->l->path, m->key, m->klen);
		node(c, m->val, ct, ov, ov != NULL);
		smp_fe_pop(c->l, at);
	}
	if (sv && sv->required) {
		for (uint32_t i = 0; i < sv->required->u.list.len; i++) {
			const smp_value *k = sv->required->u.list.items[i];

			if (k->type != SMP_STRING || smpv_map_find(v, k->u.s.ptr, k->u.s.len) >= 0)
				continue;
			size_t at = c->l->path.len;

			if (at)
				smp_buf_putc(&c->l->path, '.');
			smp_buf_put(&c->l->path, k->u.s.ptr, k->u.s.len);
			smp_fe_add(c->l, SMP_FE_REQUIRED, NULL, v, NULL, NULL);
			smp_fe_pop(c->l, at);
		}
	}
}

/* The live item a list-type map's item correlates with: the one with the
 * same key fields (MakeMapList's Get); NULL when none. */
static const smp_value *map_item(const smp_stype *t, const smp_value *item, const smp_value *old)
{
	if (!t->list_map_keys || !item || item->type != SMP_MAP || !old || old->type != SMP_LIST)
		return NULL;
	for (uint32_t i = 0; i < old->u.list.len; i++) {
		const smp_value *o = old->u.list.items[i];
		bool same = o && o->type == SMP_MAP;

		for (const char *const *k = t->list_map_keys; same && *k; k++) {
			const smp_value *a = smpv_map_get(item, *k), *b = smpv_map_get(o, *k);

			same = (!a && !b) || (a && b && smpv_equal(a, b));
		}
		if (same)
			return o;
	}
	return NULL;
}

static bool is_map_list(const smp_stype *t)
{
	return t && t->kind == SMP_SKIND_LIST && t->list_type && strcmp(t->list_type, "map") == 0;
}

/* schemaSliceValidator: the items, then minItems and maxItems. An item
 * correlates with a live one only in a list-type map. */
static void check_slice(cv *c, const smp_value *v, const smp_stype *t, const smp_svalid *sv,
                        const smp_value *old, bool correlated)
{
	const smp_stype *it = t->kind == SMP_SKIND_LIST ? t->elem : NULL;

	for (uint32_t i = 0; own(it) && i < v->u.list.len && !c->l->rc; i++) {
		const smp_value *ov = correlated && is_map_list(t)
		                              ? map_item(t, v->u.list.items[i], old) : NULL;
		size_t at = smp_fe_index(c->l, i);

		node(c, v->u.list.items[i], it, ov, ov != NULL);
		smp_fe_pop(c->l, at);
	}
	if (sv && (sv->has & SMP_SV_UNIQUE))
		c->l->unpredictable = true; /* structural schemas refuse it */
	if (sv)
		check_count(c, v, v->u.list.len, sv, true);
}

/* CorrelatedObject.CachedDeepEqual: a list-type map compares item by
 * correlated item (order aside), maps key by key, other values as
 * reflect.DeepEqual (1 and 1.0 differ). */
static bool ratchet_equal(const smp_value *v, const smp_value *old, const smp_stype *t)
{
	if (!v || !old)
		return !v && !old;
	if (v->type == SMP_LIST && old->type == SMP_LIST && is_map_list(t)) {
		if (v->u.list.len != old->u.list.len)
			return false;
		for (uint32_t i = 0; i < v->u.list.len; i++) {
			const smp_value *o = map_item(t, v->u.list.items[i], old);

			if (!o || !ratchet_equal(v->u.list.items[i], o, t->elem))
				return false;
		}
		return true;
	}
	if (v->type == SMP_MAP && old->type == SMP_MAP) {
		if (v->u.map.len != old->u.map.len)
			return false;
		for (uint32_t i = 0; i < v->u.map.len; i++) {
			const smp_member *m = &v->u.map.items[i];
			ptrdiff_t j = smpv_map_find(old, m->key, m->klen);

			if (j < 0 ||
			    !ratchet_equal(m->val, old->u.map.items[j].val, prop_type(t, m->key, m->klen)))
				return false;
		}
		return true;
	}
	return smpv_equal(v, old);
}

/* One node: its validators in SchemaValidator's order (type, composition,
 * string, format, number, slice, enum, object), a null value getting the
 * type and enum checks only; on an update, its errors dropped when the
 * value equals the live one it correlates with. */
static void node(cv *c, const smp_value *v, const smp_stype *t, const smp_value *old,
                 bool correlated)
{
	const smp_svalid *sv = smp_stype_valid(c->s, t);
	size_t first = c->l->n;

	if (c->l->rc || !own(t))
		return;
	if (++c->depth > 200) {
		c->l->unpredictable = true;
		c->depth--;
		return;
	}
	if (t->flags & SMP_SFLAG_EMBEDDED)
		c->l->unpredictable = true; /* its ObjectMeta's rules: not here yet */
	if (!v || v->type == SMP_NULL) {
		const char *list[2];
		char names[32];

		if (types_of(t, list, names, sizeof(names)) && !(t->flags & SMP_SFLAG_NULLABLE))
			type_error(c, names, "null", v);
		check_enum(c, v, sv);
	} else {
		check_type(c, v, t, sv);
		if (sv && (sv->has & SMP_SV_COMPOSITION))
			c->l->unpredictable = true;
		switch (v->type) {
		case SMP_STRING:
			check_string(c, v, sv);
			check_format(c, v, t, sv);
			break;
		case SMP_INT:
		case SMP_FLOAT:
			check_number(c, v, sv);
			break;
		case SMP_LIST:
			check_slice(c, v, t, sv, old, correlated);
			break;
		default:
			break;
		}
		check_enum(c, v, sv);
		if (v->type == SMP_MAP)
			check_object(c, v, t, sv, old, correlated);
	}
	if (correlated && c->l->n > first && ratchet_equal(v, old, t))
		c->l->n = first; /* ratcheted: the live object had them already */
	c->depth--;
}

/* ---- field.Path, as the list-type and CEL walks name their fields ---- */

/* Pushes a map member's name as field.Path does below type t: Key(k)
 * ("[k]") under a map of additionalProperties, Child(k) (".k") under an
 * object. Returns the length to pop back to. */
static size_t push_member(smp_felist *l, const smp_stype *t, const smp_member *m)
{
	size_t at = l->path.len;

	if (t->kind == SMP_SKIND_MAP) {
		smp_fe_key(l, m->key, m->klen);
	} else {
		if (at)
			smp_buf_putc(&l->path, '.');
		smp_buf_put(&l->path, m->key, m->klen);
	}
	return at;
}

/* The last error added is at the root: a nil field.Path, "<nil>". */
static void at_nil_path(smp_felist *l)
{
	if (!l->rc && l->n)
		l->items[l->n - 1].field = "<nil>";
}

/* ---- x-kubernetes-list-type set and map (structurallisttype) ---- */

/* A list item's %v in a Duplicate error, false when not worded here. */
static bool dup_scalar(smp_buf *b, const smp_value *v)
{
	char num[32];

	switch (v ? v->type : SMP_NULL) {
	case SMP_STRING:
		smp_quote_go(b, v->u.s.ptr, v->u.s.len);
		return true;
	case SMP_INT:
	case SMP_FLOAT:
		smp_buf_puts(b, num_v(num, v));
		return true;
	case SMP_BOOL:
		smp_buf_puts(b, v->u.b ? "true" : "false");
		return true;
	default:
		return false;
	}
}

/* %#v of a key field's value inside map[string]interface {}{...}. */
static bool dup_key_value(smp_buf *b, const smp_value *v)
{
	return v && v->type != SMP_NULL && dup_scalar(b, v);
}

/* Whether items a and b are the same set member (Go's == on interface
 * values: 1 and 1.0 differ). */
static bool same_member(const smp_value *a, const smp_value *b)
{
	if (!a || !b)
		return !a && !b;
	return smpv_equal(a, b);
}

/* The key of a list-type map's item i: the values of its key fields in
 * the key order (NULL where absent). */
static bool same_key(const smp_stype *t, const smp_value *a, const smp_value *b)
{
	for (const char *const *k = t->list_map_keys; k && *k; k++) {
		const smp_value *x = a ? smpv_map_get(a, *k) : NULL, *y = b ? smpv_map_get(b, *k) : NULL;

		if (!same_member(x, y))
			return false;
	}
	return true;
}

/* Duplicate errors of a list-type set or map at the current path: one per
 * repeated value, at its second occurrence. Quadratic in the worst case,
 * as lists with these types are short; hashed when long. */
static void list_dups(cv *c, const smp_value *list, const smp_stype *t, bool map)
{
	smp_felist *l = c->l;
	uint32_t n = list->u.list.len;

	if (map) {
		for (uint32_t i = 0; i < n; i++) {
			const smp_value *x = list->u.list.items[i];

			if (x && x->type != SMP_NULL && x->type != SMP_MAP) {
				l->unpredictable = true; /* "must be an object": %#v */
				return;
			}
		}
	}
	for (uint32_t i = 1; i < n && !l->rc; i++) {
		const smp_value *x = list->u.list.items[i];
		uint32_t seen = 0;

		for (uint32_t j = 0; j < i && seen < 2; j++)
			seen += map ? same_key(t, list->u.list.items[j], x)
			            : same_member(list->u.list.items[j], x);
		if (seen != 1)
			continue; /* first time, or reported already */
		l->val.len = 0;
		if (!map) {
			if (x && (x->type == SMP_LIST || x->type == SMP_MAP)) {
				l->unpredictable = true;
				continue;
			}
			if (!dup_scalar(&l->val, x))
				smp_buf_puts(&l->val, "\"null\"");
		} else {
			/* map[string]interface {}{"k":v, ...}: present keys, sorted */
			const char *keys[16];
			size_t nk = 0;

			for (const char *const *k = t->list_map_keys; k && *k && nk < 16; k++)
				if (x && smpv_map_get(x, *k))
					keys[nk++] = *k;
			for (size_t a = 1; a < nk; a++)
				for (size_t b = a; b > 0 && strcmp(keys[b - 1], keys[b]) > 0; b--) {
					const char *s = keys[b];

					keys[b] = keys[b - 1];
					keys[b - 1] = s;
				}
			smp_buf_puts(&l->val, "map[string]interface {}{");
			for (size_t a = 0; a < nk; a++) {
				smp_buf_puts(&l->val, a ? ", " : "");
				smp_quote_go(&l->val, keys[a], strlen(keys[a]));
				smp_buf_putc(&l->val, ':');
				if (!dup_key_value(&l->val, smpv_map_get(x, keys[a]))) {
					l->unpredictable = true;
					return;
				}
			}
			smp_buf_putc(&l->val, '}');
		}
		size_t at = smp_fe_index(l, i);

		smp_fe_add_val(l, SMP_FE_DUPLICATE, NULL, x, NULL);
		smp_fe_pop(l, at);
	}
}

/* validationListSetAndMaps over one value: field.Path's syntax here
 * (map keys in brackets). */
static void list_types(cv *c, const smp_value *v, const smp_stype *t)
{
	smp_felist *l = c->l;

	if (!v || !own(t) || l->rc || ++c->depth > 200) {
		if (v && own(t) && !l->rc)
			c->depth--;
		return;
	}
	if (v->type == SMP_LIST) {
		if (t->kind == SMP_SKIND_LIST && t->list_type &&
		    (strcmp(t->list_type, "set") == 0 || strcmp(t->list_type, "map") == 0) &&
		    v->u.list.len > 1)
			list_dups(c, v, t, t->list_type[0] == 'm');
		for (uint32_t i = 0; t->kind == SMP_SKIND_LIST && i < v->u.list.len; i++) {
			size_t at = smp_fe_index(l, i);

			list_types(c, v->u.list.items[i], t->elem);
			smp_fe_pop(l, at);
		}
	} else if (v->type == SMP_MAP) {
		for (uint32_t i = 0; i < v->u.map.len; i++) {
			const smp_member *m = &v->u.map.items[i];
			const smp_stype *ct = prop_type(t, m->key, m->klen);
			size_t at = push_member(l, t, m);

			list_types(c, m->val, ct);
			smp_fe_pop(l, at);
		}
	}
	c->depth--;
}

/* ---- x-kubernetes-validations (apiextensions' schema/cel Validator) ---- */

/* What a rule's `self` is (UnstructuredToVal over the structural schema):
 * a property's, map value's or item's type below t. */
static const void *typ_child(const void *type, const char *key, size_t klen)
{
	const smp_stype *t = type, *c;

	if (!key)
		c = t->kind == SMP_SKIND_LIST ? t->elem : NULL;
	else
		c = prop_type(t, key, klen);
	return own(c) ? c : NULL;
}

/* number: a double (an integer read as one); strings of format byte,
 * duration and date-time: bytes, durations, timestamps. */
static cel_kind typ_scalar(const void *type)
{
	const smp_stype *t = type;

	if ((t->flags & SMP_SFLAG_INT_OR_STRING) || !t->type_name)
		return CEL_NULL;
	if (!strcmp(t->type_name, "number"))
		return CEL_DOUBLE;
	if (strcmp(t->type_name, "string") != 0 || !t->format)
		return CEL_NULL;
	if (!strcmp(t->format, "byte"))
		return CEL_BYTES;
	if (!strcmp(t->format, "duration"))
		return CEL_DURATION;
	if (!strcmp(t->format, "date-time"))
		return CEL_TIMESTAMP;
	return CEL_NULL;
}

static bool typ_object(const void *type)
{
	return ((const smp_stype *)type)->kind == SMP_SKIND_OBJECT;
}

static const cel_typing k8s_typing = {typ_child, typ_scalar, typ_object};

/* The per-call limit of a rule (celconfig.PerCallLimit) and the budget of
 * one object (RuntimeCELCostBudget). The costs counted here are not
 * cel-go's: a result that comes near either is not predicted. */
#define RULE_COST_LIMIT 1000000u
#define OBJECT_COST_BUDGET 10000000u

/* sts.Type, the value CEL's errors print: "object", "string"...; "" for
 * int-or-string and untyped nodes. */
static const char *sts_type(const smp_stype *t)
{
	return (t->flags & SMP_SFLAG_INT_OR_STRING) || !t->type_name ? "" : t->type_name;
}

static bool ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* s[0..*n) without its leading and trailing white space (TrimSpace). */
static const char *trimmed(const char *s, size_t *n)
{
	while (*n && ws(*s)) {
		s++;
		(*n)--;
	}
	while (*n && ws(s[*n - 1]))
		(*n)--;
	return s;
}

/* ruleErrorString: the message when there is one, else the rule. */
static void rule_string(smp_buf *b, const smp_srule *r)
{
	const char *s = r->message && *r->message ? r->message : r->text;
	size_t n = strlen(s);

	s = trimmed(s, &n);
	smp_buf_put(b, s, n);
}

/* An error whose value is the node's schema type (sts.Type), as the CEL
 * validator's Invalid and Duplicate errors print it. */
static void add_typed(smp_felist *l, smp_fe_type type, const smp_stype *t, const smp_value *at,
                      const char *detail)
{
	l->val.len = 0;
	smp_quote_go(&l->val, sts_type(t), strlen(sts_type(t)));
	smp_fe_add_val(l, type, NULL, at, detail);
}

/* The refusal of a rule that is not true (fieldErrorForReason): Invalid
 * with the node's type, or Forbidden, Required, Duplicate by `reason`. */
static void rule_error(cv *c, const smp_srule *r, const smp_stype *t, const smp_value *at,
                       const char *detail)
{
	smp_felist *l = c->l;
	size_t base = l->path.len;

	if (r->field_path) {
		/* Child(normalized fieldPath): a dotted path; others are not
		 * worded here */
		const char *f = r->field_path[0] == '.' ? r->field_path + 1 : r->field_path;

		if (strpbrk(f, "[]'\"") || !*f) {
			l->unpredictable = true;
			return;
		}
		if (base)
			smp_buf_putc(&l->path, '.');
		smp_buf_puts(&l->path, f);
	}
	if (r->reason && !strcmp(r->reason, "FieldValueForbidden")) {
		smp_fe_add(l, SMP_FE_FORBIDDEN, NULL, at, NULL, detail);
	} else if (r->reason && !strcmp(r->reason, "FieldValueRequired")) {
		smp_fe_add(l, SMP_FE_REQUIRED, NULL, at, NULL, detail);
	} else if (r->reason && !strcmp(r->reason, "FieldValueDuplicate")) {
		add_typed(l, SMP_FE_DUPLICATE, t, at, NULL);
	} else {
		add_typed(l, SMP_FE_INVALID, t, at, detail);
	}
	if (!l->path.len && !base && !r->field_path)
		at_nil_path(l);
	smp_fe_pop(l, base);
}

/* The message of a failed rule: its messageExpression's string (trimmed,
 * one line, not empty), else its message, else "failed rule: RULE". */
static void rule_message(cv *c, cel_eval *e, const smp_srule *r, const cel_var *vars, size_t n,
                         smp_buf *msg)
{
	if (r->message_expression) {
		cel_val m = cel_run(e, r->message_expression, vars, n);

		if (m.kind == CEL_STRING) {
			size_t len = m.u.s.n;
			const char *s = trimmed(m.u.s.p, &len);

			if (len && len <= 5 * 1024 && !memchr(s, '\n', len)) {
				smp_buf_put(msg, s, len);
				return;
			}
			if (len > 5 * 1024)
				c->l->unpredictable = true;
		}
		if (m.kind == CEL_ERROR && !strncmp(m.u.s.p, "operation cancelled", 19))
			c->l->unpredictable = true;
	}
	if (r->message && *r->message) {
		rule_string(msg, r);
		return;
	}
	smp_buf_puts(msg, "failed rule: ");
	rule_string(msg, r);
}

/* The nearest node that correlates with the live object (the node itself
 * or a parent): whether it equals its live value (shouldRatchetError),
 * compared only when a failed rule asks. */
typedef struct nearest {
	const smp_value *v, *old;
	const smp_stype *t;
	int equal; /* -1: not compared yet */
} nearest;

static bool ratcheted(nearest *n)
{
	if (!n)
		return false;
	if (n->equal < 0)
		n->equal = ratchet_equal(n->v, n->old, n->t);
	return n->equal;
}

/* validateExpressions: the node's rules on v (old: the live value it
 * correlates with, or NULL). A failed rule that does not read oldSelf is
 * only a warning where `near` equals the live value (ratcheting). */
static void run_rules(cv *c, const smp_value *v, const smp_stype *t, const smp_svalid *sv,
                      const smp_value *old, nearest *near)
{
	for (uint32_t i = 0; i < sv->ncrules && !c->l->rc; i++) {
		const smp_srule *r = &sv->crules[i];
		cel_eval e;
		cel_var vars[2];
		size_t nv = 0;
		cel_val res, some;
		smp_buf msg;

		if (!r->rule || r->bad) {
			c->l->unpredictable = true; /* the server refuses such a CRD */
			continue;
		}
		if (r->uses_old_self && !old && !r->optional_old_self)
			continue; /* a transition rule on a create */
		cel_eval_init(&e, RULE_COST_LIMIT);
		e.ext = smp__cel_libs;
		vars[nv].name = "self";
		vars[nv++].val = cel_from_json(&e, v, t, &k8s_typing);
		if (old || r->optional_old_self) {
			vars[nv].name = "oldSelf";
			vars[nv].val = old ? cel_from_json(&e, old, t, &k8s_typing) : cel_null();
			if (r->optional_old_self) {
				some = vars[nv].val;
				vars[nv].val.kind = CEL_OPTIONAL;
				vars[nv].val.u.opt = old ? &some : NULL;
			}
			nv++;
		}
		res = cel_run(&e, r->rule, vars, nv);
		smp_buf_init(&msg);
		c->cost += e.cost;
		if (e.oom) {
			c->l->rc = SMP_ENOMEM;
		} else if (e.cost > RULE_COST_LIMIT / 2 || c->cost > OBJECT_COST_BUDGET / 2) {
			c->l->unpredictable = true;
		} else if (res.kind == CEL_ERROR) {
			/* "<error> evaluating rule: <rule>"; cel-go's words are
			 * known here for a missing key */
			if (res.u.s.n > 12 && !memcmp(res.u.s.p, "no such key:", 12)) {
				smp_buf_put(&msg, res.u.s.p, res.u.s.n);
				smp_buf_puts(&msg, " evaluating rule: ");
				rule_string(&msg, r);
				if (msg.oom) {
					c->l->rc = SMP_ENOMEM;
				} else {
					add_typed(c->l, SMP_FE_INVALID, t, v, msg.ptr);
					if (!c->l->path.len)
						at_nil_path(c->l);
				}
			} else {
				c->l->unpredictable = true;
			}
		} else if (!(res.kind == CEL_BOOL && res.u.b)) {
			rule_message(c, &e, r, vars, nv, &msg);
			if (msg.oom)
				c->l->rc = SMP_ENOMEM;
			else if (r->uses_old_self || !ratcheted(near))
				rule_error(c, r, t, v, msg.ptr ? msg.ptr : "");
		}
		smp_buf_release(&msg);
		cel_eval_release(&e);
	}
}

/* The CEL validator's walk (validate, validateMap, validateArray): a
 * node's rules, then its properties (Child), map values (Key) and items
 * (Index), each with the live value it correlates with: by key, except
 * below an atomic map, and by key fields in a list-type map. */
static void cel_walk(cv *c, const smp_value *v, const smp_stype *t, const smp_value *old,
                     bool correlated, nearest *near)
{
	smp_felist *l = c->l;
	const smp_svalid *sv;
	nearest self = {v, old, t, -1};

	if (!v || v->type == SMP_NULL || !own(t) || l->rc)
		return;
	if (++c->depth > 200) {
		l->unpredictable = true;
		c->depth--;
		return;
	}
	if (correlated)
		near = &self;
	if ((sv = smp_stype_valid(c->s, t)) && sv->ncrules)
		run_rules(c, v, t, sv, correlated ? old : NULL, near);
	if (v->type == SMP_LIST && t->kind == SMP_SKIND_LIST) {
		for (uint32_t i = 0; i < v->u.list.len && !l->rc; i++) {
			const smp_value *oi = correlated && is_map_list(t)
			                              ? map_item(t, v->u.list.items[i], old) : NULL;
			size_t at = smp_fe_index(l, i);

			cel_walk(c, v->u.list.items[i], t->elem, oi, oi != NULL, near);
			smp_fe_pop(l, at);
		}
	} else if (v->type == SMP_MAP) {
		bool corr = correlated && old && old->type == SMP_MAP &&
		            !(t->map_type && !strcmp(t->map_type, "atomic"));

		for (uint32_t i = 0; i < v->u.map.len && !l->rc; i++) {
			const smp_member *m = &v->u.map.items[i];
			const smp_stype *ct = prop_type(t, m->key, m->klen);
			ptrdiff_t j = corr ? smpv_map_find(old, m->key, m->klen) : -1;
			size_t at;

			if (!own(ct))
				continue;
			at = push_member(l, t, m);
			cel_walk(c, m->val, ct, j >= 0 ? old->u.map.items[j].val : NULL, j >= 0, near);
			smp_fe_pop(l, at);
		}
	}
	c->depth--;
}

/* Whether an error blocks the CEL rules (hasBlockingErr). */
static bool blocking(const smp_felist *l)
{
	for (size_t i = 0; i < l->n; i++)
		switch (l->items[i].type) {
		case SMP_FE_NOT_SUPPORTED:
		case SMP_FE_REQUIRED:
		case SMP_FE_TOO_LONG:
		case SMP_FE_TOO_MANY:
		case SMP_FE_TYPE_INVALID:
			return true;
		default:
			break;
		}
	return false;
}

/* The scale subresource's replicas checks (ValidateScaleSpec and
 * ValidateScaleStatus): a value other than a non-negative int32 at the
 * path is not worded here. */
static void check_scale(cv *c, const smp_value *obj, const char *path)
{
	const smp_value *v = obj;
	const char *p = path && path[0] == '.' ? path + 1 : path;

	while (p && *p && v) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		ptrdiff_t j = v->type == SMP_MAP ? smpv_map_find(v, p, n) : -1;

		v = j >= 0 ? v->u.map.items[j].val : NULL;
		p = dot ? dot + 1 : NULL;
	}
	if (path && v && (v->type != SMP_INT || v->u.i < 0 || v->u.i > INT32_MAX))
		c->l->unpredictable = true;
}

void smp__check_crd(smp_felist *l, const smp_schema *s, const smp_gvk_entry *e,
                    const smp_value *obj, const smp_value *live)
{
	const smp_value *md = smp__check_get(obj, "metadata");
	cv c;
	size_t before;

	memset(&c, 0, sizeof(c));
	c.l = l;
	c.s = s;
	if (live)
		smp__check_meta_update(l, md);
	else
		smp__check_meta(l, md, e->namespaced != 0, NAME_SUBDOMAIN);
	if (!e->crd_schema)
		return;
	node(&c, obj, e->type, live, live != NULL);
	check_scale(&c, obj, e->scale_spec);
	check_scale(&c, obj, e->scale_status);
	before = l->n;
	if (live) {
		/* the invariants ratchet as a whole: checked only when the live
		 * object keeps them */
		bool unp = l->unpredictable;

		list_types(&c, live, e->type);
		if (l->n > before || l->unpredictable) {
			l->n = before;
			l->unpredictable = unp || l->unpredictable;
			goto rules;
		}
	}
	list_types(&c, obj, e->type);
rules:
	if (!e->cel_rules)
		return;
	if (blocking(l)) {
		smp_fe_add(l, SMP_FE_INVALID, NULL, NULL, "\"null\"",
		           "some validation rules were not checked because the object was invalid; "
		           "correct the existing errors to complete validation");
		at_nil_path(l); /* field.Invalid(nil, ...) */
	} else {
		c.depth = 0;
		cel_walk(&c, obj, e->type, live, live != NULL, NULL);
	}
}
