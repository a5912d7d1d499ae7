/*
 * jmp.c - JSON merge patch (RFC 7386) as kubectl and the API server use it:
 * evanphx/json-patch v4 MergePatch and CreateMergePatch, and
 * k8s.io/apimachinery's CreateThreeWayJSONMergePatch, keepOrDeleteNullInObj
 * and mergepatch.HasConflicts.
 *
 * Results are built fresh in the result arena; both map sides are indexed
 * when large so merging stays linear.
 */
#include "merge/merge.h"
#include "codec/depth.h"

#include <string.h>

typedef struct jctx {
	smp_arena *a, *tmp;
	smp_error *err;
	unsigned depth;
} jctx;

static int jnomem(jctx *c)
{
	return smp__err(c->err, SMP_ENOMEM, "out of memory");
}

static int jdeep(jctx *c)
{
	return smp__err(c->err, SMP_ELIMIT, "document nested too deeply");
}

/* A copy of v in the result arena (NULL and ENOMEM recorded on failure). */
static smp_value *jcopy(jctx *c, const smp_value *v)
{
	smp_value *r = smpv_copy(c->a, v);
	if (!r)
		jnomem(c);
	return r;
}

/* pruneNulls on a copy: null-valued keys of maps go, recursively (also
 * inside lists, whose null elements stay). */
static smp_value *prune_copy(jctx *c, const smp_value *v, unsigned depth)
{
	bool keep;

	return smp_tree_copy_clean(c->a, v, true, false, &keep, depth, SMP_DEPTH_JSON_MERGE, NULL,
	                           c->err);
}

/* mergeDocs(cur, patch) as a new map. */
static smp_value *merge_docs(jctx *c, const smp_value *cur, const smp_value *patch);

/* merge(cur, patch) for a key present (non-null) on both sides. */
static smp_value *merge_value(jctx *c, const smp_value *cur, const smp_value *patch)
{
	if (cur->type != SMP_MAP)
		return prune_copy(c, patch, c->depth);
	if (patch->type != SMP_MAP)
		return jcopy(c, patch);
	return merge_docs(c, cur, patch);
}

/* RFC 7386 merge of patch into cur, as jsonpatch.MergePatch does it:
 * null deletes, maps merge key by key, anything else replaces. NULL on
 * failure (c holds why). */
static smp_value *merge_docs(jctx *c, const smp_value *cur, const smp_value *patch)
{
	smp_kindex pix, cix;
	smp_value *r;

	if (++c->depth > SMP_DEPTH_JSON_MERGE) {
		jdeep(c);
		goto fail;
	}
	r = smpv_map(c->a, cur->u.map.len + patch->u.map.len);
	if (!r || smp_kindex_init(&pix, c->tmp, patch) || smp_kindex_init(&cix, c->tmp, cur)) {
		jnomem(c);
		goto fail;
	}
	for (size_t i = 0; i < cur->u.map.len; i++) {
		const smp_member *e = &cur->u.map.items[i];
		long pi = smp_kindex_find(&pix, e->key, e->klen);
		smp_value *v;
		if (pi < 0) {
			v = jcopy(c, e->val);
		} else {
			const smp_value *pv = patch->u.map.items[pi].val;
			if (pv->type == SMP_NULL)
				continue;
			v = e->val->type == SMP_NULL ? prune_copy(c, pv, c->depth)
			                             : merge_value(c, e->val, pv);
		}
		if (!v)
			goto fail;
		if (smpv_map_add_copy(c->a, r, e->key, e->klen, v)) {
			jnomem(c);
			goto fail;
		}
	}
	for (size_t i = 0; i < patch->u.map.len; i++) {
		const smp_member *e = &patch->u.map.items[i];
		smp_value *v;
		if (e->val->type == SMP_NULL || smp_kindex_find(&cix, e->key, e->klen) >= 0)
			continue;
		if (!(v = prune_copy(c, e->val, c->depth)))
			goto fail;
		if (smpv_map_add_copy(c->a, r, e->key, e->klen, v)) {
			jnomem(c);
			goto fail;
		}
	}
	c->depth--;
	return r;
fail:
	c->depth--;
	return NULL;
}

int smp_jmp_apply(smp_value **out, smp_arena *a, const smp_value *target,
                  const smp_value *patch, smp_error *err)
{
	smp_arena tmp;
	jctx c = {a, &tmp, err, 0};
	int rc = 0;

	*out = NULL;
	smp_arena_init(&tmp);
	if (!patch) {
		*out = target ? smpv_copy(a, target) : smpv_map(a, 0);
	} else if (patch->type != SMP_MAP) {
		/* RFC 7386: a patch that is not an object replaces the target. */
		*out = prune_copy(&c, patch, 0);
	} else if (!target || target->type != SMP_MAP) {
		*out = prune_copy(&c, patch, 0);
	} else {
		*out = merge_docs(&c, target, patch);
	}
	if (!*out)
		rc = err && err->code ? err->code : SMP_ENOMEM;
	smp_arena_release(&tmp);
	return rc;
}

