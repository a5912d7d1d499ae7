/*
 * ssa_check.c - checks server-side apply results against the reference
 * oracle's answers (tests/ssa; see testdata/ssa/README.md).
 *
 *   ssa_check case CASE_DIR DRIVER SHARED_DIR
 *       runs one golden case (CASE_DIR/case.json) through DRIVER and compares
 *       its answer with CASE_DIR/expected.json, or where the case has one
 *       with CASE_DIR/expected-smd-v4.4.2.json: the oracle's answer with the
 *       merged lists that SMD v4.4.2 (the API server) orders otherwise in its
 *       order (written and checked by mergeorder.py; docs/DIFFERENCES.md).
 *   ssa_check oracle CASES_DIR ORACLE SHARED_DIR
 *       runs every golden case through the oracle and compares its answers
 *       with the expected.json files (stale goldens, or an oracle that
 *       changed); with SMP_UPDATE_GOLDEN=1 it rewrites them instead.
 *   ssa_check cmp EXPECTED.jsonl ACTUAL.jsonl
 *       compares two result streams line by line; prints one line per result,
 *       "ID<TAB>agree" or "ID<TAB>differ<TAB>WHAT" (used by chains.py).
 *
 * A case whose directory holds a file `definitions` (one word, NAME) needs
 * an OpenAPI document: the Kubernetes one from SHARED_DIR/openapi plus the
 * definitions of CASES_DIR/schemas/NAME.definitions.json (a custom
 * resource's schema as the API server publishes it). Both programs get it
 * with -swagger FILE; other cases give the driver no -swagger (its built-in
 * tables) and the oracle the Kubernetes document.
 *
 * What is compared (the oracle's README says why the rest is not): `ok`;
 * `conflicts` (list order counts); when ok, `object` (a JSON value: map key
 * order ignored, list order counts) and `managedFields` (entry order counts;
 * inside `fieldsV1` the key order counts too, since the server writes those
 * bytes in a fixed order). The `error` text and `changed` are not compared.
 *
 * Exit: 0 all agree, 1 a difference or a failed run, 2 usage or unreadable
 * input, 77 skipped (what the check needs is missing; a message says what).
 */
#include <cjson/cJSON.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../read_file.h"

#define SKIP 77
#define SWAGGER_REL "openapi/kubernetes-1.36.swagger.json"

/* ---- files ---- */

static cJSON *read_json(const char *path)
{
	char *s = read_file(path, NULL);
	cJSON *v;

	if (!s) {
		fprintf(stderr, "ssa_check: cannot read %s: %s\n", path, strerror(errno));
		return NULL;
	}
	v = cJSON_Parse(s);
	if (!v)
		fprintf(stderr, "ssa_check: %s: not valid JSON (near byte %ld)\n", path,
			(long)(cJSON_GetErrorPtr() - s));
	free(s);
	return v;
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_exec(const char *path)
{
	return is_file(path) && access(path, X_OK) == 0;
}

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 2);

	if (!s) {
		fprintf(stderr, "ssa_check: out of memory\n");
		exit(2);
	}
	memcpy(s, a, la);
	s[la] = '/';
	memcpy(s + la + 1, b, lb + 1);
	return s;
}

/* ---- the golden file format: Python's json.dumps(indent=2), so that the
 * authoring script and this program write the same bytes ---- */

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void put_number(FILE *f, double d)
{
	char buf[64];

	if (d == floor(d) && fabs(d) < 1e17) {
		fprintf(f, "%.0f", d);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	fputs(buf, f);
}

static void put_indent(FILE *f, int depth)
{
	fputc('\n', f);
	for (int i = 0; i < depth; i++)
		fputs("  ", f);
}

static void put_value(FILE *f, const cJSON *v, int depth)
{
	const cJSON *c;

	if (cJSON_IsNull(v)) {
		fputs("null", f);
	} else if (cJSON_IsTrue(v)) {
		fputs("true", f);
	} else if (cJSON_IsFalse(v)) {
		fputs("false", f);
	} else if (cJSON_IsNumber(v)) {
		put_number(f, v->valuedouble);
	} else if (cJSON_IsString(v)) {
		put_string(f, v->valuestring);
	} else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
		bool obj = cJSON_IsObject(v);
		if (!v->child) {
			fputs(obj ? "{}" : "[]", f);
			return;
		}
		fputc(obj ? '{' : '[', f);
		for (c = v->child; c; c = c->next) {
			put_indent(f, depth + 1);
			if (obj) {
				put_string(f, c->string);
				fputs(": ", f);
			}
			put_value(f, c, depth + 1);
			if (c->next)
				fputc(',', f);
		}
		put_indent(f, depth);
		fputc(obj ? '}' : ']', f);
	}
}

