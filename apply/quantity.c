/*
 * quantity.c - resource.Quantity as Kubernetes' apimachinery reads and
 * writes it (pkg/api/resource: quantity.go, amount.go, suffix.go).
 *
 * A quantity is kept as sign * digits * 10^exp with as many decimal digits
 * as the value needs, so nothing is lost above int64 and nothing is rounded
 * that the reference keeps. The string a quantity prints as is settled when
 * it is parsed: either the input itself (the reference keeps the text of an
 * int64-sized value it considers canonical, even "1.500k" or "+1"), or the
 * canonical form (factors of ten moved into a suffix whose exponent is a
 * multiple of three; BinarySI as a power of 1024 when that is exact).
 */
#include "apply_int.h"
#include "codec/codec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct smp_quantity {
	int sign;                   /* -1, 0, 1 */
	smp_quantity_format format; /* after parsing's own changes */
	int64_t exp;                /* value = sign * digits * 10^exp */
	size_t ndigits;             /* 0 for zero; no leading zeros */
	const char *digits;         /* '0'..'9', in this allocation */
	size_t slen;
	const char *str;            /* what the API server writes */
	bool int64_amount;          /* the reference holds it as int64 * 10^exp */
	int64_t go_exp;             /* the exponent of the reference's unscaled
	                             * value: int64Amount's scale, or minus the
	                             * inf.Dec's scale */
};

#define Q_ERR_FORMAT "quantities must match the regular expression " \
	"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define Q_ERR_NUMERIC "unable to parse numeric part of quantity"
#define Q_ERR_SUFFIX "unable to parse quantity's suffix"

/* Room kept before the digits for the carries of a multiplication. */
#define Q_HEAD 32

/* A digit string being worked on: p[0..n) with free room before p. */
typedef struct qdig {
	char *p;
	size_t n;
	char *base; /* start of the buffer (p - base is the head room) */
} qdig;

static int32_t wrap32(int64_t v)
{
	return (int32_t)(uint32_t)(uint64_t)v;
}

static void qd_strip_leading(qdig *d)
{
	while (d->n && d->p[0] == '0') {
		d->p++;
		d->n--;
	}
}

/* d *= f (f <= 2^30); the head room takes the new leading digits. */
static void qd_mul_small(qdig *d, uint32_t f)
{
	uint64_t carry = 0;

	for (size_t i = d->n; i-- > 0;) {
		uint64_t t = (uint64_t)(d->p[i] - '0') * f + carry;
		d->p[i] = (char)('0' + t % 10);
		carry = t / 10;
	}
	while (carry) {
		*--d->p = (char)('0' + carry % 10);
		d->n++;
		carry /= 10;
	}
}

/* d += 1 (d may be empty: it becomes "1"). */
static void qd_increment(qdig *d)
{
	size_t i = d->n;

	while (i > 0) {
		i--;
		if (d->p[i] != '9') {
			d->p[i]++;
			return;
		}
		d->p[i] = '0';
	}
	*--d->p = '1';
	d->n++;
}

/* Drops the last k digits (k <= n); true when one of them was not 0. */
static bool qd_drop(qdig *d, size_t k)
{
	bool lost = false;

	for (size_t i = d->n - k; i < d->n; i++)
		if (d->p[i] != '0')
			lost = true;
	d->n -= k;
	return lost;
}

/* Rounds |d| * 10^*exp away from zero to a multiple of 10^scale (the
 * reference's inf.RoundUp on a magnitude). Returns true when exact. */
static bool qd_round_up(qdig *d, int64_t *exp, int64_t scale)
{
	bool lost;

	if (*exp >= scale || d->n == 0)
		return true;
	/* Every digit sits below 10^scale when the gap is at least n. */
	if ((uint64_t)(scale - *exp) >= d->n) {
		lost = qd_drop(d, d->n);
	} else {
		lost = qd_drop(d, (size_t)(scale - *exp));
	}
	*exp = scale;
	if (lost)
		qd_increment(d);
	qd_strip_leading(d);
	return !lost;
}

