/*
 * plan_index.c - the index of a plan's objects by API group, kind,
 * namespace and name (kubectl's identity of an object: the version does
 * not count), open addressing over the objects' array.
 */
#include "plan_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t key_hash(const smp_value *obj, const smp_apply_options *ao)
{
	const char *av = smpv_map_str(obj, "apiVersion"), *kind = smpv_map_str(obj, "kind");
	const char *name = smpv_map_str(smp_map_get(obj, "metadata"), "name");
	const char *ns = smp_apply_namespace(obj, ao);
	uint64_t h = smp_hash_bytes(av ? av : "", smp__plan_group_len(av));

	/* each part with its NUL, so ("ab","c") != ("a","bc") */
	h = h * 31 + smp_hash_bytes(kind ? kind : "", kind ? strlen(kind) + 1 : 0);
	h = h * 31 + smp_hash_bytes(ns, strlen(ns) + 1);
	h = h * 31 + smp_hash_bytes(name ? name : "", name ? strlen(name) + 1 : 0);
	return h;
}

static bool same_key(const smp_value *a, const smp_value *b, const smp_apply_options *ao)
{
	const char *aa = smpv_map_str(a, "apiVersion"), *ba = smpv_map_str(b, "apiVersion");
	const char *ak = smpv_map_str(a, "kind"), *bk = smpv_map_str(b, "kind");
	const char *an = smpv_map_str(smp_map_get(a, "metadata"), "name");
	const char *bn = smpv_map_str(smp_map_get(b, "metadata"), "name");
	size_t ag = smp__plan_group_len(aa), bg = smp__plan_group_len(ba);

	return ag == bg && (ag == 0 || memcmp(aa, ba, ag) == 0) && ak && bk &&
	       strcmp(ak, bk) == 0 && an && bn && strcmp(an, bn) == 0 &&
	       strcmp(smp_apply_namespace(a, ao), smp_apply_namespace(b, ao)) == 0;
}

int smp__plan_index_build(plan_index *ix, const plan_obj *objs, size_t n,
                          const smp_apply_options *ao)
{
	size_t cap = 16;

	while (cap < n * 2 + 1)
		cap *= 2;
	if (!(ix->slots = calloc(cap, sizeof(*ix->slots))) ||
	    !(ix->hashes = calloc(cap, sizeof(*ix->hashes)))) {
		free(ix->slots);
		ix->slots = NULL;
		return SMP_ENOMEM;
	}
	ix->cap = cap;
	for (size_t i = 0; i < n; i++) {
		uint64_t h;
		size_t s;

		if (!objs[i].v)
			continue;
		h = key_hash(objs[i].v, ao);
		s = (size_t)h & (cap - 1);
		while (ix->slots[s] &&
		       (ix->hashes[s] != h || !same_key(objs[ix->slots[s] - 1].v, objs[i].v, ao)))
			s = (s + 1) & (cap - 1);
		if (!ix->slots[s]) {
			ix->slots[s] = i + 1;
			ix->hashes[s] = h;
		}
	}
	return 0;
}

ptrdiff_t smp__plan_index_find(const plan_index *ix, const plan_obj *objs,
                               const smp_value *obj, const smp_apply_options *ao)
{
	uint64_t h = key_hash(obj, ao);
	size_t s = (size_t)h & (ix->cap - 1);

	/* the stored hashes spare the key comparison of every other object
	 * met on the way */
	while (ix->slots[s]) {
		if (ix->hashes[s] == h && same_key(objs[ix->slots[s] - 1].v, obj, ao))
			return (ptrdiff_t)ix->slots[s] - 1;
		s = (s + 1) & (ix->cap - 1);
	}
	return -1;
}
