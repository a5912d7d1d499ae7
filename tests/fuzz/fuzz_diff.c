/*
 * fuzz_diff.c - target (c): two-way and three-way diff, then apply.
 * Documents of the input: original, modified, current (optional). Byte 0
 * picks the schema (schemas.h) and, with bit 3, JSON merge patch instead
 * of strategic.
 *
 * Properties:
 *   1. A patch the diff produced applies: to original (two-way) and to
 *      current (three-way). A diff that cannot be applied must be refused
 *      by the diff itself, with an error.
 *   2. Two-way: apply(original, diff(original, modified)) equals modified,
 *      and three-way with current = original likewise, except where the
 *      reference does not guarantee it (docs/TESTING.md lists them):
 *      - a null map value in modified means "delete": the result lacks the
 *        key, except inside a list element the patch adds whole, where it
 *        stays (compared as if null map values were absent on both sides);
 *      - a list of scalars with repeated items: a merged list of scalars is
 *        a set to the reference's apply, so the repeats come back once
 *        (compared as modified without its repeats, see eq_dedup());
 *      - original repeating a scalar of a merged list more often than
 *        modified holds it: the reference deletes the value altogether;
 *        and a merged list of scalars only reordered keeps original's
 *        order (see lost_repeats());
 *      - a list merged by a key where modified or original repeats a
 *        key value: the reference pairs items by key, so it merges
 *        modified's repeats into one item, and may drop an item or leave
 *        a nested list's directives in the result where original repeats
 *        a key (see merged_repeats());
 *      - inputs that break the schema or the merge rules: the diff
 *        refuses them (property 1);
 *      - documents holding a map key the patch format reads as a
 *        directive ("$patch"), or a null merge key: neither property
 *        (see holds_directive(), null_merge_key());
 *      - property 1 itself, for the two-way diff of a merged list of
 *        scalars whose modified side repeats an item (the reference's
 *        CreateTwoWayMergePatch gives the same patch, which its apply and
 *        kubectl patch --local refuse; likewise a list merged by a key
 *        whose modified side repeats a key value with another key
 *        between the repeats), and for the three-way diff against
 *        a live object that holds a value of another type where the
 *        configuration has a list (kubectl apply sends the same patch, the
 *        server refuses it): see apply().
 */
#include "schemas.h"

#include <string.h>

/* Non-null entries of a that b lacks or holds differently. */
static bool covers(const smp_value *a, const smp_value *b);
static bool eq_dedup(const smp_value *a, const smp_value *b);
static bool lost_repeats(const smp_value *orig, const smp_value *want, const smp_value *got);

/* a equals b where null map values count as absent, on either side: a
 * null in modified asks for a deletion, and a null inside a list element
 * the patch adds whole stays in the result, as in the reference. */
static bool eq_modulo_null(const smp_value *a, const smp_value *b)
{
	smp_type ta = smp_value_type(a), tb = smp_value_type(b);

	if (ta == SMP_MAP && tb == SMP_MAP)
		return covers(a, b) && covers(b, a);
	if (ta == SMP_LIST && tb == SMP_LIST) {
		bool same = smp_value_len(a) == smp_value_len(b);
		for (size_t i = 0; same && i < smp_value_len(a); i++)
			same = eq_modulo_null(smp_list_get(a, i), smp_list_get(b, i));
		return same || eq_dedup(a, b) || eq_dedup(b, a);
	}
	return smp_value_equal(a, b);
}

/* a is b with its repeated items left out (first occurrences kept; the
 * comparison runs both ways, so either side may be the modified one): a
 * list of scalars the schema merges is a set to the reference's apply, so
 * modified's duplicates come back once (`kubectl patch --local` too); and
 * a merged list of maps whose modified side repeats an item whole gets it
 * once (apimachinery v0.32.4: [{port: 443}, {port: 800}, {port: 443}]
 * from [{port: 80}, {port: 443}] gives [{port: 443}, {port: 800}]). */
