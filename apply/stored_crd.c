/*
 * stored_crd.c - a custom resource as apiextensions-apiserver stores it,
 * from the structural schema of its CRD version (docs/STORED.md lists each
 * rule with the upstream function it comes from).
 *
 * The steps run in the order of the CRD handler's request decoding
 * (pkg/apiserver/customresource_handler.go): unstructuredSchemaCoercer.apply
 * (called by schemaCoercingDecoder) prunes unknown fields
 * (pruning.PruneWithOptions, the object as resource root), drops the
 * non-nullable nulls that have no default
 * (defaulting.PruneNonNullableNullsWithoutDefaults), coerces the ObjectMeta
 * of embedded resources (objectmeta.CoerceWithOptions) and writes the
 * root's ObjectMeta back (objectmeta.GetObjectMeta/SetObjectMeta); then the
 * versioning codec's unstructuredDefaulter fills in the defaults
 * (defaulting.Default), whose values were pruned when the CRD was served
 * (defaulting.PruneDefaults, called by getOrCreateServingInfoFor).
 *
 * How the loader's types stand for a structural schema (schema/schema.h):
 * "no schema" (a nil *Structural) is NULL or an ANY without
 * preserve-unknown-fields; properties are an OBJECT's fields; a MAP's elem
 * is additionalProperties' schema, except for a MAP with
 * SMP_SFLAG_NO_PROPERTIES, whose additionalProperties is present without a
 * schema when SMP_SFLAG_AP_BOOL and absent otherwise; items is a LIST's
 * elem. The apiVersion, kind and metadata the loader adds to the root and
 * to embedded resources are not in the CRD's schema: implicit() tells them.
 */
#include "apply_int.h"
#include "codec/depth.h"
#include "schema/schema.h"

#include <string.h>

typedef struct cctx {
	smp_arena *a;            /* the result document's */
	const smp_schema *s;     /* the loaded schema: its defaults */
	const smp_stype *meta;   /* the built-in ObjectMeta */
	smp_error *err;
	unsigned depth;
} cctx;

static int deeper(cctx *c)
{
	if (++c->depth > SMP_DEPTH_STORED_CRD)
		return smp__err(c->err, SMP_ELIMIT,
		                "custom resource nested deeper than %d levels",
		                SMP_DEPTH_STORED_CRD);
	return SMP_OK;
}

static int oom(cctx *c)
{
	return smp__err(c->err, SMP_ENOMEM, "out of memory");
}

/* A nil *Structural upstream. */
static bool no_schema(const smp_stype *t)
{
	return !t || (t->kind == SMP_SKIND_ANY && !(t->flags & SMP_SFLAG_PRESERVE_UNKNOWN));
}

/* A field the loader added to a root or embedded resource. */
static bool implicit(const cctx *c, const smp_stype *t)
{
	return t == &smp_stype_implicit_string || (t && t == c->meta);
}

static bool is_meta_key(const smp_member *m)
{
	return (m->klen == 10 && memcmp(m->key, "apiVersion", 10) == 0) ||
	       (m->klen == 4 && memcmp(m->key, "kind", 4) == 0) ||
	       (m->klen == 8 && memcmp(m->key, "metadata", 8) == 0);
}

static bool nullable(const smp_stype *t)
{
	return t && (t->flags & SMP_SFLAG_NULLABLE);
}

/* The schema of the map key KEY under T: its property, else
 * additionalProperties' (NULL when that has no schema). *found is false
 * when T has neither, where pruning drops the key. */
static const smp_stype *child(const smp_stype *t, const smp_member *m, bool *found)
{
	const smp_sfield *f;

	*found = false;
	if (no_schema(t))
		return NULL;
	if ((f = smp_stype_field(t, m->key, m->klen))) {
		*found = true;
		return f->type;
	}
	if (t->kind != SMP_SKIND_MAP)
		return NULL;
	if (!(t->flags & SMP_SFLAG_NO_PROPERTIES)) {
		*found = true;
		return t->elem;
	}
	*found = (t->flags & SMP_SFLAG_AP_BOOL) != 0;
	return NULL;
}

