/*
 * gen_tables.c - writes builtin_tables.c, the built-in schema as static
 * const data, from a Kubernetes OpenAPI document.
 *
 *   smp-gen-tables kubernetes-1.36.swagger.json builtin_tables.c
 *
 * It loads the document with the library's own loader (smp_schema_load_file)
 * and prints the resulting graph: one array of types (every definition, in
 * name order, then the inline types in the order a walk of the definitions
 * meets them; identical nameless leaf types are shared), one array of fields,
 * the definition and kind indices. The output depends only on the document.
 */
#include "schema/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The generator's own (empty) built-in schema. Defining it here keeps the
 * linker from taking builtin_tables.o out of the library: the output never
 * depends on the tables being replaced, however old they are. */
const smp_schema smp_builtin_schema = {.nkinds = 0};

/*
 * Kinds that kubectl 1.32 still patches strategically (they are in its
 * client-go scheme; found by probing `kubectl patch --local --type
 * strategic` for every group/version of the document's kinds) but that the
 * document no longer serves. Each gets the schema of the served kind named
 * after it (same kind; the group it moved to), so strategic patches and
 * kubectl apply's choice of a strategic patch work for them too, with the
 * patch metadata of the old version where it differs (legacy_meta below);
 * fields that exist only in the old version are unknown. A GVK the
 * document itself serves wins.
 */
