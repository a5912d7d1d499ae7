/*
 * verdict.c - what `smpatch validate` prints for each object of its plan:
 * valid, invalid (with the Status the API server answers) or skipped (a
 * kind no schema describes), as text lines in kubeconform's words, JSON
 * lines, or a JUnit XML report, and the summary.
 */
#include "apply_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {"valid", "invalid", "skipped"};

enum { VALID, INVALID, SKIPPED };

/* Whether the kind of the entry is known to the schema given or to the
 * built-in tables (an unknown one is skipped, as kubeconform skips a
 * resource without a schema). */
static bool known_kind(const cli_verdicts *v, const smp_plan_entry *e)
{
	const char *av = smp_plan_entry_api_version(e), *kind = smp_plan_entry_kind(e);
	const smp_stype *t;

	if (!av || !kind)
		return false;
	return (v->schema && !smp_schema_kind(&t, v->schema, av, kind, NULL)) ||
	       !smp_schema_kind(&t, smp_schema_builtin(), av, kind, NULL);
}

/* Appends s with XML's five characters escaped. */
static void put_xml(cli_buf *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': cli_buf_puts(b, "&lt;"); break;
		case '>': cli_buf_puts(b, "&gt;"); break;
		case '&': cli_buf_puts(b, "&amp;"); break;
		case '"': cli_buf_puts(b, "&quot;"); break;
		case '\'': cli_buf_puts(b, "&apos;"); break;
		default: cli_buf_putc(b, *s);
		}
	}
}

static const char *message_of(const smp_value *status)
{
	const char *m = smp_value_string(smp_map_get(status, "message"), NULL);

	return m ? m : "";
}

void cli_entry_head(cli_buf *b, const smp_plan_entry *e)
{
	static const struct {
		const char *key;
		const char *(*get)(const smp_plan_entry *);
	} head[] = {{"{\"apiVersion\":", smp_plan_entry_api_version},
	            {",\"kind\":", smp_plan_entry_kind},
	            {",\"namespace\":", smp_plan_entry_namespace},
	            {",\"name\":", smp_plan_entry_name}};

	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++) {
		cli_buf_puts(b, head[i].key);
		cli_json_string(b, head[i].get(e));
	}
}

/* One JSON line: apiVersion, kind, namespace, name, file, line, status
 * and, for a refusal, the server's Status. */
static int put_json(cli_verdicts *v, const smp_plan_entry *e, int verdict,
                    const smp_value *status, smp_error *err)
{
	cli_buf *b = &v->out;
	char line[24];

	cli_entry_head(b, e);
	cli_buf_puts(b, ",\"file\":");
	cli_json_string(b, smp_plan_entry_label(e));
	snprintf(line, sizeof(line), ",\"line\":%u", smp_value_line(smp_plan_entry_config(e)));
	cli_buf_puts(b, line);
	cli_buf_puts(b, ",\"status\":");
	cli_json_string(b, names[verdict]);
	if (status) {
		int rc;

		cli_buf_puts(b, ",\"refusal\":");
		if ((rc = cli_buf_value(b, status, SMP_OUT_JSON, false, err)))
			return rc;
	}
	cli_buf_puts(b, "}\n");
	return 0;
}

/* One JUnit test case: the object, failed with the Status's message (and
 * the Status as its text), or skipped. */
static int put_junit(cli_verdicts *v, const smp_plan_entry *e, int verdict,
                     const smp_value *status, smp_error *err)
{
	cli_buf *b = &v->out;
	int rc = 0;

	cli_buf_puts(b, "    <testcase classname=\"");
	put_xml(b, smp_plan_entry_label(e));
	cli_buf_puts(b, "\" name=\"");
	put_xml(b, smp_plan_entry_kind(e));
	cli_buf_putc(b, ' ');
	put_xml(b, smp_plan_entry_name(e));
	cli_buf_putc(b, '"');
	if (verdict == VALID) {
		cli_buf_puts(b, "/>\n");
		return 0;
	}
	cli_buf_puts(b, ">\n");
	if (verdict == SKIPPED) {
		cli_buf_puts(b, "      <skipped message=\"no schema for ");
		put_xml(b, smp_plan_entry_api_version(e));
		cli_buf_putc(b, ' ');
		put_xml(b, smp_plan_entry_kind(e));
		cli_buf_puts(b, "\"/>\n");
	} else {
		cli_buf text;

		cli_buf_init(&text);
		cli_buf_puts(b, "      <failure message=\"");
		put_xml(b, message_of(status));
		cli_buf_puts(b, "\" type=\"");
		put_xml(b, smp_value_string(smp_map_get(status, "reason"), NULL));
		cli_buf_puts(b, "\">");
		if (!(rc = cli_buf_value(&text, status, SMP_OUT_JSON, false, err)))
			put_xml(b, text.ptr);
		cli_buf_release(&text);
		cli_buf_puts(b, "</failure>\n");
	}
	cli_buf_puts(b, "    </testcase>\n");
	return rc;
}

