/*
 * ssa_udiff.c - the unified diff (`diff -u -N`, 3 lines of context) of two
 * texts that `apply --server-side -o diff` and `replace -o diff` print.
 *
 * A copy of cli/apply_util.c's cli_unified_diff, kept here while the apply
 * command line moves onto the plan API (which takes its diff into the
 * library, unexported): once the library exports a text diff, this file
 * goes.
 */
#include "ssa_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return true;
	ncap = *cap ? *cap * 2 : 16;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}

typedef struct line {
	const char *p;
	size_t n;
} line;

static int split_lines(line **out, size_t *count, const char *s, size_t len)
{
	size_t n = 0, cap = 0, start = 0;
	line *l = NULL;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '\n')
			continue;
		if (i == len && start == len)
			break;
		if (!grow((void **)&l, &cap, n, sizeof(*l))) {
			free(l);
			return SMP_ENOMEM;
		}
		l[n].p = s + start;
		l[n].n = i - start;
		n++;
		start = i + 1;
	}
	if (!l && !(l = malloc(sizeof(*l))))
		return SMP_ENOMEM; /* never NULL, even for no lines */
	*out = l;
	*count = n;
	return 0;
}

static bool line_eq(const line *a, const line *b)
{
	return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

/* Edit script: ops[k] = ' ', '-' or '+', in order. */
#define DIFF_MAX_D 2000

static int myers(char **ops_out, size_t *nops_out, const line *a, size_t n, const line *b,
                 size_t m)
{
	/* Greedy Myers with one V row per step (O(D^2) memory, D capped). */
	size_t max = n + m;
	long **trace = NULL;
	size_t ntrace = 0;
	char *ops = NULL;
	size_t nops = 0;
	long d, found = -1;
	int rc = 0;

	if (max == 0) {
		*ops_out = NULL;
		*nops_out = 0;
		return 0;
	}
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
			/* prev row is indexed k + (d-1) + 1 */
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
		/* Backtrack from (n, m), writing ops in reverse. */
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
			if (x == px)
				rev[--w] = '+';
			else
				rev[--w] = '-';
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

static void put_range(cli_buf *out, size_t start, size_t count)
{
	char tmp[64];

	/* GNU diff: "l,s"; ",1" left out; an empty range names the line before. */
	if (count == 1)
		snprintf(tmp, sizeof(tmp), "%zu", start + 1);
	else
		snprintf(tmp, sizeof(tmp), "%zu,%zu", count ? start + 1 : start, count);
	cli_buf_puts(out, tmp);
}

int ssa_cli_unified_diff(cli_buf *out, const char *lprefix, const char *rprefix,
                     const char *name, const char *a, size_t alen, const char *b,
                     size_t blen, bool *differs)
{
	line *la = NULL, *lb = NULL;
	size_t na = 0, nb = 0, nops = 0, pre = 0, suf = 0;
	char *ops = NULL;
	int rc;

	if (alen == blen && (alen == 0 || memcmp(a, b, alen) == 0))
		return 0;
	*differs = true;
	if ((rc = split_lines(&la, &na, a, alen)) || (rc = split_lines(&lb, &nb, b, blen)))
		goto out;
	while (pre < na && pre < nb && line_eq(&la[pre], &lb[pre]))
		pre++;
	while (suf < na - pre && suf < nb - pre &&
	       line_eq(&la[na - 1 - suf], &lb[nb - 1 - suf]))
		suf++;
	{
		char *mid = NULL;
		size_t nmid = 0;
		if ((rc = myers(&mid, &nmid, la + pre, na - pre - suf, lb + pre, nb - pre - suf)))
			goto out;
		ops = malloc(pre + nmid + suf + 1);
		if (!ops) {
			free(mid);
			rc = SMP_ENOMEM;
			goto out;
		}
		memset(ops, ' ', pre);
		if (nmid)
			memcpy(ops + pre, mid, nmid);
		memset(ops + pre + nmid, ' ', suf);
		nops = pre + nmid + suf;
		free(mid);
	}
	cli_buf_puts(out, "diff -u -N ");
	cli_buf_puts(out, lprefix);
	cli_buf_puts(out, name);
	cli_buf_putc(out, ' ');
	cli_buf_puts(out, rprefix);
	cli_buf_puts(out, name);
	cli_buf_puts(out, "\n--- ");
	cli_buf_puts(out, lprefix);
	cli_buf_puts(out, name);
	cli_buf_puts(out, "\n+++ ");
	cli_buf_puts(out, rprefix);
	cli_buf_puts(out, name);
	cli_buf_putc(out, '\n');
	{
		/* Hunks: changes with up to 3 lines of context, merged when the
		 * context between them is 6 lines or less. */
		size_t i = 0, ia = 0, ib = 0;
		while (i < nops) {
			size_t s, e, ctx, sa, sb, ca = 0, cb = 0, j, ja, jb;
			if (ops[i] == ' ') {
				i++, ia++, ib++;
				continue;
			}
			/* hunk start: up to 3 lines back */
			ctx = 0;
			s = i;
			sa = ia;
			sb = ib;
			while (s > 0 && ops[s - 1] == ' ' && ctx < 3)
				s--, sa--, sb--, ctx++;
			/* hunk end */
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
				if (ops[j] != '+')
					ca++;
				if (ops[j] != '-')
					cb++;
			}
			cli_buf_puts(out, "@@ -");
			put_range(out, sa, ca);
			cli_buf_puts(out, " +");
			put_range(out, sb, cb);
			cli_buf_puts(out, " @@\n");
			ja = sa;
			jb = sb;
			for (j = s; j < e; j++) {
				const line *l = ops[j] == '+' ? &lb[jb] : &la[ja];
				cli_buf_putc(out, ops[j]);
				cli_buf_put(out, l->p, l->n);
				cli_buf_putc(out, '\n');
				if (ops[j] != '+')
					ja++;
				if (ops[j] != '-')
					jb++;
			}
			i = e;
			ia = ja;
			ib = jb;
		}
	}
	if (out->oom)
		rc = SMP_ENOMEM;
out:
	free(la);
	free(lb);
	free(ops);
	return rc;
}
