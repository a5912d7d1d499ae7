/*
 * csaupgrade.c - kubectl's migration of client-side apply ownership to
 * server-side apply (client-go's util/csaupgrade, which `kubectl apply
 * --server-side` runs on an object last applied client-side): the fields
 * of the client-side managers' Update entries united into the server-side
 * manager's Apply entry, and the owners of a field.
 */
#include "ssa.h"

#include <stdio.h>
#include <string.h>

static const char *entry_str(const smp_value *e, const char *key)
{
	const char *s = smpv_map_str(e, key);

	return s ? s : "";
}

/* An entry of manager `m` with operation `op` on subresource `sub` (""
 * the main resource), and, when av is not NULL, of that apiVersion. */
static bool entry_is(const smp_value *e, const char *m, const char *op, const char *sub,
                     const char *av)
{
	return strcmp(entry_str(e, "manager"), m) == 0 && strcmp(entry_str(e, "operation"), op) == 0 &&
	       strcmp(entry_str(e, "subresource"), sub) == 0 &&
	       (!av || strcmp(entry_str(e, "apiVersion"), av) == 0);
}

static ptrdiff_t first_index(smp_value **es, size_t n, const char *m, const char *op,
                             const char *sub, const char *av)
{
	for (size_t i = 0; i < n; i++)
		if (es[i] && entry_is(es[i], m, op, sub, av))
			return (ptrdiff_t)i;
	return -1;
}

/* Sets map[key] = v (the key must be there). */
static void set_member(smp_value *map, const char *key, smp_value *v)
{
	ptrdiff_t i = smpv_map_find(map, key, strlen(key));

	if (i >= 0)
		map->u.map.items[i].val = v;
}

/* upgradedManagedFields for one client-side manager `csa`: es[] (copies,
 * in a) changed in place, removed entries set to NULL. */
static int upgrade_one(ssa_ctx *c, smp_arena *a, smp_value **es, size_t n, const char *csa,
                       const char *manager, const char *sub)
{
	ptrdiff_t at = first_index(es, n, manager, "Apply", sub, NULL), ci;
	ssa_set *target = NULL, *other = NULL, *u;
	char msg[256];
	smp_value *fv;

	if (at < 0) {
		/* no Apply entry of the manager: the most recent client-side one
		 * becomes it */
		if ((at = first_index(es, n, csa, "Update", sub, NULL)) < 0)
			return 0;
		set_member(es[at], "operation", smpv_str(a, "Apply", 5));
		set_member(es[at], "manager", smpv_str(a, manager, strlen(manager)));
	}
	ci = first_index(es, n, csa, "Update", sub, entry_str(es[at], "apiVersion"));
	if ((smpv_map_get(es[at], "fieldsV1") &&
	     ssa_set_from_value(c, &target, smpv_map_get(es[at], "fieldsV1"), msg, sizeof(msg))) ||
	    (ci >= 0 && smpv_map_get(es[ci], "fieldsV1") &&
	     ssa_set_from_value(c, &other, smpv_map_get(es[ci], "fieldsV1"), msg, sizeof(msg))))
		return smp_err_set(c->err, SMP_EINVALOBJ, NULL, 0, 0, "metadata.managedFields",
		                   "failed to convert fields to set: %s", msg);
	u = ci >= 0 ? ssa_set_union(c, target, other) : target;
	if (c->rc || !(fv = ssa_set_to_value(c, a, u)))
		return c->rc ? c->rc : ssa_oom(c);
	if (smpv_map_find(es[at], "fieldsV1", 8) >= 0)
		set_member(es[at], "fieldsV1", fv);
	else if (smpv_map_add(a, es[at], "fieldsV1", 8, fv))
		return ssa_oom(c);
	for (size_t i = 0; i < n; i++)
		if (es[i] && entry_is(es[i], csa, "Update", sub, NULL))
			es[i] = NULL;
	return 0;
}

int smp_ssa_upgrade_managed_fields(smp_doc **out, const smp_value *managed_fields,
                                   const char *const *csa_managers, size_t ncsa,
                                   const char *manager, smp_error *err)
{
	return smp_ssa_upgrade_subresource(out, managed_fields, csa_managers, ncsa, manager, "",
	                                   err);
}

int smp_ssa_upgrade_subresource(smp_doc **out, const smp_value *managed_fields,
                                const char *const *csa_managers, size_t ncsa,
                                const char *manager, const char *subresource, smp_error *err)
{
	size_t n = smp_value_len(managed_fields);
	smp_value **es = NULL, *list;
	smp_doc *doc;
	ssa_ctx c;
	int rc = 0;

	if (!out || !manager || !subresource || (ncsa && !csa_managers))
		return smp__err(err, SMP_EINVAL, "smp_ssa_upgrade_subresource: bad arguments");
	*out = NULL;
	if (smp_value_type(managed_fields) != SMP_LIST || !n)
		return 0; /* nothing managed: nothing to upgrade */
	if (!(doc = smp_doc_alloc()))
		return smp__err(err, SMP_ENOMEM, "out of memory");
	ssa_ctx_init(&c, err, NULL);
	if (!(es = ssa_alloc(&c, n * sizeof(*es))))
		rc = SMP_ENOMEM;
	for (size_t i = 0; i < n && !rc; i++)
		if (!(es[i] = smpv_copy(&doc->arena, smp_list_get(managed_fields, i))))
			rc = ssa_oom(&c);
	for (size_t k = 0; k < ncsa && !rc; k++)
		rc = upgrade_one(&c, &doc->arena, es, n, csa_managers[k], manager, subresource);
	if (!rc && !(list = smpv_list(&doc->arena, n)))
		rc = ssa_oom(&c);
	for (size_t i = 0; i < n && !rc; i++)
		if (es[i] && smpv_list_add(&doc->arena, list, es[i]))
			rc = ssa_oom(&c);
	if (!rc && smp_doc_push_root(doc, list))
		rc = ssa_oom(&c);
	ssa_ctx_release(&c);
	if (rc || smpv_equal(smp_doc_root(doc, 0), managed_fields)) {
		smp_doc_free(doc); /* failed, or the same: kubectl sends nothing */
		return rc;
	}
	*out = doc;
	return 0;
}

size_t smp_ssa_fields_owners(const char **owners, size_t max, const smp_value *managed_fields,
                             const char *operation, const char *const *path, size_t depth)
{
	size_t n = 0;

	for (size_t i = 0; i < smp_value_len(managed_fields); i++) {
		const smp_value *e = smp_list_get(managed_fields, i), *v;

		if (strcmp(entry_str(e, "operation"), operation) != 0)
			continue;
		v = smpv_map_get(e, "fieldsV1");
		for (size_t d = 0; d < depth && v; d++) {
			char key[512];

			snprintf(key, sizeof(key), "f:%s", path[d]);
			v = smpv_map_get(v, key);
		}
		/* a member: a leaf, or a node marked "." */
		if (v && smp_value_type(v) == SMP_MAP &&
		    (smp_value_len(v) == 0 || smpv_map_get(v, "."))) {
			if (n < max)
				owners[n] = entry_str(e, "manager");
			n++;
		}
	}
	return n;
}