/* Whether d * 10^exp is an integer. */
static bool qd_is_whole(const qdig *d, int64_t exp)
{
	if (exp >= 0)
		return true;
	size_t k = (uint64_t)-exp >= d->n ? d->n : (size_t)-exp;
	for (size_t i = d->n - k; i < d->n; i++)
		if (d->p[i] != '0')
			return false;
	return true;
}

/* Compares a * 10^ea with b * 10^eb (magnitudes, no leading zeros). */
int smp__mag_cmp(const char *a, size_t na, int64_t ea, const char *b, size_t nb,
                   int64_t eb)
{
	if (na == 0 || nb == 0)
		return (na != 0) - (nb != 0);
	/* Position of the leading digit decides first (int64: exponents are
	 * int32 and lengths far below 2^62). */
	int64_t la = (int64_t)na + ea, lb = (int64_t)nb + eb;
	if (la != lb)
		return la < lb ? -1 : 1;
	size_t n = na > nb ? na : nb;
	for (size_t i = 0; i < n; i++) {
		char ca = i < na ? a[i] : '0', cb = i < nb ? b[i] : '0';
		if (ca != cb)
			return ca < cb ? -1 : 1;
	}
	return 0;
}

/* Magnitude compared with a small integer written in digits. */
static int mag_cmp_int(const qdig *d, int64_t exp, const char *lit)
{
	return smp__mag_cmp(d->p, d->n, exp, lit, strlen(lit), 0);
}

/* The text of an exponent suffix "e<exp>". */
static size_t put_exp(char *out, int64_t exp)
{
	out[0] = 'e';
	return 1 + smp_format_int(out + 1, exp);
}

/* Writes the canonical form of sign * d * 10^exp in `format` to out (room:
 * d->n + 64 bytes; d is consumed). Returns the length. */
static size_t canonical(char *out, int sign, qdig *d, int64_t exp,
                        smp_quantity_format format)
{
	size_t len = 0;

	if (d->n == 0) {
		out[0] = '0';
		return 1;
	}
	if (format == SMP_QUANTITY_BINARY_SI) {
		if (mag_cmp_int(d, exp, "1024") < 0) {
			format = SMP_QUANTITY_DECIMAL_SI;
		} else if (!qd_is_whole(d, exp)) {
			/* Not an integer: shown as DecimalSI so nothing is lost. */
			format = SMP_QUANTITY_DECIMAL_SI;
		} else {
			qd_round_up(d, &exp, 0); /* exact: drops zeros */
			/* The integer d * 10^exp: written out, then divided by
			 * 1024 while that is exact (and the value >= 1024). */
			while (exp > 0) {
				d->p[d->n++] = '0';
				exp--;
			}
			int times = 0;
			for (;;) {
				char lit[] = "1024";
				if (smp__mag_cmp(d->p, d->n, 0, lit, 4, 0) < 0)
					break;
				uint32_t rem = 0;
				for (size_t i = 0; i < d->n; i++)
					rem = (rem * 10 + (uint32_t)(d->p[i] - '0')) % 1024;
				if (rem)
					break;
				/* Exact: divide in place. */
				uint32_t r = 0;
				for (size_t i = 0; i < d->n; i++) {
					uint32_t t = r * 10 + (uint32_t)(d->p[i] - '0');
					d->p[i] = (char)('0' + t / 1024);
					r = t % 1024;
				}
				qd_strip_leading(d);
				times++;
			}
			static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti",
			                                  "Pi", "Ei"};
			if (sign < 0)
				out[len++] = '-';
			memcpy(out + len, d->p, d->n);
			len += d->n;
			/* Above Ei the reference has no suffix and writes none. */
			if (times <= 6) {
				size_t sl = strlen(bin[times]);
				memcpy(out + len, bin[times], sl);
				len += sl;
			}
			return len;
		}
	}
	/* Factors of ten into the exponent, then the exponent down to a
	 * multiple of three. */
	while (d->n > 1 && d->p[d->n - 1] == '0') {
		d->n--;
		exp++;
	}
	while (exp % 3 != 0) {
		d->p[d->n++] = '0';
		exp--;
	}
	if (sign < 0)
		out[len++] = '-';
	memcpy(out + len, d->p, d->n);
	len += d->n;
	if (format == SMP_QUANTITY_DECIMAL_SI && exp >= -9 && exp <= 18) {
		static const char *const dec[] = {"n", "u", "m", "", "k", "M",
		                                  "G", "T", "P", "E"};
		const char *s = dec[(exp + 9) / 3];
		size_t sl = strlen(s);
		memcpy(out + len, s, sl);
		len += sl;
	} else if (exp != 0) {
		/* DecimalExponent, and DecimalSI beyond E (10^18), which the
		 * reference writes in exponent form rather than lose it. */
		len += put_exp(out + len, exp);
	}
	return len;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool in_suffix_set(char c)
{
	return c && strchr("eEinumkKMGTP", c) != NULL;
}

