/*
 * net.c - Kubernetes' IP and CIDR libraries for CEL
 * (k8s.io/apiserver/pkg/cel/library/ip.go and cidr.go): ip(), isIP(),
 * ip.isCanonical(), family() and the address predicates, cidr(), isCIDR(),
 * containsIP(), containsCIDR(), ip(), masked(), prefixLength(), and
 * string() of both. Addresses parse as Go's netip.ParseAddr and
 * ParsePrefix do (no leading zeros in IPv4, no zones, prefix lengths
 * without leading zeros); IPv4-mapped IPv6 addresses are refused, as the
 * library refuses them; string() is netip's (RFC 5952 for IPv6).
 */
#include "cel/eval_int.h"

#include <stdio.h>
#include <string.h>

static bool parse_v4(const char *p, size_t n, uint8_t out[4])
{
	size_t i = 0;

	for (int part = 0; part < 4; part++) {
		unsigned v = 0, digits = 0;

		while (i < n && p[i] >= '0' && p[i] <= '9') {
			if (digits && v == 0)
				return false; /* a leading zero */
			v = v * 10 + (unsigned)(p[i++] - '0');
			if (++digits > 3 || v > 255)
				return false;
		}
		if (!digits)
			return false;
		out[part] = (uint8_t)v;
		if (part < 3 && (i >= n || p[i++] != '.'))
			return false;
	}
	return i == n;
}

/* netip.ParseAddr's IPv6: groups of 1 to 4 hex digits, one "::", an IPv4
 * tail; false for zones too. */
static bool parse_v6(const char *p, size_t n, uint8_t out[16])
{
	int ellipsis = -1, g = 0;
	size_t i = 0;

	memset(out, 0, 16);
	if (n >= 2 && p[0] == ':' && p[1] == ':') {
		ellipsis = 0;
		i = 2;
		if (i == n)
			return true;
	}
	while (i < n) {
		size_t st = i;
		unsigned v = 0;
		int k = 0;

		while (i < n && cel__hexval(p[i]) >= 0 && k < 5) {
			v = v * 16 + (unsigned)cel__hexval(p[i++]);
			k++;
		}
		if (k == 0 || k > 4)
			return false;
		if (i < n && p[i] == '.') {
			/* an IPv4 tail */
			if (g > 12 || !parse_v4(p + st, n - st, out + 2 * g))
				return false;
			g += 2;
			i = n;
			break;
		}
		if (g >= 16 / 2)
			return false;
		out[2 * g] = (uint8_t)(v >> 8);
		out[2 * g + 1] = (uint8_t)v;
		g++;
		if (i == n)
			break;
		if (p[i] != ':')
			return false; /* a zone, or garbage */
		i++;
		if (i < n && p[i] == ':') {
			if (ellipsis >= 0)
				return false;
			ellipsis = g;
			i++;
			if (i == n)
				break;
		} else if (i == n) {
			return false;
		}
	}
	if (ellipsis < 0)
		return g == 8;
	if (g >= 8)
		return false;
	/* move the groups after the ellipsis to the end */
	int tail = g - ellipsis;

	memmove(out + 16 - 2 * tail, out + 2 * ellipsis, (size_t)(2 * tail));
	memset(out + 2 * ellipsis, 0, (size_t)(16 - 2 * tail - 2 * ellipsis));
	return true;
}

