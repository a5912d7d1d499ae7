/*
 * smpatch.h - strategic merge patch, JSON merge patch, JSON Patch and the
 * kubectl-apply workflow, as a C11 library.
 *
 * Conventions (they hold for every declaration below unless it says otherwise):
 *
 * - Functions that act return int: 0 (SMP_OK) on success or a negative
 *   SMP_E... code. Predicates return bool.
 * - Out-parameters come first. On failure an out-parameter is left NULL/0.
 * - The last parameter `err` may be NULL. When it is not, a failing call fills
 *   it with the code, a one-line message and, where known, the file, line,
 *   column and document path (e.g. `spec.containers[name=nginx].image`).
 *   smp_error is caller-owned storage: the library allocates nothing for it.
 * - Objects returned through `smp_x **out` are owned by the caller and freed
 *   with exactly one matching smp_x_free(); every _free accepts NULL.
 * - Values (`const smp_value *`) are owned by the smp_doc they came from and
 *   stay valid until that document is freed. They are read-only.
 * - Options structs are initialised with their ..._OPTIONS_INIT macro; passing
 *   NULL for an options pointer means the defaults.
 * - Thread-safety: there is no mutable global state. Distinct objects may be
 *   used from different threads at once; a document or schema that is only
 *   read (every const parameter below) may be shared between threads. The
 *   built-in schema is static read-only data.
 * - Allocation failure is reported as SMP_ENOMEM; the library never aborts.
 */
#ifndef SMPATCH_H
#define SMPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the exported functions; everything else in the library is hidden. */
#if defined(SMP_BUILDING_LIBRARY) && defined(__GNUC__)
#define SMP_API __attribute__((visibility("default")))
#else
#define SMP_API
#endif

#define SMP_VERSION_MAJOR 1
#define SMP_VERSION_MINOR 0
#define SMP_VERSION_PATCH 0
#define SMP_VERSION_STRING "1.0.0"

/* Library version string, e.g. "0.1.0". Static storage; never NULL. */
SMP_API const char *smp_version(void);

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

enum {
	SMP_OK = 0,
	SMP_EINVAL = -1,     /* bad argument or usage */
	SMP_EPARSE = -2,     /* input is not valid YAML/JSON */
	SMP_EPATCH = -3,     /* invalid patch (bad directive, missing merge key, ...) */
	SMP_ESCHEMA = -4,    /* unknown kind or field, malformed schema document */
	SMP_ECONFLICT = -5,  /* three-way patch conflicts with the live object */
	SMP_EPRECOND = -6,   /* failed precondition (apiVersion/kind/name changed) */
	SMP_ENOMEM = -7,     /* allocation failed */
	SMP_ELIMIT = -8,     /* a documented size, depth or expansion limit was hit */
	SMP_EIO = -9,        /* reading or writing a file failed */
	SMP_EINVALOBJ = -10, /* object fails validation (labels, annotations size) */
	SMP_EINTERNAL = -11  /* a bug: please report it */
};

#define SMP_ERROR_MESSAGE_MAX 1024
#define SMP_ERROR_FILE_MAX 512
#define SMP_ERROR_PATH_MAX 512

/* Where and why a call failed. Caller-owned; fixed size, no allocation. */
typedef struct smp_error {
	int code;                           /* the SMP_E... code returned */
	char message[SMP_ERROR_MESSAGE_MAX]; /* one line, no trailing newline */
	char file[SMP_ERROR_FILE_MAX];      /* input name, "" when unknown */
	unsigned line;                      /* 1-based, 0 when unknown */
	unsigned column;                    /* 1-based, 0 when unknown */
	char path[SMP_ERROR_PATH_MAX];      /* document path, "" when none */
} smp_error;

/* Static description of an SMP_E... code ("invalid patch", ...). Never NULL. */
SMP_API const char *smp_strerror(int code);

/* Formats `err` as one line: "file:line:col: message" (parts that are
 * unknown are left out; the path is appended as " (at PATH)" when set and
 * not already in the message). Writes at most `size` bytes including the
 * NUL; returns the length it wanted, like snprintf. `err` must not be
 * NULL; `buf` may be NULL when `size` is 0. */
SMP_API size_t smp_error_format(char *buf, size_t size, const smp_error *err);

/* Puts `prefix` in front of err->message ("web.yaml: " to say where an
 * error came from), the message's end cut when the whole would not fit
 * (err->message stays NUL-terminated); a prefix that alone fills the
 * message leaves it as it was. NULL `err` or `prefix`: nothing. */
SMP_API void smp_error_prefix(smp_error *err, const char *prefix);

/* Frees memory the library returned as a plain buffer (smp_print and
 * smp_last_applied_encode output). NULL is fine. */
SMP_API void smp_free(void *ptr);

/* ------------------------------------------------------------------------
 * Documents and values
 * ------------------------------------------------------------------------ */

/* JSON value types. Integers and floats are distinct: 1 and 1.0 differ. */
typedef enum smp_type {
	SMP_NULL = 0,
	SMP_BOOL,
	SMP_INT,    /* int64 */
	SMP_FLOAT,  /* double */
	SMP_STRING, /* UTF-8, may contain NUL bytes: use the length */
	SMP_LIST,
	SMP_MAP     /* string keys, order of insertion kept */
} smp_type;

typedef struct smp_value smp_value;

/* A document set: owns every value in it. Holds zero or more root values
 * (a multi-document YAML stream gives one root per non-empty document). */
typedef struct smp_doc smp_doc;

typedef enum smp_format {
	SMP_FORMAT_AUTO = 0, /* JSON if the first non-blank byte is '{' (as kubectl
	                      * sniffs it), else YAML (a top-level '[' is YAML) */
	SMP_FORMAT_YAML,
	SMP_FORMAT_JSON
} smp_format;

/* Limits that keep hostile documents from exhausting memory or stack. */
#define SMP_DEFAULT_MAX_DEPTH 1000             /* nesting of lists/maps */
#define SMP_DEFAULT_MAX_ALIAS_NODES 1000000    /* nodes created by alias expansion */
#define SMP_DEFAULT_MAX_BYTES ((size_t)1 << 30) /* input size */

typedef struct smp_parse_options {
	unsigned version;       /* SMP_PARSE_OPTIONS_VERSION */
	smp_format format;      /* default AUTO */
	const char *filename;   /* for error messages; NULL = "<input>" */
	size_t max_depth;       /* 0 = SMP_DEFAULT_MAX_DEPTH */
	size_t max_alias_nodes; /* 0 = SMP_DEFAULT_MAX_ALIAS_NODES */
	size_t max_bytes;       /* 0 = SMP_DEFAULT_MAX_BYTES */
	bool allow_duplicate_keys; /* false: duplicate map keys are SMP_EPARSE */
	/* Version 2. smp_doc_parse_file: map a regular file instead of reading
	 * it into memory (no copy; the text leaves memory as it is parsed). A
	 * mapped file that another process truncates during the call raises
	 * SIGBUS, which kills a process that does not handle it: only for
	 * callers that do (the smpatch program does). Default false: read. */
	bool map_file;
} smp_parse_options;

/* 2 adds map_file; a version 1 struct (without it) is still accepted. */
#define SMP_PARSE_OPTIONS_VERSION 2
#define SMP_PARSE_OPTIONS_INIT \
	{ SMP_PARSE_OPTIONS_VERSION, SMP_FORMAT_AUTO, NULL, 0, 0, 0, false, false }

/* Parses `len` bytes of YAML or JSON (a stream of documents) into a new
 * document set, reading them as kubectl does (docs/CODEC.md): invalid UTF-8
 * becomes U+FFFD; YAML scalars resolve by the YAML 1.1 rules of go-yaml v2
 * and go through kubectl's JSON round trip (1.0 reads as the int 1, NaN and
 * infinities are errors); a YAML stream is cut at "---" lines, one document
 * per piece, empty and null documents skipped; anchors, aliases and <<
 * merge keys are expanded; duplicate map keys are an error unless
 * opts->allow_duplicate_keys. `buf` need not be NUL-terminated.
 * Returns SMP_EPARSE (with file, line and column), SMP_ELIMIT, SMP_EINVAL
 * (bad arguments) or SMP_ENOMEM. Thread-safe; no global state. */
SMP_API int smp_doc_parse(smp_doc **out, const char *buf, size_t len,
                  const smp_parse_options *opts, smp_error *err);

/* Reads and parses a file; `path` "-" means standard input. The file name
 * is used in error messages unless opts->filename is set. SMP_EIO when the
 * file cannot be read. A regular file is read into one buffer of its size,
 * or, with opts->map_file and a size of 256 KiB or more, mapped (mmap)
 * while it is parsed (smaller files cost less to copy than to map); standard
 * input, pipes and devices are always read. */
SMP_API int smp_doc_parse_file(smp_doc **out, const char *path,
                       const smp_parse_options *opts, smp_error *err);

/* Frees the document set and every value in it. NULL is fine. */
SMP_API void smp_doc_free(smp_doc *doc);

/* Number of root values (documents) in the set. */
SMP_API size_t smp_doc_count(const smp_doc *doc);

/* The i-th root value, or NULL when i is out of range. */
SMP_API const smp_value *smp_doc_root(const smp_doc *doc, size_t i);

/* Creates a new, empty document set, to collect copies of values with
 * smp_doc_add_copy(). Free with smp_doc_free(). SMP_ENOMEM. */
SMP_API int smp_doc_new(smp_doc **out, smp_error *err);

/* Deep-copies `v` (from any document) into `doc` and appends it as a root.
 * `out` may be NULL; `*out` receives the copy, owned by `doc`. `doc` is
 * modified: no other thread may use it meanwhile. SMP_ENOMEM. */
SMP_API int smp_doc_add_copy(const smp_value **out, smp_doc *doc, const smp_value *v,
                     smp_error *err);

/* Value accessors. All accept any value, NULL included; a wrong type gives
 * the zero value (false, 0, 0.0), except that smp_value_float() also
 * converts an SMP_INT. */
SMP_API smp_type smp_value_type(const smp_value *v);
SMP_API bool smp_value_bool(const smp_value *v);
SMP_API int64_t smp_value_int(const smp_value *v);
SMP_API double smp_value_float(const smp_value *v);
/* String bytes (NUL-terminated as well); `len` may be NULL. NULL if not a string. */
SMP_API const char *smp_value_string(const smp_value *v, size_t *len);
/* Number of elements of a list or entries of a map; 0 otherwise. */
SMP_API size_t smp_value_len(const smp_value *v);
/* List element i, or NULL. */
SMP_API const smp_value *smp_list_get(const smp_value *list, size_t i);
/* Map entry i (in document order): its key bytes (NUL-terminated; `len` may
 * be NULL) and its value; NULL when i is out of range or `map` no map. */
SMP_API const char *smp_map_key(const smp_value *map, size_t i, size_t *len);
SMP_API const smp_value *smp_map_value(const smp_value *map, size_t i);
/* Map entry by key (NUL-terminated), or NULL. Linear in the map size. */
SMP_API const smp_value *smp_map_get(const smp_value *map, const char *key);
/* Follows a dotted path of map keys ("metadata.name"); NULL when absent. */
SMP_API const smp_value *smp_value_at(const smp_value *v, const char *dotted_path);
/* Source position of a parsed value (1-based); 0 for built values. */
SMP_API unsigned smp_value_line(const smp_value *v);
SMP_API unsigned smp_value_column(const smp_value *v);
/* Deep, type-aware equality (map order ignored, list order significant,
 * 1 != 1.0). NULL equals only NULL. */
SMP_API bool smp_value_equal(const smp_value *a, const smp_value *b);

typedef enum smp_output {
	SMP_OUT_JSON = 0,     /* compact JSON */
	SMP_OUT_JSON_INDENT,  /* JSON indented by 4 spaces, like kubectl -o json */
	SMP_OUT_YAML          /* block-style YAML */
} smp_output;

typedef struct smp_print_options {
	unsigned version;  /* SMP_PRINT_OPTIONS_VERSION */
	smp_output output; /* default compact JSON */
	bool sort_keys;    /* sort map keys bytewise (as Go's encoding/json does) */
	bool go_escape;    /* JSON: escape <, >, & as \u003c \u003e \u0026 like Go */
} smp_print_options;

#define SMP_PRINT_OPTIONS_VERSION 1
#define SMP_PRINT_OPTIONS_INIT { SMP_PRINT_OPTIONS_VERSION, SMP_OUT_JSON, false, false }

/* Prints `v` into a new NUL-terminated buffer (free with smp_free). Floats
 * print like Go's encoding/json; integers exactly. YAML output quotes every
 * string that would read back as something else, and ends with a newline;
 * indented JSON ends with a newline, compact JSON does not.
 * `len` may be NULL. SMP_EINVAL for a float that JSON cannot hold (NaN, Inf)
 * (also for YAML output, to match kubectl), SMP_ELIMIT for a YAML tree
 * deeper than 10,000 levels, SMP_ENOMEM. Thread-safe. */