static const smp_stype *items(const smp_stype *t)
{
	return t && t->kind == SMP_SKIND_LIST ? t->elem : NULL;
}

/* ---- pruning: pruning.prune and skipPrune ---- */

/* Drops the fields of V its schema T does not have. `root`: V is the
 * resource root, which PruneWithOptions marks embedded; the apiVersion,
 * kind and metadata of a resource are left to the ObjectMeta coercion.
 * `skip`: skipPrune, below x-kubernetes-preserve-unknown-fields, where
 * unknown fields stay but known ones are pruned by their schema (and list
 * items stay in skipPrune, as upstream). */
static int prune(cctx *c, smp_value *v, const smp_stype *t, bool root, bool skip)
{
	bool meta;
	int rc = SMP_OK;

	if (t && (t->flags & SMP_SFLAG_PRESERVE_UNKNOWN))
		skip = true;
	if (skip && no_schema(t))
		return SMP_OK;
	if (v->type != SMP_MAP && v->type != SMP_LIST)
		return SMP_OK;
	if ((rc = deeper(c)))
		return rc;
	meta = root || (t && (t->flags & SMP_SFLAG_EMBEDDED));
	if (v->type == SMP_MAP) {
		for (uint32_t i = 0; i < v->u.map.len && rc == SMP_OK; i++) {
			smp_member *m = &v->u.map.items[i];
			const smp_stype *ct;
			bool found;

			if (meta && is_meta_key(m))
				continue;
			ct = child(t, m, &found);
			if (found) {
				rc = prune(c, m->val, ct, false, false);
			} else if (!skip) {
				smpv_map_remove(v, i);
				i--;
			}
		}
	} else {
		for (uint32_t i = 0; i < v->u.list.len && rc == SMP_OK; i++)
			rc = prune(c, v->u.list.items[i], items(t), false, skip);
	}
	c->depth--;
	return rc;
}

/* ---- nulls: defaulting.PruneNonNullableNullsWithoutDefaults ---- */

/* What a walk does with the member *i of map v under schema t; it may
 * remove the member (and step *i back). */
typedef int (*member_fn)(cctx *c, smp_value *v, uint32_t *i, const smp_stype *t);

/* The walk of the schema that prune_nulls and coerce share: nothing where
 * there is no schema, or no map or list; else, under the depth limit,
 * member() on each member of a map, or node() on each item of a list with
 * the items' schema. */
static int walk(cctx *c, smp_value *v, const smp_stype *t,
                int (*node)(cctx *, smp_value *, const smp_stype *), member_fn member)
{
	int rc;

	if (no_schema(t) || (v->type != SMP_MAP && v->type != SMP_LIST))
		return SMP_OK;
	if ((rc = deeper(c)))
		return rc;
	if (v->type == SMP_MAP) {
		for (uint32_t i = 0; i < v->u.map.len && rc == SMP_OK; i++)
			rc = member(c, v, &i, t);
	} else {
		for (uint32_t i = 0; i < v->u.list.len && rc == SMP_OK; i++)
			rc = node(c, v->u.list.items[i], items(t));
	}
	c->depth--;
	return rc;
}

static int prune_nulls(cctx *c, smp_value *v, const smp_stype *t);

/* prune_nulls of one member: dropped when null where its schema is
 * neither nullable nor has a default, else walked. */
static int null_member(cctx *c, smp_value *v, uint32_t *i, const smp_stype *t)
{
	smp_member *m = &v->u.map.items[*i];
	bool found;
	const smp_stype *ct = child(t, m, &found);

	if (implicit(c, ct) || no_schema(ct))
		return SMP_OK;
	if (m->val->type == SMP_NULL && !nullable(ct) && !smp_stype_default(c->s, ct)) {
		smpv_map_remove(v, *i);
		(*i)--;
		return SMP_OK;
	}
	return prune_nulls(c, m->val, ct);
}

