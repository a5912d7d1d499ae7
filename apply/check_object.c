/*
 * check_object.c - the entry of the built-in kinds' validation: which
 * rules an object's kind gets, on create and on update, in the order the
 * API server's registry runs them.
 */
#include "apply/check.h"
#include "apply/apply_int.h"

#include <stdio.h>
#include <string.h>

/* How an update runs a kind's rules (the registry's ValidateUpdate):
 * UPDATE_AGAIN: ValidateObjectMetaUpdate, the kind's own update rules,
 * then its create rules again (ObjectMeta included): most core kinds;
 * UPDATE_SPEC: ValidateObjectMetaUpdate and the spec's rules once (a
 * Deployment); UPDATE_TWICE: the create rules (ObjectMeta and spec), then
 * ValidateObjectMetaUpdate and the spec's rules again (a ReplicaSet, a
 * DaemonSet). The apps kinds' selector is immutable after all that. */
typedef enum { UPDATE_AGAIN, UPDATE_SPEC, UPDATE_TWICE } update_recipe;

/* The kinds with rules here: their name rule, their rules after the
 * metadata (create), their own update rules (NULL: none) and how an
 * update runs them. */
static const struct kind_rules {
	const char *av, *kind;
	smp_name_rule name;
	void (*rules)(smp_felist *l, const smp_value *obj, const smp_value *live);
	void (*update)(smp_felist *l, const smp_value *obj, const smp_value *live);
	update_recipe recipe;
} kinds[] = {
	{"v1", "ConfigMap", NAME_SUBDOMAIN, smp__check_configmap, smp__check_configmap_update,
	 UPDATE_AGAIN},
	{"v1", "Secret", NAME_SUBDOMAIN, smp__check_secret, smp__check_secret_update, UPDATE_AGAIN},
	{"v1", "Service", NAME_DNS1035, smp__check_service, smp__check_service_update,
	 UPDATE_AGAIN},
	{"apps/v1", "Deployment", NAME_SUBDOMAIN, smp__check_deployment, NULL, UPDATE_SPEC},
	{"apps/v1", "ReplicaSet", NAME_SUBDOMAIN, smp__check_replicaset, NULL, UPDATE_TWICE},
	{"apps/v1", "DaemonSet", NAME_SUBDOMAIN, smp__check_daemonset, NULL, UPDATE_TWICE},
	{"apps/v1", "StatefulSet", NAME_LABEL, smp__check_statefulset, NULL, UPDATE_SPEC},
};

/* Whether av/kind is a built-in kind with a pod template at spec.template
 * (ValidatePodTemplateSpec checks its labels). */
static bool workload(const char *av, const char *kind)
{
	static const char *const pod_kinds[][2] = {
		{"batch/v1", "Job"}, {"v1", "ReplicationController"},
	};

	for (size_t i = 0; av && kind && i < sizeof(pod_kinds) / sizeof(pod_kinds[0]); i++)
		if (strcmp(av, pod_kinds[i][0]) == 0 && strcmp(kind, pod_kinds[i][1]) == 0)
			return true;
	return false;
}

/* On an update the registry's common checks (ValidateObjectMetaAccessor
 * and ValidateObjectMetaAccessorUpdate) each check the new labels and
 * annotations first, then the kind's ValidateUpdate runs as its recipe
 * says. The name and namespace are the live object's, valid already. */
