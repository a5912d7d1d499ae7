/*
 * apply.c - what `kubectl apply` does with one object: given the new
 * configuration and the live object, the action, the request body and the
 * object as it will be.
 */
#include <smpatch.h>

#include <stdio.h>
#include <string.h>

static const char config[] =
	"apiVersion: v1\n"
	"kind: ConfigMap\n"
	"metadata: {name: settings}\n"
	"data: {mode: fast, level: \"2\"}\n";

/* Live: created by an earlier apply of {mode: slow, retries: "3"}; someone
 * added `owner` by hand since. */
static const char live[] =
	"apiVersion: v1\n"
	"kind: ConfigMap\n"
	"metadata:\n"
	"  name: settings\n"
	"  namespace: default\n"
	"  annotations:\n"
	"    kubectl.kubernetes.io/last-applied-configuration: |\n"
	"      {\"apiVersion\":\"v1\",\"data\":{\"mode\":\"slow\",\"retries\":\"3\"},"
	"\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"settings\","
	"\"namespace\":\"default\"}}\n"
	"data: {mode: slow, retries: \"3\", owner: ops}\n";

static const char *const action_names[] = {"created", "configured", "unchanged", "pruned"};

static int print_json(const smp_value *v)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	smp_error err;
	char *text = NULL;
	int rc;

	po.sort_keys = true;
	rc = smp_print(&text, NULL, v, &po, &err);
	if (rc == 0)
		printf("%s\n", text);
	smp_free(text);
	return rc;
}

int main(void)
{
	smp_apply_options opts = SMP_APPLY_OPTIONS_INIT;
	smp_doc *cfg = NULL, *obj = NULL;
	smp_apply_result *res = NULL;
	smp_error err;
	int rc;

	if ((rc = smp_doc_parse(&cfg, config, strlen(config), NULL, &err)) ||
	    (rc = smp_doc_parse(&obj, live, strlen(live), NULL, &err)))
		goto out;

	/* First as if the object did not exist yet, then against the live one. */
	for (int pass = 0; pass < 2; pass++) {
		const smp_value *l = pass ? smp_doc_root(obj, 0) : NULL;

		rc = smp_apply_object(&res, l, smp_doc_root(cfg, 0), &opts, &err);
		if (rc)
			goto out;
		printf("configmap/settings %s (%s)\n",
		       action_names[smp_apply_result_action(res)],
		       smp_apply_result_patch_type(res) == SMP_PATCH_STRATEGIC ?
		       "strategic merge patch" : "merge patch");
		if (smp_apply_result_warning(res))
			printf("warning: %s\n", smp_apply_result_warning(res));
		printf("request body: ");
		if ((rc = print_json(smp_apply_result_patch(res))))
			goto out;
		printf("data after: ");
		if ((rc = print_json(smp_value_at(smp_apply_result_object(res), "data"))))
			goto out;
		smp_apply_result_free(res);
		res = NULL;
	}
out:
	if (rc)
		fprintf(stderr, "apply: %s: %s\n", smp_strerror(rc), err.message);
	smp_apply_result_free(res);
	smp_doc_free(obj);
	smp_doc_free(cfg);
	return rc ? 1 : 0;
}