static const struct {
	const char *group, *version, *kind, *target; /* target: apiVersion */
} legacy[] = {
	{"admissionregistration.k8s.io", "v1alpha1", "ValidatingAdmissionPolicy", "admissionregistration.k8s.io/v1"},
	{"admissionregistration.k8s.io", "v1alpha1", "ValidatingAdmissionPolicyBinding", "admissionregistration.k8s.io/v1"},
	{"admissionregistration.k8s.io", "v1beta1", "MutatingWebhookConfiguration", "admissionregistration.k8s.io/v1"},
	{"admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicy", "admissionregistration.k8s.io/v1"},
	{"admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicyBinding", "admissionregistration.k8s.io/v1"},
	{"admissionregistration.k8s.io", "v1beta1", "ValidatingWebhookConfiguration", "admissionregistration.k8s.io/v1"},
	{"apps", "v1beta1", "ControllerRevision", "apps/v1"},
	{"apps", "v1beta1", "Deployment", "apps/v1"},
	{"apps", "v1beta1", "Scale", "autoscaling/v1"},
	{"apps", "v1beta1", "StatefulSet", "apps/v1"},
	{"apps", "v1beta2", "ControllerRevision", "apps/v1"},
	{"apps", "v1beta2", "DaemonSet", "apps/v1"},
	{"apps", "v1beta2", "Deployment", "apps/v1"},
	{"apps", "v1beta2", "ReplicaSet", "apps/v1"},
	{"apps", "v1beta2", "Scale", "autoscaling/v1"},
	{"apps", "v1beta2", "StatefulSet", "apps/v1"},
	{"authentication.k8s.io", "v1alpha1", "SelfSubjectReview", "authentication.k8s.io/v1"},
	{"authentication.k8s.io", "v1beta1", "SelfSubjectReview", "authentication.k8s.io/v1"},
	{"authentication.k8s.io", "v1beta1", "TokenReview", "authentication.k8s.io/v1"},
	{"authorization.k8s.io", "v1beta1", "LocalSubjectAccessReview", "authorization.k8s.io/v1"},
	{"authorization.k8s.io", "v1beta1", "SelfSubjectAccessReview", "authorization.k8s.io/v1"},
	{"authorization.k8s.io", "v1beta1", "SelfSubjectRulesReview", "authorization.k8s.io/v1"},
	{"authorization.k8s.io", "v1beta1", "SubjectAccessReview", "authorization.k8s.io/v1"},
	{"autoscaling", "v2beta1", "HorizontalPodAutoscaler", "autoscaling/v2"},
	{"autoscaling", "v2beta2", "HorizontalPodAutoscaler", "autoscaling/v2"},
	{"batch", "v1beta1", "CronJob", "batch/v1"},
	{"certificates.k8s.io", "v1beta1", "CertificateSigningRequest", "certificates.k8s.io/v1"},
	{"coordination.k8s.io", "v1beta1", "Lease", "coordination.k8s.io/v1"},
	{"discovery.k8s.io", "v1beta1", "EndpointSlice", "discovery.k8s.io/v1"},
	{"events.k8s.io", "v1beta1", "Event", "events.k8s.io/v1"},
	{"extensions", "v1beta1", "DaemonSet", "apps/v1"},
	{"extensions", "v1beta1", "Deployment", "apps/v1"},
	{"extensions", "v1beta1", "Ingress", "networking.k8s.io/v1"},
	{"extensions", "v1beta1", "NetworkPolicy", "networking.k8s.io/v1"},
	{"extensions", "v1beta1", "ReplicaSet", "apps/v1"},
	{"extensions", "v1beta1", "Scale", "autoscaling/v1"},
	{"flowcontrol.apiserver.k8s.io", "v1beta1", "FlowSchema", "flowcontrol.apiserver.k8s.io/v1"},
	{"flowcontrol.apiserver.k8s.io", "v1beta1", "PriorityLevelConfiguration", "flowcontrol.apiserver.k8s.io/v1"},
	{"flowcontrol.apiserver.k8s.io", "v1beta2", "FlowSchema", "flowcontrol.apiserver.k8s.io/v1"},
	{"flowcontrol.apiserver.k8s.io", "v1beta2", "PriorityLevelConfiguration", "flowcontrol.apiserver.k8s.io/v1"},
	{"flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema", "flowcontrol.apiserver.k8s.io/v1"},
	{"flowcontrol.apiserver.k8s.io", "v1beta3", "PriorityLevelConfiguration", "flowcontrol.apiserver.k8s.io/v1"},
	{"networking.k8s.io", "v1alpha1", "IPAddress", "networking.k8s.io/v1"},
	{"networking.k8s.io", "v1alpha1", "ServiceCIDR", "networking.k8s.io/v1"},
	{"networking.k8s.io", "v1beta1", "Ingress", "networking.k8s.io/v1"},
	{"networking.k8s.io", "v1beta1", "IngressClass", "networking.k8s.io/v1"},
	{"node.k8s.io", "v1alpha1", "RuntimeClass", "node.k8s.io/v1"},
	{"node.k8s.io", "v1beta1", "RuntimeClass", "node.k8s.io/v1"},
	{"policy", "v1beta1", "Eviction", "policy/v1"},
	{"policy", "v1beta1", "PodDisruptionBudget", "policy/v1"},
	{"rbac.authorization.k8s.io", "v1alpha1", "ClusterRole", "rbac.authorization.k8s.io/v1"},
	{"rbac.authorization.k8s.io", "v1alpha1", "ClusterRoleBinding", "rbac.authorization.k8s.io/v1"},
	{"rbac.authorization.k8s.io", "v1alpha1", "Role", "rbac.authorization.k8s.io/v1"},
	{"rbac.authorization.k8s.io", "v1alpha1", "RoleBinding", "rbac.authorization.k8s.io/v1"},
	{"rbac.authorization.k8s.io", "v1beta1", "ClusterRole", "rbac.authorization.k8s.io/v1"},
	{"rbac.authorization.k8s.io", "v1beta1", "ClusterRoleBinding", "rbac.authorization.k8s.io/v1"},
	{"rbac.authorization.k8s.io", "v1beta1", "Role", "rbac.authorization.k8s.io/v1"},
	{"rbac.authorization.k8s.io", "v1beta1", "RoleBinding", "rbac.authorization.k8s.io/v1"},
	{"resource.k8s.io", "v1alpha3", "DeviceClass", "resource.k8s.io/v1beta1"},
	{"resource.k8s.io", "v1alpha3", "ResourceClaim", "resource.k8s.io/v1beta1"},
	{"resource.k8s.io", "v1alpha3", "ResourceClaimTemplate", "resource.k8s.io/v1beta1"},
	{"resource.k8s.io", "v1alpha3", "ResourceSlice", "resource.k8s.io/v1beta1"},
	{"scheduling.k8s.io", "v1alpha1", "PriorityClass", "scheduling.k8s.io/v1"},
	{"scheduling.k8s.io", "v1beta1", "PriorityClass", "scheduling.k8s.io/v1"},
	{"storage.k8s.io", "v1alpha1", "CSIStorageCapacity", "storage.k8s.io/v1"},
	{"storage.k8s.io", "v1alpha1", "VolumeAttachment", "storage.k8s.io/v1"},
	{"storage.k8s.io", "v1alpha1", "VolumeAttributesClass", "storage.k8s.io/v1"},
	{"storage.k8s.io", "v1beta1", "CSIDriver", "storage.k8s.io/v1"},
	{"storage.k8s.io", "v1beta1", "CSINode", "storage.k8s.io/v1"},
	{"storage.k8s.io", "v1beta1", "CSIStorageCapacity", "storage.k8s.io/v1"},
	{"storage.k8s.io", "v1beta1", "StorageClass", "storage.k8s.io/v1"},
	{"storage.k8s.io", "v1beta1", "VolumeAttachment", "storage.k8s.io/v1"},
	{"storagemigration.k8s.io", "v1alpha1", "StorageVersionMigration", "storagemigration.k8s.io/v1beta1"},
};

