/*
 * meta.c - the type checks kubectl makes when it reads an object from a
 * file: the document is decoded into
 *   struct metadataOnlyObject { apiVersion, kind string; metadata ObjectMeta }
 * with Go's encoding/json (k8s.io/apimachinery), so a metadata field of the
 * wrong type fails with encoding/json's wording. Go keeps the first type
 * error and goes on, but a timestamp that does not parse (metav1.Time's
 * UnmarshalJSON) stops the decoding at once. The order is that of the JSON
 * kubectl decodes: YAML files reach it through sigs.k8s.io/yaml, which
 * sorts every map's keys, so fields are visited in sorted order.
 */
#include "apply/apply_int.h"
#include "codec/codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mctx {
	smp_error *err;
	bool saved;          /* a type error is kept in *err */
	char path[SMP_ERROR_PATH_MAX];
	size_t plen;
} mctx;

/* encoding/json's name for the JSON type of v; ints and floats that do not
 * fit an int64 get their text when `num_text` ("number 1.5"). */
static void json_type(char *buf, size_t size, const smp_value *v, bool num_text)
{
	char num[40];
	size_t n;

	switch (v->type) {
	case SMP_STRING:
		snprintf(buf, size, "string");
		break;
	case SMP_BOOL:
		snprintf(buf, size, "bool");
		break;
	case SMP_LIST:
		snprintf(buf, size, "array");
		break;
	case SMP_MAP:
		snprintf(buf, size, "object");
		break;
	case SMP_INT:
		n = smp_format_int(num, v->u.i);
		num[n] = '\0';
		snprintf(buf, size, num_text ? "number %s" : "number", num);
		break;
	case SMP_FLOAT:
		n = smp_format_float(num, v->u.f);
		num[n] = '\0';
		snprintf(buf, size, num_text ? "number %s" : "number", num);
		break;
	default:
		snprintf(buf, size, "null");
		break;
	}
}

static size_t push(mctx *c, const char *seg, size_t n, bool index)
{
	size_t old = c->plen;
	int w;

	if (index)
		w = snprintf(c->path + c->plen, sizeof(c->path) - c->plen, "[%.*s]", (int)n, seg);
	else
		w = snprintf(c->path + c->plen, sizeof(c->path) - c->plen, "%s%.*s",
		             c->plen ? "." : "", (int)n, seg);
	if (w > 0)
		c->plen += (size_t)w < sizeof(c->path) - c->plen ? (size_t)w
		                                                 : sizeof(c->path) - c->plen - 1;
	return old;
}

static void pop(mctx *c, size_t old)
{
	c->plen = old;
	c->path[old] = '\0';
}

/* Keeps the first type error (json's saveError). */
static void type_error(mctx *c, const smp_value *v, bool num_text, const char *strct,
                       const char *field, const char *gotype)
{
	char jt[64];

	if (c->saved)
		return;
	json_type(jt, sizeof(jt), v, num_text);
	smp_err_set(c->err, SMP_EINVALOBJ, NULL, v->line, v->col, c->path,
	            "json: cannot unmarshal %s into Go struct field %s.%s of type %s", jt, strct,
	            field, gotype);
	c->saved = true;
}

static void check_string(mctx *c, const smp_value *v, const char *strct, const char *field,
                         const char *gotype)
{
	if (v->type != SMP_STRING && v->type != SMP_NULL)
		type_error(c, v, false, strct, field, gotype);
}

static void check_bool(mctx *c, const smp_value *v, const char *strct, const char *field)
{
	if (v->type != SMP_BOOL && v->type != SMP_NULL)
		type_error(c, v, false, strct, field, "bool");
}

/* Whether the decimal integer text s (optional '-') fits an int64. */
static bool fits_int64(const char *s)
{
	const char *lim = *s == '-' ? "9223372036854775808" : "9223372036854775807";
	size_t n, ln = strlen(lim);

	if (*s == '-')
		s++;
	n = strlen(s);
	return n < ln || (n == ln && strcmp(s, lim) <= 0);
}

