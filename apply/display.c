/*
 * display.c - the objects kubectl prints: without metadata.managedFields
 * unless asked (printers.OmitManagedFieldsPrinter of `kubectl apply -o`,
 * `kubectl diff`), and with the data of v1 Secrets masked as `kubectl
 * diff`'s Masker (k8s.io/kubectl/pkg/cmd/diff/diff.go) masks it, inside
 * the last-applied annotation too.
 */
#include "apply/apply_int.h"
#include "merge/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MASK_DEFAULT "***"
#define MASK_BEFORE "*** (before)"
#define MASK_AFTER "*** (after)"

static int oom(smp_error *err)
{
	return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
}

/* A deep copy of v as the single root of a new document. */
static int copy_doc(smp_doc **out, const smp_value *v, smp_value **root, smp_error *err)
{
	smp_doc *d = smp_doc_alloc();
	smp_value *c;

	*out = NULL;
	if (!d)
		return oom(err);
	c = smpv_copy(&d->arena, v);
	if (!c || smp_doc_push_root(d, c)) {
		smp_doc_free(d);
		return oom(err);
	}
	*out = d;
	*root = c;
	return 0;
}

/* SetManagedFields(nil): the key goes. */
static void drop_managed_fields(smp_value *obj)
{
	smp_value *md = smpv_map_get(obj, "metadata");
	ptrdiff_t at = md && md->type == SMP_MAP ? smpv_map_find(md, "managedFields", 13) : -1;

	if (at >= 0)
		smpv_map_remove(md, (size_t)at);
}

/* Whether obj's kind is "Secret" and its apiVersion's version "v1" (the
 * Masker's test: any group). */
static bool is_v1_secret(const smp_value *obj)
{
	const smp_value *k = smpv_map_get(obj, "kind"), *av = smpv_map_get(obj, "apiVersion");
	const char *v;

	if (!k || !smpv_is_str(k, "Secret") || !av || av->type != SMP_STRING)
		return false;
	v = strrchr(av->u.s.ptr, '/');
	return strcmp(v ? v + 1 : av->u.s.ptr, "v1") == 0;
}

/* Go's %v and %T of a decoded JSON value, for the Masker's error. */
static void go_v(smp_buf *b, const smp_value *v, const char **type)
{
	char num[64];

	switch (v->type) {
	case SMP_NULL:
		smp_buf_puts(b, "<nil>");
		*type = "<nil>";
		break;
	case SMP_BOOL:
		smp_buf_puts(b, v->u.b ? "true" : "false");
		*type = "bool";
		break;
	case SMP_INT:
		snprintf(num, sizeof(num), "%lld", (long long)v->u.i);
		smp_buf_puts(b, num);
		*type = "int64";
		break;
	case SMP_FLOAT:
		snprintf(num, sizeof(num), "%g", v->u.f);
		smp_buf_puts(b, num);
		*type = "float64";
		break;
	case SMP_STRING:
		smp_buf_put(b, v->u.s.ptr, v->u.s.len);
		*type = "string";
		break;
	default:
		smp_buf_puts(b, "[...]");
		*type = "[]interface {}";
		break;
	}
}

/* The object's map `field` ("data", "stringData"; NULL when absent); an
 * error in the Masker's words when it is not a map. */
static int data_of(smp_value *obj, const char *field, smp_value **data, smp_error *err)
{
	smp_value *d = obj ? smpv_map_get(obj, field) : NULL;
	const char *type = "";
	smp_buf b;

	*data = NULL;
	if (!d)
		return 0;
	if (d->type == SMP_MAP) {
		*data = d;
		return 0;
	}
	smp_buf_init(&b);
	go_v(&b, d, &type);
	smp_err_set(err, SMP_EINVALOBJ, NULL, d->line, d->col, field,
	            "run masker: extract '%s' field: get nested map: .%s accessor error: "
	            "%s is of the type %s, expected map[string]interface{}", field, field,
	            b.ptr && !b.oom ? b.ptr : "", type);
	smp_buf_release(&b);
	return SMP_EINVALOBJ;
}

/* Masks the values of the map `field` of both objects, as the Masker
 * masks `data`. */
