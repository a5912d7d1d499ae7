/*
 * parse.c - CEL's grammar (cel-spec's langdef.md, cel-go's CEL.g4) into
 * the node tree of cel_int.h: literals with their escapes, the operators
 * by precedence, member selection and calls, list, map and message
 * literals, the optional syntax (`.?f`, `[?i]`, `?elem`), and the macros
 * expanded into comprehensions as cel-go expands them (has, all, exists,
 * exists_one, map, filter, and the two-variable forms of
 * TwoVarComprehensions). Reserved words cannot be identifiers.
 */
#include "cel/cel_int.h"
#include "codec/codec.h"
#include "regex/regex.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	T_EOF, T_INT, T_UINT, T_DOUBLE, T_STRING, T_BYTES, T_IDENT,
	T_TRUE, T_FALSE, T_NULL, T_IN,
	T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_LBRACE, T_RBRACE,
	T_DOT, T_COMMA, T_COLON, T_QUESTION,
	T_OR, T_AND, T_NOT, T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
	T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT,
	T_ERR, T_QUOTED
};

typedef struct tok {
	int t;
	uint32_t pos;
	const char *p; /* identifier text, or the literal's decoded bytes */
	size_t n;
	int64_t i;
	uint64_t u;
	double d;
} tok;

typedef struct parser {
	const char *src;
	size_t len, at;
	tok cur;
	smp_arena *a;
	char *msg;
	size_t msglen;
	int rc;          /* 0, -1 syntax, -2 memory */
	unsigned depth;
	unsigned ids;    /* fresh names for nested macros' accumulators */
	cel_program *prog;
	bool old_self;
} parser;

#define MAX_DEPTH 250

static void fail(parser *P, uint32_t pos, const char *fmt, const char *arg)
{
	if (P->rc)
		return;
	P->rc = -1;
	if (P->msglen) {
		char what[200];

		snprintf(what, sizeof(what), fmt, arg ? arg : "");
		snprintf(P->msg, P->msglen, "ERROR: <input>:1:%u: %s", (unsigned)pos + 1, what);
	}
}

static void *alloc(parser *P, size_t n)
{
	void *p = smp_arena_alloc(P->a, n ? n : 1);

	if (!p && !P->rc)
		P->rc = -2;
	if (p)
		memset(p, 0, n ? n : 1);
	return p;
}

/* ---- lexer ---- */

static bool is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Appends code point cp as UTF-8 to the buffer. */
static void put_rune(smp_buf *b, uint32_t cp)
{
	char u[4];

	smp_buf_put(b, u, smp_utf8_put(u, cp));
}

/* A quoted literal starting at P->at (after any r/b prefix): its decoded
 * bytes into the token. Triple quotes span lines; raw literals keep
 * backslashes. */
static void lex_string(parser *P, tok *t, bool raw, bool bytes)
{
	const char *s = P->src;
	char q = s[P->at];
	bool triple = P->at + 2 < P->len && s[P->at + 1] == q && s[P->at + 2] == q;
	smp_buf b;

	smp_buf_init(&b);
	P->at += triple ? 3 : 1;
	for (;;) {
		if (P->at >= P->len) {
			fail(P, t->pos, "unterminated string%s", NULL);
			goto out;
		}
		if (triple ? (P->at + 2 < P->len && s[P->at] == q && s[P->at + 1] == q &&
		              s[P->at + 2] == q)
		           : s[P->at] == q) {
			P->at += triple ? 3 : 1;
			break;
		}
		if (!triple && (s[P->at] == '\n' || s[P->at] == '\r')) {
			fail(P, t->pos, "newline in a string literal%s", NULL);
			goto out;
		}
		if (s[P->at] != '\\' || raw) {
			smp_buf_putc(&b, s[P->at++]);
			continue;
		}
		if (++P->at >= P->len) {
			fail(P, t->pos, "unterminated string%s", NULL);
			goto out;
		}
		char c = s[P->at++];

		switch (c) {
		case 'a': smp_buf_putc(&b, '\a'); break;
		case 'b': smp_buf_putc(&b, '\b'); break;
		case 'f': smp_buf_putc(&b, '\f'); break;
		case 'n': smp_buf_putc(&b, '\n'); break;
		case 'r': smp_buf_putc(&b, '\r'); break;
		case 't': smp_buf_putc(&b, '\t'); break;
		case 'v': smp_buf_putc(&b, '\v'); break;
		case '\\': case '\'': case '"': case '`': case '?':
			smp_buf_putc(&b, c);
			break;
		case 'x': case 'X': case 'u': case 'U': {
			int nd = c == 'u' ? 4 : c == 'U' ? 8 : 2;
			uint32_t v = 0;

			for (int k = 0; k < nd; k++) {
				int h = P->at < P->len ? cel__hexval((unsigned char)s[P->at]) : -1;

				if (h < 0) {
					fail(P, t->pos, "invalid escape sequence%s", NULL);
					goto out;
				}
				v = v * 16 + (uint32_t)h;
				P->at++;
			}
			if (nd == 2 && bytes) {
				smp_buf_putc(&b, (char)v);
			} else if (nd > 2 && bytes) {
				fail(P, t->pos, "unicode escape in a bytes literal%s", NULL);
				goto out;
			} else if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
				fail(P, t->pos, "invalid unicode code point%s", NULL);
				goto out;
			} else {
				put_rune(&b, v);
			}
			break;
		}
		default:
			if (c >= '0' && c <= '3' && P->at + 1 < P->len && s[P->at] >= '0' &&
			    s[P->at] <= '7' && s[P->at + 1] >= '0' && s[P->at + 1] <= '7') {
				uint32_t v = (uint32_t)(c - '0') * 64 + (uint32_t)(s[P->at] - '0') * 8 +
				             (uint32_t)(s[P->at + 1] - '0');

				P->at += 2;
				if (bytes)
					smp_buf_putc(&b, (char)v);
				else
					put_rune(&b, v);
				break;
			}
			fail(P, t->pos, "invalid escape sequence%s", NULL);
			goto out;
		}
	}
	if (b.oom) {
		P->rc = -2;
		goto out;
	}
	if (!bytes) {
		/* a string holds UTF-8 */
		for (size_t i = 0; i < b.len;) {
			uint32_t cp;
			size_t k = smp_utf8_decode((const unsigned char *)b.ptr + i, b.len - i, &cp);

			if (!k) {
				fail(P, t->pos, "invalid UTF-8 in a string literal%s", NULL);
				goto out;
			}
			i += k;
		}
	}
	t->t = bytes ? T_BYTES : T_STRING;
	t->n = b.len;
	t->p = smp_arena_strndup(P->a, b.ptr ? b.ptr : "", b.len);
	if (!t->p)
		P->rc = -2;
