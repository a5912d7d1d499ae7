/*
 * schema.h - schema types as the merge engine reads them (internal).
 *
 * One representation serves both the generated built-in tables (static const
 * data, see builtin_tables.c) and schemas loaded at run time (allocated in
 * the schema's arena). A type is reached only through resolved pointers:
 * $ref and single-element allOf wrappers are followed by the loader, so the
 * engine never sees a reference. Recursive types are cyclic pointer graphs.
 */
#ifndef SMP_SCHEMA_H
#define SMP_SCHEMA_H

#include "smpatch.h"
#include "codec/value.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct smp_sfield smp_sfield;

/* One property of an OBJECT type, with the patch metadata written on the
 * property itself (x-kubernetes-patch-strategy / -merge-key sit beside the
 * property's $ref or type, as in the Kubernetes OpenAPI documents). */
struct smp_sfield {
	const char *name;
	const smp_stype *type;   /* never NULL: ANY when the property has no type */
	uint8_t strategy;        /* SMP_STRATEGY_* bits */
	const char *merge_key;   /* NULL when none */
};

/* smp_stype.flags */
enum {
	SMP_SFLAG_PRESERVE_UNKNOWN = 1u << 0, /* x-kubernetes-preserve-unknown-fields */
	SMP_SFLAG_INT_OR_STRING = 1u << 1,    /* x-kubernetes-int-or-string / format */
	SMP_SFLAG_EMBEDDED = 1u << 2,         /* x-kubernetes-embedded-resource */
	SMP_SFLAG_NO_PROPERTIES = 1u << 3     /* OBJECT that declared no properties at all */
};

struct smp_stype {
	uint8_t kind;            /* smp_skind */
	uint8_t flags;           /* SMP_SFLAG_* */
	const char *name;        /* definition name, NULL for an inline type */
	const char *type_name;   /* "object", "array", "string", "integer", "number",
	                            "boolean", or NULL */
	const char *format;      /* "int-or-string", "date-time", "quantity", ... */
	const smp_sfield *fields;/* OBJECT: sorted by strcmp(name) for bsearch */
	uint32_t nfields;
	const smp_stype *elem;   /* LIST: item type; MAP: value type (never NULL there) */
	const char *list_type;   /* x-kubernetes-list-type */
	const char *const *list_map_keys; /* NULL-terminated, or NULL */
	const char *map_type;    /* x-kubernetes-map-type */
};

/* A kind reachable by group/version/kind. Sorted by (group, version, kind). */
typedef struct smp_gvk_entry {
	const char *group;       /* "" for the core group */
	const char *version;
	const char *kind;
	const smp_stype *type;
	int8_t namespaced;       /* 1 namespaced, 0 cluster-scoped, -1 unknown */
} smp_gvk_entry;

/* A named definition. Sorted by strcmp(name). */
typedef struct smp_def_entry {
	const char *name;
	const smp_stype *type;
} smp_def_entry;

struct smp_schema {
	const smp_gvk_entry *kinds;
	size_t nkinds;
	const smp_def_entry *defs;
	size_t ndefs;
	/* Run-time schemas own their memory here; the built-in one has none. */
	smp_arena arena;
	bool owned;
};

/* The shared type for "anything": ANY, no fields, no metadata. */
extern const smp_stype smp_stype_any;

/* Field lookup on an OBJECT: binary search; NULL when the type has no such
 * property (or is not an OBJECT). */
const smp_sfield *smp_stype_field(const smp_stype *t, const char *name, size_t len);

/* Splits "apps/v1" into group "apps" and version "v1" ("v1" -> "", "v1"). */
void smp_split_api_version(const char *api_version, const char **group,
                           size_t *glen, const char **version, size_t *vlen);

/* Finds a kind entry by group (not version) and kind, preferring the exact
 * version; NULL when none. */
const smp_gvk_entry *smp_schema_find_kind(const smp_schema *s, const char *api_version,
                                          const char *kind, bool exact_version);

#endif
