/*
 * util.c - key index, UTF-8 decoding, and Go-style float formatting and
 * the floats JSON can hold, shared by the codec's readers and printers.
 */
#include "codec.h"
#include "simd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- numeric locale ---- */

void smp_c_locale_enter(smp_c_locale *l)
{
	l->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	l->old = l->c ? uselocale(l->c) : (locale_t)0;
}

void smp_c_locale_leave(smp_c_locale *l)
{
	if (l->c) {
		uselocale(l->old);
		freelocale(l->c);
	}
}

/* ---- containers under construction ---- */

static size_t item_size(const smp_value *c)
{
	return c->type == SMP_LIST ? sizeof(smp_value *) : sizeof(smp_member);
}

int smp_scratch_room(smp_scratch *s, smp_value *c)
{
	size_t elem = item_size(c);
	void **items = c->type == SMP_LIST ? (void **)&c->u.list.items : (void **)&c->u.map.items;
	uint32_t *cap = c->type == SMP_LIST ? &c->u.list.cap : &c->u.map.cap;
	size_t len = c->type == SMP_LIST ? c->u.list.len : c->u.map.len;

	if (*items != s->p) {
		/* A fresh container (its items were never placed). */
		*items = s->p;
		*cap = (uint32_t)(s->cap / elem < SMPV_LEN_MAX ? s->cap / elem : SMPV_LEN_MAX);
	}
	if (len < *cap)
		return 0;
	size_t ncap = *cap ? (size_t)*cap * 2 : 16;
	if (ncap > SMPV_LEN_MAX)
		ncap = SMPV_LEN_MAX;
	if (len >= SMPV_LEN_MAX || ncap > SIZE_MAX / elem)
		return SMP_ENOMEM;
	void *n = realloc(s->p, ncap * elem);
	if (!n)
		return SMP_ENOMEM;
	s->p = n;
	s->cap = ncap * elem;
	*items = n;
	*cap = (uint32_t)ncap;
	return 0;
}

int smp_scratch_finish(smp_scratch *s, smp_arena *a, smp_value *c)
{
	size_t elem = item_size(c);
	void **items = c->type == SMP_LIST ? (void **)&c->u.list.items : (void **)&c->u.map.items;
	uint32_t *cap = c->type == SMP_LIST ? &c->u.list.cap : &c->u.map.cap;
	size_t len = c->type == SMP_LIST ? c->u.list.len : c->u.map.len;
	void *arr = NULL;

	(void)s;
	if (len) {
		arr = smp_arena_alloc(a, len * elem);
		if (!arr)
			return SMP_ENOMEM;
		memcpy(arr, *items, len * elem);
	}
	*items = arr;
	*cap = len;
	return 0;
}

void smp_scratch_free(smp_scratch *s)
{
	free(s->p);
	s->p = NULL;
	s->cap = 0;
}

/* ---- duplicate-key index ---- */

#define KEYSET_LINEAR 8

void smp_keyset_init(smp_keyset *ks)
{
	memset(ks, 0, sizeof(*ks));
}

void smp_keyset_free(smp_keyset *ks)
{
	free(ks->slots);
	free(ks->pos);
	smp_keyset_init(ks);
}

void smp_keyset_reset(smp_keyset *ks)
{
	ks->last_key = NULL;
	ks->idx_n = 0;
	ks->sorted_n = 0;
	/* Keep the table for the next map only while it is small: a huge map
	 * must not make every later small map pay for clearing it. */
	if (ks->cap > 1024) {
		free(ks->slots);
		ks->slots = NULL;
		ks->cap = 0;
	}
}

/* FNV-1a spread over every bit: probes start from the low bits and the
 * slots keep the high ones, and FNV's low bits alone vary little between
 * keys such as k000001, k000002. */
