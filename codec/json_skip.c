/*
 * json_skip.c - where a JSON value ends, without reading it: for the
 * plan's live file, cut into its items before each item is parsed on its
 * own (apply/plan_live.c).
 */
#include "json_skip.h"

#include <stdbool.h>

/* Bytes that end a bare scalar (a number, true, false, null). */
static bool ends_scalar(char c)
{
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' ||
	       c == '\r' || c == ':' || c == '"' || c == '{' || c == '[';
}

/* The index just after the string that opens at buf[i] (a '"'), or
 * SMP_JSON_INCOMPLETE. */
static ptrdiff_t string_end(const char *buf, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (buf[i] == '\\')
			i++;
		else if (buf[i] == '"')
			return (ptrdiff_t)i + 1;
	}
	return SMP_JSON_INCOMPLETE;
}

ptrdiff_t smp__json_value_end(const char *buf, size_t len, size_t pos)
{
	size_t depth = 0, i = pos;

	if (pos >= len)
		return SMP_JSON_INCOMPLETE;
	if (buf[pos] == '"')
		return string_end(buf, len, pos);
	if (buf[pos] == '}' || buf[pos] == ']' || buf[pos] == ',' || buf[pos] == ':')
		return SMP_JSON_MALFORMED;
	if (buf[pos] != '{' && buf[pos] != '[') {
		while (i < len && !ends_scalar(buf[i]))
			i++;
		return i < len ? (ptrdiff_t)i : SMP_JSON_INCOMPLETE;
	}
	/* An object or an array: brackets counted, strings stepped over; the
	 * parser that reads the value later checks the rest. */
	while (i < len) {
		char c = buf[i];

		if (c == '"') {
			ptrdiff_t e = string_end(buf, len, i);
			if (e < 0)
				return e;
			i = (size_t)e;
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth == 0)
				return (ptrdiff_t)i + 1;
		}
		i++;
	}
	return SMP_JSON_INCOMPLETE;
}
