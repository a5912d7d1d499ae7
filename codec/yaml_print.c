/*
 * yaml_print.c - block-style YAML in the style of kubectl -o yaml (go-yaml
 * v2): two-space indentation, a list under a map key not indented relative
 * to the key, {} and [] for empty collections, literal blocks for multi-line
 * strings.
 *
 * A string is written plain only when our own reader (the kubectl rules of
 * resolve.c) reads the plain text back as the same string; otherwise it is
 * double-quoted when it would resolve to another type (like go-yaml), single-
 * quoted when only YAML syntax is in the way, and double-quoted with escapes
 * when it holds characters that only escapes can carry.
 */
#include "codec.h"
#include "depth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Trees from the reader are at most opts->max_depth deep; built trees could
 * be anything, and this printer recurses: SMP_DEPTH_YAML_PRINT. */

/* Simple keys are limited to 1024 characters in YAML; longer ones use the
 * explicit "? key" form. */
#define SIMPLE_KEY_MAX 1000

typedef struct yp {
	smp_buf *b;
	bool sort;
	smp_error *err;
} yp;

enum { CTX_ROOT, CTX_MAPVAL, CTX_SEQITEM };

static void indent(smp_buf *b, size_t n)
{
	static const char sp[] = "                                ";

	while (n > 0) {
		size_t k = n < sizeof(sp) - 1 ? n : sizeof(sp) - 1;
		smp_buf_put(b, sp, k);
		n -= k;
	}
}

/* Code points that must be escaped (libyaml does not print them raw). */
static bool special_cp(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff ||
	       cp == 0xfffe || cp == 0xffff;
}

/* go-yaml quotes what YAML 1.1 readers take for base-60 numbers
 * ([-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?). */
static bool base60_float(const char *s, size_t n)
{
	size_t i = 0;
	int groups = 0;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	if (i >= n || s[i] < '0' || s[i] > '9')
		return false;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
		i++;
	while (i < n && s[i] == ':') {
		i++;
		if (i < n && s[i] >= '0' && s[i] <= '5' && i + 1 < n && s[i + 1] >= '0' &&
		    s[i + 1] <= '9')
			i += 2;
		else if (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		else
			return false;
		groups++;
	}
	if (!groups)
		return false;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			i++;
	}
	return i == n;
}

/* Character classes of a string, for the choice of style. */
typedef struct sinfo {
	bool needs_escape; /* control chars, special code points, invalid UTF-8 */
	bool has_newline;
	bool has_tab;
	bool has_cr;
} sinfo;

static void analyse(const char *s, size_t n, sinfo *si)
{
	const unsigned char *p = (const unsigned char *)s;

	memset(si, 0, sizeof(*si));
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		if (c < 0x80) {
			if (c == '\n')
				si->has_newline = true;
			else if (c == '\t')
				si->has_tab = true;
			else if (c == '\r')
				si->has_cr = true;
			else if (c < 0x20 || c == 0x7f)
				si->needs_escape = true;
			i++;
			continue;
		}
		uint32_t cp;
		size_t k = smp_utf8_decode(p + i, n - i, &cp);
		if (!k || special_cp(cp)) {
			si->needs_escape = true;
			k = k ? k : 1;
		}
		i += k;
	}
}

/* Whether s, written plain, is read back as the string s. */
static bool plain_ok(const char *s, size_t n, const sinfo *si)
{
	smp_scalar sc;
	char msg[8];
	unsigned char c0, cl;

	if (n == 0 || si->needs_escape || si->has_newline || si->has_tab || si->has_cr)
		return false;
	c0 = (unsigned char)s[0];
	cl = (unsigned char)s[n - 1];
	if (c0 == ' ' || cl == ' ' || cl == ':')
		return false;
	if (strchr("#,[]{}&*!|>'\"%@`?:", c0))
		return false;
	if (c0 == '-' && (n == 1 || s[1] == ' '))
		return false;
	if (n >= 3 && (memcmp(s, "---", 3) == 0 || memcmp(s, "...", 3) == 0))
		return false;
	if (n == 2 && s[0] == '<' && s[1] == '<')
		return false; /* a merge key */
	for (size_t i = 0; i + 1 < n; i++) {
		if (s[i] == ':' && s[i + 1] == ' ')
			return false;
		if (s[i] == ' ' && s[i + 1] == '#')
			return false;
	}
	smp_resolve(&sc, s, n, NULL, true, msg, sizeof(msg));
	if (sc.kind != SMP_RS_STR || sc.timestamp)
		return false;
	return !base60_float(s, n);
}

/* s as a double-quoted YAML scalar, the escapes go-yaml writes (\\, \",
 * control characters as \xXX or their short forms, invalid UTF-8 and
 * non-printable code points as \x, \u or \U). */
