/*
 * plan_prune.c - prune (kubectl apply --prune): which live objects go
 * (kubectl's default prune set or the allowlist, the selector, the
 * namespaces applied to) and their PRUNE entries with the DELETE kubectl
 * sends.
 */
#include "plan_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	const char *av = smpv_map_str(obj, "apiVersion"), *kind = smpv_map_str(obj, "kind");
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

int smp__plan_prune_all(smp_plan *p, const bool *used, const char **nss, plan_sink *sink)
{
	size_t nns = 0;

	for (size_t i = 0; i < p->ncfg; i++) /* the applied ones' namespaces */
		if (nss[i])
			nss[nns++] = nss[i];
	qsort(nss, nns, sizeof(*nss), cmp_str);
	for (size_t i = 0; i < p->nlive && !sink->stop; i++) {
		const smp_value *lv = p->live[i].v;
		const smp_value *md = smp_map_get(lv, "metadata");
		const char *lns = smp_apply_namespace(lv, &p->ao);
		int rc;

		if (used[i] || !smp_map_get(smp_map_get(md, "annotations"),
		                               SMP_LAST_APPLIED_ANNOTATION) ||
		    !prunable(p, lv) ||
		    (p->o.selector && !smp_selector_matches(p->o.selector, smp_map_get(md, "labels"))))
			continue;
		if (*lns && !(nns && bsearch(&lns, nss, nns, sizeof(*nss), cmp_str)))
			continue;
		if ((rc = smp__plan_prune_one(p, i, sink)))
			return rc;
	}
	return 0;
}

int smp__plan_prune_one(smp_plan *p, size_t i, plan_sink *sink)
{
	const smp_value *lv = p->live[i].v;
	smp_plan_entry e;
	smp_error lerr;
	int rc;

	memset(&e, 0, sizeof(e));
	if ((rc = smp__plan_live_load(p, &p->live[i], &e.live_doc, &lv, &lerr))) {
		/* the live file changed under the plan: an ERROR entry */
		e.plan = p;
		e.label = p->live[i].label;
		smp__plan_ref(&e, lv, NULL);
		if (rc == SMP_ENOMEM || smp__plan_fail(&e, &lerr, NULL, true)) {
			smp__plan_entry_release(&e);
			return SMP_ENOMEM;
		}
		return smp__plan_emit(p, sink, &e, false);
	}
	if ((rc = prune_entry(&e, p, lv, p->live[i].label)) ||
	    (p->o.stored && (rc = smp__plan_stored(&e, p)))) {
		smp__plan_entry_release(&e);
		return rc;
	}
	return smp__plan_emit(p, sink, &e, false);
}