SMP_API int smp_print(char **out, size_t *len, const smp_value *v,
              const smp_print_options *opts, smp_error *err);

/* Receives output of smp_print_to(): `len` (> 0) bytes at `data`, valid
 * during the call only. Returns 0 to go on, anything else to stop. */
typedef int (*smp_write_fn)(void *ctx, const char *data, size_t len);

/* Prints `v` like smp_print() (the same bytes, no NUL), handing the output
 * to `write` in pieces of at most 128 KiB as it is made, so the whole
 * output never sits in memory (JSON: the printer holds about 64 KiB; YAML
 * is made in memory first, then handed over in pieces). `ctx` is passed to
 * `write` as it is; the library keeps neither after the call returns.
 * A print that cannot succeed fails before the first byte is written: a
 * quick check of the tree finds NaN/Inf floats (SMP_EINVAL) and, for YAML,
 * the depth limit (SMP_ELIMIT), with the error smp_print() would give.
 * SMP_EIO when `write` returns non-zero: printing stops at once, and
 * `write` is not called again. SMP_EINVAL for a NULL `write` or `v` or bad
 * options. SMP_ENOMEM: the output written so far may then be incomplete.
 * Thread-safe (`v` is only read); `write` runs on the calling thread, in
 * the caller's locale. */
SMP_API int smp_print_to(smp_write_fn write, void *ctx, const smp_value *v,
                         const smp_print_options *opts, smp_error *err);

/* ------------------------------------------------------------------------
 * Schema: per-field shape and patch metadata
 * ------------------------------------------------------------------------ */

typedef struct smp_schema smp_schema;   /* a set of type definitions */
typedef struct smp_stype smp_stype;     /* one type in a schema (read-only) */

/* The built-in Kubernetes tables (generated from the Kubernetes OpenAPI
 * document). Static, read-only, never freed; shareable between threads. */
SMP_API const smp_schema *smp_schema_builtin(void);

/* Loads a schema from an OpenAPI v2 document (`kubectl get --raw
 * /openapi/v2`: "swagger", #/definitions/ refs), an OpenAPI v3 document
 * (/openapi/v3/apis/GROUP/VERSION: "openapi", #/components/schemas/ refs,
 * single allOf wrappers) or a stream of CustomResourceDefinition manifests
 * (each served version's openAPIV3Schema is a kind). YAML or JSON; the kind
 * of document is detected from the content. Kinds come from
 * x-kubernetes-group-version-kind, their scope from the document's paths
 * (CRDs: spec.scope). `buf` need not be NUL-terminated; `filename` is used
 * in errors (NULL: "<schema>"). On success `*out` is owned by the caller:
 * free it with smp_schema_free(); the input is not referenced afterwards.
 * Errors: SMP_EPARSE (not YAML/JSON), SMP_ESCHEMA for a malformed document
 * (dangling, external or cyclic $ref, wrong types, unknown patch strategy)
 * with err->line/column and err->path (a JSON pointer such as
 * /definitions/a/properties/b/$ref) naming the place, SMP_ELIMIT (nesting),
 * SMP_ENOMEM, SMP_EINVAL (out NULL). Thread-safe. */
SMP_API int smp_schema_load(smp_schema **out, const char *buf, size_t len,
                    const char *filename, smp_error *err);

/* Same, from a file ("-" = standard input); SMP_EIO when it cannot be
 * read. */
SMP_API int smp_schema_load_file(smp_schema **out, const char *path, smp_error *err);

/* Frees a loaded schema and every type in it (after their last use). NULL
 * and the built-in schema are ignored. */
SMP_API void smp_schema_free(smp_schema *schema);

/* The type of the kind apiVersion ("apps/v1", "v1") + kind ("Deployment"),
 * matching group, version and kind exactly (binary search). SMP_ESCHEMA when
 * the schema has no such kind (the message names the versions it has);
 * SMP_EINVAL for a NULL argument. The result is owned by `schema`. */
SMP_API int smp_schema_kind(const smp_stype **out, const smp_schema *schema,
                    const char *api_version, const char *kind, smp_error *err);

/* The type of the definition `name` (e.g. "io.k8s.api.apps.v1.Deployment" or
 * "mergeItem"). SMP_ESCHEMA when absent. Owned by `schema`. */
SMP_API int smp_schema_definition(const smp_stype **out, const smp_schema *schema,
                          const char *name, smp_error *err);

/* Whether the kind is namespaced (true) or cluster-scoped (false); `known`
 * (may be NULL) is set false when the schema does not say (or has no such
 * kind), and the result is then false. */
SMP_API bool smp_schema_kind_namespaced(const smp_schema *schema, const char *api_version,
                                const char *kind, bool *known);

/* The resource name (plural, "deployments", "endpoints") of the kind, as
 * the document's paths name it (CRDs: spec.names.plural); another version
 * of the same group serves when the exact one has none. NULL when the
 * schema does not say (or a NULL argument). Owned by `schema`. */
SMP_API const char *smp_schema_kind_resource(const smp_schema *schema,
                                             const char *api_version, const char *kind);

/* The scope of kinds that no schema describes (custom resources applied
 * without their CRD, ...): declared by the caller, or learned from live
 * objects as kubectl learns every scope from the server's discovery. Built
 * by one thread; then only read (smp_apply_options.scopes), from any
 * number of threads. */
typedef struct smp_scopes smp_scopes;

/* An empty set. Free with smp_scopes_free. SMP_EINVAL (out NULL),
 * SMP_ENOMEM. */
SMP_API int smp_scopes_new(smp_scopes **out);

/* Frees the set. NULL is fine. */
SMP_API void smp_scopes_free(smp_scopes *scopes);

/* Declares the scope of `name`: "Kind.group" ("ClusterIssuer.cert-manager.io")
 * for the kind in that group, or "Kind" for the kind in any group. A
 * declaration replaces an earlier one and wins over what is learned.
 * SMP_EINVAL for a malformed name (the kind must be alphanumeric, the group
 * a DNS subdomain) or NULL, SMP_ENOMEM. */
SMP_API int smp_scopes_declare(smp_scopes *scopes, const char *name, bool namespaced,
                               smp_error *err);

/* Learns from a live object (as a server returns it): its group/kind is
 * namespaced when it has a metadata.namespace, cluster-scoped when it has
 * none. Seen namespaced once, a kind stays namespaced (a server always
 * shows the namespace; a hand-written file may leave it out). Objects
 * without apiVersion or kind teach nothing (0). SMP_EINVAL (NULL),
 * SMP_ENOMEM. */
SMP_API int smp_scopes_learn(smp_scopes *scopes, const smp_value *live, smp_error *err);

/* The scope the set gives the kind (any version of its group): 1
 * namespaced, 0 cluster-scoped, -1 unknown (or a NULL argument). */
SMP_API int smp_scopes_get(const smp_scopes *scopes, const char *api_version,
                           const char *kind);

/* Shape of a schema type. */
typedef enum smp_skind {
	SMP_SKIND_ANY = 0,   /* free-form / unknown: anything goes, no patch metadata below */
	SMP_SKIND_OBJECT,    /* map with known properties */
	SMP_SKIND_MAP,       /* map with string keys and one value type */
	SMP_SKIND_LIST,
	SMP_SKIND_PRIMITIVE
} smp_skind;

/* Patch strategy bits of a field. */
enum {
	SMP_STRATEGY_MERGE = 1u << 0,
	SMP_STRATEGY_REPLACE = 1u << 1,
	SMP_STRATEGY_RETAIN_KEYS = 1u << 2
};

/* What the engine uses for one field (the answer of `smpatch explain`).
 * Strings are owned by the schema (path: by the caller); NULL when absent. */
typedef struct smp_field_info {
	const char *path;           /* the field path asked for */
	const char *type;           /* "object", "map", "array", "string", "integer",
	                               "number", "boolean", "any" (free-form) */
	unsigned strategy;          /* SMP_STRATEGY_* bits, 0 = none */
	const char *merge_key;      /* x-kubernetes-patch-merge-key */
	const char *list_type;      /* x-kubernetes-list-type: atomic, set, map */
	const char *const *list_map_keys; /* NULL-terminated, or NULL */
	const char *map_type;       /* x-kubernetes-map-type */
	const char *format;         /* int-or-string, quantity, date-time, ... */
	bool preserve_unknown;      /* x-kubernetes-preserve-unknown-fields */
	const smp_stype *stype;     /* the field's type */
} smp_field_info;

/* Looks up `dotted_path` (e.g. "spec.template.spec.containers.ports")
 * below `root`: list elements are stepped through implicitly, a segment
 * below a map names one of its keys, anything below a free-form value (or an
 * unknown field of an object that preserves unknown fields) is "any". An
 * empty path or NULL describes `root` itself. strategy and merge_key are
 * those written on the last field (0/NULL for a map value or the root).
 * Errors: SMP_ESCHEMA naming the first unknown segment and the path up to
 * it; SMP_EINVAL for an empty segment ("a..b") or NULL out/root. On error
 * *out is zeroed. Thread-safe (reads only). */
SMP_API int smp_schema_field(smp_field_info *out, const smp_stype *root,
                     const char *dotted_path, smp_error *err);

/* Introspection of a type (all thread-safe, reading only; `t` NULL gives
 * the zero answer). The shape of `t`; SMP_SKIND_ANY for NULL. */
SMP_API smp_skind smp_stype_kind(const smp_stype *t);

/* The definition name of `t` ("io.k8s.api.core.v1.Container"), or NULL for
 * an inline type. Owned by the schema. */
SMP_API const char *smp_stype_name(const smp_stype *t);

/* The element type of a list or the value type of a map; NULL for other
 * kinds. Owned by the schema (a list may hold itself: bound any walk). */
SMP_API const smp_stype *smp_stype_elem(const smp_stype *t);

/* Number of properties of an object type (SMP_SKIND_OBJECT); 0 otherwise. */
SMP_API size_t smp_stype_field_count(const smp_stype *t);

/* Describes property `i` (0 <= i < smp_stype_field_count(t); properties are
 * sorted by name) as smp_schema_field does, out->path being the property
 * name. SMP_EINVAL when `i` is out of range or an argument is NULL. */
SMP_API int smp_stype_field_at(smp_field_info *out, const smp_stype *t, size_t i,
                       smp_error *err);

/* ------------------------------------------------------------------------
 * Patches: apply, two-way and three-way diff
 * ------------------------------------------------------------------------ */

typedef enum smp_patch_type {
	SMP_PATCH_STRATEGIC = 0, /* application/strategic-merge-patch+json */
	SMP_PATCH_MERGE,         /* RFC 7386, application/merge-patch+json */
	SMP_PATCH_JSON           /* RFC 6902, application/json-patch+json (apply only) */
} smp_patch_type;

typedef struct smp_patch_options {
	unsigned version;          /* SMP_PATCH_OPTIONS_VERSION */
	smp_patch_type type;       /* default STRATEGIC */
	/* Root type for strategic patches. NULL: look the kind up in the
	 * built-in schema from the document's apiVersion/kind (SMP_ESCHEMA when
	 * it is unknown). Ignored for MERGE and JSON. */
	const smp_stype *stype;
	bool overwrite;            /* three-way: true = config wins over live changes */
} smp_patch_options;

#define SMP_PATCH_OPTIONS_VERSION 1
#define SMP_PATCH_OPTIONS_INIT { SMP_PATCH_OPTIONS_VERSION, SMP_PATCH_STRATEGIC, NULL, true }

/* Applies `patch` to `target`: the result is the single root of a new
 * document `*out`, as the API server computes it. `target` NULL means {}
 * (for JSON: null). STRATEGIC: target and patch must be maps (or null); the
 * schema is opts->stype, else the built-in kind named by target's (then
 * patch's) apiVersion/kind; like kubectl, kinds it has no Go types for
 * (CustomResourceDefinition, APIService, ...) are SMP_ESCHEMA ("try --type
 * merge"). MERGE: RFC 7386 as json-patch v4 does it (the patch must be an
 * object: SMP_EPATCH "Invalid JSON Patch" otherwise). JSON: `patch` is the
 * list of RFC 6902 operations, with json-patch v4's leniencies (replace adds
 * a missing map key, copy/test read a missing map key as null, "01" is
 * index 1, escapes other than ~0/~1 are literal).
 * Errors: SMP_EPATCH with err->path naming the field
 * (`spec.template.spec.containers[name=nginx].ports`), or "empty document"
 * for a NULL patch (an empty file's root), SMP_ESCHEMA (unknown
 * kind or field), SMP_EPARSE (target not a map), SMP_ELIMIT, SMP_ENOMEM.
 * Only reads its inputs; thread-safe on shared inputs. */