/* Drops a map key whose value is null where its schema is neither nullable
 * nor has a default (a null with a default is defaulted later; list items
 * are never dropped). */
static int prune_nulls(cctx *c, smp_value *v, const smp_stype *t)
{
	return walk(c, v, t, prune_nulls, null_member);
}

/* ---- ObjectMeta: objectmeta.GetObjectMeta and SetObjectMeta ---- */

/* Drops what decoding into the Go type T (part of the built-in ObjectMeta)
 * ignores: fields T does not have, at any depth. */
static int known_fields(cctx *c, smp_value *v, const smp_stype *t)
{
	int rc = SMP_OK;

	if (!t || (v->type != SMP_MAP && v->type != SMP_LIST))
		return SMP_OK;
	if ((rc = deeper(c)))
		return rc;
	if (t->kind == SMP_SKIND_OBJECT && v->type == SMP_MAP) {
		for (uint32_t i = 0; i < v->u.map.len && rc == SMP_OK; i++) {
			const smp_sfield *f = smp_stype_field(t, v->u.map.items[i].key,
			                                      v->u.map.items[i].klen);
			if (f) {
				rc = known_fields(c, v->u.map.items[i].val, f->type);
			} else if (!(t->flags & SMP_SFLAG_PRESERVE_UNKNOWN)) {
				smpv_map_remove(v, i);
				i--;
			}
		}
	} else if (t->kind == SMP_SKIND_LIST && v->type == SMP_LIST) {
		for (uint32_t i = 0; i < v->u.list.len && rc == SMP_OK; i++)
			rc = known_fields(c, v->u.list.items[i], t->elem);
	}
	c->depth--;
	return rc;
}

/* Sets MAP[KEY] to "" when absent or null: a field of OwnerReference
 * without omitempty. */
static int require_string(cctx *c, smp_value *map, const char *key)
{
	smp_value *v = smpv_map_get(map, key), *e;

	if (v && v->type != SMP_NULL)
		return SMP_OK;
	if (!(e = smpv_str(c->a, "", 0)))
		return oom(c);
	if (v) {
		*v = *e;
		return SMP_OK;
	}
	return smpv_map_add_copy(c->a, map, key, strlen(key), e) ? oom(c) : SMP_OK;
}

/* An ownerReferences item as json.Unmarshal into OwnerReference and the
 * unstructured converter write it: apiVersion, kind, name and uid always
 * (no omitempty), controller and blockOwnerDeletion unless nil. */
static int owner_reference(cctx *c, smp_value *r)
{
	static const char *const req[] = {"apiVersion", "kind", "name", "uid"};
	int rc = SMP_OK;

	if (r->type != SMP_MAP)
		return SMP_OK;
	for (uint32_t i = 0; i < r->u.map.len; i++)
		if (r->u.map.items[i].val->type == SMP_NULL &&
		    (strcmp(r->u.map.items[i].key, "controller") == 0 ||
		     strcmp(r->u.map.items[i].key, "blockOwnerDeletion") == 0)) {
			smpv_map_remove(r, i);
			i--;
		}
	for (size_t i = 0; i < sizeof(req) / sizeof(req[0]) && rc == SMP_OK; i++)
		rc = require_string(c, r, req[i]);
	return rc;
}

/* The metadata of a resource (HOLDER: the root or an embedded resource)
 * round-tripped through metav1.ObjectMeta as GetObjectMeta and
 * SetObjectMeta do: fields ObjectMeta does not have dropped at any depth,
 * every top-level zero value dropped (all ObjectMeta fields are
 * omitempty; a zero creationTimestamp is removed by objectmeta.coerce for
 * embedded resources, and set by the server on create for the root), a
 * null label or annotation value read as "" (encoding/json leaves a string
 * unchanged on null), ownerReferences items as owner_reference writes
 * them. A null metadata decodes to an empty ObjectMeta. Values of the
 * wrong type are left as they are (not validated). */
