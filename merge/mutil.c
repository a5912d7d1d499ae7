/*
 * mutil.c - helpers of the merge engine: Go's "%v" formatting (the
 * reference sorts and matches some lists by it), Go's sort orders, and the
 * hash indices that keep list and map matching linear.
 */
#include "merge/merge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Go formatting ---- */

/* strconv.FormatFloat(f, 'g', -1, 64), which is what %v prints. */
static void put_go_g(smp_buf *b, double f)
{
	char tmp[64], digits[32];
	int prec, exp10 = 0, nd = 0;

	if (isnan(f)) {
		smp_buf_puts(b, "NaN");
		return;
	}
	if (isinf(f)) {
		smp_buf_puts(b, f > 0 ? "+Inf" : "-Inf");
		return;
	}
	if (f == 0) {
		smp_buf_puts(b, signbit(f) ? "-0" : "0");
		return;
	}
	/* Shortest digits that read back as the same double. */
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, f);
		if (strtod(tmp, NULL) == f)
			break;
	}
	{
		const char *p = tmp;
		if (*p == '-') {
			smp_buf_putc(b, '-');
			p++;
		}
		for (; *p && *p != 'e'; p++)
			if (*p >= '0' && *p <= '9')
				digits[nd++] = *p;
		if (*p == 'e')
			exp10 = atoi(p + 1);
	}
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	/* %e when the exponent is < -4 or >= 6 (shortest precision rule). */
	if (exp10 < -4 || exp10 >= 6) {
		smp_buf_putc(b, digits[0]);
		if (nd > 1) {
			smp_buf_putc(b, '.');
			smp_buf_put(b, digits + 1, (size_t)nd - 1);
		}
		smp_buf_printf(b, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
		return;
	}
	if (exp10 < 0) {
		smp_buf_puts(b, "0.");
		for (int i = -1; i > exp10; i--)
			smp_buf_putc(b, '0');
		smp_buf_put(b, digits, (size_t)nd);
		return;
	}
	for (int i = 0; i <= exp10; i++)
		smp_buf_putc(b, i < nd ? digits[i] : '0');
	if (nd > exp10 + 1) {
		smp_buf_putc(b, '.');
		smp_buf_put(b, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
	}
}

static int cmp_member_keys(const void *x, const void *y)
{
	const smp_member *a = *(const smp_member *const *)x;
	const smp_member *b = *(const smp_member *const *)y;
	size_t n = a->klen < b->klen ? a->klen : b->klen;
	int c = memcmp(a->key, b->key, n);

	if (c)
		return c;
	return a->klen < b->klen ? -1 : a->klen > b->klen;
}

static void gofmt(smp_buf *b, const smp_value *v, char verb, unsigned depth)
{
	if (depth > 64) {
		smp_buf_puts(b, "...");
		return;
	}
	if (!v || v->type == SMP_NULL) {
		smp_buf_puts(b, verb == 's' ? "%!s(<nil>)" : "<nil>");
		return;
	}
	switch (v->type) {
	case SMP_BOOL:
		smp_buf_puts(b, verb == 's' ? (v->u.b ? "%!s(bool=true)" : "%!s(bool=false)")
		                            : (v->u.b ? "true" : "false"));
		return;
	case SMP_INT:
		if (verb == 's')
			smp_buf_printf(b, "%%!s(int64=%lld)", (long long)v->u.i);
		else
			smp_buf_printf(b, "%lld", (long long)v->u.i);
		return;
	case SMP_FLOAT:
		if (verb == 's')
			smp_buf_puts(b, "%!s(float64=");
		put_go_g(b, v->u.f);
		if (verb == 's')
			smp_buf_putc(b, ')');
		return;
	case SMP_STRING:
		smp_buf_put(b, v->u.s.ptr, v->u.s.len);
		return;
	case SMP_LIST:
		smp_buf_putc(b, '[');
		for (size_t i = 0; i < v->u.list.len; i++) {
			if (i)
				smp_buf_putc(b, ' ');
			gofmt(b, v->u.list.items[i], verb, depth + 1);
		}
		smp_buf_putc(b, ']');
		return;
	case SMP_MAP: {
		size_t n = v->u.map.len;
		const smp_member **m = n ? malloc(n * sizeof(*m)) : NULL;

		smp_buf_puts(b, "map[");
		if (n && !m) {
			smp_buf_puts(b, "...]");
			return;
		}
		for (size_t i = 0; i < n; i++)
			m[i] = &v->u.map.items[i];
		/* fmt prints map keys sorted. */
		if (n > 1)
			qsort(m, n, sizeof(*m), cmp_member_keys);
		for (size_t i = 0; i < n; i++) {
			if (i)
				smp_buf_putc(b, ' ');
			smp_buf_put(b, m[i]->key, m[i]->klen);
			smp_buf_putc(b, ':');
			gofmt(b, m[i]->val, verb, depth + 1);
		}
		smp_buf_putc(b, ']');
		free(m);
		return;
	}
	default:
		return;
	}
}

void smp_gofmt_v(smp_buf *b, const smp_value *v) { gofmt(b, v, 'v', 0); }
void smp_gofmt_s(smp_buf *b, const smp_value *v) { gofmt(b, v, 's', 0); }

const char *smp_go_type_name(const smp_value *v)
{
	switch (v ? v->type : SMP_NULL) {
	case SMP_NULL: return "%!s(<nil>)";
	case SMP_BOOL: return "bool";
	case SMP_INT: return "int64";
	case SMP_FLOAT: return "float64";
	case SMP_STRING: return "string";
	case SMP_LIST: return "[]interface {}";
	case SMP_MAP: return "map[string]interface {}";
	}
	return "?";
}

/* ---- Go sort orders ---- */

static int skey_cmp(const smp_skey *a, const smp_skey *b)
{
	size_t n = a->n < b->n ? a->n : b->n;
	int c = n ? memcmp(a->s, b->s, n) : 0;

	if (c)
		return c;
	return a->n < b->n ? -1 : a->n > b->n;
}

/* sort.Sort (pdqsort, Go >= 1.19) with the reference's Less(i, j) =
 * "keys[i] <= keys[j]": an exact port, so that ties (equal "%v" texts) come
 * out in Go's order too. */
typedef struct psort {
	size_t *idx;
	const smp_skey *keys;
} psort;

static bool p_less(const psort *d, size_t i, size_t j)
{
	return skey_cmp(&d->keys[d->idx[i]], &d->keys[d->idx[j]]) <= 0;
}

static void p_swap(psort *d, size_t i, size_t j)
{
	size_t t = d->idx[i];
	d->idx[i] = d->idx[j];
	d->idx[j] = t;
}

static void p_insertion(psort *d, size_t a, size_t b)
{
	for (size_t i = a + 1; i < b; i++)
		for (size_t j = i; j > a && p_less(d, j, j - 1); j--)
			p_swap(d, j, j - 1);
}

static void p_sift_down(psort *d, size_t lo, size_t hi, size_t first)
{
	size_t root = lo;

	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= hi)
			return;
		if (child + 1 < hi && p_less(d, first + child, first + child + 1))
			child++;
		if (!p_less(d, first + root, first + child))
			return;
		p_swap(d, first + root, first + child);
		root = child;
	}
}

