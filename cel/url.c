/*
 * url.c - Kubernetes' URL library for CEL
 * (k8s.io/apiserver/pkg/cel/library/urls.go): url(), isURL(), and a URL's
 * getScheme(), getHost(), getHostname(), getPort(), getEscapedPath() and
 * getQuery(); == of two URLs compares their String() forms, as
 * apiservercel.URL's Equal does. Strings parse as Go's net/url does (Go
 * 1.26 under the GODEBUG defaults of a go 1.23 module, which the API
 * server and the oracle run: urlstrictcolons=0, so a host's port follows
 * its last colon for every scheme, and urlmaxqueryparams=0, no limit on a
 * query's parameters): isURL() is ParseRequestURI succeeding, url()
 * checks with ParseRequestURI and keeps what Parse makes of the string.
 * Errors carry Go's words ("parse \"a b\": invalid URI for request"),
 * quoted as Go's %q quotes (but for unassigned code points, which Go
 * escapes and these keep). Where Go would hand back a string that is not
 * UTF-8 (a host or query with %ff), the getter gives an error instead.
 *
 * A URL is a cel_opaque of type "kubernetes.URL" (the first member of a
 * url_val holding the parsed fields) whose text is its String(). All of it
 * lives in the evaluation's arena.
 */
#include "cel/eval_int.h"
#include "codec/codec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char url_type[] = "kubernetes.URL";

/* net/url's encoding modes (shouldEscape, escape, unescape). */
enum {
	ENC_PATH = 1,
	ENC_PATH_SEGMENT = 2,
	ENC_HOST = 4,
	ENC_ZONE = 8,
	ENC_USER = 16,
	ENC_QUERY = 32,
	ENC_FRAGMENT = 64
};

typedef struct ustr {
	const char *p;
	size_t n;
} ustr;

/* url.URL's fields: escaped where Go keeps them escaped (opaque, the raw
 * forms, the query), decoded elsewhere. */
typedef struct url_val {
	cel_opaque o; /* first: a URL value points at it */
	ustr scheme, opaque, user, pass, host, path, raw_path, raw_query, frag, raw_frag;
	bool has_user, pass_set, force_query, omit_host;
} url_val;

/* A string built in the evaluation's arena (messages, escaped forms);
 * when memory runs out it stops growing and e->oom is set. */
typedef struct sb {
	cel_eval *e;
	char *p;
	size_t n, cap;
} sb;

static void sb_init(sb *b, cel_eval *e)
{
	b->e = e;
	b->p = NULL;
	b->n = b->cap = 0;
}

