/*
 * selector.c - label selectors as `kubectl -l` reads them, LabelSelector
 * objects, and the label validation rules.
 */
#include <smpatch.h>

#include <stdio.h>
#include <string.h>

/* The labels of three pods, as a YAML stream (a text that starts with '{'
 * would be read as JSON, as kubectl reads it). */
static const char pods[] =
	"---\n{app: web, environment: production, tier: frontend}\n"
	"---\n{app: web, environment: qa, tier: backend}\n"
	"---\n{app: db, environment: dev, partition: a}\n";

static const char *const selectors[] = {
	"environment in (production, qa)",
	"tier notin (frontend, backend)",
	"app=web,tier!=frontend",
	"!partition",
	"",
};

int main(void)
{
	smp_doc *labels = NULL;
	smp_selector *sel = NULL;
	smp_error err;
	int rc;

	rc = smp_doc_parse(&labels, pods, strlen(pods), NULL, &err);
	if (rc)
		goto out;
	for (size_t i = 0; i < sizeof(selectors) / sizeof(selectors[0]); i++) {
		rc = smp_selector_parse(&sel, selectors[i], &err);
		if (rc)
			goto out;
		printf("%-34s", *selectors[i] ? selectors[i] : "(empty: selects all)");
		for (size_t j = 0; j < smp_doc_count(labels); j++)
			printf(" %d", smp_selector_matches(sel, smp_doc_root(labels, j)));
		printf("\n");
		smp_selector_free(sel);
		sel = NULL;
	}

	/* Syntax errors give the position (1-based column). */
	if (smp_selector_parse(&sel, "env in (a,b", &err) == SMP_EINVAL)
		printf("bad selector at column %u: %s\n", err.column, err.message);

	/* Label keys and values follow the Kubernetes rules. */
	const char *keys[] = {"app.kubernetes.io/name", "-bad", "example.com/"};
	for (size_t i = 0; i < 3; i++) {
		if (smp_label_validate_key(keys[i], &err) == 0)
			printf("key %s: valid\n", keys[i]);
		else
			printf("key %s: %s\n", keys[i], err.message);
	}
	if (smp_label_validate_value("this-value-is-way-too-long-for-a-label-value-"
	                             "because-it-has-more-than-63", &err) == SMP_EINVALOBJ)
		printf("long value rejected\n");
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "selector: %s: %s\n", smp_strerror(rc), err.message);
	smp_selector_free(sel);
	smp_doc_free(labels);
	return rc ? 1 : 0;
}