static void p_heapsort(psort *d, size_t a, size_t b)
{
	size_t first = a, hi = b - a;

	for (size_t i = (hi - 1) / 2 + 1; i-- > 0;)
		p_sift_down(d, i, hi, first);
	for (size_t i = hi; i-- > 0;) {
		p_swap(d, first, first + i);
		p_sift_down(d, 0, i, first);
	}
}

static unsigned bits_len(size_t x)
{
	unsigned n = 0;
	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

static void p_break_patterns(psort *d, size_t a, size_t b)
{
	size_t length = b - a;

	if (length >= 8) {
		uint64_t r = length;
		size_t modulus = (size_t)1 << bits_len(length);
		for (size_t idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1; idx++) {
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			size_t other = (size_t)(r & (modulus - 1));
			if (other >= length)
				other -= length;
			p_swap(d, idx, a + other);
		}
	}
}

static void p_order2(psort *d, size_t *a, size_t *b, int *swaps)
{
	if (p_less(d, *b, *a)) {
		size_t t = *a;
		*a = *b;
		*b = t;
		(*swaps)++;
	}
}

static size_t p_median(psort *d, size_t a, size_t b, size_t c, int *swaps)
{
	p_order2(d, &a, &b, swaps);
	p_order2(d, &b, &c, swaps);
	p_order2(d, &a, &b, swaps);
	return b;
}

enum { HINT_UNKNOWN, HINT_INCREASING, HINT_DECREASING };

static size_t p_choose_pivot(psort *d, size_t a, size_t b, int *hint)
{
	size_t l = b - a, i = a + l / 4 * 1, j = a + l / 4 * 2, k = a + l / 4 * 3;
	int swaps = 0;

	if (l >= 8) {
		if (l >= 50) {
			i = p_median(d, i - 1, i, i + 1, &swaps);
			j = p_median(d, j - 1, j, j + 1, &swaps);
			k = p_median(d, k - 1, k, k + 1, &swaps);
		}
		j = p_median(d, i, j, k, &swaps);
	}
	*hint = swaps == 0 ? HINT_INCREASING : swaps == 12 ? HINT_DECREASING : HINT_UNKNOWN;
	return j;
}

static bool p_partial_insertion(psort *d, size_t a, size_t b)
{
	size_t i = a + 1;

	for (int step = 0; step < 5; step++) {
		while (i < b && !p_less(d, i, i - 1))
			i++;
		if (i == b)
			return true;
		if (b - a < 50)
			return false;
		p_swap(d, i, i - 1);
		if (i - a >= 2)
			for (size_t j = i - 1; j >= 1; j--) {
				if (!p_less(d, j, j - 1))
					break;
				p_swap(d, j, j - 1);
			}
		if (b - i >= 2)
			for (size_t j = i + 1; j < b; j++) {
				if (!p_less(d, j, j - 1))
					break;
				p_swap(d, j, j - 1);
			}
	}
	return false;
}

static size_t p_partition_equal(psort *d, size_t a, size_t b, size_t pivot)
{
	long i, j;

	p_swap(d, a, pivot);
	i = (long)a + 1;
	j = (long)b - 1;
	for (;;) {
		while (i <= j && !p_less(d, a, (size_t)i))
			i++;
		while (i <= j && p_less(d, a, (size_t)j))
			j--;
		if (i > j)
			break;
		p_swap(d, (size_t)i, (size_t)j);
		i++;
		j--;
	}
	return (size_t)i;
}

static size_t p_partition(psort *d, size_t a, size_t b, size_t pivot, bool *already)
{
	long i, j;

	p_swap(d, a, pivot);
	i = (long)a + 1;
	j = (long)b - 1;
	while (i <= j && p_less(d, (size_t)i, a))
		i++;
	while (i <= j && !p_less(d, (size_t)j, a))
		j--;
	if (i > j) {
		p_swap(d, (size_t)j, a);
		*already = true;
		return (size_t)j;
	}
	p_swap(d, (size_t)i, (size_t)j);
	i++;
	j--;
	for (;;) {
		while (i <= j && p_less(d, (size_t)i, a))
			i++;
		while (i <= j && !p_less(d, (size_t)j, a))
			j--;
		if (i > j)
			break;
		p_swap(d, (size_t)i, (size_t)j);
		i++;
		j--;
	}
	p_swap(d, (size_t)j, a);
	*already = false;
	return (size_t)j;
}

static void p_reverse(psort *d, size_t a, size_t b)
{
	size_t i = a, j = b - 1;
	while (i < j)
		p_swap(d, i++, j--);
}

static void pdqsort(psort *d, size_t a, size_t b, unsigned limit)
{
	bool balanced = true, partitioned = true;

	for (;;) {
		size_t length = b - a, pivot, mid;
		int hint;

		if (length <= 12) {
			p_insertion(d, a, b);
			return;
		}
		if (limit == 0) {
			p_heapsort(d, a, b);
			return;
		}
		if (!balanced) {
			p_break_patterns(d, a, b);
			limit--;
		}
		pivot = p_choose_pivot(d, a, b, &hint);
		if (hint == HINT_DECREASING) {
			p_reverse(d, a, b);
			pivot = (b - 1) - (pivot - a);
			hint = HINT_INCREASING;
		}
		if (balanced && partitioned && hint == HINT_INCREASING && p_partial_insertion(d, a, b))
			return;
		if (a > 0 && !p_less(d, a - 1, pivot)) {
			a = p_partition_equal(d, a, b, pivot);
			continue;
		}
		bool already;
		mid = p_partition(d, a, b, pivot, &already);
		partitioned = already;
		size_t left = mid - a, right = b - mid, threshold = length / 8;
		if (left < right) {
			balanced = left >= threshold;
			pdqsort(d, a, mid, limit);
			a = mid + 1;
		} else {
			balanced = right >= threshold;
			pdqsort(d, mid + 1, b, limit);
			b = mid;
		}
	}
}

int smp_go_sort_keys(size_t *idx, const smp_skey *keys, size_t n)
{
	psort d = {idx, keys};

	if (n > 1)
		pdqsort(&d, 0, n, bits_len(n));
	return 0;
}

/* sort.SliceStable: insertion sort on blocks of 20, then SymMerge. */
typedef struct ssort {
	void **items;
	long *keys;
} ssort;

static int ss_less(const ssort *s, size_t i, size_t j)
{
	long a = s->keys[i], b = s->keys[j];
	return (a >= 0 && b >= 0) ? a < b : 1;
}

static void ss_swap(ssort *s, size_t i, size_t j)
{
	void *t = s->items[i];
	long k = s->keys[i];
	s->items[i] = s->items[j];
	s->keys[i] = s->keys[j];
	s->items[j] = t;
	s->keys[j] = k;
}

static void ss_insertion(ssort *s, size_t a, size_t b)
{
	for (size_t i = a + 1; i < b; i++)
		for (size_t j = i; j > a && ss_less(s, j, j - 1); j--)
			ss_swap(s, j, j - 1);
}

static void ss_swap_range(ssort *s, size_t a, size_t b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ss_swap(s, a + i, b + i);
}

static void ss_rotate(ssort *s, size_t a, size_t m, size_t b)
{
	size_t i = m - a, j = b - m;

	while (i != j) {
		if (i > j) {
			ss_swap_range(s, m - i, m, j);
			i -= j;
		} else {
			ss_swap_range(s, m - i, m + j - i, i);
			j -= i;
		}
	}
	ss_swap_range(s, m - i, m, i);
}

static void ss_symmerge(ssort *s, size_t a, size_t m, size_t b)
{
	if (m - a == 1) {
		size_t i = m, j = b;
		while (i < j) {
			size_t h = (i + j) >> 1;
			if (ss_less(s, h, a))
				i = h + 1;
			else
				j = h;
		}
		for (size_t k = a; k + 1 < i; k++)
			ss_swap(s, k, k + 1);
		return;
	}
	if (b - m == 1) {
		size_t i = a, j = m;
		while (i < j) {
			size_t h = (i + j) >> 1;
			if (!ss_less(s, m, h))
				i = h + 1;
			else
				j = h;
		}
		for (size_t k = m; k > i; k--)
			ss_swap(s, k, k - 1);
		return;
	}
	size_t mid = (a + b) >> 1, n = mid + m, start, r;
	if (m > mid) {
		start = n - b;
		r = mid;
	} else {
		start = a;
		r = m;
	}
	size_t p = n - 1;
	while (start < r) {
		size_t c = (start + r) >> 1;
		if (!ss_less(s, p - c, c))
			start = c + 1;
		else
			r = c;
	}
	size_t end = n - start;
	if (start < m && m < end)
		ss_rotate(s, start, m, end);
	if (a < start && start < mid)
		ss_symmerge(s, a, start, mid);
	if (mid < end && end < b)
		ss_symmerge(s, mid, end, b);
}

void smp_go_stable_by_index(void **items, long *keys, size_t n)
{
	ssort s = {items, keys};
	size_t block = 20, a = 0, b = block;

	/* Fast path: all keys known and already ascending. */
	bool sorted = true;
	for (size_t i = 0; i < n; i++)
		if (keys[i] < 0 || (i && keys[i] < keys[i - 1])) {
			sorted = false;
			break;
		}
	if (sorted)
		return;
	while (b <= n) {
		ss_insertion(&s, a, b);
		a = b;
		b += block;
	}
	ss_insertion(&s, a, n);
	while (block < n) {
		a = 0;
		b = 2 * block;
		while (b <= n) {
			ss_symmerge(&s, a, a + block, b);
			a = b;
			b += 2 * block;
		}
		if (a + block < n)
			ss_symmerge(&s, a, a + block, n);
		block *= 2;
	}
}

/* ---- value index ---- */

int smp_vindex_init(smp_vindex *ix, smp_arena *a, size_t max_entries)
{
	size_t cap = 8;

	while (cap < 2 * max_entries + 2)
		cap *= 2;
	ix->cap = cap;
	ix->n = 0;
	ix->max = max_entries;
	ix->dup = false;
	ix->slot = smp_arena_alloc(a, cap * sizeof(uint32_t));
	ix->ent = smp_arena_alloc(a, (max_entries + 1) * sizeof(*ix->ent));
	if (!ix->slot || !ix->ent)
		return SMP_ENOMEM;
	memset(ix->slot, 0, cap * sizeof(uint32_t));
	return 0;
}

static const smp_value null_value = {.type = SMP_NULL};

static uint64_t vmix(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return h;
}

/* Hash of a byte string, 8 bytes per step; a tail after at least one full
 * word is read as the (overlapping) last 8 bytes, so no byte loop there. */
static uint64_t shash(const char *key, size_t len)
{
	const unsigned char *p = (const unsigned char *)key;
	size_t n = len;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	if (n < 8) {
		w = (uint64_t)n << 56;
		for (size_t i = 0; i < n; i++)
			w ^= (uint64_t)p[i] << (8 * i);
		return vmix((h ^ vmix(w)) * 0x100000001b3ull);
	}
	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&w, p, 8);
		h = (h ^ vmix(w)) * 0x100000001b3ull;
	}
	if (n) {
		memcpy(&w, p + n - 8, 8);
		h = (h ^ vmix(w + 1)) * 0x100000001b3ull;
	}
	return vmix(h);
}