static bool eq_dedup(const smp_value *a, const smp_value *b)
{
	size_t j = 0;

	for (size_t i = 0; i < smp_value_len(b); i++) {
		const smp_value *bv = smp_list_get(b, i);
		bool dup = false;
		if (smp_value_type(bv) == SMP_LIST)
			return false;
		for (size_t k = 0; k < i && !dup; k++)
			dup = smp_value_equal(smp_list_get(b, k), bv);
		if (dup)
			continue;
		if (j >= smp_value_len(a) || !eq_modulo_null(smp_list_get(a, j), bv))
			return false;
		j++;
	}
	return j == smp_value_len(a);
}

static bool covers(const smp_value *a, const smp_value *b)
{
	for (size_t i = 0; i < smp_value_len(a); i++) {
		size_t kl;
		const char *k = smp_map_key(a, i, &kl);
		const smp_value *av = smp_map_value(a, i), *bv = fuzz_find(b, k, kl);
		if (smp_value_type(av) == SMP_NULL)
			continue;
		if (!bv || !eq_modulo_null(av, bv))
			return false;
	}
	return true;
}

static void show(const char *what, const smp_value *v)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	char *s;
	size_t n;

	if (v && smp_print(&s, &n, v, &po, NULL) == 0) {
		fprintf(stderr, "%s: %.*s\n", what, (int)n, s);
		smp_free(s);
	}
}

/* Whether v holds a list with a scalar item twice (["d", "a", "d"]). */
static bool repeats_scalars(const smp_value *v)
{
	size_t n = smp_value_len(v);

	if (smp_value_type(v) == SMP_MAP) {
		for (size_t i = 0; i < n; i++)
			if (repeats_scalars(smp_map_value(v, i)))
				return true;
		return false;
	}
	if (smp_value_type(v) != SMP_LIST)
		return false;
	for (size_t i = 0; i < n; i++) {
		const smp_value *a = smp_list_get(v, i);

		if (smp_value_type(a) == SMP_LIST || smp_value_type(a) == SMP_MAP) {
			if (repeats_scalars(a))
				return true;
			continue;
		}
		for (size_t j = i + 1; j < n; j++)
			if (smp_value_equal(a, smp_list_get(v, j)))
				return true;
	}
	return false;
}

/* Whether the value at err_path differs in type between the target and
 * the modified document (the live object holds a scalar where the
 * configuration has a list, ...). */
static bool other_type_at(const smp_value *target, const smp_value *mod, const char *path)
{
	const smp_value *a = smp_value_at(target, path), *b = smp_value_at(mod, path);

	return path[0] && a && b && smp_value_type(a) != smp_value_type(b);
}

/* A value's type as Go's reflect sees a decoded JSON value (every number
 * a float64). */
static int go_kind(const smp_value *v)
{
	smp_type t = smp_value_type(v);

	return t == SMP_INT ? SMP_FLOAT : t;
}

/* Whether the patch deletes ($deleteFromPrimitiveList) from the list at
 * path a value of another type than one the target's list holds: the
 * reference's apply refuses to mix them ("list element types are not
 * identical", finding-deleted-scalar-of-other-type, checked with
 * apimachinery v0.32.4). */
static bool deletes_other_type(const smp_value *target, const smp_value *patch, const char *path)
{
	static const char pre[] = "$deleteFromPrimitiveList/";
	const char *dot = strrchr(path, '.'), *last = dot ? dot + 1 : path;
	const smp_value *parent = patch, *list = smp_value_at(target, path), *del;
	char buf[512];

	if (!path[0] || strlen(path) >= sizeof(buf) - sizeof(pre))
		return false;
	if (dot) {
		memcpy(buf, path, (size_t)(dot - path));
		buf[dot - path] = '\0';
		parent = smp_value_at(patch, buf);
	}
	snprintf(buf, sizeof(buf), "%s%s", pre, last);
	del = fuzz_find(parent, buf, strlen(buf));
	for (size_t i = 0; i < smp_value_len(list); i++)
		for (size_t j = 0; j < smp_value_len(del); j++)
			if (go_kind(smp_list_get(list, i)) != go_kind(smp_list_get(del, j)))
				return true;
	return false;
}

