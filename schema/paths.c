/*
 * paths.c - what the paths of an OpenAPI document name: the group, version
 * and resource of a collection or object path, from which the loader
 * learns the scope and the plural name of each kind.
 */
#include "schema/schema.h"

#include <string.h>

/* One segment of a path: [*p, *p + *n), advancing *p past it and its '/'. */
static bool path_seg(const char **p, const char *end, const char **seg, size_t *n)
{
	const char *s = *p, *e;

	if (s >= end)
		return false;
	e = memchr(s, '/', (size_t)(end - s));
	if (!e)
		e = end;
	*seg = s;
	*n = (size_t)(e - s);
	*p = e < end ? e + 1 : end;
	return *n > 0;
}

static bool seg_is(const char *seg, size_t n, const char *lit)
{
	return n == strlen(lit) && memcmp(seg, lit, n) == 0;
}

bool smp_path_resource(const char *path, size_t len, smp_path_res *pr)
{
	const char *p = path, *end = path + len, *s;
	size_t n;

	if (len < 2 || *p != '/')
		return false;
	p++;
	if (!path_seg(&p, end, &s, &n))
		return false;
	if (seg_is(s, n, "api")) {
		pr->g = "";
		pr->gl = 0;
	} else if (seg_is(s, n, "apis")) {
		if (!path_seg(&p, end, &pr->g, &pr->gl))
			return false;
	} else {
		return false;
	}
	if (!path_seg(&p, end, &pr->v, &pr->vl) || !path_seg(&p, end, &s, &n) ||
	    seg_is(s, n, "watch"))
		return false;
	if (seg_is(s, n, "namespaces") && p < end && end - p >= 11 &&
	    memcmp(p, "{namespace}", 11) == 0 && (end - p == 11 || p[11] == '/')) {
		p += 11;
		if (p < end)
			p++;
		if (!path_seg(&p, end, &s, &n))
			return false;
	}
	if (*s == '{')
		return false;
	pr->r = s;
	pr->rl = n;
	if (p < end) {
		/* at most the object's name may follow */
		if (!path_seg(&p, end, &s, &n) || *s != '{' || p < end)
			return false;
	}
	return true;
}
