/*
 * fuzz_ssa.c - target (h): server-side apply and update (smp_ssa_apply,
 * smp_ssa_update). Byte 0 picks the request, the rest is a YAML/JSON
 * stream: document 0 the live object (null or absent: none), document 1
 * the configuration or the new object.
 *   sel & 1   update instead of apply
 *   sel & 2   --force-conflicts
 *   sel & 12  the manager: kubectl, kubectl-edit, helm, or none
 * Properties: a failure has a documented code and a message; a conflict
 * (only from an apply without force) carries its conflicts and the
 * server's message, and the same apply with force does not conflict; a
 * success has an object and a managedFields list; the same request twice
 * gives the same answer.
 */
#include "fuzz.h"

#include <string.h>

static const char *const managers[] = {"kubectl", "kubectl-edit", "helm", NULL};

static int run(smp_ssa_result **res, bool update, const smp_value *live,
               const smp_value *cfg, const smp_ssa_options *o, smp_error *err)
{
	*res = NULL;
	return update ? smp_ssa_update(res, live, cfg, o, err)
	              : smp_ssa_apply(res, live, cfg, o, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	smp_ssa_options o = SMP_SSA_OPTIONS_INIT;
	smp_ssa_result *res = NULL, *again = NULL;
	const smp_value *live, *cfg;
	smp_error err, err2;
	smp_doc *doc;
	uint8_t sel;
	bool update;
	int rc, rc2;

	if (!(doc = fuzz_pair(data, size, &sel, &live, &cfg)))
		return 0;
	if (live && smp_value_type(live) == SMP_NULL)
		live = NULL;
	update = sel & 1;
	o.force = (sel & 2) != 0;
	o.manager = managers[(sel >> 2) & 3];
	o.now = "2024-01-01T00:00:00Z";

	rc = run(&res, update, live, cfg, &o, &err);
	if (rc == SMP_ECONFLICT) {
		const smp_ssa_conflict *cs = NULL;

		FUZZ_CHECK(!update && !o.force);
		FUZZ_CHECK(res != NULL);
		FUZZ_CHECK(smp_ssa_result_conflicts(res, &cs) > 0 && cs != NULL);
		FUZZ_CHECK(cs[0].manager && cs[0].path && cs[0].path[0] == '.');
		FUZZ_CHECK(smp_ssa_result_message(res) != NULL);
		FUZZ_CHECK(smp_ssa_result_object(res) == NULL);
		fuzz_check_error(rc, &err);
		/* the same apply with force takes the fields */
		o.force = true;
		rc2 = run(&again, false, live, cfg, &o, &err2);
		FUZZ_CHECK(rc2 != SMP_ECONFLICT);
		o.force = false;
	} else if (rc) {
		fuzz_check_error(rc, &err);
		FUZZ_CHECK(res == NULL);
	} else {
		const smp_value *obj = smp_ssa_result_object(res);
		const smp_value *mf = smp_ssa_result_managed_fields(res);

		FUZZ_CHECK(obj && smp_value_type(obj) == SMP_MAP);
		FUZZ_CHECK(mf && smp_value_type(mf) == SMP_LIST);
		/* the same request, the same answer */
		rc2 = run(&again, update, live, cfg, &o, &err2);
		FUZZ_CHECK(rc2 == 0);
		FUZZ_CHECK(smp_value_equal(obj, smp_ssa_result_object(again)));
		FUZZ_CHECK(smp_value_equal(mf, smp_ssa_result_managed_fields(again)));
		FUZZ_CHECK(smp_ssa_result_changed(res) == smp_ssa_result_changed(again));
	}
	smp_ssa_result_free(again);
	smp_ssa_result_free(res);
	smp_doc_free(doc);
	return 0;
}
