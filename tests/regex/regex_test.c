/*
 * regex_test.c - regex/regex.h against Go's regexp: for each pattern and
 * subject, whether regexp.Compile refuses the pattern (-1) or
 * MatchString matches (1) or not (0). The expected values are Go 1.26's
 * answers (a Go program calling regexp.Compile and MatchString on each
 * pair); Kubernetes 1.32's API server checks a CRD's `pattern` with the
 * same package.
 */
#include "tests/check.h"
#include "regex/regex.h"

#include <string.h>

static void test_go_answers(void)
{
	static const struct {
		const char *pattern, *subject;
		int want;
	} t[] = {
		{"^[a-z]+$", "abc", 1},
		{"^[a-z]+$", "A_B", 0},
		{"^[a-z]+$", "", 0},
		{"[0-9]", "ab1c", 1},
		{"\\d{3}", "12", 0},
		{"\\d{3}", "x123", 1},
		{"^\\p{L}+$", "héllo", 1},
		{"^\\p{Lu}", "émile", 0},
		{"^\\p{Greek}+$", "αβγ", 1},
		{"(?i)^abc$", "ABC", 1},
		{"\\bfoo\\b", "a foo b", 1},
		{"\\bfoo\\b", "afoob", 0},
		{"^a.c$", "a\nc", 0},
		{"(?s)^a.c$", "a\nc", 1},
		{"^$", "", 1},
		{"x*", "yyy", 1},
		{"^(a|b)+?c$", "ababc", 1},
		{"^[^/]+$", "a/b", 0},
		{"\\.", "a.b", 1},
		{"^([a-z0-9]([-a-z0-9]*[a-z0-9])?)$", "my-name", 1},
		{"^([a-z0-9]([-a-z0-9]*[a-z0-9])?)$", "-bad", 0},
		{"^.{2}$", "é!", 1},
		{"\\Qa.b\\E", "a.b", 1},
		{"\\Qa.b\\E", "axb", 0},
		{"[[:alpha:]]+", "123", 0},
		{"[[:alpha:]]+", "1a3", 1},
		{"(a)\\1", "aa", -1},
		{"a{1001}", "a", -1},
		{"(?=a)", "a", -1},
		{"[z-a]", "a", -1},
		{"a**", "a", -1},
		{"(", "a", -1},
		{"\\C", "a", -1},
		{"(?P<n>a)", "a", 1},
		{"(?<n>a)b", "ab", 1},
		{"[\\Q]\\E]", "]", -1},
		{"\\Q\\C\\E", "\\C", 1},
		{"[\\C]", "C", -1},
		{"\\z", "", 1},
		{"\\Z", "", -1},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		smp_regex *re = NULL;
		char msg[128];
		int rc = smp_regex_compile(&re, t[i].pattern, strlen(t[i].pattern), msg, sizeof(msg));
		int got = rc ? -1 : smp_regex_search(re, t[i].subject, strlen(t[i].subject));

		CHECK(got == t[i].want, "%s on \"%s\": %d, Go %d (%s)", t[i].pattern, t[i].subject,
		       got, t[i].want, rc ? msg : "compiled");
		CHECK(rc != -2);
		CHECK(rc == 0 || msg[0] != '\0');
		smp_regex_free(re);
	}
}

int main(void)
{
	test_go_answers();
	return check_status();
}
