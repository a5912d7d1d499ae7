/*
 * perf_test.c - loading the full Kubernetes v2 document (4 MB) is fast.
 * Prints the time; fails above the budget (200 ms; relaxed under
 * sanitizers, whose overhead is not the loader's).
 */
#include "tutil.h"

#include <time.h>

#ifndef SMP_PERF_BUDGET_MS
#define SMP_PERF_BUDGET_MS 200
#endif

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
	printf("loading kubernetes-1.36.swagger.json: %.1f ms (budget %d ms)\n", best,
	       SMP_PERF_BUDGET_MS);
	CHECK(best < SMP_PERF_BUDGET_MS);
	return t_failures ? 1 : 0;
}
