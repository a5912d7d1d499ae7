/*
 * ssa_driver - the server-side apply oracle's protocol over smpatch's
 * public API: reads cases as JSON Lines on standard input, writes one
 * answer line per case on standard output, byte for byte in the oracle's
 * format (see ../shared/oracle-ssa/README.md):
 *
 *   in:  {"id", "live": {...}|null, "config": {...}, "manager", "force", "op": "apply"|"update"}
 *   out: {"id","ok","object","managedFields","conflicts","error","changed"}
 *
 * Times follow the oracle's logical clock: the entries a case writes get
 * one second after the latest time among the managedFields the case starts
 * from, or the base time (-time RFC3339, default 2024-01-01T00:00:00Z).
 *
 * -swagger FILE: an OpenAPI document (custom resources' definitions beside
 * the Kubernetes ones), searched before the built-in tables.
 *
 * -nocache: no smp_ssa_cache shared by the cases (each call on its own).
 *
 * usage: ssa_driver [-time RFC3339] [-swagger FILE] [-nocache] < cases.jsonl > results.jsonl
 */
#include <smpatch.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* The answers go to standard output through a buffer of their own, as they
 * are made (an answer is as large as its object: no copy of it is held). */
typedef struct out {
	char buf[1 << 16];
	size_t len;
	int oom;  /* out of memory while making an answer */
	int werr; /* a write failed */
} out;

static void flush_out(out *o)
{
	if (o->len && fwrite(o->buf, 1, o->len, stdout) != o->len)
		o->werr = 1;
	o->len = 0;
}

static void put(out *o, const char *s, size_t n)
{
	if (o->len + n > sizeof(o->buf)) {
		flush_out(o);
		if (n > sizeof(o->buf)) {
			if (fwrite(s, 1, n, stdout) != n)
				o->werr = 1;
			return;
		}
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void puts_(out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* A JSON string as Go's encoder writes it with SetEscapeHTML(false). */
static void put_string(out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	put(o, "\"", 1);
	while (p < end) {
		unsigned char c = *p;

		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};

			put(o, e, 2);
			p++;
		} else if (c < 0x20) {
			char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};

			if (c == '\n')
				put(o, "\\n", 2);
			else if (c == '\r')
				put(o, "\\r", 2);
			else if (c == '\t')
				put(o, "\\t", 2);
			else
				put(o, e, 6);
			p++;
		} else if (c < 0x80) {
			/* a run of bytes that need no escape, at once */
			const unsigned char *q = p + 1;

			while (q < end && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
				q++;
			put(o, (const char *)p, (size_t)(q - p));
			p = q;
		} else {
			/* Valid UTF-8 passes (U+2028/9 escaped); invalid bytes are U+FFFD. */
			size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
			unsigned cp = 0;
			int ok = len && (size_t)(end - p) >= len && c < 0xf5 && c >= 0xc2;

			for (size_t i = 1; ok && i < len; i++)
				ok = (p[i] & 0xc0) == 0x80;
			if (ok) {
				cp = len == 2 ? (c & 0x1fu) : len == 3 ? (c & 0x0fu) : (c & 0x07u);
				for (size_t i = 1; i < len; i++)
					cp = cp << 6 | (p[i] & 0x3fu);
				ok = !(len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) &&
				     !(len == 4 && (cp < 0x10000 || cp > 0x10ffff));
			}
			if (!ok) {
				puts_(o, "\\ufffd");
				p++;
			} else if (cp == 0x2028 || cp == 0x2029) {
				puts_(o, cp == 0x2028 ? "\\u2028" : "\\u2029");
				p += len;
			} else {
				put(o, (const char *)p, len);
				p += len;
			}
		}
	}
	put(o, "\"", 1);
}

static int put_out(void *ctx, const char *data, size_t len)
{
	put(ctx, data, len);
	return 0;
}

/* v as the library prints it, straight into o. The values here (parsed
 * JSON, the library's results) print unless memory runs out, which ends
 * the program. */
static void put_value(out *o, const smp_value *v, int sort, int html)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	smp_error err;

	po.sort_keys = sort;
	po.go_escape = html;
	if (smp_print_to(put_out, o, v, &po, &err))
		o->oom = 1;
}

typedef struct kent {
	const char *k;
	size_t n;
	const smp_value *v;
} kent;

