/*
 * schema.h - schema types as the merge engine reads them (internal).
 *
 * One representation serves both the generated built-in tables (static const
 * data, see builtin_tables.c) and schemas loaded at run time (allocated in
 * the schema's arena). A type is reached only through resolved pointers:
 * $ref and single-element allOf wrappers are followed by the loader, so the
 * engine never sees a reference. Recursive types are cyclic pointer graphs.
 *
 * How OpenAPI maps to this (kube-openapi pkg/util/proto, document.go and
 * document_v3.go, as PatchMetaFromOpenAPI / PatchMetaFromOpenAPIV3 read it):
 *
 * - A property that is a $ref (v2) or a wrapper `allOf: [{$ref}]` (v3; only
 *   allOf[0] counts, as in PatchMetaFromOpenAPIV3) gets the referenced
 *   definition's type, and its x-kubernetes-patch-strategy / -merge-key come
 *   from the property itself (the siblings of $ref / allOf), never from the
 *   definition: they are on smp_sfield. `field->type->name != NULL` exactly
 *   when the property was such a reference. Other x-kubernetes-* siblings of
 *   a $ref (list-type, map-type, preserve-unknown-fields, ...) give a copy of
 *   the definition's type with those values changed (same name, same fields
 *   array).
 * - A definition that is itself only a $ref/allOf wrapper is a copy of its
 *   target (with its own name). $ref cycles that never reach a real type
 *   (a: {$ref: a}) and dangling $refs are SMP_ESCHEMA at load time.
 * - `properties` present (type "object" or no type): OBJECT; `properties: {}`
 *   is an OBJECT with nfields 0.
 * - `type: object` without properties: MAP (proto's Map). elem is the
 *   additionalProperties schema, or ANY when additionalProperties is absent or
 *   a boolean; in that last case SMP_SFLAG_NO_PROPERTIES is set too (e.g.
 *   RawExtension, FieldsV1). Upstream a struct lookup below a MAP fails
 *   ("expected kind, but got map" in v2, "unable to find api field" in v3).
 * - No type and no properties (and no $ref): ANY (proto's Arbitrary), whatever
 *   else the node holds: mergeItem.jsonItem, and retainKeysMergeItem.simpleMap
 *   whose malformed `"additionalProperties": "object"` is ignored as upstream
 *   ignores it. In v2 lookups below Arbitrary succeed with no metadata; in v3
 *   (PatchMetaFromOpenAPIV3) a struct lookup below a schema without
 *   properties fails. Types read from a v3 document or a CRD carry
 *   SMP_SFLAG_OPENAPI_V3 so the engine can tell (smp-unknown-field/0015);
 *   smp_stype_any (used for v2 and the built-in tables) has no flags.
 * - `type: array`: LIST, elem from `items` (a schema or a one-element list);
 *   no items gives elem ANY. string/integer/number/boolean: PRIMITIVE with
 *   type_name and format. `x-kubernetes-int-or-string` or format
 *   "int-or-string" sets SMP_SFLAG_INT_OR_STRING (a PRIMITIVE "string" with
 *   format "int-or-string"); the definition
 *   io.k8s.apimachinery.pkg.api.resource.Quantity gets format "quantity".
 * - A property whose type is a named OBJECT but whose data is a list
 *   (mergeItemPtr in the conformance schemas): upstream's slice lookup on a
 *   reference returns the referenced type itself as the element type, with
 *   the property's strategy and merge key. The engine reproduces that by
 *   using field->type as the element type when field->type->name != NULL.
 * - CRDs: each served version's openAPIV3Schema is one definition named
 *   "<reversed group>.<version>.<Kind>" (as the API server names them), with
 *   apiVersion, kind and metadata (the built-in ObjectMeta) added to the root
 *   and to x-kubernetes-embedded-resource objects when they lack them. A
 *   root or embedded object without properties that preserves unknown fields
 *   becomes an OBJECT with just those three fields and
 *   SMP_SFLAG_PRESERVE_UNKNOWN: an OBJECT with that flag allows fields it
 *   does not list (smp_schema_field answers ANY for them).
 * - CRDs and v3 documents: `nullable: true` sets SMP_SFLAG_NULLABLE, an
 *   `additionalProperties` boolean sets SMP_SFLAG_AP_BOOL on its MAP, and a
 *   node's non-null `default` (not one beside a $ref) is copied into the
 *   schema's side table (smp_schema.defaults, smp_stype_default). The
 *   stored form of custom resources reads them (apply/stored_crd.c).
 * - Lists may contain themselves (items: {$ref: self}): never step through
 *   elem without a bound.
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
	SMP_SFLAG_NO_PROPERTIES = 1u << 3,    /* declared no properties at all: a MAP from
	                                         a bare `type: object` (elem ANY) */
	SMP_SFLAG_OPENAPI_V3 = 1u << 4,       /* read from an OpenAPI v3 document or a CRD */
	/* The next two are read from CRDs and v3 documents only (never set in
	 * the built-in tables), for the stored form of custom resources. */
	SMP_SFLAG_NULLABLE = 1u << 5,         /* nullable: true */
	SMP_SFLAG_AP_BOOL = 1u << 6           /* a MAP whose additionalProperties was a
	                                         boolean (not absent): its keys are kept */
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
	/* The resource name (plural, "deployments") from the document's plain
	 * paths (/apis/GROUP/VERSION[/namespaces/{namespace}]/PLURAL[/{name}]) or
	 * a CRD's spec.names.plural; NULL when unknown. */
	const char *resource;
	/* Built-in tables only: the kind is in kubectl's scheme (client-go's
	 * k8s.io/api types), so kubectl apply sends it strategic merge patches
	 * (patcher.go: scheme.Scheme.New succeeds). false in loaded schemas. */
	bool kubectl_scheme;
	/* A CRD's kinds: the name of its storage version (storage: true, when
	 * that version is served too); NULL elsewhere. */
	const char *storage_version;
	/* A CRD's kinds: the version has the status subresource (its main
	 * resource's writes leave the status alone). */
	bool status_subresource;
	/* A CRD's kinds: the version's schema validates its objects (the side
	 * table smp_schema.valids), and has x-kubernetes-validations rules
	 * somewhere (the server then runs its CEL validator). */
	bool crd_schema, cel_rules;
	/* A CRD's kinds with the scale subresource: its specReplicasPath and
	 * statusReplicasPath (".spec.replicas"); NULL elsewhere. */
	const char *scale_spec, *scale_status;
} smp_gvk_entry;

