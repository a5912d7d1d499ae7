/*
 * simd.h - finding the bytes a JSON string cannot hold as they are, a chunk
 * at a time (internal to codec/).
 *
 * With SSE2 (the x86-64 baseline) a chunk is 16 bytes; elsewhere, or when
 * built with -DSMP_NO_SIMD (the tests build the codec that way too, so the
 * fallback is compiled and run), it is 8 bytes handled as one uint64_t
 * (SWAR). Callers load a chunk only when SMP_CHUNK bytes are readable.
 */
#ifndef SMP_SIMD_H
#define SMP_SIMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) && !defined(SMP_NO_SIMD)
#define SMP_SIMD_SSE2 1
#include <emmintrin.h>
#define SMP_CHUNK 16
#else
#define SMP_CHUNK 8
#endif

#if defined(__GNUC__)
#define SMP_CTZ32(x) ((unsigned)__builtin_ctz(x))
#define SMP_CTZ64(x) ((unsigned)__builtin_ctzll(x))
#define SMP_CLZ64(x) ((unsigned)__builtin_clzll(x))
#else
static inline unsigned smp_ctz64_slow(uint64_t x)
{
	unsigned n = 0;

	while (!(x & 1)) {
		x >>= 1;
		n++;
	}
	return n;
}
#define SMP_CTZ32(x) smp_ctz64_slow(x)
#define SMP_CTZ64(x) smp_ctz64_slow(x)
#endif

#if !defined(SMP_SIMD_SSE2)
#define SMP_ONES 0x0101010101010101ull
#define SMP_HIGHS 0x8080808080808080ull
/* High bit of each byte of x that equals c. Bytes above a match may be
 * flagged falsely (borrows); the lowest flagged byte is exact, and that is
 * the only one callers use. */
static inline uint64_t smp_swar_eq(uint64_t x, unsigned char c)
{
	uint64_t y = x ^ (SMP_ONES * c);
	return (y - SMP_ONES) & ~y & SMP_HIGHS;
}

/* Index of the first flagged byte of an 8-byte chunk, in memory order. */
static inline size_t smp_swar_first(uint64_t bits)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ && defined(__GNUC__)
	return SMP_CLZ64(bits) / 8;
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return SMP_CTZ64(bits) / 8;
#else
	/* Unknown byte order: find the byte the slow way. */
	unsigned char b[8];
	memcpy(b, &bits, 8);
	for (size_t i = 0; i < 8; i++)
		if (b[i] & 0x80)
			return i;
	return 8;
#endif
}
#endif

/*
 * Index in [0, SMP_CHUNK] of the first byte of p[0, SMP_CHUNK) that is '"',
 * '\\', a control character (< 0x20) or not ASCII (>= 0x80); with
 * go_escape also '<', '>' or '&'. SMP_CHUNK when there is none.
 */
static inline size_t smp_json_special(const unsigned char *p, bool go_escape)
{
#if defined(SMP_SIMD_SSE2)
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	/* Signed compare: 0x80..0xff are negative, so "< 0x20" takes the
	 * control characters and every non-ASCII byte at once. */
	__m128i m = _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
	                         _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
	                                      _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
	if (go_escape)
		m = _mm_or_si128(m, _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('<')),
		                                 _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('>')),
		                                              _mm_cmpeq_epi8(x, _mm_set1_epi8('&')))));
	unsigned bits = (unsigned)_mm_movemask_epi8(m);
	return bits ? SMP_CTZ32(bits) : SMP_CHUNK;
#else
	uint64_t x;
	memcpy(&x, p, 8);
	uint64_t bad = (x & SMP_HIGHS) | ((x - SMP_ONES * 0x20) & ~x & SMP_HIGHS) |
	               smp_swar_eq(x, '"') | smp_swar_eq(x, '\\');
	if (go_escape)
		bad |= smp_swar_eq(x, '<') | smp_swar_eq(x, '>') | smp_swar_eq(x, '&');
	return bad ? smp_swar_first(bad) : SMP_CHUNK;
#endif
}

/* The same test for one byte (tails shorter than a chunk). */
static inline bool smp_json_special_byte(unsigned char c, bool go_escape)
{
	return c < 0x20 || c >= 0x80 || c == '"' || c == '\\' ||
	       (go_escape && (c == '<' || c == '>' || c == '&'));
}

/* Index in [0, SMP_CHUNK] of the first byte of p[0, SMP_CHUNK) that is not
 * ' ' (indentation runs). */
static inline size_t smp_first_nonspace(const unsigned char *p)
{
#if defined(SMP_SIMD_SSE2)
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	unsigned bits = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(' '))) ^ 0xffffu;
	return bits ? SMP_CTZ32(bits) : SMP_CHUNK;
#else
	uint64_t x;
	memcpy(&x, p, 8);
	/* Non-space bytes become non-zero; flag the first of them. */
	uint64_t y = x ^ (SMP_ONES * ' ');
	uint64_t nz = (((y & ~SMP_HIGHS) + ~SMP_HIGHS) | y) & SMP_HIGHS;
	return nz ? smp_swar_first(nz) : SMP_CHUNK;
#endif
}

/* True when p[0, SMP_CHUNK) is all ASCII. */
static inline bool smp_chunk_ascii(const unsigned char *p)
{
#if defined(SMP_SIMD_SSE2)
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	return _mm_movemask_epi8(x) == 0;
#else
	uint64_t x;
	memcpy(&x, p, 8);
	return (x & SMP_HIGHS) == 0;
#endif
}

/* True when p[0, 4 * SMP_CHUNK) is all ASCII. */
static inline bool smp_chunk_ascii4(const unsigned char *p)
{
#if defined(SMP_SIMD_SSE2)
	const __m128i *v = (const __m128i *)(const void *)p;
	__m128i x = _mm_or_si128(_mm_or_si128(_mm_loadu_si128(v), _mm_loadu_si128(v + 1)),
	                         _mm_or_si128(_mm_loadu_si128(v + 2), _mm_loadu_si128(v + 3)));
	return _mm_movemask_epi8(x) == 0;
#else
	uint64_t x[4];
	memcpy(x, p, 32);
	return ((x[0] | x[1] | x[2] | x[3]) & SMP_HIGHS) == 0;
#endif
}

#endif
