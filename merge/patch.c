/*
 * patch.c - the public "Patches" API of smpatch.h over the engine in
 * smp_apply.c, smp_diff.c, jmp.c and jsonpatch.c: option handling, the
 * built-in schema lookup by apiVersion/kind, result documents.
 */
#include "merge/merge.h"
#include "schema/schema.h"

#include <stdio.h>
#include <string.h>

static const smp_patch_options default_opts = SMP_PATCH_OPTIONS_INIT;

/* The start of a call that returns a new document: `out` checked and
 * cleared, the result document made. `fn` names the call in the error. */
static int new_result(smp_doc **out, smp_doc **doc, const char *fn, smp_error *err)
{
	if (!out)
		return smp__err(err, SMP_EINVAL, "%s: out is NULL", fn);
	*out = NULL;
	*doc = smp_doc_alloc();
	if (!*doc)
		return smp__err(err, SMP_ENOMEM, "out of memory");
	return 0;
}

static int finish(smp_doc **out, smp_doc *doc, smp_value *root, int rc, smp_error *err)
{
	if (!rc && smp_doc_push_root(doc, root))
		rc = smp__err(err, SMP_ENOMEM, "out of memory");
	if (rc) {
		smp_doc_free(doc);
		return rc;
	}
	*out = doc;
	return 0;
}

static const char *str_or_null(const smp_value *v)
{
	return v && v->type == SMP_STRING ? v->u.s.ptr : NULL;
}

/* The schema type for a strategic patch: the caller's, or the built-in
 * kind named by the first of the documents that has apiVersion and kind.
 * Like kubectl, only kinds it has Go types for take strategic patches
 * (not CustomResourceDefinition or APIService, for instance). */
static int root_type(const smp_stype **out, const smp_patch_options *o, const smp_value *d1,
                     const smp_value *d2, const smp_value *d3, smp_error *err)
{
	const smp_value *docs[3] = {d1, d2, d3};

	if (o->stype) {
		*out = o->stype;
		return 0;
	}
	for (int i = 0; i < 3; i++) {
		const char *av = str_or_null(smp_map_get(docs[i], "apiVersion"));
		const char *kind = str_or_null(smp_map_get(docs[i], "kind"));
		const smp_gvk_entry *e;
		if (!av || !kind)
			continue;
		e = smp_schema_find_kind(smp_schema_builtin(), av, kind, true);
		if (!e)
			return smp__err(err, SMP_ESCHEMA,
			                "no strategic merge schema for %s %s in the built-in "
			                "Kubernetes tables", av, kind);
		if (!e->kubectl_scheme)
			return smp__err(err, SMP_ESCHEMA,
			                "strategic merge patch is not supported for %s, Kind=%s",
			                av, kind);
		*out = e->type;
		return 0;
	}
	return smp__err(err, SMP_ESCHEMA,
	                "a strategic merge patch needs a schema: the document has no "
	                "apiVersion and kind (give a schema, or use a JSON merge patch)");
}

/* What a call that returns a new document computes. */
typedef enum patch_op { APPLY, DIFF2, DIFF3 } patch_op;

/* The one body of smp_patch_apply (a the target, b the patch) and of the
 * diffs (a original, b modified, c current): the options read, the schema
 * type found, the engine of the patch type run, its result in a new
 * document. */
