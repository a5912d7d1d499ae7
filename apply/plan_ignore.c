/*
 * plan_ignore.c - ignore rules of a plan, as GitOps tools let users
 * declare them: fields named by a path (a JSON pointer, or the path syntax
 * of smp_changes, optionally for one kind only) and fields a field manager
 * owns in the live object's managedFields. They are taken out of both
 * sides of an entry's comparison (its diff, its changes, and whether it is
 * unchanged); never out of what kubectl sends.
 */
#include "plan_int.h"
#include "codec/codec.h"

#include <stdlib.h>
#include <string.h>

/* One step of a path. */
typedef enum seg_kind {
	SEG_KEY,    /* a map key */
	SEG_ANY,    /* "*": every key or item */
	SEG_INDEX,  /* [3] */
	SEG_VALUE,  /* [=value]: the item of a set equal to a value */
	SEG_MATCH   /* [k=v] or k:{"k":v,...}: the items whose fields match */
} seg_kind;

typedef struct seg {
	seg_kind kind;
	bool numeric;             /* a JSON pointer's key that is a number:
	                             also the index of a list */
	const char *key;          /* SEG_KEY (NUL-terminated, may hold NUL: klen) */
	size_t klen;
	size_t index;             /* SEG_INDEX */
	const smp_value *value;   /* SEG_VALUE: the value; SEG_MATCH: a map */
} seg;

/* Whether `item` is what the step selects in a list. */
static bool item_matches(const seg *s, const smp_value *item, size_t i)
{
	switch (s->kind) {
	case SEG_ANY: return true;
	case SEG_INDEX: return s->index == i;
	case SEG_VALUE: return smp_value_equal(item, s->value);
	case SEG_MATCH:
		if (smp_value_type(item) != SMP_MAP)
			return false;
		for (size_t k = 0; k < smp_value_len(s->value); k++) {
			const smp_value *want = smp_map_value(s->value, k);
			const smp_value *have = smp_map_get(item, smp_map_key(s->value, k, NULL));
			const char *ws = smp_value_string(want, NULL), *hs = smp_value_string(have, NULL);

			/* [name=web] compares text; k:{"port":53} values */
			if (!(ws && hs ? strcmp(ws, hs) == 0 : smp_value_equal(want, have)))
				return false;
		}
		return true;
	default: return false;
	}
}

/* Removes what segs[0..n) names below v (a tree of the entry's own). */
static void remove_path(smp_value *v, const seg *segs, size_t n)
{
	if (!n || !v)
		return;
	if (v->type == SMP_MAP) {
		for (size_t i = v->u.map.len; i-- > 0;) {
			smp_member *m = &v->u.map.items[i];

			if (segs[0].kind != SEG_ANY &&
			    (segs[0].kind != SEG_KEY || m->klen != segs[0].klen ||
			     memcmp(m->key, segs[0].key, m->klen) != 0))
				continue;
			if (n == 1)
				smpv_map_remove(v, i);
			else
				remove_path(m->val, segs + 1, n - 1);
		}
	} else if (v->type == SMP_LIST) {
		size_t w = 0;

		for (size_t i = 0; i < v->u.list.len; i++) {
			smp_value *item = v->u.list.items[i];

			if (segs[0].kind == SEG_KEY ? segs[0].numeric && segs[0].index == i
			                            : item_matches(&segs[0], item, i)) {
				if (n == 1)
					continue; /* dropped */
				remove_path(item, segs + 1, n - 1);
			}
			v->u.list.items[w++] = item;
		}
		v->u.list.len = (uint32_t)w;
	}
}

/* ------------------------------------------------------------ paths */

/* Parses a JSON pointer ("/spec/replicas", ~0 ~1 escapes; a number also
 * names a list index) into segs (strings in arena a). */
static int parse_pointer(smp_arena *a, const char *p, seg *segs, size_t *n, size_t max)
{
	*n = 0;
	while (*p == '/' && *n < max) {
		const char *e = strchr(p + 1, '/');
		size_t len = e ? (size_t)(e - p - 1) : strlen(p + 1), o = 0;
		char *k = smp_arena_alloc(a, len + 1), *end;
		seg *s = &segs[(*n)++];

		if (!k)
			return SMP_ENOMEM;
		for (size_t i = 0; i < len; i++) {
			if (p[1 + i] == '~' && i + 1 < len && (p[2 + i] == '0' || p[2 + i] == '1'))
				k[o++] = p[2 + i++] == '0' ? '~' : '/';
			else
				k[o++] = p[1 + i];
		}
		k[o] = '\0';
		s->kind = strcmp(k, "*") == 0 ? SEG_ANY : SEG_KEY;
		s->key = k;
		s->klen = o;
		/* a number is a key of a map and an index of a list: both */
		s->index = (size_t)strtoull(k, &end, 10);
		s->numeric = o && !*end;
		p += 1 + len;
	}
	return *p ? SMP_EINVAL : 0;
}