/* A number the JSON text of which ParseInt reads as an int64 (a double
 * from YAML reaches kubectl as json.Marshal prints it: 5.0 as 5). */
static void check_int64(mctx *c, const smp_value *v, const char *strct, const char *field)
{
	if (v->type == SMP_INT || v->type == SMP_NULL)
		return;
	if (v->type == SMP_FLOAT) {
		char num[40];
		size_t n = smp_format_float(num, v->u.f);

		num[n] = '\0';
		if (!strpbrk(num, ".eE") && fits_int64(num))
			return;
	}
	type_error(c, v, true, strct, field, "int64");
}

/* ---- time.Parse(time.RFC3339, s), with Go's error messages ---- */

/* time's quote(): bytes below ' ' or from 0x80 as \xNN, " and \ escaped. */
static void go_tquote(smp_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	smp_buf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x20 || ch >= 0x80) {
			smp_buf_puts(b, "\\x");
			smp_buf_putc(b, hex[ch >> 4]);
			smp_buf_putc(b, hex[ch & 15]);
		} else {
			if (ch == '"' || ch == '\\')
				smp_buf_putc(b, '\\');
			smp_buf_putc(b, (char)ch);
		}
	}
	smp_buf_putc(b, '"');
}

#define RFC3339 "2006-01-02T15:04:05Z07:00"

typedef struct tparse {
	const char *v;       /* the whole value */
	size_t vlen;
	const char *layout_elem, *value_elem;
	size_t value_len;
	const char *msg;     /* range / extra text message, or NULL */
} tparse;

static bool isdig(const char *s, size_t n, size_t i)
{
	return i < n && s[i] >= '0' && s[i] <= '9';
}

/* getnum(s, fixed): one or two digits. */
static bool getnum(const char **s, size_t *n, bool fixed, int *out)
{
	if (!isdig(*s, *n, 0))
		return false;
	if (!isdig(*s, *n, 1)) {
		if (fixed)
			return false;
		*out = (*s)[0] - '0';
		(*s)++;
		(*n)--;
		return true;
	}
	*out = ((*s)[0] - '0') * 10 + ((*s)[1] - '0');
	*s += 2;
	*n -= 2;
	return true;
}

int smp__days_in(int month, int year)
{
	static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
		return 29;
	return d[month - 1];
}

/* Go's generic time.parse with the RFC 3339 layout (what time.Parse falls
 * back to, and so what decides, when the fast path fails). Returns true
 * when the value parses; else fills tp. */
