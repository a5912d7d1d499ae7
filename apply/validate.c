/*
 * validate.c - field validation as the API server does it when kubectl
 * sends fieldValidation=Strict|Warn (kubectl --validate): unknown fields
 * (sigs.k8s.io/json's strict decoding: `unknown field
 * "spec.template.spec.containers[0].foo"`) and values of the wrong JSON
 * type, which fail the decoding in every mode (`json: cannot unmarshal
 * string into Go struct field DeploymentSpec.spec.replicas of type int32`).
 *
 * Fields are visited in sorted key order: kubectl sends the JSON of an
 * unstructured object, whose keys encoding/json sorts, and the decoder
 * reports what it meets in that order (only its first type error).
 */
#include "apply_int.h"
#include "codec/codec.h"
#include "schema/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vproblem {
	char *path;     /* JSON path with list indexes */
	char *text;     /* the server's text for it */
	unsigned line, column;
	bool type_error;
} vproblem;

struct smp_validation {
	vproblem *items;
	size_t n, cap;
	char *prefix;         /* "Deployment in version \"v1\" cannot be handled as a Deployment: " */
	bool has_type_error;
};

typedef struct vctx {
	smp_validation *v;
	smp_buf path;       /* JSON path with indexes ("spec.containers[0].image") */
	smp_buf gopath;     /* Go's field stack ("spec.containers.image") */
	bool typed;         /* a built-in kind: Go decodes it, type errors exist */
} vctx;

static int add(vctx *c, const char *text, const smp_value *at, bool type_error)
{
	smp_validation *v = c->v;
	vproblem *p;

	if (type_error && v->has_type_error)
		return SMP_OK; /* the decoder keeps its first type error */
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 8;
		vproblem *ni = realloc(v->items, nc * sizeof(*ni));
		if (!ni)
			return SMP_ENOMEM;
		v->items = ni;
		v->cap = nc;
	}
	p = &v->items[v->n];
	p->path = strdup(c->path.ptr ? c->path.ptr : "");
	p->text = strdup(text);
	if (!p->path || !p->text) {
		free(p->path);
		free(p->text);
		return SMP_ENOMEM;
	}
	p->line = smp_value_line(at);
	p->column = smp_value_column(at);
	p->type_error = type_error;
	v->n++;
	if (type_error)
		v->has_type_error = true;
	return SMP_OK;
}

/* The JSON kind Go names in an UnmarshalTypeError ("number 1.5" for a
 * number that does not fit an integer type when `literal`). */
static void json_kind(smp_buf *b, const smp_value *v, bool literal)
{
	char num[40];
	size_t n;

	switch (smp_value_type(v)) {
	case SMP_STRING:
		smp_buf_puts(b, "string");
		return;
	case SMP_BOOL:
		smp_buf_puts(b, "bool");
		return;
	case SMP_LIST:
		smp_buf_puts(b, "array");
		return;
	case SMP_MAP:
		smp_buf_puts(b, "object");
		return;
	case SMP_INT:
	case SMP_FLOAT:
		smp_buf_puts(b, "number");
		if (literal) {
			n = v->type == SMP_INT ? smp_format_int(num, smp_value_int(v))
			                       : smp_format_float(num, smp_value_float(v));
			smp_buf_putc(b, ' ');
			smp_buf_put(b, num, n);
		}
		return;
	default:
		smp_buf_puts(b, "null");
		return;
	}
}

/* Go's name for a schema type: "v1.PodSpec", "[]v1.Container",
 * "map[string]string", "int32", "string", ... */
static void go_type(smp_buf *b, const smp_stype *t, int depth)
{
	if (!t || depth > 8) {
		smp_buf_puts(b, "interface {}");
		return;
	}
	if (t->name && t->kind == SMP_SKIND_OBJECT) {
		/* io.k8s.api.core.v1.PodSpec -> v1.PodSpec */
		const char *last = strrchr(t->name, '.');
		const char *prev = last;
		while (prev > t->name && prev[-1] != '.')
			prev--;
		smp_buf_puts(b, prev > t->name ? prev : t->name);
		return;
	}
	switch (t->kind) {
	case SMP_SKIND_LIST:
		smp_buf_puts(b, "[]");
		go_type(b, t->elem, depth + 1);
		return;
	case SMP_SKIND_MAP:
		if (t->elem && t->elem->format && strcmp(t->elem->format, "quantity") == 0) {
			smp_buf_puts(b, "v1.ResourceList");
			return;
		}
		smp_buf_puts(b, "map[string]");
		go_type(b, t->elem, depth + 1);
		return;
	case SMP_SKIND_PRIMITIVE:
		if (t->type_name && strcmp(t->type_name, "integer") == 0)
			smp_buf_puts(b, t->format && strcmp(t->format, "int32") == 0 ? "int32" : "int64");
		else if (t->type_name && strcmp(t->type_name, "number") == 0)
			smp_buf_puts(b, "float64");
		else if (t->type_name && strcmp(t->type_name, "boolean") == 0)
			smp_buf_puts(b, "bool");
		else
			smp_buf_puts(b, "string");
		return;
	default:
		smp_buf_puts(b, "interface {}");
		return;
	}
}

