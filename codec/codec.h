/*
 * codec.h - internals shared by the readers and printers of codec/.
 */
#ifndef SMP_CODEC_H
#define SMP_CODEC_H

#include "value.h"

#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Settled parse options, passed to the format readers. */
typedef struct smp_pctx {
	const char *file;       /* never NULL */
	size_t max_depth;
	size_t max_alias_nodes;
	bool allow_dup;
	/* JSON reader only: read a JSON text the way the YAML reader would
	 * (trailing commas allowed, floats normalised as after kubectl's
	 * YAML -> JSON trip, exactly one value). Any failure just means "let
	 * libyaml do it". */
	bool yaml_compat;
	smp_error *err;
	/* The input is a file mapping: the JSON reader calls release() now
	 * and then with how far it got, and the bytes before that may be
	 * dropped from memory (they are read again from the file if
	 * needed). NULL otherwise. */
	void (*release)(void *ctx, const char *upto);
	void *release_ctx;
	/* JSON reader: when not NULL, an invalid UTF-8 sequence in a string
	 * sets *invalid_utf8 and stops the read (the caller cleans the text
	 * and reads it again). */
	bool *invalid_utf8;
} smp_pctx;

/* Reads a JSON text (a stream of values) into doc, one root per value. */
int smp_json_read(smp_doc *doc, const char *buf, size_t len, const smp_pctx *pc);

/* Reads a YAML stream into doc, one root per non-empty document. */
int smp_yaml_read(smp_doc *doc, const char *buf, size_t len, const smp_pctx *pc);

/*
 * Duplicate-key detection while a map is built. While the keys come in
 * strictly increasing order (most Kubernetes documents: encoders sort
 * them), a key after the last one is new and any other is found by binary
 * search: no hashing. Otherwise small maps are scanned; from KEYSET_LINEAR
 * entries on, an open-addressing index over the entries (built when first
 * needed) keeps insertion O(1), so hostile maps with many keys stay linear.
 * The index and the key positions are malloc'ed scratch, reused map after
 * map (one keyset per nesting level).
 */
typedef struct smp_keyset {
	uint64_t *slots;    /* high 32 bits of the key's hash | entry index + 1;
	                     * 0 = empty */
	size_t cap;         /* power of two, 0 = no index yet */
	uint32_t *pos;      /* line, column of each entry's key */
	size_t pos_cap;     /* in entries */
	size_t idx_n;       /* entries in the index (stale unless == map size) */
	size_t sorted_n;    /* the first sorted_n keys are strictly increasing */
	/* What smp_keyset_find learnt of the key it did not find, for the
	 * smp_keyset_add that follows. */
	const char *last_key;
	size_t last_klen;
	uint64_t last_hash;
	bool last_hashed, last_after; /* last_after: sorts after every key */
} smp_keyset;

void smp_keyset_init(smp_keyset *ks);
void smp_keyset_free(smp_keyset *ks);
/* Forgets the previous map (keeps the memory). */
void smp_keyset_reset(smp_keyset *ks);
/* Index of key in map, or -1. */
ptrdiff_t smp_keyset_find(smp_keyset *ks, const smp_value *map, const char *key,
                          size_t klen);
/*
 * A list or map under construction keeps its items in malloc'ed scratch
 * (one buffer per nesting level, reused), and gets one exact-size array in
 * the arena when it is complete: no arrays abandoned in the arena as it
 * grows.
 */
typedef struct smp_scratch {
	void *p;
	size_t cap; /* bytes */
} smp_scratch;

/* Room for one more item in c, whose items live in s. 0 or SMP_ENOMEM. */
int smp_scratch_room(smp_scratch *s, smp_value *c);
/* Moves c's items into the arena, exactly sized. 0 or SMP_ENOMEM. */
int smp_scratch_finish(smp_scratch *s, smp_arena *a, smp_value *c);
void smp_scratch_free(smp_scratch *s);

/* Appends key/val to map (the key must not be there) and records where the
 * key was. 0 or SMP_ENOMEM. */
int smp_keyset_add(smp_keyset *ks, smp_arena *a, smp_value *map, const char *key,
                   size_t klen, smp_value *val, uint32_t line, uint32_t col);
/* Line and column recorded for entry i. */
void smp_keyset_pos(const smp_keyset *ks, size_t i, uint32_t *line, uint32_t *col);

/* SMP_EPARSE "duplicate key K (lines L1 and L2)", positioned at the second. */
int smp_dup_key_error(const smp_pctx *pc, const char *key, size_t klen, uint32_t l1,
                      uint32_t c1, uint32_t l2, uint32_t c2);

/* Appends a key for an error message: quoted, escaped, shortened. */
void smp_quote_for_msg(smp_buf *b, const char *s, size_t n);

/* A string value of s with every invalid UTF-8 byte replaced by U+FFFD
 * (what Go's JSON encoder and kubectl's input decoder do). */
smp_value *smp_str_sanitized(smp_arena *a, const char *s, size_t n);

/* When buf is not valid UTF-8, a malloc'ed copy with every invalid byte
 * replaced by U+FFFD (kubectl reads files through a UTF-8 decoder that does
 * this); NULL with *out_len 0 when buf is valid. *oom set on failure. */