/* Merge keys are nearly always strings or integers: hash those 8 bytes per
 * step (the generic smpv_hash takes one byte per step); anything else goes
 * to smpv_hash. Values of different types are never equal, so mixing the
 * hash functions by type keeps "equal => same hash". */
static uint64_t vhash(const smp_value *k)
{
	if (k->type == SMP_STRING)
		return shash(k->u.s.ptr, k->u.s.len);
	if (k->type == SMP_INT)
		return vmix((uint64_t)k->u.i * 0x9e3779b97f4a7c15ull + 4);
	return smpv_hash(k);
}

static bool vequal(const smp_value *a, const smp_value *b)
{
	if (a->type == SMP_STRING && b->type == SMP_STRING)
		return a->u.s.len == b->u.s.len && memcmp(a->u.s.ptr, b->u.s.ptr, a->u.s.len) == 0;
	return smpv_equal(a, b);
}

uint64_t smp_vindex_hash(const smp_value *key)
{
	return vhash(key ? key : &null_value);
}

void smp_vindex_add(smp_vindex *ix, const smp_value *key, size_t pos)
{
	smp_vindex_add_h(ix, key, smp_vindex_hash(key), pos);
}

void smp_vindex_add_h(smp_vindex *ix, const smp_value *key, uint64_t h, size_t pos)
{
	size_t s;

	if (!key)
		key = &null_value;
	s = h & (ix->cap - 1);
	while (ix->slot[s]) {
		const struct smp_vindex_ent *e = &ix->ent[ix->slot[s] - 1];
		if (e->hash == h && vequal(e->key, key)) {
			ix->dup = true;
			return;
		}
		s = (s + 1) & (ix->cap - 1);
	}
	if (ix->n >= ix->max)
		return; /* callers size the index; never reached */
	ix->ent[ix->n].key = key;
	ix->ent[ix->n].pos = pos;
	ix->ent[ix->n].hash = h;
	ix->slot[s] = (uint32_t)(++ix->n);
}