/* The pieces parseQuantityString finds. */
typedef struct qscan {
	bool positive;
	const char *num;   /* leading zeros stripped; "0" when none left */
	size_t nnum;
	const char *denom;
	size_t ndenom;
	size_t value_len;  /* str[0:value_len] is the numeric part */
	const char *suffix;
	size_t nsuffix;
} qscan;

/* resource.ParseQuantity's scanner: sign, digits, fraction, and the
 * suffix (binary, decimal SI or exponent); false when the text is not a
 * quantity. */
static bool scan(qscan *q, const char *s, size_t end)
{
	size_t pos = 0, i;

	memset(q, 0, sizeof(*q));
	q->positive = true;
	q->suffix = "";
	q->denom = "";
	if (pos < end && (s[0] == '-' || s[0] == '+')) {
		q->positive = s[0] != '-';
		pos++;
	}
	while (pos < end && s[pos] == '0')
		pos++;
	if (pos >= end) {
		q->num = "0";
		q->nnum = 1;
		return true;
	}
	for (i = pos; i < end && is_digit(s[i]); i++)
		;
	q->num = s + pos;
	q->nnum = i - pos;
	if (i >= end) {
		q->value_len = end;
		return true;
	}
	pos = i;
	if (q->nnum == 0) {
		q->num = "0";
		q->nnum = 1;
	}
	if (s[pos] == '.') {
		pos++;
		for (i = pos; i < end && is_digit(s[i]); i++)
			;
		q->denom = s + pos;
		q->ndenom = i - pos;
		if (i >= end) {
			q->value_len = end;
			return true;
		}
		pos = i;
	}
	q->value_len = pos;
	size_t start = pos;
	for (i = pos; i < end && in_suffix_set(s[i]); i++)
		;
	if (i >= end) {
		q->suffix = s + start;
		q->nsuffix = end - start;
		return true;
	}
	pos = i;
	if (s[pos] == '-' || s[pos] == '+')
		pos++;
	for (i = pos; i < end && is_digit(s[i]); i++)
		;
	if (i < end)
		return false;
	q->suffix = s + start;
	q->nsuffix = end - start;
	return true;
}

/* suffixer.interpret: base 10 or 2, the exponent and the format. */
static bool interpret(const char *s, size_t n, int *base, int32_t *exponent,
                      smp_quantity_format *format)
{
	static const struct {
		const char *s;
		int base, exp;
	} tab[] = {
		{"", 10, 0}, {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"k", 10, 3},
		{"M", 10, 6}, {"G", 10, 9}, {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18},
		{"Ki", 2, 10}, {"Mi", 2, 20}, {"Gi", 2, 30}, {"Ti", 2, 40},
		{"Pi", 2, 50}, {"Ei", 2, 60},
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (strlen(tab[i].s) == n && memcmp(tab[i].s, s, n) == 0) {
			*base = tab[i].base;
			*exponent = tab[i].exp;
			*format = tab[i].base == 2 ? SMP_QUANTITY_BINARY_SI
			                           : SMP_QUANTITY_DECIMAL_SI;
			return true;
		}
	}
	if (n > 1 && (s[0] == 'e' || s[0] == 'E')) {
		/* strconv.ParseInt(s[1:], 10, 64), then int32(). */
		size_t i = 1;
		bool neg = false;
		uint64_t v = 0;
		if (s[i] == '+' || s[i] == '-')
			neg = s[i++] == '-';
		if (i >= n)
			return false;
		for (; i < n; i++) {
			if (!is_digit(s[i]))
				return false;
			unsigned dg = (unsigned)(s[i] - '0');
			if (v > (UINT64_C(1) << 63) / 10 ||
			    v * 10 + dg > (UINT64_C(1) << 63) - (neg ? 0 : 1))
				return false;
			v = v * 10 + dg;
		}
		*base = 10;
		*exponent = wrap32(neg ? (int64_t)(0 - v) : (int64_t)v);
		*format = SMP_QUANTITY_DECIMAL_EXPONENT;
		return true;
	}
	return false;
}