static int compute(smp_doc **out, patch_op op, const smp_value *a, const smp_value *b,
                   const smp_value *c, const smp_patch_options *opts, smp_error *err)
{
	static const char *const fn[] = {"smp_patch_apply", "smp_diff_two_way",
	                                  "smp_diff_three_way"};
	static const char no_diff[] = "a diff can produce a strategic or a JSON merge patch only";
	const smp_patch_options *o = opts ? opts : &default_opts;
	const smp_stype *t = NULL;
	smp_value *res = NULL;
	smp_doc *doc;
	int rc;

	if ((rc = new_result(out, &doc, fn[op], err)))
		return rc;
	if (op == APPLY && !b) { /* an empty file, say: not a schema or type error */
		smp_doc_free(doc);
		return smp__err(err, SMP_EPATCH, "empty document");
	}
	switch (o->type) {
	case SMP_PATCH_STRATEGIC:
		/* the kind: apply's target, else its patch; modified, else
		 * current (three-way) or original, else original */
		if (op == APPLY)
			rc = root_type(&t, o, a, b, NULL, err);
		else
			rc = root_type(&t, o, b, op == DIFF3 ? c : a, op == DIFF3 ? a : NULL, err);
		if (!rc && op == APPLY)
			rc = smp_sm_apply(&res, &doc->arena, a, b, t, err);
		else if (!rc && op == DIFF2)
			rc = smp_sm_diff2(&res, &doc->arena, a, b, t, err);
		else if (!rc)
			rc = smp_sm_diff3(&res, &doc->arena, a, b, c, t, o->overwrite, err);
		break;
	case SMP_PATCH_MERGE:
		/* json-patch v4 (kubectl, the API server) takes object patches
		 * only; smp_jmp_apply keeps RFC 7386's replacement for the rest.
		 * kubectl's three-way JSON merge patch checks conflicts between
		 * its own two halves only, whatever overwrite says. */
		if (op == APPLY && b->type != SMP_MAP)
			rc = smp__err(err, SMP_EPATCH,
			              "Invalid JSON Patch: a JSON merge patch must be an object");
		else if (op == APPLY)
			rc = smp_jmp_apply(&res, &doc->arena, a, b, err);
		else if (op == DIFF2)
			rc = smp_jmp_diff2(&res, &doc->arena, a, b, err);
		else
			rc = smp_jmp_diff3(&res, &doc->arena, a, b, c, err);
		break;
	case SMP_PATCH_JSON:
		if (op == APPLY)
			rc = smp_jsonpatch_apply(&res, &doc->arena, a, b, err);
		else
			rc = smp__err(err, SMP_EINVAL, "%s", no_diff);
		break;
	default:
		if (op == APPLY)
			rc = smp__err(err, SMP_EINVAL, "unknown patch type %d", (int)o->type);
		else
			rc = smp__err(err, SMP_EINVAL, "%s", no_diff);
	}
	return finish(out, doc, res, rc, err);
}

SMP_API int smp_patch_apply(smp_doc **out, const smp_value *target, const smp_value *patch,
                            const smp_patch_options *opts, smp_error *err)
{
	return compute(out, APPLY, target, patch, NULL, opts, err);
}

SMP_API int smp_patch_apply_doc(smp_doc **inout, const smp_value *patch,
                                const smp_patch_options *opts, smp_error *err)
{
	const smp_patch_options *o = opts ? opts : &default_opts;
	const smp_stype *t = NULL;
	smp_doc *doc, *res = NULL;
	smp_value *target, *out = NULL;
	int rc;

	if (!inout || !*inout)
		return smp__err(err, SMP_EINVAL, "smp_patch_apply_doc: no document");
	doc = *inout;
	if (doc->nroots != 1)
		return smp__err(err, SMP_EINVAL,
		                "smp_patch_apply_doc: the document set holds %zu documents, "
		                "not one", doc->nroots);
	if (!patch) /* left alone, as for the usage errors above */
		return smp__err(err, SMP_EPATCH, "empty document");
	target = doc->roots[0];
	if (o->type != SMP_PATCH_STRATEGIC) {
		/* Merge and JSON patches copy as they go: build a new document. */
		rc = smp_patch_apply(&res, target, patch, o, err);
		smp_doc_free(doc);
		*inout = res;
		return rc;
	}
	rc = root_type(&t, o, target, patch, NULL, err);
	if (!rc)
		rc = smp_sm_apply_inplace(&out, &doc->arena, target, patch, t, err);
	if (rc) {
		/* The target may be half-changed: nobody may see it. */
		smp_doc_free(doc);
		*inout = NULL;
		return rc;
	}
	doc->roots[0] = out;
	return 0;
}

SMP_API int smp_diff_two_way(smp_doc **out, const smp_value *original,
                             const smp_value *modified, const smp_patch_options *opts,
                             smp_error *err)
{
	return compute(out, DIFF2, original, modified, NULL, opts, err);
}

SMP_API int smp_diff_three_way(smp_doc **out, const smp_value *original,
                               const smp_value *modified, const smp_value *current,
                               const smp_patch_options *opts, smp_error *err)
{
	return compute(out, DIFF3, original, modified, current, opts, err);
}

SMP_API bool smp_patch_has_conflicts(const smp_value *a, const smp_value *b)
{
	return smp_has_conflicts(a, b);
}

SMP_API bool smp_patch_is_empty(const smp_value *patch)
{
	return patch && patch->type == SMP_MAP && patch->u.map.len == 0;
}