static bool parse_rfc3339(tparse *tp)
{
	/* The layout as (literal prefix, element) chunks. */
	static const struct { const char *prefix, *elem; } chunks[] = {
		{"", "2006"}, {"-", "01"}, {"-", "02"}, {"T", "15"}, {":", "04"}, {":", "05"},
		{"", "Z07:00"},
	};
	const char *s = tp->v;
	size_t n = tp->vlen;
	int year = 0, month = 0, day = 0, x = 0;

	tp->msg = NULL;
	for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
		const char *p = chunks[k].prefix, *hold;
		size_t hold_n;
		bool ok = true;
		const char *range = NULL;

		for (; *p; p++) {
			if (!n || *s != *p) {
				tp->layout_elem = chunks[k].prefix;
				tp->value_elem = s;
				tp->value_len = n;
				return false;
			}
			s++;
			n--;
		}
		hold = s;
		hold_n = n;
		switch (k) {
		case 0: /* year: four characters, the first a digit, all digits */
			if (n < 4 || !isdig(s, n, 0)) {
				ok = false;
				break;
			}
			for (int i = 0; i < 4; i++) {
				if (!isdig(s, n, (size_t)i)) {
					ok = false;
					break;
				}
				year = year * 10 + (s[i] - '0');
			}
			s += 4;
			n -= 4;
			break;
		case 1:
			ok = getnum(&s, &n, true, &month);
			if (ok && (month <= 0 || month > 12))
				range = "month";
			break;
		case 2:
			ok = getnum(&s, &n, true, &day);
			break;
		case 3:
			ok = getnum(&s, &n, false, &x);
			if (ok && x >= 24)
				range = "hour";
			break;
		case 4:
			ok = getnum(&s, &n, true, &x);
			if (ok && x >= 60)
				range = "minute";
			break;
		case 5:
			ok = getnum(&s, &n, true, &x);
			if (!ok)
				break;
			if (x >= 60) {
				range = "second";
				break;
			}
			/* a fraction the layout does not have is accepted */
			if (n >= 2 && (s[0] == '.' || s[0] == ',') && isdig(s, n, 1)) {
				size_t i = 2;

				while (isdig(s, n, i))
					i++;
				s += i;
				n -= i;
			}
			break;
		default: /* Z07:00 */
			if (n >= 1 && s[0] == 'Z') {
				s++;
				n--;
				break;
			}
			if (n < 6 || s[3] != ':') {
				ok = false;
				break;
			}
			{
				const char *h = s + 1, *m = s + 4;
				size_t hn = 2, mn = 2;
				int hr = 0, mm = 0;

				ok = getnum(&h, &hn, true, &hr) && getnum(&m, &mn, true, &mm);
				if (hr > 24)
					range = "time zone offset hour";
				if (mm > 60)
					range = "time zone offset minute";
				if (ok && s[0] != '+' && s[0] != '-')
					ok = false;
			}
			s += 6;
			n -= 6;
			break;
		}
		if (range) {
			tp->msg = range;
			return false;
		}
		if (!ok) {
			tp->layout_elem = chunks[k].elem;
			tp->value_elem = hold;
			tp->value_len = hold_n;
			return false;
		}
	}
	if (n) {
		tp->msg = "extra text";
		tp->value_elem = s;
		tp->value_len = n;
		return false;
	}
	if (day < 1 || day > smp__days_in(month, year)) {
		tp->msg = "day";
		return false;
	}
	return true;
}

/* metav1.Time's UnmarshalJSON: null, or a string time.Parse reads as RFC
 * 3339. Its errors stop the decoding: returns nonzero then. */
static int check_time(mctx *c, const smp_value *v, const char *strct, const char *field)
{
	tparse tp;
	smp_buf b;

	if (v->type == SMP_NULL)
		return 0;
	if (v->type != SMP_STRING) {
		/* json.Unmarshal(b, &str) inside UnmarshalJSON; context added */
		c->saved = false;
		type_error(c, v, false, strct, field, "string");
		return SMP_EINVALOBJ;
	}
	memset(&tp, 0, sizeof(tp));
	tp.v = v->u.s.ptr;
	tp.vlen = v->u.s.len;
	if (parse_rfc3339(&tp))
		return 0;
	smp_buf_init(&b);
	smp_buf_puts(&b, "parsing time ");
	go_tquote(&b, tp.v, tp.vlen);
	if (tp.msg && strcmp(tp.msg, "extra text") == 0) {
		smp_buf_puts(&b, ": extra text: ");
		go_tquote(&b, tp.value_elem, tp.value_len);
	} else if (tp.msg) {
		smp_buf_puts(&b, ": ");
		smp_buf_puts(&b, tp.msg);
		smp_buf_puts(&b, " out of range");
	} else {
		smp_buf_puts(&b, " as \"" RFC3339 "\": cannot parse ");
		go_tquote(&b, tp.value_elem, tp.value_len);
		smp_buf_puts(&b, " as ");
		go_tquote(&b, tp.layout_elem, strlen(tp.layout_elem));
	}
	smp_err_set(c->err, SMP_EINVALOBJ, NULL, v->line, v->col, c->path, "%s",
	            b.oom || !b.ptr ? "parsing time: out of memory" : b.ptr);
	smp_buf_release(&b);
	return SMP_EINVALOBJ;
}

