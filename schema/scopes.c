/*
 * scopes.c - the scope of kinds that no schema describes: declared by the
 * caller or learned from live objects (kubectl learns every scope from the
 * server's discovery), and the known scope of kinds Kubernetes removed
 * before the version the built-in tables come from.
 */
#include "schema/schema.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Kinds that no API version of Kubernetes 1.36 serves any more (so the
 * built-in tables cannot give their scope) and that kubectl 1.32's scheme
 * does not know either (it sends them JSON merge patches). Their scope, from
 * the Kubernetes releases that served them (k8s.io/api types and the
 * OpenAPI documents of those releases: PodSecurityPolicy until 1.24,
 * InitializerConfiguration until 1.13, PodPreset until 1.19, AuditSink until
 * 1.18, ClusterCIDR until 1.28, the resource.k8s.io v1alpha2 kinds until
 * 1.30). Kinds removed in some versions only are found under the versions
 * still served (any version of a group/kind has one scope). Sorted by
 * (group, kind).
 */
static const struct {
	const char *group, *kind;
	bool namespaced;
} removed[] = {
	{"admissionregistration.k8s.io", "InitializerConfiguration", false},
	{"auditregistration.k8s.io", "AuditSink", false},
	{"extensions", "PodSecurityPolicy", false},
	{"networking.k8s.io", "ClusterCIDR", false},
	{"policy", "PodSecurityPolicy", false},
	{"resource.k8s.io", "PodScheduling", true},
	{"resource.k8s.io", "PodSchedulingContext", true},
	{"resource.k8s.io", "ResourceClaimParameters", true},
	{"resource.k8s.io", "ResourceClass", false},
	{"resource.k8s.io", "ResourceClassParameters", true},
	{"settings.k8s.io", "PodPreset", true},
};

int smp_removed_kind_scope(const char *group, size_t glen, const char *kind)
{
	size_t lo = 0, hi = sizeof(removed) / sizeof(removed[0]);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(group, removed[mid].group, glen);

		if (c == 0)
			c = removed[mid].group[glen] ? -1 : 0;
		if (c == 0)
			c = strcmp(kind, removed[mid].kind);
		if (c == 0)
			return removed[mid].namespaced ? 1 : 0;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* ---- smp_scopes: a hash set of (group, kind) -> scope ---- */

typedef struct scope_entry {
	char *key;        /* "group\0kind\0"; group "*" for a kind in any group */
	size_t klen;
	int8_t namespaced;
	bool declared;    /* declared wins over learned */
} scope_entry;

struct smp_scopes {
	scope_entry *slots;
	size_t cap, n;    /* cap: a power of two, or 0 */
	bool any_group;   /* some entry is for a kind in any group */
};

static uint64_t hash_key(const char *k, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)k[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* "group\0kind" in buf (size >= glen + klen + 2); returns its length. */
static size_t make_key(char *buf, const char *group, size_t glen, const char *kind, size_t klen)
{
	memcpy(buf, group, glen);
	buf[glen] = '\0';
	memcpy(buf + glen + 1, kind, klen);
	buf[glen + 1 + klen] = '\0';
	return glen + klen + 1;
}

static scope_entry *find(const smp_scopes *s, const char *key, size_t klen)
{
	size_t i;

	if (!s->cap)
		return NULL;
	for (i = (size_t)hash_key(key, klen) & (s->cap - 1); s->slots[i].key;
	     i = (i + 1) & (s->cap - 1))
		if (s->slots[i].klen == klen && memcmp(s->slots[i].key, key, klen) == 0)
			return &s->slots[i];
	return NULL;
}

static int grow(smp_scopes *s)
{
	size_t cap = s->cap ? s->cap * 2 : 16;
	scope_entry *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return SMP_ENOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->slots[i].key)
			continue;
		for (j = (size_t)hash_key(s->slots[i].key, s->slots[i].klen) & (cap - 1);
		     slots[j].key; j = (j + 1) & (cap - 1))
			;
		slots[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return 0;
}

/* Sets the scope of key; a learned scope never replaces a declared one,
 * and learning "namespaced" wins over learning "cluster-scoped" (a server
 * always shows a namespaced object's namespace; a hand-written live file
 * may leave it out). */
static int put(smp_scopes *s, const char *key, size_t klen, bool namespaced, bool declared)
{
	scope_entry *e = find(s, key, klen);
	size_t i;

	if (e) {
		if (declared || (!e->declared && namespaced)) {
			e->namespaced = namespaced;
			e->declared = e->declared || declared;
		}
		return 0;
	}
	if ((s->n + 1) * 2 > s->cap && grow(s))
		return SMP_ENOMEM;
	for (i = (size_t)hash_key(key, klen) & (s->cap - 1); s->slots[i].key;
	     i = (i + 1) & (s->cap - 1))
		;
	s->slots[i].key = malloc(klen + 1);
	if (!s->slots[i].key)
		return SMP_ENOMEM;
	memcpy(s->slots[i].key, key, klen + 1);
	s->slots[i].klen = klen;
	s->slots[i].namespaced = namespaced;
	s->slots[i].declared = declared;
	s->n++;
	return 0;
}

int smp_scopes_new(smp_scopes **out)
{
	if (!out)
		return SMP_EINVAL;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : SMP_ENOMEM;
}

void smp_scopes_free(smp_scopes *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++)
		free(s->slots[i].key);
	free(s->slots);
	free(s);
}

/* A DNS-1123 subdomain, as API group names are: dot-separated labels of
 * [a-z0-9-], each starting and ending with a letter or digit. */
static bool valid_group(const char *g, size_t n)
{
	size_t start = 0;

	if (n == 0 || n > 253)
		return false;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && g[i] != '.') {
			char c = g[i];
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
				return false;
			continue;
		}
		if (i == start || g[start] == '-' || g[i - 1] == '-')
			return false;
		start = i + 1;
	}
	return true;
}

