/*
 * regex.h - regular expressions as Go's regexp package runs them (RE2
 * syntax and semantics: no backreferences, linear time), over Debian's
 * RE2. Used by the validation of custom resources (`pattern`) and, later,
 * by CEL's matches(). Internal to the library.
 *
 * A compiled expression is immutable: threads may match with one at once.
 */
#ifndef SMP_REGEX_H
#define SMP_REGEX_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct smp_regex smp_regex;

/* Compiles `pat` (len bytes) as Go's regexp.Compile would. Returns 0 and
 * the expression in *out (free with smp_regex_free); -1 when RE2 refuses the
 * pattern (its reason in msg, truncated to msglen; Go refuses the same
 * patterns, in other words); -2 when memory runs out. */
int smp_regex_compile(smp_regex **out, const char *pat, size_t len, char *msg, size_t msglen);

/* Whether `s` (len bytes) holds a match anywhere, as Go's MatchString. */
bool smp_regex_search(const smp_regex *re, const char *s, size_t len);

/* The leftmost match in s[from..len) (Go's FindStringIndex semantics:
 * leftmost-first): true with its bounds in *start and *end. */
bool smp_regex_find(const smp_regex *re, const char *s, size_t len, size_t from, size_t *start,
                    size_t *end);

void smp_regex_free(smp_regex *re);

#ifdef __cplusplus
}
#endif
#endif
