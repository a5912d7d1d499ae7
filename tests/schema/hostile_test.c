/*
 * hostile_test.c - malformed and hostile schema documents fail cleanly with
 * an error naming the place (JSON path and line:col), never crash or hang.
 *
 *   schema_hostile_test CASE_DIR    testdata/schema/hostile/<case>/{input.json,expect}
 *   schema_hostile_test gen:NAME    generated documents (deep, chain, cycle, ...)
 *
 * expect holds three lines: the error code name, a message substring and
 * the expected document path ("" when none).
 */
#include "tutil.h"

#include <stdarg.h>

static const struct { const char *name; int code; } codes[] = {
	{"OK", SMP_OK}, {"ESCHEMA", SMP_ESCHEMA}, {"EPARSE", SMP_EPARSE},
	{"ELIMIT", SMP_ELIMIT}, {"EIO", SMP_EIO},
};

static int code_of(const char *name)
{
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (strcmp(codes[i].name, name) == 0)
			return codes[i].code;
	fprintf(stderr, "unknown code %s\n", name);
	exit(2);
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

static int run_file(const char *dir)
{
	char path[4096], code[64] = "", msg[512] = "", where[512] = "", line[2048];
	smp_schema *s = NULL;
	smp_error err;
	FILE *f;
	int rc, want;

	snprintf(path, sizeof(path), "%s/expect", dir);
	if (!(f = fopen(path, "r"))) {
		perror(path);
		return 2;
	}
	if (!fgets(code, sizeof(code), f) || !fgets(msg, sizeof(msg), f) ||
	    !fgets(where, sizeof(where), f)) {
		fprintf(stderr, "%s: needs three lines\n", path);
		fclose(f);
		return 2;
	}
	fclose(f);
	chomp(code);
	chomp(msg);
	chomp(where);
	want = code_of(code);
	snprintf(path, sizeof(path), "%s/input.json", dir);
	if (!(f = fopen(path, "r")))
		snprintf(path, sizeof(path), "%s/input.yaml", dir);
	else
		fclose(f);
	memset(&err, 0, sizeof(err));
	rc = smp_schema_load_file(&s, path, &err);
	smp_error_format(line, sizeof(line), &err);
	printf("%s\n", rc ? line : "loaded");
	CHECK(rc == want);
	CHECK(rc == 0 ? s != NULL : s == NULL);
	if (rc) {
		CHECK(err.code == rc);
		CHECK(strstr(err.message, msg) != NULL);
		CHECK_STR(err.path, where);
		CHECK(strcmp(err.file, path) == 0);
		CHECK(err.line > 0 && err.column > 0);
		CHECK(strchr(err.message, '\n') == NULL);
	}
	smp_schema_free(s);
	return failures ? 1 : 0;
}

/* A growable string for generated documents. */
typedef struct { char *p; size_t n, cap; } sbuf;

static void put(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (b->p && (size_t)n < b->cap - b->n)
			break;
		b->cap = b->cap * 2 + (size_t)n + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			exit(3);
	}
	b->n += (size_t)n;
}

static int load_str(smp_schema **s, sbuf *b, smp_error *err)
{
	int rc = smp_schema_load(s, b->p, b->n, "gen.json", err);

	if (rc)
		printf("%s (at %s)\n", err->message, err->path);
	free(b->p);
	memset(b, 0, sizeof(*b));
	return rc;
}

static int run_gen(const char *name)
{
	sbuf b = {0};
	smp_schema *s = NULL;
	smp_error err;
	const smp_stype *t = NULL;
	smp_field_info fi;
	int rc;

	if (strcmp(name, "deep") == 0) {
		/* Inline schemas nested far deeper than any real one. */
		put(&b, "{\"swagger\": \"2.0\", \"definitions\": {\"a\": ");
		for (int i = 0; i < 800; i++)
			put(&b, "{\"type\": \"array\", \"items\": ");
		put(&b, "{\"type\": \"string\"}");
		for (int i = 0; i < 800; i++)
			put(&b, "}");
		put(&b, "}}");
		rc = load_str(&s, &b, &err);
		CHECK(rc == SMP_ELIMIT);
		CHECK(strstr(err.message, "nested deeper") != NULL);
	} else if (strcmp(name, "chain") == 0) {
		/* 20000 definitions, each a $ref to the next: no recursion. */
		put(&b, "{\"swagger\": \"2.0\", \"definitions\": {");
		for (int i = 0; i < 20000; i++)
			put(&b, "\"a%d\": {\"$ref\": \"#/definitions/a%d\"}, ", i, i + 1);
		put(&b, "\"a20000\": {\"properties\": {\"x\": {\"type\": \"string\"}}}}}");
		rc = load_str(&s, &b, &err);
		CHECK(rc == 0);
		CHECK(s && smp_schema_definition(&t, s, "a0", &err) == 0);
		CHECK(t && t->kind == SMP_SKIND_OBJECT && t->nfields == 1);
		CHECK(t && strcmp(t->name, "a0") == 0);
	} else if (strcmp(name, "cycle") == 0) {
		/* A long $ref cycle is found, not followed for ever. */
		put(&b, "{\"swagger\": \"2.0\", \"definitions\": {");
		for (int i = 0; i < 5000; i++)
			put(&b, "%s\"a%d\": {\"$ref\": \"#/definitions/a%d\"}", i ? ", " : "", i,
			    (i + 1) % 5000);
		put(&b, "}}");
		rc = load_str(&s, &b, &err);
		CHECK(rc == SMP_ESCHEMA);
		CHECK(strstr(err.message, "cycle") != NULL);
		CHECK(err.line > 0);
	} else if (strcmp(name, "recursive") == 0) {
		/* Recursive types (like JSONSchemaProps) are cyclic graphs; lookups
		 * through them terminate, even through a list of itself. */
		put(&b, "{\"openapi\": \"3.0.0\", \"components\": {\"schemas\": {"
		        "\"P\": {\"type\": \"object\", \"properties\": {"
		        "  \"items\": {\"allOf\": [{\"$ref\": \"#/components/schemas/P\"}]},"
		        "  \"props\": {\"type\": \"object\", \"additionalProperties\":"
		        "     {\"$ref\": \"#/components/schemas/P\"}},"
		        "  \"all\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/components/schemas/P\"}}}},"
		        "\"L\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/components/schemas/L\"}}}}}");
		rc = load_str(&s, &b, &err);
		CHECK(rc == 0);
		CHECK(s && smp_schema_definition(&t, s, "P", &err) == 0);
		if (t) {
			CHECK(smp_stype_field(t, "items", 5)->type == t);
			CHECK(smp_schema_field(&fi, t, "items.props.x.all.items.all", &err) == 0);
			CHECK(fi.stype && fi.stype->elem == t);
		}
		CHECK(s && smp_schema_definition(&t, s, "L", &err) == 0);
		if (t) {
			CHECK(t->elem == t);
			CHECK(smp_schema_field(&fi, t, "x", &err) == SMP_ESCHEMA);
		}
	} else {
		fprintf(stderr, "unknown generated case %s\n", name);
		return 2;
	}
	smp_schema_free(s);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: schema_hostile_test CASE_DIR | gen:NAME\n");
		return 2;
	}
	if (strncmp(argv[1], "gen:", 4) == 0)
		return run_gen(argv[1] + 4);
	return run_file(argv[1]);
}
