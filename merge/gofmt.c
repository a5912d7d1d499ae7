/*
 * gofmt.c - Go's "%v" and "%s" formatting of values and Go's type names:
 * the reference sorts and matches some lists by these texts, and its
 * messages print values this way.
 */
#include "merge/merge.h"
#include "codec/codec.h"
#include "codec/depth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Go formatting ---- */

/* strconv.FormatFloat(f, 'g', -1, 64), which is what %v prints: the
 * codec's formatter, but with Go's own words for NaN and the infinities. */
static void put_go_g(smp_buf *b, double f)
{
	char num[32];

	if (isnan(f))
		smp_buf_puts(b, "NaN");
	else if (isinf(f))
		smp_buf_puts(b, f > 0 ? "+Inf" : "-Inf");
	else
		smp_buf_put(b, num, smp_format_float_g(num, f, false));
}

/* v as Go's fmt prints the interface{} values of an unstructured object
 * with %v (verb 'v') or %s: maps as map[k:v ...] with sorted keys, lists
 * as [a b], floats as %v formats float64; reference error messages embed
 * this. */
static void gofmt(smp_buf *b, const smp_value *v, char verb, unsigned depth)
{
	if (depth > SMP_DEPTH_GO_FORMAT) {
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
		const smp_member **m = NULL;

		smp_buf_puts(b, "map[");
		/* fmt prints map keys sorted. */
		if (smp_sorted_members(&m, v, true)) {
			smp_buf_puts(b, "...]");
			return;
		}
		for (size_t i = 0; i < n; i++) {
			const smp_member *x = smp_member_at(m, v, i);
			if (i)
				smp_buf_putc(b, ' ');
			smp_buf_put(b, x->key, x->klen);
			smp_buf_putc(b, ':');
			gofmt(b, x->val, verb, depth + 1);
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
