/*
 * json_cmp.c - compares two JSON (or YAML) documents as values, for the
 * kubectl differential test: map order is ignored, list order counts and
 * 1 differs from 1.0 (smp_value_equal). On a mismatch it prints each place
 * where the documents differ, by document path, with both values.
 *
 * Both files may hold several documents (a YAML stream or concatenated JSON
 * values): they are compared one by one and their numbers must match.
 *
 * usage: json_cmp A B [LABEL_A LABEL_B]
 *        json_cmp --get FIELD FILE   prints FIELD (dotted path) of the first
 *                                    document: a string as is, else JSON
 *        json_cmp --annotation KEY FILE   prints metadata.annotations[KEY]
 * exit: 0 equal, 1 different, 2 usage or unreadable input (--get: 1 when
 *       the field is absent)
 */
#include "smpatch.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPORTS 20
#define MAX_PATH 4096

struct cmp_ctx {
	const char *la, *lb;
	unsigned reports;
};

static void print_value(const char *label, const smp_value *v)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	smp_error err;
	char *s = NULL;

	if (!v) {
		printf("    %s: (absent)\n", label);
		return;
	}
	po.sort_keys = true;
	if (smp_print(&s, NULL, v, &po, &err) != SMP_OK) {
		printf("    %s: (unprintable)\n", label);
		return;
	}
	if (strlen(s) > 400)
		strcpy(s + 397, "...");
	/* Go prints the float 1.0 as 1: say which one it is. */
	printf("    %s: %s%s\n", label, s, smp_value_type(v) == SMP_FLOAT ? " (float)" : "");
	smp_free(s);
}

static void report(struct cmp_ctx *c, const char *path, const smp_value *a, const smp_value *b)
{
	if (c->reports++ >= MAX_REPORTS)
		return;
	printf("  at %s:\n", path[0] ? path : "(document)");
	print_value(c->la, a);
	print_value(c->lb, b);
}

/* Append ".key" or "[i]" to path (truncating quietly when too long). */
static void path_key(char *path, size_t len, const char *key)
{
	snprintf(path + len, MAX_PATH - len, ".%s", key ? key : "");
}

static void path_index(char *path, size_t len, size_t i)
{
	snprintf(path + len, MAX_PATH - len, "[%zu]", i);
}

/* Walks both values and reports the innermost places that differ. */
static void walk(struct cmp_ctx *c, char *path, const smp_value *a, const smp_value *b, int depth)
{
	size_t len = strlen(path), i, na, nb;

	if (smp_value_equal(a, b))
		return;
	if (depth > 200 || !a || !b || smp_value_type(a) != smp_value_type(b)) {
		report(c, path, a, b);
		return;
	}
	if (smp_value_type(a) == SMP_MAP) {
		na = smp_value_len(a);
		nb = smp_value_len(b);
		for (i = 0; i < na; i++) {
			const char *k = smp_map_key(a, i, NULL);
			path_key(path, len, k);
			walk(c, path, smp_map_value(a, i), smp_map_get(b, k), depth + 1);
			path[len] = '\0';
		}
		for (i = 0; i < nb; i++) {
			const char *k = smp_map_key(b, i, NULL);
			if (smp_map_get(a, k))
				continue;
			path_key(path, len, k);
			report(c, path, NULL, smp_map_value(b, i));
			path[len] = '\0';
		}
		return;
	}
	if (smp_value_type(a) == SMP_LIST && smp_value_len(a) == smp_value_len(b)) {
		na = smp_value_len(a);
		for (i = 0; i < na; i++) {
			path_index(path, len, i);
			walk(c, path, smp_list_get(a, i), smp_list_get(b, i), depth + 1);
			path[len] = '\0';
		}
		return;
	}
	report(c, path, a, b);
}

static smp_doc *load(const char *file)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_error err;
	smp_doc *doc = NULL;
	char msg[512];

	if (smp_doc_parse_file(&doc, file, &po, &err) != SMP_OK) {
		smp_error_format(msg, sizeof msg, &err);
		fprintf(stderr, "json_cmp: %s\n", msg);
		return NULL;
	}
	return doc;
}

/* --get FIELD FILE, or --annotation KEY FILE (annotation = true) */
static int get_field(const char *field, const char *file, bool annotation)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	smp_doc *doc = load(file);
	const smp_value *v;
	smp_error err;
	char *s = NULL;
	int rc = 1;

	if (!doc)
		return 2;
	if (annotation)
		v = smp_map_get(smp_value_at(smp_doc_root(doc, 0), "metadata.annotations"), field);
	else
		v = smp_value_at(smp_doc_root(doc, 0), field);
	if (!v)
		goto out;
	if (smp_value_type(v) == SMP_STRING) {
		size_t len;
		const char *str = smp_value_string(v, &len);
		fwrite(str, 1, len, stdout);
		putchar('\n');
		rc = 0;
		goto out;
	}
	if (smp_print(&s, NULL, v, &po, &err) != SMP_OK) {
		rc = 2;
		goto out;
	}
	printf("%s\n", s);
	rc = 0;
out:
	smp_free(s);
	smp_doc_free(doc);
	return rc;
}

int main(int argc, char **argv)
{
	struct cmp_ctx c = { "a", "b", 0 };
	smp_doc *a = NULL, *b = NULL;
	static char path[MAX_PATH];
	size_t i;
	int rc = 2;

	if (argc == 4 && strcmp(argv[1], "--get") == 0)
		return get_field(argv[2], argv[3], false);
	if (argc == 4 && strcmp(argv[1], "--annotation") == 0)
		return get_field(argv[2], argv[3], true);
	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: json_cmp A B [LABEL_A LABEL_B] | json_cmp --get FIELD FILE\n");
		return 2;
	}
	if (argc == 5) {
		c.la = argv[3];
		c.lb = argv[4];
	}
	a = load(argv[1]);
	b = load(argv[2]);
	if (!a || !b)
		goto out;
	if (smp_doc_count(a) != smp_doc_count(b)) {
		printf("  %s has %zu documents, %s has %zu\n", c.la, smp_doc_count(a), c.lb,
		       smp_doc_count(b));
		rc = 1;
		goto out;
	}
	for (i = 0; i < smp_doc_count(a); i++) {
		if (smp_doc_count(a) > 1)
			snprintf(path, sizeof path, "document %zu: ", i + 1);
		else
			path[0] = '\0';
		walk(&c, path, smp_doc_root(a, i), smp_doc_root(b, i), 0);
	}
	if (c.reports == 0) {
		rc = 0;
		goto out;
	}
	if (c.reports > MAX_REPORTS)
		printf("  ... %u more differences\n", c.reports - MAX_REPORTS);
	rc = 1;
out:
	smp_doc_free(a);
	smp_doc_free(b);
	return rc;
}