static int object_meta(cctx *c, smp_value *holder)
{
	smp_value *m = smpv_map_get(holder, "metadata");
	int rc;

	if (!m || (m->type != SMP_MAP && m->type != SMP_NULL))
		return SMP_OK;
	if (m->type == SMP_NULL) {
		smp_value *e = smpv_map(c->a, 0);

		if (!e)
			return oom(c);
		*m = *e;
		return SMP_OK;
	}
	if ((rc = known_fields(c, m, c->meta)))
		return rc;
	for (uint32_t i = 0; i < m->u.map.len; i++) {
		smp_member *f = &m->u.map.items[i];

		if (smp__go_empty(f->val)) {
			smpv_map_remove(m, i);
			i--;
			continue;
		}
		if ((strcmp(f->key, "labels") == 0 || strcmp(f->key, "annotations") == 0) &&
		    f->val->type == SMP_MAP) {
			for (uint32_t j = 0; j < f->val->u.map.len; j++) {
				smp_member *e = &f->val->u.map.items[j];

				if (e->val->type == SMP_NULL && !(e->val = smpv_str(c->a, "", 0)))
					return oom(c);
			}
		} else if (strcmp(f->key, "ownerReferences") == 0 && f->val->type == SMP_LIST) {
			for (uint32_t j = 0; j < f->val->u.list.len; j++)
				if ((rc = owner_reference(c, f->val->u.list.items[j])))
					return rc;
		}
	}
	return SMP_OK;
}

static int coerce(cctx *c, smp_value *v, const smp_stype *t);

/* coerce of one member, where the schema has it. */
static int coerce_member(cctx *c, smp_value *v, uint32_t *i, const smp_stype *t)
{
	bool found;
	const smp_stype *ct = child(t, &v->u.map.items[*i], &found);

	return found && !implicit(c, ct) ? coerce(c, v->u.map.items[*i].val, ct) : SMP_OK;
}

/* objectmeta.coerce (isResourceRoot false): the metadata of every
 * x-kubernetes-embedded-resource below V, following the schema T. */
static int coerce(cctx *c, smp_value *v, const smp_stype *t)
{
	int rc;

	/* at the depth of the members, as upstream */
	if (!no_schema(t) && v->type == SMP_MAP && (t->flags & SMP_SFLAG_EMBEDDED)) {
		if ((rc = deeper(c)))
			return rc;
		rc = object_meta(c, v);
		c->depth--;
		if (rc)
			return rc;
	}
	return walk(c, v, t, coerce, coerce_member);
}

/* ---- defaults: defaulting.Default ---- */

/* A deep copy of the default D of a node of type T, pruned as
 * defaulting.PruneDefaults prunes it when the CRD is served (ObjectMeta
 * coercion, then pruning, at its place in the schema). */
static int default_copy(cctx *c, smp_value **out, const smp_value *d, const smp_stype *t)
{
	int rc;

	if (!(*out = smpv_copy(c->a, d)))
		return oom(c);
	if ((rc = coerce(c, *out, t)))
		return rc;
	return prune(c, *out, t, false, false);
}

/* Fills in the defaults of the schema T in V: a property with a default
 * that is absent, or null and not nullable, gets a copy of it; a null
 * additionalProperties value or list item that is not nullable gets the
 * default of its schema, if any; then every value is defaulted with its
 * schema (defaults inside defaults included). Fields without a schema
 * (below x-kubernetes-preserve-unknown-fields) get none. */
