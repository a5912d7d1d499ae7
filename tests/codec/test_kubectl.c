/*
 * test_kubectl.c - differential test against kubectl.
 *
 * For every *.yaml in DIR (Widget objects of apiVersion example.com/v1,
 * which kubectl passes through untyped), the JSON that
 *     SMPATCH convert -o json --sort-keys FILE
 * prints must equal what
 *     kubectl patch --local -f FILE --type merge -p '{}' -o json
 * prints, byte for byte (so numbers compare by their text), and as values
 * read by our reader. Where kubectl rejects a file, we must exit 3. Files
 * that say "smpatch is stricter here on purpose" may be rejected by us
 * alone, with a duplicate-key error. And our YAML printer is checked the
 * same way: kubectl must read `SMPATCH convert -o yaml FILE` exactly as it read
 * FILE. Exits 77 (skip) without kubectl.
 *
 * Usage: test_kubectl SMPATCH DIR
 */
#include "smpatch.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct out {
	char *buf;
	size_t len;
	int status; /* exit code, or -1 */
} out;

static void run(const char *cmd, out *o)
{
	FILE *p = popen(cmd, "r");
	size_t cap = 1 << 16;

	o->buf = malloc(cap);
	o->len = 0;
	o->status = -1;
	if (!p || !o->buf)
		return;
	for (;;) {
		if (o->len + 4096 > cap) {
			cap *= 2;
			o->buf = realloc(o->buf, cap);
			if (!o->buf)
				break;
		}
		size_t n = fread(o->buf + o->len, 1, cap - o->len - 1, p);
		if (n == 0)
			break;
		o->len += n;
	}
	if (o->buf)
		o->buf[o->len] = '\0';
	int st = pclose(p);
	if (st != -1 && WIFEXITED(st))
		o->status = WEXITSTATUS(st);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool file_says_stricter(const char *path)
{
	FILE *f = fopen(path, "rb");
	char line[512];
	bool yes = false;

	if (!f)
		return false;
	while (!yes && fgets(line, sizeof(line), f))
		yes = strstr(line, "smpatch is stricter here on purpose") != NULL;
	fclose(f);
	return yes;
}

static bool same_values(const out *a, const out *b)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *x = NULL, *y = NULL;
	smp_error err;
	bool eq;

	po.format = SMP_FORMAT_JSON;
	eq = smp_doc_parse(&x, a->buf, a->len, &po, &err) == 0 &&
	     smp_doc_parse(&y, b->buf, b->len, &po, &err) == 0 &&
	     smp_doc_count(x) == smp_doc_count(y);
	for (size_t i = 0; eq && i < smp_doc_count(x); i++)
		eq = smp_value_equal(smp_doc_root(x, i), smp_doc_root(y, i));
	smp_doc_free(x);
	smp_doc_free(y);
	return eq;
}

int main(int argc, char **argv)
{
	char *names[1024], cmd[8192], path[4096];
	size_t n = 0;
	int failures = 0, both_reject = 0, same = 0, stricter = 0, yaml_same = 0;
	DIR *d;
	struct dirent *e;

	if (argc != 3) {
		fprintf(stderr, "usage: test_kubectl CONVERT DIR\n");
		return 2;
	}
	if (system("command -v kubectl >/dev/null 2>&1") != 0) {
		printf("SKIP: kubectl is not on PATH; the differential test needs it\n");
		return 77;
	}
	d = opendir(argv[2]);
	if (!d) {
		printf("FAIL: cannot open %s\n", argv[2]);
		return 1;
	}
	while ((e = readdir(d)) && n < 1024)
		if (strstr(e->d_name, ".yaml"))
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);

	for (size_t i = 0; i < n; i++) {
		out k, o, oe;
		snprintf(path, sizeof(path), "%s/%s", argv[2], names[i]);
		snprintf(cmd, sizeof(cmd),
		         "kubectl patch --local -f '%s' --type merge -p '{}' -o json 2>/dev/null", path);
		run(cmd, &k);
		snprintf(cmd, sizeof(cmd), "'%s' convert -o json --sort-keys '%s' 2>/dev/null", argv[1], path);
		run(cmd, &o);
		snprintf(cmd, sizeof(cmd), "'%s' convert -o json --sort-keys '%s' 2>&1 >/dev/null", argv[1],
		         path);
		run(cmd, &oe);
		if (k.status != 0) {
			if (o.status == 3) {
				both_reject++;
			} else {
				printf("FAIL %s: kubectl rejects it, smpatch exits %d\n", names[i], o.status);
				failures++;
			}
		} else if (o.status == 3 && file_says_stricter(path) &&
		           strstr(oe.buf ? oe.buf : "", "duplicate key")) {
			stricter++;
		} else if (o.status != 0) {
			printf("FAIL %s: kubectl accepts it, smpatch exits %d: %s", names[i], o.status,
			       oe.buf ? oe.buf : "");
			failures++;
		} else if (k.len != o.len || memcmp(k.buf, o.buf, k.len) != 0) {
			printf("FAIL %s: output differs%s\n--- kubectl\n%s\n--- smpatch\n%s\n", names[i],
			       same_values(&k, &o) ? " (same values, different text)" : "", k.buf,
			       o.buf);
			failures++;
		} else if (!same_values(&k, &o)) {
			printf("FAIL %s: our reader reads the same text differently\n", names[i]);
			failures++;
		} else {
			same++;
			/* kubectl reads our YAML output as it read the input. */
			char tmp[] = "/tmp/smp-kubectl-XXXXXX";
			int fd = mkstemp(tmp);
			out y, k2;
			snprintf(cmd, sizeof(cmd), "'%s' convert -o yaml '%s' > '%s' 2>/dev/null", argv[1], path,
			         tmp);
			if (fd < 0 || system(cmd) != 0) {
				printf("FAIL %s: cannot write our YAML output\n", names[i]);
				failures++;
			} else {
				snprintf(cmd, sizeof(cmd),
				         "kubectl patch --local -f '%s' --type merge -p '{}' -o json "
				         "2>&1",
				         tmp);
				run(cmd, &k2);
				if (k2.status != 0 || k2.len != k.len || memcmp(k2.buf, k.buf, k.len) != 0) {
					snprintf(cmd, sizeof(cmd), "'%s' convert -o yaml '%s'", argv[1], path);
					run(cmd, &y);
					printf("FAIL %s: kubectl reads our YAML output differently:\n%s\n"
					       "--- kubectl on it\n%s\n",
					       names[i], y.buf ? y.buf : "", k2.buf ? k2.buf : "");
					free(y.buf);
					failures++;
				} else {
					yaml_same++;
				}
				free(k2.buf);
			}
			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
		}
		free(k.buf);
		free(o.buf);
		free(oe.buf);
		free(names[i]);
	}
	printf("%zu documents: %d identical (%d also through our YAML output), %d rejected by "
	       "both, %d rejected only by us (duplicate keys, on purpose), %d failures\n",
	       n, same, yaml_same, both_reject, stricter, failures);
	if (n < 30) {
		printf("FAIL: fewer than 30 documents in %s\n", argv[2]);
		return 1;
	}
	return failures ? 1 : 0;
}