static long vfind_h(const smp_vindex *ix, const smp_value *key, uint64_t h, size_t *entry)
{
	size_t s = h & (ix->cap - 1);

	while (ix->slot[s]) {
		const struct smp_vindex_ent *e = &ix->ent[ix->slot[s] - 1];
		if (e->hash == h && vequal(e->key, key)) {
			*entry = ix->slot[s] - 1;
			return (long)e->pos;
		}
		s = (s + 1) & (ix->cap - 1);
	}
	return -1;
}

static long vfind(const smp_vindex *ix, const smp_value *key, size_t *entry)
{
	return vfind_h(ix, key, vhash(key), entry);
}

long smp_vindex_find_h(const smp_vindex *ix, const smp_value *key, uint64_t h)
{
	size_t e;

	return vfind_h(ix, key ? key : &null_value, h, &e);
}

long smp_vindex_find(const smp_vindex *ix, const smp_value *key)
{
	size_t e;

	return vfind(ix, key ? key : &null_value, &e);
}

long smp_vindex_find_next(const smp_vindex *ix, const smp_value *key, size_t *hint)
{
	size_t e = *hint;
	long r;

	if (!key)
		key = &null_value;
	/* Without duplicates an equal key at the hinted entry is the answer. */
	if (!ix->dup && e < ix->n && vequal(ix->ent[e].key, key)) {
		*hint = e + 1;
		return (long)ix->ent[e].pos;
	}
	r = vfind(ix, key, &e);
	if (r >= 0)
		*hint = e + 1;
	return r;
}