out:
	smp_buf_release(&b);
}

static void lex_number(parser *P, tok *t)
{
	const char *s = P->src;
	size_t st = P->at;
	bool is_double = false;
	char buf[128];

	if (s[P->at] == '0' && P->at + 1 < P->len && (s[P->at + 1] == 'x' || s[P->at + 1] == 'X')) {
		uint64_t v = 0;
		bool over = false;

		P->at += 2;
		if (P->at >= P->len || cel__hexval((unsigned char)s[P->at]) < 0) {
			fail(P, t->pos, "invalid hex literal%s", NULL);
			return;
		}
		while (P->at < P->len && cel__hexval((unsigned char)s[P->at]) >= 0) {
			over |= v > (UINT64_MAX >> 4);
			v = v * 16 + (uint64_t)cel__hexval((unsigned char)s[P->at++]);
		}
		if (P->at < P->len && (s[P->at] == 'u' || s[P->at] == 'U')) {
			P->at++;
			t->t = T_UINT;
			t->u = v;
			if (over)
				fail(P, t->pos, "uint literal out of range%s", NULL);
			return;
		}
		t->t = T_INT;
		t->u = v; /* the sign is the parser's */
		if (over)
			fail(P, t->pos, "int literal out of range%s", NULL);
		return;
	}
	while (P->at < P->len && is_digit((unsigned char)s[P->at]))
		P->at++;
	if (P->at + 1 < P->len && s[P->at] == '.' && is_digit((unsigned char)s[P->at + 1])) {
		is_double = true;
		P->at++;
		while (P->at < P->len && is_digit((unsigned char)s[P->at]))
			P->at++;
	}
	if (P->at < P->len && (s[P->at] == 'e' || s[P->at] == 'E')) {
		size_t e = P->at + 1;

		if (e < P->len && (s[e] == '+' || s[e] == '-'))
			e++;
		if (e < P->len && is_digit((unsigned char)s[e])) {
			is_double = true;
			P->at = e;
			while (P->at < P->len && is_digit((unsigned char)s[P->at]))
				P->at++;
		}
	}
	if (P->at - st >= sizeof(buf)) {
		fail(P, t->pos, "number literal too long%s", NULL);
		return;
	}
	memcpy(buf, s + st, P->at - st);
	buf[P->at - st] = '\0';
	if (is_double) {
		smp_c_locale cl;

		smp_c_locale_enter(&cl);
		t->d = strtod(buf, NULL);
		smp_c_locale_leave(&cl);
		t->t = T_DOUBLE;
		return;
	}
	errno = 0;
	t->u = strtoull(buf, NULL, 10);
	if (errno) {
		fail(P, t->pos, "int literal out of range%s", NULL);
		return;
	}
	if (P->at < P->len && (s[P->at] == 'u' || s[P->at] == 'U')) {
		P->at++;
		t->t = T_UINT;
		return;
	}
	t->t = T_INT;
}

static const char *const reserved[] = {
	"as", "break", "const", "continue", "else", "for", "function", "if", "import",
	"let", "loop", "package", "namespace", "return", "var", "void", "while",
};

static bool is_reserved(const char *p, size_t n)
{
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (strlen(reserved[i]) == n && memcmp(reserved[i], p, n) == 0)
			return true;
	return false;
}

/* A backtick-quoted field name (`a-b`, `a.b`, `a/b`): letters, digits,
 * '_', '.', '-', '/' and ' '. The token ends after the closing backtick. */
static void lex_backtick(parser *P, tok *t)
{
	size_t st = t->pos + 1, i = st;

	while (i < P->len && P->src[i] != '`') {
		char c = P->src[i];

		if (!(is_ident_start((unsigned char)c) || is_digit((unsigned char)c) || c == '.' ||
		      c == '-' || c == '/' || c == ' ')) {
			fail(P, (uint32_t)i, "invalid quoted field name%s", NULL);
			return;
		}
		i++;
	}
	if (i >= P->len || i == st) {
		fail(P, t->pos, "invalid quoted field name%s", NULL);
		return;
	}
	t->t = T_QUOTED;
	t->p = P->src + st;
	t->n = i - st;
	P->at = i + 1;
}

