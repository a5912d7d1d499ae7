/*
 * jsonpatch.c - JSON Patch (RFC 6902): add, remove, replace, move, copy and
 * test over JSON Pointers (RFC 6901), applied in order to a copy of the
 * target. Any failing operation fails the whole patch; the error names the
 * operation and its path.
 */
#include "merge/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tok {
	char *s;
	size_t n;
} tok;

typedef struct jp {
	smp_arena *a;
	smp_error *err;
	size_t opi; /* operation index, for messages */
	const char *op;
} jp;

static int jpfail(jp *c, const char *path, const char *fmt, const char *detail)
{
	char where[SMP_ERROR_PATH_MAX];

	snprintf(where, sizeof(where), "[%zu]%s%s", c->opi, path ? " " : "", path ? path : "");
	return smp__err_path(c->err, SMP_EPATCH, where, "json patch operation %zu (%s): %s%s",
	                     c->opi, c->op ? c->op : "?", fmt, detail ? detail : "");
}

/* Splits a JSON pointer into unescaped tokens as json-patch v4 does (what
 * kubectl and the API server run): the text before the first '/' is
 * dropped, so "a/b" is "/b", and escapes other than ~0 and ~1 stay as they
 * are. "" is the whole document. */
static int parse_pointer(jp *c, const char *p, size_t n, tok **out, size_t *ntok)
{
	size_t cnt = 0, k = 0, i = 0;
	tok *t;

	*out = NULL;
	*ntok = 0;
	if (n == 0)
		return 0;
	for (size_t j = 0; j < n; j++)
		cnt += p[j] == '/';
	if (cnt == 0)
		return jpfail(c, p, "a JSON pointer must contain '/': ", p);
	t = smp_arena_alloc(c->a, cnt * sizeof(*t));
	if (!t)
		return smp__err(c->err, SMP_ENOMEM, "out of memory");
	while (p[i] != '/')
		i++;
	for (i++; i <= n; i++) {
		size_t start = i, len = 0;
		char *s;
		while (i < n && p[i] != '/')
			i++;
		s = smp_arena_alloc(c->a, i - start + 1);
		if (!s)
			return smp__err(c->err, SMP_ENOMEM, "out of memory");
		for (size_t j = start; j < i; j++) {
			if (p[j] == '~' && j + 1 < i && (p[j + 1] == '0' || p[j + 1] == '1')) {
				s[len++] = p[j + 1] == '0' ? '~' : '/';
				j++;
			} else {
				s[len++] = p[j];
			}
		}
		s[len] = '\0';
		t[k].s = s;
		t[k].n = len;
		k++;
	}
	*out = t;
	*ntok = k;
	return 0;
}

/* An array index read as Go's strconv.Atoi reads it ("01" and "+1" are 1),
 * as json-patch v4 does; negative indexes are refused (RFC 6902 vectors).
 * -1 when invalid. */
static long parse_index(const tok *t)
{
	long v = 0;
	size_t i = 0;

	if (t->n > 0 && t->s[0] == '+')
		i = 1;
	if (i >= t->n || t->n - i > 9)
		return -1;
	for (; i < t->n; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return -1;
		v = v * 10 + (t->s[i] - '0');
	}
	return v;
}

/* The container the last token refers into (walks all tokens but the last). */
static int walk(jp *c, smp_value *root, const tok *t, size_t n, const char *path,
                smp_value **out)
{
	smp_value *v = root;

	for (size_t i = 0; i < n; i++) {
		if (v->type == SMP_MAP) {
			ptrdiff_t j = smpv_map_find(v, t[i].s, t[i].n);
			if (j < 0)
				return jpfail(c, path, "path does not exist: ", path);
			v = v->u.map.items[j].val;
		} else if (v->type == SMP_LIST) {
			long idx = parse_index(&t[i]);
			if (idx < 0 || (size_t)idx >= v->u.list.len)
				return jpfail(c, path, "array index out of range or invalid in ", path);
			v = v->u.list.items[idx];
		} else {
			return jpfail(c, path, "path does not exist: ", path);
		}
	}
	*out = v;
	return 0;
}

static int get_value(jp *c, smp_value *root, const tok *t, size_t n, const char *path,
                     smp_value **out)
{
	return walk(c, root, t, n, path, out);
}

/* json-patch v4's get: a key missing from a map reads as no value (*out
 * NULL) rather than an error; a missing parent or list index is an error. */
