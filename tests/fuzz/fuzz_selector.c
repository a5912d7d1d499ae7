/*
 * fuzz_selector.c - target (d): label and field selectors. The input's
 * first line is the selector text (byte 0 picks what is done with it), the
 * rest a YAML/JSON stream: labels or objects to match.
 *   sel % 4 == 0  label selector parse + match (labels = first document)
 *   sel % 4 == 1  field selector parse + match (every document)
 *   sel % 4 == 2  LabelSelector object (first document; bit 2: node
 *                 selector term) + match against the second
 *   sel % 4 == 3  label key/value validation, labels map validation
 * Properties: an error has a message and a column inside the text; a
 * selector that selects everything matches any labels; matching twice
 * gives the same answer.
 */
#include "fuzz.h"

#include <string.h>

static smp_doc *parse_rest(const uint8_t *p, size_t n)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc = NULL;

	po.max_depth = 64;
	po.max_alias_nodes = 10000;
	if (smp_doc_parse(&doc, (const char *)p, n, &po, NULL) != 0)
		return NULL;
	return doc;
}

static void check_parse_error(int rc, const smp_error *err, size_t textlen)
{
	fuzz_check_error(rc, err);
	FUZZ_CHECK(rc == SMP_EINVAL || rc == SMP_ENOMEM);
	FUZZ_CHECK(err->column >= 1 && err->column <= textlen + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl;
	char *text;
	size_t tl;
	smp_doc *doc;
	smp_selector *s = NULL;
	smp_error err;
	uint8_t sel;
	int rc;

	if (size < 1)
		return 0;
	sel = data[0];
	data++;
	size--;
	nl = memchr(data, '\n', size);
	tl = nl ? (size_t)(nl - data) : size;
	text = malloc(tl + 1);
	if (!text)
		return 0;
	memcpy(text, data, tl);
	text[tl] = '\0';
	doc = nl ? parse_rest(nl + 1, size - tl - 1) : NULL;
	tl = strlen(text); /* the API reads a C string */

	switch (sel % 4) {
	case 0:
		rc = smp_selector_parse(&s, text, &err);
		if (rc) {
			check_parse_error(rc, &err, tl);
			break;
		}
		for (size_t i = 0; i <= (doc ? smp_doc_count(doc) : 0); i++) {
			const smp_value *l = doc && i < smp_doc_count(doc) ? smp_doc_root(doc, i)
			                                                    : NULL;
			bool m = smp_selector_matches(s, l);
			FUZZ_CHECK(m == smp_selector_matches(s, l));
			if (smp_selector_is_empty(s))
				FUZZ_CHECK(m);
			/* A label selector never matches as a field selector. */
			FUZZ_CHECK(!smp_field_selector_matches(s, l));
		}
		break;
	case 1:
		rc = smp_field_selector_parse(&s, text, &err);
		if (rc) {
			check_parse_error(rc, &err, tl);
			break;
		}
		for (size_t i = 0; doc && i < smp_doc_count(doc); i++) {
			bool m = smp_field_selector_matches(s, smp_doc_root(doc, i));
			FUZZ_CHECK(m == smp_field_selector_matches(s, smp_doc_root(doc, i)));
			FUZZ_CHECK(!smp_selector_matches(s, smp_doc_root(doc, i)));
			if (!tl)
				FUZZ_CHECK(m);
		}
		break;
	case 2:
		if (!doc)
			break;
		rc = smp_selector_from_object(&s, fuzz_root(doc, 0), sel & 4, &err);
		if (rc) {
			fuzz_check_error(rc, &err);
			FUZZ_CHECK(rc == SMP_EINVAL || rc == SMP_ENOMEM);
			break;
		}
		{
			bool m = smp_selector_matches(s, fuzz_root(doc, 1));
			FUZZ_CHECK(m == smp_selector_matches(s, fuzz_root(doc, 1)));
			if (smp_selector_is_empty(s))
				FUZZ_CHECK(m);
		}
		break;
	default:
		rc = smp_label_validate_key(text, &err);
		if (rc)
			fuzz_check_error(rc, &err);
		rc = smp_label_validate_value(text, &err);
		if (rc)
			fuzz_check_error(rc, &err);
		for (size_t i = 0; doc && i < smp_doc_count(doc); i++) {
			rc = smp_labels_validate(smp_doc_root(doc, i), NULL, &err);
			if (rc)
				fuzz_check_error(rc, &err);
		}
		break;
	}
	smp_selector_free(s);
	smp_doc_free(doc);
	free(text);
	return 0;
}