static void put_double_quoted(smp_buf *b, const char *s, size_t n)
{
	static const char hexd[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s;
	size_t start = 0, i = 0;

	smp_buf_putc(b, '"');
	while (i < n) {
		unsigned char c = p[i];
		const char *esc = NULL;
		char tmp[12];
		size_t k = 1;
		if (c < 0x80) {
			switch (c) {
			case '"': esc = "\\\""; break;
			case '\\': esc = "\\\\"; break;
			case '\n': esc = "\\n"; break;
			case '\t': esc = "\\t"; break;
			case '\r': esc = "\\r"; break;
			case '\0': esc = "\\0"; break;
			case '\a': esc = "\\a"; break;
			case '\b': esc = "\\b"; break;
			case 0x1b: esc = "\\e"; break;
			case '\f': esc = "\\f"; break;
			case '\v': esc = "\\v"; break;
			default:
				if (c < 0x20 || c == 0x7f) {
					tmp[0] = '\\';
					tmp[1] = 'x';
					tmp[2] = hexd[c >> 4];
					tmp[3] = hexd[c & 15];
					tmp[4] = '\0';
					esc = tmp;
				}
			}
		} else {
			uint32_t cp;
			k = smp_utf8_decode(p + i, n - i, &cp);
			if (!k) {
				esc = "\\uFFFD"; /* cannot occur for parsed input */
				k = 1;
			} else if (special_cp(cp)) {
				tmp[0] = '\\';
				tmp[1] = 'u';
				for (int d = 0; d < 4; d++)
					tmp[2 + d] = hexd[(cp >> (12 - 4 * d)) & 15];
				tmp[6] = '\0';
				esc = tmp;
			}
		}
		if (esc) {
			smp_buf_put(b, s + start, i - start);
			smp_buf_puts(b, esc);
			start = i + k;
		}
		i += k;
	}
	smp_buf_put(b, s + start, n - start);
	smp_buf_putc(b, '"');
}

static void put_single_quoted(smp_buf *b, const char *s, size_t n)
{
	size_t start = 0;

	smp_buf_putc(b, '\'');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'') {
			smp_buf_put(b, s + start, i + 1 - start);
			smp_buf_putc(b, '\'');
			start = i + 1;
		}
	}
	smp_buf_put(b, s + start, n - start);
	smp_buf_putc(b, '\'');
}

/* A one-line scalar (or a key): plain, single or double quoted. */
static void put_flow_string(smp_buf *b, const char *s, size_t n)
{
	sinfo si;
	smp_scalar sc;
	char msg[8];

	analyse(s, n, &si);
	if (plain_ok(s, n, &si)) {
		smp_buf_put(b, s, n);
		return;
	}
	smp_resolve(&sc, s, n, NULL, true, msg, sizeof(msg));
	bool other_type = n == 0 || sc.kind != SMP_RS_STR || sc.timestamp || base60_float(s, n);
	if (!other_type && !si.needs_escape && !si.has_newline && !si.has_tab && !si.has_cr)
		put_single_quoted(b, s, n);
	else
		put_double_quoted(b, s, n);
}

/* A literal block works when every character can stand raw and no line
 * ends in a space (the reader would keep it, but libyaml-style emitters
 * never write that and editors strip it); a first line that starts with a
 * space gets an indentation indicator. */
static bool literal_ok(const char *s, size_t n, const sinfo *si)
{
	bool content = false;

	if (!si->has_newline || si->needs_escape || si->has_tab || si->has_cr)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == ' ' && (i + 1 == n || s[i + 1] == '\n'))
			return false;
		if (s[i] != '\n')
			content = true;
	}
	return content;
}

static void put_literal(smp_buf *b, const char *s, size_t n, size_t ind)
{
	size_t trail = 0;

	while (trail < n && s[n - 1 - trail] == '\n')
		trail++;
	smp_buf_putc(b, '|');
	/* Leading space or a leading empty line: say the indentation. */
	if (s[0] == ' ' || s[0] == '\n')
		smp_buf_putc(b, '2');
	if (trail == 0)
		smp_buf_putc(b, '-');
	else if (trail > 1)
		smp_buf_putc(b, '+');
	smp_buf_putc(b, '\n');
	/* Lines of the content, without the final breaks. */
	size_t end = n - trail, i = 0;
	while (i <= end) {
		const char *nl = memchr(s + i, '\n', end - i);
		size_t ln = nl ? (size_t)(nl - (s + i)) : end - i;
		if (ln) {
			indent(b, ind);
			smp_buf_put(b, s + i, ln);
		}
		smp_buf_putc(b, '\n');
		i += ln + 1;
		if (!nl)
			break;
	}
	/* Kept trailing breaks beyond the first become empty lines. */
	for (size_t k = 1; k < trail; k++)
		smp_buf_putc(b, '\n');
}

/* One scalar as go-yaml prints it: null, bools, numbers (floats as
 * kubectl's YAML gives them), strings plain when they read back as the
 * same string, else quoted or as a literal block. */
