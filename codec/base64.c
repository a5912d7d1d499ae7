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

int smp_base64_decode(char *out, size_t *outlen, const char *s, size_t n)
{
	unsigned char quad[4];
	size_t q = 0, o = 0;
	bool done = false;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\r' || c == '\n')
			continue;
		if (done)
			return -1; /* data after a padded quad */
		quad[q++] = c;
		if (q < 4)
			continue;
		q = 0;
		int v[4], pad = 0;
		for (int k = 0; k < 4; k++) {
			if (quad[k] == '=' && k >= 2) {
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad) /* "=x" inside a quad */
				return -1;
			v[k] = b64val(quad[k]);
			if (v[k] < 0)
				return -1;
		}
		uint32_t w = ((uint32_t)v[0] << 18) | ((uint32_t)v[1] << 12) |
		             ((uint32_t)v[2] << 6) | (uint32_t)v[3];
		out[o++] = (char)(w >> 16);
		if (pad < 2)
			out[o++] = (char)(w >> 8);
		if (pad < 1)
			out[o++] = (char)w;
		done = pad > 0;
	}
	if (q != 0)
		return -1;
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
