/*
 * rng.h - the generated-input merge tests' random numbers: xorshift64, one
 * state per test program (seeded from the command line), so that a seed
 * always gives the same cases.
 */
#ifndef SMP_MERGE_TEST_RNG_H
#define SMP_MERGE_TEST_RNG_H

#include <stdint.h>

static uint64_t st;

/* 0..n-1 (0 for n = 0). */
static unsigned pick(unsigned n)
{
	st ^= st << 13;
	st ^= st >> 7;
	st ^= st << 17;
	return n ? (unsigned)(st % n) : 0;
}

#endif