/* The field `key` (klen bytes) of object type t as the engine sees it;
 * false when t has no such field (or is not an object). */
static bool field_of(smp_field_info *fi, const smp_stype *t, const char *key, size_t klen)
{
	char name[256];

	if (!t || smp_stype_kind(t) != SMP_SKIND_OBJECT || klen >= sizeof(name) ||
	    memchr(key, '.', klen))
		return false;
	memcpy(name, key, klen);
	name[klen] = '\0';
	return smp_schema_field(fi, t, name, NULL) == 0;
}

/* The merge key value of list item it under fi, or NULL. */
static const smp_value *key_of(const smp_value *it, const smp_field_info *fi)
{
	return smp_value_type(it) == SMP_MAP ? smp_map_get(it, fi->merge_key) : NULL;
}

/* Whether fi describes a list of maps merged by a key. */
static bool keyed_list(const smp_field_info *fi)
{
	return fi->merge_key && (fi->strategy & SMP_STRATEGY_MERGE);
}

/* A property of one list (the value of field fi). */
typedef bool (*list_pred)(const smp_value *list, const smp_field_info *fi);

static bool in_lists(const smp_value *v, const smp_stype *t, list_pred pred);

/* Whether list f (the value of field fi), or a list inside its items,
 * has the property. */
static bool list_has(const smp_value *f, const smp_field_info *fi, list_pred pred)
{
	if (smp_value_type(f) != SMP_LIST)
		return false;
	if (pred(f, fi))
		return true;
	for (size_t a = 0; a < smp_value_len(f); a++)
		if (in_lists(smp_list_get(f, a), smp_stype_elem(fi->stype), pred))
			return true;
	return false;
}

/* Whether a list anywhere below map v (of type t) has the property. */
static bool in_lists(const smp_value *v, const smp_stype *t, list_pred pred)
{
	if (smp_value_type(v) != SMP_MAP)
		return false;
	for (size_t i = 0; i < smp_value_len(v); i++) {
		size_t l;
		const char *k = smp_map_key(v, i, &l);
		const smp_value *f = smp_map_value(v, i);
		smp_field_info fi;

		if (field_of(&fi, t, k, l) &&
		    (in_lists(f, fi.stype, pred) || list_has(f, &fi, pred)))
			return true;
	}
	return false;
}

/* A list merged by a key with two items of the same key value. */
static bool repeats_key(const smp_value *f, const smp_field_info *fi)
{
	for (size_t a = 0; keyed_list(fi) && a < smp_value_len(f); a++) {
		const smp_value *ka = key_of(smp_list_get(f, a), fi);
		for (size_t b = a + 1; ka && b < smp_value_len(f); b++) {
			const smp_value *kb = key_of(smp_list_get(f, b), fi);
			if (kb && smp_value_equal(ka, kb))
				return true;
		}
	}
	return false;
}

/* Whether list f (field fi) repeats a merge key value, in itself or in a
 * list inside its items. */
static bool list_repeats(const smp_value *f, const smp_field_info *fi)
{
	return list_has(f, fi, repeats_key);
}

/* Whether v (of type t) holds a list merged by a key with two items that
 * have the same key value ([{name: b, value: "3"}, {name: b}]). */
static bool repeats_merge_key(const smp_value *v, const smp_stype *t)
{
	return in_lists(v, t, repeats_key);
}

/* Whether scalar field (k, l) of got's item equals that field in one of
 * the items of `list` (may be NULL) whose merge key is `key`. */
