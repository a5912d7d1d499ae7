/*
 * apply_int.h - internals shared by the files of apply/ (labels, selectors,
 * the last-applied annotation and the apply workflow).
 */
#ifndef SMP_APPLY_INT_H
#define SMP_APPLY_INT_H

#include "smpatch.h"
#include "codec/value.h"
#include "apply/fielderr.h"

#include <stdbool.h>
#include <stddef.h>

/* Appends the rules `key` breaks (Kubernetes' messages, "; "-joined) to b;
 * returns nonzero when there was any. */
int smp_label_key_problems(smp_buf *b, const char *key, size_t n);
int smp_label_value_problems(smp_buf *b, const char *value, size_t n);
/* The same, each message after `sep` (IsQualifiedName's and
 * IsValidLabelValue's lists, one field error each: "\n"). */
int smp_label_key_list(smp_buf *b, const char *key, size_t n, const char *sep);
int smp_label_value_list(smp_buf *b, const char *value, size_t n, const char *sep);

/* Compares a * 10^ea with b * 10^eb: magnitudes as decimal digits
 * a[0..na), b[0..nb) without leading zeros (0 digits: zero). -1, 0, 1. */
int smp__mag_cmp(const char *a, size_t na, int64_t ea, const char *b, size_t nb, int64_t eb);

/* Whether s[0..n) is valid in the strfmt format `format` (a name as
 * apiextensions keeps it: "uuid", "datetime", ...): 1 or 0; -1 when the
 * format has no checker here (strfmt.c), -2 when memory ran out. */
int smp__strfmt_check(const char *format, const char *s, size_t n);

/* Whether smp_display_objects would show before and after alike (both
 * maps; metadata.managedFields aside unless SMP_DISPLAY_MANAGED_FIELDS;
 * equal values mask alike): a diff without printing them. */
bool smp__display_same(const smp_value *before, const smp_value *after, unsigned flags);

/* The days of month (1..12) in year, as Go's time.daysIn. */
int smp__days_in(int month, int year);

/* How the reference (resource.Quantity) holds a parsed quantity, for the
 * CEL library that computes with it as Go does (cel_libs.c). */
typedef struct smp__quantity_rep {
	bool int64_amount;  /* int64Amount{value, scale}; else an inf.Dec */
	int64_t go_exp;     /* its unscaled value's exponent (int64Amount's
	                     * scale, minus the inf.Dec's scale) */
	int sign;           /* the value: sign * digits * 10^exp */
	const char *digits; /* no leading zeros; none for zero */
	size_t ndigits;
	int64_t exp;        /* >= go_exp */
} smp__quantity_rep;
void smp__quantity_repr(const smp_quantity *q, smp__quantity_rep *r);

/* The API server's validation of an object's labels and of its pod
 * template's (ValidateObjectMeta): SMP_EINVALOBJ naming the field, with
 * the value's line and column, as the server words it. */
int smp__validate_labels(const smp_value *obj, smp_error *err);

/* smp_apply_object; without `meta`, the server's checks of the labels and
 * of the annotations' size are left to the caller (a plan runs all the
 * server's rules on the stored form: smp__check_object). */
int smp__apply_object(smp_apply_result **out, const smp_value *live, const smp_value *config,
                      const smp_apply_options *opts, bool meta, smp_error *err);

/* smp_stored_form's flag for the object as the server decodes it, before
 * its registry changes it (a Namespace's finalizer, a Service's IP
 * families): what the field manager records an update of. Internal. */
#define SMP_STORED__DECODED (1u << 30)
/* smp_stored_form's flag for an object that replaces a live one (an update,
 * or the live object itself): what admission plugins add only to new
 * objects (the protection finalizers of PVCs and PVs, a Node's not-ready
 * taint) is not added. Internal. */
#define SMP_STORED__UPDATE (1u << 29)
/* smp_stored_form's flag for a custom resource as its registry validates
 * it: decoded and defaulted in its own version, not yet through its
 * storage version. Internal. */
#define SMP_STORED__REQUEST (1u << 28)

/* smp_changes' flag that leaves metadata.managedFields out (the ownership
 * a client-side apply's stored form predicts is bookkeeping, not a change
 * of the object). Internal. */
#define SMP_CHANGES__NO_MANAGED_FIELDS (1u << 30)


/* The stored form of a custom resource (stored_crd.c): `root`, a copy in
 * the result document's arena `a`, is pruned, coerced and defaulted in
 * place as apiextensions-apiserver does with the structural schema `t` of
 * its version in the loaded schema `s`, and, when the CRD stores another
 * version (`storage`, its schema, or NULL), converted to it and back as
 * conversion None does: coerced and defaulted in the storage schema, then
 * coerced in its own again (smp_stored_form's flags:
 * SMP_STORED_KEEP_UNKNOWN, SMP_STORED_NO_DEFAULTS). SMP_ELIMIT past
 * SMP_DEPTH_STORED_CRD, SMP_ENOMEM. */
int smp__stored_crd(smp_arena *a, smp_value *root, const smp_schema *s,
                    const smp_stype *t, const smp_stype *storage, unsigned flags,
                    smp_error *err);

/* The Service registry's PrepareForUpdate on a stored v1 Service `obj`
 * (dropTypeDependentFields): what a change of type no longer needs and the
 * update did not change itself (node ports, clusterIPs and IP families for
 * ExternalName, healthCheckNodePort, externalTrafficPolicy, a load
 * balancer's fields and status) is dropped, `old` being the live object's
 * stored form. SMP_OK. */
int smp__stored_service_update(smp_value *obj, const smp_value *old);

/* The DaemonSet registry's PrepareForUpdate on a stored apps/v1 DaemonSet
 * `obj` (strings in `a`): the template generation (its deprecated
 * annotation) is the live one's (`old`, stored), one more when the pod
 * template changed. SMP_OK or SMP_ENOMEM. */
int smp__stored_daemonset_update(smp_arena *a, smp_value *obj, const smp_value *old);

/* What Go's encoding/json (and the unstructured converter) leaves out of
 * an omitempty field decoded from `v`: null (a nil pointer), "", 0, false,
 * an empty list or map (used by defaults.c and stored_crd.c). */
static inline bool smp__go_empty(const smp_value *v)
{
	switch (v->type) {
	case SMP_NULL:
		return true;
	case SMP_STRING:
		return v->u.s.len == 0;
	case SMP_INT:
		return v->u.i == 0;
	case SMP_FLOAT:
		return v->u.f == 0;
	case SMP_BOOL:
		return !v->u.b;
	case SMP_LIST:
		return v->u.list.len == 0;
	case SMP_MAP:
		return v->u.map.len == 0;
	default:
		return false;
	}
}

/* SHA-256 of n bytes (sha256.c). */
void smp__sha256(unsigned char out[32], const void *data, size_t n);

#endif