int smp__check_object(smp_felist *l, const smp_value *obj, const smp_value *live,
                      const smp_schema *schema)
{
	const char *av = smpv_map_str(obj, "apiVersion"), *kind = smpv_map_str(obj, "kind");
	const smp_value *md = smp__check_get(obj, "metadata");
	const struct kind_rules *k = NULL;
	const smp_gvk_entry *crd;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && av && kind; i++)
		if (strcmp(av, kinds[i].av) == 0 && strcmp(kind, kinds[i].kind) == 0)
			k = &kinds[i];
	if (!k && schema && av && kind &&
	    !smp_schema_find_kind(&smp_builtin_schema, av, kind, true) &&
	    (crd = smp_schema_find_kind(schema, av, kind, true)) && crd->crd_schema) {
		smp__check_crd(l, schema, crd, obj, live);
		return l->rc;
	}
	if (!k) {
		/* other kinds: the metadata every strategy checks (the name's
		 * rule aside), and a built-in workload's pod template's labels,
		 * once */
		const smp_value *t = workload(av, kind) ? smp__check_get(smp__check_get(obj, "spec"),
		                                                         "template")
		                                        : NULL;
		size_t at = smp_fe_child(l, "metadata");

		smp__check_labels(l, "labels", smp__check_get(md, "labels"));
		smp__check_annotations(l, "annotations", smp__check_get(md, "annotations"));
		smp_fe_pop(l, at);
		at = smp_fe_child(l, "spec");
		smp_fe_child(l, "template"); /* ValidatePodTemplateSpec's path */
		smp__check_labels(l, "labels", smp__check_get(smp__check_get(t, "metadata"), "labels"));
		smp_fe_pop(l, at);
		return l->rc;
	}
	if (!live) {
		smp__check_meta(l, md, true, k->name);
		k->rules(l, obj, NULL);
		return l->rc;
	}
	smp__check_meta_update(l, md);
	smp__check_meta_update(l, md);
	switch (k->recipe) {
	case UPDATE_AGAIN:
		smp__check_meta_update(l, md);
		if (k->update)
			k->update(l, obj, live);
		smp__check_meta_update(l, md);
		k->rules(l, obj, live);
		break;
	case UPDATE_SPEC:
		smp__check_meta_update(l, md);
		k->rules(l, obj, live);
		break;
	case UPDATE_TWICE:
		smp__check_meta_update(l, md);
		k->rules(l, obj, live);
		smp__check_meta_update(l, md);
		k->rules(l, obj, live);
		break;
	}
	if (strcmp(k->av, "apps/v1") == 0 && strcmp(k->kind, "StatefulSet") != 0)
		smp__check_selector_immutable(l, obj, live); /* a StatefulSet's: its spec rule */
	return l->rc;
}

int smp__check_refusal(smp_doc **status, smp_error *err, const smp_value *obj,
                       const smp_value *live, const smp_value *named,
                       const smp_schema *schema)
{
	smp_felist l;
	int rc;

	*status = NULL;
	smp_fe_init(&l);
	rc = smp__check_object(&l, obj, live, schema);
	if (!rc && l.n && !l.unpredictable)
		rc = smp__fe_status(status, err, &l, named ? named : obj);
	smp_fe_release(&l);
	return rc;
}

int smp__check_stored(smp_doc **doc, const smp_value *v, const smp_schema *schema, bool update,
                      smp_error *err)
{
	smp_stored_options so = SMP_STORED_OPTIONS_INIT;

	so.schema = schema;
	so.flags |= SMP_STORED__REQUEST; /* a custom resource: in its own version */
	if (update)
		so.flags |= SMP_STORED__UPDATE;
	return smp_stored_form(doc, v, &so, err);
}

int smp_object_check(smp_doc **status, const smp_value *obj, const smp_check_options *opts,
                     smp_error *err)
{
	smp_doc *od = NULL, *ld = NULL;
	int rc;

	if (status)
		*status = NULL;
	if (!status || !obj || obj->type != SMP_MAP)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "smp_object_check: the object must be a map");
	if (opts && opts->version != SMP_CHECK_OPTIONS_VERSION)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "smp_object_check: unknown options version %u", opts->version);
	if ((rc = smp__check_stored(&od, obj, opts ? opts->schema : NULL, opts && opts->live, err)) ||
	    (opts && opts->live &&
	     (rc = smp__check_stored(&ld, opts->live, opts->schema, true, err))))
		goto out;
	rc = smp__check_refusal(status, err, smp_doc_root(od, 0), ld ? smp_doc_root(ld, 0) : NULL, obj,
	                        opts ? opts->schema : NULL);
	if (rc == SMP_ENOMEM)
		smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	else if (rc == SMP_EINVALOBJ && err) {
		/* the object's reference first, as every error of an object */
		char ref[512], pfx[520];

		smp_apply_object_ref(ref, sizeof(ref), obj);
		snprintf(pfx, sizeof(pfx), "%s: ", ref);
		smp_error_prefix(err, pfx);
	}
out:
	smp_doc_free(od);
	smp_doc_free(ld);
	return rc;
}

