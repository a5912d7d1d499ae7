/*
 * cel_conformance.c - the runner of tests/cel/conformance.py: one JSON
 * line per test on stdin ({"expr", "bindings", "want"}, values tagged:
 * {"int": "1"}, {"double": 1.5}, {"list": [...]}, {"map": [[k, v]]},
 * {"optional": null or a value}, {"error": true}, ...), one answer per line on stdout: "ok", or what went
 * wrong. Compiles and evaluates with cel/ (with the quantity and format
 * libraries the CRD rules get), compares with CEL's equality
 * (NaN equal to NaN here, as the conformance suite wants).
 */
#include "cel/cel.h"
#include "cel/eval_int.h"
#include "apply/check.h"
#include "codec/codec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cel_val from_tagged(cel_eval *e, const smp_value *t, bool *ok)
{
	const smp_member *m;
	const smp_value *x;
	char buf[64];

	if (!t || t->type != SMP_MAP || t->u.map.len != 1) {
		*ok = false;
		return cel_null();
	}
	m = &t->u.map.items[0];
	x = m->val;
	if (!strcmp(m->key, "int") || !strcmp(m->key, "uint")) {
		size_t n = x->u.s.len < sizeof(buf) - 1 ? x->u.s.len : sizeof(buf) - 1;

		memcpy(buf, x->u.s.ptr, n);
		buf[n] = '\0';
		return m->key[0] == 'i' ? cel_int(strtoll(buf, NULL, 10))
		                        : cel_uint(strtoull(buf, NULL, 10));
	}
	if (!strcmp(m->key, "double")) {
		if (x->type == SMP_STRING)
			return cel_double(x->u.s.ptr[0] == 'N' ? NAN : x->u.s.ptr[0] == '-' ? -INFINITY
			                                                               : INFINITY);
		return cel_double(x->type == SMP_INT ? (double)x->u.i : x->u.f);
	}
	if (!strcmp(m->key, "string"))
		return cel_str(x->u.s.ptr, x->u.s.len);
	if (!strcmp(m->key, "bytes"))
		return cel__base64_bytes(e, x->u.s.ptr, x->u.s.len);
	if (!strcmp(m->key, "bool"))
		return cel_bool(x->u.b);
	if (!strcmp(m->key, "null"))
		return cel_null();
	if (!strcmp(m->key, "type")) {
		cel_val v = cel_str(x->u.s.ptr, x->u.s.len);

		v.kind = CEL_TYPE;
		return v;
	}
	if (!strcmp(m->key, "duration") || !strcmp(m->key, "timestamp")) {
		cel_val v;

		v.kind = m->key[0] == 'd' ? CEL_DURATION : CEL_TIMESTAMP;
		v.u.t.sec = x->u.list.items[0]->u.i;
		v.u.t.nsec = (int32_t)x->u.list.items[1]->u.i;
		return v;
	}
	if (!strcmp(m->key, "optional")) {
		cel_val v, *in = NULL;

		if (x->type != SMP_NULL) {
			in = smp_arena_alloc(&e->arena, sizeof(*in));
			*in = from_tagged(e, x, ok);
		}
		v.kind = CEL_OPTIONAL;
		v.u.opt = in;
		return v;
	}
	if (!strcmp(m->key, "list")) {
		cel_val *it = calloc(x->u.list.len + 1, sizeof(*it));
		cel_val r;

		for (uint32_t i = 0; i < x->u.list.len; i++)
			it[i] = from_tagged(e, x->u.list.items[i], ok);
		r = cel__list(e, it, x->u.list.len);
		free(it);
		return r;
	}
	if (!strcmp(m->key, "map")) {
		cel_agg *a = smp_arena_alloc(&e->arena, sizeof(*a));
		cel_val *k = smp_arena_alloc(&e->arena, (x->u.list.len + 1) * sizeof(*k));
		cel_val *v = smp_arena_alloc(&e->arena, (x->u.list.len + 1) * sizeof(*v));
		cel_val r;

		memset(a, 0, sizeof(*a));
		for (uint32_t i = 0; i < x->u.list.len; i++) {
			k[i] = from_tagged(e, x->u.list.items[i]->u.list.items[0], ok);
			v[i] = from_tagged(e, x->u.list.items[i]->u.list.items[1], ok);
		}
		a->keys = k;
		a->items = v;
		a->n = x->u.list.len;
		r.kind = CEL_MAP;
		r.u.agg = a;
		return r;
	}
	*ok = false;
	return cel_null();
}

