/*
 * status.c - the metav1.Status the API server answers for a failure, built
 * from an smp_error and the object it concerns (k8s.io/apimachinery
 * pkg/api/errors: NewBadRequest, NewInvalid, NewConflict,
 * NewRequestEntityTooLargeError, NewInternalError).
 */
#include "apply_int.h"
#include "schema/schema.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* snprintf that truncates silently: messages are cut at the buffer size,
 * as smp_error's own are. */
static void fmt(char *buf, size_t size, const char *f, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static void fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, size, f, ap);
	va_end(ap);
}

typedef struct sb {
	smp_arena *a;
	int rc;
} sb;

static smp_value *s_str(sb *b, const char *s, size_t n)
{
	smp_value *v = smpv_str(b->a, s, n);

	if (!v)
		b->rc = SMP_ENOMEM;
	return v;
}

static void s_put(sb *b, smp_value *map, const char *key, smp_value *v)
{
	if (b->rc || !map || !v) {
		b->rc = b->rc ? b->rc : SMP_ENOMEM;
		return;
	}
	if (smpv_map_add(b->a, map, key, strlen(key), v))
		b->rc = SMP_ENOMEM;
}

static void s_puts(sb *b, smp_value *map, const char *key, const char *s)
{
	if (s && *s)
		s_put(b, map, key, s_str(b, s, strlen(s)));
}