static void sb_put(sb *b, const char *s, size_t n)
{
	if (b->e->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 32;
		char *q;

		while (cap < b->n + n + 1)
			cap *= 2;
		q = smp_arena_alloc(&b->e->arena, cap);
		if (!q) {
			b->e->oom = true;
			return;
		}
		if (b->n)
			memcpy(q, b->p, b->n);
		b->p = q;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void sb_puts(sb *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

static void sb_putc(sb *b, char c)
{
	sb_put(b, &c, 1);
}

static ustr sb_str(const sb *b)
{
	ustr s = {b->n ? b->p : "", b->n};

	return s;
}

static ustr us(const char *p, size_t n)
{
	ustr s = {p, n};

	return s;
}

static bool us_eq(ustr a, ustr b)
{
	return a.n == b.n && (!a.n || memcmp(a.p, b.p, a.n) == 0);
}

static bool has_prefix(ustr s, const char *pre)
{
	size_t n = strlen(pre);

	return s.n >= n && memcmp(s.p, pre, n) == 0;
}

static bool has_byte(ustr s, char c)
{
	return s.n && memchr(s.p, c, s.n) != NULL;
}

/* ---- Go's strconv.Quote, for messages ---- */

/* strconv.IsPrint: exact through Latin-1; above it every code point but
 * the separators, the format characters, private use and the
 * noncharacters counts as printable (Go's tables also escape unassigned
 * code points: only an error message's text differs there). */
static bool go_isprint(uint32_t r)
{
	static const uint32_t np[][2] = {
		{0x0600, 0x0605}, {0x061c, 0x061c}, {0x06dd, 0x06dd}, {0x070f, 0x070f},
		{0x0890, 0x0891}, {0x08e2, 0x08e2}, {0x1680, 0x1680}, {0x180e, 0x180e},
		{0x2000, 0x200f}, {0x2028, 0x202f}, {0x205f, 0x2064}, {0x2066, 0x206f},
		{0x3000, 0x3000}, {0xd800, 0xf8ff}, {0xfdd0, 0xfdef}, {0xfeff, 0xfeff},
		{0xfff9, 0xfffb}, {0x110bd, 0x110bd}, {0x110cd, 0x110cd}, {0x13430, 0x1343f},
		{0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0001, 0xe0001}, {0xe0020, 0xe007f},
		{0xf0000, 0x10ffff},
	};

	if (r <= 0xff)
		return (r >= 0x20 && r <= 0x7e) || (r >= 0xa1 && r != 0xad);
	if ((r & 0xfffe) == 0xfffe)
		return false;
	for (size_t i = 0; i < sizeof(np) / sizeof(np[0]); i++)
		if (r >= np[i][0] && r <= np[i][1])
			return false;
	return true;
}

/* s as Go's %q writes it: quoted, with Go's escapes (\x for bytes that are
 * not UTF-8, \u and \U for unprintable code points). */
static void quote(sb *b, ustr s)
{
	static const char hex[] = "0123456789abcdef";

	sb_putc(b, '"');
	for (size_t i = 0; i < s.n;) {
		unsigned char c = (unsigned char)s.p[i];
		uint32_t r = c;
		size_t k = 1;
		char esc[11];

		if (c >= 0x80) {
			k = smp_utf8_decode((const unsigned char *)s.p + i, s.n - i, &r);
			if (!k) {
				esc[0] = '\\';
				esc[1] = 'x';
				esc[2] = hex[c >> 4];
				esc[3] = hex[c & 15];
				sb_put(b, esc, 4);
				i++;
				continue;
			}
		}
		if (r == '"' || r == '\\') {
			sb_putc(b, '\\');
			sb_putc(b, (char)r);
		} else if (go_isprint(r)) {
			sb_put(b, s.p + i, k);
		} else if (r >= 7 && r <= 13) { /* \a \b \t \n \v \f \r */
			sb_putc(b, '\\');
			sb_putc(b, "abtnvfr"[r - 7]);
		} else if (r < ' ' || r == 0x7f) {
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[r >> 4];
			esc[3] = hex[r & 15];
			sb_put(b, esc, 4);
		} else {
			int digits = r < 0x10000 ? 4 : 8;

			esc[0] = '\\';
			esc[1] = r < 0x10000 ? 'u' : 'U';
			for (int d = 0; d < digits; d++)
				esc[2 + d] = hex[(r >> (4 * (digits - 1 - d))) & 15];
			sb_put(b, esc, (size_t)(2 + digits));
		}
		i += k;
	}
	sb_putc(b, '"');
}

/* An error message: pre, then s quoted, then post. Returns false for the
 * callers' `return fail(...)`. */
static bool failq(sb *err, const char *pre, ustr s, const char *post)
{
	if (err) {
		sb_puts(err, pre);
		quote(err, s);
		sb_puts(err, post);
	}
	return false;
}

static bool fail(sb *err, const char *msg)
{
	if (err)
		sb_puts(err, msg);
	return false;
}

/* ---- escaping (net/url's shouldEscape, escape, unescape) ---- */

static bool is_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Whether byte c is escaped in a part of a URL (mode), as
 * gen_encoding_table.go's shouldEscape decides. */
static bool should_escape(unsigned char c, int mode)
{
	if (is_alnum(c))
		return false;
	if ((mode == ENC_HOST || mode == ENC_ZONE) && c && strchr("!$&'()*+,;=:[]<>\"", c))
		return false;
	switch (c) {
	case '-':
	case '_':
	case '.':
	case '~':
		return false;
	case '$':
	case '&':
	case '+':
	case ',':
	case '/':
	case ':':
	case ';':
	case '=':
	case '?':
	case '@':
		switch (mode) {
		case ENC_PATH:
			return c == '?';
		case ENC_PATH_SEGMENT:
			return c == '/' || c == ';' || c == ',' || c == '?';
		case ENC_USER:
			return c == '@' || c == '/' || c == '?' || c == ':';
		case ENC_QUERY:
			return true;
		case ENC_FRAGMENT:
			return false;
		default:
			break;
		}
		break;
	default:
		break;
	}
	if (mode == ENC_FRAGMENT && (c == '!' || c == '(' || c == ')' || c == '*'))
		return false;
	return true;
}

/* escape(s, mode): %XX (upper case) for the bytes mode escapes. */
static ustr escape(cel_eval *e, ustr s, int mode)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t extra = 0, o = 0;
	char *t;

	for (size_t i = 0; i < s.n; i++)
		if (should_escape((unsigned char)s.p[i], mode))
			extra += 2;
	if (!extra)
		return s;
	t = smp_arena_alloc(&e->arena, s.n + extra + 1);
	if (!t) {
		e->oom = true;
		return us("", 0);
	}
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];

		if (should_escape(c, mode)) {
			t[o++] = '%';
			t[o++] = hex[c >> 4];
			t[o++] = hex[c & 15];
		} else {
			t[o++] = (char)c;
		}
	}
	t[o] = '\0';
	return us(t, o);
}