SMP_API int smp_patch_apply(smp_doc **out, const smp_value *target, const smp_value *patch,
                    const smp_patch_options *opts, smp_error *err);

/* smp_patch_apply that consumes its target instead of copying it (faster,
 * and less memory, for a caller that no longer needs the target, like
 * `smpatch patch`). `*inout` must hold exactly one document (a set with 0 or
 * 2+ roots is SMP_EINVAL and left alone); its root is the target, patched as
 * smp_patch_apply would, with the same options and errors. On success
 * `*inout` holds one root, the result: for STRATEGIC the same document
 * changed in place (no copy of untouched parts), for MERGE and JSON a new
 * document (the old one is freed). A NULL patch is SMP_EPATCH ("empty
 * document"), `*inout` left alone. Either way every value obtained from
 * `*inout` before the call is invalid afterwards. On any other error the
 * document is freed and `*inout` set to NULL (a failed patch may leave it
 * half-changed). `patch` must not be a value of `*inout`; it is only read.
 * Thread-safety: `*inout` must not be used by any other thread during the
 * call (it is written); `patch` may be shared. */
SMP_API int smp_patch_apply_doc(smp_doc **inout, const smp_value *patch,
                        const smp_patch_options *opts, smp_error *err);

/* Two-way diff: the patch that turns `original` into `modified` (strategic
 * or JSON merge patch per opts->type; JSON Patch is SMP_EINVAL). NULL inputs
 * mean {}. The empty patch is {}. The strategic schema is opts->stype, else
 * the built-in kind of `modified` (then `original`). Merging lists get
 * $setElementOrder, deletion directives and $retainKeys as the reference
 * emits them. SMP_ESCHEMA when a field the schema does not know differs. */
SMP_API int smp_diff_two_way(smp_doc **out, const smp_value *original,
                     const smp_value *modified, const smp_patch_options *opts,
                     smp_error *err);

/* Three-way diff as kubectl apply computes it: `original` = last-applied
 * configuration, `modified` = new configuration, `current` = live object.
 * Fields only the live object has are kept; fields dropped from the
 * configuration since `original` are deleted. STRATEGIC: with
 * opts->overwrite false, a change that conflicts with a change made to the
 * live object since `original` is SMP_ECONFLICT (the message shows both
 * sides). MERGE (CreateThreeWayJSONMergePatch) checks conflicts between its
 * own halves only; overwrite does not apply. Both: SMP_EPRECOND ("At least
 * one of apiVersion, kind and name was changed") when the patch would change
 * apiVersion, kind or metadata.name. NULL inputs mean {}. */
SMP_API int smp_diff_three_way(smp_doc **out, const smp_value *original,
                       const smp_value *modified, const smp_value *current,
                       const smp_patch_options *opts, smp_error *err);

/* True when the two patches touch some field differently (the reference's
 * mergepatch.HasConflicts): maps key by key, lists element by element,
 * scalars by type and value (int64 0 and float64 0 conflict). NULL is JSON
 * null. Only reads; thread-safe. */
SMP_API bool smp_patch_has_conflicts(const smp_value *a, const smp_value *b);

/* True when `patch` is the empty patch {} (a map with no entries). */
SMP_API bool smp_patch_is_empty(const smp_value *patch);

/* ------------------------------------------------------------------------
 * Labels and selectors
 * ------------------------------------------------------------------------ */

/* A parsed label selector or field selector. Immutable once built: one
 * selector may be matched from several threads at once. */
typedef struct smp_selector smp_selector;

/* Parses a label selector string with the grammar of Kubernetes'
 * labels.Parse: requirements joined by ',' (AND), each one of `k=v`,
 * `k==v`, `k!=v` (also true when k is absent), `k in (a,b)`,
 * `k notin (a,b)` (also true when k is absent), `k` (exists), `!k` (does
 * not exist), `k>N`, `k<N` (N an integer). Blanks (space, tab, CR, LF)
 * separate tokens; `()` and empty list members stand for the empty value.
 * Keys and values are validated as labels. The empty string selects
 * everything. `text` must not be NULL.
 * Returns 0, SMP_EINVAL (err->column = 1-based byte position of the token
 * at fault, err->message the reference's text, e.g. "unable to parse
 * requirement: found ')', expected: identifier") or SMP_ENOMEM. The
 * selector keeps its own copy of `text`. Free with smp_selector_free(). */
SMP_API int smp_selector_parse(smp_selector **out, const char *text, smp_error *err);

/* Builds a selector from a LabelSelector object: `matchLabels` (each pair
 * is `key=value`) AND `matchExpressions` ({key, operator, values}, operator
 * In or NotIn with a non-empty `values`, Exists or DoesNotExist with none).
 * With `node_selector` true the object is read as a node selector term:
 * `Gt` and `Lt` are allowed too, with exactly one integer value.
 * A NULL (or null) `obj` selects nothing; {} selects everything.
 * SMP_EINVAL names the failing entry in err->path (e.g.
 * "matchExpressions[1]") and the rule broken. The selector copies what it
 * needs from `obj`. Free with smp_selector_free(). */
SMP_API int smp_selector_from_object(smp_selector **out, const smp_value *obj,
                             bool node_selector, smp_error *err);

/* Frees a selector of any kind. NULL is fine. */
SMP_API void smp_selector_free(smp_selector *sel);

/* Whether the labels `labels` (a map of strings, or NULL for no labels)
 * are selected by the label selector `sel`. Always false for a NULL or a
 * field selector. Labels whose value is not a string count as present with
 * a value that equals nothing. */
SMP_API bool smp_selector_matches(const smp_selector *sel, const smp_value *labels);

/* True when `sel` is a label selector that selects everything (no
 * requirement; not the null selector). */
SMP_API bool smp_selector_is_empty(const smp_selector *sel);

/* Parses a field selector as Kubernetes' fields.ParseSelector does: terms
 * joined by ',' (AND), each `path=value`, `path==value` or `path!=value`;
 * `path` is a dotted path of map keys ("metadata.name", "spec.replicas");
 * in values `\,`, `\=` and `\\` escape ',', '=' and '\'. The empty string
 * selects everything. SMP_EINVAL with err->column at the bad term. Free
 * with smp_selector_free(). */
SMP_API int smp_field_selector_parse(smp_selector **out, const char *text,
                                     smp_error *err);

/* Whether `object` is selected by the field selector `sel`. A field that is
 * absent reads as ""; strings compare as they are, numbers and booleans by
 * their JSON text; a map or list never equals anything. False for a NULL
 * or a label selector. */
SMP_API bool smp_field_selector_matches(const smp_selector *sel, const smp_value *object);

/* Validates a label key / value (NUL-terminated) by the Kubernetes rules:
 * key = optional DNS-1123 subdomain prefix (<= 253, lower case) + '/' +
 * name (1-63 characters, [A-Za-z0-9] at both ends, '-', '_', '.' inside);
 * value empty or like a name. On failure returns SMP_EINVALOBJ with every
 * rule broken in err->message, in the reference's words ("name part must
 * consist of alphanumeric characters, ..."). SMP_EINVAL for NULL. */
SMP_API int smp_label_validate_key(const char *key, smp_error *err);
SMP_API int smp_label_validate_value(const char *value, smp_error *err);

/* Validates a whole labels map (NULL or null: nothing to check). `path`
 * names it in messages (NULL = "metadata.labels"). On the first bad entry
 * returns SMP_EINVALOBJ, err->message like the API server's
 * `metadata.labels: Invalid value: "-x": <rule>`, err->line/column at the
 * entry's value. Entries whose value is null are not checked (kubectl
 * drops them on create; in a patch they delete the label). */
SMP_API int smp_labels_validate(const smp_value *labels, const char *path,
                                smp_error *err);

/* ------------------------------------------------------------------------
 * resource.Quantity (Kubernetes' apimachinery pkg/api/resource)
 * ------------------------------------------------------------------------ */

/* How a quantity is written; parsing keeps the format of its input. */
typedef enum smp_quantity_format {
	SMP_QUANTITY_DECIMAL_SI = 0,  /* 500m, 1, 12M: suffixes n u m k M G T P E */
	SMP_QUANTITY_BINARY_SI,       /* 12Mi: Ki Mi Gi Ti Pi Ei (powers of 1024) */
	SMP_QUANTITY_DECIMAL_EXPONENT /* 12e6, 1E-3 */
} smp_quantity_format;

/* A parsed quantity: immutable, so one may be read from several threads. */
typedef struct smp_quantity smp_quantity;

/* Parses `len` bytes of `text` as resource.ParseQuantity does: a signed
 * number (`1`, `1.5`, `.5`, `1.`) and an optional suffix, decimal SI,
 * binary SI or an exponent (`e3`, `E-3`, `e+6`). The value is exact,
 * whatever its size, except that (as the reference does) a non-zero value
 * finer than 1n is rounded away from zero to a whole nano, and a binary-SI
 * value is capped at 2^63-1. The string it prints as
 * (smp_quantity_string) is the one the API server stores: the input itself
 * when the reference keeps it, else the canonical form (`0.5` -> `500m`,
 * `1024Mi` -> `1Gi`, `1.5Gi` -> `1536Mi`, `1000m` -> `1`, `1e3` stays
 * `1e3`). Errors: SMP_EINVALOBJ with the reference's message ("quantities
 * must match the regular expression '...'", "unable to parse quantity's
 * suffix", "unable to parse numeric part of quantity"); SMP_EINVAL for
 * NULL arguments; SMP_ENOMEM. `text` need not be NUL-terminated and is not
 * kept. Free `*out` with smp_quantity_free(). Thread-safe. */
SMP_API int smp_quantity_parse(smp_quantity **out, const char *text, size_t len,
                               smp_error *err);

/* Parses a document value as the API server decodes a Quantity field: a
 * string (surrounding Unicode white space removed), an integer or a float
 * (their JSON text), null (zero); a boolean, list or map is the format
 * error. On failure err->path is set to `path` (may be NULL) and
 * err->line/column to the value's position, so the message names the
 * field. Same errors and ownership as smp_quantity_parse(). */
SMP_API int smp_quantity_from_value(smp_quantity **out, const smp_value *v,
                                    const char *path, smp_error *err);

/* The reference's RoundUp(scale): `q` rounded away from zero to a multiple
 * of 10^scale, in a new quantity (the API server rounds every value of a
 * ResourceList to scale -3: `1.2345` -> `1235m`, `5n` -> `1m`). A value
 * already that coarse is unchanged, its text included; a rounded one gets
 * the canonical text of its format. Free `*out` with smp_quantity_free().
 * SMP_EINVAL for NULL arguments, SMP_ENOMEM. Thread-safe. */
SMP_API int smp_quantity_round_up(smp_quantity **out, const smp_quantity *q, int scale,
                                  smp_error *err);

/* Frees a quantity. NULL is fine. */
SMP_API void smp_quantity_free(smp_quantity *q);

/* The text the API server writes for `q` (see smp_quantity_parse),
 * NUL-terminated, owned by `q`; `len` may be NULL. NULL for a NULL `q`. */
SMP_API const char *smp_quantity_string(const smp_quantity *q, size_t *len);

/* The format `q` is written in (a binary-SI value below 1 becomes decimal
 * SI when parsed, as in the reference). DECIMAL_SI for NULL. */
SMP_API smp_quantity_format smp_quantity_format_of(const smp_quantity *q);

/* -1, 0 or 1 as `q` is negative, zero or positive (0 for NULL). */
SMP_API int smp_quantity_sign(const smp_quantity *q);

/* Compares by value (`1Gi` == `1024Mi`, `0.5` == `500m`): -1, 0 or 1. NULL
 * counts as zero. */
SMP_API int smp_quantity_cmp(const smp_quantity *a, const smp_quantity *b);

/* The value divided by 10^scale and rounded away from zero, as the
 * reference's ScaledValue (scale 0: Value(), -3: MilliValue()). Returns
 * false when it does not fit an int64 (*out then saturates at
 * INT64_MAX/INT64_MIN) or `out` is NULL. A NULL `q` is zero. */
SMP_API bool smp_quantity_scaled_value(int64_t *out, const smp_quantity *q, int scale);

/* ------------------------------------------------------------------------
 * The stored form: what the API server writes for an object
 * ------------------------------------------------------------------------ */

/* smp_stored_options.flags */
enum {
	SMP_STORED_NO_DEFAULTS = 1u << 0,  /* leave out the server's defaults */
	SMP_STORED_NO_QUANTITIES = 1u << 1, /* leave quantities as they are written */
	SMP_STORED_KEEP_UNKNOWN = 1u << 2   /* keep fields the kind's type does not have */
};