/* Parses the path syntax of smp_changes ("spec.template.spec.containers
 * [name=web].image", `metadata.annotations["a.b/c"]`, `[=value]`, `[3]`,
 * `*`) into segs. */
static int parse_dotted(smp_arena *a, const char *p, seg *segs, size_t *n, size_t max)
{
	*n = 0;
	while (*p && *n < max) {
		seg *s = &segs[*n];

		if (*p == '.') {
			p++;
			continue;
		}
		memset(s, 0, sizeof(*s));
		if (p[0] == '[' && p[1] == '"') {
			const char *e = strstr(p + 2, "\"]");
			char *k;
			size_t o = 0;

			if (!e || !(k = smp_arena_alloc(a, (size_t)(e - p))))
				return e ? SMP_ENOMEM : SMP_EINVAL;
			for (const char *c = p + 2; c < e; c++)
				k[o++] = *c == '\\' && c + 1 < e ? *++c : *c;
			k[o] = '\0';
			s->kind = SEG_KEY, s->key = k, s->klen = o;
			p = e + 2;
		} else if (p[0] == '[') {
			const char *e = strchr(p, ']'), *eq = memchr(p, '=', e ? (size_t)(e - p) : 0);
			smp_value *m;
			char *end;

			if (!e)
				return SMP_EINVAL;
			if (!eq) {
				s->kind = SEG_INDEX;
				s->index = (size_t)strtoull(p + 1, &end, 10);
				if (end != e)
					s->kind = SEG_ANY; /* [*] */
			} else if (eq == p + 1) {
				s->kind = SEG_VALUE;
				s->value = smpv_str(a, eq + 1, (size_t)(e - eq - 1));
			} else {
				s->kind = SEG_MATCH;
				m = smpv_map(a, 1);
				if (!m || smpv_map_add_copy(a, m, p + 1, (size_t)(eq - p - 1),
				                            smpv_str(a, eq + 1, (size_t)(e - eq - 1))))
					return SMP_ENOMEM;
				s->value = m;
			}
			if (s->kind == SEG_VALUE && !s->value)
				return SMP_ENOMEM;
			p = e + 1;
		} else {
			size_t len = strcspn(p, ".[");
			char *k = smp_arena_strndup(a, p, len);

			if (!k)
				return SMP_ENOMEM;
			s->kind = len == 1 && *p == '*' ? SEG_ANY : SEG_KEY;
			s->key = k, s->klen = len;
			p += len;
		}
		(*n)++;
	}
	return *p ? SMP_EINVAL : 0;
}

#define MAX_SEGS 64

/* The length of a rule's "KIND[.GROUP]:" prefix (a kind starts with a
 * capital letter, as field names do not), 0 when it has none. */
