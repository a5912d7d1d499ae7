/*
 * plan.c - what `kubectl apply -f CONFIG` does, given the live objects of
 * LIVE (as `kubectl get -o yaml` prints them): for each object kubectl's
 * status line, then the change as `kubectl diff` shows it. The entries are
 * streamed: each is printed as it is decided, then freed.
 *
 *   plan CONFIG LIVE
 */
#include <smpatch.h>

#include <stdio.h>

/* Prints one entry; a failed object is reported and the others go on. */
static int show(const smp_plan_entry *e, void *user)
{
	int *failed = user;
	char *line = NULL, *diff = NULL;
	smp_error err;

	if (smp_plan_entry_action(e) == SMP_ACTION_ERROR ||
	    smp_plan_entry_action(e) == SMP_ACTION_CONFLICT) {
		char msg[2048];

		smp_error_format(msg, sizeof(msg), smp_plan_entry_error(e));
		fprintf(stderr, "error: %s\n", msg);
		*failed = 1;
		return 0;
	}
	for (size_t i = 0; i < smp_plan_entry_warning_count(e); i++)
		fprintf(stderr, "%s\n", smp_plan_entry_warning(e, i));
	if (smp_plan_entry_status_line(&line, NULL, e, SMP_PLAN_LINE_DRY_RUN, &err) ||
	    smp_plan_entry_diff(&diff, NULL, e, 0, &err)) {
		fprintf(stderr, "error: %s\n", err.message);
		smp_free(line);
		return 1; /* stops the run */
	}
	printf("%s\n%s", line, diff);
	smp_free(line);
	smp_free(diff);
	return 0;
}

int main(int argc, char **argv)
{
	smp_plan *plan = NULL;
	smp_doc *config = NULL, *live = NULL;
	smp_error err;
	int failed = 0, rc;

	if (argc != 3) {
		fprintf(stderr, "usage: plan CONFIG LIVE\n");
		return 2;
	}
	/* The plan takes the documents over, also when adding them fails. */
	if ((rc = smp_plan_new(&plan, NULL, &err)) ||
	    (rc = smp_doc_parse_file(&config, argv[1], NULL, &err)) ||
	    (rc = smp_plan_add_config(plan, config, argv[1], &err)) ||
	    (rc = smp_doc_parse_file(&live, argv[2], NULL, &err)) ||
	    (rc = smp_plan_add_live(plan, live, argv[2], &err)) ||
	    (rc = smp_plan_run(plan, show, &failed, &err))) {
		if (rc < 0) {
			char msg[2048];

			smp_error_format(msg, sizeof(msg), &err);
			fprintf(stderr, "error: %s\n", msg);
		}
		smp_plan_free(plan);
		return 1;
	}
	smp_plan_free(plan);
	return failed;
}