static bool field_from(const smp_value *list, const smp_field_info *fi, const smp_value *key,
                       const char *k, size_t l, const smp_value *val)
{
	for (size_t i = 0; i < smp_value_len(list); i++) {
		const smp_value *it = smp_list_get(list, i), *ki = key_of(it, fi), *fv;
		if (ki && smp_value_equal(ki, key) && (fv = fuzz_find(it, k, l)) &&
		    smp_value_equal(fv, val))
			return true;
	}
	return false;
}

/* got (a list) is the keyed list want whose items repeat a key, as the
 * reference merges them: each key once, in the order of its first
 * occurrence, each scalar field of an item from one of want's (or
 * orig's) items with that key. */
static bool merged_items(const smp_value *orig, const smp_value *want, const smp_value *got,
                         const smp_field_info *fi)
{
	size_t n = 0;

	for (size_t a = 0; a < smp_value_len(want); a++) {
		const smp_value *ka = key_of(smp_list_get(want, a), fi), *gi;
		bool first = true;

		for (size_t b = 0; ka && first && b < a; b++) {
			const smp_value *kb = key_of(smp_list_get(want, b), fi);
			first = !(kb && smp_value_equal(ka, kb));
		}
		if (!first)
			continue;
		if (!ka || n >= smp_value_len(got) || !(gi = smp_list_get(got, n++)) ||
		    !key_of(gi, fi) || !smp_value_equal(key_of(gi, fi), ka))
			return false;
		for (size_t f = 0; f < smp_value_len(gi); f++) {
			size_t fl;
			const char *fk = smp_map_key(gi, f, &fl);
			const smp_value *fv = smp_map_value(gi, f);
			smp_type ft = smp_value_type(fv);
			if (ft != SMP_MAP && ft != SMP_LIST && ft != SMP_NULL &&
			    !field_from(want, fi, ka, fk, fl, fv) && !field_from(orig, fi, ka, fk, fl, fv))
				return false;
		}
	}
	return n == smp_value_len(got);
}

/* got is want as the reference leaves lists merged by a key that repeat a
 * key value (apimachinery v0.32.4's CreateTwoWayMergePatch,
 * CreateThreeWayMergePatch and StrategicMergePatch, run on these inputs;
 * it pairs items by key, so repeats cannot be told apart):
 * - want repeats a key: the repeats come back as one item, merged in the
 *   order of the patch (which the reference sorts unstably): see
 *   merged_items(); a list original does not have comes back whole;
 * - orig repeats a key: the patch pairs a repeat with another item, so
 *   the result may lose the item or keep the directives of a nested list
 *   (`$setElementOrder/keyed` inside an item): that list is not compared.
 * Elsewhere the documents compare as in eq_modulo_null(), or
 * lost_repeats() where original repeats scalars. */
static bool merged_repeats(const smp_value *orig, const smp_value *want, const smp_value *got,
                           const smp_stype *t)
{
	if (smp_value_type(want) != SMP_MAP || smp_value_type(got) != SMP_MAP)
		return eq_modulo_null(got, want);
	for (size_t i = 0; i < smp_value_len(got); i++) {
		size_t l;
		const char *k = smp_map_key(got, i, &l);
		if (smp_value_type(smp_map_value(got, i)) != SMP_NULL && !fuzz_find(want, k, l))
			return false;
	}
	for (size_t i = 0; i < smp_value_len(want); i++) {
		size_t l;
		const char *k = smp_map_key(want, i, &l);
		const smp_value *w = smp_map_value(want, i), *g = fuzz_find(got, k, l);
		const smp_value *o = smp_value_type(orig) == SMP_MAP ? fuzz_find(orig, k, l) : NULL;
		smp_field_info fi;
		bool known = field_of(&fi, t, k, l);

		if (smp_value_type(w) == SMP_NULL)
			continue;
		if (!g)
			return false;
		if (known && smp_value_type(w) == SMP_MAP && smp_value_type(g) == SMP_MAP) {
			if (!merged_repeats(o, w, g, fi.stype))
				return false;
		} else if (known && smp_value_type(w) == SMP_LIST && list_repeats(o, &fi)) {
			if (smp_value_type(g) != SMP_LIST)
				return false;
		} else if (known && smp_value_type(w) == SMP_LIST && list_repeats(w, &fi)) {
			/* a list new to original comes back as it was, repeats
			 * and all, as in the reference (finding-new-list-repeats-key) */
			if (smp_value_type(g) != SMP_LIST ||
			    (!eq_modulo_null(g, w) && (!keyed_list(&fi) || !merged_items(o, w, g, &fi))))
				return false;
		} else if (!eq_modulo_null(g, w) && !(o && lost_repeats(o, w, g))) {
			return false;
		}
	}
	return true;
}