/*
 * Where a legacy kind's patch metadata differs from that of the kind it
 * became (policy/v1 marks PodDisruptionBudget spec.selector `replace`;
 * policy/v1beta1 merges it): generated by schema/probe_legacy.py, which asks
 * kubectl 1.32 (`kubectl patch --local` at the old version) about every field
 * of the group's own types. A path names fields; a list's items are stepped
 * into implicitly. The types along a path are copied for that kind only.
 */
static const struct {
	const char *group, *version, *kind, *path, *strategy, *merge_key;
} legacy_meta[] = {
#include "schema/legacy_meta.inc"
};

/*
 * API groups whose kinds are NOT in kubectl's scheme. kubectl's scheme
 * (k8s.io/kubectl/pkg/scheme/install.go) is client-go's
 * (k8s.io/client-go/kubernetes/scheme/register.go: every served group of
 * k8s.io/api) plus the meta types; install.go only sets version priorities
 * for admission and imagepolicy, it does not add them. For these groups
 * `kubectl apply` computes a JSON merge patch (patcher.go: scheme.Scheme.New
 * fails) and `kubectl patch --local --type strategic` refuses. The generator
 * fails on a group whose types come from neither k8s.io/api nor this list,
 * so a new document cannot slip a kind past the decision.
 */
static const char *const not_in_kubectl_scheme[] = {
	"admission.k8s.io",       /* k8s.io/api/admission: not in client-go's scheme */
	"apiextensions.k8s.io",   /* apiextensions-apiserver (CustomResourceDefinition) */
	"apiregistration.k8s.io", /* kube-aggregator (APIService) */
	"imagepolicy.k8s.io",     /* k8s.io/api/imagepolicy: not in client-go's scheme */
};

/* Pointer or string -> index, open addressing. A string map (`strings`)
 * compares and hashes its keys as text and owns copies of them. */
typedef struct kmap {
	const void **keys;
	size_t *vals;
	size_t mask, n;
	bool strings;
} kmap;

typedef struct gen {
	const smp_schema *s;
	smp_gvk_entry *kinds;   /* the document's kinds and the legacy ones, sorted */
	size_t nkinds;
	kmap types;        /* smp_stype* -> T index */
	kmap leaves;       /* description (strings) -> T index */
	const smp_stype **order; /* T index -> type */
	size_t ntypes, cap;
	size_t *queue;     /* T indices whose children are still to visit */
	size_t qhead, qtail;
	kmap fields;       /* fields array -> F offset */
	size_t nf;
	kmap keyptrs;      /* list_map_keys array -> K index */
	kmap keysets;      /* key list text (strings) -> K index */
	const char *const **keylists;
	size_t nkeys;
	kmap copies;       /* types copied for legacy_meta -> 1 */
	void **owned;      /* what the copies allocated */
	size_t nowned;
	int oom;
} gen;

static void *xrealloc(gen *g, void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fprintf(stderr, "smp-gen-tables: out of memory\n");
		exit(1);
	}
	(void)g;
	return q;
}

/* The hash of key k of map m. */
static size_t khash(const kmap *m, const void *k)
{
	uint64_t x = (uint64_t)(uintptr_t)k;

	if (m->strings)
		return (size_t)smp_hash_bytes(k, strlen(k));
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x;
}

static bool kequal(const kmap *m, const void *a, const void *b)
{
	return m->strings ? strcmp(a, b) == 0 : a == b;
}

