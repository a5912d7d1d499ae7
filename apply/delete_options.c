/*
 * delete_options.c - the body of the DELETE kubectl's prune sends
 * (metav1.DeleteOptions: propagationPolicy from --cascade,
 * gracePeriodSeconds from --grace-period), plus the preconditions that make
 * an offline plan safe to execute: the live object's uid and
 * resourceVersion, so that the server refuses to delete an object that was
 * recreated or changed since the dump.
 */
#include "apply_int.h"

#include <string.h>

/* Adds key -> v; ENOMEM (nonzero) when v could not be made. */
static int put(smp_arena *a, smp_value *m, const char *key, size_t klen, smp_value *v)
{
	return v ? smpv_map_add(a, m, key, klen, v) : SMP_ENOMEM;
}

int smp_delete_options_build(smp_doc **out, bool *preconditions, const smp_value *live,
                             const smp_delete_options *opts, smp_error *err)
{
	static const char *const policy[] = {"Background", "Foreground", "Orphan"};
	smp_delete_options o = SMP_DELETE_OPTIONS_INIT;
	const smp_value *uid, *rv;
	smp_doc *doc;
	smp_arena *a;
	smp_value *m, *pre = NULL;
	int rc = SMP_OK;

	if (out)
		*out = NULL;
	if (preconditions)
		*preconditions = false;
	if (opts)
		o = *opts;
	if (!out || o.version != SMP_DELETE_OPTIONS_VERSION ||
	    (unsigned)o.propagation > SMP_PROPAGATION_ORPHAN || o.grace_period_seconds < -1)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "smp_delete_options_build: bad arguments");
	doc = smp_doc_alloc();
	if (!doc)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	a = &doc->arena;
	m = smpv_map(a, 5);
	uid = smp_value_at(live, "metadata.uid");
	rv = smp_value_at(live, "metadata.resourceVersion");
	/* Field order of the Go struct: kind, apiVersion, gracePeriodSeconds,
	 * preconditions, propagationPolicy. */
	rc |= !m || put(a, m, "kind", 4, smpv_str_ref(a, "DeleteOptions", 13));
	rc |= !m || put(a, m, "apiVersion", 10, smpv_str_ref(a, "v1", 2));
	if (!rc && o.grace_period_seconds >= 0)
		rc |= put(a, m, "gracePeriodSeconds", 18,
		                   smpv_int(a, o.grace_period_seconds));
	if (!rc && smp_value_type(uid) == SMP_STRING && uid->u.s.len > 0) {
		pre = smpv_map(a, 2);
		rc |= !pre || put(a, pre, "uid", 3, smpv_copy(a, uid));
		if (!rc && smp_value_type(rv) == SMP_STRING && rv->u.s.len > 0)
			rc |= put(a, pre, "resourceVersion", 15, smpv_copy(a, rv));
		if (!rc)
			rc |= put(a, m, "preconditions", 13, pre);
		if (!rc && preconditions)
			*preconditions = true;
	}
	if (!rc)
		rc |= put(a, m, "propagationPolicy", 17,
		                   smpv_str_ref(a, policy[o.propagation],
		                                strlen(policy[o.propagation])));
	if (rc || smp_doc_push_root(doc, m)) {
		smp_doc_free(doc);
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	}
	*out = doc;
	return SMP_OK;
}
