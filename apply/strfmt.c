/*
 * strfmt.c - the string formats of kube-openapi's strfmt.Default registry
 * that apiextensions keeps for CRD schemas (its supportedFormats), checked
 * as their validators check them (kube-openapi strfmt, govalidator, Go's
 * time.Parse); the CRD schema validator (check_crd.c) and the CEL format
 * library (cel_libs.c) share them.
 */
#include "apply/apply_int.h"
#include "cel/cel.h"
#include "codec/codec.h"

#include <string.h>

static bool hex(char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* strfmt's UUID patterns: (?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?V[0-9a-f]{3}-?
 * W[0-9a-f]{3}-?[0-9a-f]{12}$, where V is any hex digit or the version
 * (3, 4, 5), and W any hex digit or, for versions 4 and 5, [89ab]. */
static bool is_uuid(const char *s, size_t n, char version)
{
	static const int groups[] = {8, 4, 4, 4, 12};
	size_t i = 0;

	for (int g = 0; g < 5; g++) {
		if (g && i < n && s[i] == '-')
			i++;
		for (int k = 0; k < groups[g]; k++, i++) {
			if (i >= n || !hex(s[i]))
				return false;
			if (k == 0 && g == 2 && version && s[i] != version)
				return false;
			if (k == 0 && g == 3 && version > '3' && !strchr("89abAB", s[i]))
				return false;
		}
	}
	return i == n;
}

/* govalidator's Base64 pattern: whole groups of 4 of [A-Za-z0-9+/], the
 * last "xx==", "xxx=" or "xxxx"; not empty. */
static bool is_base64(const char *s, size_t n)
{
	if (n == 0 || n % 4)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		          (c >= '0' && c <= '9') || c == '+' || c == '/';

		if (!ok && !(c == '=' && (i == n - 1 || (i == n - 2 && s[n - 1] == '='))))
			return false;
	}
	return true;
}

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* time.Parse("2006-01-02", s) succeeds (strfmt's IsDate). */
static bool is_date(const char *s, size_t n)
{
	int y, m, d;

	if (n != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4) || !digits(s + 5, 2) ||
	    !digits(s + 8, 2))
		return false;
	y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
	m = (s[5] - '0') * 10 + (s[6] - '0');
	d = (s[8] - '0') * 10 + (s[9] - '0');
	return m >= 1 && m <= 12 && d >= 1 && d <= smp__days_in(m, y);
}

/* The length of the UTF-8 sequence at s (Go's regexp reads one rune, an
 * invalid byte as U+FFFD). */
static size_t rune_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t k = smp_utf8_decode(s, n, &cp);

	return k ? k : 1;
}

/* strfmt's IsDateTime: the text before the first "t" (any case) a date,
 * the text between it and the next matching
 * ^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$
 * (lowered; `.` any rune but a newline) with hours <= 23, minutes and
 * seconds <= 59. */
static bool is_datetime(const char *s, size_t n)
{
	const char *t, *r, *end;
	size_t rn, tail;

	if (n < 4)
		return false;
	t = memchr(s, 't', n);
	const char *T = memchr(s, 'T', n);

	if (!t || (T && T < t))
		t = T;
	if (!t || !is_date(s, (size_t)(t - s)))
		return false;
	r = t + 1;
	end = s + n;
	for (const char *p = r; p < end; p++)
		if (*p == 't' || *p == 'T') {
			end = p;
			break;
		}
	rn = (size_t)(end - r);
	if (rn < 9 || !digits(r, 2) || r[2] != ':' || !digits(r + 3, 2) || r[5] != ':' ||
	    !digits(r + 6, 2))
		return false;
	if ((r[end - r - 1] | 0x20) == 'z') {
		tail = 1;
	} else {
		if (rn < 14)
			return false;
		const char *z = end - 6;

		if ((z[0] != '+' && z[0] != '-') || !digits(z + 1, 2) || z[3] != ':' ||
		    !digits(z + 4, 2))
			return false;
		tail = 6;
	}
	if (rn > 8 + tail) {
		/* (.[0-9]+): one rune, then digits up to the zone */
		size_t k;

		if (r[8] == '\n')
			return false;
		k = rune_len((const unsigned char *)r + 8, rn - 8 - tail);
		if (8 + k >= rn - tail || !digits(r + 8 + k, rn - tail - 8 - k))
			return false;
	}
	return memcmp(r, "23", 2) <= 0 && memcmp(r + 3, "59", 2) <= 0 &&
	       memcmp(r + 6, "59", 2) <= 0;
}

/* govalidator's Hexcolor: ^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$ */
static bool is_hexcolor(const char *s, size_t n)
{
	if (n && s[0] == '#') {
		s++;
		n--;
	}
	if (n != 3 && n != 6)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!hex(s[i]))
			return false;
	return true;
}

/* govalidator's IsSSN: 11 bytes of ^\d{3}[- ]?\d{2}[- ]?\d{4}$, so both
 * separators. */
static bool is_ssn(const char *s, size_t n)
{
	return n == 11 && digits(s, 3) && (s[3] == '-' || s[3] == ' ') && digits(s + 4, 2) &&
	       (s[6] == '-' || s[6] == ' ') && digits(s + 7, 4);
}

int smp__strfmt_check(const char *format, const char *s, size_t n)
{
	if (!strcmp(format, "password"))
		return 1;
	if (!strcmp(format, "uuid"))
		return is_uuid(s, n, 0);
	if (!strcmp(format, "uuid3") || !strcmp(format, "uuid4") || !strcmp(format, "uuid5"))
		return is_uuid(s, n, format[4]);
	if (!strcmp(format, "byte"))
		return is_base64(s, n);
	if (!strcmp(format, "date"))
		return is_date(s, n);
	if (!strcmp(format, "datetime"))
		return is_datetime(s, n);
	if (!strcmp(format, "hexcolor"))
		return is_hexcolor(s, n);
	if (!strcmp(format, "ssn"))
		return is_ssn(s, n);
	if (!strcmp(format, "uri")) {
		/* govalidator.IsRequestURI: url.ParseRequestURI accepts it */
		cel_eval e;
		const char *m;
		size_t ml;
		int ok;

		cel_eval_init(&e, 0);
		ok = cel_url_request_uri(&e, s, n, &m, &ml);
		if (!ok && e.oom)
			ok = -2;
		cel_eval_release(&e);
		return ok;
	}
	return -1;
}
