/*
 * patch.c - apply a strategic merge patch, a JSON merge patch and a JSON
 * Patch to a Deployment, and compute a two-way patch.
 */
#include <smpatch.h>

#include <stdio.h>
#include <string.h>

static const char deployment[] =
	"apiVersion: apps/v1\n"
	"kind: Deployment\n"
	"metadata: {name: web, labels: {app: web}}\n"
	"spec:\n"
	"  replicas: 1\n"
	"  template:\n"
	"    spec:\n"
	"      containers:\n"
	"      - {name: web, image: web:1.0}\n"
	"      - {name: log, image: fluentd:1.16}\n";

/* Strategic: containers merge by name; the log container is deleted. */
static const char strategic[] =
	"{\"spec\": {\"replicas\": 3, \"template\": {\"spec\": {\"containers\": [\n"
	"  {\"name\": \"web\", \"image\": \"web:1.1\"},\n"
	"  {\"name\": \"log\", \"$patch\": \"delete\"}]}}}}";

/* JSON merge patch (RFC 7386): null deletes a key, lists are replaced. */
static const char merge[] = "{\"metadata\": {\"labels\": {\"app\": null, \"tier\": \"web\"}}}";

/* JSON Patch (RFC 6902). */
static const char jsonpatch[] =
	"[{\"op\": \"test\", \"path\": \"/spec/replicas\", \"value\": 1},\n"
	" {\"op\": \"replace\", \"path\": \"/spec/replicas\", \"value\": 5}]";

static smp_doc *parse(const char *text)
{
	smp_doc *doc = NULL;
	smp_error err;

	if (smp_doc_parse(&doc, text, strlen(text), NULL, &err))
		fprintf(stderr, "patch: %s\n", err.message);
	return doc;
}

static int show(const char *title, const smp_value *v)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	smp_error err;
	char *text = NULL;
	int rc;

	po.output = SMP_OUT_YAML;
	rc = smp_print(&text, NULL, v, &po, &err);
	if (rc == 0)
		printf("# %s\n%s", title, text);
	smp_free(text);
	return rc;
}

static int apply(const char *title, const smp_value *target, const char *patch_text,
                 smp_patch_type type)
{
	smp_patch_options opts = SMP_PATCH_OPTIONS_INIT;
	smp_doc *patch = parse(patch_text), *result = NULL;
	smp_error err;
	int rc = SMP_EPARSE;

	if (!patch)
		goto out;
	opts.type = type;
	rc = smp_patch_apply(&result, target, smp_doc_root(patch, 0), &opts, &err);
	if (rc) {
		char msg[2048];
		smp_error_format(msg, sizeof(msg), &err);
		fprintf(stderr, "patch: %s\n", msg);
		goto out;
	}
	rc = show(title, smp_doc_root(result, 0));
out:
	smp_doc_free(result);
	smp_doc_free(patch);
	return rc;
}

int main(void)
{
	smp_doc *doc = parse(deployment), *sp = parse(strategic);
	smp_doc *diff = NULL, *modified = NULL;
	smp_patch_options opts = SMP_PATCH_OPTIONS_INIT;
	smp_error err;
	int rc = SMP_EPARSE;

	if (!doc || !sp)
		goto out;
	const smp_value *target = smp_doc_root(doc, 0);
	if ((rc = apply("strategic", target, strategic, SMP_PATCH_STRATEGIC)) ||
	    (rc = apply("merge", target, merge, SMP_PATCH_MERGE)) ||
	    (rc = apply("json", target, jsonpatch, SMP_PATCH_JSON)))
		goto out;

	/* Two-way: the patch that turns the Deployment into the strategic result. */
	rc = smp_patch_apply(&modified, target, smp_doc_root(sp, 0), NULL, &err);
	if (rc)
		goto out;
	rc = smp_diff_two_way(&diff, target, smp_doc_root(modified, 0), &opts, &err);
	if (rc == 0)
		rc = show("two-way diff", smp_doc_root(diff, 0));
out:
	smp_doc_free(diff);
	smp_doc_free(modified);
	smp_doc_free(sp);
	smp_doc_free(doc);
	return rc ? 1 : 0;
}