/* One line as kubeconform's text output words it. */
static void put_text(cli_verdicts *v, const smp_plan_entry *e, int verdict,
                     const smp_value *status)
{
	cli_buf *b = &v->out;

	cli_buf_puts(b, smp_plan_entry_label(e));
	cli_buf_puts(b, " - ");
	cli_buf_puts(b, smp_plan_entry_kind(e));
	cli_buf_putc(b, ' ');
	cli_buf_puts(b, smp_plan_entry_name(e));
	if (verdict == VALID) {
		cli_buf_puts(b, " is valid\n");
	} else if (verdict == SKIPPED) {
		cli_buf_puts(b, " skipped: no schema for ");
		cli_buf_puts(b, smp_plan_entry_api_version(e));
		cli_buf_putc(b, ' ');
		cli_buf_puts(b, smp_plan_entry_kind(e));
		cli_buf_putc(b, '\n');
	} else {
		cli_buf_puts(b, " is invalid: ");
		cli_buf_puts(b, message_of(status));
		cli_buf_putc(b, '\n');
	}
}

int cli_verdict_add(cli_verdicts *v, const smp_plan_entry *e, smp_error *err)
{
	smp_apply_action act = smp_plan_entry_action(e);
	const smp_value *status = smp_plan_entry_status(e);
	const char *file = smp_plan_entry_label(e);
	int verdict;

	if (file && (!v->file || strcmp(file, v->file) != 0)) {
		free(v->file);
		if (!(v->file = strdup(file)))
			return SMP_ENOMEM;
		v->files++;
	}
	if ((act == SMP_ACTION_ERROR || act == SMP_ACTION_CONFLICT) && !status) {
		v->errors++; /* the input itself: the caller reports it */
		return 0;
	}
	/* a kind no schema knows is skipped, whatever the plan made of it
	 * (its stored form needs the schema) */
	verdict = !known_kind(v, e) ? SKIPPED : status ? INVALID : VALID;
	if (verdict == SKIPPED)
		status = NULL;
	v->valid += verdict == VALID;
	v->invalid += verdict == INVALID;
	v->skipped += verdict == SKIPPED;
	if (v->fmt == APPLY_VERDICT_JSON)
		return put_json(v, e, verdict, status, err);
	if (v->fmt == APPLY_VERDICT_JUNIT)
		return put_junit(v, e, verdict, status, err);
	put_text(v, e, verdict, status);
	return 0;
}

bool cli_verdict_write(cli_verdicts *v)
{
	size_t n = v->valid + v->invalid + v->skipped + v->errors;
	/* room for the texts and eight counts of 20 digits each */
	char head[512] = "";
	int len = 0;

	if (v->fmt == APPLY_VERDICT_JUNIT) {
		len = snprintf(head, sizeof(head),
		               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		               "<testsuites name=\"smpatch validate\" tests=\"%zu\" failures=\"%zu\" "
		               "errors=\"%zu\" skipped=\"%zu\">\n"
		               "  <testsuite name=\"smpatch validate\" tests=\"%zu\" failures=\"%zu\" "
		               "errors=\"%zu\" skipped=\"%zu\">\n",
		               n, v->invalid, v->errors, v->skipped, n, v->invalid, v->errors,
		               v->skipped);
		cli_buf_puts(&v->out, "  </testsuite>\n</testsuites>\n");
	} else if (v->fmt == APPLY_VERDICT_TEXT) {
		char sum[320];

		snprintf(sum, sizeof(sum),
		         "Summary: %zu resource%s found in %zu file%s - Valid: %zu, Invalid: %zu, "
		         "Errors: %zu, Skipped: %zu\n",
		         n, n == 1 ? "" : "s", v->files, v->files == 1 ? "" : "s", v->valid,
		         v->invalid, v->errors, v->skipped);
		cli_buf_puts(&v->out, sum);
	}
	if (v->out.oom) {
		fprintf(stderr, "smpatch: error: out of memory\n");
		return false;
	}
	return cli_write(head, (size_t)len) && cli_write(v->out.ptr ? v->out.ptr : "", v->out.len);
}

void cli_verdicts_release(cli_verdicts *v)
{
	cli_buf_release(&v->out);
	free(v->file);
}