static int apply_defaults(cctx *c, smp_value *v, const smp_stype *t)
{
	int rc = SMP_OK;

	if (no_schema(t) || (v->type != SMP_MAP && v->type != SMP_LIST))
		return SMP_OK;
	if ((rc = deeper(c)))
		return rc;
	if (v->type == SMP_MAP) {
		for (uint32_t i = 0; t->kind == SMP_SKIND_OBJECT && i < t->nfields && rc == SMP_OK;
		     i++) {
			const smp_sfield *f = &t->fields[i];
			const smp_value *d = smp_stype_default(c->s, f->type);
			smp_value *cur, *nv;

			if (!d)
				continue;
			cur = smpv_map_get(v, f->name);
			if (cur && !(cur->type == SMP_NULL && !nullable(f->type)))
				continue;
			if ((rc = default_copy(c, &nv, d, f->type)))
				break;
			if (cur)
				*cur = *nv;
			else if (smpv_map_add_copy(c->a, v, f->name, strlen(f->name), nv))
				rc = oom(c);
		}
		for (uint32_t i = 0; i < v->u.map.len && rc == SMP_OK; i++) {
			smp_member *m = &v->u.map.items[i];
			bool found;
			const smp_stype *ct = child(t, m, &found);
			const smp_value *d;

			if (!found || implicit(c, ct))
				continue;
			if (!smp_stype_field(t, m->key, m->klen) && m->val->type == SMP_NULL &&
			    ct && !nullable(ct) && (d = smp_stype_default(c->s, ct)))
				rc = default_copy(c, &m->val, d, ct);
			if (rc == SMP_OK)
				rc = apply_defaults(c, m->val, ct);
		}
	} else {
		const smp_stype *it = items(t);
		const smp_value *d = it && !nullable(it) ? smp_stype_default(c->s, it) : NULL;

		for (uint32_t i = 0; i < v->u.list.len && rc == SMP_OK; i++) {
			if (d && v->u.list.items[i]->type == SMP_NULL)
				rc = default_copy(c, &v->u.list.items[i], d, it);
			if (rc == SMP_OK)
				rc = apply_defaults(c, v->u.list.items[i], it);
		}
	}
	c->depth--;
	return rc;
}

/* What unstructuredSchemaCoercer.apply does with the schema t: prune
 * (unless SMP_STORED_KEEP_UNKNOWN), drop the nulls the schema does not
 * allow, coerce the embedded and the root ObjectMeta. */
static int coerce_all(cctx *c, smp_value *root, const smp_stype *t, unsigned flags)
{
	int rc = SMP_OK;

	if (!(flags & SMP_STORED_KEEP_UNKNOWN))
		rc = prune(c, root, t, true, false);
	if (rc == SMP_OK)
		rc = prune_nulls(c, root, t);
	if (rc == SMP_OK)
		rc = coerce(c, root, t);
	if (rc == SMP_OK)
		rc = object_meta(c, root);
	return rc;
}

int smp__stored_crd(smp_arena *a, smp_value *root, const smp_schema *s,
                    const smp_stype *t, const smp_stype *storage, unsigned flags,
                    smp_error *err)
{
	cctx c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.a = a;
	c.s = s;
	c.err = err;
	if (smp_schema_definition(&c.meta, smp_schema_builtin(),
	                          "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", NULL))
		c.meta = NULL;
	/* the request decoded in its version */
	rc = coerce_all(&c, root, t, flags);
	if (rc == SMP_OK && !(flags & SMP_STORED_NO_DEFAULTS))
		rc = apply_defaults(&c, root, t);
	if (rc != SMP_OK || !storage)
		return rc;
	/* another storage version: converted to it (strategy None: the
	 * coercer of the storage schema), stored, read back (coerced and
	 * defaulted in it) and converted back (the coercer of the request's
	 * schema, no defaults): schemaCoercingConverter and
	 * schemaCoercingDecoder of crdConversionRESTOptionsGetter */
	rc = coerce_all(&c, root, storage, flags);
	if (rc == SMP_OK && !(flags & SMP_STORED_NO_DEFAULTS))
		rc = apply_defaults(&c, root, storage);
	if (rc == SMP_OK)
		rc = coerce_all(&c, root, t, flags);
	return rc;
}
