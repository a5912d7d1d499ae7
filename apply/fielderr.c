/*
 * fielderr.c - a field.ErrorList as the API server's validation builds it
 * (k8s.io/apimachinery pkg/util/validation/field: errors.go, path.go), and
 * Go's quoting of the values it prints.
 */
#include "apply/fielderr.h"
#include "codec/codec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ErrorType.String() */
static const char *const type_text[] = {
	[SMP_FE_NOT_FOUND] = "Not found",
	[SMP_FE_REQUIRED] = "Required value",
	[SMP_FE_DUPLICATE] = "Duplicate value",
	[SMP_FE_INVALID] = "Invalid value",
	[SMP_FE_NOT_SUPPORTED] = "Unsupported value",
	[SMP_FE_FORBIDDEN] = "Forbidden",
	[SMP_FE_TOO_LONG] = "Too long",
	[SMP_FE_TOO_MANY] = "Too many",
	[SMP_FE_INTERNAL] = "Internal error",
	[SMP_FE_TYPE_INVALID] = "Invalid value",
};

void smp_fe_init(smp_felist *l)
{
	memset(l, 0, sizeof(*l));
	smp_buf_init(&l->path);
	smp_buf_init(&l->val);
	smp_arena_init(&l->a);
}

void smp_fe_release(smp_felist *l)
{
	free(l->items);
	smp_buf_release(&l->path);
	smp_buf_release(&l->val);
	smp_arena_release(&l->a);
	memset(l, 0, sizeof(*l));
}

size_t smp_fe_child(smp_felist *l, const char *name)
{
	size_t at = l->path.len;

	if (at)
		smp_buf_putc(&l->path, '.');
	smp_buf_puts(&l->path, name);
	return at;
}

size_t smp_fe_index(smp_felist *l, size_t i)
{
	size_t at = l->path.len;

	smp_buf_printf(&l->path, "[%zu]", i);
	return at;
}

size_t smp_fe_key(smp_felist *l, const char *key, size_t n)
{
	size_t at = l->path.len;

	smp_buf_putc(&l->path, '[');
	smp_buf_put(&l->path, key, n);
	smp_buf_putc(&l->path, ']');
	return at;
}

void smp_fe_pop(smp_felist *l, size_t len)
{
	if (len <= l->path.len) {
		l->path.len = len;
		if (l->path.ptr)
			l->path.ptr[len] = '\0';
	}
}

void smp_fe_add(smp_felist *l, smp_fe_type t, const char *sub, const smp_value *at,
                const char *value, const char *detail)
{
	smp_buf b;
	smp_fe *e;
	size_t pl = l->path.len;

	if (l->rc)
		return;
	if (sub)
		smp_fe_child(l, sub);
	if (l->path.oom || !smp_grow((void **)&l->items, &l->cap, l->n, sizeof(*l->items), 8)) {
		l->rc = SMP_ENOMEM;
		return;
	}
	e = &l->items[l->n];
	e->type = t;
	e->line = at ? at->line : 0;
	e->col = at ? at->col : 0;
	e->field = smp_arena_strndup(&l->a, l->path.ptr ? l->path.ptr : "", l->path.len);
	smp_fe_pop(l, pl);
	smp_buf_init(&b);
	smp_buf_puts(&b, type_text[t]);
	if (value && t != SMP_FE_REQUIRED && t != SMP_FE_FORBIDDEN && t != SMP_FE_TOO_LONG &&
	    t != SMP_FE_INTERNAL) {
		smp_buf_puts(&b, ": ");
		smp_buf_puts(&b, value);
	}
	if (detail && *detail) {
		smp_buf_puts(&b, ": ");
		smp_buf_puts(&b, detail);
	}
	e->body = b.oom ? NULL : smp_arena_strndup(&l->a, b.ptr ? b.ptr : "", b.len);
	smp_buf_release(&b);
	if (!e->field || !e->body) {
		l->rc = SMP_ENOMEM;
		return;
	}
	l->n++;
}

void smp_fe_add_val(smp_felist *l, smp_fe_type t, const char *sub, const smp_value *at,
                    const char *detail)
{
	if (l->val.oom) {
		l->rc = SMP_ENOMEM;
		return;
	}
	smp_fe_add(l, t, sub, at, l->val.ptr ? l->val.ptr : "", detail);
}

