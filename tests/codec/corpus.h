/*
 * corpus.h - walking the golden-case directories the codec tests read as a
 * corpus (testdata/codec...): every file below `dir` (subdirectories
 * first-come, dot files skipped) whose name `want` accepts is handed to
 * `visit` with its path and size; `visit` returns false to stop the walk.
 * Returns false when `dir` cannot be opened.
 */
#ifndef SMP_CODEC_CORPUS_H
#define SMP_CODEC_CORPUS_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef bool (*corpus_visit)(const char *path, size_t size, void *ctx);

static bool corpus_walk_in(const char *dir, bool (*want)(const char *name),
                           corpus_visit visit, void *ctx, bool *go_on)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return false;
	while (*go_on && (e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			corpus_walk_in(path, want, visit, ctx, go_on);
		else if (want(e->d_name))
			*go_on = visit(path, (size_t)st.st_size, ctx);
	}
	closedir(d);
	return true;
}

static bool corpus_walk(const char *dir, bool (*want)(const char *name), corpus_visit visit,
                        void *ctx)
{
	bool go_on = true;

	return corpus_walk_in(dir, want, visit, ctx, &go_on);
}

/* The inputs of the golden cases: input.* and YAML files that are not
 * expected outputs. */
static inline bool corpus_input(const char *name)
{
	return strncmp(name, "input.", 6) == 0 || (strstr(name, ".yaml") && !strstr(name, "expected"));
}

#endif
