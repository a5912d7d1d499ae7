/*
 * cel_int.h - the parsed form of a CEL expression (parse.c makes it,
 * eval.c walks it) and what the evaluator's files share. Internal to cel/.
 */
#ifndef SMP_CEL_INT_H
#define SMP_CEL_INT_H

#include "cel/cel.h"

/* Node kinds. Operators are calls (N_CALL) with an operator id. */
typedef enum cel_op {
	N_LIT,      /* lit */
	N_IDENT,    /* name */
	N_SELECT,   /* target.name; `test` for has() */
	N_OSELECT,  /* target.?name */
	N_CALL,     /* fn (a cel_fn) or name, target (receiver) or NULL, args */
	N_LIST,     /* args; opt[i]: ?elem */
	N_MAP,      /* args: keys and values alternating; opt[i]: ?key */
	N_STRUCT,   /* name{field: value}: args alternating names (N_LIT) and values */
	N_COMP      /* a comprehension (a macro): comp */
} cel_op;

/* The functions and operators the evaluator dispatches by id. */
typedef enum cel_fn {
	F_NONE,     /* a call by name (ext libraries, unknown functions) */
	F_COND,     /* _?_:_ */
	F_AND,      /* _&&_ */
	F_OR,       /* _||_ */
	F_NOT,      /* !_ */
	F_NEG,      /* -_ */
	F_ADD, F_SUB, F_MUL, F_DIV, F_MOD,
	F_EQ, F_NE, F_LT, F_LE, F_GT, F_GE,
	F_IN,       /* @in */
	F_INDEX,    /* _[_] */
	F_OINDEX,   /* _[?_] */
	F_NOT_STRICTLY_FALSE, /* @not_strictly_false, comprehensions' loops */
	F_MAP_INSERT,  /* the map macros' step: a copy of map args[0] with
	                  args[1] -> args[2] added (a key present: an error) */
	F_MAP_MERGE    /* transformMapEntry's step: args[1]'s entries added */
} cel_fn;

typedef struct cel_node cel_node;

/* A comprehension (the macros expand to it, as cel-go's do):
 *   accu = init; for iter (iter2) in range { if !cond break; accu = step }
 *   result */
typedef struct cel_comp {
	const char *iter, *iter2; /* iter2: the two-variable forms, or NULL */
	const char *accu;
	cel_node *range, *init, *cond, *step, *result;
} cel_comp;

struct cel_node {
	uint8_t op;     /* cel_op */
	uint8_t fn;     /* cel_fn (N_CALL) */
	bool test;      /* N_SELECT: has() */
	uint32_t pos;   /* byte offset in the expression */
	const char *name;
	size_t nlen;
	cel_node *target;
	cel_node **args;
	uint32_t nargs;
	uint8_t *opt;   /* N_LIST, N_MAP: optional entries */
	cel_val lit;
	cel_comp *comp;
	/* matches, find, findAll with a literal pattern: the pattern compiled
	 * once, with the program (owned by it) */
	const struct smp_regex *re;
};

struct cel_program {
	smp_arena arena;
	cel_node *root;
	bool uses_old_self;
	struct smp_regex **res; /* the nodes' compiled patterns, to free */
	size_t nres;
};

/* The value of a hexadecimal digit, -1 for another byte (the parser's
 * escapes, net.c's IPv6 groups). */
static inline int cel__hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Kubernetes' URL library (url.c): url(), isURL() and a URL's getters;
 * `found` false when `name` is none of them. */
cel_val cel__url_call(cel_eval *e, const char *name, const cel_val *recv, const cel_val *args,
                      uint32_t nargs, bool *found);

/* The name the macros give their accumulator (cel-go's "@result"). */
#define CEL_ACCU "@result"

#endif