/* A list merged by a key with an item whose key is null. */
static bool null_key(const smp_value *f, const smp_field_info *fi)
{
	for (size_t a = 0; keyed_list(fi) && a < smp_value_len(f); a++) {
		const smp_value *k = key_of(smp_list_get(f, a), fi);
		if (k && smp_value_type(k) == SMP_NULL)
			return true;
	}
	return false;
}

/* Whether v (of type t) holds an item of a list merged by a key whose key
 * is null ({name: null}): the patch carries the null, which its apply
 * reads as a deletion, and then refuses the item for its missing key, as
 * the reference's does (apimachinery v0.32.4: "does not contain declared
 * merge key: name"). */
static bool null_merge_key(const smp_value *v, const smp_stype *t)
{
	return in_lists(v, t, null_key);
}

/* Whether v holds, at any depth, a map key the patch format reads as a
 * directive: $patch, $retainKeys, and any key that starts with
 * $setElementOrder or $deleteFromPrimitiveList (the reference matches
 * these by prefix, slash or not). The reference's diff passes such a key
 * on as an ordinary field and its apply then reads it as a directive
 * (apimachinery v0.32.4: original {"$patch": {...}}, modified {} give the
 * patch {"$patch": null}, which its StrategicMergePatch refuses with
 * "unknown patch type"), so neither property holds for such documents. */
static bool holds_directive(const smp_value *v)
{
	static const char *const pre[] = {"$patch", "$retainKeys", "$setElementOrder",
	                                  "$deleteFromPrimitiveList"};
	smp_type t = smp_value_type(v);

	for (size_t i = 0; (t == SMP_MAP || t == SMP_LIST) && i < smp_value_len(v); i++) {
		if (t == SMP_LIST) {
			if (holds_directive(smp_list_get(v, i)))
				return true;
			continue;
		}
		size_t l;
		const char *k = smp_map_key(v, i, &l);
		for (size_t p = 0; p < sizeof(pre) / sizeof(pre[0]); p++)
			if (l >= strlen(pre[p]) && memcmp(k, pre[p], strlen(pre[p])) == 0)
				return true;
		if (holds_directive(smp_map_value(v, i)))
			return true;
	}
	return false;
}

/* Applies the patch the diff produced; it must apply. Returns the result,
 * or NULL for the patches allowed not to apply, as the reference's apply
 * refuses the same patches its diff makes (docs/TESTING.md):
 * - the diff (two-way or three-way) of a merged list of scalars whose
 *   modified side repeats an item, or of a list merged by a key whose
 *   modified side repeats a key (`known` is modified): the patch list is
 *   ordered by first occurrence and $setElementOrder as given. The
 *   three-way diff refuses some such lists itself, as the reference's
 *   does; where it does not, the reference's apply refuses its own patch
 *   too (finding-repeated-finalizers-three-way against a live object,
 *   finding-repeated-containers-three-way with the live object as
 *   original; checked with apimachinery v0.32.4's
 *   CreateThreeWayMergePatch and StrategicMergePatch, patches equal),
 *   also with "expected a ..." where the repeats hold a list and a
 *   scalar under one field, or "does not contain declared merge key"
 *   where one holds a list item without its key;
 * - the three-way diff against a live object holding a value of another
 *   type than the configuration's where the patch carries the list's
 *   directives, or than a value the patch deletes from a list of scalars
 *   (`live_mod` is modified): kubectl apply sends the same patch, and the
 *   server's apply refuses it;
 * - documents holding a key the patch format reads as a directive, or
 *   a null merge key (`directives`, see holds_directive() and
 *   null_merge_key()). */