static int write_pretty(const char *path, const cJSON *v)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "ssa_check: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	put_value(f, v, 0);
	fputc('\n', f);
	if (fclose(f) != 0) {
		fprintf(stderr, "ssa_check: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- comparison ---- */

/* A report of the first difference: where, and the two values. */
struct diff {
	char where[1024];
	char *exp, *act;
};

static void diff_clear(struct diff *d)
{
	free(d->exp);
	free(d->act);
	memset(d, 0, sizeof *d);
}

static char *short_json(const cJSON *v)
{
	char *s = v ? cJSON_PrintUnformatted(v) : strdup("(absent)");

	if (s && strlen(s) > 300)
		strcpy(s + 297, "...");
	return s;
}

static bool differ(struct diff *d, const char *where, const cJSON *e, const cJSON *a)
{
	snprintf(d->where, sizeof d->where, "%s", where);
	d->exp = short_json(e);
	d->act = short_json(a);
	return false;
}

/* Equal as JSON values. ordered: object keys must also come in the same
 * order (fieldsV1). */
static bool json_eq(const cJSON *e, const cJSON *a, bool ordered, const char *path, struct diff *d)
{
	char sub[1024];

	if (!e || !a)
		return (e == a) || differ(d, path, e, a);
	if ((e->type & 0xff) != (a->type & 0xff))
		return differ(d, path, e, a);
	if (cJSON_IsNumber(e))
		return e->valuedouble == a->valuedouble || differ(d, path, e, a);
	if (cJSON_IsString(e))
		return strcmp(e->valuestring, a->valuestring) == 0 || differ(d, path, e, a);
	if (cJSON_IsArray(e)) {
		int ne = cJSON_GetArraySize(e), na = cJSON_GetArraySize(a), i = 0;
		const cJSON *x, *y;
		for (x = e->child, y = a->child; x && y; x = x->next, y = y->next, i++) {
			snprintf(sub, sizeof sub, "%s[%d]", path, i);
			if (!json_eq(x, y, ordered, sub, d))
				return false;
		}
		if (ne != na) {
			snprintf(sub, sizeof sub, "%s (length %d vs %d)", path, ne, na);
			return differ(d, sub, e, a);
		}
		return true;
	}
	if (cJSON_IsObject(e)) {
		const cJSON *x, *y;
		if (ordered) {
			for (x = e->child, y = a->child; x && y; x = x->next, y = y->next) {
				snprintf(sub, sizeof sub, "%s.%s", path, x->string);
				if (strcmp(x->string, y->string) != 0) {
					snprintf(sub, sizeof sub, "%s: key order or keys (%s vs %s)", path,
						 x->string, y->string);
					return differ(d, sub, e, a);
				}
				if (!json_eq(x, y, ordered, sub, d))
					return false;
			}
			if (x || y) {
				snprintf(sub, sizeof sub, "%s.%s", path, x ? x->string : y->string);
				return differ(d, sub, x, y);
			}
			return true;
		}
		for (x = e->child; x; x = x->next) {
			snprintf(sub, sizeof sub, "%s.%s", path, x->string);
			if (!json_eq(x, cJSON_GetObjectItemCaseSensitive(a, x->string), ordered, sub, d))
				return false;
		}
		for (y = a->child; y; y = y->next) {
			if (!cJSON_GetObjectItemCaseSensitive(e, y->string)) {
				snprintf(sub, sizeof sub, "%s.%s", path, y->string);
				return differ(d, sub, NULL, y);
			}
		}
		return true;
	}
	return true; /* null, true, false: the type said it all */
}

/* managedFields: entries in order; fieldsV1 with its key order. */
static bool mf_eq(const cJSON *e, const cJSON *a, struct diff *d)
{
	char sub[128];
	const cJSON *x, *y;
	int i = 0;

	if (!cJSON_IsArray(e) || !cJSON_IsArray(a))
		return differ(d, "managedFields (not a list)", e, a);
	for (x = e->child, y = a->child; x && y; x = x->next, y = y->next, i++) {
		const cJSON *fe = cJSON_GetObjectItemCaseSensitive(x, "fieldsV1");
		const cJSON *fa = cJSON_GetObjectItemCaseSensitive(y, "fieldsV1");
		cJSON *xe = cJSON_Duplicate(x, true), *ya = cJSON_Duplicate(y, true);
		bool ok;
		cJSON_DeleteItemFromObjectCaseSensitive(xe, "fieldsV1");
		cJSON_DeleteItemFromObjectCaseSensitive(ya, "fieldsV1");
		snprintf(sub, sizeof sub, "managedFields[%d]", i);
		ok = json_eq(xe, ya, false, sub, d);
		cJSON_Delete(xe);
		cJSON_Delete(ya);
		if (!ok)
			return false;
		snprintf(sub, sizeof sub, "managedFields[%d].fieldsV1", i);
		if (!json_eq(fe, fa, true, sub, d))
			return false;
	}
	if (x || y) {
		snprintf(sub, sizeof sub, "managedFields[%d] (entry count)", i);
		return differ(d, sub, x, y);
	}
	return true;
}

static bool result_eq(const cJSON *e, const cJSON *a, struct diff *d)
{
	const cJSON *eok = cJSON_GetObjectItemCaseSensitive(e, "ok");
	const cJSON *aok = cJSON_GetObjectItemCaseSensitive(a, "ok");

	if (!cJSON_IsBool(aok))
		return differ(d, "ok (missing or not a boolean)", eok, aok);
	if (!json_eq(eok, aok, false, "ok", d))
		return false;
	if (!json_eq(cJSON_GetObjectItemCaseSensitive(e, "conflicts"),
		     cJSON_GetObjectItemCaseSensitive(a, "conflicts"), false, "conflicts", d))
		return false;
	if (!cJSON_IsTrue(eok))
		return true;
	if (!json_eq(cJSON_GetObjectItemCaseSensitive(e, "object"),
		     cJSON_GetObjectItemCaseSensitive(a, "object"), false, "object", d))
		return false;
	return mf_eq(cJSON_GetObjectItemCaseSensitive(e, "managedFields"),
		     cJSON_GetObjectItemCaseSensitive(a, "managedFields"), d);
}

static void report(const char *name, const char *who, const cJSON *exp, const cJSON *act,
		   const struct diff *d)
{
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(act, "error");
	const cJSON *eerr = cJSON_GetObjectItemCaseSensitive(exp, "error");

	printf("%s: %s differs from expected.json at %s\n", name, who, d->where);
	printf("    expected: %s\n    got:      %s\n", d->exp ? d->exp : "", d->act ? d->act : "");
	if (cJSON_IsString(eerr) && *eerr->valuestring)
		printf("    expected error (not compared): %s\n", eerr->valuestring);
	if (cJSON_IsString(err) && *err->valuestring)
		printf("    %s's error: %s\n", who, err->valuestring);
}

/* ---- running a program: stdin from a file, stdout to a file ---- */

static int run(char *const argv[], const char *in, const char *out)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fi = open(in, O_RDONLY), fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fi < 0 || fo < 0 || dup2(fi, 0) < 0 || dup2(fo, 1) < 0)
			_exit(126);
		close(fi);
		close(fo);
		execv(argv[0], argv);
		fprintf(stderr, "ssa_check: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	fprintf(stderr, "ssa_check: %s killed by signal %d\n", argv[0], WTERMSIG(st));
	return 128 + WTERMSIG(st);
}

/* Reads N JSON lines from path; NULL on a short or broken stream. */
static cJSON **read_lines(const char *path, size_t n, const char *who)
{
	char *s = read_file(path, NULL), *p, *nl;
	cJSON **v = calloc(n ? n : 1, sizeof *v);
	size_t i = 0;

	if (!s || !v) {
		fprintf(stderr, "ssa_check: cannot read %s's output\n", who);
		free(s);
		free(v);
		return NULL;
	}
	for (p = s; i < n && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		char save = *nl;
		*nl = '\0';
		if (strspn(p, " \t\r") != strlen(p)) {
			v[i] = cJSON_Parse(p);
			if (!v[i] || !cJSON_IsObject(v[i])) {
				fprintf(stderr, "ssa_check: %s's answer %zu is not a JSON object: %.200s\n",
					who, i + 1, p);
				break;
			}
			i++;
		}
		*nl = save;
		if (!save)
			break;
	}
	free(s);
	if (i < n) {
		fprintf(stderr, "ssa_check: %s answered %zu of %zu cases\n", who, i, n);
		for (size_t j = 0; j < n; j++)
			cJSON_Delete(v[j]);
		free(v);
		return NULL;
	}
	return v;
}

/* ---- workspace ---- */

struct work {
	char dir[256];
};

static int work_open(struct work *w)
{
	const char *t = getenv("TMPDIR");
	snprintf(w->dir, sizeof w->dir, "%s/ssa_check.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(w->dir)) {
		fprintf(stderr, "ssa_check: mkdtemp: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void work_close(struct work *w)
{
	DIR *d = opendir(w->dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				char *p = join(w->dir, e->d_name);
				unlink(p);
				free(p);
			}
		closedir(d);
	}
	rmdir(w->dir);
}

/* The definitions NAME a case needs ("" for none); NULL on error. */
static char *case_definitions(const char *case_dir)
{
	char *p = join(case_dir, "definitions"), *s;
	size_t n;

	if (!is_file(p)) {
		free(p);
		return strdup("");
	}
	s = read_file(p, &n);
	free(p);
	if (!s)
		return NULL;
	while (n && strchr(" \t\r\n", s[n - 1]))
		s[--n] = '\0';
	if (!n || strchr(s, '/')) {
		fprintf(stderr, "ssa_check: %s/definitions: want one schema name\n", case_dir);
		free(s);
		return NULL;
	}
	return s;
}

/* Writes into the workspace the Kubernetes document plus the definitions of
 * CASES_DIR/schemas/NAME.definitions.json; returns its path (caller frees),
 * NULL with a message on error. *skip is set when the Kubernetes document
 * is missing. */
static char *merged_swagger(struct work *w, const char *cases_dir, const char *name,
			    const char *shared, bool *skip)
{
	char *kpath = join(shared, SWAGGER_REL), *dpath, *out = NULL, *s = NULL;
	char rel[300];
	cJSON *k = NULL, *defs = NULL, *kd, *d;
	FILE *f;

	*skip = false;
	if (!is_file(kpath)) {
		printf("SKIP: %s not found (the shared reference data); cases with a custom schema need it\n",
		       kpath);
		*skip = true;
		free(kpath);
		return NULL;
	}
	snprintf(rel, sizeof rel, "schemas/%s.definitions.json", name);
	dpath = join(cases_dir, rel);
	k = read_json(kpath);
	defs = read_json(dpath);
	kd = k ? cJSON_GetObjectItemCaseSensitive(k, "definitions") : NULL;
	if (!kd || !cJSON_IsObject(defs))
		goto out;
	while ((d = defs->child)) {
		cJSON_DetachItemViaPointer(defs, d);
		if (cJSON_GetObjectItemCaseSensitive(kd, d->string)) {
			fprintf(stderr, "ssa_check: %s: %s is already a Kubernetes definition\n", dpath,
				d->string);
			cJSON_Delete(d);
			goto out;
		}
		cJSON_AddItemToObject(kd, d->string, d);
	}
	snprintf(rel, sizeof rel, "swagger-%s.json", name);
	out = join(w->dir, rel);
	s = cJSON_PrintUnformatted(k);
	f = fopen(out, "w");
	if (!s || !f || fputs(s, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "ssa_check: cannot write %s\n", out);
		free(out);
		out = NULL;
	}
out:
	free(s);
	cJSON_Delete(k);
	cJSON_Delete(defs);
	free(kpath);
	free(dpath);
	return out;
}

/* ---- mode: one case through the driver ---- */

static int check_case(const char *case_dir, const char *driver, const char *shared)
{
	char *cpath = join(case_dir, "case.json"), *epath = join(case_dir, "expected.json");
	char *vpath = join(case_dir, "expected-smd-v4.4.2.json");
	char *cases_dir = strdup(case_dir), *name, *defs = NULL, *swagger = NULL;
	char *in = NULL, *outp = NULL, *line = NULL;
	cJSON *c = read_json(cpath), *e = NULL, **got = NULL;
	struct work w;
	struct diff d = {0};
	bool wopen = false, skip = false;
	int rc = 2, st;
	FILE *f;

	name = strrchr(cases_dir, '/');
	if (name) {
		*name++ = '\0';
	} else {
		name = cases_dir;
		cases_dir = NULL;
	}
	if (!c)
		goto out;
	if (!is_file(epath)) {
		printf("%s: no expected.json: run the oracle check with SMP_UPDATE_GOLDEN=1\n", name);
		rc = 1;
		goto out;
	}
	/* the server's list order where it differs from the oracle's */
	e = read_json(is_file(vpath) ? vpath : epath);
	defs = case_definitions(case_dir);
	if (!e || !defs || work_open(&w) < 0)
		goto out;
	wopen = true;
	if (*defs) {
		swagger = merged_swagger(&w, cases_dir ? cases_dir : ".", defs, shared, &skip);
		if (!swagger) {
			rc = skip ? SKIP : 2;
			goto out;
		}
	}
	in = join(w.dir, "in.jsonl");
	outp = join(w.dir, "out.jsonl");
	line = cJSON_PrintUnformatted(c);
	f = fopen(in, "w");
	if (!line || !f || fprintf(f, "%s\n", line) < 0 || fclose(f) != 0) {
		fprintf(stderr, "ssa_check: cannot write %s\n", in);
		goto out;
	}
	{
		char *argv[] = {(char *)driver, swagger ? "-swagger" : NULL, swagger, NULL};
		st = run(argv, in, outp);
	}
	if (st != 0) {
		printf("%s: the driver exited with status %d\n", name, st);
		rc = 1;
		goto out;
	}
	got = read_lines(outp, 1, "the driver");
	if (!got) {
		rc = 1;
		goto out;
	}
	if (!result_eq(e, got[0], &d)) {
		report(name, "the driver", e, got[0], &d);
		if (is_file(vpath))
			printf("    (expected: expected-smd-v4.4.2.json, expected.json in SMD v4.4.2's list order)\n");
		rc = 1;
		goto out;
	}
	rc = 0;
out:
	if (got) {
		cJSON_Delete(got[0]);
		free(got);
	}
	diff_clear(&d);
	if (wopen)
		work_close(&w);
	cJSON_free(line);
	free(in);
	free(outp);
	free(swagger);
	free(defs);
	cJSON_Delete(c);
	cJSON_Delete(e);
	free(cpath);
	free(epath);
	free(vpath);
	free(cases_dir ? cases_dir : name);
	return rc;
}

/* ---- mode: every case through the oracle ---- */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One batch: the cases of names[] sharing one schema. */
static int oracle_batch(struct work *w, const char *cases_dir, char **names, size_t n,
			const char *oracle, const char *swagger, bool update, unsigned *nfail)
{
	char *in = join(w->dir, "oracle-in.jsonl"), *outp = join(w->dir, "oracle-out.jsonl");
	cJSON **got = NULL;
	FILE *f = fopen(in, "w");
	int rc = 2, st;

	if (!f)
		goto out;
	for (size_t i = 0; i < n; i++) {
		char *cdir = join(cases_dir, names[i]), *cpath = join(cdir, "case.json");
		cJSON *c = read_json(cpath);
		char *s = c ? cJSON_PrintUnformatted(c) : NULL;
		int bad = !s || fprintf(f, "%s\n", s) < 0;
		cJSON_free(s);
		cJSON_Delete(c);
		free(cpath);
		free(cdir);
		if (bad) {
			fclose(f);
			goto out;
		}
	}
	if (fclose(f) != 0)
		goto out;
	{
		char *argv[] = {(char *)oracle, "-swagger", (char *)swagger, NULL};
		st = run(argv, in, outp);
	}
	if (st != 0) {
		printf("the oracle exited with status %d\n", st);
		rc = 1;
		goto out;
	}
	got = read_lines(outp, n, "the oracle");
	if (!got) {
		rc = 1;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char *cdir = join(cases_dir, names[i]), *epath = join(cdir, "expected.json");
		const cJSON *err = cJSON_GetObjectItemCaseSensitive(got[i], "error");
		if (cJSON_IsString(err) && strncmp(err->valuestring, "panic:", 6) == 0) {
			printf("%s: the oracle panicked: %s\n", names[i], err->valuestring);
			(*nfail)++;
		} else if (update) {
			if (write_pretty(epath, got[i]) < 0)
				(*nfail)++;
		} else if (!is_file(epath)) {
			printf("%s: no expected.json (run with SMP_UPDATE_GOLDEN=1)\n", names[i]);
			(*nfail)++;
		} else {
			cJSON *e = read_json(epath);
			struct diff d = {0};
			if (!e) {
				(*nfail)++;
			} else if (!result_eq(e, got[i], &d)) {
				report(names[i], "the oracle", e, got[i], &d);
				(*nfail)++;
			}
			diff_clear(&d);
			cJSON_Delete(e);
		}
		free(epath);
		free(cdir);
	}
	rc = 0;
out:
	if (got) {
		for (size_t i = 0; i < n; i++)
			cJSON_Delete(got[i]);
		free(got);
	}
	free(in);
	free(outp);
	return rc;
}

static int check_oracle(const char *cases_dir, const char *oracle, const char *shared)
{
	bool update = getenv("SMP_UPDATE_GOLDEN") && strcmp(getenv("SMP_UPDATE_GOLDEN"), "1") == 0;
	char **names = NULL, **defs = NULL, **batch = NULL, *kswagger = join(shared, SWAGGER_REL);
	size_t n = 0, cap = 0, ncases = 0;
	unsigned nfail = 0;
	struct work w;
	bool wopen = false;
	int rc = 2;
	DIR *dir;
	struct dirent *de;

	if (!is_exec(oracle)) {
		printf("SKIP: no oracle at %s (ssa.oracle_build could not build it; see its output)\n", oracle);
		rc = update ? 1 : SKIP;
		if (update)
			printf("SMP_UPDATE_GOLDEN=1 needs the oracle: nothing was regenerated\n");
		goto out;
	}
	if (!is_file(kswagger)) {
		printf("SKIP: %s not found (the shared reference data)\n", kswagger);
		rc = SKIP;
		goto out;
	}
	dir = opendir(cases_dir);
	if (!dir) {
		fprintf(stderr, "ssa_check: cannot open %s: %s\n", cases_dir, strerror(errno));
		goto out;
	}
	while ((de = readdir(dir))) {
		char *cdir = join(cases_dir, de->d_name), *cpath = join(cdir, "case.json");
		if (de->d_name[0] != '.' && is_file(cpath)) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				names = realloc(names, cap * sizeof *names);
				if (!names)
					exit(2);
			}
			names[n++] = strdup(de->d_name);
		}
		free(cpath);
		free(cdir);
	}
	closedir(dir);
	qsort(names, n, sizeof *names, cmp_name);
	defs = calloc(n + 1, sizeof *defs);
	batch = calloc(n + 1, sizeof *batch);
	if (!defs || !batch)
		goto out;
	for (size_t i = 0; i < n; i++) {
		char *cdir = join(cases_dir, names[i]);
		defs[i] = case_definitions(cdir);
		free(cdir);
		if (!defs[i])
			goto out;
	}
	if (work_open(&w) < 0)
		goto out;
	wopen = true;
	/* One oracle run per schema: the built-in cases first, then each
	 * custom schema in turn. */
	for (size_t i = 0; i < n; i++) {
		size_t nb = 0;
		char *swagger;
		bool skip;
		if (!defs[i])
			continue;
		const char *want = defs[i];
		for (size_t j = i; j < n; j++)
			if (defs[j] && strcmp(defs[j], want) == 0)
				batch[nb++] = names[j];
		if (*want) {
			swagger = merged_swagger(&w, cases_dir, want, shared, &skip);
			if (!swagger)
				goto out;
		} else {
			swagger = strdup(kswagger);
		}
		int brc = oracle_batch(&w, cases_dir, batch, nb, oracle, swagger, update, &nfail);
		free(swagger);
		if (brc == 2)
			goto out;
		if (brc == 1)
			nfail += (unsigned)nb;
		ncases += nb;
		char *done = strdup(want);
		for (size_t j = i; j < n; j++)
			if (defs[j] && strcmp(defs[j], done) == 0) {
				free(defs[j]);
				defs[j] = NULL;
			}
		free(done);
	}
	printf("%zu golden cases, %s by the oracle, %u failure(s)\n", ncases,
	       update ? "regenerated" : "checked", nfail);
	rc = nfail ? 1 : 0;
out:
	if (wopen)
		work_close(&w);
	for (size_t i = 0; i < n; i++) {
		free(names[i]);
		if (defs)
			free(defs[i]);
	}
	free(names);
	free(defs);
	free(batch);
	free(kswagger);
	return rc;
}

/* ---- mode: two result streams ---- */

static int check_streams(const char *epath, const char *apath)
{
	char *es = read_file(epath, NULL), *as = read_file(apath, NULL);
	char *ep, *ap, *enl, *anl;
	unsigned ndiff = 0, nline = 0;
	int rc = 2;

	if (!es || !as) {
		fprintf(stderr, "ssa_check: cannot read %s\n", es ? apath : epath);
		goto out;
	}
	for (ep = es, ap = as; *ep; ep = enl + 1, ap = anl + 1) {
		enl = strchr(ep, '\n');
		anl = strchr(ap, '\n');
		if (!enl || !anl) {
			if (!enl)
				break;
			printf("-\tdiffer\tthe second stream ends after %u lines\n", nline);
			ndiff++;
			break;
		}
		*enl = *anl = '\0';
		nline++;
		cJSON *e = cJSON_Parse(ep), *a = cJSON_Parse(ap);
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
		char *ids = id ? cJSON_PrintUnformatted(id) : strdup("?");
		struct diff d = {0};
		if (!e) {
			fprintf(stderr, "ssa_check: %s line %u is not JSON\n", epath, nline);
			cJSON_free(ids);
			goto out;
		}
		if (!a) {
			printf("%s\tdiffer\tnot a JSON answer: %.200s\n", ids, ap);
			ndiff++;
		} else if (!json_eq(id, cJSON_GetObjectItemCaseSensitive(a, "id"), false, "id", &d) ||
			   !result_eq(e, a, &d)) {
			const cJSON *err = cJSON_GetObjectItemCaseSensitive(a, "error");
			printf("%s\tdiffer\t%s: expected %s, got %s%s%s\n", ids, d.where, d.exp, d.act,
			       cJSON_IsString(err) && *err->valuestring ? "; error: " : "",
			       cJSON_IsString(err) ? err->valuestring : "");
			ndiff++;
		} else {
			printf("%s\tagree\n", ids);
		}
		diff_clear(&d);
		cJSON_free(ids);
		cJSON_Delete(e);
		cJSON_Delete(a);
	}
	rc = ndiff ? 1 : 0;
out:
	free(es);
	free(as);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "case") == 0) {
		if (!is_exec(argv[3])) {
			printf("SKIP: no driver at %s\n", argv[3]);
			return SKIP;
		}
		return check_case(argv[2], argv[3], argv[4]);
	}
	if (argc == 5 && strcmp(argv[1], "oracle") == 0)
		return check_oracle(argv[2], argv[3], argv[4]);
	if (argc == 4 && strcmp(argv[1], "cmp") == 0)
		return check_streams(argv[2], argv[3]);
	fprintf(stderr, "usage: ssa_check case CASE_DIR DRIVER SHARED_DIR\n"
			"       ssa_check oracle CASES_DIR ORACLE SHARED_DIR\n"
			"       ssa_check cmp EXPECTED.jsonl ACTUAL.jsonl\n");
	return 2;
}
