/*
 * json_skip.h - where a JSON value ends, without reading it (json_skip.c).
 */
#ifndef SMP_JSON_SKIP_H
#define SMP_JSON_SKIP_H

#include <stddef.h>

/*
 * Where the JSON value that starts at buf[pos] (no whitespace before it)
 * ends: the index just after it, SMP_JSON_INCOMPLETE when buf ends first
 * (a bare scalar, a number say, runs to the end of buf: whether it ends
 * there only the caller knows), or SMP_JSON_MALFORMED when no value starts
 * there. Only brackets and strings are followed: whether the value is
 * valid JSON, the parser that reads it later says (json_skip.c).
 */
#define SMP_JSON_INCOMPLETE ((ptrdiff_t)-1)
#define SMP_JSON_MALFORMED ((ptrdiff_t)-2)
ptrdiff_t smp__json_value_end(const char *buf, size_t len, size_t pos);

#endif