static smp_doc *apply(const smp_value *target, const smp_value *patch,
                      const smp_patch_options *o, const smp_value *known,
                      const smp_value *live_mod, bool directives)
{
	smp_doc *res = NULL;
	smp_error err;
	int rc = smp_patch_apply(&res, target, patch, o, &err);

	/* the message names the lists before its verdict, and may be cut
	 * short: its start tells it */
	if (rc && known && strncmp(err.message, "the order in patch list:", 24) == 0 &&
	    (repeats_scalars(known) || repeats_merge_key(known, o->stype)))
		return NULL;
	/* repeats of a key whose items hold a list and a scalar under the
	 * same field: the patch merges them into one item carrying both the
	 * scalar and the list's directives, which the reference's apply
	 * refuses too (finding-repeated-key-list-and-scalar) */
	if (rc && known && strncmp(err.message, "expected a ", 11) == 0 &&
	    repeats_merge_key(known, o->stype))
		return NULL;
	/* likewise where one of the repeats holds a nested list item
	 * without its merge key: merged with the original item's list it
	 * needs the key (finding-repeated-key-item-without-key) */
	if (rc && known && strstr(err.message, "does not contain declared merge key") &&
	    repeats_merge_key(known, o->stype))
		return NULL;
	if (rc && directives)
		return NULL;
	if (rc && live_mod && strncmp(err.message, "expected a ", 11) == 0 &&
	    other_type_at(target, live_mod, err.path))
		return NULL;
	if (rc && live_mod && strncmp(err.message, "list element types are not identical", 36) == 0 &&
	    deletes_other_type(target, patch, err.path))
		return NULL;
	if (rc) {
		show("target", target);
		show("patch", patch);
		fprintf(stderr, "apply: %s [%s]\n", err.message, err.path);
		FUZZ_CHECK(!"a patch the diff produced applies");
	}
	return res;
}

/* Whether list l holds scalars only. */
static bool all_scalars(const smp_value *l)
{
	for (size_t i = 0; i < smp_value_len(l); i++) {
		smp_type t = smp_value_type(smp_list_get(l, i));
		if (t == SMP_MAP || t == SMP_LIST)
			return false;
	}
	return true;
}

/* Occurrences of v in list l. */
static size_t count_of(const smp_value *l, const smp_value *v)
{
	size_t n = 0;

	for (size_t i = 0; i < smp_value_len(l); i++)
		n += smp_value_equal(smp_list_get(l, i), v);
	return n;
}

/* Whether got is list l with the copies of each repeated value moved up
 * to its first occurrence ([3, 1, 2, 3] as [3, 3, 1, 2]): the reference's
 * diff of such a list, unchanged or only reordered, still sends its
 * $setElementOrder, and its apply groups the repeats so, in modified's
 * order ([1, 3, 3] to [3, 1, 3] gives [3, 3, 1]; apimachinery v0.32.4,
 * checked). */
static bool grouped(const smp_value *got, const smp_value *l)
{
	size_t j = 0, n = smp_value_len(l);

	if (smp_value_len(got) != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		const smp_value *v = smp_list_get(l, i);
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = smp_value_equal(smp_list_get(l, k), v);
		for (size_t c = seen ? 0 : count_of(l, v); c > 0; c--)
			if (!smp_value_equal(smp_list_get(got, j++), v))
				return false;
	}
	return j == n;
}