/* ---- CreateMergePatch ---- */

static bool is_num(const smp_value *v)
{
	return v->type == SMP_INT || v->type == SMP_FLOAT;
}

static bool same_go_type(const smp_value *x, const smp_value *y)
{
	return x->type == y->type || (is_num(x) && is_num(y));
}

/* jsonpatch's getDiff: the merge patch from map a to map b (changed and
 * new keys, nulls for removed ones, nested maps diffed). */
static int get_diff(jctx *c, smp_value **out, const smp_value *a, const smp_value *b)
{
	smp_kindex aix, bix;
	smp_value *into;
	int rc = 0;

	if (++c->depth > SMP_DEPTH_JSON_MERGE) {
		c->depth--;
		return jdeep(c);
	}
	into = smpv_map(c->a, 0);
	if (!into || smp_kindex_init(&aix, c->tmp, a) || smp_kindex_init(&bix, c->tmp, b)) {
		rc = jnomem(c);
		goto out;
	}
	for (size_t i = 0; i < b->u.map.len; i++) {
		const smp_member *e = &b->u.map.items[i];
		long ai = smp_kindex_find(&aix, e->key, e->klen);
		const smp_value *av, *bv = e->val;
		smp_value *v = NULL;
		if (ai < 0) {
			v = jcopy(c, bv);
		} else {
			av = a->u.map.items[ai].val;
			if (!same_go_type(av, bv)) {
				v = jcopy(c, bv);
			} else if (av->type == SMP_MAP) {
				if ((rc = get_diff(c, &v, av, bv)))
					goto out;
				if (v->u.map.len == 0)
					continue;
			} else if (!smp_json_value_equal(av, bv)) {
				v = jcopy(c, bv);
			} else {
				continue;
			}
		}
		if (!v || smpv_map_add_copy(c->a, into, e->key, e->klen, v)) {
			rc = jnomem(c);
			goto out;
		}
	}
	for (size_t i = 0; i < a->u.map.len; i++) {
		const smp_member *e = &a->u.map.items[i];
		smp_value *n;
		if (smp_kindex_find(&bix, e->key, e->klen) >= 0)
			continue;
		if (!(n = smpv_null(c->a)) || smpv_map_add_copy(c->a, into, e->key, e->klen, n)) {
			rc = jnomem(c);
			goto out;
		}
	}
	*out = into;
out:
	c->depth--;
	return rc;
}

static const smp_value *obj_or_empty(const smp_value *v, smp_arena *a)
{
	return (v && v->type == SMP_MAP) ? v : smpv_map(a, 0);
}

static int check_obj(const smp_value *v, const char *what, smp_error *err)
{
	if (v && v->type != SMP_MAP && v->type != SMP_NULL)
		return smp__err(err, SMP_EPARSE, "invalid JSON document: %s must be a map", what);
	return 0;
}

int smp_jmp_diff2(smp_value **out, smp_arena *a, const smp_value *original,
                  const smp_value *modified, smp_error *err)
{
	smp_arena tmp;
	jctx c = {a, &tmp, err, 0};
	int rc;

	*out = NULL;
	if ((rc = check_obj(original, "the original", err)) ||
	    (rc = check_obj(modified, "the modified document", err)))
		return rc;
	smp_arena_init(&tmp);
	original = obj_or_empty(original, &tmp);
	modified = obj_or_empty(modified, &tmp);
	rc = (original && modified) ? get_diff(&c, out, original, modified) : jnomem(&c);
	smp_arena_release(&tmp);
	return rc;
}

/* keepOrDeleteNullInObj */
static int keep_or_delete(jctx *c, smp_value **out, const smp_value *m, bool keep_null)
{
	smp_value *r = smpv_map(c->a, 0);
	int rc = 0;

	if (!r)
		return jnomem(c);
	if (++c->depth > SMP_DEPTH_JSON_MERGE) {
		c->depth--;
		return jdeep(c);
	}
	for (size_t i = 0; i < m->u.map.len; i++) {
		const smp_member *e = &m->u.map.items[i];
		smp_value *v = NULL;
		if (e->val->type == SMP_NULL) {
			if (!keep_null)
				continue;
			v = smpv_null(c->a);
		} else if (e->val->type == SMP_MAP) {
			if (e->val->u.map.len == 0) {
				/* An explicitly empty map is a value, not an empty patch. */
				if (keep_null)
					continue;
				v = smpv_map(c->a, 0);
			} else {
				if ((rc = keep_or_delete(c, &v, e->val, keep_null)))
					goto out;
				if (v->u.map.len == 0)
					continue;
			}
		} else {
			if (keep_null)
				continue;
			v = jcopy(c, e->val);
		}
		if (!v || smpv_map_add_copy(c->a, r, e->key, e->klen, v)) {
			rc = jnomem(c);
			goto out;
		}
	}
	*out = r;
out:
	c->depth--;
	return rc;
}