static bool key_is(const smp_member *m, const char *k)
{
	return m->klen == strlen(k) && memcmp(m->key, k, m->klen) == 0;
}

/* map[string]string */
static int check_string_map(mctx *c, const smp_value *v, const char *field)
{
	const smp_member **ms;
	int rc;

	if (v->type == SMP_NULL)
		return 0;
	if (v->type != SMP_MAP) {
		type_error(c, v, false, "ObjectMeta", field, "map[string]string");
		return 0;
	}
	if (c->saved)
		return 0; /* later type errors are not reported */
	if ((rc = smp_sorted_members(&ms, v, true)))
		return rc;
	for (size_t i = 0; i < v->u.map.len && !c->saved; i++) {
		const smp_member *m = smp_member_at(ms, v, i);
		size_t old = push(c, m->key, m->klen, false);

		check_string(c, m->val, "ObjectMeta", field, "string");
		pop(c, old);
	}
	free(ms);
	return 0;
}

/* A list of structs (or of strings when `fields` is NULL): returns nonzero
 * when a time error stopped the decoding. */
typedef int (*elem_fn)(mctx *c, const smp_value *elem);

static int check_list(mctx *c, const smp_value *v, const char *field, const char *list_type,
                      const char *elem_type, elem_fn fn)
{
	if (v->type == SMP_NULL)
		return 0;
	if (v->type != SMP_LIST) {
		type_error(c, v, false, "ObjectMeta", field, list_type);
		return 0;
	}
	for (size_t i = 0; i < v->u.list.len; i++) {
		const smp_value *e = v->u.list.items[i];
		char idx[24];
		size_t old;
		int rc = 0;

		snprintf(idx, sizeof(idx), "%zu", i);
		old = push(c, idx, strlen(idx), true);
		if (!fn) {
			check_string(c, e, "ObjectMeta", field, elem_type);
		} else if (e->type != SMP_MAP && e->type != SMP_NULL) {
			type_error(c, e, false, "ObjectMeta", field, elem_type);
		} else if (e->type == SMP_MAP) {
			rc = fn(c, e);
		}
		pop(c, old);
		if (rc)
			return rc;
	}
	return 0;
}

static int owner_ref(mctx *c, const smp_value *e)
{
	static const struct { const char *key, *type; } strs[] = {
		{"apiVersion", "string"}, {"kind", "string"}, {"name", "string"},
		{"uid", "types.UID"},
	};
	const smp_member **ms;
	int rc;

	if ((rc = smp_sorted_members(&ms, e, true)))
		return rc;
	for (size_t i = 0; i < e->u.map.len; i++) {
		const smp_member *m = smp_member_at(ms, e, i);
		char field[64];
		size_t old = push(c, m->key, m->klen, false);

		snprintf(field, sizeof(field), "metadata.ownerReferences.%.*s", (int)m->klen, m->key);
		for (size_t j = 0; j < sizeof(strs) / sizeof(strs[0]); j++)
			if (key_is(m, strs[j].key))
				check_string(c, m->val, "OwnerReference", field, strs[j].type);
		if (key_is(m, "controller") || key_is(m, "blockOwnerDeletion"))
			check_bool(c, m->val, "OwnerReference", field);
		pop(c, old);
	}
	free(ms);
	return 0;
}

static int managed_entry(mctx *c, const smp_value *e)
{
	static const struct { const char *key, *type; } strs[] = {
		{"apiVersion", "string"}, {"fieldsType", "string"}, {"manager", "string"},
		{"operation", "v1.ManagedFieldsOperationType"}, {"subresource", "string"},
	};
	const smp_member **ms;
	int rc = 0;

	if ((rc = smp_sorted_members(&ms, e, true)))
		return rc;
	for (size_t i = 0; i < e->u.map.len && !rc; i++) {
		const smp_member *m = smp_member_at(ms, e, i);
		char field[64];
		size_t old = push(c, m->key, m->klen, false);

		snprintf(field, sizeof(field), "metadata.managedFields.%.*s", (int)m->klen, m->key);
		for (size_t j = 0; j < sizeof(strs) / sizeof(strs[0]); j++)
			if (key_is(m, strs[j].key))
				check_string(c, m->val, "ManagedFieldsEntry", field, strs[j].type);
		if (key_is(m, "time"))
			rc = check_time(c, m->val, "ManagedFieldsEntry", field);
		/* fieldsV1 (FieldsV1.UnmarshalJSON) takes anything */
		pop(c, old);
	}
	free(ms);
	return rc;
}

