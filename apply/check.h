/*
 * check.h - the API server's own validation of built-in kinds (the
 * pkg/apis/<group>/validation rules of Kubernetes 1.32), run on the stored
 * form of an object: check_object.c (the entry), check.c (object
 * metadata, names, labels, keys), check_config.c (ConfigMap, Secret),
 * check_pod.c (pod templates), check_workload.c (Deployment, ReplicaSet,
 * DaemonSet, StatefulSet), check_service.c (Service).
 * Internal to apply/.
 *
 * The rules add field errors to a list in the server's order; the caller
 * turns a non-empty list into the server's 422 Status (smp__fe_status).
 * Go iterates maps in a random order; these rules take the keys sorted.
 */
#ifndef SMP_CHECK_H
#define SMP_CHECK_H

#include "apply/fielderr.h"
#include "schema/schema.h"

#include <stdbool.h>

/* Validates `obj` (a stored form) as the server does on create (`live`
 * NULL) or on an update of `live` (its stored form), adding the errors to
 * `l` at the root path; a custom resource with its CRD's schema from
 * `schema` (NULL: none). Kinds without rules here add nothing. Returns
 * l->rc (SMP_OK or SMP_ENOMEM). */
int smp__check_object(smp_felist *l, const smp_value *obj, const smp_value *live,
                      const smp_schema *schema);

/* Kubernetes' CEL libraries that need this layer (a cel_ext_fn,
 * cel_libs.c): quantity (resource.Quantity computed as Go does) and
 * format (format.named, format.<name>(), validate). */
typedef struct cel_eval cel_eval;
typedef struct cel_val cel_val;
cel_val smp__cel_libs(cel_eval *e, const char *name, const cel_val *recv,
                      const cel_val *args, uint32_t nargs, bool *found);

/* A custom resource of the CRD version `e` of `s` (check_crd.c): its
 * metadata, schema, list invariants and, for now, whether CEL rules would
 * run (unpredictable), as customResourceStrategy validates it. */
void smp__check_crd(smp_felist *l, const smp_schema *s, const smp_gvk_entry *e,
                    const smp_value *obj, const smp_value *live);

/* The refusal of `obj` (a stored form; `live` the live object's, or NULL)
 * by those rules: SMP_EINVALOBJ with the server's Status in *status and
 * the causes in err (smp__fe_status; `named` names the object, NULL:
 * obj), SMP_OK with *status NULL when there is none to predict,
 * SMP_ENOMEM. */
int smp__check_refusal(smp_doc **status, smp_error *err, const smp_value *obj,
                       const smp_value *live, const smp_value *named,
                       const smp_schema *schema);

/* The stored form the rules read: of `v` as a create writes it, or with
 * `update` as an update or a live object (smp_stored_form, `schema` for
 * custom resources). Its errors. */
int smp__check_stored(smp_doc **doc, const smp_value *v, const smp_schema *schema, bool update,
                      smp_error *err);

/* The helpers the rules share (check.c). */

/* The name rule of a kind (the nameFn its ValidateObjectMeta is given). */
typedef enum { NAME_NONE, NAME_SUBDOMAIN, NAME_LABEL, NAME_DNS1035 } smp_name_rule;

/* The messages of IsDNS1123Subdomain, IsDNS1123Label or IsDNS1035Label
 * for s[0..n), "\n"-separated, appended to b; nonzero when any. */
int smp__name_list(smp_buf *b, const char *s, size_t n, smp_name_rule r);

/* ValidateObjectMetaAccessor (create) of metadata `md`: name, namespace,
 * generation, labels, annotations. Owner references, finalizers and
 * managedFields have no rules here yet; a generateName makes the result
 * unpredictable. */
void smp__check_meta(smp_felist *l, const smp_value *md, bool namespaced, smp_name_rule r);
/* The labels and annotations of an update's metadata checks
 * (ValidateObjectMetaAccessorUpdate; the immutable fields are the live
 * object's in a stored form). */
void smp__check_meta_update(smp_felist *l, const smp_value *md);

/* ValidateDNS1123Label: an Invalid error at child `sub` per message. */
void smp__check_dns_label(smp_felist *l, const char *sub, const smp_value *v);
/* NameIsDNSSubdomain: an Invalid error at child `sub` per message. */
void smp__check_subdomain(smp_felist *l, const char *sub, const smp_value *v);
/* IsConfigMapKey's messages for key[0..n), Invalid errors at child `sub`
 * (NULL: the path) with the key as value; `at` gives the place. */
