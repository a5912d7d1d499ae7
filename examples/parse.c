/*
 * parse.c - read YAML or JSON, walk the values, print them back.
 *
 * A document set owns every value parsed from one buffer; one
 * smp_doc_free() releases it all. Errors carry file, line and column.
 */
#include <smpatch.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char manifests[] =
	"apiVersion: v1\n"
	"kind: ConfigMap\n"
	"metadata:\n"
	"  name: settings\n"
	"data:\n"
	"  mode: \"on\"     # quoted: a string, not a boolean\n"
	"  retries: \"3\"\n"
	"---\n"
	"apiVersion: v1\n"
	"kind: Service\n"
	"metadata: {name: web}\n"
	"spec:\n"
	"  ports:\n"
	"  - port: 80\n"
	"    targetPort: 0x1F90  # YAML 1.1 hex: the integer 8080\n";

static const char broken[] = "metadata:\n  name: a\n  name: b\n";

int main(void)
{
	smp_parse_options opts = SMP_PARSE_OPTIONS_INIT;
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	smp_doc *doc = NULL, *bad = NULL;
	smp_error err;
	int rc;

	opts.filename = "manifests.yaml";
	rc = smp_doc_parse(&doc, manifests, strlen(manifests), &opts, &err);
	if (rc) {
		fprintf(stderr, "parse: %s\n", err.message);
		return 1;
	}

	/* One root per YAML document; values are read through accessors. */
	for (size_t i = 0; i < smp_doc_count(doc); i++) {
		const smp_value *root = smp_doc_root(doc, i);
		const smp_value *kind = smp_value_at(root, "kind");
		const smp_value *name = smp_value_at(root, "metadata.name");
		char *json = NULL;

		printf("%s/%s (line %u)\n", smp_value_string(kind, NULL),
		       smp_value_string(name, NULL), smp_value_line(root));
		rc = smp_print(&json, NULL, root, &po, &err); /* compact JSON */
		if (rc) {
			fprintf(stderr, "parse: %s\n", err.message);
			break;
		}
		printf("  %s\n", json);
		smp_free(json);
	}

	/* Scalars resolve as kubectl resolves them. */
	const smp_value *ports = smp_value_at(smp_doc_root(doc, 1), "spec.ports");
	const smp_value *target = smp_map_get(smp_list_get(ports, 0), "targetPort");
	if (smp_value_type(target) == SMP_INT)
		printf("targetPort is the integer %" PRId64 "\n", smp_value_int(target));

	/* Back to YAML, keys sorted. */
	if (!rc) {
		char *yaml = NULL;
		po.output = SMP_OUT_YAML;
		po.sort_keys = true;
		rc = smp_print(&yaml, NULL, smp_doc_root(doc, 0), &po, &err);
		if (rc)
			fprintf(stderr, "parse: %s\n", err.message);
		else
			fputs(yaml, stdout);
		smp_free(yaml);
	}

	/* A duplicate key is an error with a position. */
	opts.filename = "broken.yaml";
	if (smp_doc_parse(&bad, broken, strlen(broken), &opts, &err) == SMP_EPARSE)
		printf("rejected: %s:%u:%u\n", err.file, err.line, err.column);

	smp_doc_free(bad); /* NULL after a failed parse: freeing it is fine */
	smp_doc_free(doc);
	return rc ? 1 : 0;
}
