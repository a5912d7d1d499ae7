/*
 * update.c - SMD's merge.Updater: Apply and Update with conflicts, as the
 * API server runs them (the oracle's port of SMD v6's update.go onto the
 * v4.1.2 packages).
 *
 * Only the request's apiVersion is known (no conversion): managers that
 * recorded their fields at another version are dropped, as the server
 * drops versions it no longer serves.
 */
#include "ssa/ssa.h"

#include <string.h>

ssa_manager *ssa_managers_get(ssa_managers *ms, const char *id)
{
	for (size_t i = 0; i < ms->n; i++)
		if (ms->m[i].present && strcmp(ms->m[i].id, id) == 0)
			return &ms->m[i];
	return NULL;
}

ssa_manager *ssa_managers_put(ssa_ctx *c, ssa_managers *ms, const char *id)
{
	ssa_manager *m = ssa_managers_get(ms, id);

	if (m)
		return m;
	for (size_t i = 0; i < ms->n; i++)
		if (strcmp(ms->m[i].id, id) == 0) {
			ms->m[i].present = true;
			return &ms->m[i];
		}
	if (!smp_grow_arena(&c->arena, (void **)&ms->m, &ms->cap, ms->n, sizeof(*ms->m), 8)) {
		ssa_oom(c);
		return NULL;
	}
	m = &ms->m[ms->n++];
	memset(m, 0, sizeof(*m));
	m->id = smp_arena_strndup(&c->arena, id, strlen(id));
	if (!m->id) {
		ssa_oom(c);
		return NULL;
	}
	m->present = true;
	return m;
}

/* reconcileManagedFieldsWithSchemaChanges (and the drop of other versions). */
static int reconcile_managers(ssa_ctx *c, ssa_managers *ms, ssa_type *t, const char *version)
{
	for (size_t i = 0; i < ms->n; i++) {
		ssa_manager *m = &ms->m[i];
		ssa_set *r;
		int rc;

		if (!m->present)
			continue;
		if (strcmp(m->api_version ? m->api_version : "", version) != 0) {
			m->present = false;
			continue;
		}
		if ((rc = ssa_reconcile(c, &r, m->set, t)))
			return rc;
		if (r)
			m->set = r;
	}
	return 0;
}

/* Updater.update: other managers lose what `obj` changed (conflicts unless
 * force) and what it removed. */
static int update(ssa_ctx *c, ssa_cmp *cmp, const smp_value *live, const smp_value *obj,
                  ssa_type *t, ssa_managers *ms, const char *workflow, bool force,
                  ssa_conflicts *conflicts)
{
	ssa_set *changed, **cs;
	size_t ncs = 0;
	int rc;

	if ((rc = ssa_compare(c, cmp, live, obj, t)))
		return rc;
	changed = ssa_set_union(c, cmp->modified, cmp->added);
	if (c->rc)
		return c->rc;
	if (!(cs = ssa_alloc(c, (ms->n ? ms->n : 1) * sizeof(*cs))))
		return SMP_ENOMEM;
	for (size_t i = 0; i < ms->n; i++) {
		ssa_manager *m = &ms->m[i];

		cs[i] = NULL;
		if (!m->present || strcmp(m->id, workflow) == 0)
			continue;
		cs[i] = ssa_set_intersection(c, m->set, changed);
		if (c->rc)
			return c->rc;
		if (cs[i])
			ncs++;
	}
	if (ncs && !force) {
		if (conflicts) {
			conflicts->m = ssa_alloc(c, ncs * sizeof(*conflicts->m));
			conflicts->sets = ssa_alloc(c, ncs * sizeof(*conflicts->sets));
			if (!conflicts->m || !conflicts->sets)
				return SMP_ENOMEM;
			conflicts->n = 0;
			for (size_t i = 0; i < ms->n; i++)
				if (cs[i]) {
					conflicts->m[conflicts->n] = ms->m[i];
					conflicts->sets[conflicts->n++] = cs[i];
				}
		}
		return SMP_ECONFLICT;
	}
	for (size_t i = 0; i < ms->n; i++) {
		ssa_manager *m = &ms->m[i];

		if (!m->present)
			continue;
		if (cs[i])
			m->set = ssa_set_difference(c, m->set, cs[i]);
		if (cmp->removed && strcmp(m->id, workflow) != 0)
			m->set = ssa_set_difference(c, m->set, cmp->removed);
		if (c->rc)
			return c->rc;
		if (ssa_set_empty(m->set))
			m->present = false;
	}
	return 0;
}

/* Whether ENF(a) is a subset of ENF(b), and every path with something
 * below it in ENF(a) is itself in ENF(a) (as in the sets the server
 * writes). */
