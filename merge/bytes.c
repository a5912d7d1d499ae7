/*
 * bytes.c - the reference's byte-level entry points (JSON in, Go's
 * canonical JSON out: compact, sorted keys, <>& escaped), for the
 * conformance suite and for callers that hold JSON text.
 *
 * Nil and empty inputs follow the reference: the diff functions read a nil
 * or empty input as {}; apply reads nil as {} but empty text is not JSON.
 */
#include "merge/merge_bytes.h"

#include <stdlib.h>
#include <string.h>

static int parse_json(smp_doc **doc, const smp_value **v, const char *buf, size_t len,
                      bool empty_is_nil, smp_error *err)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_error perr;
	int rc;

	*doc = NULL;
	*v = NULL;
	if (!buf || (empty_is_nil && len == 0))
		return 0;
	po.format = SMP_FORMAT_JSON;
	rc = smp_doc_parse(doc, buf, len, &po, &perr);
	if (rc || smp_doc_count(*doc) != 1) {
		smp_doc_free(*doc);
		*doc = NULL;
		if (rc == SMP_ENOMEM)
			return smp__err(err, SMP_ENOMEM, "out of memory");
		return smp__err(err, SMP_EPARSE, "invalid JSON document");
	}
	*v = smp_doc_root(*doc, 0);
	return 0;
}

/* Go decodes into map[string]interface{}: anything but an object or null
 * is an error there. */
static int want_map(const smp_value *v, smp_error *err)
{
	if (v && v->type != SMP_MAP && v->type != SMP_NULL)
		return smp__err(err, SMP_EPARSE, "invalid JSON document");
	return 0;
}

int smp_go_json(char **out, size_t *len, const smp_value *v, smp_error *err)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;

	po.output = SMP_OUT_JSON;
	po.sort_keys = true;
	po.go_escape = true;
	return smp_print(out, len, v, &po, err);
}

int smp_bytes_op(char **out, size_t *len, smp_bytes_kind kind, const char *b1, size_t n1,
                 const char *b2, size_t n2, const char *b3, size_t n3,
                 const smp_stype *root, bool overwrite, smp_error *err)
{
	smp_doc *d1 = NULL, *d2 = NULL, *d3 = NULL;
	const smp_value *v1, *v2, *v3;
	smp_arena a;
	smp_value *res = NULL;
	bool nil_ok = kind != SMP_BYTES_SM_APPLY && kind != SMP_BYTES_JMP_APPLY;
	int rc;

	*out = NULL;
	smp_arena_init(&a);
	if ((rc = parse_json(&d1, &v1, b1, n1, nil_ok, err)) ||
	    (rc = parse_json(&d2, &v2, b2, n2, nil_ok, err)) ||
	    (rc = parse_json(&d3, &v3, b3, n3, nil_ok, err)))
		goto out;
	if (kind != SMP_BYTES_JMP_APPLY &&
	    ((rc = want_map(v1, err)) || (rc = want_map(v2, err)) || (rc = want_map(v3, err))))
		goto out;
	switch (kind) {
	case SMP_BYTES_SM_APPLY:
		/* d1 is ours and thrown away: patch it in place (this also runs
		 * the conformance cases through the path `smpatch patch` takes). */
		if (d1 && d1->nroots == 1)
			rc = smp_sm_apply_inplace(&res, &d1->arena, d1->roots[0], v2, root, err);
		else
			rc = smp_sm_apply(&res, &a, v1, v2, root, err);
		break;
	case SMP_BYTES_SM_DIFF2:
		rc = smp_sm_diff2(&res, &a, v1, v2, root, err);
		break;
	case SMP_BYTES_SM_DIFF3:
		rc = smp_sm_diff3(&res, &a, v1, v2, v3, root, overwrite, err);
		break;
	case SMP_BYTES_JMP_APPLY:
		rc = smp_jmp_apply(&res, &a, v1, v2, err);
		break;
	case SMP_BYTES_JMP_DIFF3:
		rc = smp_jmp_diff3(&res, &a, v1, v2, v3, err);
		break;
	default:
		rc = smp__err(err, SMP_EINVAL, "unknown operation");
	}
	if (!rc)
		rc = smp_go_json(out, len, res, err);
out:
	smp_arena_release(&a);
	smp_doc_free(d1);
	smp_doc_free(d2);
	smp_doc_free(d3);
	return rc;
}
