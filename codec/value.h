/*
 * value.h - the document tree every module shares (internal).
 *
 * A document set (smp_doc) owns an arena; every value, string, list and map
 * array of that document lives in the arena and is freed with it, so error
 * paths never free node by node. Values are built mutable by the codec and
 * the merge engine, then handed out read-only through smpatch.h.
 */
#ifndef SMP_VALUE_H
#define SMP_VALUE_H

#include "smpatch.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- arena ---- */

typedef struct smp_arena_block smp_arena_block;

typedef struct smp_arena {
	smp_arena_block *head;  /* current block */
	size_t block_size;      /* size of the next ordinary block */
	size_t used;            /* total bytes handed out, for limits */
	smp_arena_block *big;   /* between smp_arena_big_begin and _end */
	size_t hint;            /* room for the next new block, 0 = none */
} smp_arena;

void smp_arena_init(smp_arena *a);
/* The next block the arena needs gets at least `bytes` of room (a parser
 * that knows its input's size asks for room for the whole tree at once).
 * Room never touched costs address space only. */
void smp_arena_hint(smp_arena *a, size_t bytes);
void smp_arena_release(smp_arena *a);
/* Empties the arena for reuse: its largest block of at most `keep_max`
 * bytes stays (the next allocations reuse its pages, which a process
 * making many calls would otherwise get fresh, zeroed by the kernel),
 * the others are freed. */
void smp_arena_reset(smp_arena *a, size_t keep_max);
/* 8-byte aligned, uninitialised; NULL on allocation failure. */
void *smp_arena_alloc(smp_arena *a, size_t size);
/* The free space on top of the arena, at least `min` bytes (a new block when
 * the current one has less), for a caller that learns the size of what it
 * writes only while writing it: it writes at the returned address, then
 * keeps a prefix with smp_arena_commit(a, n) (n <= *avail), or keeps
 * nothing by not committing. No other allocation from `a` in between.
 * NULL on ENOMEM. */
void *smp_arena_reserve(smp_arena *a, size_t min, size_t *avail);
void smp_arena_commit(smp_arena *a, size_t n);
struct smp_arena_block {
	smp_arena_block *prev;
	size_t size, off;
	size_t mapped;  /* bytes mmap'ed (huge-page block), 0 = malloc'ed */
	/* data follows, 16-byte aligned by the header size below */
	max_align_t data[];
};

/* smp_arena_alloc with its common case inline (the readers make millions
 * of small values). */
static inline void *smp_arena_alloc_fast(smp_arena *a, size_t size)
{
	smp_arena_block *b = a->head;
	size_t need = (size + 7u) & ~(size_t)7u;

	if (b && need >= size && b->size - b->off >= need) {
		void *p = (char *)b->data + b->off;
		b->off += need;
		a->used += need;
		return p;
	}
	return smp_arena_alloc(a, size);
}

/* One large object whose size is learnt while writing it (a long string):
 * a block of its own, linked under the current block, whose capacity can
 * change; smp_arena_big_end keeps its first n bytes and gives back the rest
 * (shrinking a large allocation in place costs no copy). No other arena
 * call in between. begin/resize return the (new) start, NULL on ENOMEM
 * (after a failed resize the old block is still in place); end returns the
 * start of the kept bytes. */
void *smp_arena_big_begin(smp_arena *a, size_t cap);
void *smp_arena_big_resize(smp_arena *a, size_t cap);
void *smp_arena_big_end(smp_arena *a, size_t n);
/* Copies `len` bytes and adds a NUL. */
char *smp_arena_strndup(smp_arena *a, const char *s, size_t len);

/* ---- values ---- */

typedef struct smp_member {
	const char *key;   /* NUL-terminated; may contain NUL bytes: use klen */
	size_t klen;
	smp_value *val;
} smp_member;

/*
 * 24 bytes: a document holds millions of these. Lengths are 32-bit (the
 * constructors and appenders refuse more: SMP_ENOMEM); the column is 29
 * bits and saturates (SMPV_COL) on lines longer than 512 MiB.
 */
struct smp_value {
	uint32_t line;      /* 1-based source position; 0 when built */
	unsigned col : 29;
	unsigned type : 3;  /* smp_type */
	union {
		bool b;
		int64_t i;
		double f;
		struct { const char *ptr; uint32_t len; } s;
		struct { smp_value **items; uint32_t len, cap; } list;
		struct { smp_member *items; uint32_t len, cap; } map;
	} u;
};

#define SMPV_COL_MAX ((1u << 29) - 1)
/* A column as stored in a value. */
#define SMPV_COL(c) ((c) > SMPV_COL_MAX ? SMPV_COL_MAX : (unsigned)(c))
/* Longest string, list or map a value holds. */
#define SMPV_LEN_MAX UINT32_MAX

struct smp_doc {
	smp_arena arena;
	smp_value **roots;
	size_t nroots, cap;
};

/* Allocates an empty document set (roots array empty). NULL on ENOMEM. */
smp_doc *smp_doc_alloc(void);
/* Appends a root value (already allocated in doc->arena). */
int smp_doc_push_root(smp_doc *doc, smp_value *v);

/* Constructors: the value is allocated in `a`; NULL on ENOMEM. */
smp_value *smpv_null(smp_arena *a);
smp_value *smpv_bool(smp_arena *a, bool b);
smp_value *smpv_int(smp_arena *a, int64_t i);
smp_value *smpv_float(smp_arena *a, double f);
smp_value *smpv_str(smp_arena *a, const char *s, size_t len); /* copies s */
smp_value *smpv_str_ref(smp_arena *a, const char *s, size_t len); /* keeps s (must outlive) */
smp_value *smpv_list(smp_arena *a, size_t cap_hint);
smp_value *smpv_map(smp_arena *a, size_t cap_hint);