static int put_scalar(yp *p, const smp_value *v, size_t ind)
{
	char num[40];
	int rc;

	switch (v->type) {
	case SMP_NULL:
		smp_buf_put(p->b, "null\n", 5);
		return 0;
	case SMP_BOOL:
		smp_buf_puts(p->b, v->u.b ? "true\n" : "false\n");
		return 0;
	case SMP_INT:
		smp_buf_put(p->b, num, smp_format_int(num, v->u.i));
		smp_buf_putc(p->b, '\n');
		return 0;
	case SMP_FLOAT:
		if ((rc = smp_float_check(v, p->err)))
			return rc;
		smp_buf_put(p->b, num, smp_format_float_g(num, v->u.f, false));
		smp_buf_putc(p->b, '\n');
		return 0;
	case SMP_STRING: {
		sinfo si;
		analyse(v->u.s.ptr, v->u.s.len, &si);
		if (literal_ok(v->u.s.ptr, v->u.s.len, &si)) {
			put_literal(p->b, v->u.s.ptr, v->u.s.len, ind);
			return 0;
		}
		put_flow_string(p->b, v->u.s.ptr, v->u.s.len);
		smp_buf_putc(p->b, '\n');
		return 0;
	}
	case SMP_LIST:
		smp_buf_put(p->b, "[]\n", 3);
		return 0;
	case SMP_MAP:
		smp_buf_put(p->b, "{}\n", 3);
		return 0;
	}
	return 0;
}

/*
 * Writes v. `col` is the column of the construct that holds it: the key for
 * a map value, the dash for a list item, 0 at the root. The cursor is just
 * after "key:" (CTX_MAPVAL), after "- " (CTX_SEQITEM) or at the start of a
 * line (CTX_ROOT).
 */
static int emit(yp *p, const smp_value *v, size_t col, int ctx, size_t depth)
{
	int rc = 0;
	bool coll;

	if (!v)
		return smp__err(p->err, SMP_EINTERNAL, "smp_print: NULL value in tree");
	if (depth > SMP_DEPTH_YAML_PRINT)
		return smp__err(p->err, SMP_ELIMIT,
		                "value nested deeper than %d levels", SMP_DEPTH_YAML_PRINT);
	coll = (v->type == SMP_MAP && v->u.map.len) || (v->type == SMP_LIST && v->u.list.len);
	if (!coll) {
		if (ctx == CTX_MAPVAL)
			smp_buf_putc(p->b, ' ');
		return put_scalar(p, v, ctx == CTX_ROOT ? 2 : col + 2);
	}
	if (v->type == SMP_LIST) {
		/* Items sit at the key's column under a key, one step in
		 * after a dash, at 0 at the root. */
		size_t icol = ctx == CTX_SEQITEM ? col + 2 : col;
		if (ctx == CTX_MAPVAL)
			smp_buf_putc(p->b, '\n');
		for (size_t i = 0; i < v->u.list.len; i++) {
			if (i > 0 || ctx != CTX_SEQITEM)
				indent(p->b, icol);
			smp_buf_put(p->b, "- ", 2);
			if ((rc = emit(p, v->u.list.items[i], icol, CTX_SEQITEM, depth + 1)))
				return rc;
		}
		return 0;
	}
	const smp_member **ms;
	size_t kcol = ctx == CTX_ROOT ? 0 : col + 2;
	if ((rc = smp_sorted_members(&ms, v, p->sort)))
		return smp__err(p->err, SMP_ENOMEM, "out of memory");
	if (ctx == CTX_MAPVAL)
		smp_buf_putc(p->b, '\n');
	for (size_t i = 0; i < v->u.map.len && !rc; i++) {
		const smp_member *m = smp_member_at(ms, v, i);
		if (i > 0 || ctx != CTX_SEQITEM)
			indent(p->b, kcol);
		size_t before = p->b->len;
		put_flow_string(p->b, m->key, m->klen);
		if (!p->b->oom && p->b->len - before > SIMPLE_KEY_MAX) {
			/* Too long for a simple key: "? key" then ": value". */
			smp_buf_put(p->b, "  ", 2);
			if (p->b->oom)
				break;
			memmove(p->b->ptr + before + 2, p->b->ptr + before,
			        p->b->len - 2 - before);
			p->b->ptr[before] = '?';
			p->b->ptr[before + 1] = ' ';
			smp_buf_putc(p->b, '\n');
			indent(p->b, kcol);
		}
		smp_buf_putc(p->b, ':');
		rc = emit(p, m->val, kcol, CTX_MAPVAL, depth + 1);
	}
	free((void *)ms);
	return rc;
}

int smp_yaml_print(smp_buf *b, const smp_value *v, bool sort_keys, smp_error *err)
{
	yp p = {b, sort_keys, err};

	return emit(&p, v, 0, CTX_ROOT, 0);
}