typedef struct smp_stored_options {
	unsigned version; /* SMP_STORED_OPTIONS_VERSION */
	unsigned flags;   /* SMP_STORED_* */
	/* Version 2. The schemas of custom resources: a schema loaded by
	 * smp_schema_load() from CustomResourceDefinition manifests
	 * (apiextensions.k8s.io/v1, structural schemas) or from an OpenAPI v3
	 * document that publishes them. Only read; it must outlive the call,
	 * not the result. NULL: the built-in tables only, and custom resources
	 * come back unchanged. Kinds of the built-in tables are always handled
	 * by the built-in tables, whatever this schema says of them. */
	const smp_schema *schema;
} smp_stored_options;

/* 2 adds schema; a version 1 struct (without it) is still accepted. */
#define SMP_STORED_OPTIONS_VERSION 2
#define SMP_STORED_OPTIONS_INIT { SMP_STORED_OPTIONS_VERSION, 0, NULL }

/* The object `obj` as the API server stores it (what `kubectl apply
 * --dry-run=server` and `kubectl diff` show), as the single root of a new
 * document `*out`, for kinds of the built-in tables (the kinds the server
 * has Go types for): the defaults its defaulting functions set on the
 * kinds listed in docs/STORED.md (Pod templates in every workload kind,
 * Service, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob,
 * NetworkPolicy, PVC, Secret, Namespace, HPA, RBAC bindings, ...), and
 * every resource.Quantity field in the text the server writes
 * (smp_quantity_string; ResourceLists of core/v1 types, such as container
 * resources, rounded up to milli as the server does); fields the kind's
 * type does not have are dropped, as decoding into the server's Go types
 * drops them (unless SMP_STORED_KEEP_UNKNOWN).
 * A custom resource whose kind and exact version opts->schema has (a
 * served version of its CRD) is stored as apiextensions-apiserver stores
 * it, with that version's schema (docs/STORED.md): fields the schema does
 * not have are pruned unless x-kubernetes-preserve-unknown-fields (not with
 * SMP_STORED_KEEP_UNKNOWN); a null where the schema is not nullable and has
 * no default is dropped; the metadata of the object and of every
 * x-kubernetes-embedded-resource keeps only ObjectMeta's fields, without
 * their zero values; then the schema's `default` values are filled in,
 * deep-copied and pruned (not with
 * SMP_STORED_NO_DEFAULTS). Other custom resources come back unchanged.
 * Nothing is validated beyond the quantities of built-in kinds: a bad
 * one is SMP_EINVALOBJ with the server's message ("Deployment in version
 * \"v1\" cannot be handled as a Deployment: quantities must match ..."),
 * err->path naming the field
 * ("spec.template.spec.containers[name=web].resources.limits.cpu") and
 * err->line/column its position. SMP_EINVAL when `obj` is not a map or the
 * options are bad, SMP_ELIMIT when a custom resource (with its defaults)
 * is nested deeper than 4096 levels, SMP_ENOMEM. `obj` is only read; free
 * `*out` with smp_doc_free(). Thread-safe (a loaded schema is read-only). */
SMP_API int smp_stored_form(smp_doc **out, const smp_value *obj,
                            const smp_stored_options *opts, smp_error *err);

/* ------------------------------------------------------------------------
 * Field validation (kubectl --validate, the server's fieldValidation)
 * ------------------------------------------------------------------------ */

/* kubectl's --validate values. */
typedef enum smp_validate_mode {
	SMP_VALIDATE_STRICT = 0, /* unknown fields fail (kubectl's default) */
	SMP_VALIDATE_WARN,       /* unknown fields are warnings */
	SMP_VALIDATE_IGNORE      /* unknown fields are dropped silently */
} smp_validate_mode;

/* What smp_object_validate() found. Owns its strings. */
typedef struct smp_validation smp_validation;

/* Checks `obj` as the API server decodes it with strict field validation:
 * every field the kind's type does not have is a problem with the
 * server's text `unknown field "spec.template.spec.containers[0].foo"`
 * (the JSON path, list items by index), unless the type preserves unknown
 * fields; a value of the wrong JSON type is a decoding problem with Go's
 * text (`json: cannot unmarshal string into Go struct field
 * DeploymentSpec.spec.replicas of type int32`, the Go type derived from
 * the schema), as is a bad quantity (smp_quantity_parse's message); only
 * the first decoding problem is kept, as the decoder keeps it. Keys are
 * visited in sorted order, the order of the JSON kubectl sends. The type
 * is the kind's in `schema` (an OpenAPI document or CRDs; may be NULL),
 * else in the built-in tables; a kind neither has gives no problems.
 * `*out` (free with smp_validation_free) may hold no problems. SMP_EINVAL
 * when `obj` is not a map, SMP_ENOMEM. Only reads; thread-safe. */
SMP_API int smp_object_validate(smp_validation **out, const smp_value *obj,
                                const smp_schema *schema, smp_error *err);

/* Number of problems; 0 for NULL. */
SMP_API size_t smp_validation_count(const smp_validation *v);

/* Problem i: its text (`unknown field "spec.foo"`, which is also the text
 * of kubectl's `Warning:` line), its JSON path, and whether it is a
 * decoding (type) problem, which fails in every mode. NULL/false when i
 * is out of range. Owned by `v`. */
SMP_API const char *smp_validation_text(const smp_validation *v, size_t i);
SMP_API const char *smp_validation_path(const smp_validation *v, size_t i);
SMP_API bool smp_validation_is_type_error(const smp_validation *v, size_t i);

/* The error the server answers in `mode`: SMP_EINVALOBJ with its message,
 * `<Kind> in version "<version>" cannot be handled as a <Kind>: ` followed
 * by the first decoding problem, or (STRICT only) `strict decoding error: `
 * and every unknown field joined by ", "; err->path, line and column name
 * the first problem. SMP_OK when the mode lets the object through (WARN
 * and IGNORE without decoding problems: the caller prints WARN's
 * `Warning: <text>` lines itself). */
SMP_API int smp_validation_error(const smp_validation *v, smp_validate_mode mode,
                                 smp_error *err);

/* Frees the result. NULL is fine. */
SMP_API void smp_validation_free(smp_validation *v);

/* ------------------------------------------------------------------------
 * The API server's own validation of built-in kinds
 * ------------------------------------------------------------------------ */

typedef struct smp_check_options {
	unsigned version;          /* SMP_CHECK_OPTIONS_VERSION */
	/* The live object the write replaces (as the server holds it): the
	 * update's rules run (immutable fields, the metadata checked as an
	 * update checks it). NULL: a create. Referenced. */
	const smp_value *live;
	/* An OpenAPI document or CRDs, for the stored form the rules read
	 * (smp_stored_form) and a custom resource's CRD schema; NULL = the
	 * built-in tables. Referenced. */
	const smp_schema *schema;
} smp_check_options;

#define SMP_CHECK_OPTIONS_VERSION 1
#define SMP_CHECK_OPTIONS_INIT { SMP_CHECK_OPTIONS_VERSION, NULL, NULL }

/* The API server's own validation of `obj`, the object a create (or, with
 * opts->live, an update) writes, as its registry runs Kubernetes 1.32's
 * pkg/apis/<group>/validation on the object decoded and defaulted: the
 * rules read the stored form (smp_stored_form) of `obj` and of the live
 * object. Every kind's labels and annotations are checked, and the rules
 * of ConfigMap, Secret, Service, Deployment, ReplicaSet, DaemonSet and
 * StatefulSet (docs/APPLY.md, "The API server's validation"); a custom
 * resource whose CRD is in opts->schema is checked against the CRD
 * version's schema as apiextensions-apiserver checks it (CEL rules aside:
 * an object they would check is not predicted). Every plan runs the
 * same. The server's decoding
 * (smp_object_validate) comes before this and is not part of it.
 * SMP_EINVALOBJ when the server refuses the object: `*status` is its 422
 * metav1.Status, every cause in the server's order and words (a map's
 * entries in sorted key order), and err's message the causes' texts,
 * err->path, line and column the first cause's. SMP_OK with `*status`
 * NULL when the rules find nothing, and also when the object holds what
 * they cannot word as the server does (a value Go prints with a pointer's
 * address, a rule not written yet): a refusal is then not predicted.
 * SMP_EINVAL for NULL `status` or `obj`, `obj` not a map, bad options;
 * smp_stored_form's errors (a bad quantity: SMP_EINVALOBJ, `*status`
 * NULL); SMP_ENOMEM. Free `*status` with smp_doc_free(). Only reads;
 * thread-safe. */
SMP_API int smp_object_check(smp_doc **status, const smp_value *obj,
                             const smp_check_options *opts, smp_error *err);

/* ------------------------------------------------------------------------
 * metav1.Status for failures, DeleteOptions for prunes
 * ------------------------------------------------------------------------ */

/* The metav1.Status the API server would answer for the failure `e` about
 * `obj` (may be NULL), as the single root of a new document: kind Status,
 * apiVersion v1, metadata {}, status Failure, message, reason, details,
 * code, in the server's field order. The reason follows e->code:
 * SMP_EINVALOBJ for a field (err->path set, the message "<path>: <detail>")
 * is 422 Invalid (message `Deployment.apps "web" is invalid: <path>:
 * <detail>`, details {name, group, kind, causes: [{reason (the CauseType,
 * e.g. FieldValueInvalid), message, field}]}); a decoding failure (`...
 * cannot be handled as a ...`) and other input errors are 400 BadRequest
 * (no details); SMP_ECONFLICT and SMP_EPRECOND are 409 Conflict (`Operation
 * cannot be fulfilled on deployments.apps "web": ...`, details {name,
 * group, kind: the resource}); SMP_ELIMIT is 413 RequestEntityTooLarge;
 * SMP_ENOMEM and SMP_EINTERNAL are 500 InternalError. A leading
 * "<object ref>: " in the message is left out. Free `*out` with
 * smp_doc_free(). SMP_EINVAL for NULL `out`/`e`, SMP_ENOMEM. Thread-safe. */
SMP_API int smp_status_from_error(smp_doc **out, const smp_error *e, const smp_value *obj,
                                  smp_error *err);

/* kubectl's --cascade. */
typedef enum smp_propagation {
	SMP_PROPAGATION_BACKGROUND = 0, /* --cascade=background (the default) */
	SMP_PROPAGATION_FOREGROUND,     /* --cascade=foreground */
	SMP_PROPAGATION_ORPHAN          /* --cascade=orphan */
} smp_propagation;

typedef struct smp_delete_options {
	unsigned version;             /* SMP_DELETE_OPTIONS_VERSION */
	smp_propagation propagation;  /* propagationPolicy */
	int64_t grace_period_seconds; /* --grace-period; -1 = not sent (default) */
} smp_delete_options;

#define SMP_DELETE_OPTIONS_VERSION 1
#define SMP_DELETE_OPTIONS_INIT { SMP_DELETE_OPTIONS_VERSION, SMP_PROPAGATION_BACKGROUND, -1 }

/* The DeleteOptions body for deleting (pruning) `live`, as the single root
 * of a new document: {"kind":"DeleteOptions","apiVersion":"v1",
 * ["gracePeriodSeconds":N,] ["preconditions":{"uid":U[,
 * "resourceVersion":R]},] "propagationPolicy":"Background"}. The
 * preconditions (the live object's metadata.uid and resourceVersion) are
 * what kubectl does not send: with them the server refuses to delete an
 * object recreated or changed since the live state was read. A live object
 * without a uid gets none, and `*preconditions` (may be NULL) is false so
 * that the caller can warn. SMP_EINVAL for bad options, SMP_ENOMEM. Free
 * `*out` with smp_doc_free(). Thread-safe. */
SMP_API int smp_delete_options_build(smp_doc **out, bool *preconditions,
                                     const smp_value *live, const smp_delete_options *opts,
                                     smp_error *err);

/* Lists merged by a key that hold two items with the same key value
 * (Service ports 53/TCP and 53/UDP share `port`; two env vars or
 * containers with one name): client-side apply's strategic merge patch
 * cannot tell such items apart, and the next apply merges them into one.
 * The result is the single root of a new document: a list of warning
 * texts (without "Warning: "), one per later duplicate, each naming the
 * list's path, both items' indexes, the key and the two items, e.g.
 * `spec.ports: items 0 and 1 have the same port 53 ({...} and {...}): ...`.
 * The types come from `schema` (may be NULL), then the built-in tables;
 * kinds neither knows give none. Free `*out` with smp_doc_free().
 * SMP_EINVAL, SMP_ENOMEM. Only reads; thread-safe. */
SMP_API int smp_duplicate_merge_keys(smp_doc **out, const smp_value *obj,
                                     const smp_schema *schema, smp_error *err);

