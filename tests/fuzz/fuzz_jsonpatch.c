/*
 * fuzz_jsonpatch.c - target (e): RFC 6902 JSON Patch and RFC 7386 JSON
 * merge patch. Documents of the input: target, patch; byte 0 bit 0 picks
 * merge patch. smp_patch_apply and smp_patch_apply_doc agree; a merge patch
 * is idempotent (applying it to its own result changes nothing, RFC 7386)
 * but where the reference keeps nulls (see kept_nulls()); a JSON Patch
 * that applied prints.
 */
#include "fuzz.h"

#include <string.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	smp_patch_options o = SMP_PATCH_OPTIONS_INIT;
	smp_doc *in, *out = NULL, *copy = NULL;
	const smp_value *target, *patch, *root;
	smp_error e1, e2;
	uint8_t sel;
	int rc1, rc2;

	if (!(in = fuzz_docs(data, size, &sel)))
		return 0;
	target = fuzz_root(in, 0);
	patch = fuzz_root(in, 1);
	if (!patch) {
		smp_doc_free(in);
		return 0;
	}
	o.type = sel & 1 ? SMP_PATCH_MERGE : SMP_PATCH_JSON;
	rc1 = smp_patch_apply(&out, target, patch, &o, &e1);
	if (rc1)
		fuzz_check_error(rc1, &e1);

	FUZZ_CHECK(smp_doc_new(&copy, &e2) == 0);
	FUZZ_CHECK(smp_doc_add_copy(&root, copy, target, &e2) == 0);
	rc2 = smp_patch_apply_doc(&copy, patch, &o, &e2);
	if (rc2)
		fuzz_check_error(rc2, &e2);
	FUZZ_CHECK(rc1 == rc2);
	if (rc1 == 0) {
		const smp_value *r = smp_doc_root(out, 0);
		smp_print_options po = SMP_PRINT_OPTIONS_INIT;
		char *s;
		size_t n;

		FUZZ_CHECK(smp_value_equal(r, smp_doc_root(copy, 0)));
		FUZZ_CHECK(smp_print(&s, &n, r, &po, &e1) == 0);
		smp_free(s);
		if (o.type == SMP_PATCH_MERGE) {
			smp_doc *again = NULL, *third = NULL;
			FUZZ_CHECK(smp_patch_apply(&again, r, patch, &o, &e1) == 0);
			if (kept_nulls(target, patch)) {
				const smp_value *a = smp_doc_root(again, 0);
				FUZZ_CHECK(smp_patch_apply(&third, a, patch, &o, &e1) == 0);
				FUZZ_CHECK(smp_value_equal(a, smp_doc_root(third, 0)));
				FUZZ_CHECK(holds_null(r)); /* taken as it is */
			} else {
				FUZZ_CHECK(smp_value_equal(r, smp_doc_root(again, 0)));
			}
			smp_doc_free(third);
			smp_doc_free(again);
		}
	} else {
		FUZZ_CHECK(strcmp(e1.message, e2.message) == 0);
	}
	smp_doc_free(out);
	smp_doc_free(copy);
	smp_doc_free(in);
	return 0;
}