static int kent_cmp(const void *x, const void *y)
{
	const kent *a = x, *b = y;
	int r = memcmp(a->k, b->k, a->n < b->n ? a->n : b->n);

	return r ? r : (a->n > b->n) - (a->n < b->n);
}

/* JSON as the oracle's encoder writes a Go map tree: keys sorted; `skip`
 * drops metadata.managedFields (shown apart). */
static void print_tree(out *o, const smp_value *v, int skip)
{
	switch (smp_value_type(v)) {
	case SMP_STRING: {
		size_t n;
		const char *s = smp_value_string(v, &n);

		put_string(o, s, n);
		return;
	}
	case SMP_LIST:
		puts_(o, "[");
		for (size_t i = 0; i < smp_value_len(v); i++) {
			if (i)
				puts_(o, ",");
			print_tree(o, smp_list_get(v, i), 0);
		}
		puts_(o, "]");
		return;
	case SMP_MAP: {
		size_t n = smp_value_len(v), m = 0;
		kent *e = malloc((n ? n : 1) * sizeof(*e));

		if (!e) {
			o->oom = 1;
			return;
		}
		for (size_t i = 0; i < n; i++) {
			e[m].k = smp_map_key(v, i, &e[m].n);
			e[m].v = smp_map_value(v, i);
			if (skip == 2 && e[m].n == 13 && memcmp(e[m].k, "managedFields", 13) == 0)
				continue;
			m++;
		}
		qsort(e, m, sizeof(*e), kent_cmp);
		puts_(o, "{");
		for (size_t i = 0; i < m; i++) {
			if (i)
				puts_(o, ",");
			put_string(o, e[i].k, e[i].n);
			puts_(o, ":");
			print_tree(o, e[i].v,
			           skip == 1 && e[i].n == 8 && memcmp(e[i].k, "metadata", 8) == 0 ? 2 : 0);
		}
		puts_(o, "}");
		free(e);
		return;
	}
	default:
		put_value(o, v, 0, 0);
	}
}

static const char *str(const smp_value *v)
{
	return smp_value_type(v) == SMP_STRING ? smp_value_string(v, NULL) : "";
}

/* ---------------------------------------------------------------- clock */

static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* Go's time.Parse(time.RFC3339, s) as Unix seconds; 0 when invalid. */
static int parse_time(const char *s, int64_t *out_secs)
{
	int y, mo, d, h, mi, se, n = 0;
	const char *p;
	int64_t off = 0;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 || n != 19 ||
	    mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59)
		return 0;
	p = s + 19;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (*p == 'Z' && p[1] == 0) {
		off = 0;
	} else if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
		off = ((p[1] - '0') * 10 + (p[2] - '0')) * 3600 + ((p[4] - '0') * 10 + (p[5] - '0')) * 60;
		if (*p == '-')
			off = -off;
	} else {
		return 0;
	}
	*out_secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
	return 1;
}