/* ---- map key index ---- */

#define KINDEX_LINEAR 16

/* A slot holds the entry number + 1 (low 32 bits; 0 = empty) and the high
 * half of the key's hash, compared before the key is touched. */
static void kindex_insert(smp_kindex *ix, size_t i)
{
	const smp_member *e = &ix->map->u.map.items[i];
	uint64_t h = shash(e->key, e->klen), tag = h >> 32;
	size_t s = h & (ix->cap - 1);

	while (ix->slot[s]) {
		if ((ix->slot[s] >> 32) == tag) {
			const smp_member *o = &ix->map->u.map.items[(uint32_t)ix->slot[s] - 1];
			if (o->klen == e->klen && memcmp(o->key, e->key, e->klen) == 0)
				ix->dup = true;
		}
		s = (s + 1) & (ix->cap - 1);
	}
	ix->slot[s] = (tag << 32) | ((uint64_t)i + 1);
}

static int kindex_rebuild(smp_kindex *ix)
{
	size_t cap = 64;
	const smp_value *m = ix->map;

	/* Load at most 1/2 (smp_kindex_added rebuilds beyond): the tags keep
	 * probes short, and a smaller table stays in cache. */
	while (cap < 2 * m->u.map.len + 2)
		cap *= 2;
	ix->slot = smp_arena_alloc(ix->arena, cap * sizeof(*ix->slot));
	if (!ix->slot) {
		ix->cap = 0;
		return SMP_ENOMEM;
	}
	memset(ix->slot, 0, cap * sizeof(*ix->slot));
	ix->cap = cap;
	ix->dup = false;
	for (size_t i = 0; i < m->u.map.len; i++)
		kindex_insert(ix, i);
	return 0;
}