/* ------------------------------------------------------------------------
 * Keyed changes between two versions of an object
 * ------------------------------------------------------------------------ */

/* smp_changes_options.flags */
enum {
	SMP_CHANGES_NO_MASK = 1u << 0 /* show Secret values (masked by default) */
};

typedef struct smp_changes_options {
	unsigned version;          /* SMP_CHANGES_OPTIONS_VERSION */
	const smp_schema *schema;  /* merge keys: this schema's kind first, then the
	                              built-in tables; NULL = built-in only */
	unsigned flags;            /* SMP_CHANGES_* */
} smp_changes_options;

#define SMP_CHANGES_OPTIONS_VERSION 1
#define SMP_CHANGES_OPTIONS_INIT { SMP_CHANGES_OPTIONS_VERSION, NULL, 0 }

/* Every changed field from `before` to `after` (either may be NULL: the
 * object is new, or removed), as the single root of a new document: a list
 * of maps {"path", "op": "add"|"remove"|"replace", "from" (not for add),
 * "to" (not for remove)}, in sorted key order. Paths are dotted
 * (`spec.replicas`); a key with '.', '[', ']', '"' or '\' is written
 * `["app.kubernetes.io/name"]`; items of a list merged by key are
 * `[name=web]`, of a primitive list merged by value `[=value]`, of any
 * other list (atomic, or items without distinct keys) `[3]`. A new or
 * removed object is one entry with path "". Values under `data` and
 * `stringData` of a v1 Secret are "***" unless SMP_CHANGES_NO_MASK. The
 * number of entries is the number of changed fields (`"changes": N` of
 * `smpatch apply -o patch`). Free `*out` with smp_doc_free(). SMP_EINVAL
 * for bad options, SMP_ENOMEM. Only reads; thread-safe. */
SMP_API int smp_changes(smp_doc **out, const smp_value *before, const smp_value *after,
                        const smp_changes_options *opts, smp_error *err);

/* ------------------------------------------------------------------------
 * The kubectl-apply workflow for one object
 * ------------------------------------------------------------------------ */

/* The annotation where kubectl keeps the last applied configuration. */
#define SMP_LAST_APPLIED_ANNOTATION "kubectl.kubernetes.io/last-applied-configuration"
/* The API server's limit on the total size of an object's annotations (the
 * sum of the lengths of every key and value). */
#define SMP_ANNOTATIONS_MAX_BYTES 262144

/* What applying one configuration does. */
typedef enum smp_apply_action {
	SMP_ACTION_CREATE = 0, /* no live object: it is created */
	SMP_ACTION_CONFIGURE,  /* the live object is patched */
	SMP_ACTION_UNCHANGED,  /* the patch is empty: nothing is sent */
	SMP_ACTION_PRUNE,      /* (plans only) the live object would be deleted */
	SMP_ACTION_CONFLICT,   /* (plans only) refused: fields changed by others
	                          (--overwrite=false) or owned by other managers */
	SMP_ACTION_ERROR       /* (plans only) the object fails: see its error */
} smp_apply_action;

typedef struct smp_apply_options {
	unsigned version;            /* SMP_APPLY_OPTIONS_VERSION */
	/* Extra schema: an OpenAPI document (used for the patch metadata of
	 * built-in kinds, as kubectl prefers the server's document) or CRDs
	 * (consulted for the scope of custom kinds). NULL = built-in only. */
	const smp_schema *schema;
	const char *default_namespace; /* namespace for namespaced objects that name
	                                  none; NULL or "" = "default" (as -n) */
	bool overwrite;              /* default true, as kubectl's --overwrite */
	/* true (kubectl with an explicit -n): an object naming another namespace
	 * than default_namespace is an error. */
	bool enforce_namespace;
	/* Version 2: scopes of kinds that neither the built-in tables nor
	 * `schema` know (smp_scopes; referenced, not copied). NULL = none. */
	const smp_scopes *scopes;
} smp_apply_options;

#define SMP_APPLY_OPTIONS_VERSION 2
#define SMP_APPLY_OPTIONS_INIT { SMP_APPLY_OPTIONS_VERSION, NULL, NULL, true, false, NULL }

/* The outcome for one object. Owns its values; free with smp_apply_result_free. */
typedef struct smp_apply_result smp_apply_result;

/* Computes what client-side `kubectl apply` does with `config` given the
 * live object `live` (NULL = it does not exist), without any server. The
 * live object comes first, as in smp_ssa_apply and smp_patch_apply (the
 * existing object, then what is sent; until version 1 the order was
 * config, live: CHANGELOG.md):
 *
 * 1. `config` must be a map with kind, apiVersion and metadata.name
 *    (SMP_EINVALOBJ otherwise). A namespaced kind (smp_apply_kind_scope;
 *    unknown kinds count as namespaced) without metadata.namespace gets
 *    opts->default_namespace or "default"; cluster-scoped kinds lose
 *    their metadata.namespace, if they have one, in the object sent and
 *    in the annotation, as kubectl's builder drops it. metadata.labels and
 *    spec.template.metadata.labels must be valid labels (SMP_EINVALOBJ,
 *    the rule broken in the message).
 * 2. modified = config with the last-applied annotation set to the config's
 *    own encoding (smp_last_applied_encode).
 * 3. No live object: action CREATE; the patch (request body) and the object
 *    are `modified` with null map values dropped (the annotation keeps them).
 * 4. Otherwise original = the live object's annotation (absent: none, and a
 *    warning in kubectl's words); the patch is the three-way patch
 *    (original, modified, live): strategic merge patch when the kind is in
 *    kubectl's scheme (the built-in tables record it per GVK), JSON merge
 *    patch otherwise (CustomResourceDefinition, APIService, custom
 *    resources, unknown kinds), as kubectl's patcher.go chooses; opts->schema
 *    never changes the choice. {} gives UNCHANGED (object = live), else
 *    CONFIGURE (object = the patch applied to live). The missing-annotation
 *    warning names the resource as the server does (endpoints/x): from
 *    opts->schema, the built-in tables, else kubectl's guess.
 * 5. With opts->overwrite false, SMP_ECONFLICT when the patch touches a field
 *    changed in live since the last apply (the annotation itself counts:
 *    see docs/APPLY.md). A changed apiVersion/kind/name is SMP_EPRECOND
 *    "At least one of apiVersion, kind and name was changed", except a
 *    changed apiVersion in a strategic patch: kubectl checks only its JSON
 *    merge patches, so the patch sets the configuration's apiVersion.
 * 6. Annotations of the result over SMP_ANNOTATIONS_MAX_BYTES in total:
 *    SMP_EINVALOBJ ("The Deployment "x" is invalid: metadata.annotations:
 *    Too long: must have at most 262144 bytes").
 * Error messages start with the object ("deployment.apps/nginx: ...").
 * `config` and `live` are only read; the result holds copies.
 * Needs the codec, schema and merge modules; thread-safe. */
SMP_API int smp_apply_object(smp_apply_result **out, const smp_value *live,
                             const smp_value *config, const smp_apply_options *opts,
                             smp_error *err);

/* Frees a result and every value it returned. NULL is fine. */
SMP_API void smp_apply_result_free(smp_apply_result *res);
/* The action (CREATE, CONFIGURE or UNCHANGED). */
SMP_API smp_apply_action smp_apply_result_action(const smp_apply_result *res);
/* STRATEGIC or MERGE: the patch type kubectl uses for this kind (also set
 * for CREATE, where the request is a plain POST of the object). */
SMP_API smp_patch_type smp_apply_result_patch_type(const smp_apply_result *res);
/* The request body kubectl sends: the object for CREATE, the patch for
 * CONFIGURE, {} for UNCHANGED. Owned by `res`. */
SMP_API const smp_value *smp_apply_result_patch(const smp_apply_result *res);
/* The object as it will be after the apply, as the API server stores it
 * before its defaulting (what `kubectl apply -o yaml` or --dry-run=server
 * shows; kubectl's --dry-run=client shows it only for creates). Owned by
 * `res`. */
SMP_API const smp_value *smp_apply_result_object(const smp_apply_result *res);
/* Warnings to show, one a line, without a final newline, or NULL: the
 * missing-annotation warning; for a JSON merge patch, each integer beyond
 * 2^53 that kubectl sends rounded through float64 (the field, the value and
 * what is sent). Owned by `res`. */
SMP_API const char *smp_apply_result_warning(const smp_apply_result *res);

/* Checks the types kubectl's decoder imposes when it reads an object from a
 * file (the document is decoded into apiVersion/kind strings and a
 * metav1.ObjectMeta with Go's encoding/json): apiVersion a string; metadata
 * a map (or null) whose name, generateName, namespace, uid,
 * resourceVersion, selfLink are strings, labels and annotations maps of
 * strings, finalizers a list of strings, generation and
 * deletionGracePeriodSeconds int64s, creationTimestamp and
 * deletionTimestamp RFC 3339 times (as Go's time.Parse reads them),
 * ownerReferences a list of maps (apiVersion, kind, name, uid strings;
 * controller, blockOwnerDeletion booleans), managedFields a list of maps
 * (manager, operation, apiVersion, fieldsType, subresource strings, time a
 * time). null is always fine; other keys are not checked (kind: kubectl
 * reports a non-string kind as a missing one). Returns 0 or SMP_EINVALOBJ
 * with kubectl's message ("json: cannot unmarshal number into Go struct
 * field ObjectMeta.metadata.annotations of type string", "parsing time
 * \"x\" as \"2006-01-02T15:04:05Z07:00\": cannot parse ..."), err->path
 * the offending value ("metadata.annotations.port") and its position. Of
 * several errors the one kubectl reports: fields in sorted key order (as
 * YAML reaches kubectl), the first type error unless a timestamp fails
 * (that one stops the decoding). SMP_EINVAL for NULL, SMP_ENOMEM. Only
 * reads; thread-safe. kubectl does not check the items of a List. */
SMP_API int smp_object_validate_meta(const smp_value *obj, smp_error *err);

/* smp_display_objects flags. */
enum {
	SMP_DISPLAY_MANAGED_FIELDS = 1u << 0, /* keep metadata.managedFields
	                                         (--show-managed-fields) */
	SMP_DISPLAY_MASK_SECRETS = 1u << 1    /* mask Secret data as kubectl diff does */
};

/* The objects kubectl prints, as copies: `before` (e.g. the live object)
 * and `after` (the result; either may be NULL: nothing) each become the
 * single root of a new document (*before_out / *after_out, NULL for a NULL
 * input; the caller frees them with smp_doc_free). Without
 * SMP_DISPLAY_MANAGED_FIELDS metadata.managedFields is removed (kubectl
 * apply -o yaml|json, kubectl diff). With SMP_DISPLAY_MASK_SECRETS, when
 * `after` (else `before`) has kind Secret and an apiVersion of version "v1",
 * every value of `data` is replaced as kubectl diff's Masker does: "***",
 * or "*** (before)" / "*** (after)" for a key whose value differs between
 * the two; the values of `stringData` likewise (kubectl's Masker leaves
 * them, but a configuration's stringData is the secret in plain text). A
 * `data` or `stringData` that is not a map is SMP_EINVALOBJ (kubectl's "run
 * masker: ..." error, err->path the field). SMP_EINVAL when an output pointer
 * is NULL for a non-NULL input; SMP_ENOMEM. Only reads its inputs;
 * thread-safe. */
SMP_API int smp_display_objects(smp_doc **before_out, smp_doc **after_out,
                                const smp_value *before, const smp_value *after,
                                unsigned flags, smp_error *err);

/* Computes the last-applied annotation text for `config` exactly as kubectl
 * writes it: the object with the annotation itself removed from
 * metadata.annotations (which stays, possibly as {}; an object without
 * annotations gets "annotations":{}), as compact JSON with sorted keys, Go
 * escaping of <, >, & (\u003c...) and a final newline. `config` must be a
 * map (SMP_EINVAL). `*out` is NUL-terminated; free it with smp_free. `len`
 * may be NULL. */
SMP_API int smp_last_applied_encode(char **out, size_t *len, const smp_value *config,
                            smp_error *err);

/* The annotation `kubectl apply set-last-applied` writes
 * (editor.GetApplyPatch): `config` encoded as it is read, its own
 * annotations kept (even a last-applied one) and no "annotations":{}
 * added, with metadata.namespace set to `ns` when that is non-empty
 * (NULL or "": none, e.g. cluster-scoped kinds) and the object names none;
 * compact JSON, sorted keys, Go escaping, a final newline. `config` must be
 * a map (SMP_EINVAL). Free `*out` with smp_free; `len` may be NULL. */
SMP_API int smp_set_last_applied_encode(char **out, size_t *len, const smp_value *config,
                                        const char *ns, smp_error *err);

