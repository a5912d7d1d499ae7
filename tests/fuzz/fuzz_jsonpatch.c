/*
 * fuzz_jsonpatch.c - target (e): RFC 6902 JSON Patch and RFC 7386 JSON
 * merge patch. Documents of the input: target, patch; byte 0 bit 0 picks
 * merge patch. smp_patch_apply and smp_patch_apply_doc agree; a merge patch
 * is idempotent (applying it to its own result changes nothing, RFC 7386)
 * but where the reference keeps nulls (see kept_nulls()); a JSON Patch
 * that applied prints.
 */
#include "fuzz.h"

/* Whether v holds a null map value (at any depth). */
static bool holds_null(const smp_value *v)
{
	smp_type t = smp_value_type(v);

	for (size_t i = 0; (t == SMP_MAP || t == SMP_LIST) && i < smp_value_len(v); i++) {
		const smp_value *x = t == SMP_MAP ? smp_map_value(v, i) : smp_list_get(v, i);
		if ((t == SMP_MAP && smp_value_type(x) == SMP_NULL) || holds_null(x))
			return true;
	}
	return false;
}

/* Whether the merge patch sets, where the target holds a map, a value that
 * is not a map and holds null map values: the reference (evanphx/json-patch
 * as kubectl patch --local --type merge runs it, checked with kubectl 1.32)
 * takes that value as it is, nulls included, and prunes the nulls only
 * when the key's value is not a map: target {"spec":{"a":1}} and patch
 * {"spec":[{"x":null,"y":1}]} give [{"x":null,"y":1}] the first time and
 * [{"y":1}] the second. Idempotence then holds from the second time on. */
static bool kept_nulls(const smp_value *target, const smp_value *patch)
{
	if (smp_value_type(target) != SMP_MAP || smp_value_type(patch) != SMP_MAP)
		return false;
	for (size_t i = 0; i < smp_value_len(patch); i++) {
		size_t l;
		const char *k = smp_map_key(patch, i, &l);
		const smp_value *v = smp_map_value(patch, i), *t = fuzz_find(target, k, l);
		if (smp_value_type(t) != SMP_MAP)
			continue;
		if (smp_value_type(v) == SMP_MAP ? kept_nulls(t, v) : holds_null(v))
			return true;
	}
	return false;
}

/* Byte 0 bit 0 picks merge patch, else JSON Patch. */
static void setup(smp_patch_options *o, uint8_t sel)
{
	o->type = sel & 1 ? SMP_PATCH_MERGE : SMP_PATCH_JSON;
}

/* A merge patch applied again to its result r changes nothing, but where
 * the reference keeps nulls (kept_nulls): then from the second time on. */
static void check_idempotent(const smp_value *target, const smp_value *patch,
                             const smp_value *r, const smp_patch_options *o)
{
	smp_doc *again = NULL, *third = NULL;
	smp_error err;

	if (o->type != SMP_PATCH_MERGE)
		return;
	FUZZ_CHECK(smp_patch_apply(&again, r, patch, o, &err) == 0);
	if (kept_nulls(target, patch)) {
		const smp_value *a = smp_doc_root(again, 0);
		FUZZ_CHECK(smp_patch_apply(&third, a, patch, o, &err) == 0);
		FUZZ_CHECK(smp_value_equal(a, smp_doc_root(third, 0)));
		FUZZ_CHECK(holds_null(r)); /* taken as it is */
	} else {
		FUZZ_CHECK(smp_value_equal(r, smp_doc_root(again, 0)));
	}
	smp_doc_free(third);
	smp_doc_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_patch_run(data, size, setup, check_idempotent);
}