static int q_fail(smp_error *err, const char *msg)
{
	return smp_err_set(err, SMP_EINVALOBJ, NULL, 0, 0, NULL, "%s", msg);
}

/* The result: one allocation holding the struct, the digits and the text. */
static int q_make(smp_quantity **out, int sign, const qdig *d, int64_t exp,
                  smp_quantity_format format, const char *str, size_t slen,
                  smp_error *err)
{
	smp_quantity *q = malloc(sizeof(*q) + d->n + slen + 2);
	char *p;

	if (!q)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	p = (char *)(q + 1);
	memcpy(p, d->p, d->n);
	p[d->n] = '\0';
	q->digits = p;
	q->ndigits = d->n;
	memcpy(p + d->n + 1, str, slen);
	p[d->n + 1 + slen] = '\0';
	q->str = p + d->n + 1;
	q->slen = slen;
	q->sign = d->n ? sign : 0;
	q->exp = d->n ? exp : 0;
	q->format = format;
	q->int64_amount = false;
	q->go_exp = q->exp;
	*out = q;
	return SMP_OK;
}

/* The parsed value with its canonical text, written at `text` (room: see
 * smp_quantity_parse); canonical() works on a copy of the digits. */
static int q_finish(smp_quantity **out, int sign, const qdig *d, int64_t exp,
                    smp_quantity_format format, char *text, smp_error *err)
{
	qdig c;
	size_t tl;

	c.base = text + d->n + 64;
	c.p = c.base + Q_HEAD;
	memcpy(c.p, d->p, d->n);
	c.n = d->n;
	tl = canonical(text, sign, &c, exp, format);
	return q_make(out, sign, d, exp, format, text, tl, err);
}