void smp_fe_add_str(smp_felist *l, smp_fe_type t, const char *sub, const smp_value *at,
                    const char *s, size_t n, const char *detail)
{
	l->val.len = 0;
	smp_quote_go(&l->val, s, n);
	smp_fe_add_val(l, t, sub, at, detail);
}

void smp_fe_add_int(smp_felist *l, smp_fe_type t, const char *sub, const smp_value *at,
                    int64_t v, const char *detail)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRId64, v);
	smp_fe_add(l, t, sub, at, num, detail);
}

void smp_fe_not_supported(smp_felist *l, const char *sub, const smp_value *at,
                          const char *s, size_t n, const char *valid)
{
	char detail[512];

	snprintf(detail, sizeof(detail), "supported values: %s", valid);
	smp_fe_add_str(l, SMP_FE_NOT_SUPPORTED, sub, at, s, n, detail);
}

void smp_fe_go_map(smp_buf *b, const smp_value *map)
{
	const smp_member **sorted = NULL;

	if (!map || map->type != SMP_MAP) {
		smp_buf_puts(b, "map[string]string(nil)");
		return;
	}
	if (smp_sorted_members(&sorted, map, true)) {
		b->oom = true;
		return;
	}
	smp_buf_puts(b, "map[string]string{");
	for (size_t i = 0; i < map->u.map.len; i++) {
		const smp_member *m = smp_member_at(sorted, map, i);

		if (i)
			smp_buf_puts(b, ", ");
		smp_quote_go(b, m->key, m->klen);
		smp_buf_putc(b, ':');
		if (m->val->type == SMP_STRING)
			smp_quote_go(b, m->val->u.s.ptr, m->val->u.s.len);
		else
			smp_buf_puts(b, "\"\"");
	}
	smp_buf_putc(b, '}');
	free(sorted);
}

/* unicode.IsPrint for a rune above ASCII, as far as Go's tables matter for
 * the values users write: the C1 controls, the spaces other than ' ', the
 * soft hyphen, the separators and format characters Go escapes, and the
 * private and unassigned planes' noncharacters. */
static bool rune_printable(uint32_t c)
{
	if (c <= 0xa0 || c == 0xad || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
	    c == 0x202f || c == 0x205f || c == 0x3000)
		return false;
	if ((c >= 0x2028 && c <= 0x202e) || (c >= 0x200b && c <= 0x200f) ||
	    (c >= 0x2060 && c <= 0x206f) || c == 0xfeff || (c >= 0xfff9 && c <= 0xfffb))
		return false;
	if ((c >= 0xe000 && c <= 0xf8ff) || c >= 0xf0000 || (c & 0xfffe) == 0xfffe)
		return false;
	return true;
}

void smp_quote_go(smp_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;

	smp_buf_putc(b, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		uint32_t cp;
		size_t k;

		if (c < 0x80) {
			i++;
			switch (c) {
			case '"': smp_buf_puts(b, "\\\""); continue;
			case '\\': smp_buf_puts(b, "\\\\"); continue;
			case '\a': smp_buf_puts(b, "\\a"); continue;
			case '\b': smp_buf_puts(b, "\\b"); continue;
			case '\f': smp_buf_puts(b, "\\f"); continue;
			case '\n': smp_buf_puts(b, "\\n"); continue;
			case '\r': smp_buf_puts(b, "\\r"); continue;
			case '\t': smp_buf_puts(b, "\\t"); continue;
			case '\v': smp_buf_puts(b, "\\v"); continue;
			default:
				if (c < 0x20 || c == 0x7f) {
					char e[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
					smp_buf_put(b, e, 4);
				} else {
					smp_buf_putc(b, (char)c);
				}
				continue;
			}
		}
		k = smp_utf8_decode(p + i, n - i, &cp);
		if (!k) {
			char e[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
			smp_buf_put(b, e, 4);
			i++;
			continue;
		}
		if (rune_printable(cp))
			smp_buf_put(b, s + i, k);
		else if (cp < 0x10000)
			smp_buf_printf(b, "\\u%04x", (unsigned)cp);
		else
			smp_buf_printf(b, "\\U%08x", (unsigned)cp);
		i += k;
	}
	smp_buf_putc(b, '"');
}
