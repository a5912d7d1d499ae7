/*
 * check.h - what the codec unit tests share: a failure counter and CHECK,
 * which prints the first 30 failures (file:line and a message) and counts
 * them all.
 */
#ifndef SMP_CODEC_CHECK_H
#define SMP_CODEC_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                               \
	do {                                                                           \
		if (!(cond)) {                                                         \
			if (failures < 30) {                                           \
				printf("FAIL %s:%d: ", __FILE__, __LINE__);            \
				printf(__VA_ARGS__);                                   \
				printf("\n");                                          \
			}                                                              \
			failures++;                                                    \
		}                                                                      \
	} while (0)

#endif