static uint64_t key_hash(const char *p, size_t n)
{
	uint64_t h = smp_hash_bytes(p, n);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static void index_insert(smp_keyset *ks, size_t i, uint64_t h)
{
	size_t mask = ks->cap - 1;
	size_t s = h & mask;

	while (ks->slots[s])
		s = (s + 1) & mask;
	ks->slots[s] = (h & 0xffffffff00000000ull) | (uint64_t)(i + 1);
}

/* (Re)builds the index over the map's entries, sized for at least `want`
 * entries at half load. */
static int index_build(smp_keyset *ks, const smp_value *map, size_t want)
{
	size_t cap = 16;
	uint64_t *slots;

	while (cap < 2 * want)
		cap *= 2;
	if (cap > ks->cap) {
		/* Not calloc: fresh pages it leaves untouched read as the
		 * shared zero page, and the first insert into each then takes a
		 * copy-on-write fault that flushes the TLB of every core running
		 * this process (another thread parsing the next file). Writing
		 * the zeros first maps them directly. */
		slots = malloc(cap * sizeof(*slots));
		if (!slots)
			return SMP_ENOMEM;
		/* (Through a volatile pointer: compilers turn malloc + memset
		 * into calloc.) */
		void *(*volatile zero)(void *, int, size_t) = memset;
		zero(slots, 0, cap * sizeof(*slots));
		free(ks->slots);
		ks->slots = slots;
		ks->cap = cap;
	} else {
		memset(ks->slots, 0, ks->cap * sizeof(*ks->slots));
	}
	for (size_t i = 0; i < map->u.map.len; i++) {
		const smp_member *m = &map->u.map.items[i];
		index_insert(ks, i, key_hash(m->key, m->klen));
	}
	ks->idx_n = map->u.map.len;
	return 0;
}

static int key_cmp(const smp_member *m, const char *key, size_t klen)
{
	size_t n = m->klen < klen ? m->klen : klen;
	int c = memcmp(key, m->key, n);

	if (c)
		return c;
	return klen < m->klen ? -1 : klen > m->klen;
}

ptrdiff_t smp_keyset_find(smp_keyset *ks, const smp_value *map, const char *key,
                          size_t klen)
{
	const smp_member *items = map->u.map.items;
	size_t n = map->u.map.len;

	ks->last_key = NULL;
	if (n == 0) {
		ks->last_after = true;
		ks->last_hashed = false;
		goto absent;
	}
	if (ks->sorted_n == n) {
		int c = key_cmp(&items[n - 1], key, klen);
		if (c == 0)
			return (ptrdiff_t)(n - 1);
		ks->last_after = c > 0;
		ks->last_hashed = false;
		if (c > 0)
			goto absent;
		size_t lo = 0, hi = n - 1;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			c = key_cmp(&items[mid], key, klen);
			if (c == 0)
				return (ptrdiff_t)mid;
			if (c < 0)
				hi = mid;
			else
				lo = mid + 1;
		}
		goto absent;
	}
	ks->last_after = false;
	ks->last_hashed = false;
	if (n < KEYSET_LINEAR) {
		for (size_t i = 0; i < n; i++)
			if (items[i].klen == klen && memcmp(items[i].key, key, klen) == 0)
				return (ptrdiff_t)i;
		goto absent;
	}
	if ((ks->idx_n != n || !ks->cap) && index_build(ks, map, n + 1)) {
		/* No memory for the index: scan (slow, still correct). */
		for (size_t i = 0; i < n; i++)
			if (items[i].klen == klen && memcmp(items[i].key, key, klen) == 0)
				return (ptrdiff_t)i;
		goto absent;
	}
	size_t mask = ks->cap - 1;
	uint64_t h = key_hash(key, klen), hi = h & 0xffffffff00000000ull;
	size_t s = h & mask;
	while (ks->slots[s]) {
		uint64_t e = ks->slots[s];
		size_t i = (size_t)(uint32_t)e - 1;
		if ((e & 0xffffffff00000000ull) == hi && items[i].klen == klen &&
		    memcmp(items[i].key, key, klen) == 0)
			return (ptrdiff_t)i;
		s = (s + 1) & mask;
	}
	ks->last_hash = h;
	ks->last_hashed = true;
absent:
	ks->last_key = key;
	ks->last_klen = klen;
	return -1;
}

