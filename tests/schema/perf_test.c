/*
 * perf_test.c - the full Kubernetes v2 document (4 MB) loads, three times
 * in a row, with all its definitions. The time is printed for information
 * only: the 200 ms target is checked by `make bench` (bench/schema_load.c),
 * since timed assertions in the test suite fail on loaded machines.
 */
#include "tutil.h"

#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void)
{
	const char *dir = t_shared();
	char path[4096];
	double best = 1e9;
	smp_error err;

	if (!dir) {
		fprintf(stderr, "SKIP: SMP_SHARED_DIR with the reference data is not available\n");
		return SKIP;
	}
	snprintf(path, sizeof(path), "%s/openapi/kubernetes-1.36.swagger.json", dir);
	/* Best of three: the machine is shared. */
	for (int i = 0; i < 3; i++) {
		smp_schema *s = NULL;
		double t0 = now_ms(), dt;
		int rc = smp_schema_load_file(&s, path, &err);

		dt = now_ms() - t0;
		if (rc) {
			fprintf(stderr, "load failed: %s\n", err.message);
			return 1;
		}
		CHECK(s->ndefs == 771);
		smp_schema_free(s);
		if (dt < best)
			best = dt;
	}
	printf("loading kubernetes-1.36.swagger.json: %.1f ms (target < 200 ms: make bench)\n",
	       best);
	return failures ? 1 : 0;
}