static int type_error(vctx *c, const smp_value *v, const smp_stype *t, const char *owner,
                      bool literal)
{
	smp_buf b;
	int rc;

	if (!c->typed)
		return SMP_OK; /* custom resources: the schema's own checks, not Go's */
	smp_buf_init(&b);
	smp_buf_puts(&b, "json: cannot unmarshal ");
	json_kind(&b, v, literal);
	if (owner) {
		smp_buf_puts(&b, " into Go struct field ");
		smp_buf_puts(&b, owner);
		smp_buf_putc(&b, '.');
		smp_buf_puts(&b, c->gopath.ptr ? c->gopath.ptr : "");
	} else {
		smp_buf_puts(&b, " into Go value");
	}
	smp_buf_puts(&b, " of type ");
	go_type(&b, t, 0);
	rc = b.oom ? SMP_ENOMEM : add(c, b.ptr, v, true);
	smp_buf_release(&b);
	return rc;
}

/* Takes the two paths back to the lengths pl and gl they had before a
 * member was added. */
static void path_back(vctx *c, size_t pl, size_t gl)
{
	c->path.len = pl;
	c->gopath.len = gl;
	if (c->path.ptr)
		c->path.ptr[pl] = '\0';
	if (c->gopath.ptr)
		c->gopath.ptr[gl] = '\0';
}

/* The Go struct name of an OBJECT type ("DeploymentSpec"). */
static const char *struct_name(const smp_stype *t)
{
	const char *d = t && t->name ? strrchr(t->name, '.') : NULL;

	return d ? d + 1 : (t ? t->name : NULL);
}

static int check(vctx *c, const smp_value *v, const smp_stype *t, const char *owner,
                 int depth);

static bool special_format(const smp_stype *t, const char *f)
{
	return t && t->format && strcmp(t->format, f) == 0;
}

/* The fields of an object against its struct type, in sorted order as
 * the server reports them: unknown ones (strict decoding) and each value
 * by check(). */
static int check_object(vctx *c, const smp_value *v, const smp_stype *t, int depth)
{
	const smp_member **idx = NULL;
	int rc;

	rc = smp_sorted_members(&idx, v, true);
	if (rc)
		return rc;
	for (size_t k = 0; k < v->u.map.len && rc == SMP_OK; k++) {
		const smp_member *m = smp_member_at(idx, v, k);
		const smp_sfield *f = smp_stype_field(t, m->key, m->klen);
		size_t pl = c->path.len, gl = c->gopath.len;

		if (pl)
			smp_buf_putc(&c->path, '.');
		smp_buf_put(&c->path, m->key, m->klen);
		if (gl)
			smp_buf_putc(&c->gopath, '.');
		smp_buf_put(&c->gopath, m->key, m->klen);
		if (c->path.oom || c->gopath.oom) {
			rc = SMP_ENOMEM;
		} else if (!f) {
			if (!(t->flags & SMP_SFLAG_PRESERVE_UNKNOWN)) {
				smp_buf b;
				smp_buf_init(&b);
				smp_buf_puts(&b, "unknown field ");
				smp_quote_go(&b, c->path.ptr, c->path.len);
				rc = b.oom ? SMP_ENOMEM : add(c, b.ptr, m->val, false);
				smp_buf_release(&b);
			}
		} else {
			rc = check(c, m->val, f->type, struct_name(t), depth + 1);
		}
		path_back(c, pl, gl);
	}
	free(idx);
	return rc;
}

/* One value against its type as the server's decoding sees it: the
 * wrong type is an error in every mode; objects, maps and lists checked
 * within. */