char *smp_utf8_sanitize(const char *buf, size_t len, size_t *out_len, bool *oom);

/* Writes code point c (<= 0x10FFFF) as 1-4 bytes of UTF-8 at o; returns the count. */
size_t smp_utf8_put(char *o, uint32_t c);

/* UTF-16 (little- or big-endian, without its BOM) to malloc'ed UTF-8;
 * unpaired surrogates and an odd last byte become U+FFFD. NULL on ENOMEM. */
char *smp_utf16_to_utf8(const char *buf, size_t len, bool big_endian, size_t *out_len);

/* Formats a finite double as Go's encoding/json does (shortest round-trip
 * digits; exponent form below 1e-6 and from 1e21). buf needs 32 bytes.
 * Returns the length. */
size_t smp_format_float(char *buf, double f);

/* strconv.FormatFloat(d, 'g', -1, f32 ? 32 : 64) with .inf/-.inf/.nan for
 * the special values: how go-yaml writes floats, and (f32) how
 * sigs.k8s.io/yaml turns float map keys into strings. buf needs 32 bytes. */
size_t smp_format_float_g(char *buf, double d, bool f32);

/* Decimal text of i (buf needs 21 bytes, not NUL-terminated); the length. */
size_t smp_format_int(char *buf, int64_t i);

/* Validates one UTF-8 sequence at p (n bytes available). Returns its length
 * (1..4) and the code point, or 0 when invalid (overlong, surrogate, > 0x10FFFF,
 * truncated). */
size_t smp_utf8_decode(const unsigned char *p, size_t n, uint32_t *cp);

/* ---- YAML scalar resolution (resolve.c) ---- */

enum {
	SMP_RS_NULL = 0,
	SMP_RS_BOOL,
	SMP_RS_INT,
	SMP_RS_UINT,   /* above INT64_MAX: a float once it went through JSON */
	SMP_RS_FLOAT,  /* may be NaN or infinite */
	SMP_RS_STR,    /* the scalar's text */
	SMP_RS_BINARY  /* !!binary: the text is base64 */
};

/* What go-yaml v2 makes of one scalar. */
typedef struct smp_scalar {
	int kind;
	bool b;
	bool timestamp; /* a string that go-yaml recognised as a timestamp */
	int64_t i;
	uint64_t u;
	double f;
} smp_scalar;

/* Resolves a scalar's text. `tag` is the full tag (NULL when untagged);
 * `plain` is true for an untagged plain scalar. SMP_EPARSE with a go-yaml
 * style message in msg when an explicit tag does not fit the text. */
int smp_resolve(smp_scalar *out, const char *s, size_t n, const char *tag, bool plain,
                char *msg, size_t msgsize);
/* Where Go's base64.StdEncoding.Decode stops on s[0..n) (decodeQuantum:
 * padding required, CR and LF skipped): the byte offset of its
 * CorruptInputError ("illegal base64 data at input byte N"), or -1 when
 * s decodes. */
long smp_base64_check(const char *s, size_t n);
/* Go's base64.StdEncoding.DecodeString; out needs n bytes. -1 if invalid
 * (smp_base64_check). */
int smp_base64_decode(char *out, size_t *outlen, const char *s, size_t n);
/* n bytes of `in` in Go's base64.StdEncoding (padded), or with `url` its
 * RawURLEncoding (URL-safe alphabet, no padding), NUL-terminated; `out`
 * needs (n + 2) / 3 * 4 + 1 bytes. Returns the length written. */
size_t smp_base64_encode(char *out, const void *in, size_t n, bool url);
/* The value a float has after kubectl's YAML -> JSON -> object round trip:
 * an int when Go's text of it is an integer that fits int64. SMP_EINVAL for
 * NaN and infinities (json.Marshal refuses them), SMP_ENOMEM. */
int smp_float_to_value(smp_arena *a, double f, smp_value **out);
/* Whether that round trip makes f an integer (*out: its value). */
bool smp_float_is_int(double f, int64_t *out);

/* strtod and printf follow LC_NUMERIC; an application may have set a
 * locale with a decimal comma. These switch the calling thread to the C
 * locale for one call (uselocale is per thread) and back. */
typedef struct smp_c_locale {
	locale_t c, old;
} smp_c_locale;

void smp_c_locale_enter(smp_c_locale *l);
void smp_c_locale_leave(smp_c_locale *l);

/* ---- printers ---- */

/* Appends s as a JSON string literal the way Go's encoding/json writes it. */
void smp_json_put_string(smp_buf *b, const char *s, size_t n, bool go_escape);
/* SMP_EINVAL for NaN and infinities, which JSON cannot hold (util.c). */
int smp_float_check(const smp_value *v, smp_error *err);
/* smp_print appending to b (NUL-terminated after it) instead of a new
 * text: the one way the layers above print into a buffer. */
int smp_print_buf(smp_buf *b, const smp_value *v, const smp_print_options *opts,
                  smp_error *err);
/* Block-style YAML (yaml_print.c). */
int smp_yaml_print(smp_buf *b, const smp_value *v, bool sort_keys, smp_error *err);

#endif