/* ParseQuantity. work has room for len + 2 * Q_HEAD + 64 bytes. */
static int q_parse(smp_quantity **out, const char *s, size_t len, char *work,
                   smp_error *err)
{
	qscan sc;
	int base;
	int32_t exponent;
	smp_quantity_format format;
	qdig d;
	int64_t exp, go_exp;
	int sign;

	d.base = work;
	d.p = work + Q_HEAD;
	d.n = 0;
	if (len == 0)
		return q_fail(err, Q_ERR_FORMAT);
	if (len == 1 && s[0] == '0') {
		int rc = q_make(out, 0, &d, 0, SMP_QUANTITY_DECIMAL_SI, "0", 1, err);

		if (rc == SMP_OK)
			(*out)->int64_amount = true;
		return rc;
	}
	if (!scan(&sc, s, len))
		return q_fail(err, Q_ERR_FORMAT);
	if (!interpret(sc.suffix, sc.nsuffix, &base, &exponent, &format))
		return q_fail(err, Q_ERR_SUFFIX);
	sign = sc.positive ? 1 : -1;

	/* The int64 fast path, where the reference may keep the input text. */
	{
		int32_t precision = 0, scale = 0;
		int64_t mantissa = 1;
		if (format != SMP_QUANTITY_BINARY_SI) {
			scale = exponent;
			precision = 18 - (int32_t)(sc.nnum + sc.ndenom);
		} else if (exponent >= 0 && sc.ndenom == 0) {
			mantissa = (int64_t)1 << exponent;
			precision = 15 - (int32_t)sc.nnum - exponent * 3 / 10 - 1;
		} else {
			precision = -1;
		}
		if (precision >= 0) {
			scale = wrap32((int64_t)scale - (int64_t)sc.ndenom);
			if (scale >= -9) {
				int64_t v = 0;
				for (size_t i = 0; i < sc.nnum; i++)
					v = v * 10 + (sc.num[i] - '0');
				for (size_t i = 0; i < sc.ndenom; i++)
					v = v * 10 + (sc.denom[i] - '0');
				if (v == 0 || v <= INT64_MAX / mantissa) {
					uint64_t r = (uint64_t)v * (uint64_t)mantissa;
					bool keep;
					char digs[24];
					size_t nd = 0;
					if (format == SMP_QUANTITY_BINARY_SI) {
						keep = exponent % 10 == 0 && (v & 7) != 0;
					} else {
						/* shifted = num + denom */
						char last3[3];
						size_t tot = sc.nnum + sc.ndenom, k;
						for (k = 0; k < 3 && k < tot; k++) {
							size_t at = tot - 1 - k;
							last3[k] = at < sc.nnum ? sc.num[at]
							                        : sc.denom[at - sc.nnum];
						}
						bool ends000 = tot >= 3 && last3[0] == '0' &&
						               last3[1] == '0' && last3[2] == '0';
						char first = sc.nnum ? sc.num[0] : sc.denom[0];
						keep = scale % 3 == 0 && !ends000 && first != '0';
					}
					while (r) {
						digs[nd++] = (char)('0' + r % 10);
						r /= 10;
					}
					for (size_t i = 0; i < nd; i++)
						d.p[i] = digs[nd - 1 - i];
					d.n = nd;
					exp = scale;
					int rc;
					if (keep)
						rc = q_make(out, sign, &d, exp, format, s, len, err);
					else
						rc = q_finish(out, sign, &d, exp, format,
						              work + len + 2 * Q_HEAD + 64, err);
					if (rc == SMP_OK) {
						(*out)->int64_amount = true;
						(*out)->go_exp = scale; /* a zero's too */
					}
					return rc;
				}
			}
		}
	}

	/* inf.Dec path: the numeric text, scaled by the suffix. */
	{
		const char *v = s;
		size_t vl = sc.value_len, i = 0;
		bool any = false;
		if (i < vl && (v[i] == '+' || v[i] == '-'))
			i++;
		for (; i < vl; i++) {
			if (is_digit(v[i])) {
				d.p[d.n++] = v[i];
				any = true;
			}
		}
		if (!any)
			return q_fail(err, Q_ERR_NUMERIC);
		qd_strip_leading(&d);
		if (base == 10) {
			/* inf.Dec scale (digits after the point) plus the
			 * suffix's, in int32 as the reference adds them. */
			int32_t infscale = wrap32((int64_t)sc.ndenom + wrap32(-(int64_t)exponent));
			exp = -(int64_t)infscale;
		} else {
			exp = -(int64_t)sc.ndenom;
			int32_t left = exponent;
			while (left > 0) {
				int32_t step = left > 30 ? 30 : left;
				qd_mul_small(&d, (uint32_t)1 << step);
				left -= step;
			}
			qd_strip_leading(&d);
		}
		/* Round a non-zero value away from zero to a whole nano (the
		 * inf.Dec then has scale 9; a zero keeps its own). */
		go_exp = d.n ? -9 : exp;
		if (d.n)
			qd_round_up(&d, &exp, -9);
		if (format == SMP_QUANTITY_BINARY_SI &&
		    mag_cmp_int(&d, exp, "9223372036854775807") > 0) {
			static const char max[] = "9223372036854775807";
			memcpy(d.p, max, sizeof(max) - 1);
			d.n = sizeof(max) - 1;
			exp = 0;
			go_exp = 0;
		}
		if (format == SMP_QUANTITY_BINARY_SI && d.n &&
		    mag_cmp_int(&d, exp, "1") < 0)
			format = SMP_QUANTITY_DECIMAL_SI;
	}

	int rc = q_finish(out, sign, &d, exp, format, work + len + 2 * Q_HEAD + 64, err);

	if (rc == SMP_OK)
		(*out)->go_exp = go_exp;
	return rc;
}

