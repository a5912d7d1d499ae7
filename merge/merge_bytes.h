/*
 * merge_bytes.h - the engine on JSON text, as the reference's functions
 * take and return []byte (internal; the conformance suite uses it).
 */
#ifndef SMP_MERGE_BYTES_H
#define SMP_MERGE_BYTES_H

#include "merge/merge.h"

typedef enum smp_bytes_kind {
	SMP_BYTES_SM_APPLY,  /* StrategicMergePatchUsingLookupPatchMeta(b1, b2) */
	SMP_BYTES_SM_DIFF2,  /* CreateTwoWayMergePatchUsingLookupPatchMeta(b1, b2) */
	SMP_BYTES_SM_DIFF3,  /* CreateThreeWayMergePatch(b1, b2, b3, overwrite) */
	SMP_BYTES_JMP_APPLY, /* json-patch v4 MergePatch(b1, b2) */
	SMP_BYTES_JMP_DIFF3  /* CreateThreeWayJSONMergePatch(b1, b2, b3) */
} smp_bytes_kind;

/* Runs one operation; a NULL buffer is Go's nil. On success *out is
 * malloc'ed Go-canonical JSON (free with smp_free). Unparsable input is
 * SMP_EPARSE "invalid JSON document". */
int smp_bytes_op(char **out, size_t *len, smp_bytes_kind kind, const char *b1, size_t n1,
                 const char *b2, size_t n2, const char *b3, size_t n3,
                 const smp_stype *root, bool overwrite, smp_error *err);

/* v as Go's json.Marshal writes it. */
int smp_go_json(char **out, size_t *len, const smp_value *v, smp_error *err);

#endif
