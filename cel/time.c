/*
 * time.c - CEL's timestamps and durations as cel-go has them:
 * timestamp() reads RFC 3339 (years 1 to 9999), duration() Go's
 * time.ParseDuration ("1h30m", "1.5s", within Go's ±292 years), string()
 * writes RFC 3339 with nanoseconds and seconds ("1.5s"); the arithmetic
 * with its range errors, and the get* accessors in UTC or a fixed offset
 * ("+05:30"). Zone names other than UTC need a time zone database and give
 * an error here. Also base64 text as bytes (a string with format byte).
 */
#include "cel/eval_int.h"
#include "codec/codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nanosecond arithmetic without overflow (gcc and clang) */
__extension__ typedef __int128 wide;

#define MIN_TS_SEC (-62135596800LL) /* 0001-01-01T00:00:00Z */
#define MAX_TS_SEC 253402300799LL   /* 9999-12-31T23:59:59Z */
#define MAX_DUR_NS 9223372036854775807LL

/* Days since 1970-01-01 of a civil date (Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	const int64_t era = (y >= 0 ? y : y - 399) / 400;
	const unsigned yoe = (unsigned)(y - era * 400);
	const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	const unsigned doe = (unsigned)(z - era * 146097);
	const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	const unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static bool digits(const char *p, size_t n, int *out)
{
	int v = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (p[i] - '0');
	}
	*out = v;
	return true;
}

cel_val cel__timestamp(int64_t sec, int32_t nsec)
{
	cel_val v;

	v.kind = CEL_TIMESTAMP;
	v.u.t.sec = sec;
	v.u.t.nsec = nsec;
	if (sec < MIN_TS_SEC || sec > MAX_TS_SEC)
		return cel_error("timestamp out of range");
	return v;
}


static cel_val dur(int64_t sec, int32_t nsec)
{
	cel_val v;

	v.kind = CEL_DURATION;
	v.u.t.sec = sec;
	v.u.t.nsec = nsec;
	/* Go's time.Duration: int64 nanoseconds */
	if (sec > MAX_DUR_NS / 1000000000 || sec < -(MAX_DUR_NS / 1000000000) ||
	    (sec == MAX_DUR_NS / 1000000000 && nsec > (int32_t)(MAX_DUR_NS % 1000000000)) ||
	    (sec == -(MAX_DUR_NS / 1000000000) && nsec < -(int32_t)(MAX_DUR_NS % 1000000000) - 1))
		return cel_error("duration out of range");
	return v;
}

cel_val cel__timestamp_parse(const cel_val *s)
{
	const char *p = s->u.s.p;
	size_t n = s->u.s.n, i = 19;
	int y, mo, d, h, mi, se, oh = 0, om = 0;
	int32_t ns = 0;
	int64_t sec;
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (n < 20 || p[4] != '-' || p[7] != '-' || (p[10] != 'T' && p[10] != 't') ||
	    p[13] != ':' || p[16] != ':' || !digits(p, 4, &y) || !digits(p + 5, 2, &mo) ||
	    !digits(p + 8, 2, &d) || !digits(p + 11, 2, &h) || !digits(p + 14, 2, &mi) ||
	    !digits(p + 17, 2, &se))
		return cel_error("invalid timestamp");
	if (p[i] == '.') {
		int k = 0;

		i++;
		while (i < n && p[i] >= '0' && p[i] <= '9') {
			if (k < 9) {
				ns = ns * 10 + (p[i] - '0');
				k++;
			}
			i++;
		}
		if (!k)
			return cel_error("invalid timestamp");
		while (k++ < 9)
			ns *= 10;
	}
	if (i < n && (p[i] == 'Z' || p[i] == 'z') && i + 1 == n) {
		/* UTC */
	} else if (i + 6 == n && (p[i] == '+' || p[i] == '-') && p[i + 3] == ':' &&
	           digits(p + i + 1, 2, &oh) && digits(p + i + 4, 2, &om) && oh < 24 && om < 60) {
		if (p[i] == '-') {
			oh = -oh;
			om = -om;
		}
	} else {
		return cel_error("invalid timestamp");
	}
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 59 ||
	    y < 1)
		return cel_error("invalid timestamp");
	if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return cel_error("invalid timestamp");
	sec = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se;
	sec -= oh * 3600 + om * 60;
	return cel__timestamp(sec, ns);
}