static int mask_field(smp_arena *fa, smp_value *from_obj, smp_arena *ta, smp_value *to_obj,
                      const char *field, smp_error *err)
{
	smp_value *from, *to, *def, *before, *tdef, *tafter;
	smp_kindex fix, tix;
	smp_arena tmp;
	int rc;

	memset(&fix, 0, sizeof(fix));
	memset(&tix, 0, sizeof(tix));
	if ((rc = data_of(from_obj, field, &from, err)) || (rc = data_of(to_obj, field, &to, err)))
		return rc;
	if (!from && !to)
		return 0;
	def = before = tdef = tafter = NULL;
	if (from && (!(def = smpv_str(fa, MASK_DEFAULT, 3)) ||
	             !(before = smpv_str(fa, MASK_BEFORE, strlen(MASK_BEFORE)))))
		return oom(err);
	if (to && (!(tdef = smpv_str(ta, MASK_DEFAULT, 3)) ||
	           !(tafter = smpv_str(ta, MASK_AFTER, strlen(MASK_AFTER)))))
		return oom(err);
	smp_arena_init(&tmp);
	rc = 0;
	if ((from && smp_kindex_init(&fix, &tmp, from)) || (to && smp_kindex_init(&tix, &tmp, to))) {
		rc = oom(err);
		goto out;
	}
	/* Unchanged values become "***" on both sides, changed ones "***
	 * (before)" / "*** (after)", the others "***". */
	for (size_t i = 0; from && i < from->u.map.len; i++) {
		smp_member *m = &from->u.map.items[i];
		long j = to ? smp_kindex_find(&tix, m->key, m->klen) : -1;

		if (j >= 0) {
			smp_member *n = &to->u.map.items[j];

			if (!smpv_equal(m->val, n->val)) {
				m->val = before;
				n->val = tafter;
				continue;
			}
			n->val = tdef;
		}
		m->val = def;
	}
	for (size_t i = 0; to && i < to->u.map.len; i++) {
		smp_member *n = &to->u.map.items[i];

		if (!from || smp_kindex_find(&fix, n->key, n->klen) < 0)
			n->val = tdef;
	}
out:
	smp_arena_release(&tmp);
	return rc;
}

/* The last-applied annotation's value of obj (NULL when absent or not a
 * string), and where it sits. */
static smp_member *last_applied_member(smp_value *obj)
{
	smp_value *anns = smpv_map_get(smpv_map_get(obj, "metadata"), "annotations");
	ptrdiff_t i;

	if (smp_value_type(anns) != SMP_MAP)
		return NULL;
	i = smpv_map_find(anns, SMP_LAST_APPLIED_ANNOTATION, strlen(SMP_LAST_APPLIED_ANNOTATION));
	if (i < 0 || anns->u.map.items[i].val->type != SMP_STRING)
		return NULL;
	return &anns->u.map.items[i];
}

/* The annotation's configuration, parsed (NULL when it is not an object). */
static smp_doc *parse_last_applied(const smp_member *m)
{
	smp_doc *d = NULL;

	if (!m || smp_doc_parse(&d, m->val->u.s.ptr, m->val->u.s.len, NULL, NULL) ||
	    smp_doc_count(d) != 1 || smp_value_type(smp_doc_root(d, 0)) != SMP_MAP) {
		smp_doc_free(d);
		return NULL;
	}
	return d;
}

/* Writes the masked configuration back into the annotation (in arena a),
 * encoded as kubectl encodes it, the trailing newline kept; an annotation
 * that is no configuration becomes "***" whole. */
static int put_last_applied(smp_arena *a, smp_member *m, const smp_doc *d, smp_error *err)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	bool nl = m->val->u.s.len && m->val->u.s.ptr[m->val->u.s.len - 1] == '\n';
	char *text = NULL;
	size_t n = 0;
	smp_buf b;
	int rc;

	if (!d) {
		m->val = smpv_str(a, MASK_DEFAULT, 3);
		return m->val ? 0 : oom(err);
	}
	po.sort_keys = true;
	po.go_escape = true;
	if ((rc = smp_print(&text, &n, smp_doc_root(d, 0), &po, err)))
		return rc;
	smp_buf_init(&b);
	smp_buf_put(&b, text, n);
	if (nl)
		smp_buf_putc(&b, '\n');
	smp_free(text);
	m->val = b.oom ? NULL : smpv_str(a, b.ptr ? b.ptr : "", b.len);
	smp_buf_release(&b);
	return m->val ? 0 : oom(err);
}

/* The Secret values inside the last-applied annotations of both objects
 * (kubectl leaks them there): masked as the data fields, each side's
 * configuration against the other's, and written back. */