int smp_quantity_parse(smp_quantity **out, const char *text, size_t len,
                       smp_error *err)
{
	char *work;
	int rc;

	if (out)
		*out = NULL;
	if (!out || (!text && len))
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "smp_quantity_parse: NULL argument");
	if (!text)
		text = "";
	/* Room: the parse digits (len + heads), then the canonical text and
	 * the copy canonical() works on (each len + heads + 64). */
	work = malloc(3 * (len + 2 * Q_HEAD + 64) + 64);
	if (!work)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	rc = q_parse(out, text, len, work, err);
	free(work);
	return rc;
}

/* Length of the Unicode white space (Go's unicode.IsSpace) at s, 0 if none. */
static const char *ws_prefix_len(const char *s, const char *end, size_t *n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t avail = (size_t)(end - s);

	*n = 0;
	if (avail == 0)
		return s;
	if (u[0] == ' ' || (u[0] >= '\t' && u[0] <= '\r'))
		*n = 1;
	else if (avail >= 2 && u[0] == 0xC2 && (u[1] == 0x85 || u[1] == 0xA0))
		*n = 2;
	else if (avail >= 3 && u[0] == 0xE1 && u[1] == 0x9A && u[2] == 0x80)
		*n = 3; /* U+1680 */
	else if (avail >= 3 && u[0] == 0xE2 && u[1] == 0x80 &&
	         (u[2] <= 0x8A || u[2] == 0xA8 || u[2] == 0xA9 || u[2] == 0xAF))
		*n = 3; /* U+2000-200A, 2028, 2029, 202F */
	else if (avail >= 3 && u[0] == 0xE2 && u[1] == 0x81 && u[2] == 0x9F)
		*n = 3; /* U+205F */
	else if (avail >= 3 && u[0] == 0xE3 && u[1] == 0x80 && u[2] == 0x80)
		*n = 3; /* U+3000 */
	return s + *n;
}

/* Length of the white space that ends [s, end). */
static size_t ws_suffix_len(const char *s, const char *end)
{
	/* Try each width ending at `end`: 1, 2, 3 bytes. */
	for (size_t w = 1; w <= 3 && (size_t)(end - s) >= w; w++) {
		size_t n;
		ws_prefix_len(end - w, end, &n);
		if (n == w)
			return w;
	}
	return 0;
}

int smp_quantity_from_value(smp_quantity **out, const smp_value *v, const char *path,
                            smp_error *err)
{
	char buf[40];
	const char *s;
	size_t n;
	int rc;

	if (out)
		*out = NULL;
	if (!out)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "smp_quantity_from_value: NULL argument");
	switch (smp_value_type(v)) {
	case SMP_NULL:
		/* UnmarshalJSON reads null as the zero quantity. */
		s = "0";
		n = 1;
		break;
	case SMP_INT:
		n = smp_format_int(buf, smp_value_int(v));
		s = buf;
		break;
	case SMP_FLOAT:
		/* The JSON text the API server decodes: Go's float format. */
		n = smp_format_float(buf, smp_value_float(v));
		s = buf;
		break;
	case SMP_STRING: {
		/* The quotes come off, then strings.TrimSpace. */
		const char *end;
		size_t w;
		s = smp_value_string(v, &n);
		end = s + n;
		while (s < end && (ws_prefix_len(s, end, &w), w))
			s += w;
		while (end > s && (w = ws_suffix_len(s, end)) != 0)
			end -= w;
		n = (size_t)(end - s);
		break;
	}
	default:
		/* A boolean, map or list reaches ParseQuantity as its JSON text,
		 * which never has the quantity's form. */
		s = "{";
		n = 1;
		break;
	}
	rc = smp_quantity_parse(out, s, n, err);
	if (rc && err) {
		err->line = smp_value_line(v);
		err->column = smp_value_column(v);
		if (path)
			snprintf(err->path, sizeof(err->path), "%s", path);
	}
	return rc;
}