static void format_time(char *buf, size_t size, int64_t secs)
{
	time_t t = (time_t)secs;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The oracle's clock: one second after the latest entry time, else base. */
static void logical_now(char *buf, size_t size, int64_t base, const smp_value *mf)
{
	int64_t t = base, s;

	for (size_t i = 0; i < smp_value_len(mf); i++) {
		const smp_value *e = smp_list_get(mf, i);

		if (parse_time(str(smp_map_get(e, "time")), &s) && s >= t)
			t = s + 1;
	}
	format_time(buf, size, t);
}

static int is_reset(const smp_value *mf)
{
	if (smp_value_type(mf) != SMP_LIST)
		return 0;
	return smp_value_len(mf) == 0 ||
	       (smp_value_len(mf) == 1 && smp_value_type(smp_list_get(mf, 0)) == SMP_MAP &&
	        smp_value_len(smp_list_get(mf, 0)) == 0);
}

/* ---------------------------------------------------------------- one case */

static void answer(out *o, const smp_value *id, int ok, const smp_ssa_result *res,
                   const char *error, int changed)
{
	const smp_ssa_conflict *cs = NULL;
	size_t nc = smp_ssa_result_conflicts(res, &cs);
	const smp_value *mf = ok ? smp_ssa_result_managed_fields(res) : NULL;

	puts_(o, "{\"id\":");
	if (id)
		put_value(o, id, 0, 0);
	else
		puts_(o, "null");
	puts_(o, ok ? ",\"ok\":true,\"object\":" : ",\"ok\":false,\"object\":");
	/* The oracle shows managedFields apart (an untracked update keeps the
	 * object as it was sent). */
	/* (print_tree's recursion is bounded: the library refuses objects
	 * nested deeper than SMP_DEFAULT_MAX_DEPTH) */
	if (ok)
		print_tree(o, smp_ssa_result_object(res), smp_ssa_result_warning(res) ? 0 : 1);
	else
		puts_(o, "null");
	puts_(o, ",\"managedFields\":[");
	for (size_t i = 0; i < smp_value_len(mf); i++) {
		const smp_value *e = smp_list_get(mf, i);
		static const char *const keys[] = {"manager", "operation", "apiVersion", "time",
		                                   "fieldsType", "fieldsV1", "subresource"};
		int first = 1;

		puts_(o, i ? ",{" : "{");
		for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
			const smp_value *v = smp_map_get(e, keys[k]);

			if (!v)
				continue;
			if (!first)
				puts_(o, ",");
			first = 0;
			put_string(o, keys[k], strlen(keys[k]));
			puts_(o, ":");
			if (k == 5) {
				put_value(o, v, 0, 1);
			} else {
				size_t n;
				const char *s = smp_value_string(v, &n);

				put_string(o, s ? s : "", s ? n : 0);
			}
		}
		puts_(o, "}");
	}
	puts_(o, "],\"conflicts\":[");
	for (size_t i = 0; i < nc; i++) {
		puts_(o, i ? ",{\"manager\":" : "{\"manager\":");
		put_string(o, cs[i].manager, strlen(cs[i].manager));
		puts_(o, ",\"operation\":");
		put_string(o, cs[i].operation, strlen(cs[i].operation));
		if (cs[i].api_version[0]) {
			puts_(o, ",\"apiVersion\":");
			put_string(o, cs[i].api_version, strlen(cs[i].api_version));
		}
		puts_(o, ",\"path\":");
		put_string(o, cs[i].path, strlen(cs[i].path));
		puts_(o, "}");
	}
	puts_(o, "],\"error\":");
	put_string(o, error ? error : "", error ? strlen(error) : 0);
	puts_(o, changed ? ",\"changed\":true}\n" : ",\"changed\":false}\n");
}

static void run_case(out *o, const char *line, size_t len, int64_t base,
                     const smp_schema *schema, smp_ssa_cache *cache)
{
	smp_parse_options popts = SMP_PARSE_OPTIONS_INIT;
	smp_ssa_options so = SMP_SSA_OPTIONS_INIT;
	smp_ssa_result *res = NULL;
	smp_doc *doc = NULL;
	smp_error err;
	const smp_value *c, *id, *live, *config, *op, *force, *mf;
	char now[40], msg[2048];
	int rc, apply;

	popts.format = SMP_FORMAT_JSON;
	popts.filename = "case";
	if (smp_doc_parse(&doc, line, len, &popts, &err) || smp_doc_count(doc) != 1 ||
	    smp_value_type(smp_doc_root(doc, 0)) != SMP_MAP) {
		snprintf(msg, sizeof(msg), "bad case line: %s",
		         doc && smp_doc_count(doc) == 1 ? "not an object" : err.message);
		answer(o, NULL, 0, NULL, msg, 0);
		smp_doc_free(doc);
		return;
	}
	c = smp_doc_root(doc, 0);
	id = smp_map_get(c, "id");
	live = smp_map_get(c, "live");
	config = smp_map_get(c, "config");
	op = smp_map_get(c, "op");
	force = smp_map_get(c, "force");
	if ((force && smp_value_type(force) != SMP_BOOL && smp_value_type(force) != SMP_NULL) ||
	    (op && smp_value_type(op) != SMP_STRING && smp_value_type(op) != SMP_NULL)) {
		answer(o, NULL, 0, NULL, "bad case line: json: cannot unmarshal into caseIn", 0);
		smp_doc_free(doc);
		return;
	}
	apply = strcmp(str(op), "apply") == 0;
	if (!config || smp_value_type(config) != SMP_MAP) {
		answer(o, id, 0, NULL, config ? "config: not an object" : "config: unexpected end of JSON input", 0);
		smp_doc_free(doc);
		return;
	}
	if (!apply && strcmp(str(op), "update") != 0) {
		snprintf(msg, sizeof(msg), "unknown op \"%s\" (want apply or update)", str(op));
		answer(o, id, 0, NULL, msg, 0);
		smp_doc_free(doc);
		return;
	}
	/* The managedFields the case starts from (an update may bring its own). */
	mf = smp_value_at(live, "metadata.managedFields");
	if (!apply) {
		const smp_value *nmf = smp_value_at(config, "metadata.managedFields");

		if (is_reset(nmf))
			mf = NULL;
		else if (smp_value_type(nmf) == SMP_LIST && smp_value_len(nmf) > 0)
			mf = nmf;
	}
	logical_now(now, sizeof(now), base, mf);
	so.manager = str(smp_map_get(c, "manager"));
	so.force = smp_value_bool(force);
	so.schema = schema;
	so.now = now;
	so.cache = cache;
	rc = apply ? smp_ssa_apply(&res, live, config, &so, &err)
	           : smp_ssa_update(&res, live, config, &so, &err);
	if (rc == 0) {
		answer(o, id, 1, res, smp_ssa_result_warning(res), smp_ssa_result_changed(res));
	} else if (rc == SMP_ECONFLICT) {
		answer(o, id, 0, res, smp_ssa_result_message(res), 0);
	} else {
		smp_error_format(msg, sizeof(msg), &err);
		answer(o, id, 0, NULL, msg, 0);
	}
	smp_ssa_result_free(res);
	smp_doc_free(doc);
}

