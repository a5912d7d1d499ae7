/*
 * eval_int.h - what the evaluator's files share (eval.c, value.c,
 * stdlib.c, time.c). Internal to cel/.
 */
#ifndef SMP_CEL_EVAL_INT_H
#define SMP_CEL_EVAL_INT_H

#include "cel/cel_int.h"

/* Numeric order across int, uint and double: -1, 0, 1; 2 when unordered
 * (NaN). */
int cel__num_cmp(const cel_val *a, const cel_val *b);
/* Equality within an evaluation: 1, 0, -1 (an error operand). */
int cel__equal(cel_eval *e, const cel_val *a, const cel_val *b);
/* A map's value at key (numeric keys compare by value): false when none. */
bool cel__map_find(cel_eval *e, const cel_val *m, const cel_val *key, cel_val *out);

/* A value made in the evaluation's arena. */
cel_val cel__str_copy(cel_eval *e, const char *p, size_t n, cel_kind k);
cel_val cel__list(cel_eval *e, const cel_val *items, uint32_t n);
cel_val cel__errorf(cel_eval *e, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
cel_val cel__no_overload(cel_eval *e, const char *fn);

/* A named function (stdlib.c): the receiver (NULL for a global call) and
 * the evaluated arguments. `found` false when no function has the name. */
cel_val cel__call(cel_eval *e, const char *name, const cel_val *recv, const cel_val *args,
                  uint32_t nargs, bool *found);

/* matches, find and findAll (stdlib.c) on string s with pattern pat,
 * compiled already when `pre` is not NULL (a literal pattern: the
 * program's), else compiled for the call. */
struct smp_regex;
cel_val cel__regex_call(cel_eval *e, const char *name, const cel_val *s, const cel_val *pat,
                        const struct smp_regex *pre, int64_t limit, bool *found);

/* Timestamps and durations (time.c). */
cel_val cel__timestamp_parse(const cel_val *s);
/* A timestamp, or the range error outside years 1 to 9999. */
cel_val cel__timestamp(int64_t sec, int32_t nsec);
cel_val cel__duration_parse(const cel_val *s);
cel_val cel__time_call(cel_eval *e, const char *name, const cel_val *recv, const cel_val *args,
                       uint32_t nargs, bool *found);
/* Base64 (StdEncoding) text as bytes: a string with format byte. */
cel_val cel__base64_bytes(cel_eval *e, const char *p, size_t n);
/* string(ts), string(dur): RFC 3339 and "1.5s". */
cel_val cel__time_string(cel_eval *e, const cel_val *v);
/* Adds a and b (timestamp or duration arithmetic); kind mismatches give
 * the no-overload error. sign -1 subtracts. */
cel_val cel__time_add(cel_eval *e, const cel_val *a, const cel_val *b, int sign);

/* Kubernetes' IP and CIDR libraries (net.c): the functions, string() of
 * an IP or CIDR (false for other kinds), and equality of two of a kind. */
cel_val cel__net_call(cel_eval *e, const char *name, const cel_val *recv, const cel_val *args,
                      uint32_t nargs, bool *found);
bool cel__net_string(smp_buf *b, const cel_val *v);
bool cel__net_equal(const cel_val *a, const cel_val *b);

/* Cost: one unit per call, as cel-go counts most functions; strings and
 * lists add their size where cel-go does. */
static inline bool cel__charge(cel_eval *e, uint64_t n)
{
	e->cost += n;
	return !e->limit || e->cost <= e->limit;
}

#endif