int smp_kindex_init(smp_kindex *ix, smp_arena *a, const smp_value *map)
{
	ix->map = map;
	ix->arena = a;
	ix->slot = NULL;
	ix->cap = 0;
	ix->dup = false;
	if (map && map->type == SMP_MAP && map->u.map.len > KINDEX_LINEAR)
		return kindex_rebuild(ix);
	return 0;
}

int smp_kindex_added(smp_kindex *ix)
{
	const smp_value *m = ix->map;
	size_t i = m->u.map.len - 1;

	if (!ix->cap) {
		if (m->u.map.len > KINDEX_LINEAR)
			return kindex_rebuild(ix);
		return 0;
	}
	if (2 * m->u.map.len > ix->cap)
		return kindex_rebuild(ix);
	kindex_insert(ix, i);
	return 0;
}

long smp_kindex_find(const smp_kindex *ix, const char *key, size_t klen)
{
	const smp_value *m = ix->map;

	if (!m || m->type != SMP_MAP)
		return -1;
	if (!ix->cap)
		return (long)smpv_map_find(m, key, klen);
	uint64_t h = shash(key, klen), tag = h >> 32;
	size_t s = h & (ix->cap - 1);
	while (ix->slot[s]) {
		if ((ix->slot[s] >> 32) == tag) {
			size_t i = (uint32_t)ix->slot[s] - 1;
			const smp_member *e = &m->u.map.items[i];
			if (e->klen == klen && memcmp(e->key, key, klen) == 0)
				return (long)i;
		}
		s = (s + 1) & (ix->cap - 1);
	}
	return -1;
}

/* ---- maps with sorted keys ---- */

static int kcmp(const smp_member *e, const char *key, size_t klen)
{
	int r = memcmp(e->key, key, e->klen < klen ? e->klen : klen);

	if (r)
		return r;
	return e->klen < klen ? -1 : e->klen > klen;
}

bool smp_keys_sorted(const smp_value *map, size_t n)
{
	const smp_member *it = map->u.map.items;

	for (size_t i = 1; i < n; i++)
		if (kcmp(&it[i - 1], it[i].key, it[i].klen) >= 0)
			return false;
	return true;
}

