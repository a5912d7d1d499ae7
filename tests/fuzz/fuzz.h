/*
 * fuzz.h - what the fuzz targets share: the libFuzzer entry point's
 * prototype, a check that aborts with a message (a finding), the split
 * of one input into a selector byte and a stream of documents, and the
 * properties both patch targets check (fuzz_patch, fuzz_jsonpatch).
 *
 * Every target is built twice (tests/fuzz/CMakeLists.txt): as a replay
 * program (replay.c supplies main(), ctest runs it over the committed
 * corpus under ASan+UBSan) and, with -DSMP_FUZZ=ON and clang, as a
 * libFuzzer binary (`make fuzz`).
 */
#ifndef SMP_TESTS_FUZZ_H
#define SMP_TESTS_FUZZ_H

#include "smpatch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken property is a finding: say which, then abort (libFuzzer keeps
 * the input as a crash-* reproducer; the replay program stops there). */
#define FUZZ_CHECK(cond)                                                            \
	do {                                                                        \
		if (!(cond)) {                                                      \
			fprintf(stderr, "%s:%d: property broken: %s\n", __FILE__,   \
			        __LINE__, #cond);                                   \
			abort();                                                    \
		}                                                                   \
	} while (0)

/* Every failure carries a message and one of the documented codes. */
static inline void fuzz_check_error(int rc, const smp_error *err)
{
	FUZZ_CHECK(rc < 0 && rc > SMP_EINTERNAL); /* EINTERNAL is a bug */
	FUZZ_CHECK(err->code == rc);
	FUZZ_CHECK(err->message[0] != '\0');
}

/* Input layout of the targets that take documents: byte 0 chooses the
 * variant (schema, patch type, ...), the rest is a YAML/JSON stream whose
 * documents are the operands. Returns the parsed stream or NULL (the input
 * is then not interesting: a parse failure is the codec target's job). */
static inline smp_doc *fuzz_docs(const uint8_t *data, size_t size, uint8_t *sel)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc = NULL;
	smp_error err;

	if (size < 1)
		return NULL;
	*sel = data[0];
	/* Small limits keep each execution fast; the limits themselves are
	 * the codec target's and the unit tests' business. */
	po.max_depth = 64;
	po.max_alias_nodes = 10000;
	if (smp_doc_parse(&doc, (const char *)data + 1, size - 1, &po, &err) != 0)
		return NULL;
	return doc;
}

/* The i-th document, or NULL past the end (NULL is {} to the engine). */
static inline const smp_value *fuzz_root(const smp_doc *doc, size_t i)
{
	return i < smp_doc_count(doc) ? smp_doc_root(doc, i) : NULL;
}

/* fuzz_docs for the targets that take two operands: *a and *b are
 * documents 0 and 1 of the stream. NULL (nothing to do) where there is no
 * document 1. */
static inline smp_doc *fuzz_pair(const uint8_t *data, size_t size, uint8_t *sel,
                                 const smp_value **a, const smp_value **b)
{
	smp_doc *doc = fuzz_docs(data, size, sel);

	if (!doc)
		return NULL;
	*a = fuzz_root(doc, 0);
	*b = fuzz_root(doc, 1);
	if (!*b) {
		smp_doc_free(doc);
		return NULL;
	}
	return doc;
}

/* Applies patch to target both ways, smp_patch_apply into *out and
 * smp_patch_apply_doc on a copy of target into *copy, and checks that they
 * agree: a failure of both with a documented code and the same message, or
 * a success of both with one root each, equal, that prints. Returns the
 * code; the caller frees *out and *copy (NULL before the call). */
static inline int fuzz_patch_both(smp_doc **out, smp_doc **copy, const smp_value *target,
                                  const smp_value *patch, const smp_patch_options *o)
{
	const smp_value *root;
	smp_error e1, e2;
	int rc1, rc2;

	rc1 = smp_patch_apply(out, target, patch, o, &e1);
	if (rc1)
		fuzz_check_error(rc1, &e1);

	FUZZ_CHECK(smp_doc_new(copy, &e2) == 0);
	FUZZ_CHECK(smp_doc_add_copy(&root, *copy, target, &e2) == 0);
	rc2 = smp_patch_apply_doc(copy, patch, o, &e2);
	if (rc2)
		fuzz_check_error(rc2, &e2);
	FUZZ_CHECK(rc1 == rc2);
	if (rc1 == 0) {
		smp_print_options po = SMP_PRINT_OPTIONS_INIT;
		char *s;
		size_t n;

		FUZZ_CHECK(smp_doc_count(*out) == 1 && smp_doc_count(*copy) == 1);
		FUZZ_CHECK(smp_value_equal(smp_doc_root(*out, 0), smp_doc_root(*copy, 0)));
		FUZZ_CHECK(smp_print(&s, &n, smp_doc_root(*out, 0), &po, &e1) == 0);
		smp_free(s);
	} else {
		FUZZ_CHECK(strcmp(e1.message, e2.message) == 0);
	}
	return rc1;
}

/* The run of a patch target: documents 0 and 1 of the input are the
 * target and the patch, applied both ways (fuzz_patch_both) with the
 * options `setup` sets from the selector byte; on a success `then`, unless
 * NULL, checks more of the result r. Returns 0, libFuzzer's answer. */
static inline int fuzz_patch_run(const uint8_t *data, size_t size,
                                 void (*setup)(smp_patch_options *o, uint8_t sel),
                                 void (*then)(const smp_value *target, const smp_value *patch,
                                              const smp_value *r, const smp_patch_options *o))
{
	smp_patch_options o = SMP_PATCH_OPTIONS_INIT;
	smp_doc *in, *out = NULL, *copy = NULL;
	const smp_value *target, *patch;
	uint8_t sel;

	if (!(in = fuzz_pair(data, size, &sel, &target, &patch)))
		return 0;
	setup(&o, sel);
	if (fuzz_patch_both(&out, &copy, target, patch, &o) == 0 && then)
		then(target, patch, smp_doc_root(out, 0), &o);
	smp_doc_free(out);
	smp_doc_free(copy);
	smp_doc_free(in);
	return 0;
}

/* The value of key k (klen bytes: keys may hold NUL) in map m, or NULL. */
static inline const smp_value *fuzz_find(const smp_value *m, const char *k, size_t klen)
{
	for (size_t i = 0; i < smp_value_len(m); i++) {
		size_t l;
		const char *mk = smp_map_key(m, i, &l);
		if (l == klen && memcmp(mk, k, l) == 0)
			return smp_map_value(m, i);
	}
	return NULL;
}

#endif