int smp_quantity_round_up(smp_quantity **out, const smp_quantity *q, int scale,
                          smp_error *err)
{
	char *work;
	qdig d;
	int64_t exp;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !q)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "smp_quantity_round_up: NULL argument");
	work = malloc(2 * (q->ndigits + q->slen + 2 * Q_HEAD + 64) + 64);
	if (!work)
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	d.base = work;
	d.p = work + Q_HEAD;
	memcpy(d.p, q->digits, q->ndigits);
	d.n = q->ndigits;
	exp = q->exp;
	if (q->sign == 0 || exp >= scale) {
		/* Nothing to round: an int64 amount keeps even its text. */
		rc = q_make(out, q->sign, &d, exp, q->format, q->str, q->slen, err);
		if (rc == SMP_OK) {
			(*out)->int64_amount = q->int64_amount;
			(*out)->go_exp = q->go_exp;
		}
	} else {
		qd_round_up(&d, &exp, scale);
		rc = q_finish(out, q->sign, &d, exp, q->format,
		              work + q->ndigits + q->slen + 2 * Q_HEAD + 64, err);
		if (rc == SMP_OK) {
			/* RoundUp: the int64Amount or the inf.Dec at the scale */
			(*out)->int64_amount = q->int64_amount;
			(*out)->go_exp = scale;
		}
	}
	free(work);
	return rc;
}

void smp_quantity_free(smp_quantity *q)
{
	free(q);
}

const char *smp_quantity_string(const smp_quantity *q, size_t *len)
{
	if (!q) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = q->slen;
	return q->str;
}

smp_quantity_format smp_quantity_format_of(const smp_quantity *q)
{
	return q ? q->format : SMP_QUANTITY_DECIMAL_SI;
}

int smp_quantity_sign(const smp_quantity *q)
{
	return q ? q->sign : 0;
}

int smp_quantity_cmp(const smp_quantity *a, const smp_quantity *b)
{
	int sa = smp_quantity_sign(a), sb = smp_quantity_sign(b), c;

	if (sa != sb)
		return sa < sb ? -1 : 1;
	if (sa == 0)
		return 0;
	c = smp__mag_cmp(a->digits, a->ndigits, a->exp, b->digits, b->ndigits, b->exp);
	return sa < 0 ? -c : c;
}

bool smp_quantity_scaled_value(int64_t *out, const smp_quantity *q, int scale)
{
	uint64_t v = 0;
	int64_t exp;
	size_t keep;
	bool lost = false;

	if (out)
		*out = 0;
	if (!out || !q || q->sign == 0)
		return out != NULL;
	/* |q| / 10^scale = digits * 10^(exp - scale), rounded away from 0. */
	exp = q->exp - (int64_t)scale;
	if (exp < 0) {
		uint64_t drop = (uint64_t)-exp;
		keep = drop >= q->ndigits ? 0 : q->ndigits - (size_t)drop;
		for (size_t i = keep; i < q->ndigits; i++)
			if (q->digits[i] != '0')
				lost = true;
		exp = 0;
	} else {
		keep = q->ndigits;
	}
	for (size_t i = 0; i < keep; i++) {
		unsigned dg = (unsigned)(q->digits[i] - '0');
		if (v > (UINT64_MAX - dg) / 10)
			goto overflow;
		v = v * 10 + dg;
	}
	for (int64_t i = 0; i < exp; i++) {
		if (v > UINT64_MAX / 10)
			goto overflow;
		v *= 10;
	}
	if (lost)
		v++;
	if (q->sign > 0 ? v > (uint64_t)INT64_MAX : v > (UINT64_C(1) << 63))
		goto overflow;
	*out = q->sign > 0 ? (int64_t)v : (int64_t)(0 - v);
	return true;
overflow:
	*out = q->sign > 0 ? INT64_MAX : INT64_MIN;
	return false;
}

void smp__quantity_repr(const smp_quantity *q, smp__quantity_rep *r)
{
	r->int64_amount = q->int64_amount;
	r->go_exp = q->go_exp;
	r->sign = q->sign;
	r->digits = q->digits;
	r->ndigits = q->ndigits;
	r->exp = q->exp;
}
