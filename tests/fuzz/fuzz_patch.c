/*
 * fuzz_patch.c - target (b): strategic merge patch apply under built-in
 * kinds and the test schema (schemas.h). Documents of the input: target,
 * patch. smp_patch_apply and smp_patch_apply_doc must agree (same code,
 * same result); an error carries a message; a result prints.
 */
#include "schemas.h"

/* Byte 0 picks the schema (fuzz_pick_type). */
static void setup(smp_patch_options *o, uint8_t sel)
{
	o->stype = fuzz_pick_type(sel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_patch_run(data, size, setup, NULL);
}
