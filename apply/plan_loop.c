/*
 * plan_loop.c - deciding a plan's entries: the loop over the
 * configurations in order (each one meeting the live object as earlier
 * configurations left it), prune after them, and the entries handed on
 * (smp_plan_compute keeps them, smp_plan_run hands each to its callback).
 */
#include "plan_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Once per kind whose scope nothing tells (no schema, no declaration, no
 * live object of it): a warning on its first entry. */
static int warn_scope(smp_plan *p, smp_plan_entry *e, const smp_value *obj)
{
	const char *av = smp__plan_str(obj, "apiVersion"), *kind = smp__plan_str(obj, "kind");
	size_t gl = smp__plan_group_len(av);
	char name[512], line[1400];

	if (!kind || smp_apply_kind_scope(obj, &p->ao) >= 0)
		return 0;
	if (gl)
		snprintf(name, sizeof(name), "%.250s.%.*s", kind, (int)(gl & 255), av);
	else
		snprintf(name, sizeof(name), "%.250s", kind);
	for (size_t i = 0; i < p->nwarned; i++)
		if (strcmp(p->warned[i], name) == 0)
			return 0;
	if (!smp__plan_grow((void **)&p->warned, &p->wcap, p->nwarned, sizeof(*p->warned)) ||
	    !(p->warned[p->nwarned] = strdup(name)))
		return SMP_ENOMEM;
	p->nwarned++;
	snprintf(line, sizeof(line), "Warning: the scope of kind %s is unknown (no schema and no "
	         "live object of it): it is taken as namespaced; if it is cluster-scoped, "
	         "declare it cluster-scoped", name);
	return smp__plan_warn(e, line, strlen(line));
}

/* ------------------------------------------------------------ prune */

/* kubectl's default prune set (group, kind). */
static bool default_prunable(const char *av, const char *kind)
{
	static const char *const kinds[][2] = {
		{"", "ConfigMap"}, {"", "Endpoints"}, {"", "Namespace"},
		{"", "PersistentVolumeClaim"}, {"", "PersistentVolume"}, {"", "Pod"},
		{"", "ReplicationController"}, {"", "Secret"}, {"", "Service"},
		{"batch", "Job"}, {"batch", "CronJob"}, {"networking.k8s.io", "Ingress"},
		{"apps", "DaemonSet"}, {"apps", "Deployment"}, {"apps", "ReplicaSet"},
		{"apps", "StatefulSet"},
	};
	size_t gl = smp__plan_group_len(av);

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i][1], kind) == 0 && strlen(kinds[i][0]) == gl &&
		    strncmp(kinds[i][0], av ? av : "", gl) == 0)
			return true;
	return false;
}

