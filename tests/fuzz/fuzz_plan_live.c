/*
 * fuzz_plan_live.c - target: any bytes as a live file, planned two ways:
 * indexed without being held (smp_plan_add_live_file) and parsed whole
 * (smp_doc_parse_file + smp_plan_add_live). Both must accept or refuse the
 * file alike (the same code, message, line and column), and when they
 * accept it, give the same entries (action, reference, request body,
 * object) for a fixed set of configurations, client-side with prune, or
 * server-side when byte 0 is odd. The bytes after byte 0 are the file.
 */
#include "fuzz.h"

#include <string.h>
#include <unistd.h>

static const char configs[] =
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {app: web}}\n"
	"data: {k: v}\n---\n"
	"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, labels: {app: web}}\n"
	"spec: {replicas: 2}\n---\n"
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {app: web}}\n"
	"data: {k: w}\n";

/* One entry's text: what a caller reads of it. */
static char *entry_text(const smp_plan_entry *e)
{
	const smp_value *v[] = {smp_plan_entry_patch(e), smp_plan_entry_object(e),
	                        smp_plan_entry_live(e)};
	size_t cap = 256, len;
	char *out = malloc(cap);
	smp_error err;

	FUZZ_CHECK(out != NULL);
	len = (size_t)snprintf(out, cap, "%d %s %s %s|", (int)smp_plan_entry_action(e),
	                       smp_plan_entry_kind(e), smp_plan_entry_namespace(e),
	                       smp_plan_entry_name(e));
	if (len >= cap)
		len = cap - 1;
	for (size_t i = 0; i < 3; i++) {
		char *s = NULL;
		size_t n = 0;

		if (v[i] && smp_print(&s, &n, v[i], NULL, &err) == 0) {
			char *g = realloc(out, len + n + 2);
			FUZZ_CHECK(g != NULL);
			out = g;
			memcpy(out + len, s, n);
			len += n;
			out[len++] = '|';
			out[len] = '\0';
		}
		smp_free(s);
	}
	return out;
}

static smp_plan *plan_of(const char *path, bool from_file, bool server_side, int *rc,
                         smp_error *err)
{
	smp_plan_options o = SMP_PLAN_OPTIONS_INIT;
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_plan *p = NULL;
	smp_doc *doc = NULL;
	smp_error e2;

	o.mode = server_side ? SMP_PLAN_SERVER_SIDE : SMP_PLAN_CLIENT_SIDE;
	o.prune = !server_side;
	o.prune_all = !server_side;
	o.now = "2026-01-01T00:00:00Z";
	FUZZ_CHECK(smp_plan_new(&p, &o, &e2) == 0);
	FUZZ_CHECK(smp_doc_parse(&doc, configs, sizeof(configs) - 1, NULL, &e2) == 0);
	FUZZ_CHECK(smp_plan_add_config(p, doc, "configs.yaml", &e2) == 0);
	if (from_file) {
		*rc = smp_plan_add_live_file(p, path, err);
	} else if (!(*rc = smp_doc_parse_file(&doc, path, &po, err))) {
		*rc = smp_plan_add_live(p, doc, path, err);
	}
	if (!*rc)
		*rc = smp_plan_compute(p, err);
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/fuzz-plan-live-XXXXXX";
	smp_error ea, eb;
	int fd, ra, rb;
	smp_plan *a, *b;

	if (size < 1 || size > (1u << 20))
		return 0;
	fd = mkstemp(path);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, data + 1, size - 1) == (ssize_t)(size - 1));
	close(fd);
	memset(&ea, 0, sizeof(ea));
	memset(&eb, 0, sizeof(eb));
	a = plan_of(path, false, data[0] & 1, &ra, &ea);
	b = plan_of(path, true, data[0] & 1, &rb, &eb);
	if (ra != rb || (ra && (strcmp(ea.message, eb.message) || ea.line != eb.line ||
	                        ea.column != eb.column))) {
		fprintf(stderr, "whole: %d %u:%u %s\nindexed: %d %u:%u %s\n", ra, ea.line, ea.column,
		        ea.message, rb, eb.line, eb.column, eb.message);
		FUZZ_CHECK(!"the same answer both ways");
	}
	if (!ra) {
		FUZZ_CHECK(smp_plan_count(a) == smp_plan_count(b));
		for (size_t i = 0; i < smp_plan_count(a); i++) {
			char *x = entry_text(smp_plan_entry_at(a, i));
			char *y = entry_text(smp_plan_entry_at(b, i));

			if (strcmp(x, y) != 0) {
				fprintf(stderr, "entry %zu:\nwhole:   %s\nindexed: %s\n", i, x, y);
				FUZZ_CHECK(!"the same entries both ways");
			}
			free(x);
			free(y);
		}
	}
	smp_plan_free(a);
	smp_plan_free(b);
	unlink(path);
	return 0;
}