/* time.ParseDuration. */
cel_val cel__duration_parse(const cel_val *s)
{
	static const struct {
		const char *u;
		double ns;
	} units[] = {
		{"ns", 1}, {"us", 1e3}, {"\xc2\xb5s", 1e3}, {"\xce\xbcs", 1e3}, {"ms", 1e6},
		{"s", 1e9}, {"m", 60e9}, {"h", 3600e9},
	};
	const char *p = s->u.s.p, *end = p + s->u.s.n;
	bool neg = false;
	wide total = 0;

	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (end - p == 1 && *p == '0')
		return dur(0, 0);
	if (p == end)
		return cel_error("invalid duration");
	while (p < end) {
		wide whole = 0;
		double frac = 0, scale = 1;
		bool any = false;
		size_t best = 0, ul;
		double mult = 0;

		while (p < end && *p >= '0' && *p <= '9') {
			whole = whole * 10 + (*p++ - '0');
			if (whole > ((wide)1 << 63))
				return cel_error("invalid duration");
			any = true;
		}
		if (p < end && *p == '.') {
			p++;
			while (p < end && *p >= '0' && *p <= '9') {
				scale /= 10;
				frac += (*p++ - '0') * scale;
				any = true;
			}
		}
		if (!any)
			return cel_error("invalid duration");
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			ul = strlen(units[i].u);
			if ((size_t)(end - p) >= ul && !memcmp(p, units[i].u, ul) && ul > best) {
				/* "m" must not take "ms" */
				best = ul;
				mult = units[i].ns;
			}
		}
		if (!best)
			return cel_error("invalid duration");
		p += best;
		total += whole * (wide)mult + (wide)(frac * mult);
		if (total > (wide)MAX_DUR_NS + 1)
			return cel_error("invalid duration");
	}
	if (neg)
		total = -total;
	if (total > MAX_DUR_NS || total < -(wide)MAX_DUR_NS - 1)
		return cel_error("invalid duration");
	return dur((int64_t)(total / 1000000000), (int32_t)(total % 1000000000));
}

static wide dur_ns(const cel_val *d)
{
	return (wide)d->u.t.sec * 1000000000 + d->u.t.nsec;
}

cel_val cel__time_add(cel_eval *e, const cel_val *a, const cel_val *b, int sign)
{
	if (a->kind == CEL_TIMESTAMP && b->kind == CEL_TIMESTAMP && sign < 0) {
		wide d = ((wide)a->u.t.sec - b->u.t.sec) * 1000000000 +
		             (a->u.t.nsec - b->u.t.nsec);

		if (d > MAX_DUR_NS || d < -(wide)MAX_DUR_NS - 1)
			return cel_error("duration out of range");
		return dur((int64_t)(d / 1000000000), (int32_t)(d % 1000000000));
	}
	if (b->kind == CEL_DURATION && (a->kind == CEL_TIMESTAMP || a->kind == CEL_DURATION)) {
		wide d = dur_ns(b) * sign;

		if (a->kind == CEL_DURATION) {
			wide r = dur_ns(a) + d;

			if (r > MAX_DUR_NS || r < -(wide)MAX_DUR_NS - 1)
				return cel_error("integer overflow");
			return dur((int64_t)(r / 1000000000), (int32_t)(r % 1000000000));
		}
		wide t = (wide)a->u.t.sec * 1000000000 + a->u.t.nsec + d;
		int64_t sec = (int64_t)(t / 1000000000);
		int32_t ns = (int32_t)(t % 1000000000);

		if (ns < 0) {
			ns += 1000000000;
			sec--;
		}
		return cel__timestamp(sec, ns);
	}
	if (a->kind == CEL_DURATION && b->kind == CEL_TIMESTAMP && sign > 0)
		return cel__time_add(e, b, a, 1);
	return cel__no_overload(e, sign > 0 ? "_+_" : "_-_");
}