/* The allowlist's kinds, else kubectl's default set. */
static bool prunable(const smp_plan *p, const smp_value *obj)
{
	const char *av = smp__plan_str(obj, "apiVersion"), *kind = smp__plan_str(obj, "kind");
	size_t gl = smp__plan_group_len(av);

	if (!kind)
		return false;
	if (!p->nallow)
		return default_prunable(av, kind);
	for (size_t i = 0; i < p->nallow; i++)
		if (strcmp(p->allow_kind[i], kind) == 0 && strlen(p->allow_group[i]) == gl &&
		    strncmp(p->allow_group[i], av ? av : "", gl) == 0)
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A PRUNE entry for the live object `live` (from `label`): the DELETE
 * kubectl sends (its DeleteOptions: propagation policy and grace period),
 * and the same with the live object's preconditions, to delete safely. */
static int prune_entry(smp_plan_entry *e, smp_plan *p, const smp_value *live,
                       const char *label)
{
	smp_delete_options d = SMP_DELETE_OPTIONS_INIT;
	smp_error err;
	bool pre = false;

	e->plan = p;
	e->action = SMP_ACTION_PRUNE;
	e->live = live;
	e->label = label;
	smp__plan_ref(e, live, NULL);
	d.propagation = p->o.propagation;
	d.grace_period_seconds = p->o.grace_period_seconds;
	if (smp_delete_options_build(&e->extra, NULL, NULL, &d, &err) ||
	    smp_delete_options_build(&e->delete_doc, &pre, live, &d, &err))
		return SMP_ENOMEM;
	e->req[0].method = "DELETE";
	e->req[0].content_type = "application/json";
	e->req[0].body = smp_doc_root(e->extra, 0);
	e->nreq = 1;
	if (!pre) {
		char ref[512], line[700];

		smp_apply_object_ref(ref, sizeof(ref), live);
		snprintf(line, sizeof(line), "Warning: %s has no metadata.uid: its delete options "
		         "carry no preconditions", ref);
		return smp__plan_warn(e, line, strlen(line));
	}
	return 0;
}

/* ------------------------------------------------------------ the loop */

/* Where the entries go: kept in the plan (compute) or handed to a
 * callback and freed (run). */
typedef struct plan_sink {
	smp_plan_fn fn;
	void *user;
	int stop;  /* the callback's non-zero value */
} plan_sink;

/* Hands the decided entry *e over: appended to the plan's entries
 * (compute), or given to the callback and then released unless `keep`
 * (run: its result is still needed, and the caller keeps *e aside). */
static int emit(smp_plan *p, plan_sink *sink, smp_plan_entry *e, bool keep)
{
	if (!sink->fn) {
		if (!smp__plan_grow((void **)&p->entries, &p->ecap, p->nentries, sizeof(*p->entries))) {
			smp__plan_entry_release(e);
			return SMP_ENOMEM;
		}
		p->entries[p->nentries++] = *e;
		memset(e, 0, sizeof(*e));
		return 0;
	}
	sink->stop = sink->fn(e, sink->user);
	if (!keep)
		smp__plan_entry_release(e);
	return 0;
}

/* The state of the loop over the configurations. */
typedef struct plan_loop {
	plan_index live_ix, cfg_ix;
	bool *used;               /* live objects some configuration named */
	const smp_value **current; /* per first configuration of a key: the
	                              object as the last one left it */
	size_t *remaining;        /* per first configuration: how many more */
	smp_plan_entry *held;     /* run: per first configuration, the entry
	                             whose result `current` points into */
	const char **nss;         /* namespaces of the applied configurations */
	size_t nns;
	size_t kept;              /* configurations the label selector kept, and
	                             failed inputs */
} plan_loop;

static void loop_release(plan_loop *l, size_t ncfg)
{
	free(l->live_ix.slots);
	free(l->cfg_ix.slots);
	free(l->used);
	free(l->current);
	free(l->remaining);
	for (size_t i = 0; l->held && i < ncfg; i++)
		smp__plan_entry_release(&l->held[i]);
	free(l->held);
	free(l->nss);
}

/* One configuration: the entry it gives, if any, handed on. */
static int one_config(smp_plan *p, plan_loop *l, plan_sink *sink, size_t i)
{
	const plan_obj *c = &p->cfg[i];
	smp_plan_entry e;
	smp_error lerr;
	plan_step st;
	ptrdiff_t li = -1, fi = -1;
	int rc;

	memset(&e, 0, sizeof(e));
	e.plan = p;
	e.label = c->label;
	e.config = c->v;
	if (!c->v || c->err) {
		/* kubectl could not read or decode it; the others still go */
		smp__plan_ref(&e, c->v, c->v ? smp_apply_namespace(c->v, &p->ao) : NULL);
		l->kept++;
		if (smp__plan_fail(&e, c->err, c->v, !c->v)) {
			smp__plan_entry_release(&e);
			return SMP_ENOMEM;
		}
		return emit(p, sink, &e, false);
	}
	if (p->o.selector &&
	    !smp_selector_matches(p->o.selector, smp_value_at(c->v, "metadata.labels")))
		return 0;
	l->kept++;
	if (p->o.mode == SMP_PLAN_CLIENT_SIDE && warn_scope(p, &e, c->v)) {
		smp__plan_entry_release(&e);
		return SMP_ENOMEM;
	}
	li = smp__plan_index_find(&l->live_ix, p->live, c->v, &p->ao);
	fi = smp__plan_index_find(&l->cfg_ix, p->cfg, c->v, &p->ao);
	if (li >= 0 && p->o.mode == SMP_PLAN_CLIENT_SIDE)
		l->used[li] = true;
	st.c = c;
	st.live = NULL;
	if (fi >= 0)
		l->remaining[fi]--;
	if (fi >= 0 && l->current[fi]) {
		st.live = l->current[fi];
	} else if (li >= 0 && (rc = smp__plan_live_load(p, &p->live[li], &e.live_doc, &st.live,
	                                                &lerr))) {
		/* the live file changed under the plan: this object fails */
		if (rc == SMP_ENOMEM || smp__plan_fail(&e, &lerr, c->v, false)) {
			smp__plan_entry_release(&e);
			return SMP_ENOMEM;
		}
		smp__plan_ref(&e, c->v, smp_apply_namespace(c->v, &p->ao));
		return emit(p, sink, &e, false);
	}
	rc = p->o.mode == SMP_PLAN_CLIENT_SIDE ? smp__plan_client_side(&e, p, &st)
	                                       : smp__plan_server_side(&e, p, &st);
	if (!rc && p->o.stored && e.object)
		rc = smp__plan_stored(&e, p);
	if (!rc && e.object)
		rc = smp__plan_ignore(&e, p);
	if (rc == 1) { /* left out by the field selector */
		smp__plan_entry_release(&e);
		return 0;
	}
	if (rc) {
		smp__plan_entry_release(&e);
		return rc;
	}
	if (e.action == SMP_ACTION_ERROR || e.action == SMP_ACTION_CONFLICT)
		return emit(p, sink, &e, false);
	/* Later configurations of the same object see this result, as kubectl
	 * applies them one after the other. */
	if (fi >= 0)
		l->current[fi] = e.object;
	if (p->o.prune)
		l->nss[l->nns++] = smp_apply_namespace(c->v, &p->ao);
	if (sink->fn && fi >= 0 && l->remaining[fi] > 0) {
		/* run: the result outlives the callback until the next
		 * configuration of the object replaces it */
		rc = emit(p, sink, &e, true);
		smp__plan_entry_release(&l->held[fi]);
		l->held[fi] = e;
		return rc;
	}
	rc = emit(p, sink, &e, false);
	if (sink->fn && fi >= 0) /* nothing later needs the one before */
		smp__plan_entry_release(&l->held[fi]);
	return rc;
}

/* Prune entries after the configurations: live objects with the
 * last-applied annotation that no configuration named, of a prunable kind,
 * selected, in a namespace the applied configurations use (cluster-scoped
 * ones always). */
static int prune_all(smp_plan *p, plan_loop *l, plan_sink *sink)
{
	qsort(l->nss, l->nns, sizeof(*l->nss), cmp_str);
	for (size_t i = 0; i < p->nlive && !sink->stop; i++) {
		const smp_value *lv = p->live[i].v;
		const smp_value *md = smp_map_get(lv, "metadata");
		const char *lns = smp_apply_namespace(lv, &p->ao);
		smp_plan_entry e;
		smp_error lerr;
		int rc;

		if (l->used[i] || !smp_map_get(smp_map_get(md, "annotations"),
		                               SMP_LAST_APPLIED_ANNOTATION) ||
		    !prunable(p, lv) ||
		    (p->o.selector && !smp_selector_matches(p->o.selector, smp_map_get(md, "labels"))))
			continue;
		if (*lns && !(l->nns && bsearch(&lns, l->nss, l->nns, sizeof(*l->nss), cmp_str)))
			continue;
		memset(&e, 0, sizeof(e));
		if ((rc = smp__plan_live_load(p, &p->live[i], &e.live_doc, &lv, &lerr))) {
			/* the live file changed under the plan: an ERROR entry */
			e.plan = p;
			e.label = p->live[i].label;
			smp__plan_ref(&e, lv, NULL);
			if (rc == SMP_ENOMEM || smp__plan_fail(&e, &lerr, NULL, true) ||
			    (rc = emit(p, sink, &e, false))) {
				smp__plan_entry_release(&e);
				return SMP_ENOMEM;
			}
			continue;
		}
		if ((rc = prune_entry(&e, p, lv, p->live[i].label)) ||
		    (p->o.stored && (rc = smp__plan_stored(&e, p)))) {
			smp__plan_entry_release(&e);
			return rc;
		}
		if ((rc = emit(p, sink, &e, false)))
			return rc;
	}
	return 0;
}

/* compute and run: every entry, in kubectl's order, into the sink. */
static int plan_all(smp_plan *p, plan_sink *sink, smp_error *err)
{
	plan_loop l;
	int rc = 0;

	if (!p)
		return smp__err(err, SMP_EINVAL, "no plan");
	if (p->started)
		return smp__err(err, SMP_EINVAL, "the plan is already computed");
	p->started = true;
	if (p->ncfg == 0)
		return smp__err(err, SMP_EINVALOBJ, "no objects passed to %s",
		                p->o.mode == SMP_PLAN_REPLACE ? "replace" : "apply");
	memset(&l, 0, sizeof(l));
	if (smp__plan_index_build(&l.live_ix, p->live, p->nlive, &p->ao) ||
	    smp__plan_index_build(&l.cfg_ix, p->cfg, p->ncfg, &p->ao) ||
	    !(l.used = calloc(p->nlive + 1, sizeof(*l.used))) ||
	    !(l.current = calloc(p->ncfg, sizeof(*l.current))) ||
	    !(l.remaining = calloc(p->ncfg, sizeof(*l.remaining))) ||
	    !(l.nss = calloc(p->ncfg, sizeof(*l.nss))) ||
	    (sink->fn && !(l.held = calloc(p->ncfg, sizeof(*l.held))))) {
		loop_release(&l, p->ncfg);
		return smp__err(err, SMP_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < p->ncfg; i++) {
		ptrdiff_t fi = p->cfg[i].v ? smp__plan_index_find(&l.cfg_ix, p->cfg, p->cfg[i].v, &p->ao) : -1;

		if (fi >= 0)
			l.remaining[fi]++;
	}
	for (size_t i = 0; i < p->ncfg && !rc && !sink->stop; i++)
		rc = one_config(p, &l, sink, i);
	if (!rc && !sink->stop && !l.kept) {
		/* kubectl: the selector kept nothing and nothing failed */
		loop_release(&l, p->ncfg);
		return smp__err(err, SMP_EINVALOBJ, "no objects passed to %s",
		                p->o.mode == SMP_PLAN_REPLACE ? "replace" : "apply");
	}
	if (!rc && !sink->stop && p->o.prune)
		rc = prune_all(p, &l, sink);
	loop_release(&l, p->ncfg);
	if (rc)
		return smp__err(err, SMP_ENOMEM, "out of memory");
	return sink->stop;
}

int smp_plan_compute(smp_plan *p, smp_error *err)
{
	plan_sink sink = {NULL, NULL, 0};

	return plan_all(p, &sink, err);
}

int smp_plan_run(smp_plan *p, smp_plan_fn fn, void *user, smp_error *err)
{
	plan_sink sink = {fn, user, 0};

	if (!fn)
		return smp__err(err, SMP_EINVAL, "smp_plan_run: no callback");
	return plan_all(p, &sink, err);
}
