/*
 * gozero.c - what the API server writes for the fields of built-in types
 * that an object does not set, because Go's encoding/json writes them: a
 * struct field is never omitted (an embedded ObjectMeta becomes
 * {"creationTimestamp": null}, a status struct {}), and a field without
 * omitempty is written with its zero value (a nil slice as null, an int32
 * as 0). The table (go_zero.inc) is generated from the Go types by
 * tests/schema/gotypes; smp_stored_form (apply/defaults.c) applies it, and
 * smp_go_zero_object builds the zero value of a kind from it.
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

/* The zero-valued fields of struct type t into the map v, recursively
 * (a struct field's own fields follow its type's entries); `root`: the
 * object itself, whose metadata gets none (the server sets them). */
static int zero_fields(smp_arena *a, smp_value *v, const smp_stype *t, bool root)
{
	const smp_go_zero *z;
	size_t n;

	z = smp_go_zero_fields(t ? t->name : NULL, &n);
	for (size_t i = 0; i < n; i++) {
		const char *zero = z[i].zero;
		size_t zl = strlen(zero);
		const smp_sfield *f = smp_stype_field(t, z[i].field, strlen(z[i].field));
		smp_value *x;

		if (strcmp(zero, "omit") == 0)
			continue;
		if (strcmp(zero, "{}") == 0)
			x = smpv_map(a, 4);
		else if (strcmp(zero, "null") == 0)
			x = smpv_null(a);
		else if (strcmp(zero, "false") == 0)
			x = smpv_bool(a, false);
		else if (zl >= 2 && zero[0] == '"')
			x = smpv_str_ref(a, zero + 1, zl - 2);
		else
			x = smpv_int(a, 0);
		if (!x || smpv_map_add(a, v, z[i].field, strlen(z[i].field), x))
			return SMP_ENOMEM;
		if (x->type == SMP_MAP && f && !(root && strcmp(z[i].field, "metadata") == 0) &&
		    zero_fields(a, x, f->type, false))
			return SMP_ENOMEM;
	}
	return SMP_OK;
}

smp_value *smp_go_zero_object(smp_arena *a, const smp_stype *t, const smp_value *api_version,
                              const smp_value *kind)
{
	smp_value *v = smpv_map(a, 8), *av = api_version ? smpv_copy(a, api_version) : NULL;
	smp_value *k = kind ? smpv_copy(a, kind) : NULL;

	if (!v || (api_version && (!av || smpv_map_add(a, v, "apiVersion", 10, av))) ||
	    (kind && (!k || smpv_map_add(a, v, "kind", 4, k))) || zero_fields(a, v, t, true))
		return NULL;
	return v;
}
