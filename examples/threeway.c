/*
 * threeway.c - the patch `kubectl apply` sends, computed from three strings:
 * the last-applied configuration, the new configuration and the live object
 * of a Deployment (the nginx walk-through of the kubectl documentation).
 *
 * Build:  cc threeway.c $(pkg-config --cflags --libs smpatch) -o threeway
 */
#include <smpatch.h>

#include <stdio.h>
#include <string.h>

/* The Deployment's selector and pod template, with the container's image:
 * the part both configurations below share. */
#define NGINX_SPEC(image)                                                      \
	"  selector:\n"                                                        \
	"    matchLabels: {app: nginx}\n"                                      \
	"  template:\n"                                                        \
	"    metadata:\n"                                                      \
	"      labels: {app: nginx}\n"                                         \
	"    spec:\n"                                                          \
	"      containers:\n"                                                  \
	"      - name: nginx\n"                                                \
	"        image: " image "\n"                                           \
	"        ports:\n"                                                     \
	"        - containerPort: 80\n"

/* What the previous `kubectl apply` wrote (the annotation's content). */
static const char last_applied[] =
	"apiVersion: apps/v1\n"
	"kind: Deployment\n"
	"metadata:\n"
	"  name: nginx-deployment\n"
	"spec:\n"
	"  minReadySeconds: 5\n"
	NGINX_SPEC("nginx:1.7.9");

/* The new configuration: image updated, minReadySeconds removed. */
static const char config[] =
	"apiVersion: apps/v1\n"
	"kind: Deployment\n"
	"metadata:\n"
	"  name: nginx-deployment\n"
	"spec:\n"
	NGINX_SPEC("nginx:1.11.9");

/* The live object: scaled to 2 replicas by hand, a default filled in. */
static const char live[] =
	"{\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\",\n"
	" \"metadata\": {\"name\": \"nginx-deployment\", \"namespace\": \"default\"},\n"
	" \"spec\": {\"replicas\": 2, \"minReadySeconds\": 5,\n"
	"  \"selector\": {\"matchLabels\": {\"app\": \"nginx\"}},\n"
	"  \"template\": {\"metadata\": {\"labels\": {\"app\": \"nginx\"}},\n"
	"   \"spec\": {\"containers\": [{\"name\": \"nginx\", \"image\": \"nginx:1.7.9\",\n"
	"    \"imagePullPolicy\": \"IfNotPresent\", \"ports\": [{\"containerPort\": 80}]}]}}}}\n";

/* Parses one document from a string; on failure prints the error. */
static int parse(smp_doc **out, const char *text, const char *name)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	smp_error err;
	int rc;

	po.filename = name;
	rc = smp_doc_parse(out, text, strlen(text), &po, &err);
	if (rc) {
		char msg[2048];
		smp_error_format(msg, sizeof(msg), &err);
		fprintf(stderr, "threeway: %s\n", msg);
	}
	return rc;
}

int main(void)
{
	smp_doc *orig = NULL, *mod = NULL, *cur = NULL, *patch = NULL;
	smp_patch_options opts = SMP_PATCH_OPTIONS_INIT;
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	smp_error err;
	char *text = NULL;
	int rc;

	if ((rc = parse(&orig, last_applied, "last-applied")) ||
	    (rc = parse(&mod, config, "config")) ||
	    (rc = parse(&cur, live, "live")))
		goto out;

	/* opts.stype NULL: the built-in schema is chosen from apiVersion/kind,
	 * so containers merge by name as they do in kubectl. */
	rc = smp_diff_three_way(&patch, smp_doc_root(orig, 0), smp_doc_root(mod, 0),
	                        smp_doc_root(cur, 0), &opts, &err);
	if (rc) {
		fprintf(stderr, "threeway: %s: %s\n", smp_strerror(rc), err.message);
		goto out;
	}

	po.output = SMP_OUT_JSON_INDENT;
	po.sort_keys = true;
	rc = smp_print(&text, NULL, smp_doc_root(patch, 0), &po, &err);
	if (rc) {
		fprintf(stderr, "threeway: %s\n", err.message);
		goto out;
	}
	fputs(text, stdout);
out:
	smp_free(text);
	smp_doc_free(patch);
	smp_doc_free(cur);
	smp_doc_free(mod);
	smp_doc_free(orig);
	return rc ? 1 : 0;
}
