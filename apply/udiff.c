/*
 * udiff.c - the unified diff of two texts (smp_text_diff), as `kubectl
 * diff` shows it through `diff -u -N`: three lines of context, hunks
 * merged when six lines or fewer separate them, GNU diff's ranges.
 */
#include "plan_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct line {
	const char *p;
	size_t n;
} line;

/* The lines of s (a final newline ends the last one); never NULL. */
static int split_lines(line **out, size_t *count, const char *s, size_t len)
{
	size_t n = 0, cap = 0, start = 0;
	line *l = NULL;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '\n')
			continue;
		if (i == len && start == len)
			break;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			line *g = realloc(l, ncap * sizeof(*l));

			if (!g) {
				free(l);
				return SMP_ENOMEM;
			}
			l = g;
			cap = ncap;
		}
		l[n].p = s + start;
		l[n].n = i - start;
		n++;
		start = i + 1;
	}
	if (!l && !(l = malloc(sizeof(*l))))
		return SMP_ENOMEM;
	*out = l;
	*count = n;
	return 0;
}

static bool line_eq(const line *a, const line *b)
{
	return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

/* Past this many differences the diff gives up on finding the shortest
 * script and replaces everything (memory is O(D^2)). */
#define DIFF_MAX_D 2000

/* The edit script of a against b, ops[k] one of ' ', '-', '+' (greedy
 * Myers, one V row kept per step to backtrack). */
static int myers(char **ops_out, size_t *nops_out, const line *a, size_t n, const line *b,
                 size_t m)
{
	size_t max = n + m;
	long **trace = NULL;
	size_t ntrace = 0;
	char *ops = NULL;
	size_t nops = 0;
	long d, found = -1;
	int rc = 0;

	*ops_out = NULL;
	*nops_out = 0;
	if (max == 0)
		return 0;
	if (max >= (size_t)INTPTR_MAX) /* lets gcc -O2 bound malloc(max + 1) */
		return SMP_ELIMIT;
	trace = calloc((size_t)DIFF_MAX_D + 2, sizeof(*trace));
	if (!trace)
		return SMP_ENOMEM;
	for (d = 0; d <= (long)max && d <= DIFF_MAX_D; d++) {
		long *v = malloc((size_t)(2 * d + 3) * sizeof(long));
		long *prev = d ? trace[d - 1] : NULL;

		if (!v) {
			rc = SMP_ENOMEM;
			goto out;
		}
		trace[ntrace++] = v;
		for (long k = -d; k <= d; k += 2) {
			long x, y;

			/* the previous row is indexed k + (d-1) + 1 */
			if (d == 0)
				x = 0;
			else if (k == -d || (k != d && prev[k - 1 + d] < prev[k + 1 + d]))
				x = prev[k + 1 + d];
			else
				x = prev[k - 1 + d] + 1;
			y = x - k;
			while (x < (long)n && y < (long)m && line_eq(&a[x], &b[y]))
				x++, y++;
			v[k + d + 1] = x;
			if (x >= (long)n && y >= (long)m) {
				found = d;
				break;
			}
		}
		if (found >= 0)
			break;
	}
	ops = malloc(max + 1);
	if (!ops) {
		rc = SMP_ENOMEM;
		goto out;
	}
	if (found < 0) {
		/* Too many differences: everything old out, everything new in. */
		for (size_t i = 0; i < n; i++)
			ops[nops++] = '-';
		for (size_t i = 0; i < m; i++)
			ops[nops++] = '+';
	} else {
		/* Backtrack from (n, m), writing the script from its end. */
		long x = (long)n, y = (long)m;
		size_t w = max;
		char *rev = malloc(max + 1);

		if (!rev) {
			rc = SMP_ENOMEM;
			goto out;
		}
		for (d = found; d > 0; d--) {
			long *prev = trace[d - 1];
			long k = x - y, pk, px, py;

			if (k == -d || (k != d && prev[k - 1 + d] < prev[k + 1 + d]))
				pk = k + 1;
			else
				pk = k - 1;
			px = prev[pk + d];
			py = px - pk;
			while (x > px && y > py) {
				rev[--w] = ' ';
				x--, y--;
			}
			rev[--w] = x == px ? '+' : '-';
			x = px;
			y = py;
		}
		while (x > 0 && y > 0) {
			rev[--w] = ' ';
			x--, y--;
		}
		memcpy(ops, rev + w, max - w);
		nops = max - w;
		free(rev);
	}
	*ops_out = ops;
	*nops_out = nops;
	ops = NULL;
out:
	for (size_t i = 0; i < ntrace; i++)
		free(trace[i]);
	free(trace);
	free(ops);
	return rc;
}

/* GNU diff's range: "l,s"; ",1" left out; an empty range names the line
 * before it. */
static void put_range(smp_buf *out, size_t start, size_t count)
{
	if (count == 1)
		smp_buf_printf(out, "%zu", start + 1);
	else
		smp_buf_printf(out, "%zu,%zu", count ? start + 1 : start, count);
}

/* ANSI colours of a coloured diff (as git diff colours its parts). */
#define C_HEAD "\033[1m"
#define C_HUNK "\033[36m"
#define C_DEL "\033[31m"
#define C_ADD "\033[32m"
#define C_END "\033[0m"

/* The hunks of the script ops (la against lb): changes with up to 3 lines
 * of context, merged when 6 lines or fewer of context separate them. */
static void put_hunks(smp_buf *out, const char *ops, size_t nops, const line *la,
                      const line *lb, bool color)
{
	size_t i = 0, ia = 0, ib = 0;

	while (i < nops) {
		size_t s, e, ctx = 0, sa, sb, ca = 0, cb = 0, j, ja, jb;

		if (ops[i] == ' ') {
			i++, ia++, ib++;
			continue;
		}
		s = i;
		sa = ia;
		sb = ib;
		while (s > 0 && ops[s - 1] == ' ' && ctx < 3)
			s--, sa--, sb--, ctx++;
		e = i;
		for (;;) {
			size_t run = 0;

			while (e < nops && ops[e] != ' ')
				e++;
			while (e + run < nops && ops[e + run] == ' ')
				run++;
			if (e + run >= nops || run > 6) {
				e += run < 3 ? run : 3;
				break;
			}
			e += run;
		}
		for (j = s; j < e; j++) {
			ca += ops[j] != '+';
			cb += ops[j] != '-';
		}
		smp_buf_puts(out, color ? C_HUNK "@@ -" : "@@ -");
		put_range(out, sa, ca);
		smp_buf_puts(out, " +");
		put_range(out, sb, cb);
		smp_buf_puts(out, color ? " @@" C_END "\n" : " @@\n");
		ja = sa;
		jb = sb;
		for (j = s; j < e; j++) {
			const line *l = ops[j] == '+' ? &lb[jb] : &la[ja];
			bool paint = color && ops[j] != ' ';

			if (paint)
				smp_buf_puts(out, ops[j] == '+' ? C_ADD : C_DEL);
			smp_buf_putc(out, ops[j]);
			smp_buf_put(out, l->p, l->n);
			if (paint)
				smp_buf_puts(out, C_END);
			smp_buf_putc(out, '\n');
			ja += ops[j] != '+';
			jb += ops[j] != '-';
		}
		i = e;
		ia = ja;
		ib = jb;
	}
}

/* Appends the diff of a and b to out (nothing when they are equal). */
int smp__text_diff(smp_buf *out, const char *lname, const char *a, size_t alen,
                   const char *rname, const char *b, size_t blen, bool color)
{
	line *la = NULL, *lb = NULL;
	size_t na = 0, nb = 0, pre = 0, suf = 0, nmid = 0;
	char *ops = NULL, *mid = NULL;
	int rc;

	if (alen == blen && (alen == 0 || memcmp(a, b, alen) == 0))
		return 0;
	if ((rc = split_lines(&la, &na, a, alen)) || (rc = split_lines(&lb, &nb, b, blen)))
		goto out;
	/* The common head and tail cost nothing to the search. */
	while (pre < na && pre < nb && line_eq(&la[pre], &lb[pre]))
		pre++;
	while (suf < na - pre && suf < nb - pre && line_eq(&la[na - 1 - suf], &lb[nb - 1 - suf]))
		suf++;
	if ((rc = myers(&mid, &nmid, la + pre, na - pre - suf, lb + pre, nb - pre - suf)))
		goto out;
	if (!(ops = malloc(pre + nmid + suf + 1))) {
		rc = SMP_ENOMEM;
		goto out;
	}
	memset(ops, ' ', pre);
	if (nmid)
		memcpy(ops + pre, mid, nmid);
	memset(ops + pre + nmid, ' ', suf);
	/* the command line kubectl diff runs, as diff prints it (not one of
	 * ours: split so that no literal reads as an smpatch flag) */
	{
		const char *h = color ? C_HEAD : "", *e = color ? C_END : "";

		smp_buf_printf(out, "%s%s %s %s%s\n%s--- %s%s\n%s+++ %s%s\n", h,
		               "diff" " -u" " -N", lname, rname, e, h, lname, e, h, rname, e);
	}
	put_hunks(out, ops, pre + nmid + suf, la, lb, color);
	if (out->oom)
		rc = SMP_ENOMEM;
out:
	free(la);
	free(lb);
	free(mid);
	free(ops);
	return rc;
}

int smp_text_diff(char **out, size_t *len, const char *left_name, const char *a,
                  size_t alen, const char *right_name, const char *b, size_t blen,
                  unsigned flags, smp_error *err)
{
	smp_buf buf;
	int rc;

	if (out)
		*out = NULL;
	if (len)
		*len = 0;
	if (!out || !left_name || !right_name || (!a && alen) || (!b && blen))
		return smp__err(err, SMP_EINVAL, "smp_text_diff: bad arguments");
	smp_buf_init(&buf);
	rc = smp__text_diff(&buf, left_name, a ? a : "", alen, right_name, b ? b : "", blen,
	                    (flags & SMP_PLAN_DIFF_COLOR) != 0);
	if (rc) {
		smp_buf_release(&buf);
		return rc == SMP_ENOMEM ? smp__err(err, rc, "out of memory")
		                        : smp__err(err, rc, "the texts are too large to compare");
	}
	smp_buf_put(&buf, "", 0); /* "" when the texts are equal */
	if (!(*out = smp_buf_detach(&buf, len)))
		return smp__err(err, SMP_ENOMEM, "out of memory");
	return 0;
}