/* The CauseType of a field error's text (field.ErrorType.String()). */
static const char *cause_type(const char *detail)
{
	static const struct {
		const char *prefix, *type;
	} t[] = {
		{"Invalid value:", "FieldValueInvalid"},
		{"Too long:", "FieldValueTooLong"},
		{"Too many:", "FieldValueTooMany"},
		{"Required value", "FieldValueRequired"},
		{"Unsupported value:", "FieldValueNotSupported"},
		{"Duplicate value:", "FieldValueDuplicate"},
		{"Forbidden:", "FieldValueForbidden"},
		{"Not found:", "FieldValueNotFound"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strncmp(detail, t[i].prefix, strlen(t[i].prefix)) == 0)
			return t[i].type;
	return "FieldValueInvalid";
}

/* The prefixes of the field manager's errors for an applied configuration,
 * or a live object, that does not fit the schema: the server answers them
 * as unknown errors. NULL when m has neither. */
static const char *typing_error(const char *m)
{
	static const char *const p[] = {"failed to create typed patch object",
	                                "failed to create typed live object"};

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (strncmp(m, p[i], strlen(p[i])) == 0 && m[strlen(p[i])] == ':' &&
		    m[strlen(p[i]) + 1] == ' ')
			return p[i];
	return NULL;
}

int smp_status_from_error(smp_doc **out, const smp_error *e, const smp_value *obj,
                          smp_error *err)
{
	char ref[512], gk[320], msg[SMP_ERROR_MESSAGE_MAX + 600];
	const char *m, *kind, *name, *av, *group = "", *reason, *detail = NULL;
	size_t glen = 0, vlen = 0, rl;
	const char *version = "";
	smp_doc *doc;
	smp_value *st, *details = NULL;
	int code;
	sb b;

	if (out)
		*out = NULL;
	if (!out || !e)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "smp_status_from_error: NULL argument");
	kind = smp_value_string(smp_value_at(obj, "kind"), NULL);
	name = smp_value_string(smp_value_at(obj, "metadata.name"), NULL);
	av = smp_value_string(smp_value_at(obj, "apiVersion"), NULL);
	if (av) {
		smp_split_api_version(av, &group, &glen, &version, &vlen);
	}
	fmt(gk, sizeof(gk), "%s%s%.*s", kind ? kind : "", glen ? "." : "", (int)glen, group);
	/* smpatch's messages start with the object ("deployment.apps/web: "). */
	m = e->message;
	rl = obj ? smp_apply_object_ref(ref, sizeof(ref), obj) : 0;
	if (rl && strncmp(m, ref, rl) == 0 && m[rl] == ':' && m[rl + 1] == ' ')
		m += rl + 2;

	switch (e->code) {
	case SMP_EINVALOBJ:
		if (typing_error(m)) {
			/* the field manager's error, which the server answers as an
			 * unknown error (ErrorToAPIStatus: 500, no reason), naming
			 * the object as objectGVKNN does */
			const char *ns = smp_value_string(smp_value_at(obj, "metadata.namespace"), NULL);
			const char *what = typing_error(m);

			code = 500;
			reason = NULL;
			fmt(msg, sizeof(msg), "%s (%s/%s; %.*s/%.*s, Kind=%s): %s", what,
			    ns ? ns : "", name ? name : "", (int)glen, group, (int)vlen,
			    version, kind ? kind : "", m + strlen(what) + 2);
			break;
		}
		if (strstr(m, " cannot be handled as a ") || !e->path[0]) {
			code = 400;
			reason = "BadRequest";
			fmt(msg, sizeof(msg), "%s", m);
			break;
		}
		/* A field error: "<path>: <detail>" somewhere in the text. */
		code = 422;
		reason = "Invalid";
		{
			char pfx[SMP_ERROR_PATH_MAX + 3];
			const char *at;
			fmt(pfx, sizeof(pfx), "%s: ", e->path);
			at = strstr(m, pfx);
			detail = at ? at + strlen(pfx) : m;
		}
		fmt(msg, sizeof(msg), "%s \"%s\" is invalid: %s: %s", gk, name ? name : "",
		         e->path, detail);
		break;
	case SMP_ECONFLICT:
	case SMP_EPRECOND: {
		const char *res = av && kind ? smp_schema_kind_resource(smp_schema_builtin(), av, kind)
		                             : NULL;
		char rbuf[256];
		if (!res) {
			/* kubectl's guess: the lower-case kind plus "s". */
			size_t i = 0;
			for (; kind && kind[i] && i < sizeof(rbuf) - 2; i++)
				rbuf[i] = (char)(kind[i] >= 'A' && kind[i] <= 'Z' ? kind[i] + 32 : kind[i]);
			rbuf[i++] = 's';
			rbuf[i] = '\0';
			res = rbuf;
		}
		code = 409;
		reason = "Conflict";
		fmt(msg, sizeof(msg), "Operation cannot be fulfilled on %s%s%.*s \"%s\": %s", res,
		         glen ? "." : "", (int)glen, group, name ? name : "", m);
		fmt(gk, sizeof(gk), "%s", res);
		break;
	}
	case SMP_ELIMIT:
		code = 413;
		reason = "RequestEntityTooLarge";
		fmt(msg, sizeof(msg), "Request entity too large: %s", m);
		break;
	case SMP_ENOMEM:
	case SMP_EINTERNAL:
		code = 500;
		reason = "InternalError";
		fmt(msg, sizeof(msg), "Internal error occurred: %s", m);
		break;
	default:
		code = 400;
		reason = "BadRequest";
		fmt(msg, sizeof(msg), "%s", m);
		break;
	}

	doc = smp_doc_alloc();
	if (!doc)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	b.a = &doc->arena;
	b.rc = SMP_OK;
	st = smpv_map(b.a, 8);
	s_puts(&b, st, "kind", "Status");
	s_puts(&b, st, "apiVersion", "v1");
	s_put(&b, st, "metadata", smpv_map(b.a, 0));
	s_puts(&b, st, "status", "Failure");
	s_puts(&b, st, "message", msg);
	if (reason)
		s_puts(&b, st, "reason", reason);
	if (reason && (code == 422 || code == 409 || code == 500)) {
		details = smpv_map(b.a, 4);
		if (code != 500)
			s_puts(&b, details, "name", name);
		if (code != 500) {
			char g[256];
			fmt(g, sizeof(g), "%.*s", (int)glen, group);
			s_puts(&b, details, "group", g);
			/* Invalid names the kind, Conflict the resource. */
			s_puts(&b, details, "kind", code == 422 ? kind : gk);
		}
		if (code == 422 || code == 500) {
			smp_value *causes = smpv_list(b.a, 1), *cause = smpv_map(b.a, 3);
			if (code == 422)
				s_puts(&b, cause, "reason", cause_type(detail));
			s_puts(&b, cause, "message", code == 422 ? detail : m);
			if (code == 422)
				s_puts(&b, cause, "field", e->path);
			if (!b.rc && (!causes || !cause || smpv_list_add(b.a, causes, cause)))
				b.rc = SMP_ENOMEM;
			s_put(&b, details, "causes", causes);
		}
		s_put(&b, st, "details", details);
	}
	s_put(&b, st, "code", smpv_int(b.a, code));
	if (b.rc || smp_doc_push_root(doc, st)) {
		smp_doc_free(doc);
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	}
	*out = doc;
	return SMP_OK;
}