static int object_meta(mctx *c, const smp_value *md)
{
	static const struct { const char *key, *type; } strs[] = {
		{"generateName", "string"}, {"name", "string"}, {"namespace", "string"},
		{"resourceVersion", "string"}, {"selfLink", "string"}, {"uid", "types.UID"},
	};
	const smp_member **ms;
	int rc = 0;

	if ((rc = smp_sorted_members(&ms, md, true)))
		return rc;
	for (size_t i = 0; i < md->u.map.len && !rc; i++) {
		const smp_member *m = smp_member_at(ms, md, i);
		char field[64];
		size_t old = push(c, m->key, m->klen, false);

		snprintf(field, sizeof(field), "metadata.%.*s", (int)m->klen, m->key);
		for (size_t j = 0; j < sizeof(strs) / sizeof(strs[0]); j++)
			if (key_is(m, strs[j].key))
				check_string(c, m->val, "ObjectMeta", field, strs[j].type);
		if (key_is(m, "generation") || key_is(m, "deletionGracePeriodSeconds"))
			check_int64(c, m->val, "ObjectMeta", field);
		else if (key_is(m, "creationTimestamp") || key_is(m, "deletionTimestamp"))
			rc = check_time(c, m->val, "ObjectMeta", field);
		else if (key_is(m, "labels") || key_is(m, "annotations"))
			rc = check_string_map(c, m->val, field);
		else if (key_is(m, "finalizers"))
			rc = check_list(c, m->val, field, "[]string", "string", NULL);
		else if (key_is(m, "ownerReferences"))
			rc = check_list(c, m->val, field, "[]v1.OwnerReference", "v1.OwnerReference",
			                owner_ref);
		else if (key_is(m, "managedFields"))
			rc = check_list(c, m->val, field, "[]v1.ManagedFieldsEntry",
			                "v1.ManagedFieldsEntry", managed_entry);
		pop(c, old);
	}
	free(ms);
	return rc;
}

int smp_object_validate_meta(const smp_value *obj, smp_error *err)
{
	mctx c;
	const smp_value *av, *md;
	int rc;

	if (!obj)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "smp_object_validate_meta: NULL object");
	if (obj->type != SMP_MAP)
		return smp_err_set(err, SMP_EINVALOBJ, NULL, obj->line, obj->col, NULL,
		                   "the object must be a map");
	memset(&c, 0, sizeof(c));
	c.err = err;
	/* Sorted: apiVersion < kind < metadata; kind is checked elsewhere
	 * (kubectl reports a non-string kind as a missing one, first). */
	if ((av = smpv_map_get(obj, "apiVersion"))) {
		push(&c, "apiVersion", 10, false);
		check_string(&c, av, "metadataOnlyObject", "apiVersion", "string");
		pop(&c, 0);
	}
	md = smpv_map_get(obj, "metadata");
	if (md && md->type != SMP_MAP && md->type != SMP_NULL) {
		push(&c, "metadata", 8, false);
		type_error(&c, md, false, "metadataOnlyObject", "metadata", "v1.ObjectMeta");
		pop(&c, 0);
	} else if (md && md->type == SMP_MAP) {
		push(&c, "metadata", 8, false);
		rc = object_meta(&c, md);
		if (rc == SMP_ENOMEM)
			return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
		if (rc)
			return rc;
	}
	return c.saved ? SMP_EINVALOBJ : 0;
}