static void kmap_grow(gen *g, kmap *m)
{
	size_t cap = m->mask ? 2 * (m->mask + 1) : 1024;
	const void **keys = xrealloc(g, NULL, cap * sizeof(*keys));
	size_t *vals = xrealloc(g, NULL, cap * sizeof(*vals));

	memset(keys, 0, cap * sizeof(*keys));
	for (size_t i = 0; m->mask && i <= m->mask; i++) {
		size_t h;

		if (!m->keys[i])
			continue;
		for (h = khash(m, m->keys[i]) & (cap - 1); keys[h]; h = (h + 1) & (cap - 1))
			;
		keys[h] = m->keys[i];
		vals[h] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->mask = cap - 1;
}

/* The value slot of key k, added (*found false) when absent. */
static size_t *kmap_slot(gen *g, kmap *m, const void *k, bool *found)
{
	size_t h;

	if (!m->mask || 2 * (m->n + 1) > m->mask)
		kmap_grow(g, m);
	for (h = khash(m, k) & m->mask; m->keys[h]; h = (h + 1) & m->mask)
		if (kequal(m, m->keys[h], k)) {
			*found = true;
			return &m->vals[h];
		}
	*found = false;
	if (m->strings) {
		char *copy = xrealloc(g, NULL, strlen(k) + 1);

		memcpy(copy, k, strlen(k) + 1);
		k = copy;
	}
	m->keys[h] = k;
	m->n++;
	return &m->vals[h];
}

static size_t kmap_get(const kmap *m, const void *k, bool *found)
{
	*found = false;
	if (!m->mask)
		return 0;
	for (size_t h = khash(m, k) & m->mask; m->keys[h]; h = (h + 1) & m->mask)
		if (kequal(m, m->keys[h], k)) {
			*found = true;
			return m->vals[h];
		}
	return 0;
}

static void kmap_free(kmap *m)
{
	for (size_t i = 0; m->strings && m->mask && i <= m->mask; i++)
		free((void *)m->keys[i]);
	free(m->keys);
	free(m->vals);
}

static size_t new_index(gen *g, const smp_stype *t)
{
	if (g->ntypes == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 1024;
		g->order = xrealloc(g, g->order, g->cap * sizeof(*g->order));
		g->queue = xrealloc(g, g->queue, g->cap * sizeof(*g->queue));
	}
	g->order[g->ntypes] = t;
	return g->ntypes++;
}

static size_t canon(gen *g, const smp_stype *t);

/* A nameless type without fields is a leaf: identical ones are shared. */
static size_t canon_leaf(gen *g, const smp_stype *t)
{
	char key[1024];
	size_t n, elem = t->elem ? canon(g, t->elem) : (size_t)-1, *slot;
	bool found;

	n = (size_t)snprintf(key, sizeof(key), "%d|%u|%s|%s|%lld|%s|%s|", t->kind, t->flags,
	                     t->type_name ? t->type_name : "", t->format ? t->format : "",
	                     elem == (size_t)-1 ? -1LL : (long long)elem, t->list_type ? t->list_type : "",
	                     t->map_type ? t->map_type : "");
	for (const char *const *k = t->list_map_keys; k && *k && n < sizeof(key); k++)
		n += (size_t)snprintf(key + n, sizeof(key) - n, "%s,", *k);
	if (n >= sizeof(key)) {
		/* Too long to key on: keep it apart. */
		size_t i = new_index(g, t);

		*kmap_slot(g, &g->types, t, &found) = i;
		return i;
	}
	slot = kmap_slot(g, &g->leaves, key, &found);
	if (!found)
		*slot = new_index(g, t);
	n = *slot;
	*kmap_slot(g, &g->types, t, &found) = n;
	return n;
}

static size_t canon(gen *g, const smp_stype *t)
{
	bool found;
	size_t idx = kmap_get(&g->types, t, &found);

	if (found)
		return idx;
	if (!t->name && t->nfields == 0)
		return canon_leaf(g, t);
	{
		size_t i = new_index(g, t);

		*kmap_slot(g, &g->types, t, &found) = i;
		g->queue[g->qtail++] = i;
		return i;
	}
}

static void walk(gen *g)
{
	while (g->qhead < g->qtail) {
		const smp_stype *t = g->order[g->queue[g->qhead++]];

		for (uint32_t i = 0; i < t->nfields; i++)
			canon(g, t->fields[i].type);
		if (t->elem)
			canon(g, t->elem);
	}
}

/* A C string literal. '?' is escaped against trigraphs. */
static void put_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("NULL", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\' || c == '?')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static const char *kind_name(int k)
{
	static const char *const names[] = {"SMP_SKIND_ANY", "SMP_SKIND_OBJECT", "SMP_SKIND_MAP",
	                                    "SMP_SKIND_LIST", "SMP_SKIND_PRIMITIVE"};

	return k >= 0 && k <= SMP_SKIND_PRIMITIVE ? names[k] : "SMP_SKIND_ANY";
}

static void put_bits(FILE *f, unsigned bits, const char *const *names, size_t n)
{
	bool first = true;

	for (size_t i = 0; i < n; i++)
		if (bits & (1u << i)) {
			fprintf(f, "%s%s", first ? "" : " | ", names[i]);
			first = false;
		}
}

static const char *const flag_names[] = {
	"SMP_SFLAG_PRESERVE_UNKNOWN", "SMP_SFLAG_INT_OR_STRING", "SMP_SFLAG_EMBEDDED",
	"SMP_SFLAG_NO_PROPERTIES", "SMP_SFLAG_OPENAPI_V3",
};
static const char *const strategy_names[] = {
	"SMP_STRATEGY_MERGE", "SMP_STRATEGY_REPLACE", "SMP_STRATEGY_RETAIN_KEYS",
};

/* Index of a key list (shared by content). */
static size_t key_index(gen *g, const char *const *keys)
{
	char text[2048];
	size_t n = 0, *slot;
	bool found;

	slot = kmap_slot(g, &g->keyptrs, keys, &found);
	if (found)
		return *slot;
	for (const char *const *k = keys; *k && n < sizeof(text); k++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s\n", *k);
	{
		size_t *s2 = kmap_slot(g, &g->keysets, text, &found);

		if (!found) {
			g->keylists = xrealloc(g, g->keylists, (g->nkeys + 1) * sizeof(*g->keylists));
			g->keylists[g->nkeys] = keys;
			*s2 = g->nkeys++;
		}
		*slot = *s2;
	}
	return *slot;
}

static int cmp_gvk(const void *a, const void *b)
{
	const smp_gvk_entry *x = a, *y = b;
	int c = strcmp(x->group, y->group);

	if (!c)
		c = strcmp(x->version, y->version);
	return c ? c : strcmp(x->kind, y->kind);
}

/* Whether the document itself serves k's GVK. */
static bool is_served(const smp_schema *s, const smp_gvk_entry *k)
{
	smp_gvk_entry *e = bsearch(k, s->kinds, s->nkinds, sizeof(*k), cmp_gvk);

	return e && e->type == k->type;
}

/* The document's kinds plus the legacy ones, sorted. */
static int add_legacy(gen *g)
{
	const smp_schema *s = g->s;
	size_t n = s->nkinds;

	g->kinds = xrealloc(g, NULL, (n + sizeof(legacy) / sizeof(legacy[0])) * sizeof(*g->kinds));
	if (n)
		memcpy(g->kinds, s->kinds, n * sizeof(*g->kinds));
	for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++) {
		const smp_gvk_entry *t = smp_schema_find_kind(s, legacy[i].target, legacy[i].kind, true);
		smp_gvk_entry key = {legacy[i].group, legacy[i].version, legacy[i].kind, NULL, -1,
		                     NULL, false, NULL, false, false, false, NULL, NULL};

		if (!t) {
			fprintf(stderr, "smp-gen-tables: legacy %s/%s %s: the document has no %s %s\n",
			        legacy[i].group, legacy[i].version, legacy[i].kind, legacy[i].target,
			        legacy[i].kind);
			return -1;
		}
		if (n && bsearch(&key, s->kinds, s->nkinds, sizeof(key), cmp_gvk))
			continue; /* served by the document itself */
		key.type = t->type;
		key.namespaced = t->namespaced;
		key.resource = t->resource;
		g->kinds[n++] = key;
	}
	qsort(g->kinds, n, sizeof(*g->kinds), cmp_gvk);
	g->nkinds = n;
	return 0;
}

static void own(gen *g, void *p)
{
	g->owned = xrealloc(g, g->owned, (g->nowned + 1) * sizeof(*g->owned));
	g->owned[g->nowned++] = p;
}

/* *tp itself, or a copy of it (with its own fields array) that only this
 * legacy kind reaches. */
static smp_stype *own_type(gen *g, const smp_stype **tp)
{
	bool found;
	smp_stype *t;
	smp_sfield *fields = NULL;

	kmap_get(&g->copies, *tp, &found);
	if (found)
		return (smp_stype *)*tp;
	t = xrealloc(g, NULL, sizeof(*t));
	*t = **tp;
	own(g, t);
	if (t->nfields) {
		fields = xrealloc(g, NULL, t->nfields * sizeof(*fields));
		memcpy(fields, t->fields, t->nfields * sizeof(*fields));
		own(g, fields);
		t->fields = fields;
	}
	*kmap_slot(g, &g->copies, t, &found) = 1;
	*tp = t;
	return t;
}

/* Applies legacy_meta to the legacy kinds. */
static int apply_legacy_meta(gen *g)
{
	for (size_t i = 0; i < sizeof(legacy_meta) / sizeof(legacy_meta[0]); i++) {
		smp_gvk_entry key = {legacy_meta[i].group, legacy_meta[i].version,
		                     legacy_meta[i].kind, NULL, -1, NULL, false, NULL, false, false, false, NULL, NULL};
		smp_gvk_entry *k = bsearch(&key, g->kinds, g->nkinds, sizeof(key), cmp_gvk);
		const char *p = legacy_meta[i].path, *st = legacy_meta[i].strategy;
		const smp_stype **tp;
		bool ok = true;
		unsigned bits = *st ? smp_strategy_parse(st, strlen(st), &ok) : 0;

		if (!k || is_served(g->s, k) || !ok) {
			fprintf(stderr, "smp-gen-tables: legacy_meta %s/%s %s %s: %s\n", key.group,
			        key.version, key.kind, p, !ok ? "bad strategy" : "not a legacy kind");
			return -1;
		}
		tp = &k->type;
		for (;;) {
			size_t n = strcspn(p, ".");
			smp_stype *t = own_type(g, tp);
			const smp_sfield *f;
			smp_sfield *mf;

			if (t->kind == SMP_SKIND_LIST) {
				tp = &t->elem;
				t = own_type(g, tp);
			}
			f = smp_stype_field(t, p, n);
			if (!f) {
				fprintf(stderr, "smp-gen-tables: legacy_meta %s/%s %s: no field %.*s in "
				        "%s\n", key.group, key.version, key.kind, (int)n, p,
				        legacy_meta[i].path);
				return -1;
			}
			mf = (smp_sfield *)f; /* in t's own fields array */
			if (!p[n]) {
				mf->strategy = (uint8_t)bits;
				mf->merge_key = legacy_meta[i].merge_key;
				break;
			}
			tp = &mf->type;
			p += n + 1;
		}
	}
	return 0;
}

static bool prefixed(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Sets kubectl_scheme on every kind (see not_in_kubectl_scheme). */
static int mark_scheme(gen *g)
{
	for (size_t i = 0; i < g->nkinds; i++) {
		smp_gvk_entry *k = &g->kinds[i];
		const char *tn = k->type->name;
		bool out = false;

		for (size_t j = 0; j < sizeof(not_in_kubectl_scheme) / sizeof(*not_in_kubectl_scheme); j++)
			if (strcmp(k->group, not_in_kubectl_scheme[j]) == 0)
				out = true;
		if (!out && !prefixed(tn, "io.k8s.api.") && !prefixed(tn, "io.k8s.apimachinery.")) {
			fprintf(stderr, "smp-gen-tables: %s/%s %s (%s) is not a k8s.io/api type: is it "
			        "in kubectl's scheme? Decide in not_in_kubectl_scheme[]\n", k->group,
			        k->version, k->kind, tn ? tn : "inline");
			return -1;
		}
		k->kubectl_scheme = !out;
	}
	return 0;
}

/* Writes builtin_tables.c: the types, their fields and the kinds of the
 * loaded document (with each kind's scope, resource and whether kubectl's
 * scheme has it) as static initialisers, and the header naming `source`. */
static int emit(gen *g, FILE *f, const char *source)
{
	const smp_schema *s = g->s;
	bool found;

	/* Field offsets and key lists first: the types point at them. */
	for (size_t i = 0; i < g->ntypes; i++) {
		const smp_stype *t = g->order[i];

		if (t->nfields) {
			size_t *slot = kmap_slot(g, &g->fields, t->fields, &found);

			if (!found) {
				*slot = g->nf;
				g->nf += t->nfields;
			}
		}
		if (t->list_map_keys)
			key_index(g, t->list_map_keys);
	}

	fprintf(f, "/*\n * builtin_tables.c - the built-in Kubernetes schema.\n"
	           " *\n * Generated by schema/gen_tables.c from %s; do not edit.\n"
	           " * Regenerate with `make schema`.\n */\n", source);
	fputs("#include \"schema/schema.h\"\n\n", f);
	fprintf(f, "static const smp_stype T[%zu];\nstatic const smp_sfield F[%zu];\n\n",
	        g->ntypes, g->nf ? g->nf : 1);
	for (size_t k = 0; k < g->nkeys; k++) {
		fprintf(f, "static const char *const K%zu[] = {", k);
		for (const char *const *p = g->keylists[k]; *p; p++) {
			put_str(f, *p);
			fputs(", ", f);
		}
		fputs("NULL};\n", f);
	}
	fprintf(f, "\nstatic const smp_stype T[%zu] = {\n", g->ntypes);
	for (size_t i = 0; i < g->ntypes; i++) {
		const smp_stype *t = g->order[i];

		fprintf(f, "\t/* %zu */ {.kind = %s", i, kind_name(t->kind));
		if (t->flags) {
			fputs(", .flags = ", f);
			put_bits(f, t->flags, flag_names, sizeof(flag_names) / sizeof(flag_names[0]));
		}
		if (t->name) {
			fputs(", .name = ", f);
			put_str(f, t->name);
		}
		if (t->type_name) {
			fputs(", .type_name = ", f);
			put_str(f, t->type_name);
		}
		if (t->format) {
			fputs(", .format = ", f);
			put_str(f, t->format);
		}
		if (t->nfields)
			fprintf(f, ", .fields = &F[%zu], .nfields = %u",
			        *kmap_slot(g, &g->fields, t->fields, &found), t->nfields);
		if (t->elem)
			fprintf(f, ", .elem = &T[%zu]", *kmap_slot(g, &g->types, t->elem, &found));
		if (t->list_type) {
			fputs(", .list_type = ", f);
			put_str(f, t->list_type);
		}
		if (t->list_map_keys)
			fprintf(f, ", .list_map_keys = K%zu", key_index(g, t->list_map_keys));
		if (t->map_type) {
			fputs(", .map_type = ", f);
			put_str(f, t->map_type);
		}
		fputs("},\n", f);
	}
	fputs("};\n\n", f);

	fprintf(f, "static const smp_sfield F[%zu] = {\n", g->nf ? g->nf : 1);
	{
		size_t at = 0;

		for (size_t i = 0; i < g->ntypes; i++) {
			const smp_stype *t = g->order[i];

			if (!t->nfields || *kmap_slot(g, &g->fields, t->fields, &found) != at)
				continue;
			for (uint32_t j = 0; j < t->nfields; j++) {
				const smp_sfield *fl = &t->fields[j];

				fprintf(f, "\t/* %zu */ {.name = ", at++);
				put_str(f, fl->name);
				fprintf(f, ", .type = &T[%zu]", *kmap_slot(g, &g->types, fl->type, &found));
				if (fl->strategy) {
					fputs(", .strategy = ", f);
					put_bits(f, fl->strategy, strategy_names, 3);
				}
				if (fl->merge_key) {
					fputs(", .merge_key = ", f);
					put_str(f, fl->merge_key);
				}
				fputs("},\n", f);
			}
		}
		if (!g->nf)
			fputs("\t{.name = NULL},\n", f);
	}
	fputs("};\n\n", f);

	fprintf(f, "static const smp_def_entry defs[%zu] = {\n", s->ndefs ? s->ndefs : 1);
	for (size_t i = 0; i < s->ndefs; i++) {
		fputs("\t{", f);
		put_str(f, s->defs[i].name);
		fprintf(f, ", &T[%zu]},\n", *kmap_slot(g, &g->types, s->defs[i].type, &found));
	}
	fputs("};\n\n", f);
	fprintf(f, "static const smp_gvk_entry kinds[%zu] = {\n", g->nkinds ? g->nkinds : 1);
	for (size_t i = 0; i < g->nkinds; i++) {
		const smp_gvk_entry *k = &g->kinds[i];

		if (!is_served(s, k))
			fprintf(f, "\t/* legacy, served as %s */\n", k->type->name);
		/* designated: the tables keep compiling when fields are added */
		fputs("\t{.group = ", f);
		put_str(f, k->group);
		fputs(", .version = ", f);
		put_str(f, k->version);
		fputs(", .kind = ", f);
		put_str(f, k->kind);
		fprintf(f, ", .type = &T[%zu], .namespaced = %d",
		        *kmap_slot(g, &g->types, k->type, &found), k->namespaced);
		if (k->resource) {
			fputs(", .resource = ", f);
			put_str(f, k->resource);
		}
		if (k->kubectl_scheme)
			fputs(", .kubectl_scheme = true", f);
		fputs("},\n", f);
	}
	fputs("};\n\n", f);
	fprintf(f, "const smp_schema smp_builtin_schema = {\n"
	           "\t.kinds = kinds,\n\t.nkinds = %zu,\n\t.defs = defs,\n\t.ndefs = %zu,\n};\n",
	        g->nkinds, s->ndefs);
	return ferror(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
	smp_schema *s = NULL;
	smp_error err;
	gen g;
	char tmp[4096];
	const char *base;
	FILE *f;
	int rc = 1;
	bool found;

	if (argc != 3) {
		fprintf(stderr, "usage: smp-gen-tables OPENAPI.json OUTPUT.c\n");
		return 2;
	}
	if (smp_schema_load_file(&s, argv[1], &err)) {
		char msg[2048];

		smp_error_format(msg, sizeof(msg), &err);
		fprintf(stderr, "smp-gen-tables: %s\n", msg);
		return 1;
	}
	memset(&g, 0, sizeof(g));
	g.leaves.strings = g.keysets.strings = true;
	g.s = s;
	/* Definitions take the first indices, in name order. */
	for (size_t i = 0; i < s->ndefs; i++) {
		size_t *slot = kmap_slot(&g, &g.types, s->defs[i].type, &found);

		if (found)
			continue; /* two names for one type cannot happen; be safe */
		*slot = new_index(&g, s->defs[i].type);
		g.queue[g.qtail++] = *slot;
	}
	walk(&g);
	for (size_t i = 0; i < s->nkinds; i++)
		canon(&g, s->kinds[i].type);
	walk(&g);
	if (add_legacy(&g) || apply_legacy_meta(&g) || mark_scheme(&g))
		goto out;
	/* The copies legacy_meta made come after every other type. */
	for (size_t i = 0; i < g.nkinds; i++)
		canon(&g, g.kinds[i].type);
	walk(&g);

	base = strrchr(argv[1], '/');
	base = base ? base + 1 : argv[1];
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
	f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		goto out;
	}
	if (emit(&g, f, base) || fclose(f) != 0) {
		fprintf(stderr, "smp-gen-tables: writing %s failed\n", tmp);
		remove(tmp);
		goto out;
	}
	if (rename(tmp, argv[2]) != 0) {
		perror(argv[2]);
		remove(tmp);
		goto out;
	}
	fprintf(stderr, "smp-gen-tables: %s: %zu definitions, %zu kinds (%zu legacy), %zu types, "
	        "%zu fields\n", argv[2], s->ndefs, g.nkinds, g.nkinds - s->nkinds, g.ntypes, g.nf);
	rc = 0;
out:
	kmap_free(&g.types);
	kmap_free(&g.fields);
	kmap_free(&g.keyptrs);
	kmap_free(&g.leaves);
	kmap_free(&g.keysets);
	free(g.keylists);
	for (size_t i = 0; i < g.nowned; i++)
		free(g.owned[i]);
	free(g.owned);
	kmap_free(&g.copies);
	free(g.order);
	free(g.queue);
	free(g.kinds);
	smp_schema_free(s);
	return rc;
}
