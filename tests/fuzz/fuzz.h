/*
 * fuzz.h - what the fuzz targets share: the libFuzzer entry point's
 * prototype, a check that aborts with a message (a finding), and the split
 * of one input into a selector byte and a stream of documents.
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
