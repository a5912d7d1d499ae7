/*
 * fuzz_codec.c - fuzz target for the codec: parse (format chosen by the
 * first byte), print every document in every format, read the output back.
 * Anything but an error code is a bug: a crash, a sanitizer report, a hang,
 * or printed output that does not read back.
 *
 * With libFuzzer (cmake -DSMP_FUZZ=ON, clang): the target
 * `fuzz_codec_libfuzzer`. Without it, main() below replays files and
 * directories given as arguments: the ctest `codec/fuzz-replay` runs it over
 * the corpus and the reproducers kept in testdata/codec-fuzz.
 */
#include "smpatch.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_doc *doc;
	smp_error err;

	if (size < 1)
		return 0;
	po.format = (smp_format)(data[0] % 3);
	po.max_alias_nodes = 100000;
	if (smp_doc_parse(&doc, (const char *)data + 1, size - 1, &po, &err) != 0) {
		if (!err.message[0])
			abort(); /* every error has a message */
		return 0;
	}
	for (size_t i = 0; i < smp_doc_count(doc); i++) {
		for (int o = 0; o < 3; o++) {
			smp_print_options pr = SMP_PRINT_OPTIONS_INIT;
			char *s;
			size_t sl;
			pr.output = (smp_output)o;
			pr.sort_keys = o == 1;
			if (smp_print(&s, &sl, smp_doc_root(doc, i), &pr, &err) != 0)
				continue;
			smp_parse_options p2 = SMP_PARSE_OPTIONS_INIT;
			smp_doc *back;
			p2.format = o == SMP_OUT_YAML ? SMP_FORMAT_YAML : SMP_FORMAT_JSON;
			p2.max_depth = 100000;
			p2.max_alias_nodes = 100000;
			if (smp_doc_parse(&back, s, sl, &p2, &err) == 0)
				smp_doc_free(back);
			else if (err.code != SMP_ELIMIT)
				abort(); /* our own output must read back */
			free(s);
		}
	}
	smp_doc_free(doc);
	return 0;
}

#ifndef SMP_LIBFUZZER
static int replayed;

static void replay(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		char sub[4096];
		while (d && (e = readdir(d))) {
			if (e->d_name[0] == '.' || strstr(e->d_name, "expected"))
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			replay(sub);
		}
		if (d)
			closedir(d);
		return;
	}
	FILE *f = fopen(path, "rb");
	uint8_t *b = malloc((size_t)st.st_size + 1);
	if (f && b && fread(b + 1, 1, (size_t)st.st_size, f) == (size_t)st.st_size) {
		/* As given (the first byte picks the format), and as each format. */
		LLVMFuzzerTestOneInput(b + 1, (size_t)st.st_size);
		for (uint8_t fmt = 0; fmt < 3; fmt++) {
			b[0] = fmt;
			LLVMFuzzerTestOneInput(b, (size_t)st.st_size + 1);
		}
		replayed++;
	}
	if (f)
		fclose(f);
	free(b);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		replay(argv[i]);
	printf("replayed %d inputs without a failure\n", replayed);
	return replayed ? 0 : 1;
}
#endif