/* got is want as the reference leaves it in a merged list of scalars
 * (apimachinery v0.32.4's CreateTwoWayMergePatch and StrategicMergePatch,
 * run on these inputs): when original repeats a scalar, its diff names
 * each extra copy in $deleteFromPrimitiveList and its apply removes every
 * copy, so a value original holds more often than modified is gone
 * (original [1,3,3], modified [3,1,4] give [1,4]; with modified's own
 * repeats once: original [2,2,8], modified [1,2,1] give [1]); when only
 * the order differs, its diff is empty and original's order stays (or,
 * with repeats, they are grouped: grouped()). */
static bool lost_repeats(const smp_value *orig, const smp_value *want, const smp_value *got)
{
	smp_type tw = smp_value_type(want), tg = smp_value_type(got);

	/* what came back as it was needs no excuse (a replaced list of
	 * scalars, which the reference does not treat as a set, included) */
	if (eq_modulo_null(got, want))
		return true;

	if (tw == SMP_MAP && tg == SMP_MAP) {
		for (size_t i = 0; i < smp_value_len(want); i++) {
			size_t l;
			const char *k = smp_map_key(want, i, &l);
			const smp_value *w = smp_map_value(want, i), *g = fuzz_find(got, k, l);
			if (smp_value_type(w) == SMP_NULL)
				continue;
			if (!g || !lost_repeats(smp_value_type(orig) == SMP_MAP ? fuzz_find(orig, k, l) : NULL,
			                        w, g))
				return false;
		}
		for (size_t i = 0; i < smp_value_len(got); i++) {
			size_t l;
			const char *k = smp_map_key(got, i, &l);
			if (smp_value_type(smp_map_value(got, i)) != SMP_NULL && !fuzz_find(want, k, l))
				return false;
		}
		return true;
	}
	if (tw == SMP_LIST && tg == SMP_LIST && smp_value_type(orig) == SMP_LIST &&
	    all_scalars(want) && all_scalars(orig)) {
		size_t j = 0;
		bool same = smp_value_len(orig) == smp_value_len(want);

		/* the same items in another order: the reference's diff is
		 * empty and the original order stays ([3,1,2] to [1,2,3]) */
		for (size_t i = 0; same && i < smp_value_len(want); i++)
			same = count_of(orig, smp_list_get(want, i)) ==
			       count_of(want, smp_list_get(want, i));
		if (same)
			return smp_value_equal(got, orig) || grouped(got, orig) ||
			       grouped(got, want);
		/* repeats original already held, kept beside a deletion, are
		 * grouped too ([2,1,2,3] to [2,1,2] gives [2,2,1]: checked
		 * with apimachinery v0.32.4, finding-kept-repeats-grouped) */
		if (grouped(got, want))
			return true;
		for (size_t i = 0; i < smp_value_len(want); i++) {
			const smp_value *v = smp_list_get(want, i);
			bool again = false;
			/* modified's repeats come back once (see eq_dedup()) */
			for (size_t k = 0; k < i && !again; k++)
				again = smp_value_equal(smp_list_get(want, k), v);
			if (again || count_of(orig, v) > count_of(want, v))
				continue;
			if (j >= smp_value_len(got) || !smp_value_equal(smp_list_get(got, j), v))
				return false;
			j++;
		}
		return j == smp_value_len(got);
	}
	if (tw == SMP_LIST && tg == SMP_LIST && smp_value_len(want) == smp_value_len(got)) {
		for (size_t i = 0; i < smp_value_len(want); i++)
			if (!lost_repeats(NULL, smp_list_get(want, i), smp_list_get(got, i)))
				return false;
		return true;
	}
	return eq_modulo_null(got, want);
}