/* Equality for the suite: CEL's, with NaN equal to NaN and types exact
 * at the top (1 and 1.0 differ as results). */
static bool same(cel_eval *e, const cel_val *a, const cel_val *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == CEL_DOUBLE && isnan(a->u.d) && isnan(b->u.d))
		return true;
	if (a->kind == CEL_LIST) {
		if (cel_len(a) != cel_len(b))
			return false;
		for (uint32_t i = 0; i < cel_len(a); i++) {
			cel_val x = cel_item(e, a, i), y = cel_item(e, b, i);

			if (!same(e, &x, &y))
				return false;
		}
		return true;
	}
	return cel__equal(e, a, b) == 1;
}

static void describe(char *buf, size_t n, const cel_val *v)
{
	switch (v->kind) {
	case CEL_ERROR:
		snprintf(buf, n, "error: %.*s", (int)v->u.s.n, v->u.s.p);
		break;
	case CEL_INT:
		snprintf(buf, n, "int %lld", (long long)v->u.i);
		break;
	case CEL_UINT:
		snprintf(buf, n, "uint %llu", (unsigned long long)v->u.u);
		break;
	case CEL_DOUBLE:
		snprintf(buf, n, "double %.17g", v->u.d);
		break;
	case CEL_BOOL:
		snprintf(buf, n, "bool %s", v->u.b ? "true" : "false");
		break;
	case CEL_STRING:
	case CEL_TYPE:
		snprintf(buf, n, "%s \"%.*s\"", cel_type_name(v), (int)v->u.s.n, v->u.s.p);
		break;
	default:
		snprintf(buf, n, "%s", cel_type_name(v));
		break;
	}
}

static void run_line(const char *line, size_t len)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc = NULL;
	smp_error err;
	const smp_value *root, *expr, *b, *want;
	cel_program *p = NULL;
	cel_eval e;
	cel_var vars[16];
	size_t nv = 0;
	char msg[512], got[256];
	bool ok = true;
	cel_val r, w;

	po.format = SMP_FORMAT_JSON;
	if (smp_doc_parse(&doc, line, len, &po, &err)) {
		printf("bad line: %s\n", err.message);
		return;
	}
	root = smp_doc_root(doc, 0);
	expr = smp_map_get(root, "expr");
	b = smp_map_get(root, "bindings");
	want = smp_map_get(root, "want");
	cel_eval_init(&e, 0);
	int rc = cel_compile(&p, expr->u.s.ptr, expr->u.s.len, msg, sizeof(msg));

	if (rc) {
		if (smp_map_get(want, "error"))
			printf("ok\n");
		else
			printf("compile: %s\n", msg);
		goto out;
	}
	for (uint32_t i = 0; b && i < b->u.map.len && nv < 16; i++) {
		vars[nv].name = b->u.map.items[i].key;
		vars[nv].val = from_tagged(&e, b->u.map.items[i].val, &ok);
		nv++;
	}
	e.ext = smp__cel_libs; /* Kubernetes' quantity and format libraries, as CRD rules have them */
	r = cel_run(&e, p, vars, nv);
	if (smp_map_get(want, "error")) {
		describe(got, sizeof(got), &r);
		if (r.kind == CEL_ERROR)
			printf("ok\n");
		else
			printf("want an error, got %s\n", got);
		goto out;
	}
	w = from_tagged(&e, want, &ok);
	if (!ok) {
		printf("unreadable expectation\n");
		goto out;
	}
	if (same(&e, &r, &w)) {
		printf("ok\n");
	} else {
		char wd[256];

		describe(got, sizeof(got), &r);
		describe(wd, sizeof(wd), &w);
		printf("got %s, want %s\n", got, wd);
	}
out:
	cel_program_free(p);
	cel_eval_release(&e);
	smp_doc_free(doc);
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n)
			run_line(line, (size_t)n);
		fflush(stdout);
	}
	free(line);
	return 0;
}
