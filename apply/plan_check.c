/*
 * plan_check.c - a plan's entry refused as the API server's own validation
 * refuses it (check*.c on the object as stored): an ERROR entry with the
 * server's 422 Status, nothing sent.
 */
#include "apply/plan_int.h"
#include "apply/check.h"

#include <string.h>

bool smp__plan_check_early(const smp_plan_entry *e, const smp_plan *p)
{
	const smp_schema *schema = p->o.schema;
	const char *av = smpv_map_str(e->object, "apiVersion");
	const char *kind = smpv_map_str(e->object, "kind");
	const smp_gvk_entry *g = schema && av && kind ? smp_schema_find_kind(schema, av, kind, true)
	                                              : NULL;

	return p->o.stored && g && g->storage_version && strcmp(g->storage_version, g->version) != 0;
}

int smp__plan_check(smp_plan_entry *e, smp_plan *p)
{
	smp_doc *od = NULL, *ld = NULL, *status = NULL;
	const smp_value *obj = e->object, *live = e->live_stored;
	const smp_schema *schema = p->o.schema;
	smp_error err;
	int rc = 0;

	if (!e->object || !e->nreq)
		return 0; /* nothing is sent */
	if (!p->o.stored || smp__plan_check_early(e, p)) {
		/* the rules read defaults: the stored form, made for them (one
		 * that cannot be made leaves the entry unchecked); a custom
		 * resource's in its own version */
		if ((rc = smp__check_stored(&od, e->object, schema, e->live != NULL, &err)) ||
		    (e->live && (rc = smp__check_stored(&ld, e->live, schema, true, &err)))) {
			rc = rc == SMP_ENOMEM ? rc : 0;
			goto out;
		}
		obj = smp_doc_root(od, 0);
		live = e->live ? smp_doc_root(ld, 0) : NULL;
	}
	rc = smp__check_refusal(&status, &err, obj, e->live ? live : NULL,
	                        e->config ? e->config : obj, schema);
	if (rc == SMP_EINVALOBJ) {
		/* refused: nothing is sent, nothing changes */
		e->object = NULL;
		e->patch = NULL;
		e->nreq = 0;
		e->status_doc = status;
		e->status = smp_doc_root(status, 0);
		rc = smp__plan_fail(e, &err, e->config ? e->config : obj, false);
	}
out:
	smp_doc_free(od);
	smp_doc_free(ld);
	return rc;
}