int smp_keyset_add(smp_keyset *ks, smp_arena *a, smp_value *map, const char *key,
                   size_t klen, smp_value *val, uint32_t line, uint32_t col)
{
	size_t n = map->u.map.len;
	bool known = key == ks->last_key && klen == ks->last_klen;

	if (n >= UINT32_MAX - 1)
		return SMP_ENOMEM;
	if (n + 1 > ks->pos_cap) {
		size_t ncap = ks->pos_cap ? ks->pos_cap * 2 : 16;
		uint32_t *p = realloc(ks->pos, ncap * 2 * sizeof(*p));
		if (!p)
			return SMP_ENOMEM;
		ks->pos = p;
		ks->pos_cap = ncap;
	}
	bool after = ks->sorted_n == n &&
	             (known ? ks->last_after
	                    : n == 0 || key_cmp(&map->u.map.items[n - 1], key, klen) > 0);
	if (smpv_map_add(a, map, key, klen, val))
		return SMP_ENOMEM;
	ks->pos[2 * n] = line;
	ks->pos[2 * n + 1] = col;
	ks->last_key = NULL;
	if (after) {
		ks->sorted_n = n + 1;
		return 0;
	}
	/* Out of order: keep the index, when there is one, up to date. */
	if (ks->idx_n == n && ks->cap && n + 1 >= KEYSET_LINEAR) {
		if (2 * (n + 1) > ks->cap)
			return index_build(ks, map, 2 * (n + 1)) ? SMP_ENOMEM : 0;
		index_insert(ks, n, known && ks->last_hashed ? ks->last_hash : key_hash(key, klen));
		ks->idx_n = n + 1;
	}
	return 0;
}

void smp_keyset_pos(const smp_keyset *ks, size_t i, uint32_t *line, uint32_t *col)
{
	*line = i < ks->pos_cap ? ks->pos[2 * i] : 0;
	*col = i < ks->pos_cap ? ks->pos[2 * i + 1] : 0;
}

/* ---- messages ---- */

void smp_quote_for_msg(smp_buf *b, const char *s, size_t n)
{
	size_t max = n > 80 ? 77 : n;

	smp_buf_putc(b, '"');
	for (size_t i = 0; i < max; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			smp_buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			smp_buf_printf(b, "\\x%02x", c);
		else
			smp_buf_putc(b, (char)c);
	}
	if (max < n)
		smp_buf_puts(b, "...");
	smp_buf_putc(b, '"');
}

int smp_dup_key_error(const smp_pctx *pc, const char *key, size_t klen, uint32_t l1,
                      uint32_t c1, uint32_t l2, uint32_t c2)
{
	smp_buf b;

	smp_buf_init(&b);
	smp_quote_for_msg(&b, key, klen);
	if (l1 == l2)
		smp_err_set(pc->err, SMP_EPARSE, pc->file, l2, c2, NULL,
		            "duplicate key %s (line %u, columns %u and %u)",
		            b.ptr ? b.ptr : "?", (unsigned)l1, (unsigned)c1, (unsigned)c2);
	else
		smp_err_set(pc->err, SMP_EPARSE, pc->file, l2, c2, NULL,
		            "duplicate key %s (lines %u and %u)", b.ptr ? b.ptr : "?",
		            (unsigned)l1, (unsigned)l2);
	smp_buf_release(&b);
	return SMP_EPARSE;
}

/* ---- UTF-8 ---- */

size_t smp_utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
	uint32_t c;
	size_t len;

	if (n == 0)
		return 0;
	c = p[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c < 0xc2)
		return 0; /* continuation byte or overlong 2-byte lead */
	if (c < 0xe0) {
		len = 2;
		c &= 0x1f;
	} else if (c < 0xf0) {
		len = 3;
		c &= 0x0f;
	} else if (c < 0xf5) {
		len = 4;
		c &= 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) || c > 0x10ffff ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/*
 * Bytes one U+FFFD replaces at an invalid sequence. Go's encoders replace
 * each bad byte (per_byte); the UTF-8 decoder kubectl reads files through
 * (golang.org/x/text) replaces a "maximal subpart": a truncated but
 * otherwise valid sequence counts once.
 */
static size_t invalid_len(const unsigned char *p, size_t n, bool per_byte)
{
	unsigned char c = p[0];
	size_t need, k = 1;
	unsigned char lo = 0x80, hi = 0xbf;

	if (per_byte || c < 0xc2 || c > 0xf4)
		return 1;
	need = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	/* The first continuation byte has the tighter range. */
	if (k < n && k < need && p[k] >= lo && p[k] <= hi) {
		k++;
		while (k < n && k < need && p[k] >= 0x80 && p[k] <= 0xbf)
			k++;
	}
	return k;
}

static size_t count_invalid(const unsigned char *p, size_t n, bool per_byte)
{
	size_t bad = 0, i = 0;
	uint32_t cp;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		size_t k = smp_utf8_decode(p + i, n - i, &cp);
		if (!k) {
			bad++;
			k = invalid_len(p + i, n - i, per_byte);
		}
		i += k;
	}
	return bad;
}

