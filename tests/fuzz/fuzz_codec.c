/*
 * fuzz_codec.c - target (a): any bytes parsed as YAML or JSON (byte 0
 * picks AUTO, YAML or JSON); every document printed as JSON, YAML and
 * sorted JSON, and read back: the same value (smp_value_equal). A failed
 * parse must carry a message and a position-bearing code; our own output
 * must read back (a limit aside).
 * The one exception to "the same value", as in kubectl: an integral float
 * (1.0 in JSON, -0.0) prints as an integer and reads back as one.
 */
#include "fuzz.h"

#include <string.h>

/* smp_value_equal, except that a float equals the integer of the same
 * value: kubectl prints an integral float (1.0, -0.0) as an integer, which
 * reads back as one. Maps in the same order unless `sorted`. */
static bool same(const smp_value *a, const smp_value *b, bool sorted)
{
	smp_type ta = smp_value_type(a), tb = smp_value_type(b);

	if (ta == SMP_FLOAT && tb == SMP_INT)
		return smp_value_float(a) == (double)smp_value_int(b);
	if (ta != tb)
		return false;
	if (ta == SMP_LIST) {
		if (smp_value_len(a) != smp_value_len(b))
			return false;
		for (size_t i = 0; i < smp_value_len(a); i++)
			if (!same(smp_list_get(a, i), smp_list_get(b, i), sorted))
				return false;
		return true;
	}
	if (ta != SMP_MAP)
		return smp_value_equal(a, b);
	if (smp_value_len(a) != smp_value_len(b))
		return false;
	for (size_t i = 0; i < smp_value_len(a); i++) {
		size_t al, bl, j = i;
		const char *ak = smp_map_key(a, i, &al), *bk = smp_map_key(b, j, &bl);
		if (sorted)
			for (j = 0; j < smp_value_len(b); j++) {
				bk = smp_map_key(b, j, &bl);
				if (al == bl && memcmp(ak, bk, al) == 0)
					break;
			}
		if (j == smp_value_len(b) || al != bl || memcmp(ak, bk, al) != 0 ||
		    !same(smp_map_value(a, i), smp_map_value(b, j), sorted))
			return false;
	}
	return true;
}

static void round_trip(const smp_value *v)
{
	for (int o = 0; o < 3; o++) {
		smp_print_options pr = SMP_PRINT_OPTIONS_INIT;
		smp_parse_options p2 = SMP_PARSE_OPTIONS_INIT;
		smp_doc *back;
		smp_error err;
		char *s;
		size_t sl;
		int rc;

		pr.output = (smp_output)o;
		pr.sort_keys = o == 1;
		pr.go_escape = o == 2;
		rc = smp_print(&s, &sl, v, &pr, &err);
		if (rc != 0) {
			fuzz_check_error(rc, &err);
			FUZZ_CHECK(rc == SMP_ELIMIT);
			continue;
		}
		p2.format = o == SMP_OUT_YAML ? SMP_FORMAT_YAML : SMP_FORMAT_JSON;
		p2.max_depth = 100000;
		p2.max_alias_nodes = 100000;
		rc = smp_doc_parse(&back, s, sl, &p2, &err);
		if (rc == 0) {
			/* One value printed is one document read back. */
			FUZZ_CHECK(smp_doc_count(back) == 1 || smp_value_type(v) == SMP_NULL);
			if (smp_doc_count(back) == 1)
				FUZZ_CHECK(same(v, smp_doc_root(back, 0), pr.sort_keys));
			smp_doc_free(back);
		} else {
			fuzz_check_error(rc, &err);
			FUZZ_CHECK(rc == SMP_ELIMIT); /* our own output must read back */
		}
		smp_free(s);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc;
	smp_error err;
	int rc;

	if (size < 1)
		return 0;
	po.format = (smp_format)(data[0] % 3);
	po.max_alias_nodes = 100000;
	po.allow_duplicate_keys = data[0] & 4;
	rc = smp_doc_parse(&doc, (const char *)data + 1, size - 1, &po, &err);
	if (rc != 0) {
		fuzz_check_error(rc, &err);
		FUZZ_CHECK(rc == SMP_EPARSE || rc == SMP_ELIMIT);
		/* A syntax error says where it is. */
		FUZZ_CHECK(rc != SMP_EPARSE || err.line > 0 || strstr(err.message, "line"));
		return 0;
	}
	for (size_t i = 0; i < smp_doc_count(doc); i++)
		round_trip(smp_doc_root(doc, i));
	smp_doc_free(doc);
	return 0;
}
