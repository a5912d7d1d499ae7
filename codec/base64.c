/*
 * base64.c - Go's encoding/base64, both ways: StdEncoding's decoding (YAML
 * !!binary, Secret data) and the encodings the server and kubectl write
 * ([]byte fields; the ApplySet ID's RawURLEncoding).
 */
#include "codec.h"

#include <stdint.h>

/* ---- decoding (StdEncoding.DecodeString: padding required, CR/LF
 * ignored) ---- */

static int b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long smp_base64_check(const char *s, size_t n)
{
	size_t si = 0;

	while (si < n) {
		int j;

		for (j = 0; j < 4; j++) {
			unsigned char in;

			if (si == n) {
				if (j == 0)
					return -1;
				return (long)(si - (size_t)j); /* StdEncoding pads */
			}
			in = (unsigned char)s[si++];
			if (b64val(in) >= 0)
				continue;
			if (in == '\n' || in == '\r') {
				j--;
				continue;
			}
			if (in != '=' || j < 2)
				return (long)(si - 1);
			if (j == 2) {
				while (si < n && (s[si] == '\n' || s[si] == '\r'))
					si++;
				if (si == n)
					return (long)n;
				if (s[si] != '=')
					return (long)(si - 1);
				si++;
			}
			while (si < n && (s[si] == '\n' || s[si] == '\r'))
				si++;
			return si < n ? (long)si : -1;
		}
	}
	return -1;
}

int smp_base64_decode(char *out, size_t *outlen, const char *s, size_t n)
{
	uint32_t w = 0;
	size_t o = 0;
	int q = 0;

	if (smp_base64_check(s, n) >= 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int v = b64val((unsigned char)s[i]);

		if (v < 0)
			continue; /* CR, LF and the padding: checked above */
		w = w << 6 | (uint32_t)v;
		if (++q == 4) {
			out[o++] = (char)(w >> 16);
			out[o++] = (char)(w >> 8);
			out[o++] = (char)w;
			w = 0;
			q = 0;
		}
	}
	/* a last quantum of 2 or 3 characters (padded): 1 or 2 bytes */
	if (q == 2)
		out[o++] = (char)(w >> 4);
	if (q == 3) {
		out[o++] = (char)(w >> 10);
		out[o++] = (char)(w >> 2);
	}
	*outlen = o;
	return 0;
}

/* ---- encoding ---- */

size_t smp_base64_encode(char *out, const void *in, size_t n, bool url)
{
	static const char std[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	static const char web[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	const char *abc = url ? web : std;
	const unsigned char *s = in;
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t b = (uint32_t)s[i] << 16;

		b |= i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0;
		b |= i + 2 < n ? (uint32_t)s[i + 2] : 0;
		out[o++] = abc[b >> 18 & 63];
		out[o++] = abc[b >> 12 & 63];
		if (i + 1 < n)
			out[o++] = abc[b >> 6 & 63];
		else if (!url)
			out[o++] = '=';
		if (i + 2 < n)
			out[o++] = abc[b & 63];
		else if (!url)
			out[o++] = '=';
	}
	out[o] = '\0';
	return o;
}
