/*
 * fuzz_patch.c - target (b): strategic merge patch apply under built-in
 * kinds and the test schema (schemas.h). Documents of the input: target,
 * patch. smp_patch_apply and smp_patch_apply_doc must agree (same code,
 * same result); an error carries a message; a result prints.
 */
#include "schemas.h"

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
	o.stype = fuzz_pick_type(sel);
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
		char *s;
		size_t n;
		smp_print_options po = SMP_PRINT_OPTIONS_INIT;

		FUZZ_CHECK(smp_doc_count(out) == 1 && smp_doc_count(copy) == 1);
		FUZZ_CHECK(smp_value_equal(smp_doc_root(out, 0), smp_doc_root(copy, 0)));
		FUZZ_CHECK(smp_print(&s, &n, smp_doc_root(out, 0), &po, &e1) == 0);
		smp_free(s);
	} else {
		FUZZ_CHECK(strcmp(e1.message, e2.message) == 0);
	}
	smp_doc_free(out);
	smp_doc_free(copy);
	smp_doc_free(in);
	return 0;
}