/* CauseType of each field.ErrorType (the cause's "reason"). */
static const char *const fe_cause[] = {
	[SMP_FE_NOT_FOUND] = "FieldValueNotFound",
	[SMP_FE_REQUIRED] = "FieldValueRequired",
	[SMP_FE_DUPLICATE] = "FieldValueDuplicate",
	[SMP_FE_INVALID] = "FieldValueInvalid",
	[SMP_FE_NOT_SUPPORTED] = "FieldValueNotSupported",
	[SMP_FE_FORBIDDEN] = "FieldValueForbidden",
	[SMP_FE_TOO_LONG] = "FieldValueTooLong",
	[SMP_FE_TOO_MANY] = "FieldValueTooMany",
	[SMP_FE_INTERNAL] = "InternalError",
	[SMP_FE_TYPE_INVALID] = "FieldValueTypeInvalid",
};

/* The errors' texts ("<field>: <body>", field.Error.Error()) as
 * ToAggregate prints them: each text once, in order, "[a, b]" when there
 * are several. */
static void aggregate(smp_buf *b, const smp_felist *l)
{
	size_t start = b->len, kept = 0;
	smp_buf t;

	smp_buf_init(&t);
	for (size_t i = 0; i < l->n; i++) {
		const smp_fe *e = &l->items[i];
		bool seen = false;

		t.len = 0;
		smp_buf_printf(&t, "%s: %s", e->field, e->body);
		if (t.oom)
			break;
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(l->items[j].field, e->field) == 0 &&
			       strcmp(l->items[j].body, e->body) == 0;
		if (seen)
			continue;
		smp_buf_puts(b, kept++ ? ", " : "");
		smp_buf_put(b, t.ptr, t.len);
	}
	if (t.oom)
		b->oom = true;
	smp_buf_release(&t);
	if (kept > 1 && smp_buf_reserve(b, 2)) {
		memmove(b->ptr + start + 1, b->ptr + start, b->len - start);
		b->ptr[start] = '[';
		b->len++;
		smp_buf_putc(b, ']');
	}
}

int smp__fe_status(smp_doc **out, smp_error *err, const smp_felist *l, const smp_value *obj)
{
	const char *kind = smp_value_string(smp_value_at(obj, "kind"), NULL);
	const char *name = smp_value_string(smp_value_at(obj, "metadata.name"), NULL);
	const char *av = smp_value_string(smp_value_at(obj, "apiVersion"), NULL);
	const char *group = "", *version;
	size_t glen = 0, vlen, texts;
	smp_value *st, *details, *causes;
	smp_buf m;
	sb b;

	*out = NULL;
	if (av)
		smp_split_api_version(av, &group, &glen, &version, &vlen);
	smp_buf_init(&m);
	smp_buf_printf(&m, "%s%s%.*s ", kind ? kind : "", glen ? "." : "", (int)glen, group);
	smp_quote_go(&m, name ? name : "", name ? strlen(name) : 0);
	smp_buf_puts(&m, " is invalid: ");
	texts = m.len;
	aggregate(&m, l);
	if (m.oom || !(*out = smp_doc_alloc())) {
		smp_buf_release(&m);
		return SMP_ENOMEM;
	}
	b.a = &(*out)->arena;
	b.rc = SMP_OK;
	st = smpv_map(b.a, 8);
	details = smpv_map(b.a, 4);
	causes = smpv_list(b.a, l->n);
	s_puts(&b, st, "kind", "Status");
	s_puts(&b, st, "apiVersion", "v1");
	s_put(&b, st, "metadata", smpv_map(b.a, 0));
	s_puts(&b, st, "status", "Failure");
	s_puts(&b, st, "message", m.ptr);
	s_puts(&b, st, "reason", "Invalid");
	s_puts(&b, details, "name", name);
	if (glen)
		s_put(&b, details, "group", s_str(&b, group, glen));
	s_puts(&b, details, "kind", kind);
	for (size_t i = 0; i < l->n && !b.rc; i++) {
		smp_value *cause = smpv_map(b.a, 3);

		s_puts(&b, cause, "reason", fe_cause[l->items[i].type]);
		s_puts(&b, cause, "message", l->items[i].body);
		s_puts(&b, cause, "field", l->items[i].field);
		if (!b.rc && (!cause || !causes || smpv_list_add(b.a, causes, cause)))
			b.rc = SMP_ENOMEM;
	}
	s_put(&b, details, "causes", causes);
	s_put(&b, st, "details", details);
	s_put(&b, st, "code", smpv_int(b.a, 422));
	if (b.rc || smp_doc_push_root(*out, st)) {
		smp_doc_free(*out);
		*out = NULL;
		smp_buf_release(&m);
		return SMP_ENOMEM;
	}
	smp_err_set(err, SMP_EINVALOBJ, NULL, l->n ? l->items[0].line : 0,
	            l->n ? l->items[0].col : 0, l->n ? l->items[0].field : NULL, "%s",
	            m.ptr + texts);
	smp_buf_release(&m);
	return SMP_EINVALOBJ;
}