int smp_scopes_declare(smp_scopes *s, const char *name, bool namespaced, smp_error *err)
{
	const char *dot;
	size_t klen, glen, n;
	char *key;
	int rc;

	if (!s || !name)
		return smp__err(err, SMP_EINVAL, "smp_scopes_declare: NULL argument");
	dot = strchr(name, '.');
	klen = dot ? (size_t)(dot - name) : strlen(name);
	glen = dot ? strlen(dot + 1) : 0;
	for (size_t i = 0; i < klen; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			klen = 0;
	}
	if (!klen || (name[0] >= '0' && name[0] <= '9'))
		return smp__err(err, SMP_EINVAL,
		                "invalid kind \"%s\": want Kind or Kind.group (e.g. "
		                "ClusterIssuer.cert-manager.io)", name);
	if (dot && !valid_group(dot + 1, glen))
		return smp__err(err, SMP_EINVAL,
		                "invalid kind \"%s\": \"%s\" is not an API group name",
		                name, dot + 1);
	key = malloc(klen + glen + 3);
	if (!key)
		return smp__err(err, SMP_ENOMEM, "out of memory");
	/* "Kind" alone: that kind in any group. */
	n = dot ? make_key(key, dot + 1, glen, name, klen) : make_key(key, "*", 1, name, klen);
	rc = put(s, key, n, namespaced, true);
	free(key);
	if (rc)
		return smp__err(err, SMP_ENOMEM, "out of memory");
	if (!dot)
		s->any_group = true;
	return 0;
}

int smp_scopes_learn(smp_scopes *s, const smp_value *live, smp_error *err)
{
	const char *av, *kind, *g, *v, *ns = NULL;
	const smp_value *md;
	size_t glen, vlen, klen, n;
	char small[256], *key;
	int rc;

	if (!s || !live)
		return smp__err(err, SMP_EINVAL, "smp_scopes_learn: NULL argument");
	av = smp_value_string(smp_map_get(live, "apiVersion"), NULL);
	kind = smp_value_string(smp_map_get(live, "kind"), NULL);
	if (!av || !kind || !*kind)
		return 0; /* nothing to learn from */
	md = smp_map_get(live, "metadata");
	if (smp_value_type(md) == SMP_MAP)
		ns = smp_value_string(smp_map_get(md, "namespace"), NULL);
	smp_split_api_version(av, &g, &glen, &v, &vlen);
	klen = strlen(kind);
	key = glen + klen + 2 <= sizeof(small) ? small : malloc(glen + klen + 2);
	if (!key)
		return smp__err(err, SMP_ENOMEM, "out of memory");
	n = make_key(key, g, glen, kind, klen);
	rc = put(s, key, n, ns && *ns, false);
	if (key != small)
		free(key);
	return rc ? smp__err(err, SMP_ENOMEM, "out of memory") : 0;
}

int smp_scopes_get(const smp_scopes *s, const char *api_version, const char *kind)
{
	const char *g, *v;
	size_t glen, vlen, klen, n;
	const scope_entry *e;
	char small[256], *key;

	if (!s || !s->n || !api_version || !kind)
		return -1;
	smp_split_api_version(api_version, &g, &glen, &v, &vlen);
	klen = strlen(kind);
	key = glen + klen + 3 <= sizeof(small) ? small : malloc(glen + klen + 3);
	if (!key)
		return -1;
	n = make_key(key, g, glen, kind, klen);
	e = find(s, key, n);
	/* Declared for the group, then for any group, then learned. */
	if ((!e || !e->declared) && s->any_group) {
		const scope_entry *any;

		n = make_key(key, "*", 1, kind, klen);
		any = find(s, key, n);
		if (any)
			e = any;
	}
	if (key != small)
		free(key);
	return e ? e->namespaced : -1;
}