/* Answers one input line (blank lines are skipped): 0, or 1 when the
 * program must stop (out of memory, a write error). */
static int run_line(out *o, const char *line, size_t len, int64_t base, const smp_schema *schema,
                    smp_ssa_cache *cache)
{
	int blank = 1;

	for (size_t i = 0; i < len && blank; i++)
		blank = line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r';
	if (blank)
		return 0;
	run_case(o, line, len, base, schema, cache);
	if (o->oom) {
		fprintf(stderr, "ssa_driver: out of memory\n");
		return 1;
	}
	flush_out(o);
	if (o->werr || fflush(stdout)) {
		fprintf(stderr, "ssa_driver: write error\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int64_t base = 0;
	smp_schema *schema = NULL;
	smp_error err;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int nocache = 0;
	static out o;

	parse_time("2024-01-01T00:00:00Z", &base);
	for (int i = 1; i < argc; i++) {
		if ((strcmp(argv[i], "-time") == 0 || strcmp(argv[i], "--time") == 0) && i + 1 < argc) {
			if (!parse_time(argv[++i], &base)) {
				fprintf(stderr, "bad -time: %s\n", argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "-nocache") == 0) {
			nocache = 1;
		} else if ((strcmp(argv[i], "-swagger") == 0 || strcmp(argv[i], "--swagger") == 0) &&
		           i + 1 < argc && !schema) {
			if (smp_schema_load_file(&schema, argv[++i], &err)) {
				char msg[2048];

				smp_error_format(msg, sizeof(msg), &err);
				fprintf(stderr, "loading schema: %s\n", msg);
				return 1;
			}
		} else {
			fprintf(stderr, "usage: ssa_driver [-time RFC3339] [-swagger FILE] [-nocache] < cases.jsonl\n");
			smp_schema_free(schema);
			return 2;
		}
	}
	/* The cases share a cache, as a caller making many calls would (the
	 * answers are the same without); -nocache: each call on its own. */
	smp_ssa_cache *cache = nocache ? NULL : smp_ssa_cache_new();

	/* A file on standard input is mapped and read in place (the page
	 * cache holds it already), anything else read line by line. */
	struct stat st;
	const char *map = NULL;

	if (fstat(0, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, 0, 0);

		if (m != MAP_FAILED)
			map = m;
	}
	for (size_t at = 0;;) {
		const char *l;
		size_t len;

		if (map) {
			const char *nl;

			if (at >= (size_t)st.st_size)
				break;
			l = map + at;
			nl = memchr(l, '\n', (size_t)st.st_size - at);
			len = nl ? (size_t)(nl - l) + 1 : (size_t)st.st_size - at;
			at += len;
		} else {
			if ((n = getline(&line, &cap, stdin)) <= 0)
				break;
			l = line;
			len = (size_t)n;
		}
		if (run_line(&o, l, len, base, schema, cache))
			return 1;
	}
	if (map)
		munmap((void *)map, (size_t)st.st_size);
	free(line);
	smp_ssa_cache_free(cache); /* before the schema it points into */
	smp_schema_free(schema);
	return 0;
}