static bool is_4in6(const uint8_t a[16])
{
	static const uint8_t pre[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	return memcmp(a, pre, 12) == 0;
}

static bool parse_addr(const char *p, size_t n, cel_net *out)
{
	memset(out, 0, sizeof(*out));
	if (memchr(p, ':', n)) {
		out->v6 = 1;
		return parse_v6(p, n, out->addr) && !is_4in6(out->addr);
	}
	return parse_v4(p, n, out->addr);
}

static bool parse_prefix(const char *p, size_t n, cel_net *out)
{
	const char *slash = memchr(p, '/', n);
	size_t bl;
	unsigned bits = 0;

	if (!slash || !parse_addr(p, (size_t)(slash - p), out))
		return false;
	bl = n - (size_t)(slash - p) - 1;
	if (bl == 0 || bl > 3 || (bl > 1 && slash[1] == '0'))
		return false;
	for (size_t i = 0; i < bl; i++) {
		if (slash[1 + i] < '0' || slash[1 + i] > '9')
			return false;
		bits = bits * 10 + (unsigned)(slash[1 + i] - '0');
	}
	if (bits > (out->v6 ? 128u : 32u))
		return false;
	out->bits = (uint8_t)bits;
	return true;
}

/* netip.Addr.String(). */
static void addr_string(smp_buf *b, const cel_net *a)
{
	int best = -1, blen = 0;

	if (!a->v6) {
		smp_buf_printf(b, "%u.%u.%u.%u", a->addr[0], a->addr[1], a->addr[2], a->addr[3]);
		return;
	}
	/* the longest run of two or more zero groups becomes "::" */
	for (int i = 0; i < 8;) {
		int j = i;

		while (j < 8 && !a->addr[2 * j] && !a->addr[2 * j + 1])
			j++;
		if (j - i > blen && j - i >= 2) {
			best = i;
			blen = j - i;
		}
		i = j > i ? j : i + 1;
	}
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			smp_buf_puts(b, "::");
			i += blen - 1;
			continue;
		}
		if (i && i != best + blen)
			smp_buf_putc(b, ':');
		smp_buf_printf(b, "%x", (unsigned)(a->addr[2 * i] << 8 | a->addr[2 * i + 1]));
	}
}

static cel_val net_val(cel_eval *e, const cel_net *n, cel_kind k)
{
	cel_net *p = smp_arena_alloc(&e->arena, sizeof(*p));
	cel_val v;

	if (!p) {
		e->oom = true;
		return cel_error("out of memory");
	}
	*p = *n;
	v.kind = (uint8_t)k;
	v.u.net = p;
	return v;
}

/* Whether prefix c holds address a (netip.Prefix.Contains). */
static bool prefix_contains(const cel_net *c, const cel_net *a)
{
	unsigned full = c->bits / 8, rest = c->bits % 8;

	if (c->v6 != a->v6)
		return false;
	if (memcmp(c->addr, a->addr, full) != 0)
		return false;
	if (rest) {
		uint8_t m = (uint8_t)(0xff << (8 - rest));

		if ((c->addr[full] & m) != (a->addr[full] & m))
			return false;
	}
	return true;
}

static cel_net masked(const cel_net *c)
{
	cel_net m = *c;
	unsigned len = c->v6 ? 16 : 4;

	for (unsigned i = 0; i < len; i++) {
		unsigned keep = c->bits > 8 * i ? c->bits - 8 * i : 0;

		if (keep < 8)
			m.addr[i] &= (uint8_t)(keep ? 0xff << (8 - keep) : 0);
	}
	return m;
}

bool cel__net_string(smp_buf *b, const cel_val *v)
{
	if (v->kind != CEL_IP && v->kind != CEL_CIDR)
		return false;
	addr_string(b, v->u.net);
	if (v->kind == CEL_CIDR)
		smp_buf_printf(b, "/%u", v->u.net->bits);
	return true;
}

bool cel__net_equal(const cel_val *a, const cel_val *b)
{
	return a->u.net->v6 == b->u.net->v6 &&
	       memcmp(a->u.net->addr, b->u.net->addr, a->u.net->v6 ? 16 : 4) == 0 &&
	       (a->kind == CEL_IP || a->u.net->bits == b->u.net->bits);
}

static bool is_str(const cel_val *v)
{
	return v->kind == CEL_STRING;
}