static void check_equal(const smp_value *got, const smp_value *want, const smp_value *orig,
                        const smp_stype *t, const char *what)
{
	/* A modified document that is null is read as {}: the reference's
	 * CreateMergePatch({"a": 1}, null) is {"a": null}, applied {}
	 * (json-patch v4.12.0, checked; finding-null-modified-document). */
	if (smp_value_type(want) == SMP_NULL && smp_value_type(got) == SMP_MAP &&
	    smp_value_len(got) == 0)
		return;
	if (!eq_modulo_null(got, want) && !(orig && lost_repeats(orig, want, got)) &&
	    !holds_directive(orig) && !holds_directive(want) &&
	    !((repeats_merge_key(want, t) || repeats_merge_key(orig, t)) &&
	      merged_repeats(orig, want, got, t))) {
		show("want", want);
		show("got", got);
		fprintf(stderr, "%s\n", what);
		FUZZ_CHECK(!"apply(diff) gives back the modified document");
	}
}

/* The built-in type the engine gives these documents when the options
 * name none: the kind of the first that names both apiVersion and kind
 * (merge/patch.c root_type), NULL when none does or the tables lack it.
 * Named here, so that the expectations read the documents as it does. */
static const smp_stype *kind_type(const smp_value *d1, const smp_value *d2, const smp_value *d3)
{
	const smp_value *docs[3] = {d1, d2, d3};
	const smp_stype *t = NULL;

	for (int i = 0; i < 3; i++) {
		const smp_value *av = smp_map_get(docs[i], "apiVersion"), *k = smp_map_get(docs[i], "kind");
		if (smp_value_type(av) == SMP_STRING && smp_value_type(k) == SMP_STRING) {
			smp_schema_kind(&t, smp_schema_builtin(), smp_value_string(av, NULL),
			                smp_value_string(k, NULL), NULL);
			return t;
		}
	}
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	smp_patch_options o = SMP_PATCH_OPTIONS_INIT;
	const smp_value *orig, *mod, *cur;
	const smp_stype *picked;
	smp_doc *in, *p = NULL, *res;
	smp_error err;
	uint8_t sel;
	bool directives;
	int rc;

	if (!(in = fuzz_docs(data, size, &sel)))
		return 0;
	orig = fuzz_root(in, 0);
	mod = fuzz_root(in, 1);
	cur = fuzz_root(in, 2);
	picked = fuzz_pick_type(sel);
	o.stype = picked ? picked : kind_type(mod, orig, NULL);
	o.type = sel & 8 ? SMP_PATCH_MERGE : SMP_PATCH_STRATEGIC;
	o.overwrite = !(sel & 16);
	directives = holds_directive(orig) || holds_directive(mod) || holds_directive(cur) ||
	             null_merge_key(orig, o.stype) || null_merge_key(mod, o.stype) ||
	             null_merge_key(cur, o.stype);

	rc = smp_diff_two_way(&p, orig, mod, &o, &err);
	if (rc) {
		fuzz_check_error(rc, &err);
	} else {
		res = apply(orig, smp_doc_root(p, 0), &o, mod, NULL, directives);
		if (mod && res)
			check_equal(smp_doc_root(res, 0), mod, orig, o.stype, "two-way");
		smp_doc_free(res);
		smp_doc_free(p);
	}

	/* Three-way with the live object as last applied: the same. */
	if (orig && mod) {
		rc = smp_diff_three_way(&p, orig, mod, orig, &o, &err);
		if (rc) {
			fuzz_check_error(rc, &err);
		} else {
			res = apply(orig, smp_doc_root(p, 0), &o, mod, NULL, directives);
			if (res)
				check_equal(smp_doc_root(res, 0), mod, orig, o.stype,
				            "three-way, live = original");
			smp_doc_free(res);
			smp_doc_free(p);
		}
	}

	/* Three-way against the live object given (or none); the engine
	 * looks for the kind in current before original. */
	o.stype = picked ? picked : kind_type(mod, cur, orig);
	rc = smp_diff_three_way(&p, orig, mod, cur, &o, &err);
	if (rc) {
		fuzz_check_error(rc, &err);
	} else {
		smp_doc_free(apply(cur, smp_doc_root(p, 0), &o, mod, mod, directives));
		smp_doc_free(p);
	}
	smp_doc_free(in);
	return 0;
}
