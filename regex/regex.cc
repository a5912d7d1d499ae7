/*
 * regex.cc - the C face of RE2 (regex.h). RE2's syntax is Go's (Perl
 * classes, word boundaries, non-greedy repetition, no backreferences); the
 * options below keep its defaults but silence its logging. No exception
 * leaves this file.
 */
#include "regex/regex.h"

#include <re2/re2.h>

#include <cstring>
#include <new>
#include <string>

struct smp_regex {
	RE2 re;
	smp_regex(const char *p, size_t n, const RE2::Options &o) : re(re2::StringPiece(p, n), o) {}
};

/* Where Go's syntax and RE2's differ: Go refuses \C (any byte) and takes
 * (?<name>...) as (?P<name>...) (Go 1.22 on; Kubernetes 1.32 is built
 * with Go 1.23). The pattern as RE2 should read it into `out`; false when
 * Go refuses it. \Q...\E quotes, as in both. */
static bool go_syntax(const char *p, size_t n, std::string &out)
{
	bool quoted = false;

	out.reserve(n + 8);
	for (size_t i = 0; i < n; i++) {
		if (quoted) {
			if (p[i] == '\\' && i + 1 < n && p[i + 1] == 'E') {
				quoted = false;
				out.append(p + i, 2);
				i++;
			} else {
				out.push_back(p[i]);
			}
			continue;
		}
		if (p[i] == '\\' && i + 1 < n) {
			if (p[i + 1] == 'C')
				return false;
			quoted = p[i + 1] == 'Q';
			out.append(p + i, 2);
			i++;
			continue;
		}
		if (p[i] == '(' && i + 3 < n && p[i + 1] == '?' && p[i + 2] == '<' &&
		    p[i + 3] != '=' && p[i + 3] != '!') {
			out.append("(?P<");
			i += 2;
			continue;
		}
		out.push_back(p[i]);
	}
	return true;
}

extern "C" int smp_regex_compile(smp_regex **out, const char *pat, size_t len, char *msg,
                                 size_t msglen)
{
	*out = nullptr;
	if (msglen)
		msg[0] = '\0';
	try {
		RE2::Options o;
		std::string go;

		if (!go_syntax(pat, len, go)) {
			if (msglen) {
				std::strncpy(msg, "invalid escape sequence: `\\C`", msglen - 1);
				msg[msglen - 1] = '\0';
			}
			return -1;
		}
		o.set_log_errors(false);
		smp_regex *r = new smp_regex(go.data(), go.size(), o);
		if (!r->re.ok()) {
			if (msglen) {
				std::strncpy(msg, r->re.error().c_str(), msglen - 1);
				msg[msglen - 1] = '\0';
			}
			delete r;
			return -1;
		}
		*out = r;
		return 0;
	} catch (...) {
		return -2;
	}
}

extern "C" bool smp_regex_search(const smp_regex *re, const char *s, size_t len)
{
	return RE2::PartialMatch(re2::StringPiece(s, len), re->re);
}

extern "C" bool smp_regex_find(const smp_regex *re, const char *s, size_t len, size_t from,
                               size_t *start, size_t *end)
{
	re2::StringPiece text(s, len), m;

	if (from > len || !re->re.Match(text, from, len, RE2::UNANCHORED, &m, 1))
		return false;
	*start = (size_t)(m.data() - s);
	*end = *start + m.size();
	return true;
}

extern "C" void smp_regex_free(smp_regex *re)
{
	delete re;
}