static void next(parser *P)
{
	const char *s = P->src;
	tok *t = &P->cur;

	memset(t, 0, sizeof(*t));
	for (;;) {
		while (P->at < P->len && (s[P->at] == ' ' || s[P->at] == '\t' || s[P->at] == '\n' ||
		                          s[P->at] == '\r' || s[P->at] == '\f'))
			P->at++;
		if (P->at + 1 < P->len && s[P->at] == '/' && s[P->at + 1] == '/') {
			while (P->at < P->len && s[P->at] != '\n')
				P->at++;
			continue;
		}
		break;
	}
	t->pos = (uint32_t)P->at;
	if (P->at >= P->len) {
		t->t = T_EOF;
		return;
	}
	char c = s[P->at], d = P->at + 1 < P->len ? s[P->at + 1] : '\0';

	if (is_digit((unsigned char)c) || (c == '.' && is_digit((unsigned char)d))) {
		lex_number(P, t);
		return;
	}
	if (c == '"' || c == '\'') {
		lex_string(P, t, false, false);
		return;
	}
	if ((c == 'r' || c == 'R' || c == 'b' || c == 'B') && (d == '"' || d == '\'' ||
	    ((d == 'r' || d == 'R' || d == 'b' || d == 'B') && P->at + 2 < P->len &&
	     (s[P->at + 2] == '"' || s[P->at + 2] == '\'') &&
	     ((c | 0x20) != (d | 0x20))))) {
		bool raw = (c | 0x20) == 'r' || (d | 0x20) == 'r';
		bool bytes = (c | 0x20) == 'b' || (d | 0x20) == 'b';

		P->at += (d == '"' || d == '\'') ? 1 : 2;
		lex_string(P, t, raw, bytes);
		return;
	}
	if (is_ident_start((unsigned char)c)) {
		size_t st = P->at;

		while (P->at < P->len && (is_ident_start((unsigned char)s[P->at]) ||
		                          is_digit((unsigned char)s[P->at])))
			P->at++;
		t->p = s + st;
		t->n = P->at - st;
		t->t = T_IDENT;
		if (t->n == 4 && memcmp(t->p, "true", 4) == 0)
			t->t = T_TRUE;
		else if (t->n == 5 && memcmp(t->p, "false", 5) == 0)
			t->t = T_FALSE;
		else if (t->n == 4 && memcmp(t->p, "null", 4) == 0)
			t->t = T_NULL;
		else if (t->n == 2 && memcmp(t->p, "in", 2) == 0)
			t->t = T_IN;
		return;
	}
	P->at++;
	switch (c) {
	case '(': t->t = T_LPAREN; return;
	case ')': t->t = T_RPAREN; return;
	case '[': t->t = T_LBRACK; return;
	case ']': t->t = T_RBRACK; return;
	case '{': t->t = T_LBRACE; return;
	case '}': t->t = T_RBRACE; return;
	case '.': t->t = T_DOT; return;
	case ',': t->t = T_COMMA; return;
	case ':': t->t = T_COLON; return;
	case '?': t->t = T_QUESTION; return;
	case '+': t->t = T_PLUS; return;
	case '-': t->t = T_MINUS; return;
	case '*': t->t = T_STAR; return;
	case '/': t->t = T_SLASH; return;
	case '%': t->t = T_PERCENT; return;
	case '|':
		if (d == '|') {
			P->at++;
			t->t = T_OR;
			return;
		}
		break;
	case '&':
		if (d == '&') {
			P->at++;
			t->t = T_AND;
			return;
		}
		break;
	case '=':
		if (d == '=') {
			P->at++;
			t->t = T_EQ;
			return;
		}
		break;
	case '!':
		if (d == '=') {
			P->at++;
			t->t = T_NE;
			return;
		}
		t->t = T_NOT;
		return;
	case '<':
		if (d == '=') {
			P->at++;
			t->t = T_LE;
			return;
		}
		t->t = T_LT;
		return;
	case '>':
		if (d == '=') {
			P->at++;
			t->t = T_GE;
			return;
		}
		t->t = T_GT;
		return;
	default:
		break;
	}
	t->t = T_ERR;
	fail(P, t->pos, "token recognition error at: '%s'", (char[2]){c, '\0'});
	if (c == '`') {
		/* a quoted field after '.': member() reads it */
		P->at = t->pos;
	}
}

/* ---- nodes ---- */

static cel_node *node(parser *P, cel_op op, uint32_t pos)
{
	cel_node *n = alloc(P, sizeof(*n));

	if (n) {
		n->op = (uint8_t)op;
		n->pos = pos;
	}
	return n;
}

static cel_node *call(parser *P, cel_fn fn, uint32_t pos, cel_node *a, cel_node *b,
                      cel_node *c)
{
	cel_node *n = node(P, N_CALL, pos);
	cel_node **args = alloc(P, 3 * sizeof(*args));

	if (!n || !args)
		return NULL;
	n->fn = (uint8_t)fn;
	n->args = args;
	args[0] = a;
	args[1] = b;
	args[2] = c;
	n->nargs = c ? 3 : b ? 2 : 1;
	return n;
}