cel_val cel__net_call(cel_eval *e, const char *name, const cel_val *r, const cel_val *a,
                      uint32_t n, bool *found)
{
	cel_net x, y;

	*found = true;
	if (!r && n == 1 && is_str(&a[0])) {
		bool ipv = parse_addr(a[0].u.s.p, a[0].u.s.n, &x);

		if (!strcmp(name, "ip"))
			return ipv ? net_val(e, &x, CEL_IP)
			           : cel__errorf(e, "IP Address %.*s parse error", (int)a[0].u.s.n,
			                         a[0].u.s.p);
		if (!strcmp(name, "isIP"))
			return cel_bool(ipv);
		if (!strcmp(name, "ip.isCanonical")) {
			smp_buf b;
			bool same;

			if (!ipv)
				return cel__errorf(e, "IP Address %.*s parse error", (int)a[0].u.s.n,
				                   a[0].u.s.p);
			smp_buf_init(&b);
			addr_string(&b, &x);
			same = !b.oom && b.len == a[0].u.s.n && !memcmp(b.ptr, a[0].u.s.p, b.len);
			smp_buf_release(&b);
			return cel_bool(same);
		}
		bool cv = parse_prefix(a[0].u.s.p, a[0].u.s.n, &x);

		if (!strcmp(name, "cidr"))
			return cv ? net_val(e, &x, CEL_CIDR)
			          : cel__errorf(e, "network address parse error");
		if (!strcmp(name, "isCIDR"))
			return cel_bool(cv);
	}
	if (r && r->kind == CEL_IP && n == 0) {
		const cel_net *p = r->u.net;
		const uint8_t *b = p->addr;
		bool unspec = true;

		for (unsigned i = 0; i < (p->v6 ? 16u : 4u); i++)
			unspec &= b[i] == 0;
		bool loop = p->v6 ? (unspec ? false : (memcmp(b, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 15) ==
		                                       0 && b[15] == 1))
		                  : b[0] == 127;
		bool llm = p->v6 ? (b[0] == 0xff && (b[1] & 0x0f) == 0x02)
		                 : (b[0] == 224 && b[1] == 0 && b[2] == 0);
		bool llu = p->v6 ? (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) : (b[0] == 169 && b[1] == 254);
		bool mc = p->v6 ? b[0] == 0xff : (b[0] & 0xf0) == 0xe0;
		bool bcast = !p->v6 && b[0] == 255 && b[1] == 255 && b[2] == 255 && b[3] == 255;

		if (!strcmp(name, "family"))
			return cel_int(p->v6 ? 6 : 4);
		if (!strcmp(name, "isUnspecified"))
			return cel_bool(unspec);
		if (!strcmp(name, "isLoopback"))
			return cel_bool(loop);
		if (!strcmp(name, "isLinkLocalMulticast"))
			return cel_bool(llm);
		if (!strcmp(name, "isLinkLocalUnicast"))
			return cel_bool(llu);
		if (!strcmp(name, "isGlobalUnicast"))
			return cel_bool(!unspec && !bcast && !loop && !mc && !llu);
	}
	if (r && r->kind == CEL_CIDR) {
		if (!strcmp(name, "containsIP") && n == 1) {
			if (is_str(&a[0])) {
				if (!parse_addr(a[0].u.s.p, a[0].u.s.n, &y))
					return cel__errorf(e, "IP Address %.*s parse error",
					                   (int)a[0].u.s.n, a[0].u.s.p);
				return cel_bool(prefix_contains(r->u.net, &y));
			}
			if (a[0].kind == CEL_IP)
				return cel_bool(prefix_contains(r->u.net, a[0].u.net));
		}
		if (!strcmp(name, "containsCIDR") && n == 1) {
			const cel_net *o = NULL;

			if (is_str(&a[0])) {
				if (!parse_prefix(a[0].u.s.p, a[0].u.s.n, &y))
					return cel__errorf(e, "network address parse error");
				o = &y;
			} else if (a[0].kind == CEL_CIDR) {
				o = a[0].u.net;
			}
			if (o) {
				/* Overlaps, and no longer than the other */
				const cel_net *shorter = r->u.net->bits <= o->bits ? r->u.net : o;
				const cel_net *other = shorter == r->u.net ? o : r->u.net;

				return cel_bool(r->u.net->v6 == o->v6 && prefix_contains(shorter, other) &&
				                r->u.net->bits <= o->bits);
			}
		}
		if (n == 0 && !strcmp(name, "prefixLength"))
			return cel_int(r->u.net->bits);
		if (n == 0 && !strcmp(name, "ip")) {
			x = *r->u.net;
			x.bits = 0;
			return net_val(e, &x, CEL_IP);
		}
		if (n == 0 && !strcmp(name, "masked")) {
			x = masked(r->u.net);
			return net_val(e, &x, CEL_CIDR);
		}
	}
	*found = false;
	return cel_null();
}