void smp__check_config_key(smp_felist *l, const char *sub, const smp_value *at, const char *key,
                           size_t n);
/* Whether s[0..n) is one of the NULL-terminated `valid`. */
bool smp__check_one_of(const char *s, size_t n, const char *const *valid);
/* One value of an enumeration at child `sub`: Required when empty,
 * NotSupported when not one of `valid` (NULL-terminated), listed as
 * `shown` ("\"A\", \"B\"", the server's order). Absent from a stored
 * form, the field is one the server defaults (a spec not given at all is
 * not defaulted there: such objects are refused for what they lack), so
 * nothing is checked. */
void smp__check_enum(smp_felist *l, const char *sub, const smp_value *v,
                     const char *const *valid, const char *shown);
/* IsValidPortName's messages for v, Invalid errors at child `sub`;
 * whether there was any. */
bool smp__check_port_name(smp_felist *l, const char *sub, const smp_value *v);
/* ValidateLabels of a map at child `sub` (one error per message of
 * IsQualifiedName for each key and of IsValidLabelValue for each value). */
void smp__check_labels(smp_felist *l, const char *sub, const smp_value *labels);
/* ValidateAnnotations at child `sub`: key syntax, then the total size. */
void smp__check_annotations(smp_felist *l, const char *sub, const smp_value *ann);
/* ValidateNonnegativeField at child `sub` (nothing when `v` is no integer). */
void smp__check_nonnegative(smp_felist *l, const char *sub, const smp_value *v);

/* The rules of kinds (check_config.c, check_workload.c, check_service.c),
 * each after the object's metadata, `live` the live object on an update
 * (NULL: a create); the *_update ones are a kind's own update rules,
 * before its create rules run again (check_object.c's recipes). */
void smp__check_configmap(smp_felist *l, const smp_value *obj, const smp_value *live);
void smp__check_configmap_update(smp_felist *l, const smp_value *obj, const smp_value *live);
void smp__check_secret(smp_felist *l, const smp_value *obj, const smp_value *live);
void smp__check_secret_update(smp_felist *l, const smp_value *obj, const smp_value *live);
void smp__check_deployment(smp_felist *l, const smp_value *obj, const smp_value *live);
void smp__check_replicaset(smp_felist *l, const smp_value *obj, const smp_value *live);
void smp__check_daemonset(smp_felist *l, const smp_value *obj, const smp_value *live);
void smp__check_statefulset(smp_felist *l, const smp_value *obj, const smp_value *live);
void smp__check_service(smp_felist *l, const smp_value *obj, const smp_value *live);
/* The registry's ValidateUpdate of apps/v1 controllers: the selector is
 * immutable. */
void smp__check_selector_immutable(smp_felist *l, const smp_value *obj, const smp_value *live);
/* ValidatePodTemplateSpec at the current path (a template's: its labels
 * at "<path>.labels"), then ValidatePodSpec's rules in its order, as far
 * as they are here (check_pod.c). */
void smp__check_pod_template(smp_felist *l, const smp_value *tmpl);
/* ValidateServiceUpdate's own rules, before smp__check_service. */
void smp__check_service_update(smp_felist *l, const smp_value *obj, const smp_value *live);

/* map[key], NULL when absent or null (a stored form writes a nil pointer
 * of a field without omitempty as null). */
static inline const smp_value *smp__check_get(const smp_value *map, const char *key)
{
	const smp_value *v = smpv_map_get(map, key);

	return v && v->type != SMP_NULL ? v : NULL;
}

/* The integer of v, when it is one. */
static inline bool smp__check_int(const smp_value *v, int64_t *out)
{
	if (!v || v->type != SMP_INT)
		return false;
	*out = v->u.i;
	return true;
}

/* The string of v, or "" (with *n 0) when it is none. */
static inline const char *smp__check_str(const smp_value *v, size_t *n)
{
	if (!v || v->type != SMP_STRING) {
		*n = 0;
		return "";
	}
	*n = v->u.s.len;
	return v->u.s.ptr;
}

/* The list items (or map) count of v, 0 when v is neither. */
static inline size_t smp__check_len(const smp_value *v)
{
	if (v && v->type == SMP_LIST)
		return v->u.list.len;
	if (v && v->type == SMP_MAP)
		return v->u.map.len;
	return 0;
}

#endif
