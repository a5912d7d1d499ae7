/*
 * replay.c - main() of a fuzz target built without libFuzzer: runs
 * LLVMFuzzerTestOneInput over every file named on the command line or found
 * (recursively) in a directory named there. ctest runs it over the
 * committed corpus and reproducers (testdata/fuzz/TARGET) under ASan+UBSan,
 * so what a campaign found stays fixed.
 *
 * usage: fuzz_TARGET [--prefix N] PATH...
 *   --prefix N  also run each file once more per byte value 0..N-1 put in
 *               front of it (for files that are plain documents rather than
 *               fuzzer inputs, whose first byte would otherwise pick the
 *               variant by accident)
 * exit: 0 when at least one input ran and none failed (a failure aborts).
 */
#include "fuzz.h"

#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static unsigned replayed, prefixes;
static char current[4096];

/* A finding aborts: name the input that found it. */
static void on_abort(int sig)
{
	static const char msg[] = "fuzz replay: the failing input is ";
	ssize_t w = write(2, msg, sizeof(msg) - 1);
	w += write(2, current, strlen(current));
	w += write(2, "\n", 1);
	(void)w;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void run_file(const char *path, size_t size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = malloc(size + 1);

	if (!f || !b || fread(b + 1, 1, size, f) != size) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	fclose(f);
	snprintf(current, sizeof(current), "%s", path);
	LLVMFuzzerTestOneInput(b + 1, size);
	for (unsigned p = 0; p < prefixes; p++) {
		b[0] = (uint8_t)p;
		snprintf(current, sizeof(current), "%s (with byte %u in front)", path, p);
		LLVMFuzzerTestOneInput(b, size + 1);
	}
	free(b);
	replayed++;
}

static void replay(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		run_file(path, (size_t)st.st_size);
		return;
	}
	DIR *d = opendir(path);
	struct dirent *e;
	char sub[4096];

	while (d && (e = readdir(d))) {
		/* Golden cases' expected outputs are not inputs. */
		if (e->d_name[0] == '.' || strcmp(e->d_name, "expected") == 0 ||
		    strcmp(e->d_name, "args") == 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		replay(sub);
	}
	if (d)
		closedir(d);
}

int main(int argc, char **argv)
{
	int i = 1;

	if (argc > 2 && strcmp(argv[1], "--prefix") == 0) {
		prefixes = (unsigned)atoi(argv[2]);
		i = 3;
	}
	signal(SIGABRT, on_abort);
	for (; i < argc; i++)
		replay(argv[i]);
	printf("replayed %u inputs without a finding\n", replayed);
	return replayed ? 0 : 1;
}