/* unescape(s, mode): %XX decoded (and '+' as a space in a query); false
 * with Go's error in err (when not NULL) for a bad escape, and in a host
 * or zone for ASCII a host cannot hold. */
static bool unescape(cel_eval *e, ustr s, int mode, ustr *out, sb *err)
{
	size_t pct = 0, o = 0;
	bool plus = false;
	char *t;

	for (size_t i = 0; i < s.n;) {
		unsigned char c = (unsigned char)s.p[i];

		if (c == '%') {
			pct++;
			if (i + 2 >= s.n || cel__hexval(s.p[i + 1]) < 0 || cel__hexval(s.p[i + 2]) < 0)
				return failq(err, "invalid URL escape ",
				             us(s.p + i, s.n - i > 3 ? 3 : s.n - i), "");
			int v = cel__hexval(s.p[i + 1]) << 4 | cel__hexval(s.p[i + 2]);
			bool is25 = v == 0x25;

			/* a host escapes only bytes above ASCII (and %25, a zone's
			 * start); a zone's escapes only what a host may hold */
			if (mode == ENC_HOST && v < 0x80 && !is25)
				return failq(err, "invalid URL escape ", us(s.p + i, 3), "");
			if (mode == ENC_ZONE && !is25 && v != ' ' &&
			    should_escape((unsigned char)v, ENC_HOST))
				return failq(err, "invalid URL escape ", us(s.p + i, 3), "");
			i += 3;
		} else {
			if (c == '+')
				plus = mode == ENC_QUERY;
			else if ((mode == ENC_HOST || mode == ENC_ZONE) && c < 0x80 &&
			         should_escape(c, mode))
				return failq(err, "invalid character ", us(s.p + i, 1), " in host name");
			i++;
		}
	}
	if (!pct && !plus) {
		*out = s;
		return true;
	}
	t = smp_arena_alloc(&e->arena, s.n + 1);
	if (!t) {
		e->oom = true;
		*out = us("", 0);
		return true;
	}
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] == '%') {
			t[o++] = (char)(cel__hexval(s.p[i + 1]) << 4 | cel__hexval(s.p[i + 2]));
			i += 2;
		} else if (s.p[i] == '+') {
			t[o++] = mode == ENC_QUERY ? ' ' : '+';
		} else {
			t[o++] = s.p[i];
		}
	}
	t[o] = '\0';
	*out = us(t, o);
	return true;
}

/* validEncoded: whether s holds only bytes a path (or fragment) may keep
 * unescaped, '%' included. */
static bool valid_encoded(ustr s, int mode)
{
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];

		if (c && strchr("!$&'()*+,;=:@[]%", c))
			continue;
		if (should_escape(c, mode))
			return false;
	}
	return true;
}

/* EscapedPath (mode ENC_PATH) and EscapedFragment (ENC_FRAGMENT): the raw
 * form when it is a valid escaping of the decoded one, else the decoded
 * one escaped. */
static ustr escaped(cel_eval *e, ustr raw, ustr dec, int mode)
{
	ustr p;

	if (raw.n && valid_encoded(raw, mode) && unescape(e, raw, mode, &p, NULL) &&
	    us_eq(p, dec))
		return raw;
	if (mode == ENC_PATH && dec.n == 1 && dec.p[0] == '*')
		return dec;
	return escape(e, dec, mode);
}

/* ---- netip.ParseAddr, for a bracketed host ---- */

static bool addr_fail(sb *err, ustr in, const char *msg, ustr at)
{
	if (!err)
		return false;
	failq(err, "invalid host: ParseAddr(", in, "): ");
	sb_puts(err, msg);
	if (at.n)
		failq(err, " (at ", at, ")");
	return false;
}

/* parseIPv4Fields: in[off, end) as a dotted quad. */
static bool parse_v4(ustr in, size_t off, size_t end, sb *err)
{
	const char *s = in.p + off;
	size_t len = end - off;
	int val = 0, pos = 0, dig = 0;
	ustr none = us("", 0);

	for (size_t i = 0; i < len; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			if (dig == 1 && val == 0)
				return addr_fail(err, in, "IPv4 field has octet with leading zero", none);
			val = val * 10 + (s[i] - '0');
			dig++;
			if (val > 255)
				return addr_fail(err, in, "IPv4 field has value >255", none);
		} else if (s[i] == '.') {
			if (i == 0 || i == len - 1 || s[i - 1] == '.')
				return addr_fail(err, in, "IPv4 field must have at least one digit",
				                 us(s + i, len - i));
			if (pos == 3)
				return addr_fail(err, in, "IPv4 address too long", none);
			pos++;
			val = 0;
			dig = 0;
		} else {
			return addr_fail(err, in, "unexpected character", us(s + i, len - i));
		}
	}
	if (pos < 3)
		return addr_fail(err, in, "IPv4 address too short", none);
	return true;
}