static int get_lenient(jp *c, smp_value *root, const tok *t, size_t n, const char *path,
                       smp_value **out)
{
	smp_value *parent;
	int rc;

	if (n == 0) {
		*out = root;
		return 0;
	}
	if ((rc = walk(c, root, t, n - 1, path, &parent)))
		return rc;
	if (parent->type == SMP_MAP) {
		ptrdiff_t j = smpv_map_find(parent, t[n - 1].s, t[n - 1].n);
		*out = j < 0 ? NULL : parent->u.map.items[j].val;
		return 0;
	}
	return walk(c, parent, &t[n - 1], 1, path, out);
}

/* RFC 6902 add at the pointer t[0..n): into a map (set), into a list at
 * an index or at "-" (insert), or the whole document. */
static int do_add(jp *c, smp_value **root, const tok *t, size_t n, const char *path,
                  smp_value *val)
{
	smp_value *parent;
	int rc;

	if (n == 0) {
		*root = val;
		return 0;
	}
	if ((rc = walk(c, *root, t, n - 1, path, &parent)))
		return rc;
	const tok *last = &t[n - 1];
	if (parent->type == SMP_MAP) {
		ptrdiff_t j = smpv_map_find(parent, last->s, last->n);
		if (j >= 0) {
			parent->u.map.items[j].val = val;
			return 0;
		}
		return smpv_map_add_copy(c->a, parent, last->s, last->n, val)
		           ? smp__err(c->err, SMP_ENOMEM, "out of memory")
		           : 0;
	}
	if (parent->type != SMP_LIST)
		return jpfail(c, path, "cannot add to a scalar at ", path);
	size_t len = parent->u.list.len, at;
	if (last->n == 1 && last->s[0] == '-') {
		at = len;
	} else {
		long idx = parse_index(last);
		if (idx < 0 || (size_t)idx > len)
			return jpfail(c, path, "array index out of range or invalid in ", path);
		at = (size_t)idx;
	}
	if (smpv_list_add(c->a, parent, val))
		return smp__err(c->err, SMP_ENOMEM, "out of memory");
	memmove(&parent->u.list.items[at + 1], &parent->u.list.items[at],
	        (len - at) * sizeof(smp_value *));
	parent->u.list.items[at] = val;
	return 0;
}

static int do_remove(jp *c, smp_value *root, const tok *t, size_t n, const char *path,
                     smp_value **removed)
{
	smp_value *parent;
	int rc;

	if (n == 0)
		return jpfail(c, path, "cannot remove the whole document", NULL);
	if ((rc = walk(c, root, t, n - 1, path, &parent)))
		return rc;
	const tok *last = &t[n - 1];
	if (parent->type == SMP_MAP) {
		ptrdiff_t j = smpv_map_find(parent, last->s, last->n);
		if (j < 0)
			return jpfail(c, path, "path does not exist: ", path);
		if (removed)
			*removed = parent->u.map.items[j].val;
		smpv_map_remove(parent, (size_t)j);
		return 0;
	}
	if (parent->type != SMP_LIST)
		return jpfail(c, path, "path does not exist: ", path);
	long idx = parse_index(last);
	if (idx < 0 || (size_t)idx >= parent->u.list.len)
		return jpfail(c, path, "array index out of range or invalid in ", path);
	if (removed)
		*removed = parent->u.list.items[idx];
	memmove(&parent->u.list.items[idx], &parent->u.list.items[idx + 1],
	        (parent->u.list.len - (size_t)idx - 1) * sizeof(smp_value *));
	parent->u.list.len--;
	return 0;
}

static const smp_value *member(const smp_value *op, const char *k)
{
	return smpv_map_get(op, k);
}