static const char *dup_name(parser *P, const char *p, size_t n)
{
	const char *s = smp_arena_strndup(P->a, p, n);

	if (!s && !P->rc)
		P->rc = -2;
	return s;
}

static cel_node *ident(parser *P, const char *name, uint32_t pos)
{
	cel_node *n = node(P, N_IDENT, pos);

	if (n) {
		n->name = name;
		n->nlen = strlen(name);
	}
	return n;
}

static cel_node *lit(parser *P, cel_val v, uint32_t pos)
{
	cel_node *n = node(P, N_LIT, pos);

	if (n)
		n->lit = v;
	return n;
}

/* ---- grammar ---- */

static cel_node *expr(parser *P);

static bool accept(parser *P, int t)
{
	if (P->cur.t != t)
		return false;
	next(P);
	return true;
}

static void expect(parser *P, int t, const char *what)
{
	if (!accept(P, t))
		fail(P, P->cur.pos, "expected %s", what);
}

/* ExprList up to `close`; optional entries ("?e") allowed when opt. */
static cel_node **expr_list(parser *P, int close, uint32_t *n, uint8_t **opt, bool allow_opt)
{
	cel_node **v = NULL;
	uint8_t *o = NULL;
	size_t cap = 0;

	*n = 0;
	if (opt)
		*opt = NULL;
	while (!P->rc && P->cur.t != close) {
		bool isopt = false;

		if (allow_opt && P->cur.t == T_QUESTION) {
			next(P);
			isopt = true;
		}
		if (*n == cap) {
			size_t nc = cap ? 2 * cap : 4;
			cel_node **nv = alloc(P, nc * sizeof(*nv));
			uint8_t *no = alloc(P, nc);

			if (!nv || !no)
				return NULL;
			if (*n) {
				memcpy(nv, v, *n * sizeof(*nv));
				memcpy(no, o, *n);
			}
			v = nv;
			o = no;
			cap = nc;
		}
		o[*n] = isopt;
		v[(*n)++] = expr(P);
		if (!accept(P, T_COMMA))
			break;
	}
	if (opt)
		*opt = o;
	expect(P, close, close == T_RPAREN ? "')'" : close == T_RBRACK ? "']'" : "'}'");
	return v;
}

/* A macro's iteration variable: a plain identifier. */
static const char *macro_var(parser *P, cel_node *a)
{
	if (!a || a->op != N_IDENT) {
		fail(P, a ? a->pos : P->cur.pos, "argument must be a simple name%s", NULL);
		return NULL;
	}
	return a->name;
}

/* A fresh accumulator name for a macro ("@result" at depth 0, as cel-go
 * names it; nested macros shadow it, so one name does). */
static const char *accu_name(parser *P)
{
	(void)P;
	return CEL_ACCU;
}

static cel_node *comp(parser *P, uint32_t pos, const char *iter, const char *iter2,
                      cel_node *range, cel_node *init, cel_node *cond, cel_node *step,
                      cel_node *result)
{
	cel_node *n = node(P, N_COMP, pos);
	cel_comp *c = alloc(P, sizeof(*c));

	if (!n || !c)
		return NULL;
	c->iter = iter;
	c->iter2 = iter2;
	c->accu = accu_name(P);
	c->range = range;
	c->init = init;
	c->cond = cond;
	c->step = step;
	c->result = result;
	n->comp = c;
	return n;
}

static cel_node *empty_list(parser *P, uint32_t pos)
{
	return node(P, N_LIST, pos);
}

static cel_node *one_list(parser *P, uint32_t pos, cel_node *e)
{
	cel_node *n = node(P, N_LIST, pos);
	cel_node **a = alloc(P, sizeof(*a));

	if (!n || !a)
		return NULL;
	a[0] = e;
	n->args = a;
	n->nargs = 1;
	n->opt = alloc(P, 1);
	return n;
}

static cel_node *call_node(parser *P, uint32_t pos, cel_node *target, const char *name,
                           cel_node **a, uint32_t n);

static cel_node **one_arg(parser *P, cel_node *x)
{
	cel_node **a = alloc(P, sizeof(*a));

	if (a)
		a[0] = x;
	return a;
}

/* The macros on a receiver (cel-go's parser/macro.go): NULL when
 * `name` with this many arguments is not one (an ordinary call). */
