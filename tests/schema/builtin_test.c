/*
 * builtin_test.c - the built-in tables: kinds by apiVersion+kind, scope,
 * field lookups through lists and maps, errors for unknown names.
 */
#include "tutil.h"

static void field_is(const smp_stype *root, const char *path, const char *type,
                     unsigned strategy, const char *key, const char *list_type,
                     const char *keys, const char *format)
{
	smp_field_info fi;
	smp_error err;
	char got[256] = "";
	size_t n = 0;

	if (smp_schema_field(&fi, root, path, &err)) {
		fprintf(stderr, "%s: %s\n", path, err.message);
		failures++;
		return;
	}
	CHECK_STR(fi.path, path);
	CHECK_STR(fi.type, type);
	if (fi.strategy != strategy) {
		fprintf(stderr, "%s: strategy %u, expected %u\n", path, fi.strategy, strategy);
		failures++;
	}
	CHECK_STR(fi.merge_key, key);
	CHECK_STR(fi.list_type, list_type);
	CHECK_STR(fi.format, format);
	for (const char *const *k = fi.list_map_keys; k && *k; k++)
		n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%s", n ? "," : "", *k);
	CHECK_STR(fi.list_map_keys ? got : NULL, keys);
}

static void scope_is(const char *av, const char *kind, int want)
{
	bool known;
	bool ns = smp_schema_kind_namespaced(smp_schema_builtin(), av, kind, &known);

	if (!known || (int)ns != want) {
		fprintf(stderr, "%s %s: namespaced %d known %d, expected %d\n", av, kind, ns, known,
		        want);
		failures++;
	}
}

