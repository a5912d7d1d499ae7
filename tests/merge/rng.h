/*
 * rng.h - the random numbers of the tests that generate their inputs (the
 * merge tests, tests/schema/fuzz_test.c, tests/codec/test_strings.c):
 * xorshift64, one state per test program, so that a seed always gives the
 * same cases. The state starts at a fixed seed; the merge tests set their
 * own from the command line.
 */
#ifndef SMP_MERGE_TEST_RNG_H
#define SMP_MERGE_TEST_RNG_H

#include <stdint.h>

static uint64_t st = 0x9e3779b97f4a7c15ULL;

/* 0..n-1 (0 for n = 0). */
static unsigned pick(unsigned n)
{
	st ^= st << 13;
	st ^= st >> 7;
	st ^= st << 17;
	return n ? (unsigned)(st % n) : 0;
}

#endif