/* The `default` of one schema node of a CRD or an OpenAPI v3 document (a
 * node that is not a $ref). Sorted by the type's address. */
typedef struct smp_sdefault {
	const smp_stype *type;
	const smp_value *value;  /* in the schema's arena; never null */
} smp_sdefault;

typedef struct smp_regex smp_regex; /* regex/regex.h */
typedef struct cel_program cel_program; /* cel/cel.h */

/* One x-kubernetes-validations rule of a CRD node, compiled once when the
 * CRD is loaded: the programs are immutable, and threads share them. */
typedef struct smp_srule {
	const cel_program *rule;   /* NULL when it does not compile (the server
	                              refuses such a CRD) */
	const cel_program *message_expression; /* or NULL */
	const char *text;          /* the rule as written */
	const char *message;       /* or NULL */
	const char *reason;        /* "FieldValueForbidden", ...; or NULL */
	const char *field_path;    /* or NULL */
	bool optional_old_self;
	bool uses_old_self;        /* a transition rule */
	bool bad;                  /* a messageExpression that does not compile */
} smp_srule;

/* smp_svalid.has */
enum {
	SMP_SV_MAX_LENGTH = 1u << 0, SMP_SV_MIN_LENGTH = 1u << 1,
	SMP_SV_MAX_ITEMS = 1u << 2, SMP_SV_MIN_ITEMS = 1u << 3,
	SMP_SV_MAX_PROPS = 1u << 4, SMP_SV_MIN_PROPS = 1u << 5,
	SMP_SV_EXCL_MAX = 1u << 6, SMP_SV_EXCL_MIN = 1u << 7,
	SMP_SV_UNIQUE = 1u << 8,
	/* allOf, oneOf, anyOf or not, other than the anyOf of an
	 * int-or-string's two types (which any int or string satisfies) */
	SMP_SV_COMPOSITION = 1u << 9,
	/* a pattern RE2 refuses (the server refuses such a CRD) */
	SMP_SV_BAD_PATTERN = 1u << 10
};

/* The value validations of one node of a CRD's schema (the keywords
 * kube-openapi's validate package checks, apiextensions' conversion of
 * them to a spec.Schema), for the validation of custom resources
 * (apply/check_crd.c). Only CRDs' nodes that have one get an entry;
 * sorted by the type's address. Numbers and lists are copies in the
 * schema's arena. */
typedef struct smp_svalid {
	const smp_stype *type;
	uint32_t has;                      /* SMP_SV_* */
	int64_t max_length, min_length, max_items, min_items, max_props, min_props;
	const smp_value *maximum, *minimum, *multiple_of; /* numbers, or NULL */
	const smp_value *enums;            /* a list, or NULL */
	const smp_value *required;         /* a list of strings, or NULL */
	const char *pattern;               /* NUL-free, or NULL */
	const smp_regex *re;               /* pattern compiled (NULL: none or refused) */
	/* a supported format (StripUnsupportedFormatsPostProcess keeps only
	 * those), "-"s removed; NULL when none */
	const char *format;
	const smp_value *rules;            /* x-kubernetes-validations, or NULL */
	const smp_srule *crules;           /* the rules compiled */
	uint32_t ncrules;
} smp_svalid;

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
	/* Loaded schemas only: the defaults of their nodes (a side table, so
	 * that smp_stype and the built-in tables stay as they are). */
	const smp_sdefault *defaults;
	size_t ndefaults;
	/* CRDs only: the value validations of their nodes (a side table; the
	 * schema owns their compiled patterns) */
	const smp_svalid *valids;
	size_t nvalids;
	/* Run-time schemas own their memory here; the built-in one has none. */
	smp_arena arena;
	bool owned;
};

