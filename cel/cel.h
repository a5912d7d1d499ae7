/*
 * cel.h - the Common Expression Language as cel-go (v0.22, Kubernetes
 * 1.32's) evaluates the x-kubernetes-validations rules of CRDs: an
 * expression is parsed once into an immutable program (shareable between
 * threads), then evaluated per object with its variables (`self`,
 * `oldSelf`). Internal to the library: below the schema and apply layers,
 * above codec and regex.
 *
 * Values are small structs passed by value. Strings, lists and maps made
 * during an evaluation live in the evaluation's arena; values read from a
 * document (cel_from_json) refer to it without copying it.
 */
#ifndef SMP_CEL_H
#define SMP_CEL_H

#include "codec/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum cel_kind {
	CEL_NULL,
	CEL_BOOL,
	CEL_INT,
	CEL_UINT,
	CEL_DOUBLE,
	CEL_STRING,
	CEL_BYTES,
	CEL_LIST,
	CEL_MAP,
	CEL_TYPE,      /* a type value: its name in u.s ("int", "list", ...) */
	CEL_DURATION,  /* u.t: seconds and nanoseconds (same sign) */
	CEL_TIMESTAMP, /* u.t: seconds since the epoch, nanoseconds */
	CEL_OPTIONAL,  /* u.opt: the value, or NULL for optional.none() */
	CEL_ERROR,     /* u.s: the message ("no such key: x") */
	CEL_IP,        /* u.net: Kubernetes' net.IP (bits unused) */
	CEL_CIDR,      /* u.net: Kubernetes' net.CIDR (the address as written) */
	CEL_OPAQUE     /* u.obj: a value of a library the caller adds */
} cel_kind;

/* A value of a type the caller's functions (cel_eval.ext) make: a
 * Kubernetes Quantity or NamedFormat, which the caller may embed in a
 * larger struct of its own. cmp compares two of the type for `==` (0:
 * equal), -2 when its Equal refuses the right side (no such overload). */
typedef struct cel_opaque {
	const char *type;  /* its CEL type name: "kubernetes.Quantity" */
	const char *text;
	size_t len;
	int (*cmp)(const struct cel_opaque *a, const struct cel_opaque *b);
} cel_opaque;

/* An IP address or prefix (netip.Addr, netip.Prefix). */
typedef struct cel_net {
	uint8_t addr[16]; /* IPv4 in the first 4 bytes */
	uint8_t v6;       /* 0: IPv4 */
	uint8_t bits;     /* a prefix's length */
} cel_net;

typedef struct cel_agg cel_agg;
typedef struct cel_val cel_val;

struct cel_val {
	uint8_t kind; /* cel_kind */
	union {
		bool b;
		int64_t i;
		uint64_t u;
		double d;
		struct {
			const char *p;
			size_t n;
		} s;
		struct {
			int64_t sec;
			int32_t nsec;
		} t;
		const cel_agg *agg;
		const cel_val *opt;
		const cel_net *net;
		const cel_opaque *obj;
	} u;
};

/* How a document's values are typed (the caller's schema: a CRD's, so
 * that this module needs no schema of its own). `type` is the caller's
 * opaque type of a value, NULL when untyped. */
typedef struct cel_typing {
	/* the type of a map's value at key (klen bytes), of a list's items
	 * when key is NULL */
	const void *(*child)(const void *type, const char *key, size_t klen);
	/* how a scalar of the type reads: CEL_DOUBLE (an integer read as a
	 * number), CEL_TIMESTAMP, CEL_DURATION, CEL_BYTES, or CEL_NULL: as it
	 * is */
	cel_kind (*scalar)(const void *type);
	/* whether a map of the type is an object with declared properties,
	 * whose names CEL writes escaped (Kubernetes' escaping: `a-b` is
	 * self.a__dash__b) */
	bool (*object)(const void *type);
} cel_typing;

/* A list (items[0..n)) or a map (keys[i] -> items[i]); or a view of a
 * document's list or map (json), whose elements are converted as they are
 * read. */
struct cel_agg {
	uint32_t n;
	const cel_val *keys;   /* maps made here */
	const cel_val *items;
	const smp_value *json; /* a document's list or map, or NULL */
	const void *type;      /* the view's type (cel_typing), or NULL */
	const cel_typing *typing;
};

/* ---- programs ---- */

typedef struct cel_program cel_program;

/* Parses `expr` (len bytes). 0 and the program in *out (free with
 * cel_program_free); -1 with the parse error in msg (cel-go's words where
 * known); -2 when memory runs out. */