/* parseIPv6, zone included; only whether it parses matters here. */
static bool parse_v6(ustr in, sb *err)
{
	ustr s = in, none = us("", 0);
	const char *z = memchr(in.p, '%', in.n);
	size_t zlen = 0;
	int ellipsis = -1, i = 0;

	if (z) {
		s.n = (size_t)(z - in.p);
		zlen = in.n - s.n - 1;
		if (!zlen)
			return addr_fail(err, in, "zone must be a non-empty string", none);
	}
	if (s.n >= 2 && s.p[0] == ':' && s.p[1] == ':') {
		ellipsis = 0;
		s = us(s.p + 2, s.n - 2);
		if (!s.n)
			return true;
	}
	while (i < 16) {
		size_t off = 0;
		uint32_t acc = 0;

		for (; off < s.n; off++) {
			int h = cel__hexval(s.p[off]);

			if (h < 0)
				break;
			acc = (acc << 4) + (uint32_t)h;
			if (off > 3)
				return addr_fail(err, in, "each group must have 4 or less digits", s);
			if (acc > 0xffff)
				return addr_fail(err, in, "IPv6 field has value >=2^16", s);
		}
		if (!off)
			return addr_fail(err, in,
			                 "each colon-separated field must have at least one digit", s);
		if (off < s.n && s.p[off] == '.') {
			size_t end = in.n - (z ? zlen + 1 : 0);

			if (ellipsis < 0 && i != 12)
				return addr_fail(err, in,
				                 "embedded IPv4 address must replace the final 2 fields "
				                 "of the address",
				                 s);
			if (i + 4 > 16)
				return addr_fail(err, in,
				                 "too many hex fields to fit an embedded IPv4 at the end "
				                 "of the address",
				                 s);
			if (!parse_v4(in, end - s.n, end, err))
				return false;
			s.n = 0;
			i += 4;
			break;
		}
		i += 2;
		s = us(s.p + off, s.n - off);
		if (!s.n)
			break;
		if (s.p[0] != ':')
			return addr_fail(err, in, "unexpected character, want colon", s);
		if (s.n == 1)
			return addr_fail(err, in, "colon must be followed by more characters", s);
		s = us(s.p + 1, s.n - 1);
		if (s.p[0] == ':') {
			if (ellipsis >= 0)
				return addr_fail(err, in, "multiple :: in address", s);
			ellipsis = i;
			s = us(s.p + 1, s.n - 1);
			if (!s.n)
				break;
		}
	}
	if (s.n)
		return addr_fail(err, in, "trailing garbage after address", s);
	if (i < 16 && ellipsis < 0)
		return addr_fail(err, in, "address string too short", none);
	if (i >= 16 && ellipsis >= 0)
		return addr_fail(err, in, "the :: must expand to at least one field of zeros", none);
	return true;
}

/* netip.ParseAddr: *v4 tells an IPv4 address (which brackets refuse). */
static bool parse_addr(ustr s, bool *v4, sb *err)
{
	*v4 = false;
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] == '.') {
			*v4 = true;
			return parse_v4(s, 0, s.n, err);
		}
		if (s.p[i] == ':')
			return parse_v6(s, err);
		if (s.p[i] == '%')
			return addr_fail(err, s, "missing IPv6 address", us("", 0));
	}
	return addr_fail(err, s, "unable to parse IP", us("", 0));
}

/* ---- parsing (net/url's parse and its helpers) ---- */

/* validOptionalPort: empty, or ':' and digits. */
static bool valid_port(ustr p)
{
	if (!p.n)
		return true;
	if (p.p[0] != ':')
		return false;
	for (size_t i = 1; i < p.n; i++)
		if (p.p[i] < '0' || p.p[i] > '9')
			return false;
	return true;
}

static const char *last_byte(ustr s, char c)
{
	for (size_t i = s.n; i > 0; i--)
		if (s.p[i - 1] == c)
			return s.p + i - 1;
	return NULL;
}

/* parseHost: host[:port], an IPv6 literal (with a zone: %25) in
 * brackets; the host as the URL keeps it (unescaped). */