static cel_node *macro(parser *P, uint32_t pos, cel_node *t, const char *name, cel_node **a,
                       uint32_t n, bool *was)
{
	const char *acc = CEL_ACCU;
	cel_node *accu;

	*was = true;
	if (!strcmp(name, "all") && n == 2) {
		const char *v = macro_var(P, a[0]);

		accu = ident(P, acc, pos);
		return comp(P, pos, v, NULL, t, lit(P, cel_bool(true), pos),
		            call(P, F_NOT_STRICTLY_FALSE, pos, ident(P, acc, pos), NULL, NULL),
		            call(P, F_AND, pos, accu, a[1], NULL), ident(P, acc, pos));
	}
	if (!strcmp(name, "exists") && n == 2) {
		const char *v = macro_var(P, a[0]);

		accu = ident(P, acc, pos);
		return comp(P, pos, v, NULL, t, lit(P, cel_bool(false), pos),
		            call(P, F_NOT_STRICTLY_FALSE, pos,
		                 call(P, F_NOT, pos, ident(P, acc, pos), NULL, NULL), NULL, NULL),
		            call(P, F_OR, pos, accu, a[1], NULL), ident(P, acc, pos));
	}
	if ((!strcmp(name, "exists_one") || !strcmp(name, "existsOne")) && n == 2) {
		const char *v = macro_var(P, a[0]);

		return comp(P, pos, v, NULL, t, lit(P, cel_int(0), pos), lit(P, cel_bool(true), pos),
		            call(P, F_COND, pos, a[1],
		                 call(P, F_ADD, pos, ident(P, acc, pos), lit(P, cel_int(1), pos), NULL),
		                 ident(P, acc, pos)),
		            call(P, F_EQ, pos, ident(P, acc, pos), lit(P, cel_int(1), pos), NULL));
	}
	if (!strcmp(name, "map") && (n == 2 || n == 3)) {
		const char *v = macro_var(P, a[0]);
		cel_node *step = call(P, F_ADD, pos, ident(P, acc, pos),
		                      one_list(P, pos, a[n - 1]), NULL);

		if (n == 3)
			step = call(P, F_COND, pos, a[1], step, ident(P, acc, pos));
		return comp(P, pos, v, NULL, t, empty_list(P, pos), lit(P, cel_bool(true), pos), step,
		            ident(P, acc, pos));
	}
	if (!strcmp(name, "filter") && n == 2) {
		const char *v = macro_var(P, a[0]);
		cel_node *step = call(P, F_COND, pos, a[1],
		                      call(P, F_ADD, pos, ident(P, acc, pos),
		                           one_list(P, pos, ident(P, v ? v : "", pos)), NULL),
		                      ident(P, acc, pos));

		return comp(P, pos, v, NULL, t, empty_list(P, pos), lit(P, cel_bool(true), pos), step,
		            ident(P, acc, pos));
	}
	/* TwoVarComprehensions (Kubernetes 1.32) */
	if (!strcmp(name, "all") && n == 3) {
		const char *v = macro_var(P, a[0]), *w = macro_var(P, a[1]);

		return comp(P, pos, v, w, t, lit(P, cel_bool(true), pos),
		            call(P, F_NOT_STRICTLY_FALSE, pos, ident(P, acc, pos), NULL, NULL),
		            call(P, F_AND, pos, ident(P, acc, pos), a[2], NULL), ident(P, acc, pos));
	}
	if (!strcmp(name, "exists") && n == 3) {
		const char *v = macro_var(P, a[0]), *w = macro_var(P, a[1]);

		return comp(P, pos, v, w, t, lit(P, cel_bool(false), pos),
		            call(P, F_NOT_STRICTLY_FALSE, pos,
		                 call(P, F_NOT, pos, ident(P, acc, pos), NULL, NULL), NULL, NULL),
		            call(P, F_OR, pos, ident(P, acc, pos), a[2], NULL), ident(P, acc, pos));
	}
	if (!strcmp(name, "existsOne") && n == 3) {
		const char *v = macro_var(P, a[0]), *w = macro_var(P, a[1]);

		return comp(P, pos, v, w, t, lit(P, cel_int(0), pos), lit(P, cel_bool(true), pos),
		            call(P, F_COND, pos, a[2],
		                 call(P, F_ADD, pos, ident(P, acc, pos), lit(P, cel_int(1), pos), NULL),
		                 ident(P, acc, pos)),
		            call(P, F_EQ, pos, ident(P, acc, pos), lit(P, cel_int(1), pos), NULL));
	}
	if (!strcmp(name, "transformList") && (n == 3 || n == 4)) {
		const char *v = macro_var(P, a[0]), *w = macro_var(P, a[1]);
		cel_node *step = call(P, F_ADD, pos, ident(P, acc, pos),
		                      one_list(P, pos, a[n - 1]), NULL);

		if (n == 4)
			step = call(P, F_COND, pos, a[2], step, ident(P, acc, pos));
		return comp(P, pos, v, w, t, empty_list(P, pos), lit(P, cel_bool(true), pos), step,
		            ident(P, acc, pos));
	}
	if ((!strcmp(name, "transformMap") || !strcmp(name, "transformMapEntry")) &&
	    (n == 3 || n == 4)) {
		const char *v = macro_var(P, a[0]), *w = macro_var(P, a[1]);
		bool entry = name[12] == 'E';
		cel_node *step = call(P, entry ? F_MAP_MERGE : F_MAP_INSERT, pos, ident(P, acc, pos),
		                      entry ? a[n - 1] : ident(P, v ? v : "", pos),
		                      entry ? NULL : a[n - 1]);

		if (n == 4)
			step = call(P, F_COND, pos, a[2], step, ident(P, acc, pos));
		return comp(P, pos, v, w, t, node(P, N_MAP, pos), lit(P, cel_bool(true), pos), step,
		            ident(P, acc, pos));
	}
	if ((!strcmp(name, "optMap") || !strcmp(name, "optFlatMap")) && n == 2) {
		/* t.hasValue() ? <x = t.value()> optional.of(e) (or e) : optional.none() */
		const char *v = macro_var(P, a[0]);
		cel_node *opt = ident(P, "optional", pos);
		cel_node *some = name[3] == 'M'
		                         ? call_node(P, pos, opt, "of", one_arg(P, a[1]), 1)
		                         : a[1];
		cel_node *range = one_list(P, pos, call_node(P, pos, t, "value", NULL, 0));
		cel_node *body = comp(P, pos, v, NULL, range, lit(P, cel_null(), pos),
		                      lit(P, cel_bool(true), pos), some, ident(P, acc, pos));

		return call(P, F_COND, pos, call_node(P, pos, t, "hasValue", NULL, 0), body,
		            call_node(P, pos, ident(P, "optional", pos), "none", NULL, 0));
	}
	*was = false;
	return NULL;
}