static size_t copy_sanitized(char *o, const unsigned char *p, size_t n, bool per_byte)
{
	size_t i = 0, w = 0;
	uint32_t cp;

	while (i < n) {
		if (p[i] < 0x80) {
			o[w++] = (char)p[i++];
			continue;
		}
		size_t k = smp_utf8_decode(p + i, n - i, &cp);
		if (!k) {
			memcpy(o + w, "\xef\xbf\xbd", 3);
			w += 3;
			i += invalid_len(p + i, n - i, per_byte);
			continue;
		}
		memcpy(o + w, p + i, k);
		w += k;
		i += k;
	}
	return w;
}

smp_value *smp_str_sanitized(smp_arena *a, const char *s, size_t n)
{
	size_t bad = count_invalid((const unsigned char *)s, n, true);
	char *o;

	if (!bad)
		return smpv_str(a, s, n);
	o = smp_arena_alloc(a, n + 2 * bad + 1);
	if (!o)
		return NULL;
	size_t w = copy_sanitized(o, (const unsigned char *)s, n, true);
	o[w] = '\0';
	return smpv_str_ref(a, o, w);
}

char *smp_utf8_sanitize(const char *buf, size_t len, size_t *out_len, bool *oom)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0, bad;
	char *o;

	*out_len = 0;
	*oom = false;
	/* Fast path: skip ASCII four chunks at a time, then one. */
	while (len - i >= 4 * SMP_CHUNK && smp_chunk_ascii4(p + i))
		i += 4 * SMP_CHUNK;
	while (len - i >= SMP_CHUNK && smp_chunk_ascii(p + i))
		i += SMP_CHUNK;
	bad = count_invalid(p + i, len - i, false);
	if (!bad)
		return NULL;
	if (len > (SIZE_MAX - 1) / 3 || !(o = malloc(len + 2 * bad + 1))) {
		*oom = true;
		return NULL;
	}
	memcpy(o, buf, i);
	*out_len = i + copy_sanitized(o + i, p + i, len - i, false);
	o[*out_len] = '\0';
	return o;
}

/* ---- UTF-16 ---- */

size_t smp_utf8_put(char *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | (c >> 6));
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | (c >> 12));
		o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (c >> 18));
	o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

char *smp_utf16_to_utf8(const char *buf, size_t len, bool big_endian, size_t *out_len)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t units = len / 2, w = 0;
	char *o;

	/* Each unit gives at most 3 bytes (a pair gives 4 for 2 units). */
	if (units > (SIZE_MAX - 8) / 3)
		return NULL;
	o = malloc(units * 3 + 8);
	if (!o)
		return NULL;
	for (size_t i = 0; i < units; i++) {
		uint32_t u = big_endian ? (uint32_t)(p[2 * i] << 8 | p[2 * i + 1])
		                        : (uint32_t)(p[2 * i + 1] << 8 | p[2 * i]);
		if (u >= 0xd800 && u <= 0xdbff && i + 1 < units) {
			uint32_t lo = big_endian ? (uint32_t)(p[2 * i + 2] << 8 | p[2 * i + 3])
			                         : (uint32_t)(p[2 * i + 3] << 8 | p[2 * i + 2]);
			if (lo >= 0xdc00 && lo <= 0xdfff) {
				w += smp_utf8_put(o + w, 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00));
				i++;
				continue;
			}
		}
		if (u >= 0xd800 && u <= 0xdfff)
			u = 0xfffd;
		w += smp_utf8_put(o + w, u);
	}
	if (len % 2)
		w += smp_utf8_put(o + w, 0xfffd);
	o[w] = '\0';
	*out_len = w;
	return o;
}

/* ---- integers ---- */

int smp_float_check(const smp_value *v, smp_error *err)
{
	if (isnan(v->u.f))
		return smp_err_set(err, SMP_EINVAL, NULL, v->line, v->col, NULL,
		                   "json: unsupported value: NaN");
	if (isinf(v->u.f))
		return smp_err_set(err, SMP_EINVAL, NULL, v->line, v->col, NULL,
		                   "json: unsupported value: %cInf", v->u.f < 0 ? '-' : '+');
	return 0;
}