int main(void)
{
	const smp_schema *b = smp_schema_builtin();
	const smp_stype *dep = NULL, *pod = NULL, *t = NULL;
	smp_field_info fi;
	smp_error err;

	CHECK(b->ndefs == 771);
	CHECK(smp_schema_kind(&dep, b, "apps/v1", "Deployment", &err) == 0);
	CHECK(smp_schema_kind(&pod, b, "v1", "Pod", &err) == 0);
	if (!dep || !pod)
		return 1;
	CHECK_STR(dep->name, "io.k8s.api.apps.v1.Deployment");
	CHECK_STR(pod->name, "io.k8s.api.core.v1.Pod");
	CHECK(smp_schema_definition(&t, b, "io.k8s.api.core.v1.PodSpec", &err) == 0 && t);

	/* Exact group and version only. */
	CHECK(smp_schema_kind(&t, b, "apps/v2", "Deployment", &err) == SMP_ESCHEMA);
	CHECK(t == NULL);
	CHECK(strstr(err.message, "Deployment") && strstr(err.message, "apps/v1"));
	CHECK(smp_schema_kind(&t, b, "extensions/v1", "Deployment", &err) == SMP_ESCHEMA);
	CHECK(smp_schema_kind(&t, b, "v1", "Deployment", &err) == SMP_ESCHEMA);
	CHECK(smp_schema_kind(&t, b, "v1", "NoSuchKind", &err) == SMP_ESCHEMA);
	CHECK(smp_schema_definition(&t, b, "io.k8s.api.core.v1.Nope", &err) == SMP_ESCHEMA);
	CHECK(smp_schema_kind(&t, b, "batch/v1", "CronJob", &err) == 0);
	CHECK(smp_schema_kind(&t, b, "rbac.authorization.k8s.io/v1", "ClusterRole", &err) == 0);

	/* Legacy kinds kubectl still patches strategically get the schema of
	 * the served version. */
	CHECK(smp_schema_kind(&t, b, "extensions/v1beta1", "Deployment", &err) == 0 && t == dep);
	CHECK(smp_schema_kind(&t, b, "apps/v1beta2", "Deployment", &err) == 0 && t == dep);
	CHECK(smp_schema_kind(&t, b, "batch/v1beta1", "CronJob", &err) == 0);
	CHECK(t && !strcmp(t->name, "io.k8s.api.batch.v1.CronJob"));
	CHECK(smp_schema_kind(&t, b, "extensions/v1beta1", "Ingress", &err) == 0);
	CHECK(t && !strcmp(t->name, "io.k8s.api.networking.v1.Ingress"));
	CHECK(smp_schema_kind(&t, b, "extensions/v1beta1", "PodSecurityPolicy", &err) ==
	      SMP_ESCHEMA);
	scope_is("extensions/v1beta1", "Deployment", 1);
	scope_is("rbac.authorization.k8s.io/v1beta1", "ClusterRole", 0);
	scope_is("v1", "Pod", 1);
	scope_is("apps/v1", "Deployment", 1);
	scope_is("v1", "ConfigMap", 1);
	scope_is("v1", "Node", 0);
	scope_is("v1", "Namespace", 0);
	scope_is("v1", "PersistentVolume", 0);
	scope_is("rbac.authorization.k8s.io/v1", "ClusterRole", 0);
	scope_is("rbac.authorization.k8s.io/v1", "Role", 1);
	scope_is("apiextensions.k8s.io/v1", "CustomResourceDefinition", 0);
	{
		bool known = true;

		smp_schema_kind_namespaced(b, "v1", "NoSuchKind", &known);
		CHECK(!known);
	}
	/* kubectl's scheme (kubectl apply: strategic or JSON merge patch) */
	{
		static const struct { const char *av, *kind; bool in; } sch[] = {
			{"v1", "Pod", true}, {"apps/v1", "Deployment", true},
			{"extensions/v1beta1", "Deployment", true},
			{"internal.apiserver.k8s.io/v1alpha1", "StorageVersion", true},
			{"apiextensions.k8s.io/v1", "CustomResourceDefinition", false},
			{"apiextensions.k8s.io/v1", "CustomResourceDefinitionList", false},
			{"apiregistration.k8s.io/v1", "APIService", false},
			{"admission.k8s.io/v1", "WatchEvent", false},
			{"imagepolicy.k8s.io/v1alpha1", "DeleteOptions", false},
		};
		for (size_t i = 0; i < sizeof(sch) / sizeof(sch[0]); i++) {
			const smp_gvk_entry *e = smp_schema_find_kind(b, sch[i].av, sch[i].kind, true);

			CHECK(e && e->kubectl_scheme == sch[i].in);
		}
	}
	/* resource names from the paths (not guessed: endpoints, not endpointses) */
	CHECK_STR(smp_schema_kind_resource(b, "v1", "Endpoints"), "endpoints");
	CHECK_STR(smp_schema_kind_resource(b, "v1", "Namespace"), "namespaces");
	CHECK_STR(smp_schema_kind_resource(b, "v1", "Binding"), "bindings");
	CHECK_STR(smp_schema_kind_resource(b, "networking.k8s.io/v1", "NetworkPolicy"),
	          "networkpolicies");
	CHECK_STR(smp_schema_kind_resource(b, "extensions/v1beta1", "Ingress"), "ingresses");
	CHECK_STR(smp_schema_kind_resource(b, "apiextensions.k8s.io/v1", "CustomResourceDefinition"),
	          "customresourcedefinitions");
	/* a version the tables lack: another version of the group */
	CHECK_STR(smp_schema_kind_resource(b, "apps/v1beta9", "StatefulSet"), "statefulsets");
	CHECK(!smp_schema_kind_resource(b, "policy/v1", "Eviction")); /* only a subresource */
	CHECK(!smp_schema_kind_resource(b, "v1", "PodList"));
	{
		/* a run-time document: plain paths only, the kind's own group/version */
		static const char doc[] =
			"{\"swagger\":\"2.0\",\"definitions\":{"
			"\"a.Thing\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}},"
			"\"x-kubernetes-group-version-kind\":[{\"group\":\"g.io\",\"version\":\"v1\",\"kind\":\"Thing\"}]},"
			"\"a.Other\":{\"type\":\"object\",\"properties\":{},"
			"\"x-kubernetes-group-version-kind\":[{\"group\":\"h.io\",\"version\":\"v1\",\"kind\":\"Other\"}]}},"
			"\"paths\":{"
			"\"/apis/g.io/v1/namespaces/{namespace}/things/{name}/other\":{\"post\":{\"x-kubernetes-group-version-kind\":{\"group\":\"h.io\",\"version\":\"v1\",\"kind\":\"Other\"}}},"
			"\"/apis/g.io/v1/watch/namespaces/{namespace}/thingz\":{\"get\":{\"x-kubernetes-group-version-kind\":{\"group\":\"g.io\",\"version\":\"v1\",\"kind\":\"Thing\"}}},"
			"\"/apis/g.io/v1/namespaces/{namespace}/things/{name}/status\":{\"get\":{\"x-kubernetes-group-version-kind\":{\"group\":\"g.io\",\"version\":\"v1\",\"kind\":\"Thing\"}}},"
			"\"/apis/g.io/v1/namespaces/{namespace}/things/{name}\":{\"get\":{\"x-kubernetes-group-version-kind\":{\"group\":\"g.io\",\"version\":\"v1\",\"kind\":\"Thing\"}}}"
			"}}";
		smp_schema *s = t_load_text(doc, sizeof(doc) - 1, "doc.json");

		if (s) {
			const smp_gvk_entry *e = smp_schema_find_kind(s, "g.io/v1", "Thing", true);

			CHECK_STR(smp_schema_kind_resource(s, "g.io/v1", "Thing"), "things");
			CHECK(!smp_schema_kind_resource(s, "h.io/v1", "Other"));
			CHECK(e && !e->kubectl_scheme && e->namespaced == 1);
		}
		smp_schema_free(s);
	}

	field_is(dep, "", "object", 0, NULL, NULL, NULL, NULL);
	field_is(dep, "spec.replicas", "integer", 0, NULL, NULL, NULL, "int32");
	field_is(dep, "spec.template.spec.containers", "array", SMP_STRATEGY_MERGE, "name",
	         "map", "name", NULL);
	field_is(dep, "spec.template.spec.containers.ports", "array", SMP_STRATEGY_MERGE,
	         "containerPort", "map", "containerPort,protocol", NULL);
	field_is(dep, "spec.template.spec.containers.ports.containerPort", "integer", 0, NULL,
	         NULL, NULL, "int32");
	field_is(dep, "spec.template.spec.volumes", "array",
	         SMP_STRATEGY_MERGE | SMP_STRATEGY_RETAIN_KEYS, "name", "map", "name", NULL);
	field_is(dep, "spec.strategy", "object", SMP_STRATEGY_RETAIN_KEYS, NULL, NULL, NULL, NULL);
	field_is(dep, "spec.strategy.rollingUpdate.maxSurge", "string", 0, NULL, NULL, NULL,
	         "int-or-string");
	field_is(dep, "metadata.labels", "map", 0, NULL, NULL, NULL, NULL);
	field_is(dep, "metadata.labels.app", "string", 0, NULL, NULL, NULL, NULL);
	field_is(dep, "metadata.finalizers", "array", SMP_STRATEGY_MERGE, NULL, "set", NULL, NULL);
	field_is(dep, "metadata.creationTimestamp", "string", 0, NULL, NULL, NULL, "date-time");
	field_is(pod, "spec.containers.resources.limits", "map", 0, NULL, NULL, NULL, NULL);
	field_is(pod, "spec.containers.resources.limits.cpu", "string", 0, NULL, NULL, NULL,
	         "quantity");
	field_is(pod, "spec.containers.args", "array", 0, NULL, "atomic", NULL, NULL);
	field_is(pod, "spec.tolerations", "array", 0, NULL, "atomic", NULL, NULL);

	/* Int-or-string and embedded raw objects carry their flags. */
	CHECK(smp_schema_field(&fi, dep, "spec.strategy.rollingUpdate.maxSurge", &err) == 0);
	CHECK(fi.stype && (fi.stype->flags & SMP_SFLAG_INT_OR_STRING));
	CHECK(smp_schema_field(&fi, pod, "metadata.managedFields.fieldsV1", &err) == 0);
	CHECK(fi.stype && fi.stype->kind == SMP_SKIND_MAP &&
	      (fi.stype->flags & SMP_SFLAG_NO_PROPERTIES));

	/* Unknown fields name the first unknown segment. */
	CHECK(smp_schema_field(&fi, dep, "spec.template.spec.containerz.image", &err) ==
	      SMP_ESCHEMA);
	CHECK(strstr(err.message, "\"containerz\"") != NULL);
	CHECK(strstr(err.message, "spec.template.spec.containerz") != NULL);
	CHECK(fi.type == NULL);
	CHECK(smp_schema_field(&fi, dep, "spec.replicas.x", &err) == SMP_ESCHEMA);
	CHECK(strstr(err.message, "\"x\"") != NULL);
	CHECK(smp_schema_field(&fi, dep, "spec..replicas", &err) == SMP_EINVAL);
	CHECK(smp_schema_field(&fi, NULL, "spec", &err) == SMP_EINVAL);

	/* Internal helpers. */
	{
		const char *g, *v;
		size_t gl, vl;
		bool ok;

		smp_split_api_version("apps/v1", &g, &gl, &v, &vl);
		CHECK(gl == 4 && !strncmp(g, "apps", 4) && vl == 2 && !strcmp(v, "v1"));
		smp_split_api_version("v1", &g, &gl, &v, &vl);
		CHECK(gl == 0 && vl == 2 && !strcmp(v, "v1"));
		smp_split_api_version("", &g, &gl, &v, &vl);
		CHECK(gl == 0 && vl == 0);
		CHECK(smp_schema_find_kind(b, "apps/v1", "Deployment", true)->type == dep);
		CHECK(smp_schema_find_kind(b, "apps/v9", "Deployment", true) == NULL);
		CHECK(smp_schema_find_kind(b, "apps/v9", "Deployment", false)->type == dep);
		CHECK(smp_schema_find_kind(b, "v9", "Pod", false)->type == pod);
		CHECK(smp_schema_find_kind(b, "nogroup/v1", "Pod", false) == NULL);
		CHECK(smp_strategy_parse("merge", 5, &ok) == SMP_STRATEGY_MERGE && ok);
		CHECK(smp_strategy_parse("merge,retainKeys", 16, &ok) ==
		      (SMP_STRATEGY_MERGE | SMP_STRATEGY_RETAIN_KEYS) && ok);
		CHECK(smp_strategy_parse("replace", 7, &ok) == SMP_STRATEGY_REPLACE && ok);
		smp_strategy_parse("", 0, &ok);
		CHECK(!ok);
		smp_strategy_parse("merge,", 6, &ok);
		CHECK(!ok);
		smp_strategy_parse("Merge", 5, &ok);
		CHECK(!ok);
		CHECK(smp_stype_field(dep, "spec", 4) != NULL);
		CHECK(smp_stype_field(dep, "spe", 3) == NULL);
		CHECK(smp_stype_field(dep, "specs", 5) == NULL);
		CHECK(smp_stype_field(&smp_stype_any, "spec", 4) == NULL);
		/* Every object's fields are sorted, every definition is sorted. */
		for (size_t i = 0; i < b->ndefs; i++) {
			const smp_stype *d = b->defs[i].type;

			CHECK(i == 0 || strcmp(b->defs[i - 1].name, b->defs[i].name) < 0);
			for (uint32_t j = 1; j < d->nfields; j++)
				CHECK(strcmp(d->fields[j - 1].name, d->fields[j].name) < 0);
		}
	}

	/* Public introspection. */
	{
		const smp_stype *spec = NULL, *containers;
		size_t n;

		CHECK(smp_stype_kind(dep) == SMP_SKIND_OBJECT);
		CHECK_STR(smp_stype_name(dep), "io.k8s.api.apps.v1.Deployment");
		CHECK(smp_stype_kind(NULL) == SMP_SKIND_ANY && !smp_stype_name(NULL));
		CHECK(smp_stype_elem(dep) == NULL && smp_stype_field_count(NULL) == 0);
		CHECK(smp_schema_field(&fi, pod, "spec.containers", &err) == 0);
		containers = fi.stype;
		CHECK(smp_stype_kind(containers) == SMP_SKIND_LIST);
		CHECK(smp_stype_name(containers) == NULL);
		CHECK_STR(smp_stype_name(smp_stype_elem(containers)), "io.k8s.api.core.v1.Container");
		CHECK(smp_schema_field(&fi, pod, "metadata.labels", &err) == 0);
		CHECK(smp_stype_kind(smp_stype_elem(fi.stype)) == SMP_SKIND_PRIMITIVE);
		CHECK(smp_schema_definition(&spec, b, "io.k8s.api.core.v1.PodSpec", &err) == 0);
		n = smp_stype_field_count(spec);
		CHECK(n > 30);
		for (size_t i = 0; i < n; i++) {
			smp_field_info a, c;

			CHECK(smp_stype_field_at(&a, spec, i, &err) == 0);
			CHECK(smp_schema_field(&c, spec, a.path, &err) == 0);
			CHECK(a.stype == c.stype && a.strategy == c.strategy);
			CHECK_STR(a.merge_key, c.merge_key);
			if (i)
				CHECK(strcmp(a.path, spec->fields[i - 1].name) > 0);
		}
		CHECK(smp_stype_field_at(&fi, spec, n, &err) == SMP_EINVAL);
		CHECK(fi.path == NULL);
		CHECK(smp_stype_field_at(&fi, containers, 0, &err) == SMP_EINVAL);
	}

	/* The built-in schema is static: freeing it does nothing. */
	smp_schema_free((smp_schema *)b);
	CHECK(smp_schema_kind(&t, smp_schema_builtin(), "v1", "Pod", &err) == 0);

	return check_status();
}
