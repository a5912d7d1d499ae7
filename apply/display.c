/*
 * display.c - the objects kubectl prints: without metadata.managedFields
 * unless asked (printers.OmitManagedFieldsPrinter of `kubectl apply -o`,
 * `kubectl diff`), and with the data of v1 Secrets masked as `kubectl
 * diff`'s Masker (k8s.io/kubectl/pkg/cmd/diff/diff.go) masks it.
 */
#include "apply/apply_int.h"
#include "merge/merge.h"

#include <stdio.h>
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

/* kubectl diff's Masker masks `data`; `stringData` (a configuration's
 * plain-text values, which the server folds into data) is masked the same
 * way, so that no secret value shows in a diff. */
static int mask_secrets(smp_arena *fa, smp_value *from_obj, smp_arena *ta, smp_value *to_obj,
                        smp_error *err)
{
	int rc = mask_field(fa, from_obj, ta, to_obj, "data", err);

	return rc ? rc : mask_field(fa, from_obj, ta, to_obj, "stringData", err);
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
