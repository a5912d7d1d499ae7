/*
 * read_file.h - reads a whole file into memory, for the programs that stand
 * apart from the library and its parser (tests/ssa/ssa_check.c,
 * bench/jsoncmp.c: both read JSON with cJSON).
 */
#ifndef SMP_TESTS_READ_FILE_H
#define SMP_TESTS_READ_FILE_H

#include <stdio.h>
#include <stdlib.h>

/* The content of the file at path, NUL-terminated, its length in *len
 * unless len is NULL; NULL when the file cannot be opened or read, or
 * memory runs out. The caller frees it. */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			cap = cap ? cap * 2 : 131072;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

#endif