int smp_jsonpatch_apply(smp_value **out, smp_arena *a, const smp_value *target,
                        const smp_value *ops, smp_error *err)
{
	jp c = {a, err, 0, NULL};
	smp_value *root;
	int rc;

	*out = NULL;
	if (!ops || ops->type != SMP_LIST)
		return smp__err(err, SMP_EPATCH, "a JSON patch must be a list of operations");
	root = target ? smpv_copy(a, target) : smpv_null(a);
	if (!root)
		return smp__err(err, SMP_ENOMEM, "out of memory");
	for (size_t i = 0; i < ops->u.list.len; i++) {
		const smp_value *op = ops->u.list.items[i], *opv, *pathv, *fromv, *val;
		tok *pt, *ft = NULL;
		size_t pn, fn = 0;
		const char *path;

		c.opi = i;
		c.op = NULL;
		if (op->type != SMP_MAP)
			return jpfail(&c, NULL, "an operation must be a map", NULL);
		opv = member(op, "op");
		if (!opv || opv->type != SMP_STRING)
			return jpfail(&c, NULL, "missing 'op' parameter", NULL);
		c.op = opv->u.s.ptr;
		pathv = member(op, "path");
		if (!pathv || pathv->type != SMP_STRING)
			return jpfail(&c, NULL, "missing 'path' parameter", NULL);
		path = pathv->u.s.ptr;
		if ((rc = parse_pointer(&c, path, pathv->u.s.len, &pt, &pn)))
			return rc;
		val = member(op, "value");
		fromv = member(op, "from");
		if (smpv_is_str(opv, "move") || smpv_is_str(opv, "copy")) {
			if (!fromv || fromv->type != SMP_STRING)
				return jpfail(&c, path, "missing 'from' parameter", NULL);
			if ((rc = parse_pointer(&c, fromv->u.s.ptr, fromv->u.s.len, &ft, &fn)))
				return rc;
		}
		if ((smpv_is_str(opv, "add") || smpv_is_str(opv, "replace") ||
		     smpv_is_str(opv, "test")) && !val)
			return jpfail(&c, path, "missing 'value' parameter", NULL);

		if (smpv_is_str(opv, "add")) {
			smp_value *cv = smpv_copy(a, val);
			if (!cv)
				return smp__err(err, SMP_ENOMEM, "out of memory");
			if ((rc = do_add(&c, &root, pt, pn, path, cv)))
				return rc;
		} else if (smpv_is_str(opv, "remove")) {
			if ((rc = do_remove(&c, root, pt, pn, path, NULL)))
				return rc;
		} else if (smpv_is_str(opv, "replace")) {
			smp_value *cv = smpv_copy(a, val), *old;
			if (!cv)
				return smp__err(err, SMP_ENOMEM, "out of memory");
			if (pn == 0) {
				root = cv;
				continue;
			}
			/* json-patch v4: a missing map key is added (only the parent
			 * must exist); a list index must exist. */
			if ((rc = get_lenient(&c, root, pt, pn, path, &old)))
				return rc;
			if (old && (rc = do_remove(&c, root, pt, pn, path, NULL)))
				return rc;
			if ((rc = do_add(&c, &root, pt, pn, path, cv)))
				return rc;
		} else if (smpv_is_str(opv, "move")) {
			smp_value *v;
			size_t flen = fromv->u.s.len;
			if (pathv->u.s.len > flen && memcmp(path, fromv->u.s.ptr, flen) == 0 &&
			    path[flen] == '/')
				return jpfail(&c, path, "cannot move a value into one of its children", NULL);
			if ((rc = get_value(&c, root, ft, fn, fromv->u.s.ptr, &v)))
				return rc;
			if (fn == 0) {
				root = v;
				continue;
			}
			if ((rc = do_remove(&c, root, ft, fn, fromv->u.s.ptr, NULL)) ||
			    (rc = do_add(&c, &root, pt, pn, path, v)))
				return rc;
		} else if (smpv_is_str(opv, "copy")) {
			smp_value *v, *cv;
			/* json-patch v4 copies null from a missing map key. */
			if ((rc = get_lenient(&c, root, ft, fn, fromv->u.s.ptr, &v)))
				return rc;
			if (!(cv = v ? smpv_copy(a, v) : smpv_null(a)))
				return smp__err(err, SMP_ENOMEM, "out of memory");
			if ((rc = do_add(&c, &root, pt, pn, path, cv)))
				return rc;
		} else if (smpv_is_str(opv, "test")) {
			smp_value *v;
			/* json-patch v4: a missing map key tests equal to null. */
			if ((rc = get_lenient(&c, root, pt, pn, path, &v)))
				return rc;
			if (!v && val->type == SMP_NULL)
				continue;
			if (!v || !smp_json_value_equal(v, val))
				return jpfail(&c, path, "test failed: the value differs at ", path);
		} else {
			return jpfail(&c, path, "unrecognized op ", c.op);
		}
	}
	*out = root;
	return 0;
}