int smp_jmp_keep_or_delete_null(smp_value **out, smp_arena *a, const smp_value *map,
                                bool keep_null, smp_error *err)
{
	smp_arena tmp;
	jctx c = {a, &tmp, err, 0};
	int rc;

	smp_arena_init(&tmp);
	map = obj_or_empty(map, &tmp);
	rc = map ? keep_or_delete(&c, out, map, keep_null) : jnomem(&c);
	smp_arena_release(&tmp);
	return rc;
}

/* The field among apiVersion, kind, metadata.name the patch changes, or
 * NULL. */
static const char *jmp_precondition_broken(const smp_value *patch)
{
	const smp_value *md;

	if (smp_map_get(patch, "apiVersion"))
		return "apiVersion";
	if (smp_map_get(patch, "kind"))
		return "kind";
	md = smp_map_get(patch, "metadata");
	return md && md->type == SMP_MAP && smp_map_get(md, "name") ? "metadata.name" : NULL;
}

int smp_jmp_diff3(smp_value **out, smp_arena *a, const smp_value *original,
                  const smp_value *modified, const smp_value *current, smp_error *err)
{
	smp_arena tmp;
	jctx c = {&tmp, &tmp, err, 0};
	smp_value *add_change, *deletions, *d1, *d2;
	int rc;

	*out = NULL;
	if ((rc = check_obj(original, "the original", err)) ||
	    (rc = check_obj(modified, "the modified document", err)) ||
	    (rc = check_obj(current, "the current object", err)))
		return rc;
	smp_arena_init(&tmp);
	original = obj_or_empty(original, &tmp);
	modified = obj_or_empty(modified, &tmp);
	current = obj_or_empty(current, &tmp);
	if (!original || !modified || !current) {
		rc = jnomem(&c);
		goto out;
	}
	if ((rc = get_diff(&c, &d1, current, modified)) ||
	    (rc = keep_or_delete(&c, &add_change, d1, false)) ||
	    (rc = get_diff(&c, &d2, original, modified)) ||
	    (rc = keep_or_delete(&c, &deletions, d2, true)))
		goto out;
	if (smp_has_conflicts(add_change, deletions)) {
		rc = smp_conflict_error(err, add_change, deletions);
		goto out;
	}
	if ((rc = smp_jmp_apply(out, a, deletions, add_change, err)))
		goto out;
	const char *changed = jmp_precondition_broken(*out);
	if (changed) {
		*out = NULL;
		rc = smp__err_path(err, SMP_EPRECOND, changed,
		                   "At least one of apiVersion, kind and name was changed");
	}
out:
	smp_arena_release(&tmp);
	return rc;
}

/* ---- mergepatch.HasConflicts ---- */

static bool has_conflicts(smp_arena *tmp, const smp_value *l, const smp_value *r,
                          unsigned depth)
{
	if (depth > SMP_DEPTH_JSON_MERGE)
		return true;
	switch (l ? l->type : SMP_NULL) {
	case SMP_MAP: {
		smp_kindex rix;
		if (!r || r->type != SMP_MAP)
			return true;
		if (smp_kindex_init(&rix, tmp, r))
			return true; /* no memory: say "conflict", the safe answer */
		for (size_t i = 0; i < l->u.map.len; i++) {
			const smp_member *e = &l->u.map.items[i];
			long j = smp_kindex_find(&rix, e->key, e->klen);
			if (j >= 0 && has_conflicts(tmp, e->val, r->u.map.items[j].val, depth + 1))
				return true;
		}
		return false;
	}
	case SMP_LIST:
		if (!r || r->type != SMP_LIST || l->u.list.len != r->u.list.len)
			return true;
		for (size_t i = 0; i < l->u.list.len; i++)
			if (has_conflicts(tmp, l->u.list.items[i], r->u.list.items[i], depth + 1))
				return true;
		return false;
	default:
		return !smpv_equal(l, r);
	}
}

bool smp_has_conflicts(const smp_value *a, const smp_value *b)
{
	smp_arena tmp;
	bool res;

	smp_arena_init(&tmp);
	res = has_conflicts(&tmp, a, b, 0);
	smp_arena_release(&tmp);
	return res;
}
