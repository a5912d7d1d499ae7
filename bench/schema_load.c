/*
 * schema_load.c - how long loading the full Kubernetes OpenAPI v2 document
 * takes (issue 3: under 200 ms here). Prints "best_ms ndefs"; exit 1 on a
 * load failure. Timed here, in bench/, rather than in a ctest test.
 */
#include "smpatch.h"

#include <stdio.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double best = 1e9;
	const smp_stype *pod = NULL;
	smp_error err;

	if (argc != 2) {
		fprintf(stderr, "usage: schema_load SWAGGER.json\n");
		return 2;
	}
	for (int i = 0; i < 5; i++) {
		smp_schema *s = NULL;
		double t0 = now_ms(), dt;

		if (smp_schema_load_file(&s, argv[1], &err) ||
		    smp_schema_kind(&pod, s, "v1", "Pod", &err)) {
			fprintf(stderr, "schema_load: %s\n", err.message);
			smp_schema_free(s);
			return 1;
		}
		dt = now_ms() - t0;
		smp_schema_free(s);
		if (dt < best)
			best = dt;
	}
	printf("%.1f\n", best);
	return 0;
}