static bool parse_host(cel_eval *e, ustr host, ustr *out, sb *err)
{
	const char *open = last_byte(host, '[');

	if (open && open > host.p)
		return fail(err, "invalid IP-literal");
	if (open) {
		const char *close = last_byte(host, ']');
		ustr port, name, zone, a, b;
		size_t zi = 0;
		bool v4, has_zone = false;
		sb h;

		if (!close)
			return fail(err, "missing ']' in host");
		port = us(close + 1, (size_t)(host.p + host.n - close - 1));
		if (!valid_port(port))
			return failq(err, "invalid port ", port, " after host");
		name = us(host.p + 1, (size_t)(close - host.p - 1));
		for (; zi + 3 <= name.n; zi++)
			if (!memcmp(name.p + zi, "%25", 3)) {
				has_zone = true;
				break;
			}
		if (has_zone) {
			zone = us(name.p + zi, name.n - zi);
			if (!unescape(e, us(name.p, zi), ENC_HOST, &a, err) ||
			    !unescape(e, zone, ENC_ZONE, &b, err))
				return false;
		} else {
			if (!unescape(e, name, ENC_HOST, &a, err))
				return false;
			b = us("", 0);
		}
		sb_init(&h, e);
		sb_putc(&h, '[');
		sb_put(&h, a.p, a.n);
		sb_put(&h, b.p, b.n);
		if (e->oom)
			return fail(err, "out of memory");
		if (!parse_addr(us(h.p + 1, h.n - 1), &v4, err))
			return false;
		if (v4)
			return fail(err, "invalid IP-literal");
		sb_putc(&h, ']');
		sb_put(&h, port.p, port.n);
		*out = sb_str(&h);
		return !e->oom;
	}
	/* urlstrictcolons=0: the port follows the last colon, whatever the
	 * scheme */
	const char *colon = last_byte(host, ':');

	if (colon) {
		ustr port = us(colon, (size_t)(host.p + host.n - colon));

		if (!valid_port(port))
			return failq(err, "invalid port ", port, " after host");
	}
	return unescape(e, host, ENC_HOST, out, err);
}

/* validUserinfo: RFC 3986's userinfo characters, '%' and '@'. */
static bool valid_userinfo(ustr s)
{
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];

		if (!is_alnum(c) && !(c && strchr("-._:~!$&'()*+,;=%@", c)))
			return false;
	}
	return true;
}

/* parseAuthority: [userinfo@]host[:port]; the host is checked first. */
static bool parse_authority(cel_eval *e, ustr auth, url_val *u, sb *err)
{
	const char *at = last_byte(auth, '@');
	ustr info;

	if (!parse_host(e, at ? us(at + 1, (size_t)(auth.p + auth.n - at - 1)) : auth, &u->host,
	                err))
		return false;
	if (!at)
		return true;
	info = us(auth.p, (size_t)(at - auth.p));
	if (!valid_userinfo(info))
		return fail(err, "net/url: invalid userinfo");
	u->has_user = true;
	const char *c = memchr(info.p, ':', info.n);

	if (!c)
		return unescape(e, info, ENC_USER, &u->user, err);
	u->pass_set = true;
	return unescape(e, us(info.p, (size_t)(c - info.p)), ENC_USER, &u->user, err) &&
	       unescape(e, us(c + 1, (size_t)(info.p + info.n - c - 1)), ENC_USER, &u->pass, err);
}

/* setPath: Path decoded, RawPath the text as written when the default
 * escaping of Path differs from it. */
static bool set_path(cel_eval *e, url_val *u, ustr p, sb *err)
{
	if (!unescape(e, p, ENC_PATH, &u->path, err))
		return false;
	u->raw_path = us_eq(escape(e, u->path, ENC_PATH), p) ? us("", 0) : p;
	return true;
}

/* net/url's parse(rawURL, viaRequest): false with Go's error in err. */
static bool parse(cel_eval *e, ustr raw, bool via_request, url_val *u, sb *err)
{
	ustr rest = raw;
	size_t q = 0;

	memset(u, 0, sizeof(*u));
	for (size_t i = 0; i < raw.n; i++)
		if ((unsigned char)raw.p[i] < ' ' || raw.p[i] == 0x7f)
			return fail(err, "net/url: invalid control character in URL");
	if (!raw.n && via_request)
		return fail(err, "empty url");
	if (raw.n == 1 && raw.p[0] == '*') {
		u->path = raw;
		return true;
	}
	/* getScheme: [a-zA-Z][a-zA-Z0-9+.-]* before a colon */
	for (size_t i = 0; i < raw.n; i++) {
		char c = raw.p[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
			continue;
		if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
			if (i == 0)
				break;
			continue;
		}
		if (c == ':') {
			char *lower;

			if (i == 0)
				return fail(err, "missing protocol scheme");
			lower = smp_arena_strndup(&e->arena, raw.p, i);
			if (!lower) {
				e->oom = true;
				return fail(err, "out of memory");
			}
			for (size_t k = 0; k < i; k++)
				if (lower[k] >= 'A' && lower[k] <= 'Z')
					lower[k] = (char)(lower[k] - 'A' + 'a');
			u->scheme = us(lower, i);
			rest = us(raw.p + i + 1, raw.n - i - 1);
		}
		break;
	}
	for (size_t i = 0; i < rest.n; i++)
		q += rest.p[i] == '?';
	if (q == 1 && rest.p[rest.n - 1] == '?') {
		u->force_query = true;
		rest.n--;
	} else if (q) {
		const char *m = memchr(rest.p, '?', rest.n);

		u->raw_query = us(m + 1, (size_t)(rest.p + rest.n - m - 1));
		rest.n = (size_t)(m - rest.p);
	}
	if (!has_prefix(rest, "/")) {
		if (u->scheme.n) {
			/* a rootless path: opaque */
			u->opaque = rest;
			return true;
		}
		if (via_request)
			return fail(err, "invalid URI for request");
		const char *slash = memchr(rest.p, '/', rest.n);

		if (has_byte(us(rest.p, slash ? (size_t)(slash - rest.p) : rest.n), ':'))
			return fail(err, "first path segment in URL cannot contain colon");
	}
	if ((u->scheme.n || (!via_request && !has_prefix(rest, "///"))) && has_prefix(rest, "//")) {
		ustr auth = us(rest.p + 2, rest.n - 2);
		const char *slash = memchr(auth.p, '/', auth.n);

		rest = us("", 0);
		if (slash) {
			rest = us(slash, (size_t)(auth.p + auth.n - slash));
			auth.n = (size_t)(slash - auth.p);
		}
		if (!parse_authority(e, auth, u, err))
			return false;
	} else if (u->scheme.n && has_prefix(rest, "/")) {
		u->omit_host = true;
	}
	return set_path(e, u, rest, err);
}