static size_t kind_prefix(const char *r)
{
	size_t n = strspn(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-");

	return r[0] >= 'A' && r[0] <= 'Z' && r[n] == ':' ? n + 1 : 0;
}

/* Whether rule text `r` ("[KIND[.GROUP]:]PATH") applies to obj's kind;
 * *path is where its path starts. */
static bool rule_for(const char *r, const smp_value *obj, const char **path)
{
	const char *av = smp_value_string(smp_map_get(obj, "apiVersion"), NULL);
	const char *kind = smp_value_string(smp_map_get(obj, "kind"), NULL);
	const char *slash = av ? strchr(av, '/') : NULL;
	size_t pre = kind_prefix(r), klen = strcspn(r, ".:"), gl = slash ? (size_t)(slash - av) : 0;

	*path = r + pre;
	if (!pre)
		return true; /* every object */
	if (!kind || strlen(kind) != klen || strncmp(kind, r, klen) != 0)
		return false;
	if (r[klen] != '.')
		return true;
	return pre - klen - 2 == gl && strncmp(r + klen + 1, av ? av : "", gl) == 0;
}

int smp__ignore_check(const char *rule, smp_error *err)
{
	smp_arena a;
	seg segs[MAX_SEGS];
	size_t n;
	const char *path = rule;
	int rc;

	smp_arena_init(&a);
	path = rule + kind_prefix(rule);
	rc = *path == '/' ? parse_pointer(&a, path, segs, &n, MAX_SEGS)
	                  : parse_dotted(&a, path, segs, &n, MAX_SEGS);
	smp_arena_release(&a);
	if (rc == SMP_ENOMEM)
		return smp__err(err, rc, "out of memory");
	if (rc || n == 0)
		return smp__err(err, SMP_EINVAL, "\"%s\" is not a JSON pointer or a "
		                "field path", rule);
	return 0;
}

/* ------------------------------------------------------------ managers */

/* Removes from v every field the FieldsV1 set `fs` names (a map of
 * "f:name", "k:{...}", "v:value", "i:n" and "." entries). */
static int remove_fields_v1(smp_arena *a, smp_value *v, const smp_value *fs, unsigned depth)
{
	if (depth > 256 || !v)
		return 0;
	for (size_t i = 0; i < smp_value_len(fs); i++) {
		size_t klen;
		const char *k = smp_map_key(fs, i, &klen);
		const smp_value *sub = smp_map_value(fs, i);
		bool leaf = smp_value_len(sub) == 0 || smp_map_get(sub, ".") != NULL;
		seg s;
		smp_doc *j = NULL;

		memset(&s, 0, sizeof(s));
		if (klen < 2 || k[1] != ':')
			continue;
		if (k[0] == 'f') {
			s.kind = SEG_KEY, s.key = k + 2, s.klen = klen - 2;
		} else if (k[0] == 'i') {
			s.kind = SEG_INDEX, s.index = (size_t)strtoull(k + 2, NULL, 10);
		} else if (k[0] == 'k' || k[0] == 'v') {
			smp_parse_options po = SMP_PARSE_OPTIONS_INIT;

			po.format = SMP_FORMAT_JSON;
			if (smp_doc_parse(&j, k + 2, klen - 2, &po, NULL))
				continue;
			s.kind = k[0] == 'k' ? SEG_MATCH : SEG_VALUE;
			s.value = smp_doc_root(j, 0);
		} else {
			continue;
		}
		if (leaf) {
			remove_path(v, &s, 1);
		} else if (v->type == SMP_MAP && s.kind == SEG_KEY) {
			ptrdiff_t at = smpv_map_find(v, s.key, s.klen);

			if (at >= 0)
				remove_fields_v1(a, v->u.map.items[at].val, sub, depth + 1);
		} else if (v->type == SMP_LIST) {
			for (size_t x = 0; x < v->u.list.len; x++)
				if (item_matches(&s, v->u.list.items[x], x))
					remove_fields_v1(a, v->u.list.items[x], sub, depth + 1);
		}
		smp_doc_free(j);
	}
	return 0;
}

/* ------------------------------------------------------------ entries */

/* A copy of v, owned by *doc, with the plan's ignored fields taken out,
 * given the live object (for the managers' fields). */
static int stripped(smp_doc **doc, const smp_value **out, const smp_value *v,
                    const smp_value *live, const smp_plan *p)
{
	smp_value *c;
	const smp_value *mf = smp_value_at(live, "metadata.managedFields");
	int rc = 0;

	*out = NULL;
	if (!v)
		return 0;
	if (!(*doc = smp_doc_alloc()) || !(c = smpv_copy(&(*doc)->arena, v)) ||
	    smp_doc_push_root(*doc, c))
		return SMP_ENOMEM;
	if (p->o.mode == SMP_PLAN_CLIENT_SIDE) {
		/* the ownership a client-side apply records is bookkeeping */
		smp_value *md = smpv_map_get(c, "metadata");
		ptrdiff_t at = smp_value_type(md) == SMP_MAP ? smpv_map_find(md, "managedFields", 13)
		                                             : -1;

		if (at >= 0)
			smpv_map_remove(md, (size_t)at);
	}
	for (size_t i = 0; i < p->o.ignore_fields_len && !rc; i++) {
		seg segs[MAX_SEGS];
		size_t n = 0;
		const char *path;

		if (!rule_for(p->o.ignore_fields[i], v, &path))
			continue;
		rc = *path == '/' ? parse_pointer(&(*doc)->arena, path, segs, &n, MAX_SEGS)
		                  : parse_dotted(&(*doc)->arena, path, segs, &n, MAX_SEGS);
		if (rc == SMP_ENOMEM)
			return rc;
		if (!rc)
			remove_path(c, segs, n);
		rc = 0;
	}
	for (size_t i = 0; i < smp_value_len(mf) && !rc; i++) {
		const smp_value *entry = smp_list_get(mf, i);
		const char *who = smp_value_string(smp_map_get(entry, "manager"), NULL);

		for (size_t m = 0; who && m < p->o.ignore_managers_len; m++)
			if (strcmp(who, p->o.ignore_managers[m]) == 0)
				rc = remove_fields_v1(&(*doc)->arena, c, smp_map_get(entry, "fieldsV1"), 0);
	}
	*out = c;
	return rc;
}

int smp__plan_ignore(smp_plan_entry *e, smp_plan *p)
{
	const smp_value *live = e->live_stored ? e->live_stored : e->live;
	int rc;

	if (!p->o.ignore_fields_len && !p->o.ignore_managers_len)
		return 0;
	e->ignoring = true;
	if ((rc = stripped(&e->live_cmp_doc, &e->live_cmp, live, e->live, p)) ||
	    (rc = stripped(&e->object_cmp_doc, &e->object_cmp, e->object, e->live, p)))
		return rc;
	/* what is left the same is unchanged, whatever kubectl sends */
	if (e->action == SMP_ACTION_CONFIGURE && smp_value_equal(e->live_cmp, e->object_cmp))
		e->action = SMP_ACTION_UNCHANGED;
	return 0;
}
