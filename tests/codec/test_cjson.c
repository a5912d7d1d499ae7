/*
 * test_cjson.c - cJSON as an independent check of our JSON reader and
 * printer, over the corpus: our compact output parsed by cJSON must equal
 * our tree, and cJSON's printing of that tree read by our reader must
 * equal it too (numbers compared as doubles: cJSON keeps nothing else).
 *
 * Usage: test_cjson CORPUS_DIR...
 */
#include "smpatch.h"
#include "../check.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "corpus.h"

static int checked;

/* Does cJSON's tree equal ours? Strings with NUL bytes are cut by cJSON,
 * so they compare up to the NUL. */
static bool same(const cJSON *c, const smp_value *v)
{
	size_t n;
	const char *s;

	switch (smp_value_type(v)) {
	case SMP_NULL:
		return cJSON_IsNull(c);
	case SMP_BOOL:
		return smp_value_bool(v) ? cJSON_IsTrue(c) : cJSON_IsFalse(c);
	case SMP_INT:
		return cJSON_IsNumber(c) && c->valuedouble == (double)smp_value_int(v);
	case SMP_FLOAT:
		return cJSON_IsNumber(c) && c->valuedouble == smp_value_float(v);
	case SMP_STRING:
		s = smp_value_string(v, &n);
		if (!cJSON_IsString(c))
			return false;
		if (memchr(s, '\0', n))
			return strncmp(c->valuestring, s, strlen(s) + 1) == 0;
		return strlen(c->valuestring) == n && memcmp(c->valuestring, s, n) == 0;
	case SMP_LIST:
		if (!cJSON_IsArray(c) || (size_t)cJSON_GetArraySize(c) != smp_value_len(v))
			return false;
		for (size_t i = 0; i < smp_value_len(v); i++)
			if (!same(cJSON_GetArrayItem(c, (int)i), smp_list_get(v, i)))
				return false;
		return true;
	case SMP_MAP: {
		if (!cJSON_IsObject(c) || (size_t)cJSON_GetArraySize(c) != smp_value_len(v))
			return false;
		/* cJSON keeps the order we printed in: walk both together. */
		const cJSON *e = c->child;
		for (size_t i = 0; i < smp_value_len(v); i++, e = e->next) {
			size_t kl;
			const char *k = smp_map_key(v, i, &kl);
			if (!e || !e->string || strncmp(e->string, k, kl) != 0 ||
			    (!memchr(k, '\0', kl) && strlen(e->string) != kl))
				return false;
			if (!same(e, smp_map_value(v, i)))
				return false;
		}
		return true;
	}
	}
	return false;
}

/* Our tree and the tree we read back from cJSON's text: equal, with
 * numbers compared as doubles within 1e-14 relative: cJSON prints with
 * %1.15g when its own tolerant comparison accepts that, so it is lossy. */
static bool same_num(const smp_value *a, const smp_value *b)
{
	smp_type ta = smp_value_type(a), tb = smp_value_type(b);

	if ((ta == SMP_INT || ta == SMP_FLOAT) && (tb == SMP_INT || tb == SMP_FLOAT))
		return fabs(smp_value_float(a) - smp_value_float(b)) <=
		       1e-14 * fmax(fabs(smp_value_float(a)), fabs(smp_value_float(b)));
	if (ta != tb)
		return false;
	if (ta == SMP_LIST || ta == SMP_MAP) {
		if (smp_value_len(a) != smp_value_len(b))
			return false;
		for (size_t i = 0; i < smp_value_len(a); i++) {
			if (ta == SMP_LIST) {
				if (!same_num(smp_list_get(a, i), smp_list_get(b, i)))
					return false;
				continue;
			}
			size_t k1, k2;
			const char *x = smp_map_key(a, i, &k1), *y = smp_map_key(b, i, &k2);
			if (k1 != k2 || memcmp(x, y, k1) != 0 ||
			    !same_num(smp_map_value(a, i), smp_map_value(b, i)))
				return false;
		}
		return true;
	}
	return smp_value_equal(a, b);
}

static bool has_nul(const smp_value *v)
{
	size_t n;
	const char *s;

	switch (smp_value_type(v)) {
	case SMP_STRING:
		s = smp_value_string(v, &n);
		return memchr(s, '\0', n) != NULL;
	case SMP_LIST:
	case SMP_MAP:
		for (size_t i = 0; i < smp_value_len(v); i++) {
			if (smp_value_type(v) == SMP_MAP) {
				size_t kl;
				const char *k = smp_map_key(v, i, &kl);
				if (memchr(k, '\0', kl) || has_nul(smp_map_value(v, i)))
					return true;
			} else if (has_nul(smp_list_get(v, i))) {
				return true;
			}
		}
		return false;
	default:
		return false;
	}
}

static void check_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;
	smp_doc *doc = NULL;
	smp_error err;

	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		return;
	}
	fclose(f);
	if (smp_doc_parse(&doc, buf, (size_t)n, NULL, &err) == 0) {
		for (size_t i = 0; i < smp_doc_count(doc); i++) {
			const smp_value *v = smp_doc_root(doc, i);
			char *s = NULL;
			size_t sl;
			if (smp_print(&s, &sl, v, NULL, &err)) {
				printf("FAIL %s: print: %s\n", path, err.message);
				failures++;
				continue;
			}
			cJSON *c = cJSON_ParseWithLength(s, sl);
			if (!c || !same(c, v)) {
				printf("FAIL %s doc %zu: cJSON reads our output differently:\n%s\n", path,
				       i, s);
				failures++;
			}
			if (c && !has_nul(v)) {
				char *cs = cJSON_PrintUnformatted(c);
				smp_doc *back = NULL;
				smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
				po.format = SMP_FORMAT_JSON;
				int rc = cs ? smp_doc_parse(&back, cs, strlen(cs), &po, &err) : -1;
				/* cJSON's 15 digits can push DBL_MAX beyond range. */
				bool lossy = rc == SMP_EPARSE && strstr(err.message, "out of range");
				if (!lossy && (rc || smp_doc_count(back) != 1 ||
				               !same_num(v, smp_doc_root(back, 0)))) {
					printf("FAIL %s doc %zu: we read cJSON's output differently:\n%s\n",
					       path, i, cs ? cs : "(null)");
					failures++;
				}
				smp_doc_free(back);
				free(cs);
			}
			cJSON_Delete(c);
			free(s);
			checked++;
		}
	}
	smp_doc_free(doc);
	free(buf);
}

/* Inputs and expected outputs alike. */
static bool json_or_yaml(const char *path)
{
	const char *name = corpus_base(path);

	return ((strstr(name, ".json") || strstr(name, ".yaml")) && !corpus_args(path)) ||
	       corpus_output(path, "json") || corpus_output(path, "yaml");
}

static bool walk_visit(const char *path, size_t size, void *ctx)
{
	(void)size;
	(void)ctx;
	check_file(path);
	return true;
}

static void walk(const char *dir)
{
	corpus_walk(dir, json_or_yaml, walk_visit, NULL);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		walk(argv[i]);
	printf("%d documents checked against cJSON; %d failures\n", checked, failures);
	if (checked < 100) {
		printf("FAIL: too few documents (%d)\n", checked);
		return 1;
	}
	return failures ? 1 : 0;
}