long smp_sorted_find(const smp_value *map, size_t n, const char *key, size_t klen, size_t hint)
{
	const smp_member *it = map->u.map.items;
	size_t lo = 0, hi = n, step = 1;

	if (hint < n && kcmp(&it[hint], key, klen) < 0) {
		/* Gallop forward from the hint: O(log distance). */
		lo = hint + 1;
		while (lo + step < n && kcmp(&it[lo + step], key, klen) < 0) {
			lo += step + 1;
			step *= 2;
		}
		hi = lo + step < n ? lo + step + 1 : n;
	} else if (hint < n) {
		hi = hint;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (kcmp(&it[mid], key, klen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= n || kcmp(&it[lo], key, klen) != 0)
		return -1;
	return (long)lo;
}

static bool is_number(const smp_value *v)
{
	return v->type == SMP_INT || v->type == SMP_FLOAT;
}

bool smp_json_value_equal(const smp_value *x, const smp_value *y)
{
	if (is_number(x) && is_number(y)) {
		if (x->type == SMP_INT && y->type == SMP_INT)
			return x->u.i == y->u.i;
		return smp_value_float(x) == smp_value_float(y);
	}
	if (x->type != y->type)
		return false;
	if (x->type == SMP_LIST) {
		if (x->u.list.len != y->u.list.len)
			return false;
		for (size_t i = 0; i < x->u.list.len; i++)
			if (!smp_json_value_equal(x->u.list.items[i], y->u.list.items[i]))
				return false;
		return true;
	}
	if (x->type == SMP_MAP) {
		if (x->u.map.len != y->u.map.len)
			return false;
		for (size_t i = 0; i < x->u.map.len; i++) {
			const smp_member *e = &x->u.map.items[i];
			const smp_member *f = &y->u.map.items[i];
			ptrdiff_t j = (ptrdiff_t)i;
			/* Same position first: the maps nearly always share their order. */
			if (f->klen != e->klen || memcmp(f->key, e->key, e->klen) != 0)
				j = smpv_map_find(y, e->key, e->klen);
			if (j < 0 || !smp_json_value_equal(e->val, y->u.map.items[j].val))
				return false;
		}
		return true;
	}
	return smpv_equal(x, y);
}

/* ---- scratch memory with marks ---- */

struct smp_mscratch_chunk {
	smp_mscratch_chunk *next;
	size_t size;             /* bytes of data, a multiple of 8 */
	max_align_t data[];
};

#define SCRATCH_FIRST (64u << 10)
#define SCRATCH_MAX (1u << 20)

void smp_mscratch_init(smp_mscratch *s)
{
	s->first = s->cur = NULL;
	s->p = s->end = NULL;
}

void smp_mscratch_free(smp_mscratch *s)
{
	smp_mscratch_chunk *c = s->first;

	while (c) {
		smp_mscratch_chunk *next = c->next;
		free(c);
		c = next;
	}
	smp_mscratch_init(s);
}

static void scratch_use(smp_mscratch *s, smp_mscratch_chunk *c)
{
	s->cur = c;
	s->p = (char *)c->data;
	s->end = s->p + c->size;
}

void *smp_mscratch_alloc_slow(smp_mscratch *s, size_t n)
{
	smp_mscratch_chunk *c, *after = s->cur;
	size_t need, size;

	if (n > SIZE_MAX / 2)
		return NULL;
	need = (n + 7) & ~(size_t)7;
	if (s->cur && need <= (size_t)(s->end - s->p)) {
		void *r = s->p; /* exact fit */
		s->p += need;
		return r;
	}
	/* The chunks after cur are free (given back by a reset): take the
	 * next one if it is large enough. */
	if (after && after->next && after->next->size >= need) {
		scratch_use(s, after->next);
	} else {
		size = after ? after->size * 2 : SCRATCH_FIRST;
		if (size > SCRATCH_MAX)
			size = SCRATCH_MAX;
		if (size < need)
			size = need;
		if (size > SIZE_MAX - sizeof(*c))
			return NULL;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		if (after) {
			c->next = after->next;
			after->next = c;
		} else {
			c->next = s->first;
			s->first = c;
		}
		scratch_use(s, c);
	}
	void *r = s->p;
	s->p += need;
	return r;
}

void smp_mscratch_reset(smp_mscratch *s, smp_mmark m)
{
	if (!m.c) {
		/* Marked while empty: back to the start of the first chunk. */
		if (s->first)
			scratch_use(s, s->first);
		return;
	}
	s->cur = m.c;
	s->p = m.p;
	s->end = (char *)m.c->data + m.c->size;
}

/* ---- value index in caller memory ---- */

static size_t vindex_cap(size_t max_entries)
{
	size_t cap = 8;

	while (cap < 2 * max_entries + 2)
		cap *= 2;
	return cap;
}

size_t smp_vindex_bytes(size_t max_entries)
{
	return vindex_cap(max_entries) * sizeof(uint32_t) +
	       (max_entries + 1) * sizeof(struct smp_vindex_ent);
}

void smp_vindex_init_at(smp_vindex *ix, void *mem, size_t max_entries)
{
	size_t cap = vindex_cap(max_entries);

	ix->cap = cap;
	ix->n = 0;
	ix->max = max_entries;
	ix->dup = false;
	/* entries first: they need 8-byte alignment, the slots only 4 */
	ix->ent = mem;
	ix->slot = (uint32_t *)((char *)mem + (max_entries + 1) * sizeof(*ix->ent));
	memset(ix->slot, 0, cap * sizeof(uint32_t));
}

/* ---- deep copy for the merge ---- */

/*
 * smpv_copy allocates node by node and copies every key. Copying a whole
 * document (smp_patch_apply's target) this way is most of that call's time.
 * Here the children of a map or list get their nodes in one block, and map
 * keys, which a parsed document shares between maps (one copy per distinct
 * key), are copied once per distinct source pointer through a small
 * direct-mapped cache. The result is the same tree (values, keys, order,
 * source positions).
 */
#define KCACHE 512

#if defined(__GNUC__)
#define TC_PREFETCH(p) __builtin_prefetch(p)
#else
#define TC_PREFETCH(p) ((void)(p))
#endif

typedef struct tcopy {
	smp_arena *a;
	struct {
		const char *src;
		size_t klen;
		const char *dst;
	} kc[KCACHE];
} tcopy;

static const char *tc_key(tcopy *t, const char *key, size_t klen)
{
	size_t h = (size_t)(((uintptr_t)key >> 3) * 0x9e3779b97f4a7c15ull >> 55) & (KCACHE - 1);
	char *k;

	if (t->kc[h].src == key && t->kc[h].klen == klen)
		return t->kc[h].dst;
	k = smp_arena_strndup(t->a, key, klen);
	if (k) {
		t->kc[h].src = key;
		t->kc[h].klen = klen;
		t->kc[h].dst = k;
	}
	return k;
}

/* A patch map whose scalar values the merge will put in place of the
 * target's: no directive keys (they all start with '$'). Only small ones
 * (each key of the target map is looked for among them): the large values
 * worth skipping sit under the few top-level keys (the last-applied
 * annotation), not in maps of thousands of keys. */
static bool tc_plain_patch(const smp_value *p)
{
	if (!p || p->type != SMP_MAP || p->u.map.len == 0 || p->u.map.len > 8)
		return false;
	for (size_t i = 0; i < p->u.map.len; i++)
		if (p->u.map.items[i].klen && p->u.map.items[i].key[0] == '$')
			return false;
	return true;
}

/* Fills *d (already a copy of *s's struct) with copies of what s points
 * to. p: the strategic patch's map at the same place, or NULL (see
 * smp_tree_copy_for_patch). Returns false on allocation failure. */
static bool tc_fill(tcopy *t, smp_value *d, const smp_value *s, unsigned depth,
                    const smp_value *p)
{
	size_t n;
	smp_value *kids;

	switch (s->type) {
	case SMP_STRING: {
		char *str = smp_arena_alloc(t->a, (size_t)s->u.s.len + 1);
		if (!str)
			return false;
		if (s->u.s.len)
			memcpy(str, s->u.s.ptr, s->u.s.len);
		str[s->u.s.len] = '\0';
		d->u.s.ptr = str;
		return true;
	}
	case SMP_LIST:
	case SMP_MAP:
		break;
	default:
		return true;
	}
	if (depth > 4096) {
		/* deeper than the merge goes: smpv_copy's plain recursion */
		smp_value *c = smpv_copy(t->a, s);
		if (!c)
			return false;
		*d = *c;
		return true;
	}
	n = s->type == SMP_LIST ? s->u.list.len : s->u.map.len;
	if (n == 0) {
		if (s->type == SMP_LIST)
			d->u.list.items = NULL, d->u.list.cap = 0;
		else
			d->u.map.items = NULL, d->u.map.cap = 0;
		return true;
	}
	kids = smp_arena_alloc(t->a, n * sizeof(*kids));
	if (!kids)
		return false;
	if (s->type == SMP_LIST) {
		smp_value **items = smp_arena_alloc(t->a, n * sizeof(*items));
		if (!items)
			return false;
		for (size_t i = 0; i < n; i++) {
			const smp_value *e = s->u.list.items[i];
			if (i + 4 < n)
				TC_PREFETCH(s->u.list.items[i + 4]);
			kids[i] = *e;
			items[i] = &kids[i];
			if (!tc_fill(t, &kids[i], e, depth + 1, NULL))
				return false;
		}
		d->u.list.items = items;
		d->u.list.cap = d->u.list.len;
	} else {
		smp_member *items = smp_arena_alloc(t->a, n * sizeof(*items));
		const smp_value *pm = tc_plain_patch(p) ? p : NULL;
		if (!items)
			return false;
		for (size_t i = 0; i < n; i++) {
			const smp_member *m = &s->u.map.items[i];
			const smp_value *pv = NULL;
			if (i + 2 < n)
				TC_PREFETCH(s->u.map.items[i + 2].val);
			items[i].key = tc_key(t, m->key, m->klen);
			items[i].klen = m->klen;
			if (!items[i].key)
				return false;
			kids[i] = *m->val;
			items[i].val = &kids[i];
			if (pm) {
				ptrdiff_t j = smpv_map_find(pm, m->key, m->klen);
				if (j >= 0)
					pv = pm->u.map.items[j].val;
			}
			if (pv && pv->type != SMP_MAP && pv->type != SMP_LIST) {
				/* The merge replaces (or, for null, deletes) this value
				 * without reading more than its type: an empty node of
				 * that type stands in for the copy. */
				if (kids[i].type == SMP_STRING) {
					kids[i].u.s.ptr = "";
					kids[i].u.s.len = 0;
				} else if (kids[i].type == SMP_LIST) {
					kids[i].u.list.items = NULL;
					kids[i].u.list.len = kids[i].u.list.cap = 0;
				} else if (kids[i].type == SMP_MAP) {
					kids[i].u.map.items = NULL;
					kids[i].u.map.len = kids[i].u.map.cap = 0;
				}
				continue;
			}
			if (!tc_fill(t, &kids[i], m->val, depth + 1,
			             pv && pv->type == SMP_MAP ? pv : NULL))
				return false;
		}
		d->u.map.items = items;
		d->u.map.cap = d->u.map.len;
	}
	return true;
}

smp_value *smp_tree_copy_for_patch(smp_arena *a, const smp_value *v, const smp_value *patch)
{
	tcopy *t;
	smp_value *r;

	if (!v)
		return NULL;
	t = calloc(1, sizeof(*t));
	r = smp_arena_alloc(a, sizeof(*r));
	if (!t || !r) {
		free(t);
		return NULL;
	}
	t->a = a;
	*r = *v;
	if (!tc_fill(t, r, v, 0, patch))
		r = NULL;
	free(t);
	return r;
}

smp_value *smp_tree_copy(smp_arena *a, const smp_value *v)
{
	return smp_tree_copy_for_patch(a, v, NULL);
}