int cel_compile(cel_program **out, const char *expr, size_t len, char *msg, size_t msglen);
void cel_program_free(cel_program *p);

/* Whether the program reads the variable `name` (oldSelf: a transition
 * rule). */
bool cel_program_uses(const cel_program *p, const char *name);

/* One variable of an evaluation. */
typedef struct cel_var {
	const char *name;
	cel_val val;
} cel_var;

/* An evaluation's state: its arena (values made while evaluating, freed
 * with cel_eval_release) and its cost budget. */
typedef struct cel_eval cel_eval;

/* Functions the caller adds (libraries that need the layers above cel/,
 * such as Kubernetes' quantity): `found` false when `name` is none of
 * them. */
typedef cel_val (*cel_ext_fn)(cel_eval *e, const char *name, const cel_val *recv,
                              const cel_val *args, uint32_t nargs, bool *found);

struct cel_eval {
	smp_arena arena;
	uint64_t cost, limit;  /* cel-go's runtime cost; limit 0: none */
	bool oom;
	cel_ext_fn ext;        /* NULL: none */
};

void cel_eval_init(cel_eval *e, uint64_t cost_limit);
void cel_eval_release(cel_eval *e);

/* Evaluates p with the variables vars[0..nvars): the result (an error value
 * for CEL's errors: "no such key", "division by zero", overflow, a cost
 * over the limit). e->oom when memory ran out. */
cel_val cel_run(cel_eval *e, const cel_program *p, const cel_var *vars, size_t nvars);

/* The code points of a string value (cel-go's size() of a string). */
int64_t cel_str_runes(const cel_val *s);
/* Kubernetes' cost of traversing `size` code points (library/cost.go):
 * math.Ceil(size * 0.1) in doubles as Go computes it (30 * 0.1 is above
 * 3: 4). */
uint64_t cel_traversal_cost(uint64_t size);

/* Go's url.ParseRequestURI of s[0..n) (Kubernetes' URL library and the
 * `uri` string format): true when it accepts s; else false with its
 * error's text in *msg, *mlen (`parse "a b": invalid URI for request`),
 * allocated in e's arena ("out of memory" and e->oom when it ran out). */
bool cel_url_request_uri(cel_eval *e, const char *s, size_t n, const char **msg, size_t *mlen);

/* ---- values ---- */

static inline cel_val cel_bool(bool b)
{
	cel_val v;

	v.kind = CEL_BOOL;
	v.u.b = b;
	return v;
}

static inline cel_val cel_int(int64_t i)
{
	cel_val v;

	v.kind = CEL_INT;
	v.u.i = i;
	return v;
}

static inline cel_val cel_uint(uint64_t u)
{
	cel_val v;

	v.kind = CEL_UINT;
	v.u.u = u;
	return v;
}

static inline cel_val cel_double(double d)
{
	cel_val v;

	v.kind = CEL_DOUBLE;
	v.u.d = d;
	return v;
}

static inline cel_val cel_null(void)
{
	cel_val v;

	v.kind = CEL_NULL;
	v.u.i = 0;
	return v;
}

/* A string value referring to p (which must outlive it). */
static inline cel_val cel_str(const char *p, size_t n)
{
	cel_val v;

	v.kind = CEL_STRING;
	v.u.s.p = p;
	v.u.s.n = n;
	return v;
}

/* An error value with a constant message. */
static inline cel_val cel_error(const char *msg)
{
	cel_val v;

	v.kind = CEL_ERROR;
	v.u.s.p = msg;
	v.u.s.n = 0;
	while (msg[v.u.s.n])
		v.u.s.n++;
	return v;
}

/* A document's value as CEL sees it: null, bool, int, double, string,
 * lists and maps as views, typed by `typing` from `type` (both may be
 * NULL). Views are allocated in e's arena. */
cel_val cel_from_json(cel_eval *e, const smp_value *v, const void *type,
                      const cel_typing *typing);

/* The number of elements of a list or map. */
uint32_t cel_len(const cel_val *v);
/* Element i of a list, or key/value i of a map (in the document's order). */
cel_val cel_item(cel_eval *e, const cel_val *v, uint32_t i);
cel_val cel_key(cel_eval *e, const cel_val *v, uint32_t i);

/* CEL's == (with cross-type numeric equality): 1 true, 0 false, -1 when
 * the operands cannot be compared (an error). */
int cel_equal(const cel_val *a, const cel_val *b);

/* The name of a value's type: "int", "list", "google.protobuf.Duration". */
const char *cel_type_name(const cel_val *v);

#endif