size_t smp_format_int(char *buf, int64_t i)
{
	char t[24];
	size_t n = 0;
	uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;

	do {
		t[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	size_t k = 0;
	if (i < 0)
		buf[k++] = '-';
	while (n)
		buf[k++] = t[--n];
	return k;
}

/* ---- floats ---- */

/*
 * Shortest decimal that reads back as f: try 1..17 significant digits with
 * %.*e and keep the first that strtod maps to the same double (for float32,
 * 1..9 digits and strtof). This is what Go's strconv.FormatFloat(f, fmt, -1,
 * bits) produces: when several shortest strings round-trip, %.*e rounds
 * correctly to the nearest, as Go does.
 */
static int shortest_digits(double f, bool f32, char *digits, int *exp10)
{
	char tmp[40];
	int p, maxp = f32 ? 9 : 17;

	for (p = 1; p < maxp; p++) {
		snprintf(tmp, sizeof(tmp), "%.*e", p - 1, f);
		if (f32 ? strtof(tmp, NULL) == (float)f : strtod(tmp, NULL) == f)
			break;
	}
	snprintf(tmp, sizeof(tmp), "%.*e", p - 1, f);
	/* tmp: [-]d[.ddd]e[+-]xx */
	const char *s = tmp;
	int nd = 0;
	if (*s == '-')
		s++;
	for (; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9')
			digits[nd++] = *s;
	*exp10 = atoi(s + 1);
	/* Trailing zeros are not significant. */
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	return nd;
}

/* d.ddde±XX (at least two exponent digits, as Go writes them). */
static int put_exp_form(char *buf, int n, const char *digits, int nd, int e)
{
	buf[n++] = digits[0];
	if (nd > 1) {
		buf[n++] = '.';
		for (int i = 1; i < nd; i++)
			buf[n++] = digits[i];
	}
	n += snprintf(buf + n, 16, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
	return n;
}

/* Plain decimal; the decimal point sits after digit e (0-based). */
static int put_plain_form(char *buf, int n, const char *digits, int nd, int e)
{
	if (e < 0) {
		buf[n++] = '0';
		buf[n++] = '.';
		for (int i = 0; i < -e - 1; i++)
			buf[n++] = '0';
		for (int i = 0; i < nd; i++)
			buf[n++] = digits[i];
	} else {
		for (int i = 0; i <= e; i++)
			buf[n++] = i < nd ? digits[i] : '0';
		if (nd > e + 1) {
			buf[n++] = '.';
			for (int i = e + 1; i < nd; i++)
				buf[n++] = digits[i];
		}
	}
	buf[n] = '\0';
	return n;
}

size_t smp_format_float_g(char *buf, double d, bool f32)
{
	char digits[24];
	int nd, e, n = 0;

	if (f32)
		d = (float)d;
	if (isnan(d))
		return (size_t)snprintf(buf, 32, ".nan");
	if (isinf(d))
		return (size_t)snprintf(buf, 32, d > 0 ? ".inf" : "-.inf");
	if (d == 0)
		return (size_t)snprintf(buf, 32, signbit(d) ? "-0" : "0");
	nd = shortest_digits(d, f32, digits, &e);
	if (d < 0)
		buf[n++] = '-';
	/* Shortest 'g': %e when exp < -4 || exp >= 6 (Go uses precision 6
	 * for this decision only). */
	if (e < -4 || e >= 6)
		n = put_exp_form(buf, n, digits, nd, e);
	else
		n = put_plain_form(buf, n, digits, nd, e);
	buf[n] = '\0';
	return (size_t)n;
}

size_t smp_format_float(char *buf, double f)
{
	char digits[24];
	int nd, e, n = 0;
	double af = fabs(f);

	if (f == 0) {
		/* Go prints -0 as "-0". */
		if (signbit(f))
			buf[n++] = '-';
		buf[n++] = '0';
		buf[n] = '\0';
		return (size_t)n;
	}
	nd = shortest_digits(f, false, digits, &e);
	if (f < 0)
		buf[n++] = '-';
	if (af < 1e-6 || af >= 1e21) {
		/* Go's encoding/json then drops the leading zero of a negative
		 * two-digit exponent ("e-07" -> "e-7"). */
		n = put_exp_form(buf, n, digits, nd, e);
		if (n >= 4 && buf[n - 4] == 'e' && buf[n - 3] == '-' && buf[n - 2] == '0') {
			buf[n - 2] = buf[n - 1];
			n--;
		}
		buf[n] = '\0';
		return (size_t)n;
	}
	n = put_plain_form(buf, n, digits, nd, e);
	return (size_t)n;
}
