/*
 * check.h - how every C test checks: a failure counter and CHECK.
 *
 *   CHECK(cond)                  reports the condition's text when it fails
 *   CHECK(cond, fmt, args...)    reports a printf message instead
 *   CHECK_STR(got, want)         two strings (or NULLs) are equal
 *   return check_status();       main's end: 1 (failures counted) or 0
 *
 * Each failure counts in `failures` (a test's exit status is failures != 0);
 * the first 30 are printed to stderr with file:line, so a broken corpus
 * does not bury the first message.
 */
#ifndef SMP_TESTS_CHECK_H
#define SMP_TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK_MSG_(cond, ...)                                                          \
	do {                                                                           \
		if (!(cond)) {                                                         \
			if (failures < 30) {                                           \
				fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);   \
				fprintf(stderr, __VA_ARGS__);                          \
				fputc('\n', stderr);                                   \
			}                                                              \
			failures++;                                                    \
		}                                                                      \
	} while (0)
#define CHECK_COND_(cond) CHECK_MSG_(cond, "check failed: %s", #cond)
/* CHECK with one argument is CHECK_COND_, with 2 to 16 CHECK_MSG_. */
#define CHECK_PICK_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, \
                    which, ...)                                                        \
	which
#define CHECK(...)                                                                     \
	CHECK_PICK_(__VA_ARGS__, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_,   \
	            CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_,    \
	            CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_MSG_, CHECK_COND_, 0)            \
	(__VA_ARGS__)

#define CHECK_STR(a, b)                                                                \
	do {                                                                           \
		const char *a_ = (a), *b_ = (b);                                       \
		CHECK(a_ == b_ || (a_ && b_ && strcmp(a_, b_) == 0),                   \
		      "%s is \"%s\", expected \"%s\"", #a, a_ ? a_ : "(null)",         \
		      b_ ? b_ : "(null)");                                             \
	} while (0)

/* A test's exit status: 1, with the number of failures on stderr, when a
 * check failed; 0 otherwise. */
static inline int check_status(void)
{
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures ? 1 : 0;
}

#endif
