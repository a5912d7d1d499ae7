/*
 * jsoncmp.c - compares two JSON files as values, for the benchmark.
 *
 *   jsoncmp EXPECTED ACTUAL
 *
 * Each file holds one or more JSON documents (concatenated, as kubectl prints
 * several objects); a document of kind List counts as its items. Maps are
 * compared without regard to key order, lists in order, numbers by value.
 * Exit 0 when equal, 1 with the path of the first difference on stderr,
 * 2 when a file cannot be read or parsed.
 *
 * Deliberately built on cJSON, not on smpatch's own parser, so that a codec
 * bug cannot hide a wrong result.
 */
#include <cjson/cJSON.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/read_file.h"

typedef struct docs {
	cJSON **v;
	size_t n, cap;
	cJSON **roots; /* parsed documents, for freeing */
	size_t nroots, rcap;
} docs;

static bool push(cJSON ***arr, size_t *n, size_t *cap, cJSON *x)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		cJSON **p = realloc(*arr, c * sizeof(cJSON *));
		if (!p)
			return false;
		*arr = p;
		*cap = c;
	}
	(*arr)[(*n)++] = x;
	return true;
}

static int load(docs *d, const char *path)
{
	size_t len = 0;
	char *buf = read_file(path, &len);
	if (!buf) {
		fprintf(stderr, "jsoncmp: cannot read %s\n", path);
		return 2;
	}
	const char *p = buf, *end = buf + len;
	int rc = 0;
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
			p++;
		if (p >= end)
			break;
		const char *stop = NULL;
		cJSON *root = cJSON_ParseWithLengthOpts(p, (size_t)(end - p), &stop, false);
		if (!root) {
			fprintf(stderr, "jsoncmp: %s: invalid JSON at byte %ld\n", path,
			        (long)((cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : p) - buf));
			rc = 2;
			break;
		}
		push(&d->roots, &d->nroots, &d->rcap, root);
		const cJSON *kind = cJSON_GetObjectItemCaseSensitive(root, "kind");
		const cJSON *items = cJSON_GetObjectItemCaseSensitive(root, "items");
		if (cJSON_IsString(kind) && strcmp(kind->valuestring, "List") == 0 &&
		    cJSON_IsArray(items)) {
			for (cJSON *it = items->child; it; it = it->next)
				push(&d->v, &d->n, &d->cap, it);
		} else {
			push(&d->v, &d->n, &d->cap, root);
		}
		p = stop;
	}
	free(buf);
	return rc;
}

static void docs_free(docs *d)
{
	for (size_t i = 0; i < d->nroots; i++)
		cJSON_Delete(d->roots[i]);
	free(d->roots);
	free(d->v);
}

static int by_key(const void *a, const void *b)
{
	return strcmp((*(cJSON *const *)a)->string, (*(cJSON *const *)b)->string);
}

/* `path` is a growing buffer of the place being compared. */
static bool equal(const cJSON *a, const cJSON *b, char *path, size_t plen, size_t pcap);

static void path_key(char *path, size_t plen, size_t pcap, const char *key)
{
	snprintf(path + plen, pcap - plen, ".%s", key);
}

static void path_index(char *path, size_t plen, size_t pcap, long i)
{
	snprintf(path + plen, pcap - plen, "[%ld]", i);
}

static bool objects_equal(const cJSON *a, const cJSON *b, char *path, size_t plen,
                          size_t pcap)
{
	cJSON **ka = NULL, **kb = NULL;
	size_t na = 0, ca = 0, nb = 0, cb = 0;
	bool eq = true;
	for (cJSON *x = a->child; x; x = x->next)
		push(&ka, &na, &ca, x);
	for (cJSON *x = b->child; x; x = x->next)
		push(&kb, &nb, &cb, x);
	if (na)
		qsort(ka, na, sizeof(cJSON *), by_key);
	if (nb)
		qsort(kb, nb, sizeof(cJSON *), by_key);
	size_t i = 0, j = 0;
	while (eq && (i < na || j < nb)) {
		int c = i >= na ? 1 : j >= nb ? -1 : strcmp(ka[i]->string, kb[j]->string);
		if (c < 0) {
			path_key(path, plen, pcap, ka[i]->string);
			fprintf(stderr, "jsoncmp: %s: only in expected\n", path);
			eq = false;
		} else if (c > 0) {
			path_key(path, plen, pcap, kb[j]->string);
			fprintf(stderr, "jsoncmp: %s: only in actual\n", path);
			eq = false;
		} else {
			path_key(path, plen, pcap, ka[i]->string);
			eq = equal(ka[i], kb[j], path, strlen(path), pcap);
			path[plen] = 0;
			i++;
			j++;
		}
	}
	free(ka);
	free(kb);
	return eq;
}

static bool equal(const cJSON *a, const cJSON *b, char *path, size_t plen, size_t pcap)
{
	int ta = a->type & 0xff, tb = b->type & 0xff;
	if (ta != tb) {
		fprintf(stderr, "jsoncmp: %s: types differ\n", path[0] ? path : "(root)");
		return false;
	}
	switch (ta) {
	case cJSON_False:
	case cJSON_True:
	case cJSON_NULL:
		return true;
	case cJSON_Number:
		if (a->valuedouble == b->valuedouble)
			return true;
		fprintf(stderr, "jsoncmp: %s: %.17g != %.17g\n", path, a->valuedouble,
		        b->valuedouble);
		return false;
	case cJSON_String:
		if (strcmp(a->valuestring, b->valuestring) == 0)
			return true;
		fprintf(stderr, "jsoncmp: %s: \"%.200s\" != \"%.200s\"\n", path, a->valuestring,
		        b->valuestring);
		return false;
	case cJSON_Array: {
		const cJSON *x = a->child, *y = b->child;
		long i = 0;
		for (; x && y; x = x->next, y = y->next, i++) {
			path_index(path, plen, pcap, i);
			if (!equal(x, y, path, strlen(path), pcap))
				return false;
			path[plen] = 0;
		}
		if (x || y) {
			fprintf(stderr, "jsoncmp: %s: list lengths differ (%d vs %d)\n", path,
			        cJSON_GetArraySize(a), cJSON_GetArraySize(b));
			return false;
		}
		return true;
	}
	case cJSON_Object:
		return objects_equal(a, b, path, plen, pcap);
	}
	fprintf(stderr, "jsoncmp: %s: unexpected JSON type\n", path);
	return false;
}

int main(int argc, char **argv)
{
	docs a = {0}, b = {0};
	int rc;
	char path[8192];

	if (argc != 3) {
		fprintf(stderr, "usage: jsoncmp EXPECTED ACTUAL\n");
		return 2;
	}
	rc = load(&a, argv[1]);
	if (rc == 0)
		rc = load(&b, argv[2]);
	if (rc == 0 && a.n != b.n) {
		fprintf(stderr, "jsoncmp: %zu objects expected, %zu found\n", a.n, b.n);
		rc = 1;
	}
	for (size_t i = 0; rc == 0 && i < a.n; i++) {
		path[0] = 0;
		if (a.n > 1)
			snprintf(path, sizeof(path), "[object %zu]", i);
		if (!equal(a.v[i], b.v[i], path, strlen(path), sizeof(path)))
			rc = 1;
	}
	docs_free(&a);
	docs_free(&b);
	return rc;
}
