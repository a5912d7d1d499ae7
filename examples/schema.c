/*
 * schema.c - ask the schema how a field is patched, and patch a custom
 * resource under a schema loaded from its CustomResourceDefinition.
 */
#include <smpatch.h>

#include <stdio.h>
#include <string.h>

/* A CRD whose `ports` list is a map keyed by `port`. */
static const char crd[] =
	"apiVersion: apiextensions.k8s.io/v1\n"
	"kind: CustomResourceDefinition\n"
	"metadata: {name: gateways.example.com}\n"
	"spec:\n"
	"  group: example.com\n"
	"  scope: Namespaced\n"
	"  names: {kind: Gateway, plural: gateways}\n"
	"  versions:\n"
	"  - name: v1\n"
	"    served: true\n"
	"    storage: true\n"
	"    schema:\n"
	"      openAPIV3Schema:\n"
	"        type: object\n"
	"        properties:\n"
	"          spec:\n"
	"            type: object\n"
	"            properties:\n"
	"              ports:\n"
	"                type: array\n"
	"                x-kubernetes-list-type: map\n"
	"                x-kubernetes-list-map-keys: [port]\n"
	"                items:\n"
	"                  type: object\n"
	"                  properties:\n"
	"                    port: {type: integer}\n"
	"                    name: {type: string}\n";

static void describe(const smp_stype *root, const char *path)
{
	smp_field_info info;
	smp_error err;

	if (smp_schema_field(&info, root, path, &err)) {
		printf("%s: %s\n", path, err.message);
		return;
	}
	printf("%s: type=%s", path, info.type ? info.type : "-");
	if (info.strategy & SMP_STRATEGY_MERGE)
		printf(" strategy=merge");
	if (info.strategy & SMP_STRATEGY_RETAIN_KEYS)
		printf(" strategy=retainKeys");
	if (info.merge_key)
		printf(" mergeKey=%s", info.merge_key);
	if (info.list_type)
		printf(" listType=%s", info.list_type);
	for (size_t i = 0; info.list_map_keys && info.list_map_keys[i]; i++)
		printf(" listMapKey=%s", info.list_map_keys[i]);
	printf("\n");
}

/* Lists the properties of the object at `path` that have a patch strategy. */
static int strategic_fields(const smp_stype *root, const char *path, smp_error *err)
{
	smp_field_info info;
	int rc = smp_schema_field(&info, root, path, err);

	if (rc)
		return rc;
	printf("%s (%s) merges specially:", path, smp_stype_name(info.stype));
	for (size_t i = 0; i < smp_stype_field_count(info.stype); i++) {
		smp_field_info f;
		if ((rc = smp_stype_field_at(&f, info.stype, i, err)))
			return rc;
		if (f.strategy)
			printf(" %s", f.path);
	}
	printf("\n");
	return 0;
}

int main(void)
{
	const smp_schema *builtin = smp_schema_builtin(); /* static, never freed */
	const smp_stype *deploy = NULL, *gateway = NULL;
	smp_schema *custom = NULL;
	bool known = false;
	smp_error err;
	int rc;

	/* Built-in kinds need no file at run time. */
	rc = smp_schema_kind(&deploy, builtin, "apps/v1", "Deployment", &err);
	if (rc)
		goto fail;
	describe(deploy, "spec.template.spec.containers");
	describe(deploy, "spec.template.spec.containers.ports");
	describe(deploy, "spec.strategy");
	describe(deploy, "spec.template.spec.nosuchfield");
	if ((rc = strategic_fields(deploy, "spec.template.spec", &err)))
		goto fail;
	printf("namespaced: %s\n",
	       smp_schema_kind_namespaced(builtin, "apps/v1", "Deployment", &known) ?
	       "yes" : "no");

	/* A custom kind: load its CRD, then look the kind up in it. */
	rc = smp_schema_load(&custom, crd, strlen(crd), "gateway-crd.yaml", &err);
	if (rc)
		goto fail;
	rc = smp_schema_kind(&gateway, custom, "example.com/v1", "Gateway", &err);
	if (rc)
		goto fail;
	describe(gateway, "spec.ports");
	smp_schema_free(custom);
	return 0;
fail:
	fprintf(stderr, "schema: %s: %s\n", smp_strerror(rc), err.message);
	smp_schema_free(custom);
	return 1;
}