static int mask_last_applied(smp_arena *fa, smp_value *from_obj, smp_arena *ta,
                             smp_value *to_obj, smp_error *err)
{
	smp_member *fm = from_obj ? last_applied_member(from_obj) : NULL;
	smp_member *tm = to_obj ? last_applied_member(to_obj) : NULL;
	smp_doc *fd = parse_last_applied(fm), *td = parse_last_applied(tm);
	smp_value *fv = fd ? (smp_value *)smp_doc_root(fd, 0) : NULL;
	smp_value *tv = td ? (smp_value *)smp_doc_root(td, 0) : NULL;
	smp_error ignored;
	int rc = 0;

	if (!fm && !tm)
		return 0;
	/* a configuration whose data is no map is masked whole */
	if ((fv || tv) &&
	    (mask_field(fd ? &fd->arena : NULL, fv, td ? &td->arena : NULL, tv, "data",
	                &ignored) ||
	     mask_field(fd ? &fd->arena : NULL, fv, td ? &td->arena : NULL, tv, "stringData",
	                &ignored))) {
		smp_doc_free(fd);
		smp_doc_free(td);
		fd = td = NULL;
	}
	if (fm)
		rc = put_last_applied(fa, fm, fd, err);
	if (!rc && tm)
		rc = put_last_applied(ta, tm, td, err);
	smp_doc_free(fd);
	smp_doc_free(td);
	return rc;
}

/* kubectl diff's Masker masks `data`; `stringData` (a configuration's
 * plain-text values, which the server folds into data) is masked the same
 * way, and so are both inside the last-applied annotation, so that no
 * secret value shows in a diff. */
static int mask_secrets(smp_arena *fa, smp_value *from_obj, smp_arena *ta, smp_value *to_obj,
                        smp_error *err)
{
	int rc = mask_field(fa, from_obj, ta, to_obj, "data", err);

	if (!rc)
		rc = mask_field(fa, from_obj, ta, to_obj, "stringData", err);
	return rc ? rc : mask_last_applied(fa, from_obj, ta, to_obj, err);
}

/* The members of map m but `skip`, counted. */
static uint32_t count_but(const smp_value *m, const char *skip)
{
	uint32_t n = m->u.map.len;

	for (uint32_t i = 0; i < m->u.map.len; i++)
		n -= skip && strcmp(m->u.map.items[i].key, skip) == 0;
	return n;
}

/* a and b (maps) equal but for their members named skip (NULL: none). */
static bool equal_but(const smp_value *a, const smp_value *b, const char *skip)
{
	if (a->type != SMP_MAP || b->type != SMP_MAP)
		return smpv_equal(a, b);
	if (count_but(a, skip) != count_but(b, skip))
		return false;
	for (uint32_t i = 0; i < a->u.map.len; i++) {
		const smp_member *m = &a->u.map.items[i];
		ptrdiff_t at;

		if (skip && strcmp(m->key, skip) == 0)
			continue;
		if ((at = smpv_map_find(b, m->key, m->klen)) < 0 ||
		    !smpv_equal(m->val, b->u.map.items[at].val))
			return false;
	}
	return true;
}

bool smp__display_same(const smp_value *before, const smp_value *after, unsigned flags)
{
	const smp_value *bm, *am;

	if (!before || !after || before->type != SMP_MAP || after->type != SMP_MAP)
		return false;
	if (flags & SMP_DISPLAY_MANAGED_FIELDS)
		return smpv_equal(before, after);
	bm = smpv_map_get(before, "metadata");
	am = smpv_map_get(after, "metadata");
	if (!equal_but(before, after, "metadata") || !bm != !am)
		return false;
	return !bm || equal_but(bm, am, "managedFields");
}

int smp_display_objects(smp_doc **before_out, smp_doc **after_out, const smp_value *before,
                        const smp_value *after, unsigned flags, smp_error *err)
{
	smp_doc *bd = NULL, *ad = NULL;
	smp_value *b = NULL, *a = NULL;
	int rc;

	if (before_out)
		*before_out = NULL;
	if (after_out)
		*after_out = NULL;
	if ((before && !before_out) || (after && !after_out))
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "smp_display_objects: NULL output for an object");
	if ((before && (rc = copy_doc(&bd, before, &b, err))) ||
	    (after && (rc = copy_doc(&ad, after, &a, err))))
		goto fail;
	if (!(flags & SMP_DISPLAY_MANAGED_FIELDS)) {
		if (b)
			drop_managed_fields(b);
		if (a)
			drop_managed_fields(a);
	}
	if ((flags & SMP_DISPLAY_MASK_SECRETS) && (a || b) && is_v1_secret(a ? a : b) &&
	    (rc = mask_secrets(bd ? &bd->arena : NULL, b, ad ? &ad->arena : NULL, a, err)))
		goto fail;
	if (before_out)
		*before_out = bd;
	if (after_out)
		*after_out = ad;
	return 0;
fail:
	smp_doc_free(bd);
	smp_doc_free(ad);
	return rc;
}