/* has(a.b): the select in test mode. */
static cel_node *has_macro(parser *P, uint32_t pos, cel_node **a, uint32_t n)
{
	if (n != 1 || !a[0] || a[0]->op != N_SELECT) {
		fail(P, pos, "invalid argument to has() macro%s", NULL);
		return NULL;
	}
	a[0]->test = true;
	return a[0];
}

/* A regex function's literal pattern (s.matches('^a+$'), matches(s, p),
 * s.find(p), s.findAll(p[, n])) compiled once, here: evaluations of the
 * program share it. A pattern RE2 refuses is left to the evaluation,
 * whose error it is. */
static void precompile(parser *P, cel_node *c)
{
	const cel_node *p = c->target ? (c->nargs >= 1 ? c->args[0] : NULL)
	                              : (c->nargs == 2 ? c->args[1] : NULL);
	struct smp_regex **res, *re;
	char msg[8];
	int rc;

	if ((strcmp(c->name, "matches") && strcmp(c->name, "find") && strcmp(c->name, "findAll")) ||
	    !p || p->op != N_LIT || p->lit.kind != CEL_STRING || P->rc)
		return;
	rc = smp_regex_compile(&re, p->lit.u.s.p, p->lit.u.s.n, msg, sizeof(msg));
	if (rc == -1)
		return;
	if (rc == 0 && (res = realloc(P->prog->res, (P->prog->nres + 1) * sizeof(*res)))) {
		P->prog->res = res;
		res[P->prog->nres++] = re;
		c->re = re;
		return;
	}
	smp_regex_free(re);
	P->rc = -2;
}

static cel_node *call_node(parser *P, uint32_t pos, cel_node *target, const char *name,
                           cel_node **a, uint32_t n)
{
	cel_node *c = node(P, N_CALL, pos);

	if (!c)
		return NULL;
	c->fn = F_NONE;
	c->name = name;
	c->nlen = strlen(name);
	c->target = target;
	c->args = a;
	c->nargs = n;
	precompile(P, c);
	return c;
}

static cel_node *primary(parser *P)
{
	tok t = P->cur;
	cel_node *n;

	switch (t.t) {
	case T_INT:
		next(P);
		if (t.u > (uint64_t)INT64_MAX) {
			fail(P, t.pos, "int literal out of range%s", NULL);
			return NULL;
		}
		return lit(P, cel_int((int64_t)t.u), t.pos);
	case T_UINT:
		next(P);
		return lit(P, cel_uint(t.u), t.pos);
	case T_DOUBLE:
		next(P);
		return lit(P, cel_double(t.d), t.pos);
	case T_STRING:
	case T_BYTES: {
		cel_val v = cel_str(t.p, t.n);

		if (t.t == T_BYTES)
			v.kind = CEL_BYTES;
		next(P);
		return lit(P, v, t.pos);
	}
	case T_TRUE:
	case T_FALSE:
		next(P);
		return lit(P, cel_bool(t.t == T_TRUE), t.pos);
	case T_NULL:
		next(P);
		return lit(P, cel_null(), t.pos);
	case T_LPAREN:
		next(P);
		n = expr(P);
		expect(P, T_RPAREN, "')'");
		return n;
	case T_LBRACK:
		next(P);
		if (!(n = node(P, N_LIST, t.pos)))
			return NULL;
		n->args = expr_list(P, T_RBRACK, &n->nargs, &n->opt, true);
		return n;
	case T_LBRACE: {
		cel_node **v = NULL;
		uint8_t *o = NULL;
		size_t cap = 0;
		uint32_t cnt = 0;

		next(P);
		if (!(n = node(P, N_MAP, t.pos)))
			return NULL;
		while (!P->rc && P->cur.t != T_RBRACE) {
			bool isopt = accept(P, T_QUESTION);

			if (2 * cnt + 2 > cap) {
				size_t nc = cap ? 2 * cap : 8;
				cel_node **nv = alloc(P, nc * sizeof(*nv));
				uint8_t *no = alloc(P, nc);

				if (!nv || !no)
					return NULL;
				if (cnt) {
					memcpy(nv, v, 2 * cnt * sizeof(*nv));
					memcpy(no, o, cnt);
				}
				v = nv;
				o = no;
				cap = nc;
			}
			o[cnt] = isopt;
			v[2 * cnt] = expr(P);
			expect(P, T_COLON, "':'");
			v[2 * cnt + 1] = expr(P);
			cnt++;
			if (!accept(P, T_COMMA))
				break;
		}
		expect(P, T_RBRACE, "'}'");
		n->args = v;
		n->nargs = 2 * cnt;
		n->opt = o;
		return n;
	}
	case T_DOT:
	case T_IDENT: {
		/* [.]IDENT, a global call, or a message literal's name */
		bool lead = accept(P, T_DOT);
		tok id = P->cur;
		const char *name;

		if (id.t != T_IDENT) {
			fail(P, id.pos, "expected an identifier%s", NULL);
			return NULL;
		}
		if (is_reserved(id.p, id.n)) {
			fail(P, id.pos, "reserved identifier: %s", dup_name(P, id.p, id.n));
			return NULL;
		}
		next(P);
		if (!(name = dup_name(P, id.p, id.n)))
			return NULL;
		if (P->cur.t == T_LPAREN) {
			uint32_t na;
			cel_node **a;

			next(P);
			a = expr_list(P, T_RPAREN, &na, NULL, false);
			if (P->rc)
				return NULL;
			if (!lead && !strcmp(name, "has"))
				return has_macro(P, id.pos, a, na);
			return call_node(P, id.pos, NULL, name, a, na);
		}
		if (!(n = node(P, N_IDENT, id.pos)))
			return NULL;
		n->name = name;
		n->nlen = id.n;
		if (id.n == 7 && !memcmp(name, "oldSelf", 7))
			P->old_self = true;
		return n;
	}
	case T_MINUS:
		break;
	default:
		break;
	}
	if (t.t == T_EOF)
		fail(P, t.pos, "mismatched input '<EOF>'%s", NULL);
	else
		fail(P, t.pos, "unexpected token%s", NULL);
	return NULL;
}