static bool named_subset(ssa_ctx *c, const ssa_set *a, const ssa_set *b, ssa_type *t)
{
	for (size_t i = 0; a && i < a->n; i++) {
		const ssa_ent *e = &a->e[i];
		ptrdiff_t j = ssa_set_find_c(c, b, &e->pe);
		const ssa_ent *f = j >= 0 ? &b->e[j] : NULL;
		ssa_type *ct = NULL;
		bool declared = false, am, bm;

		if (t && e->pe.kind == SSA_PE_FIELD && t->has_map)
			ct = ssa_type_field(c, t, e->pe.u.name, e->pe.n, &declared);
		else if (t && e->pe.kind == SSA_PE_KEY && t->has_list)
			ct = ssa_type_elem(c, t);
		if (c->rc)
			return false;
		am = e->member || (e->child && declared);
		bm = f && (f->member || (f->child && declared));
		if ((e->child && !am) || (am && !bm))
			return false;
		if (e->child && (!f || !f->child || !named_subset(c, e->child, f->child, ct)))
			return false;
	}
	return true;
}

/* Updater.prune: removes what the applier applied last time and no longer
 * applies, unless another manager (or the new configuration) owns it.
 * update.go removes the last set from the merged object, drops what left
 * with it that nobody owns, puts back what that took with it and removes
 * the rest of the last set below it: three field sets of the whole object.
 * Every path that can go is at or below a member of the last set, so
 * ssa_prune_set finds the same paths in one walk of the merged object
 * along the last set, following the managers' sets alongside. */
static int prune(ssa_ctx *c, const smp_value **out, const smp_value *merged, ssa_type *t,
                 ssa_managers *ms, const ssa_set *last)
{
	const ssa_set **owners;
	ssa_set *drop;
	size_t n = 0;
	int rc;

	*out = merged;
	if (ssa_set_empty(last))
		return 0;
	/* Everything applied last time is still owned (the usual re-apply):
	 * the server's three removals leave the merged object as it is. */
	for (size_t i = 0; i < ms->n && !c->rc; i++)
		if (ms->m[i].present && named_subset(c, last, ms->m[i].set, t))
			return 0;
	if (c->rc)
		return c->rc;
	if (!(owners = ssa_alloc(c, (ms->n ? ms->n : 1) * sizeof(*owners))))
		return SMP_ENOMEM;
	for (size_t i = 0; i < ms->n; i++)
		if (ms->m[i].present && ms->m[i].set)
			owners[n++] = ms->m[i].set;
	if ((rc = ssa_prune_set(c, &drop, merged, t, last, owners, n)))
		return rc;
	return ssa_remove_items(c, out, merged, t, drop);
}

int ssa_updater_apply(ssa_ctx *c, const smp_value **out_obj, bool *changed,
                      const smp_value *live, const smp_value *config, ssa_type *t,
                      const char *version, ssa_managers *ms, const char *manager,
                      bool force, ssa_conflicts *conflicts)
{
	const smp_value *merged, *pruned;
	ssa_manager *m;
	ssa_set *last = NULL, *set;
	ssa_cmp cmp;
	int rc;

	*out_obj = NULL;
	*changed = false;
	if ((rc = reconcile_managers(c, ms, t, version)))
		return rc;
	if ((rc = ssa_merge(c, &merged, live, config, t)))
		return rc;
	if (!merged)
		merged = c->null_value;
	if ((m = ssa_managers_get(ms, manager)))
		last = m->set;
	if ((rc = ssa_to_set(c, &set, config, t, false)))
		return rc;
	if (!(m = ssa_managers_put(c, ms, manager)))
		return SMP_ENOMEM;
	m->set = set;
	m->applied = true;
	m->api_version = version;
	if ((rc = prune(c, &pruned, merged, t, ms, last)))
		return rc;
	if ((rc = update(c, &cmp, live, pruned, t, ms, manager, force, conflicts)))
		return rc;
	*out_obj = pruned;
	*changed = !smpv_equal_numeric(live, pruned);
	return 0;
}

int ssa_updater_update(ssa_ctx *c, ssa_cmp *cmp_out, const smp_value *live,
                       const smp_value *obj, ssa_type *t, const char *version,
                       ssa_managers *ms, const char *manager)
{
	ssa_manager *m;
	ssa_set *set = NULL;
	int rc;

	if ((rc = reconcile_managers(c, ms, t, version)))
		return rc;
	if ((rc = update(c, cmp_out, live, obj, t, ms, manager, true, NULL)))
		return rc;
	if ((m = ssa_managers_get(ms, manager)))
		set = m->set;
	set = ssa_set_difference(c, set, cmp_out->removed);
	set = ssa_set_union(c, set, cmp_out->modified);
	set = ssa_set_union(c, set, cmp_out->added);
	if (c->rc)
		return c->rc;
	if (ssa_set_empty(set)) {
		if (m)
			m->present = false;
		return 0;
	}
	if (!(m = ssa_managers_put(c, ms, manager)))
		return SMP_ENOMEM;
	m->set = set;
	m->applied = false;
	m->api_version = version;
	return 0;
}