/* url.Parse: the fragment cut off at the first '#', the rest parsed as a
 * reference. Errors name the part parsed, or the whole for a fragment's. */
static bool parse_ref(cel_eval *e, ustr raw, url_val *u, sb *err, ustr *named)
{
	const char *hash = memchr(raw.p, '#', raw.n);
	ustr frag, esc;

	*named = hash ? us(raw.p, (size_t)(hash - raw.p)) : raw;
	if (!parse(e, *named, false, u, err))
		return false;
	if (!hash || hash + 1 == raw.p + raw.n)
		return true;
	*named = raw;
	frag = us(hash + 1, (size_t)(raw.p + raw.n - hash - 1));
	if (!unescape(e, frag, ENC_FRAGMENT, &u->frag, err))
		return false;
	esc = escape(e, u->frag, ENC_FRAGMENT);
	u->raw_frag = us_eq(esc, frag) ? us("", 0) : frag;
	return true;
}

/* ---- accessors ---- */

/* splitHostPort: a valid (numeric) port after the last colon comes off,
 * then the brackets of an IPv6 literal. */
static void split_host_port(ustr hp, ustr *host, ustr *port)
{
	const char *colon = last_byte(hp, ':');

	*host = hp;
	*port = us("", 0);
	if (colon && valid_port(us(colon, (size_t)(hp.p + hp.n - colon)))) {
		*port = us(colon + 1, (size_t)(hp.p + hp.n - colon - 1));
		host->n = (size_t)(colon - hp.p);
	}
	if (host->n >= 2 && host->p[0] == '[' && host->p[host->n - 1] == ']')
		*host = us(host->p + 1, host->n - 2);
}

/* URL.String(), which == compares. */
static void url_string(cel_eval *e, sb *b, const url_val *u)
{
	if (u->scheme.n) {
		sb_put(b, u->scheme.p, u->scheme.n);
		sb_putc(b, ':');
	}
	if (u->opaque.n) {
		sb_put(b, u->opaque.p, u->opaque.n);
	} else {
		ustr path;

		if ((u->scheme.n || u->host.n || u->has_user) &&
		    !(u->omit_host && !u->host.n && !u->has_user)) {
			if (u->host.n || u->path.n || u->has_user)
				sb_puts(b, "//");
			if (u->has_user) {
				ustr x = escape(e, u->user, ENC_USER);

				sb_put(b, x.p, x.n);
				if (u->pass_set) {
					x = escape(e, u->pass, ENC_USER);
					sb_putc(b, ':');
					sb_put(b, x.p, x.n);
				}
				sb_putc(b, '@');
			}
			if (u->host.n) {
				ustr h = escape(e, u->host, ENC_HOST);

				sb_put(b, h.p, h.n);
			}
		}
		path = escaped(e, u->raw_path, u->path, ENC_PATH);
		if (path.n && path.p[0] != '/' && u->host.n)
			sb_putc(b, '/');
		if (!b->n) {
			/* a first segment with a colon would read as a scheme */
			const char *slash = memchr(path.p, '/', path.n);

			if (has_byte(us(path.p, slash ? (size_t)(slash - path.p) : path.n), ':'))
				sb_puts(b, "./");
		}
		sb_put(b, path.p, path.n);
	}
	if (u->force_query || u->raw_query.n) {
		sb_putc(b, '?');
		sb_put(b, u->raw_query.p, u->raw_query.n);
	}
	if (u->frag.n) {
		ustr f = escaped(e, u->raw_frag, u->frag, ENC_FRAGMENT);

		sb_putc(b, '#');
		sb_put(b, f.p, f.n);
	}
}

