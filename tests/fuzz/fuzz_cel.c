/*
 * fuzz_cel.c - target (i): CEL (cel/). The input's first line is an
 * expression, the rest a YAML/JSON document: `self` (and `oldSelf`, the
 * same document). Byte 0 picks whether the document is bound. The
 * quantity and format libraries of apply/ are there, as for CRD rules.
 * Properties: a compile error has a message; an evaluation ends within
 * its cost limit with a value of a known kind, an error with a message;
 * evaluating twice gives the same kind (the program is immutable).
 */
#include "fuzz.h"
#include "cel/cel.h"
#include "apply/check.h"

#include <string.h>

static cel_val run(const cel_program *p, cel_eval *e, const smp_value *doc)
{
	cel_var vars[2];
	size_t n = 0;

	if (doc) {
		vars[0].name = "self";
		vars[0].val = cel_from_json(e, doc, NULL, NULL);
		vars[1].name = "oldSelf";
		vars[1].val = vars[0].val;
		n = 2;
	}
	return cel_run(e, p, vars, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl;
	smp_doc *doc = NULL;
	cel_program *p = NULL;
	char msg[256];
	size_t tl;
	int rc;

	if (size < 1)
		return 0;
	bool bind = data[0] & 1;

	data++;
	size--;
	nl = memchr(data, '\n', size);
	tl = nl ? (size_t)(nl - data) : size;
	if (bind && nl) {
		smp_parse_options po = SMP_PARSE_OPTIONS_INIT;

		po.max_depth = 64;
		po.max_alias_nodes = 10000;
		if (smp_doc_parse(&doc, (const char *)nl + 1, size - tl - 1, &po, NULL) != 0)
			doc = NULL;
	}
	rc = cel_compile(&p, (const char *)data, tl, msg, sizeof(msg));
	FUZZ_CHECK(rc == 0 || rc == -1 || rc == -2);
	if (rc == -1)
		FUZZ_CHECK(msg[0] != '\0');
	if (rc == 0) {
		cel_eval e1, e2;
		const smp_value *self = doc ? smp_doc_root(doc, 0) : NULL;
		cel_val a, b;

		cel_eval_init(&e1, 100000);
		cel_eval_init(&e2, 100000);
		e1.ext = e2.ext = smp__cel_libs; /* quantity and format, as CRD rules */
		a = run(p, &e1, self);
		b = run(p, &e2, self);
		FUZZ_CHECK(a.kind <= CEL_OPAQUE);
		FUZZ_CHECK(a.kind == b.kind);
		if (a.kind == CEL_ERROR)
			FUZZ_CHECK(a.u.s.n > 0);
		FUZZ_CHECK(e1.cost <= 100000 + 64 || a.kind == CEL_ERROR);
		cel_eval_release(&e1);
		cel_eval_release(&e2);
		cel_program_free(p);
	}
	smp_doc_free(doc);
	return 0;
}
