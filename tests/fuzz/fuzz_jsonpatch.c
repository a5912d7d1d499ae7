/*
 * fuzz_jsonpatch.c - target (e): RFC 6902 JSON Patch and RFC 7386 JSON
 * merge patch. Documents of the input: target, patch; byte 0 bit 0 picks
 * merge patch. smp_patch_apply and smp_patch_apply_doc agree; a merge patch
 * is idempotent (applying it to its own result changes nothing, RFC 7386);
 * a JSON Patch that applied prints.
 */
#include "fuzz.h"

#include <string.h>

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
			smp_doc *again = NULL;
			FUZZ_CHECK(smp_patch_apply(&again, r, patch, &o, &e1) == 0);
			FUZZ_CHECK(smp_value_equal(r, smp_doc_root(again, 0)));
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
