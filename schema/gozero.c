/*
 * gozero.c - what the API server writes for the fields of built-in types
 * that an object does not set, because Go's encoding/json writes them: a
 * struct field is never omitted (an embedded ObjectMeta becomes
 * {"creationTimestamp": null}, a status struct {}), and a field without
 * omitempty is written with its zero value (a nil slice as null, an int32
 * as 0). The table (go_zero.inc) is generated from the Go types by
 * tests/schema/gotypes; smp_stored_form (apply/defaults.c) applies it.
 */
#include "schema.h"

#include <string.h>

static const smp_go_zero go_zero[] = {
#include "go_zero.inc"
};

const smp_go_zero *smp_go_zero_fields(const char *type, size_t *n)
{
	size_t lo = 0, hi = sizeof(go_zero) / sizeof(go_zero[0]), first;

	*n = 0;
	if (!type)
		return NULL;
	/* the first entry of the type: lower bound by type name */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(go_zero[mid].type, type) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < sizeof(go_zero) / sizeof(go_zero[0]) && strcmp(go_zero[lo].type, type) == 0)
		lo++;
	*n = lo - first;
	return *n ? &go_zero[first] : NULL;
}