/* Writes the name kubectl prints for `obj`, "kind.group/name" with the kind
 * in lower case ("deployment.apps/nginx", "configmap/settings"), into buf
 * (truncated to size-1 bytes, NUL-terminated when size > 0). Returns the
 * full length. */
SMP_API size_t smp_apply_object_ref(char *buf, size_t size, const smp_value *obj);

/* Whether `v` is a List as kubectl's builder reads one: any map with a
 * string kind and an items field, whatever its kind (List, ConfigMapList,
 * even a ConfigMap with items). 1 with *items its items (NULL for items:
 * null, an empty List), 0 not a List (*items NULL), -1 items is not a
 * list (*items that value). */
SMP_API int smp_apply_list_items(const smp_value *v, const smp_value **items);

/* The scope smp_apply_object gives `config`'s kind: 1 namespaced, 0
 * cluster-scoped, -1 unknown (then it counts as namespaced; kubectl would
 * know it from the server's discovery). In order: the exact
 * group/version/kind in opts->schema, then in the built-in tables; any
 * other version of the group/kind in them (a kind keeps its scope across
 * versions); kinds removed from Kubernetes before the tables' version
 * (PodSecurityPolicy, ...); opts->scopes. opts may be NULL. Thread-safe. */
SMP_API int smp_apply_kind_scope(const smp_value *config, const smp_apply_options *opts);

/* The namespace `config` is applied in: its metadata.namespace, else
 * opts->default_namespace, else "default"; "" for cluster-scoped kinds.
 * The result points into `config` or `opts`, or is static. opts may be
 * NULL. */
SMP_API const char *smp_apply_namespace(const smp_value *config,
                                        const smp_apply_options *opts);

/* ------------------------------------------------------------------------
 * Server-side apply: field ownership (metadata.managedFields)
 * ------------------------------------------------------------------------ */

/* Options of smp_ssa_apply() and smp_ssa_update(). */
/* What server-side apply keeps from one call to the next for a caller
 * making many (a plan, a controller): the schemas' types as server-side
 * apply reads them, compiled once instead of once per call, and a call's
 * scratch memory (up to 8 MiB), whose pages the next call reuses instead of
 * getting fresh ones from the kernel. The answers are the same with or
 * without one. Not thread-safe: one thread at a time (a caller with
 * several threads makes one per thread). It points into the schemas the
 * calls used (smp_ssa_options.schema, the built-in tables): free it before
 * them. */
typedef struct smp_ssa_cache smp_ssa_cache;

/* A new, empty cache (free with smp_ssa_cache_free), or NULL when out of
 * memory. */
SMP_API smp_ssa_cache *smp_ssa_cache_new(void);
/* Frees the cache and all it keeps; NULL is a no-op. */
SMP_API void smp_ssa_cache_free(smp_ssa_cache *cache);

typedef struct smp_ssa_options {
	unsigned version;          /* SMP_SSA_OPTIONS_VERSION */
	/* The field manager (kubectl's --field-manager). Apply: required
	 * (SMP_EINVAL without one, as the server refuses it); update: NULL or
	 * "" records the change as "unknown". */
	const char *manager;
	/* Apply: take the fields that conflict from their managers
	 * (--force-conflicts) instead of failing. Ignored by update. */
	bool force;
	/* Extra schema for the object's kind: OpenAPI v2/v3 documents or CRDs
	 * (smp_schema_load), searched before the built-in tables. NULL: the
	 * built-in tables only. */
	const smp_schema *schema;
	/* The time written into the managedFields entries this call changes,
	 * as RFC 3339 text ("2024-01-01T00:00:00Z"); NULL: the wall clock
	 * (UTC, whole seconds). */
	const char *now;
	/* Version 2. What the call may keep for the next ones and take from
	 * the ones before (smp_ssa_cache_new); NULL: nothing is kept. */
	smp_ssa_cache *cache;
} smp_ssa_options;

/* 2 adds cache; a version 1 struct (without it) is still accepted. */
#define SMP_SSA_OPTIONS_VERSION 2
#define SMP_SSA_OPTIONS_INIT { SMP_SSA_OPTIONS_VERSION, NULL, false, NULL, NULL, NULL }

/* One field an apply would take from another manager. Strings are owned
 * by the result they came from. */
typedef struct smp_ssa_conflict {
	const char *manager;      /* the manager that owns the field */
	const char *operation;    /* its entry's operation: "Apply" or "Update" */
	const char *api_version;  /* Update entries: the apiVersion it wrote with;
	                             "" for appliers */
	const char *subresource;  /* "" unless its entry names one */
	const char *path;         /* as the server prints it: ".spec.replicas",
	                             ".spec.template.spec.containers[name=\"app\"].image" */
} smp_ssa_conflict;

/* What one server-side apply or update does. Owns its values. */
typedef struct smp_ssa_result smp_ssa_result;

/* Computes what the API server stores for a server-side apply (PATCH with
 * application/apply-patch+yaml) of `config` to `live` (NULL: the object
 * does not exist yet), field ownership included, without a server: the
 * structured-merge-diff algorithm the API server runs (docs/SSA.md).
 *
 * `config` and `live` are maps with apiVersion and kind (a config's kind
 * and apiVersion must be live's); the kind's schema comes from
 * opts->schema, then the built-in tables (SMP_ESCHEMA for an unknown
 * kind). The config is merged into live by the schema: struct fields and
 * granular maps key by key, associative lists by their keys (containers by
 * name, ports by port and protocol, protocol defaulting to TCP), sets by
 * value, atomic lists and maps as a whole. Fields the manager applied
 * before and no longer applies are removed unless another manager owns
 * them. live's metadata.managedFields is the ownership before the call;
 * the result's is the ownership after it, in the server's order, with
 * opts->now as the time of the entries that change.
 *
 * Returns 0; SMP_ECONFLICT when another manager owns a field the config
 * sets to another value (and not opts->force): then, unlike other errors,
 * *out is set to a result that holds the conflicts (no object) and
 * err->message is the server's message ("Apply failed with 1 conflict:
 * conflict with \"kubectl-edit\" using apps/v1: .spec.replicas");
 * SMP_EINVALOBJ for a config the server rejects (metadata.managedFields
 * set, duplicate list keys, a missing key field, a value of the wrong
 * type, a field the schema does not have), err->path naming the place
 * (".spec.replicas"); SMP_EPRECOND for another kind or apiVersion than
 * live's; SMP_EINVAL for no manager or NULL/non-map arguments; SMP_ESCHEMA,
 * SMP_ELIMIT, SMP_ENOMEM. Only reads its arguments; thread-safe. */
SMP_API int smp_ssa_apply(smp_ssa_result **out, const smp_value *live,
                          const smp_value *config, const smp_ssa_options *opts,
                          smp_error *err);

/* Computes the ownership after a write that is not an apply (a PUT or any
 * other patch: kubectl replace, edit, scale, client-side apply): `object`
 * is the complete new object, stored as it is (null map values dropped);
 * the manager (opts->manager, default "unknown") becomes the owner of
 * every field it changed, added or removed, taken from any other manager
 * (updates never conflict). A non-empty metadata.managedFields in `object`
 * replaces live's ownership, an empty one ([]) resets it; ownership that
 * cannot be decoded makes the object stored untracked (no managedFields,
 * and smp_ssa_result_warning says why). Duplicate keys in an
 * associative list (of `object` or live) are accepted, as the API server
 * since Kubernetes 1.27 accepts them: the repeated items are stored as sent
 * and owned as a whole (their element alone in fieldsV1). For a built-in
 * kind the status is nobody's (the registry resets it on writes to the
 * main resource), nor a CertificateSigningRequest's spec; the same holds
 * for smp_ssa_apply. Errors as smp_ssa_apply's, except SMP_ECONFLICT and
 * duplicate list keys. */
SMP_API int smp_ssa_update(smp_ssa_result **out, const smp_value *live,
                           const smp_value *object, const smp_ssa_options *opts,
                           smp_error *err);

/* kubectl's migration of an object last applied client-side (client-go's
 * csaupgrade.UpgradeManagedFields, run by kubectl apply --server-side):
 * for each of the ncsa managers, the fields of its Update entry of the
 * same apiVersion are united into `manager`'s Apply entry (its most recent
 * Update entry becomes that Apply entry when there is none), and its
 * Update entries are removed; entries with a subresource are left alone.
 * *out: a new document whose root is the new managedFields list, or NULL
 * when nothing changes (kubectl then sends no patch). SMP_EINVALOBJ for
 * fieldsV1 that does not decode, SMP_EINVAL, SMP_ENOMEM. The same as
 * smp_ssa_upgrade_subresource() with subresource "". */
SMP_API int smp_ssa_upgrade_managed_fields(smp_doc **out, const smp_value *managed_fields,
                                           const char *const *csa_managers, size_t ncsa,
                                           const char *manager, smp_error *err);

/* smp_ssa_upgrade_managed_fields() with client-go's Subresource option:
 * only the entries of `subresource` ("" the main resource, "status", ...)
 * are looked at, united and removed; entries of other subresources are
 * left alone. */
SMP_API int smp_ssa_upgrade_subresource(smp_doc **out, const smp_value *managed_fields,
                                        const char *const *csa_managers, size_t ncsa,
                                        const char *manager, const char *subresource,
                                        smp_error *err);

/* client-go's csaupgrade.FindFieldsOwners for one field: how many entries
 * of `operation` ("Apply" or "Update") in managed_fields own the field at
 * path[0..depth) (map keys: "metadata", "annotations", NAME); the first
 * `max` managers' names into owners[] (borrowed from managed_fields). */
SMP_API size_t smp_ssa_fields_owners(const char **owners, size_t max,
                                     const smp_value *managed_fields, const char *operation,
                                     const char *const *path, size_t depth);

/* Frees a result and everything it returned. NULL is fine. */
SMP_API void smp_ssa_result_free(smp_ssa_result *res);
/* The stored object, with its metadata.managedFields (absent when nobody
 * owns anything); NULL after a conflict. Owned by `res`. */
SMP_API const smp_value *smp_ssa_result_object(const smp_ssa_result *res);
/* The managedFields list alone (an empty list when there are none; NULL
 * after a conflict). Owned by `res`. */
SMP_API const smp_value *smp_ssa_result_managed_fields(const smp_ssa_result *res);
/* Whether the object differs from live (for an apply: structured-merge-diff
 * found a change; the managedFields may change either way). */
SMP_API bool smp_ssa_result_changed(const smp_ssa_result *res);
/* The conflicts (sorted by manager, then in path order); *list may be
 * NULL when the count is 0. Owned by `res`. */
SMP_API size_t smp_ssa_result_conflicts(const smp_ssa_result *res,
                                        const smp_ssa_conflict **list);
/* After SMP_ECONFLICT: the server's message, as kubectl prints it after
 * "error: " (one line per manager and path when there are several
 * conflicts); NULL otherwise. Owned by `res`. */
SMP_API const char *smp_ssa_result_message(const smp_ssa_result *res);
/* A note on how the result was reached (an update stored untracked), one
 * line, or NULL. Owned by `res`. */
SMP_API const char *smp_ssa_result_warning(const smp_ssa_result *res);

/* ------------------------------------------------------------------------
 * Apply plans: `kubectl apply -f` (or replace) over many objects
 * ------------------------------------------------------------------------
 *
 * A plan is the loop kubectl runs around the per-object calls above: it
 * takes configuration documents and live documents (Lists expanded), then
 * decides, configuration by configuration in the order they were added,
 * which live object each one meets (same API group, kind, namespace and
 * name), whether the selectors keep it, and what kubectl sends; later
 * configurations of the same object see the result of earlier ones, as
 * kubectl applies them one after the other. With prune, the live objects
 * no configuration named follow. Each decision is an entry: its action,
 * the requests kubectl would send, the resulting object, warnings, and
 * for a failed object its error and the metav1.Status the server would
 * answer. One object's failure never stops the others (docs/DESIGN.md
 * has the data flow). */

/* What a plan does to each configuration. */
typedef enum smp_plan_mode {
	SMP_PLAN_CLIENT_SIDE = 0, /* kubectl apply: three-way patches (smp_apply_object) */
	SMP_PLAN_SERVER_SIDE,     /* kubectl apply --server-side (smp_ssa_apply) */
	SMP_PLAN_REPLACE,         /* kubectl replace: a PUT of each object (smp_ssa_update) */
	SMP_PLAN_CREATE           /* kubectl create: a POST of each object (smp_ssa_update of
	                             nothing; AlreadyExists when it exists) */
} smp_plan_mode;