/* A message literal's name (a qualified identifier) followed by '{'. */
static bool qualified_name(const cel_node *n, smp_buf *b)
{
	if (n->op == N_IDENT) {
		smp_buf_puts(b, n->name);
		return true;
	}
	if (n->op == N_SELECT && !n->test && qualified_name(n->target, b)) {
		smp_buf_putc(b, '.');
		smp_buf_put(b, n->name, n->nlen);
		return true;
	}
	return false;
}

static cel_node *member(parser *P)
{
	cel_node *n = primary(P);

	while (!P->rc) {
		uint32_t pos = P->cur.pos;

		if (accept(P, T_DOT)) {
			bool opt = accept(P, T_QUESTION);
			tok id = P->cur;
			const char *name;

			if (id.t == T_ERR && P->src[id.pos] == '`') {
				/* a quoted field name: `b-c` */
				P->rc = 0;
				if (P->msglen)
					P->msg[0] = '\0';
				lex_backtick(P, &id);
				if (P->rc)
					return NULL;
				P->cur = id;
			}
			if (id.t != T_IDENT && id.t != T_IN && id.t != T_TRUE && id.t != T_FALSE &&
			    id.t != T_NULL && id.t != T_QUOTED) {
				fail(P, id.pos, "expected a field name%s", NULL);
				return NULL;
			}
			next(P);
			if (!(name = dup_name(P, id.p ? id.p : "", id.n)))
				return NULL;
			if (!opt && id.t != T_QUOTED && P->cur.t == T_LPAREN) {
				uint32_t na;
				cel_node **a;
				bool was;
				cel_node *m;

				next(P);
				a = expr_list(P, T_RPAREN, &na, NULL, false);
				if (P->rc)
					return NULL;
				m = macro(P, id.pos, n, name, a, na, &was);
				n = was ? m : call_node(P, id.pos, n, name, a, na);
				continue;
			}
			cel_node *s = node(P, opt ? N_OSELECT : N_SELECT, id.pos);

			if (!s)
				return NULL;
			s->target = n;
			s->name = name;
			s->nlen = id.n;
			n = s;
		} else if (accept(P, T_LBRACK)) {
			bool opt = accept(P, T_QUESTION);
			cel_node *i = expr(P);

			expect(P, T_RBRACK, "']'");
			n = call(P, opt ? F_OINDEX : F_INDEX, pos, n, i, NULL);
		} else if (P->cur.t == T_LBRACE && n && (n->op == N_IDENT || n->op == N_SELECT)) {
			/* a message literal: Name{field: value, ...} */
			smp_buf b;
			cel_node *s;
			cel_node **v = NULL;
			size_t cap = 0;
			uint32_t cnt = 0;

			smp_buf_init(&b);
			if (!qualified_name(n, &b) || b.oom) {
				smp_buf_release(&b);
				fail(P, pos, "invalid message name%s", NULL);
				return NULL;
			}
			next(P);
			s = node(P, N_STRUCT, n->pos);
			if (s)
				s->name = dup_name(P, b.ptr, b.len);
			smp_buf_release(&b);
			if (!s)
				return NULL;
			while (!P->rc && P->cur.t != T_RBRACE) {
				tok f = P->cur;

				accept(P, T_QUESTION);
				f = P->cur;
				if (f.t != T_IDENT) {
					fail(P, f.pos, "expected a field name%s", NULL);
					return NULL;
				}
				next(P);
				expect(P, T_COLON, "':'");
				if (2 * cnt + 2 > cap) {
					size_t nc = cap ? 2 * cap : 8;
					cel_node **nv = alloc(P, nc * sizeof(*nv));

					if (!nv)
						return NULL;
					if (cnt)
						memcpy(nv, v, 2 * cnt * sizeof(*nv));
					v = nv;
					cap = nc;
				}
				v[2 * cnt] = lit(P, cel_str(dup_name(P, f.p, f.n), f.n), f.pos);
				v[2 * cnt + 1] = expr(P);
				cnt++;
				if (!accept(P, T_COMMA))
					break;
			}
			expect(P, T_RBRACE, "'}'");
			s->args = v;
			s->nargs = 2 * cnt;
			n = s;
		} else {
			break;
		}
	}
	return n;
}