/* The shared type for "anything": ANY, no fields, no metadata. */
extern const smp_stype smp_stype_any;

/* The type of the apiVersion and kind fields the loader adds to a CRD's
 * root and embedded resources when their schema does not declare them, so
 * that a reader can tell them from declared ones. */
extern const smp_stype smp_stype_implicit_string;

/* The `default` a loaded schema gives the node of type `t`; NULL when
 * none (always for the built-in tables). Binary search. */
const smp_value *smp_stype_default(const smp_schema *s, const smp_stype *t);

/* The value validations a CRD gives the node of type `t`; NULL when none
 * (always for the built-in tables). Binary search. */
const smp_svalid *smp_stype_valid(const smp_schema *s, const smp_stype *t);

/* The generated built-in tables (builtin_tables.c); smp_schema_builtin()
 * returns its address. */
extern const smp_schema smp_builtin_schema;

/* Strategy bits of an x-kubernetes-patch-strategy value ("merge",
 * "merge,retainKeys", ...): 0 and *ok false on an unknown token. */
unsigned smp_strategy_parse(const char *s, size_t len, bool *ok);

/* Field lookup on an OBJECT: binary search; NULL when the type has no such
 * property (or is not an OBJECT). */
const smp_sfield *smp_stype_field(const smp_stype *t, const char *name, size_t len);

/* A field of a built-in struct type that the API server writes even when
 * an object does not set it (Go's encoding/json: a struct is never omitted,
 * a field without omitempty is written as its zero value): `zero` is the
 * JSON written, "{}" for a struct (whose own fields follow its type's
 * entries), "null", "0", "false", "\"\"", "\"0\"" (a Quantity)... */
typedef struct smp_go_zero {
	const char *type;  /* OpenAPI name: io.k8s.api.apps.v1.DeploymentSpec */
	const char *field; /* JSON name */
	const char *zero;
} smp_go_zero;

/* The entries of `type` (sorted by field; *n of them), NULL when none
 * (gozero.c, generated by tests/schema/gotypes from the Go types). */
const smp_go_zero *smp_go_zero_fields(const char *type, size_t *n);

/* The zero value of a kind of struct type t as the API server writes it
 * (an empty object of the Go type: {"metadata": {}, "spec": {...},
 * "status": {}} with the fields smp_go_zero_fields lists, recursively, the
 * root's metadata empty), with apiVersion and kind when given (copied);
 * for a type without entries (a custom resource) just those. Allocated in
 * a; NULL on ENOMEM. What a create is compared with, and what the existing
 * fields of an untracked object are recorded against before its first
 * apply. */
smp_value *smp_go_zero_object(smp_arena *a, const smp_stype *t, const smp_value *api_version,
                              const smp_value *kind);

/* Splits "apps/v1" into group "apps" and version "v1" ("v1" -> "", "v1"). */
void smp_split_api_version(const char *api_version, const char **group,
                           size_t *glen, const char **version, size_t *vlen);

/* Compares the `len` bytes of `a` with the string `b` as strcmp would
 * compare a NUL-terminated copy of `a` (the order of field and kind
 * names in the tables). */
int smp_name_cmp(const char *a, size_t len, const char *b);

/* The kind `resource` names in `group`, as kubectl's RESTMapper.KindFor
 * reads a resource without a version: the plural resource name
 * ("secrets") or the kind in lower case ("secret"), any case; of several
 * versions the one discovery prefers (smp_version_priority). NULL when
 * none. */
const smp_gvk_entry *smp_schema_find_resource(const smp_schema *s, const char *group,
                                              const char *resource);

/* Kubernetes' version priority (apimachinery's CompareKubeAwareVersionStrings):
 * > 0 when version a comes before b (v2 > v1 > v1beta2 > v1beta1 >
 * v1alpha1 > anything else, the rest in reverse text order), < 0 after, 0
 * equal. */
int smp_version_priority(const char *a, const char *b);

/* Finds a kind entry by group (not version) and kind, preferring the exact
 * version; NULL when none. */
const smp_gvk_entry *smp_schema_find_kind(const smp_schema *s, const char *api_version,
                                          const char *kind, bool exact_version);

/* The scope of a kind removed from Kubernetes before the built-in tables'
 * version (scopes.c): 1 namespaced, 0 cluster-scoped, -1 not such a kind.
 * `group` need not be NUL-terminated. */
int smp_removed_kind_scope(const char *group, size_t glen, const char *kind);

/* The group, version and resource of a plain collection or object path of
 * an OpenAPI document (/api/v1/pods,
 * /apis/apps/v1/namespaces/{namespace}/deployments/{name}), as pointers
 * into `path` and lengths; false for watch, subresource, proxy and other
 * paths (schema/paths.c). */
typedef struct smp_path_res {
	const char *g, *v, *r;
	size_t gl, vl, rl;
} smp_path_res;
bool smp_path_resource(const char *path, size_t len, smp_path_res *pr);

#endif