cel_val cel__time_string(cel_eval *e, const cel_val *v)
{
	char buf[64];
	size_t n;

	if (v->kind == CEL_TIMESTAMP) {
		int64_t days = v->u.t.sec / 86400, rem = v->u.t.sec % 86400, y;
		unsigned m, d;

		if (rem < 0) {
			rem += 86400;
			days--;
		}
		civil_from_days(days, &y, &m, &d);
		n = (size_t)snprintf(buf, sizeof(buf), "%04lld-%02u-%02uT%02d:%02d:%02d", (long long)y,
		                     m, d, (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60));
		if (v->u.t.nsec) {
			char f[16];
			int k = snprintf(f, sizeof(f), "%09d", (int)v->u.t.nsec);

			while (k > 0 && f[k - 1] == '0')
				k--;
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, ".%.*s", k, f);
		}
		buf[n++] = 'Z';
		return cel__str_copy(e, buf, n, CEL_STRING);
	}
	/* duration: strconv.FormatFloat(seconds, 'f', -1, 64) + "s" */
	{
		wide ns = dur_ns(v);
		bool neg = ns < 0;
		unsigned long long a = (unsigned long long)(neg ? -ns : ns);
		char f[16];
		int k;

		n = (size_t)snprintf(buf, sizeof(buf), "%s%llu", neg ? "-" : "", a / 1000000000ULL);
		k = snprintf(f, sizeof(f), "%09llu", a % 1000000000ULL);
		while (k > 0 && f[k - 1] == '0')
			k--;
		if (k)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, ".%.*s", k, f);
		buf[n++] = 's';
		return cel__str_copy(e, buf, n, CEL_STRING);
	}
}

static int64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return n == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

/* The UTC offset of zone `name` at `t` from the system's TZif files
 * (/usr/share/zoneinfo, as Go's time.LoadLocation reads them): the last
 * transition at or before t, else the first standard type. false when
 * the zone is unknown. */
static bool tzif_offset(const char *name, size_t n, int64_t t, int64_t *off)
{
	char path[256];
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, rd;
	FILE *f;
	bool ok = false;

	if (n == 0 || n > 200 || name[0] == '/' || memchr(name, '\0', n))
		return false;
	for (size_t i = 0; i + 1 < n; i++)
		if (name[i] == '.' && name[i + 1] == '.')
			return false;
	snprintf(path, sizeof(path), "/usr/share/zoneinfo/%.*s", (int)n, name);
	if (!(f = fopen(path, "rb")))
		return false;
	do {
		if (len == cap) {
			unsigned char *nb = realloc(buf, cap ? 2 * cap : 4096);

			if (!nb || cap > (1u << 22))
				goto out;
			buf = nb;
			cap = cap ? 2 * cap : 4096;
		}
		rd = fread(buf + len, 1, cap - len, f);
		len += rd;
	} while (rd);
	for (int pass = 0, at = 0; pass < 2; pass++) {
		int sz = pass ? 8 : 4;
		int64_t isutc, isstd, leap, timecnt, typecnt, charcnt;
		const unsigned char *h = buf + at, *tr, *idx, *types;

		if ((size_t)at + 44 > len || memcmp(h, "TZif", 4))
			goto out;
		isutc = be(h + 20, 4);
		isstd = be(h + 24, 4);
		leap = be(h + 28, 4);
		timecnt = be(h + 32, 4);
		typecnt = be(h + 36, 4);
		charcnt = be(h + 40, 4);
		size_t body = (size_t)(timecnt * sz + timecnt + typecnt * 6 + charcnt +
		                       leap * (sz + 4) + isstd + isutc);

		if (pass == 0 && h[4] >= '2') {
			at += 44 + (int)body;
			continue; /* the 64-bit block follows */
		}
		if ((size_t)at + 44 + body > len || typecnt < 1)
			goto out;
		tr = h + 44;
		idx = tr + timecnt * sz;
		types = idx + timecnt;
		int64_t ty = -1;

		for (int64_t i = 0; i < timecnt; i++)
			if (be(tr + i * sz, sz) <= t)
				ty = idx[i];
		if (ty < 0) {
			ty = 0;
			for (int64_t i = 0; i < typecnt; i++)
				if (!types[i * 6 + 4]) {
					ty = i;
					break;
				}
		}
		if (ty >= typecnt)
			goto out;
		*off = be(types + ty * 6, 4);
		ok = true;
		break;
	}
out:
	fclose(f);
	free(buf);
	return ok;
}