static int check(vctx *c, const smp_value *v, const smp_stype *t, const char *owner,
                 int depth)
{
	smp_type vt = smp_value_type(v);

	if (!t || vt == SMP_NULL || depth > 200)
		return SMP_OK;
	if (special_format(t, "quantity") && c->typed) {
		smp_quantity *q = NULL;
		smp_error e;
		int rc = smp_quantity_from_value(&q, v, NULL, &e);
		smp_quantity_free(q);
		if (rc == SMP_ENOMEM)
			return rc;
		return rc ? add(c, e.message, v, true) : SMP_OK;
	}
	if (t->flags & SMP_SFLAG_INT_OR_STRING) {
		/* intstr.IntOrString.UnmarshalJSON: a string, else an int32. */
		if (vt == SMP_STRING)
			return SMP_OK;
		if (vt == SMP_INT && smp_value_int(v) >= INT32_MIN && smp_value_int(v) <= INT32_MAX)
			return SMP_OK;
		{
			static const smp_stype i32 = {SMP_SKIND_PRIMITIVE, 0, NULL, "integer",
			                              "int32", NULL, 0, NULL, NULL, NULL, NULL};
			return type_error(c, v, &i32, NULL, vt == SMP_INT || vt == SMP_FLOAT);
		}
	}
	switch (t->kind) {
	case SMP_SKIND_OBJECT:
		if (vt != SMP_MAP)
			return type_error(c, v, t, owner, false);
		return check_object(c, v, t, depth);
	case SMP_SKIND_LIST:
		if (vt != SMP_LIST)
			return type_error(c, v, t, owner, false);
		for (uint32_t i = 0; i < v->u.list.len; i++) {
			size_t pl = c->path.len;
			int rc;
			smp_buf_printf(&c->path, "[%u]", (unsigned)i);
			if (c->path.oom)
				return SMP_ENOMEM;
			rc = check(c, v->u.list.items[i], t->elem, owner, depth + 1);
			c->path.len = pl;
			c->path.ptr[pl] = '\0';
			if (rc)
				return rc;
		}
		return SMP_OK;
	case SMP_SKIND_MAP:
		if (vt != SMP_MAP)
			return type_error(c, v, t, owner, false);
		if (!t->elem || t->elem->kind == SMP_SKIND_ANY)
			return SMP_OK;
		{
			const smp_member **idx = NULL;
			int rc = smp_sorted_members(&idx, v, true);
			for (size_t k = 0; k < v->u.map.len && rc == SMP_OK; k++) {
				const smp_member *m = smp_member_at(idx, v, k);
				size_t pl = c->path.len, gl = c->gopath.len;
				/* Map entries are [key] in the strict decoder's
				 * paths and absent from Go's field stack. */
				smp_buf_putc(&c->path, '[');
				smp_buf_put(&c->path, m->key, m->klen);
				smp_buf_putc(&c->path, ']');
				rc = (c->path.oom || c->gopath.oom)
				             ? SMP_ENOMEM
				             : check(c, m->val, t->elem, owner, depth + 1);
				path_back(c, pl, gl);
			}
			free(idx);
			return rc;
		}
	case SMP_SKIND_PRIMITIVE: {
		const char *tn = t->type_name ? t->type_name : "string";
		if (special_format(t, "byte") && vt == SMP_STRING && c->typed) {
			/* []byte: Go decodes the text as base64 */
			long at = smp_base64_check(v->u.s.ptr, v->u.s.len);
			char text[64];

			if (at < 0)
				return SMP_OK;
			snprintf(text, sizeof(text), "illegal base64 data at input byte %ld", at);
			return add(c, text, v, true);
		}
		if (special_format(t, "date-time") || special_format(t, "byte"))
			return vt == SMP_STRING ? SMP_OK : type_error(c, v, t, owner, false);
		if (strcmp(tn, "integer") == 0) {
			bool i32 = t->format && strcmp(t->format, "int32") == 0;
			if (vt == SMP_INT) {
				int64_t i = smp_value_int(v);
				if (!i32 || (i >= INT32_MIN && i <= INT32_MAX))
					return SMP_OK;
				return type_error(c, v, t, owner, true);
			}
			return type_error(c, v, t, owner, vt == SMP_FLOAT);
		}
		if (strcmp(tn, "number") == 0)
			return vt == SMP_INT || vt == SMP_FLOAT ? SMP_OK
			                                         : type_error(c, v, t, owner, false);
		if (strcmp(tn, "boolean") == 0)
			return vt == SMP_BOOL ? SMP_OK : type_error(c, v, t, owner, false);
		return vt == SMP_STRING ? SMP_OK : type_error(c, v, t, owner, false);
	}
	default:
		return SMP_OK;
	}
}