/* Appends; arrays grow by doubling inside the arena. Return 0 or SMP_ENOMEM.
 * smpv_map_add does not check for an existing key (callers do). The key is
 * referenced, not copied: it must live in the same arena or longer. */
int smpv_list_add(smp_arena *a, smp_value *list, smp_value *item);
int smpv_map_add(smp_arena *a, smp_value *map, const char *key, size_t klen,
                 smp_value *val);
/* Like smpv_map_add but copies the key into the arena. */
int smpv_map_add_copy(smp_arena *a, smp_value *map, const char *key, size_t klen,
                      smp_value *val);

/* Index of key in map, or -1. Linear: callers with large maps index them. */
ptrdiff_t smpv_map_find(const smp_value *map, const char *key, size_t klen);
smp_value *smpv_map_get(const smp_value *map, const char *key);
/* The string at map[key] (NUL-terminated), or NULL: map NULL or not a map,
 * no such key, or another type there. The one reader of a string member. */
const char *smpv_map_str(const smp_value *map, const char *key);
/* Removes entry i, keeping order. */
void smpv_map_remove(smp_value *map, size_t i);

/* Entries of map in key order (bytewise, shorter first): *out is a
 * malloc'ed array of pointers when sorting reorders them, NULL when the
 * map's own order is that order (no sorting asked, or the keys are sorted
 * already). 0 or SMP_ENOMEM. The one key sorter of the library. */
int smp_sorted_members(const smp_member ***out, const smp_value *map, bool sort);
/* Member i of `map` in the order smp_sorted_members gave as `sorted`. */
static inline const smp_member *smp_member_at(const smp_member *const *sorted,
                                              const smp_value *map, size_t i)
{
	return sorted ? sorted[i] : &map->u.map.items[i];
}

/* Deep copy into arena `a` (keys and strings copied too). */
smp_value *smpv_copy(smp_arena *a, const smp_value *v);

/* Deep equality, map order ignored, list order counting: type-aware
 * (1 != 1.0) as kubectl and the merge engine compare; _numeric compares
 * ints and floats by value (1 == 1.0), as structured-merge-diff does. The
 * one value comparison of the library. */
bool smpv_equal(const smp_value *a, const smp_value *b);
bool smpv_equal_numeric(const smp_value *a, const smp_value *b);
bool smpv_is_str(const smp_value *v, const char *s);

/* ---- hashing (for indices over keys and merge-key values) ---- */

uint64_t smp_hash_bytes(const char *p, size_t n);
/* Spreads the bits of a hash (a 64-bit finalizer), for combining hashes. */
static inline uint64_t smp_hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}
/* Hash of a value consistent with smpv_equal (map order ignored), and
 * with smpv_equal_numeric. */
uint64_t smpv_hash(const smp_value *v);
uint64_t smpv_hash_numeric(const smp_value *v);

/* ---- errors ---- */

/* Fills err (if not NULL) and returns code. `path` may be NULL. */
int smp_err_set(smp_error *err, int code, const char *file, unsigned line,
                unsigned col, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 7, 8)))
#endif
	;
int smp_err_setv(smp_error *err, int code, const char *file, unsigned line,
                 unsigned col, const char *path, const char *fmt, va_list ap);
/* The common cases, shorter: no input position, and no path (smp__err) or
 * the document path at fault (smp__err_path; NULL = none). */
int smp__err(smp_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
int smp__err_path(smp_error *err, int code, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/* ---- growable arrays ---- */

/* The slow paths of smp_grow and smp_grow_arena (value.c). */
bool smp_grow_slow(void **arr, size_t *cap, size_t n, size_t elem, size_t first);
bool smp_grow_arena_slow(smp_arena *a, void **arr, size_t *cap, size_t n, size_t elem,
                         size_t first);

/* Room for element n of *arr (*cap elements of elem bytes, malloc'ed): the
 * capacity doubles, from `first`. false on ENOMEM or overflow, with *arr
 * and *cap as they were. Inline: most calls find room (hot pushes). */
static inline bool smp_grow(void **arr, size_t *cap, size_t n, size_t elem, size_t first)
{
	return n < *cap || smp_grow_slow(arr, cap, n, elem, first);
}

/* The same for an array in arena a: the larger array is a new one in the
 * arena holding the first n elements (the old one stays there). */
static inline bool smp_grow_arena(smp_arena *a, void **arr, size_t *cap, size_t n,
                                  size_t elem, size_t first)
{
	return n < *cap || smp_grow_arena_slow(a, arr, cap, n, elem, first);
}

/* ---- growable byte buffer (malloc-based, for printers) ---- */

typedef struct smp_buf {
	char *ptr;
	size_t len, cap;
	bool oom; /* set once an append failed; later appends are no-ops */
} smp_buf;

void smp_buf_init(smp_buf *b);
void smp_buf_release(smp_buf *b);
/* Room for `extra` more bytes and a NUL (ptr + len .. ptr + cap - 1 may be
 * written, then len advanced). false once out of memory. */
bool smp_buf_reserve(smp_buf *b, size_t extra);
void smp_buf_put(smp_buf *b, const char *s, size_t n);
void smp_buf_puts(smp_buf *b, const char *s);
void smp_buf_putc(smp_buf *b, char c);
void smp_buf_printf(smp_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* Detaches the NUL-terminated contents (caller frees with free()); NULL if oom. */
char *smp_buf_detach(smp_buf *b, size_t *len);

#endif