typedef struct smp_plan_options {
	unsigned version;            /* SMP_PLAN_OPTIONS_VERSION */
	smp_plan_mode mode;          /* default SMP_PLAN_CLIENT_SIDE */
	/* Server-side and replace: the field manager; NULL = kubectl's default
	 * ("kubectl" for server-side apply, "kubectl-replace" for replace). */
	const char *field_manager;
	/* Server-side: take conflicting fields from their managers. */
	bool force_conflicts;
	/* OpenAPI document or CRDs (smp_schema_load): patch metadata, scopes,
	 * server-side types. NULL = the built-in tables. Referenced. */
	const smp_schema *schema;
	/* Namespace of namespaced objects that name none (NULL or "":
	 * "default"); with enforce_namespace an object naming another one is
	 * an error entry (kubectl with an explicit -n). */
	const char *default_namespace;
	bool enforce_namespace;
	/* Client-side: false refuses to overwrite fields changed in the live
	 * object since the last apply (a CONFLICT entry). Default true. */
	bool overwrite;
	/* Only configurations whose labels match (smp_selector_parse) and
	 * whose fields match (smp_field_selector_parse; read with the
	 * namespace filled in). NULL = all. Referenced, not copied. */
	const smp_selector *selector;
	const smp_selector *field_selector;
	/* Client-side prune: live objects that carry the last-applied
	 * annotation, match `selector` (or every one with prune_all), are of a
	 * prunable kind and in a namespace the configurations use, and that no
	 * configuration named, become PRUNE entries. prune needs a selector or
	 * prune_all (SMP_EINVAL otherwise). */
	bool prune;
	bool prune_all;
	/* The prunable kinds as "group/version/kind" ("core/v1/ConfigMap",
	 * "apps/v1/Deployment"); each kind must be known to the built-in
	 * tables or `schema` (SMP_EINVAL, kubectl's message). None: kubectl's
	 * default set (docs/APPLY.md). */
	const char *const *prune_allowlist;
	size_t prune_allowlist_len;
	/* Kinds no schema describes that are cluster-scoped, as
	 * smp_scopes_declare names them ("ClusterIssuer.cert-manager.io" or
	 * "Kind"). Other unknown kinds are learned from the live objects added,
	 * else taken as namespaced with a warning on their first entry. */
	const char *const *cluster_scoped;
	size_t cluster_scoped_len;
	/* Server-side and replace: the time of the managedFields entries that
	 * change (RFC 3339); NULL = the wall clock. */
	const char *now;
	/* The stored form (what `kubectl apply --dry-run=server` and `kubectl
	 * diff` show): each entry's object as the API server stores it
	 * (smp_stored_form: defaults, canonical quantities, unknown fields
	 * dropped), and its diff against the live object's stored form, so
	 * that what differs only by defaults or quantity spelling does not
	 * show. An object the server would refuse there (a bad quantity) is an
	 * ERROR entry with the server's Status. */
	bool stored;
	/* Prune: what the DELETE asks (kubectl's --cascade and --grace-period;
	 * -1: no gracePeriodSeconds sent). */
	smp_propagation propagation;
	int64_t grace_period_seconds;
	/* Client-side: the field validation of what is sent (kubectl's
	 * --validate, the server's fieldValidation), on the object each create
	 * or patch leaves: STRICT (kubectl's default) makes an unknown field an
	 * ERROR entry with the server's message and Status, WARN a warning,
	 * IGNORE nothing; a value of the wrong type fails in every mode
	 * (smp_object_validate; the schema, then the built-in tables). */
	smp_validate_mode validate;
	/* Ignore rules (as GitOps tools declare them): fields left out of each
	 * entry's diff, changes and unchanged/configured decision, never out
	 * of what is sent. ignore_fields are "[KIND[.GROUP]:]PATH", PATH a
	 * JSON pointer ("/spec/replicas") or smp_changes' path syntax
	 * ("spec.template.spec.containers[name=web].image", `[=v]`, `[3]`, `*`
	 * for every key or item); ignore_managers are field managers whose
	 * fields in the live object's managedFields are left out. */
	const char *const *ignore_fields;
	size_t ignore_fields_len;
	const char *const *ignore_managers;
	size_t ignore_managers_len;
	/* Threads that decide the entries (smp_plan_compute, smp_plan_run):
	 * 0 or 1, the caller's alone; N, the caller's and N - 1 more for the
	 * time of the call (at most 64; plans of fewer than 64
	 * configurations use one). Entries are handed on in the same order,
	 * and are the same, for every N; the callback of smp_plan_run is
	 * always called on the caller's thread. */
	unsigned jobs;
	/* Server-side: the client-side managers whose Update entries are
	 * migrated into the field manager's Apply entry (client-go's
	 * csaupgrade, then the configuration applied again), as a tool that
	 * moves from its own client-side writes to server-side apply does (Helm:
	 * "helm"). None (the default): kubectl's migration, of the Update
	 * entries that own the last-applied annotation. */
	const char *const *csa_managers;
	size_t csa_managers_len;
	/* kubectl's ApplySet (KEP-3659, `--applyset` with `--prune`), in
	 * client-side and server-side apply: "[RESOURCE][.GROUP]/NAME" or
	 * "NAME" (a Secret), the parent object: a v1 Secret or ConfigMap in
	 * default_namespace (which enforce_namespace must give, as kubectl's
	 * -n), or a custom resource that exists among the live objects, whose
	 * CustomResourceDefinition (live too) carries the label
	 * applyset.kubernetes.io/is-parent-type. Needs prune, and neither a
	 * selector, prune_all nor prune_allowlist (SMP_EINVAL). Every
	 * configuration gets the label applyset.kubernetes.io/part-of; the
	 * parent is applied server-side by "<tool>-applyset" before them and,
	 * when none failed, after the prune, which takes the members (the
	 * part-of label) of the kinds and namespaces the live parent lists that
	 * no configuration named (docs/APPLY.md). What kubectl refuses before
	 * applying anything (a bad reference, a parent of another tool or ID,
	 * the label already set in a configuration) fails smp_plan_compute.
	 * NULL: none. */
	const char *applyset;
	/* The ApplySet's tooling annotation, "NAME/VERSION"; the manager is
	 * "NAME-applyset", and a live parent of another NAME is refused.
	 * NULL: "kubectl/v1.32.0". */
	const char *applyset_tooling;
} smp_plan_options;

#define SMP_PLAN_OPTIONS_VERSION 1
#define SMP_PLAN_OPTIONS_INIT                                                          \
	{ SMP_PLAN_OPTIONS_VERSION, SMP_PLAN_CLIENT_SIDE, NULL, false, NULL, NULL, false, \
	  true, NULL, NULL, false, false, NULL, 0, NULL, 0, NULL, false,                 \
	  SMP_PROPAGATION_BACKGROUND, -1, SMP_VALIDATE_STRICT, NULL, 0, NULL, 0, 0, NULL, 0,  \
	  NULL, NULL }

/* Fills `o` with the defaults of SMP_PLAN_OPTIONS_INIT for `version`
 * (SMP_PLAN_OPTIONS_VERSION). SMP_EINVAL for NULL or an unknown version. */
SMP_API int smp_plan_options_init(smp_plan_options *o, unsigned version);

/* For bindings, which must not know the struct's layout: a heap-allocated
 * smp_plan_options with the defaults (free with smp_plan_options_free),
 * and setters by field name. The names are the struct's fields:
 * set_bool: force_conflicts, enforce_namespace, overwrite, prune,
 * prune_all, stored; set_string: mode ("client-side", "server-side", "replace",
 * "create"),
 * field_manager, default_namespace, now, propagation ("background",
 * "foreground", "orphan"), validate ("strict" or "true", "warn", "ignore"
 * or "false"); set_int: grace_period_seconds, jobs; set_handle:
 * schema (smp_schema), selector, field_selector (smp_selector); set_list:
 * prune_allowlist, cluster_scoped, ignore_fields, ignore_managers, csa_managers.
 * Strings, lists and handles are referenced, not copied:
 * they must outlive every plan made with the options. SMP_EINVAL for an
 * unknown name or mode, or NULL `o`/`name`; SMP_ENOMEM. */
SMP_API int smp_plan_options_new(smp_plan_options **out);
SMP_API void smp_plan_options_free(smp_plan_options *o);
SMP_API int smp_plan_options_set_bool(smp_plan_options *o, const char *name, bool value);
SMP_API int smp_plan_options_set_string(smp_plan_options *o, const char *name,
                                        const char *value);
SMP_API int smp_plan_options_set_int(smp_plan_options *o, const char *name, int64_t value);
SMP_API int smp_plan_options_set_handle(smp_plan_options *o, const char *name,
                                        const void *handle);
SMP_API int smp_plan_options_set_list(smp_plan_options *o, const char *name,
                                      const char *const *values, size_t n);

/* A plan: its inputs, options and entries. Used by one thread at a time;
 * two plans are independent. */
typedef struct smp_plan smp_plan;
/* One decision of a plan. Owned by the plan (smp_plan_entry_at), or by
 * the callback's scope (smp_plan_run): valid until then. */
typedef struct smp_plan_entry smp_plan_entry;

/* A new, empty plan with `opts` (NULL: the defaults; copied, but what it
 * points to is referenced). SMP_EINVAL for bad options (a bad allowlist
 * entry, cluster_scoped name or ignore_fields path, with kubectl's message
 * and err->path "prune_allowlist[i]" / "cluster_scoped[i]" /
 * "ignore_fields[i]"; prune without a selector or
 * prune_all; prune in server-side mode), SMP_ENOMEM. Free with
 * smp_plan_free. */
SMP_API int smp_plan_new(smp_plan **out, const smp_plan_options *opts, smp_error *err);

/* Frees the plan, its inputs and its entries. NULL is fine. */
SMP_API void smp_plan_free(smp_plan *plan);

/* Adds the configurations of `doc` (every root; Lists, i.e. any object
 * with a kind and items, give their items), in order. The plan owns `doc`
 * from now on, also when the call fails. `label` (copied; NULL: "") names
 * the input in errors, as a file name. Each object is checked as kubectl
 * decodes it (smp_object_validate_meta): one that fails becomes an ERROR
 * entry in its place. SMP_EINVALOBJ (err with label, line, column) for a
 * root or item that is not a map, an items field that is not a list or
 * an item that is itself a list: nothing of `doc` is added then. SMP_EINVAL
 * after compute or run, SMP_ENOMEM. */
SMP_API int smp_plan_add_config(smp_plan *plan, smp_doc *doc, const char *label,
                                smp_error *err);

/* Adds live objects (as `kubectl get -o yaml|json` prints them; Lists
 * expanded), as smp_plan_add_config does; the first of several with the
 * same group, kind, namespace and name is the one configurations meet.
 * Their scopes are learned (smp_scopes_learn). Errors as add_config's. */
SMP_API int smp_plan_add_live(smp_plan *plan, smp_doc *doc, const char *label,
                              smp_error *err);

/* Adds the live objects of the file at `path` without holding them: a
 * JSON List (`kubectl get -A -o json`) is read through once, item by item,
 * each item checked as smp_plan_add_live checks it and its reference
 * indexed, then dropped; an entry that needs the object reads it again from
 * the file (the entry owns that copy), so a plan over a dump larger than
 * memory holds only what its entries hold. Anything else (YAML, one
 * object, several documents, standard input as "-") is parsed whole and
 * added as smp_plan_add_live adds it. The file stays open until
 * smp_plan_free and must not change meanwhile (an object that no longer
 * reads back is an ERROR entry). Errors: SMP_EIO (cannot open or read),
 * those of smp_doc_parse_file with the file's line and column, and
 * add_live's. */
SMP_API int smp_plan_add_live_file(smp_plan *plan, const char *path, smp_error *err);

/* Records a configuration input that could not be read (a file that does
 * not parse: its error with file, line and column): an ERROR entry in its
 * place among the configurations, as kubectl reports such a file and goes
 * on with the others. SMP_EINVAL (NULL, or after compute), SMP_ENOMEM. */
SMP_API int smp_plan_add_error(smp_plan *plan, const smp_error *input_error);

/* Decides every entry and keeps them (smp_plan_count, smp_plan_entry_at):
 * configurations in order (ERROR and CONFLICT entries in their place),
 * then prunes. Once per plan. SMP_EINVALOBJ "no objects passed to apply"
 * (or "... to replace") when no configuration was added, or the label
 * selector kept none and none failed, as kubectl (prune does not run
 * then); SMP_EINVAL when already computed or run; SMP_ENOMEM. A failed
 * object is an entry, not a failure of the call. */
SMP_API int smp_plan_compute(smp_plan *plan, smp_error *err);

/* Number of entries after smp_plan_compute (0 before). */
SMP_API size_t smp_plan_count(const smp_plan *plan);

/* Number of configurations added (objects of the documents, Lists
 * expanded, and input errors): what a run goes through before prunes, for
 * a progress count. 0 for NULL. */