/* A zone argument as cel-go's timeZone reads it: "UTC", an offset
 * "[+-]HH:MM" (the sign optional), or a zone name; false when unknown. */
static bool zone_offset(const cel_val *z, int64_t t, int64_t *off)
{
	int h, m;
	const char *p = z->u.s.p;
	size_t n = z->u.s.n, s = 0;

	*off = 0;
	if ((n == 3 && !memcmp(p, "UTC", 3)) || n == 0)
		return true;
	if (memchr(p, ':', n)) {
		if (p[0] == '+' || p[0] == '-')
			s = 1;
		if (n - s != 5 || p[s + 2] != ':' || !digits(p + s, 2, &h) || !digits(p + s + 3, 2, &m))
			return false;
		*off = (h * 3600 + m * 60) * (p[0] == '-' ? -1 : 1);
		return true;
	}
	return tzif_offset(p, n, t, off);
}

cel_val cel__time_call(cel_eval *e, const char *name, const cel_val *recv, const cel_val *args,
                       uint32_t nargs, bool *found)
{
	*found = true;
	if (recv->kind == CEL_DURATION && nargs == 0) {
		wide ns = dur_ns(recv);

		if (!strcmp(name, "getHours"))
			return cel_int((int64_t)(ns / 3600000000000LL));
		if (!strcmp(name, "getMinutes"))
			return cel_int((int64_t)(ns / 60000000000LL));
		if (!strcmp(name, "getSeconds"))
			return cel_int((int64_t)(ns / 1000000000));
		if (!strcmp(name, "getMilliseconds"))
			return cel_int((int64_t)(ns / 1000000 % 1000));
	}
	if (recv->kind == CEL_TIMESTAMP && nargs <= 1) {
		int64_t off = 0, s, days, rem, y;
		unsigned m, d;

		if (nargs == 1) {
			if (args[0].kind != CEL_STRING)
				return cel__no_overload(e, name);
			if (!zone_offset(&args[0], recv->u.t.sec, &off))
				return cel__errorf(e, "unknown time zone %.*s", (int)args[0].u.s.n,
				                   args[0].u.s.p);
		}
		s = recv->u.t.sec + off;
		days = s / 86400;
		rem = s % 86400;
		if (rem < 0) {
			rem += 86400;
			days--;
		}
		civil_from_days(days, &y, &m, &d);
		if (!strcmp(name, "getFullYear"))
			return cel_int(y);
		if (!strcmp(name, "getMonth"))
			return cel_int((int64_t)m - 1);
		if (!strcmp(name, "getDate"))
			return cel_int(d);
		if (!strcmp(name, "getDayOfMonth"))
			return cel_int((int64_t)d - 1);
		if (!strcmp(name, "getDayOfYear"))
			return cel_int(days - days_from_civil(y, 1, 1));
		if (!strcmp(name, "getDayOfWeek"))
			return cel_int(((days % 7) + 11) % 7); /* 1970-01-01 was a Thursday */
		if (!strcmp(name, "getHours"))
			return cel_int(rem / 3600);
		if (!strcmp(name, "getMinutes"))
			return cel_int(rem / 60 % 60);
		if (!strcmp(name, "getSeconds"))
			return cel_int(rem % 60);
		if (!strcmp(name, "getMilliseconds"))
			return cel_int(recv->u.t.nsec / 1000000);
	}
	*found = false;
	return cel_null();
}

cel_val cel__base64_bytes(cel_eval *e, const char *p, size_t n)
{
	char *out = smp_arena_alloc(&e->arena, n + 1);
	size_t len = 0;
	cel_val v;

	if (!out) {
		e->oom = true;
		return cel_error("out of memory");
	}
	if (smp_base64_decode(out, &len, p, n) != 0)
		return cel_error("illegal base64 data");
	v.kind = CEL_BYTES;
	v.u.s.p = out;
	v.u.s.n = len;
	return v;
}
