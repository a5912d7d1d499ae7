/*
 * depth.h - how deep each recursive walk of the library may go, in one
 * place. Every walk that recurses on the C stack stops at its limit with
 * SMP_ELIMIT (or, where the reference itself gives up, with the reference's
 * answer), so no document can overflow the stack. Parsed documents are at
 * most SMP_DEFAULT_MAX_DEPTH (smpatch.h) deep unless the caller raises
 * opts->max_depth; the walks below leave room above that for the wrappers
 * a patch adds.
 */
#ifndef SMP_CODEC_DEPTH_H
#define SMP_CODEC_DEPTH_H

/* Printing YAML (smp_print documents this limit). */
#define SMP_DEPTH_YAML_PRINT 10000

/* Inline schemas nested in one OpenAPI/CRD schema (schema/load.c). */
#define SMP_DEPTH_SCHEMA_LOAD 512

/* Strategic merge: apply, two-way and three-way diff (merge/smp_*.c), and
 * the block-allocating tree copy made for them (merge/tree.c), which falls
 * back to plain recursion below this depth. */
#define SMP_DEPTH_MERGE 4096

/* JSON merge patch: apply, diffs, conflict check (merge/jmp.c). */
#define SMP_DEPTH_JSON_MERGE 4096

/* The stored form of custom resources (apply/stored_crd.c): pruning,
 * coercion and defaulting walk the object with its CRD schema; defaults
 * can make it deeper than it was parsed. */
#define SMP_DEPTH_STORED_CRD 4096

/* Go's %v text of a value (merge/gofmt.c) prints "..." below this depth:
 * only sort keys and messages use it, and they never need more. */
#define SMP_DEPTH_GO_FORMAT 64

#endif