/* Orders URLs by their String() (only == asks: 0 is equal). */
static int url_cmp(const cel_opaque *a, const cel_opaque *b)
{
	size_t m = a->len < b->len ? a->len : b->len;
	int c = m ? memcmp(a->text, b->text, m) : 0;

	if (!c)
		c = a->len < b->len ? -1 : a->len > b->len;
	return c < 0 ? -1 : c > 0;
}

static bool utf8_ok(ustr s);
static cel_val not_utf8(void);

typedef struct qpair {
	ustr k, v;
	uint32_t at; /* its place in the query, to keep the values' order */
} qpair;

static int qpair_cmp(const void *x, const void *y)
{
	const qpair *a = x, *b = y;
	size_t m = a->k.n < b->k.n ? a->k.n : b->k.n;
	int c = m ? memcmp(a->k.p, b->k.p, m) : 0;

	if (c)
		return c;
	if (a->k.n != b->k.n)
		return a->k.n < b->k.n ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

static cel_val oom(cel_eval *e)
{
	e->oom = true;
	return cel_error("out of memory");
}

/* URL.Query(): ParseQuery of the raw query, whose bad pairs (a ';', a bad
 * escape) are dropped; a map from each key to its values in order. */
static cel_val query(cel_eval *e, ustr q)
{
	size_t cap = 1, n = 0, nk = 0;
	qpair *pairs;
	cel_agg *m;
	cel_val *keys, *items, v;

	for (size_t i = 0; i < q.n; i++)
		cap += q.p[i] == '&';
	pairs = smp_arena_alloc(&e->arena, cap * sizeof(*pairs));
	if (!pairs)
		return oom(e);
	for (size_t i = 0; q.n && i <= q.n;) {
		const char *amp = memchr(q.p + i, '&', q.n - i);
		size_t end = amp ? (size_t)(amp - q.p) : q.n;
		ustr kv = us(q.p + i, end - i), k, val;
		const char *eq;

		i = end + 1;
		if (!kv.n || has_byte(kv, ';'))
			continue;
		eq = memchr(kv.p, '=', kv.n);
		k = eq ? us(kv.p, (size_t)(eq - kv.p)) : kv;
		val = eq ? us(eq + 1, (size_t)(kv.p + kv.n - eq - 1)) : us("", 0);
		if (!unescape(e, k, ENC_QUERY, &k, NULL) || !unescape(e, val, ENC_QUERY, &val, NULL))
			continue;
		if (!utf8_ok(k) || !utf8_ok(val))
			return not_utf8();
		pairs[n].k = k;
		pairs[n].v = val;
		pairs[n].at = (uint32_t)n;
		n++;
	}
	if (e->oom)
		return oom(e);
	qsort(pairs, n, sizeof(*pairs), qpair_cmp);
	for (size_t i = 0; i < n; i++)
		nk += i == 0 || !us_eq(pairs[i].k, pairs[i - 1].k);
	m = smp_arena_alloc(&e->arena, sizeof(*m));
	keys = smp_arena_alloc(&e->arena, (nk ? nk : 1) * sizeof(*keys));
	items = smp_arena_alloc(&e->arena, (nk ? nk : 1) * sizeof(*items));
	if (!m || !keys || !items)
		return oom(e);
	memset(m, 0, sizeof(*m));
	for (size_t i = 0, k = 0; i < n; k++) {
		size_t j = i;
		cel_val *vals;

		while (j < n && us_eq(pairs[j].k, pairs[i].k))
			j++;
		vals = smp_arena_alloc(&e->arena, (j - i) * sizeof(*vals));
		if (!vals)
			return oom(e);
		for (size_t x = i; x < j; x++)
			vals[x - i] = cel_str(pairs[x].v.p, pairs[x].v.n);
		keys[k] = cel_str(pairs[i].k.p, pairs[i].k.n);
		items[k] = cel__list(e, vals, (uint32_t)(j - i));
		if (e->oom)
			return oom(e);
		i = j;
	}
	m->keys = keys;
	m->items = items;
	m->n = (uint32_t)nk;
	v.kind = CEL_MAP;
	v.u.agg = m;
	return v;
}

/* Whether s is UTF-8. Decoded escapes can make a host, a query key or
 * value that is not (%ff); Go keeps such bytes, but cel/'s string
 * functions count and index runes of UTF-8 only, so these give an error
 * (never an answer that could differ from Go's). */
static bool utf8_ok(ustr s)
{
	for (size_t i = 0; i < s.n;) {
		uint32_t cp;
		size_t k = (unsigned char)s.p[i] < 0x80
		               ? 1
		               : smp_utf8_decode((const unsigned char *)s.p + i, s.n - i, &cp);

		if (!k)
			return false;
		i += k;
	}
	return true;
}

static cel_val not_utf8(void)
{
	return cel_error("unsupported: a URL component that is not UTF-8 once unescaped");
}

static cel_val str_val(ustr s)
{
	return utf8_ok(s) ? cel_str(s.n ? s.p : "", s.n) : not_utf8();
}

/* Go's utf8.RuneCountInString: a byte that is not UTF-8 counts as one. */
static uint64_t rune_count(ustr s)
{
	uint64_t r = 0;

	for (size_t i = 0; i < s.n; r++) {
		uint32_t cp;
		size_t k = (unsigned char)s.p[i] < 0x80
		               ? 1
		               : smp_utf8_decode((const unsigned char *)s.p + i, s.n - i, &cp);

		i += k ? k : 1;
	}
	return r;
}

/* url(s): ParseRequestURI must accept s; the value is Parse's. */
static cel_val to_url(cel_eval *e, ustr s)
{
	static const char pre[] = "URL parse error during conversion from string: parse ";
	/* Kubernetes' cost: ceil(0.1 per rune) (in Go's floating point) in
	 * place of the call's 1 */
	uint64_t c = cel_traversal_cost(rune_count(s));
	url_val chk, *u;
	ustr named = s;
	sb err, text;
	cel_val v;

	if (c > 1 && !cel__charge(e, c - 1))
		return cel_error("operation cancelled: actual cost limit exceeded");
	sb_init(&err, e);
	u = smp_arena_alloc(&e->arena, sizeof(*u));
	if (!u)
		return oom(e);
	if (parse(e, s, true, &chk, &err) && parse_ref(e, s, u, &err, &named)) {
		sb_init(&text, e);
		url_string(e, &text, u);
		if (e->oom)
			return oom(e);
		u->o.type = url_type;
		u->o.text = sb_str(&text).p;
		u->o.len = text.n;
		u->o.cmp = url_cmp;
		v.kind = CEL_OPAQUE;
		v.u.obj = &u->o;
		return v;
	}
	if (e->oom)
		return oom(e);
	/* Go's &url.Error{"parse", named, err}, after the library's words */
	ustr msg = sb_str(&err);
	sb full;

	sb_init(&full, e);
	sb_puts(&full, pre);
	quote(&full, named);
	sb_puts(&full, ": ");
	sb_put(&full, msg.p, msg.n);
	if (e->oom)
		return oom(e);
	v.kind = CEL_ERROR;
	v.u.s.p = full.p;
	v.u.s.n = full.n;
	return v;
}

bool cel_url_request_uri(cel_eval *e, const char *s, size_t n, const char **msg, size_t *mlen)
{
	ustr raw = us(n ? s : "", n);
	url_val u;
	sb err, full;

	sb_init(&err, e);
	if (parse(e, raw, true, &u, &err))
		return true;
	/* &url.Error{"parse", s, err}.Error() */
	sb_init(&full, e);
	sb_puts(&full, "parse ");
	quote(&full, raw);
	sb_puts(&full, ": ");
	sb_put(&full, sb_str(&err).p, err.n);
	*msg = e->oom ? "out of memory" : full.p;
	*mlen = e->oom ? 13 : full.n;
	return false;
}

cel_val cel__url_call(cel_eval *e, const char *name, const cel_val *r, const cel_val *a,
                      uint32_t n, bool *found)
{
	*found = true;
	if (!r && n == 1 && a[0].kind == CEL_STRING) {
		ustr s = us(a[0].u.s.n ? a[0].u.s.p : "", a[0].u.s.n);

		if (!strcmp(name, "url"))
			return to_url(e, s);
		if (!strcmp(name, "isURL")) {
			url_val u;
			bool ok = parse(e, s, true, &u, NULL);

			return e->oom ? oom(e) : cel_bool(ok);
		}
	}
	if (r && r->kind == CEL_OPAQUE && r->u.obj->type == url_type && n == 0) {
		const url_val *u = (const url_val *)(const void *)r->u.obj;
		ustr host, port;

		split_host_port(u->host, &host, &port);
		if (!strcmp(name, "getScheme"))
			return str_val(u->scheme);
		if (!strcmp(name, "getHost"))
			return str_val(u->host);
		if (!strcmp(name, "getHostname"))
			return str_val(host);
		if (!strcmp(name, "getPort"))
			return str_val(port);
		if (!strcmp(name, "getEscapedPath")) {
			ustr p = escaped(e, u->raw_path, u->path, ENC_PATH);

			return e->oom ? oom(e) : str_val(p);
		}
		if (!strcmp(name, "getQuery"))
			return query(e, u->raw_query);
	}
	*found = false;
	return cel_null();
}
