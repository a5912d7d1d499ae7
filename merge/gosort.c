/*
 * gosort.c - Go's sort orders, ported exactly so that ties come out as the
 * reference orders them: sort.Sort (pdqsort) over "%v" texts and
 * sort.Stable (insertion sort and SymMerge) over positions.
 */
#include "merge/merge.h"

#include <string.h>

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

/* Go's sort.Sort (pattern-defeating quicksort, as in Go 1.19+) over
 * [a, b): the same element order as the reference's sort, also for
 * elements that compare equal. */
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

/* Go's sort.Stable merge step (SymMerge) of [a, m) and [m, b). */
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