void smp_validation_free(smp_validation *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		free(v->items[i].path);
		free(v->items[i].text);
	}
	free(v->items);
	free(v->prefix);
	free(v);
}

int smp_object_validate(smp_validation **out, const smp_value *obj, const smp_schema *schema,
                        smp_error *err)
{
	const char *av, *kind, *group, *version;
	size_t glen, vlen;
	const smp_gvk_entry *e = NULL;
	smp_validation *v;
	vctx c;
	int rc;

	if (out)
		*out = NULL;
	if (!out || smp_value_type(obj) != SMP_MAP)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "smp_object_validate: the object must be a map");
	v = calloc(1, sizeof(*v));
	if (!v)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	av = smp_value_string(smp_map_get(obj, "apiVersion"), NULL);
	kind = smp_value_string(smp_map_get(obj, "kind"), NULL);
	if (av && kind) {
		/* The kind's type: the given schema first (an OpenAPI document
		 * describes the server's own types; CRDs the custom kinds), then
		 * the built-in tables. */
		if (schema)
			e = smp_schema_find_kind(schema, av, kind, true);
		if (!e)
			e = smp_schema_find_kind(&smp_builtin_schema, av, kind, true);
		smp_split_api_version(av, &group, &glen, &version, &vlen);
		{
			smp_buf b;
			smp_buf_init(&b);
			smp_buf_printf(&b, "%s in version \"%.*s\" cannot be handled as a %s: ", kind,
			               (int)vlen, version, kind);
			v->prefix = smp_buf_detach(&b, NULL);
			if (!v->prefix) {
				smp_validation_free(v);
				return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
			}
		}
	}
	if (!e) {
		/* No schema for the kind: nothing to check (the server would
		 * not know the kind either). */
		*out = v;
		return SMP_OK;
	}
	memset(&c, 0, sizeof(c));
	c.v = v;
	c.typed = smp_schema_find_kind(&smp_builtin_schema, av, kind, true) != NULL;
	smp_buf_init(&c.path);
	smp_buf_init(&c.gopath);
	smp_buf_reserve(&c.path, 64);
	smp_buf_reserve(&c.gopath, 64);
	rc = c.path.oom || c.gopath.oom ? SMP_ENOMEM : check(&c, obj, e->type, NULL, 0);
	smp_buf_release(&c.path);
	smp_buf_release(&c.gopath);
	if (rc) {
		smp_validation_free(v);
		return smp_err_set(err, rc, NULL, 0, 0, NULL, "out of memory");
	}
	*out = v;
	return SMP_OK;
}

size_t smp_validation_count(const smp_validation *v)
{
	return v ? v->n : 0;
}

const char *smp_validation_text(const smp_validation *v, size_t i)
{
	return v && i < v->n ? v->items[i].text : NULL;
}

const char *smp_validation_path(const smp_validation *v, size_t i)
{
	return v && i < v->n ? v->items[i].path : NULL;
}

bool smp_validation_is_type_error(const smp_validation *v, size_t i)
{
	return v && i < v->n && v->items[i].type_error;
}

int smp_validation_error(const smp_validation *v, smp_validate_mode mode, smp_error *err)
{
	const vproblem *first = NULL;
	smp_buf b;
	int rc;

	if (!v || v->n == 0)
		return SMP_OK;
	for (size_t i = 0; i < v->n && !first; i++)
		if (v->items[i].type_error)
			first = &v->items[i];
	if (!first && mode != SMP_VALIDATE_STRICT)
		return SMP_OK;
	smp_buf_init(&b);
	smp_buf_puts(&b, v->prefix ? v->prefix : "");
	if (first) {
		/* A decoding error trumps the strict ones. */
		smp_buf_puts(&b, first->text);
	} else {
		first = &v->items[0];
		smp_buf_puts(&b, "strict decoding error: ");
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				smp_buf_puts(&b, ", ");
			smp_buf_puts(&b, v->items[i].text);
		}
	}
	rc = smp_err_set(err, b.oom ? SMP_ENOMEM : SMP_EINVALOBJ, NULL, first->line, first->column,
	                 first->path, "%s", b.oom ? "out of memory" : b.ptr);
	smp_buf_release(&b);
	return rc;
}