static cel_node *unary(parser *P)
{
	uint32_t pos = P->cur.pos;
	cel_node *n;

	if (++P->depth > MAX_DEPTH) {
		fail(P, pos, "expression recursion limit exceeded%s", NULL);
		return NULL;
	}
	if (P->cur.t == T_NOT) {
		next(P);
		n = call(P, F_NOT, pos, unary(P), NULL, NULL);
	} else if (P->cur.t == T_MINUS) {
		next(P);
		if (P->cur.t == T_INT || P->cur.t == T_DOUBLE) {
			/* a negative literal (CEL.g4's literal has the sign), then
			 * its members */
			tok t = P->cur;
			size_t save = P->at;

			(void)save;
			if (t.t == T_INT && t.u > (uint64_t)INT64_MAX + 1) {
				fail(P, t.pos, "int literal out of range%s", NULL);
				return NULL;
			}
			if (t.t == T_INT) {
				P->cur.t = T_INT;
				next(P);
				cel_node *l = lit(P, cel_int(t.u == (uint64_t)INT64_MAX + 1
				                                      ? INT64_MIN : -(int64_t)t.u), pos);
				/* members after the literal: (-1).foo is rare; the
				 * grammar binds them to the literal */
				n = l;
			} else {
				next(P);
				n = lit(P, cel_double(-t.d), pos);
			}
		} else {
			n = call(P, F_NEG, pos, unary(P), NULL, NULL);
		}
	} else {
		n = member(P);
	}
	P->depth--;
	return n;
}

static cel_node *binary(parser *P, int level)
{
	/* levels: 0 relation, 1 addition, 2 multiplication */
	cel_node *l = level == 2 ? unary(P) : binary(P, level + 1);

	while (!P->rc) {
		int t = P->cur.t;
		uint32_t pos = P->cur.pos;
		cel_fn fn;

		if (level == 0 && t >= T_EQ && t <= T_GE)
			fn = t == T_EQ ? F_EQ : t == T_NE ? F_NE : t == T_LT ? F_LT : t == T_LE ? F_LE
			   : t == T_GT ? F_GT : F_GE;
		else if (level == 0 && t == T_IN)
			fn = F_IN;
		else if (level == 1 && (t == T_PLUS || t == T_MINUS))
			fn = t == T_PLUS ? F_ADD : F_SUB;
		else if (level == 2 && (t == T_STAR || t == T_SLASH || t == T_PERCENT))
			fn = t == T_STAR ? F_MUL : t == T_SLASH ? F_DIV : F_MOD;
		else
			break;
		next(P);
		l = call(P, fn, pos, l, level == 2 ? unary(P) : binary(P, level + 1), NULL);
	}
	return l;
}

static cel_node *and_expr(parser *P)
{
	cel_node *l = binary(P, 0);

	while (!P->rc && P->cur.t == T_AND) {
		uint32_t pos = P->cur.pos;

		next(P);
		l = call(P, F_AND, pos, l, binary(P, 0), NULL);
	}
	return l;
}

static cel_node *or_expr(parser *P)
{
	cel_node *l = and_expr(P);

	while (!P->rc && P->cur.t == T_OR) {
		uint32_t pos = P->cur.pos;

		next(P);
		l = call(P, F_OR, pos, l, and_expr(P), NULL);
	}
	return l;
}

static cel_node *expr(parser *P)
{
	cel_node *c, *a, *b;
	uint32_t pos;

	if (++P->depth > MAX_DEPTH) {
		fail(P, P->cur.pos, "expression recursion limit exceeded%s", NULL);
		return NULL;
	}
	c = or_expr(P);
	if (!P->rc && P->cur.t == T_QUESTION) {
		pos = P->cur.pos;
		next(P);
		a = or_expr(P);
		expect(P, T_COLON, "':'");
		b = expr(P);
		c = call(P, F_COND, pos, c, a, b);
	}
	P->depth--;
	return c;
}

int cel_compile(cel_program **out, const char *src, size_t len, char *msg, size_t msglen)
{
	parser P;
	cel_program *prog = calloc(1, sizeof(*prog));

	*out = NULL;
	if (msglen)
		msg[0] = '\0';
	if (!prog)
		return -2;
	smp_arena_init(&prog->arena);
	memset(&P, 0, sizeof(P));
	P.src = src;
	P.len = len;
	P.a = &prog->arena;
	P.msg = msg;
	P.msglen = msglen;
	P.prog = prog;
	next(&P);
	prog->root = expr(&P);
	if (!P.rc && P.cur.t != T_EOF)
		fail(&P, P.cur.pos, "extraneous input%s", NULL);
	if (!P.rc && !prog->root)
		P.rc = -2;
	if (P.rc) {
		cel_program_free(prog);
		return P.rc;
	}
	prog->uses_old_self = P.old_self;
	*out = prog;
	return 0;
}

void cel_program_free(cel_program *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nres; i++)
		smp_regex_free(p->res[i]);
	free(p->res);
	smp_arena_release(&p->arena);
	free(p);
}

bool cel_program_uses(const cel_program *p, const char *name)
{
	return p && strcmp(name, "oldSelf") == 0 && p->uses_old_self;
}
