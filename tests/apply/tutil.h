/*
 * tutil.h - what the apply unit tests share besides CHECK (../check.h): a
 * JSON parser for inline test documents.
 */
#ifndef SMP_APPLY_TUTIL_H
#define SMP_APPLY_TUTIL_H

#include "smpatch.h"

#include "../check.h"

#include <stdio.h>
#include <string.h>

/* Parses inline JSON; NULL (and one failure counted) when it is malformed. */
static smp_doc *parse_json(const char *text)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc = NULL;
	smp_error err;

	po.format = SMP_FORMAT_JSON;
	if (smp_doc_parse(&doc, text, strlen(text), &po, &err)) {
		fprintf(stderr, "bad test JSON %s: %s\n", text, err.message);
		failures++;
		return NULL;
	}
	return doc;
}

#endif
