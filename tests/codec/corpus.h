/*
 * corpus.h - walking the golden-case directories the codec tests read as a
 * corpus (testdata/codec...): every file below `dir` (subdirectories
 * first-come, dot files skipped) whose path `want` accepts is handed to
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

static bool corpus_walk_in(const char *dir, bool (*want)(const char *path),
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
		else if (want(path))
			*go_on = visit(path, (size_t)st.st_size, ctx);
	}
	closedir(d);
	return true;
}

static bool corpus_walk(const char *dir, bool (*want)(const char *path), corpus_visit visit,
                        void *ctx)
{
	bool go_on = true;

	return corpus_walk_in(dir, want, visit, ctx, &go_on);
}

/* The file name of a path. */
static inline const char *corpus_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* True for the expected standard output of a golden case's run NAME
 * (json or yaml): CASE/expected/NAME/stdout. */
static inline bool corpus_output(const char *path, const char *name)
{
	char tail[64];
	size_t n = strlen(path), k;

	snprintf(tail, sizeof(tail), "/expected/%s/stdout", name);
	k = strlen(tail);
	return n >= k && strcmp(path + n - k, tail) == 0;
}

/* A golden case's command line (args, args.json, args.yaml), not data. */
static inline bool corpus_args(const char *path)
{
	return strncmp(corpus_base(path), "args", 4) == 0;
}

/* The inputs of the golden cases: input.* and YAML files that are not
 * expected outputs or command lines. */
static inline bool corpus_input(const char *path)
{
	const char *name = corpus_base(path);

	return strncmp(name, "input.", 6) == 0 ||
	       (strstr(name, ".yaml") && !strstr(name, "expected") && !corpus_args(path));
}

#endif