SMP_API size_t smp_plan_config_count(const smp_plan *plan);

/* Entry i after smp_plan_compute, or NULL when out of range. Owned by the
 * plan. */
SMP_API const smp_plan_entry *smp_plan_entry_at(const smp_plan *plan, size_t i);

/* Receives each entry of smp_plan_run as it is decided. Returns 0 to go
 * on, anything else to stop the run (smp_plan_run then returns that
 * value). The entry and what it returns are valid during the call only. */
typedef int (*smp_plan_fn)(const smp_plan_entry *entry, void *user);

/* The streaming form of smp_plan_compute: the same entries in the same
 * order, each handed to `fn` as soon as it is decided and freed after the
 * call, so the caller never holds the whole plan (the plan keeps only the
 * results a later configuration of the same object needs). Once per plan,
 * instead of compute. Returns 0, fn's non-zero value, or compute's
 * errors. */
SMP_API int smp_plan_run(smp_plan *plan, smp_plan_fn fn, void *user, smp_error *err);

/* What the entry does (SMP_ACTION_*). */
SMP_API smp_apply_action smp_plan_entry_action(const smp_plan_entry *e);

/* Whether the entry is the ApplySet's parent (the applyset option): its
 * apply before the configurations and, after the prune, again; CREATE,
 * CONFIGURE or UNCHANGED as server-side apply decides, one request (two
 * after a conflict: kubectl's retry with force, and a warning), no
 * configuration. kubectl prints no status line for it and leaves it out
 * of -o yaml|json. */
SMP_API bool smp_plan_entry_applyset_parent(const smp_plan_entry *e);

/* The input label the entry's configuration (prune: live object) came
 * from; "" when none. Owned by the plan. */
SMP_API const char *smp_plan_entry_label(const smp_plan_entry *e);

/* What the entry is about, as it is sent: apiVersion, kind, namespace
 * ("" for cluster-scoped objects) and name; "" when the object lacks one.
 * Owned by the plan. */
SMP_API const char *smp_plan_entry_api_version(const smp_plan_entry *e);
SMP_API const char *smp_plan_entry_kind(const smp_plan_entry *e);
SMP_API const char *smp_plan_entry_namespace(const smp_plan_entry *e);
SMP_API const char *smp_plan_entry_name(const smp_plan_entry *e);

/* The configuration as added (NULL for prune and input errors), the live
 * object before (NULL: none), and the object after: as the server stores
 * it (server-side and replace: with its managedFields; client-side: before
 * the server's defaulting, see smp_apply_result_object); NULL for prune
 * and failed entries. Owned by the plan or the entry. */
SMP_API const smp_value *smp_plan_entry_config(const smp_plan_entry *e);
SMP_API const smp_value *smp_plan_entry_live(const smp_plan_entry *e);
SMP_API const smp_value *smp_plan_entry_object(const smp_plan_entry *e);

/* The body of the entry's main request, as `smpatch apply -o patch`
 * shows it: client-side the object (create), the patch (configure) or {}
 * (unchanged, nothing sent); server-side and replace the configuration
 * with its namespace filled in. NULL for prune and failed entries. */
SMP_API const smp_value *smp_plan_entry_patch(const smp_plan_entry *e);

/* Client-side: the patch type kubectl uses for the kind (STRATEGIC or
 * MERGE); STRATEGIC otherwise. */
SMP_API smp_patch_type smp_plan_entry_patch_type(const smp_plan_entry *e);

/* The requests kubectl sends for the entry, in order (0 for unchanged
 * client-side objects and failed entries; 1 for most; room for more):
 * method ("POST", "PATCH", "PUT", "DELETE"), Content-Type
 * ("application/json", "application/strategic-merge-patch+json",
 * "application/merge-patch+json", "application/apply-patch+yaml"), the
 * fieldManager query parameter (NULL when none is sent), the force
 * parameter, and the body (DELETE: the DeleteOptions). NULL/false when
 * `i` is out of range. Owned by the entry. */
SMP_API size_t smp_plan_entry_request_count(const smp_plan_entry *e);
SMP_API const char *smp_plan_request_method(const smp_plan_entry *e, size_t i);
SMP_API const char *smp_plan_request_content_type(const smp_plan_entry *e, size_t i);
SMP_API const char *smp_plan_request_field_manager(const smp_plan_entry *e, size_t i);
SMP_API bool smp_plan_request_force(const smp_plan_entry *e, size_t i);
SMP_API const smp_value *smp_plan_request_body(const smp_plan_entry *e, size_t i);

/* The entry's warnings, one line each as kubectl prints it ("Warning:
 * ..."), without a newline: the missing last-applied annotation, integers
 * rounded in a merge patch, an unknown scope taken as namespaced. Owned
 * by the entry. */
SMP_API size_t smp_plan_entry_warning_count(const smp_plan_entry *e);
SMP_API const char *smp_plan_entry_warning(const smp_plan_entry *e, size_t i);

/* ERROR and CONFLICT entries: the error, its message starting with the
 * object ("deployment.apps/web: ...") and its file (the label), line and
 * column where known; NULL for other entries. Owned by the entry. */
SMP_API const smp_error *smp_plan_entry_error(const smp_plan_entry *e);

/* More about a failure, several lines ending in a newline, or NULL: for a
 * client-side conflict the patch and the live changes since the last
 * apply (YAML); for a server-side conflict the server's message whole (one
 * line per manager and field, where the error's message has them on one
 * line), then kubectl's advice. Owned by the entry. */
SMP_API const char *smp_plan_entry_error_detail(const smp_plan_entry *e);

/* For a failed object (not an input that could not be read), the
 * metav1.Status the server answers, one shape in every mode: a
 * server-side field conflict is 409 Conflict with one FieldManagerConflict
 * cause per field, a missing object for replace 404 NotFound, others as
 * smp_status_from_error makes them from the entry's error (422 Invalid for
 * a field, 409 Conflict for a client-side conflict or a changed name, 400
 * BadRequest for what cannot be decoded). NULL otherwise. Owned by the
 * entry. */
SMP_API const smp_value *smp_plan_entry_status(const smp_plan_entry *e);

/* PRUNE entries: the DeleteOptions to delete the live object safely from
 * a plan made on a dump: kubectl's body (propagationPolicy,
 * gracePeriodSeconds: smp_plan_request_body) plus preconditions, the live
 * object's uid and resourceVersion, so that the server refuses to delete
 * an object recreated or changed since (smp_delete_options_build). A live
 * object without a uid gets none, and a warning. NULL for other entries.
 * Owned by the entry. */
SMP_API const smp_value *smp_plan_entry_delete_options(const smp_plan_entry *e);

/* Every changed field of the entry, as the single root of a new document
 * (free with smp_doc_free): smp_changes() of the live object and the
 * object after (stored forms when the plan has `stored`), keyed by merge
 * key, Secret values masked unless `flags` has SMP_CHANGES_NO_MASK; a new
 * object and a pruned one are one change each. SMP_EINVAL for failed
 * entries, SMP_ENOMEM. */
SMP_API int smp_plan_entry_changes(smp_doc **out, const smp_plan_entry *e, unsigned flags,
                                   smp_error *err);

/* A plan's summary, as people reviewing a big change read it ("3
 * objects: 1 to create, 1 to configure, 1 unchanged, 0 to prune, 0
 * conflicts, 0 errors; 7 fields changed"): counts in this order, the
 * ApplySet parent's entries left out (kubectl prints nothing about it). */
enum {
	SMP_PLAN_SUMMARY_OBJECTS = 0,   /* entries counted */
	SMP_PLAN_SUMMARY_CREATE,
	SMP_PLAN_SUMMARY_CONFIGURE,
	SMP_PLAN_SUMMARY_UNCHANGED,
	SMP_PLAN_SUMMARY_PRUNE,
	SMP_PLAN_SUMMARY_CONFLICT,
	SMP_PLAN_SUMMARY_ERROR,
	SMP_PLAN_SUMMARY_CHANGES,       /* changed fields (smp_plan_entry_changes) */
	SMP_PLAN_SUMMARY_COUNT
};

/* The name of count i ("objects", "create", "configure", "unchanged",
 * "prune", "conflict", "error", "changes"), NULL past the last: bindings
 * read the order from here. */
SMP_API const char *smp_plan_summary_key(size_t i);

/* Adds entry e to counts[0..n) (n up to SMP_PLAN_SUMMARY_COUNT; a
 * streaming run adds each entry it is given): its action, and its changed
 * fields as smp_plan_entry_changes counts them. SMP_EINVAL, SMP_ENOMEM. */
SMP_API int smp_plan_summary_add(size_t *counts, size_t n, const smp_plan_entry *e,
                                 smp_error *err);

/* The counts of every entry of a computed plan into counts[0..n), zeroed
 * first. SMP_EINVAL, SMP_ENOMEM. */
SMP_API int smp_plan_summary(const smp_plan *plan, size_t *counts, size_t n, smp_error *err);

/* The summary line of counts[0..SMP_PLAN_SUMMARY_COUNT), without a
 * newline, into a new buffer (free with smp_free; `len` may be NULL). */
SMP_API int smp_plan_summary_line(char **out, size_t *len, const size_t *counts,
                                  smp_error *err);

/* smp_plan_entry_status_line flags */
enum {
	SMP_PLAN_LINE_DRY_RUN = 1u << 0,       /* " (dry run)" */
	SMP_PLAN_LINE_SERVER_DRY_RUN = 1u << 1 /* " (server dry run)" */
};

/* kubectl's status line for the entry, without a newline:
 * "deployment.apps/web created|configured|unchanged|pruned",
 * "... serverside-applied", "... replaced", with the dry-run suffix the
 * flags ask for. Into a new buffer (free with smp_free; `len` may be
 * NULL). SMP_EINVAL for failed entries (they have an error instead) or
 * NULL arguments, SMP_ENOMEM. */
SMP_API int smp_plan_entry_status_line(char **out, size_t *len, const smp_plan_entry *e,
                                       unsigned flags, smp_error *err);

/* smp_plan_entry_diff flags */
enum {
	SMP_PLAN_DIFF_MANAGED_FIELDS = 1u << 0, /* keep metadata.managedFields */
	SMP_PLAN_DIFF_COLOR = 1u << 1,          /* ANSI colours (headers bold, hunks
	                                           cyan, removals red, additions green) */
	SMP_PLAN_DIFF_NO_MASK = 1u << 2         /* show Secret data and stringData */
};

/* The two sides `kubectl diff` compares, as the YAML it writes into its
 * two directories: the live object before (NULL when there is none) and
 * the object after (NULL for prune), both in their stored form when the
 * plan's options ask for it and without the fields of its ignore rules, without metadata.managedFields
 * unless asked, the values of a v1 Secret's `data` and `stringData` masked
 * as kubectl's Masker does ("***", or "*** (before)" / "*** (after)" for
 * values that differ) unless SMP_PLAN_DIFF_NO_MASK. Free both with
 * smp_free; the length pointers may be NULL. SMP_EINVAL for failed
 * entries, SMP_EINVALOBJ for a Secret whose data is not a map, SMP_ENOMEM. */
SMP_API int smp_plan_entry_diff_sides(char **live, size_t *live_len, char **merged,
                                      size_t *merged_len, const smp_plan_entry *e,
                                      unsigned flags, smp_error *err);

/* The file name kubectl diff gives the entry in both directories,
 * "[group.]version.Kind.namespace.name" ("apps.v1.Deployment.prod.web",
 * "v1.Namespace..prod"), into buf (truncated, NUL-terminated when size >
 * 0). Returns the full length. */
SMP_API size_t smp_plan_entry_diff_name(char *buf, size_t size, const smp_plan_entry *e);

/* The entry as `kubectl diff` shows it: a unified diff (3 lines of
 * context) of the two sides (smp_plan_entry_diff_sides), headed
 * "diff -u -N live/NAME merged/NAME", "--- live/NAME", "+++ merged/NAME";
 * "" (len 0) when nothing changes. Free with smp_free. Errors as
 * smp_plan_entry_diff_sides's. */
SMP_API int smp_plan_entry_diff(char **out, size_t *len, const smp_plan_entry *e,
                                unsigned flags, smp_error *err);

/* A unified diff of two texts (3 lines of context, hunks as GNU diff -u
 * makes them), headed "diff -u -N LEFT RIGHT", "--- LEFT", "+++ RIGHT";
 * "" when they are equal. `flags` takes SMP_PLAN_DIFF_COLOR. Free with
 * smp_free. SMP_ENOMEM. Thread-safe. */
SMP_API int smp_text_diff(char **out, size_t *len, const char *left_name, const char *a,
                          size_t alen, const char *right_name, const char *b, size_t blen,
                          unsigned flags, smp_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SMPATCH_H */
