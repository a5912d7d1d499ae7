/*
 * gen.c - deterministic benchmark inputs for smpatch (bench/, not the library).
 *
 *   gen OUTDIR FAMILY SIZE
 *
 * FAMILY is deploy (SIZE containers x 100 env vars), configmap (SIZE keys),
 * pod (SIZE volumes) or list (a List of SIZE Services). Writes into OUTDIR:
 *   last.json      the last-applied configuration
 *   new.json/.yaml the new configuration (10 % values changed, 5 % removed,
 *                  5 % added, recursively: containers and their env vars)
 *   live.json      the live object: last.json plus server-side defaults,
 *                  status and the last-applied annotation
 *   patch.json     a strategic merge patch (what kubectl apply would send,
 *                  in meaning) for the live object
 *   expected.json  live.json with patch.json applied, built independently
 *                  (so kubectl and smpatch are both checked against it)
 *   expected3.json the same without the annotation change: what applying
 *                  `smpatch diff --current live last new` to live gives
 * For list: patch.json is one patch applied to every item (kubectl patch -f
 * on a List), expected.json the patched items, apply.json what smpatch apply
 * of new.yaml against live.json yields (changed, unchanged and created
 * objects in config order).
 *
 * The only randomness is a fixed-seed splitmix64, so a size always gives the
 * same bytes. Everything is built in one bump arena, freed at exit.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LA_KEY "kubectl.kubernetes.io/last-applied-configuration"

/* ---- arena ---- */

typedef struct chunk {
	struct chunk *next;
	size_t used, cap;
	char data[];
} chunk;

static chunk *arena_head;

static void *xalloc(size_t n)
{
	n = (n + 7) & ~(size_t)7;
	if (!arena_head || arena_head->used + n > arena_head->cap) {
		size_t cap = n > (1u << 20) ? n : (1u << 20);
		chunk *c = malloc(sizeof(chunk) + cap);
		if (!c) {
			fprintf(stderr, "gen: out of memory\n");
			exit(2);
		}
		c->next = arena_head;
		c->used = 0;
		c->cap = cap;
		arena_head = c;
	}
	void *p = arena_head->data + arena_head->used;
	arena_head->used += n;
	return p;
}

static void arena_free(void)
{
	while (arena_head) {
		chunk *n = arena_head->next;
		free(arena_head);
		arena_head = n;
	}
}

/* ---- a tiny value tree ---- */

enum { N_NULL, N_BOOL, N_INT, N_STR, N_LIST, N_MAP };

typedef struct node node;
struct node {
	int t;
	long long i;
	const char *s;
	size_t slen;
	node **v;
	const char **k;
	size_t n, cap;
};

static node *mk(int t)
{
	node *x = xalloc(sizeof(node));
	memset(x, 0, sizeof(*x));
	x->t = t;
	return x;
}

static node *mk_int(long long i)
{
	node *x = mk(N_INT);
	x->i = i;
	return x;
}

static node *mk_bool(int b)
{
	node *x = mk(N_BOOL);
	x->i = b;
	return x;
}

static const char *xstrdup(const char *s, size_t n)
{
	char *p = xalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

static node *mk_strn(const char *s, size_t n)
{
	node *x = mk(N_STR);
	x->s = xstrdup(s, n);
	x->slen = n;
	return x;
}

static node *mk_str(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static node *mk_str(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return mk_strn(buf, (size_t)n);
}

static node *mk_map(void) { return mk(N_MAP); }
static node *mk_list(void) { return mk(N_LIST); }

static void grow(node *x)
{
	if (x->n < x->cap)
		return;
	size_t cap = x->cap ? x->cap * 2 : 4;
	node **v = xalloc(cap * sizeof(node *));
	if (x->n)
		memcpy(v, x->v, x->n * sizeof(node *));
	x->v = v;
	if (x->t == N_MAP) {
		const char **k = xalloc(cap * sizeof(char *));
		if (x->n)
			memcpy(k, x->k, x->n * sizeof(char *));
		x->k = k;
	}
	x->cap = cap;
}

static void add(node *list, node *v)
{
	grow(list);
	list->v[list->n++] = v;
}

/* Appends without looking for the key: callers never add a key twice except
 * through set(). */
static void put(node *map, const char *key, node *v)
{
	grow(map);
	map->k[map->n] = key;
	map->v[map->n++] = v;
}

static node *get(const node *map, const char *key)
{
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->k[i], key) == 0)
			return map->v[i];
	return NULL;
}

static void set(node *map, const char *key, node *v)
{
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->k[i], key) == 0) {
			map->v[i] = v;
			return;
		}
	put(map, key, v);
}

/* Shallow copy of one map level (children shared: the tree is never mutated
 * below a copied level). */
static node *copy1(const node *m)
{
	node *c = mk(m->t);
	for (size_t i = 0; i < m->n; i++) {
		if (m->t == N_MAP)
			put(c, m->k[i], m->v[i]);
		else
			add(c, m->v[i]);
	}
	return c;
}

static node *obj(const char *k1, node *v1, ...)
{
	node *m = mk_map();
	va_list ap;
	put(m, k1, v1);
	va_start(ap, v1);
	for (;;) {
		const char *k = va_arg(ap, const char *);
		if (!k)
			break;
		put(m, k, va_arg(ap, node *));
	}
	va_end(ap);
	return m;
}

static node *S(const char *s) { return mk_strn(s, strlen(s)); }

/* ---- output ---- */

typedef struct buf {
	char *p;
	size_t n, cap;
} buf;

static void bput(buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			fprintf(stderr, "gen: out of memory\n");
			exit(2);
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

static void bputs(buf *b, const char *s) { bput(b, s, strlen(s)); }

static void bputc(buf *b, char c) { bput(b, &c, 1); }

static void json_str(buf *b, const char *s, size_t n)
{
	bputc(b, '"');
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\' || c < 0x20) {
			char esc[8];
			bput(b, s + start, i - start);
			if (c == '"' || c == '\\')
				snprintf(esc, sizeof(esc), "\\%c", c);
			else if (c == '\n')
				snprintf(esc, sizeof(esc), "\\n");
			else
				snprintf(esc, sizeof(esc), "\\u%04x", c);
			bputs(b, esc);
			start = i + 1;
		}
	}
	bput(b, s + start, n - start);
	bputc(b, '"');
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void indent(buf *b, int level)
{
	bputc(b, '\n');
	for (int i = 0; i < level; i++)
		bput(b, "    ", 4);
}

/* A null, boolean, integer or string as JSON, which YAML reads alike (a
 * double-quoted JSON string is a valid YAML scalar); a list or a map as the
 * empty one, [] or {}: json_write and yaml_write write the others. */
static void scalar_write(buf *b, const node *x)
{
	char num[32];

	switch (x->t) {
	case N_NULL:
		bputs(b, "null");
		break;
	case N_BOOL:
		bputs(b, x->i ? "true" : "false");
		break;
	case N_INT:
		snprintf(num, sizeof(num), "%lld", x->i);
		bputs(b, num);
		break;
	case N_STR:
		json_str(b, x->s, x->slen);
		break;
	case N_LIST:
		bputs(b, "[]");
		break;
	case N_MAP:
		bputs(b, "{}");
		break;
	}
}

/* level < 0: compact. sorted: keys in byte order (Go's encoding/json). */
static void json_write(buf *b, const node *x, int level, int sorted)
{
	int next = level < 0 ? -1 : level + 1;

	switch (x->t) {
	case N_NULL:
	case N_BOOL:
	case N_INT:
	case N_STR:
		scalar_write(b, x);
		break;
	case N_LIST:
		if (!x->n) {
			bputs(b, "[]");
			break;
		}
		bputc(b, '[');
		for (size_t i = 0; i < x->n; i++) {
			if (i)
				bputc(b, ',');
			if (next >= 0)
				indent(b, next);
			json_write(b, x->v[i], next, sorted);
		}
		if (level >= 0)
			indent(b, level);
		bputc(b, ']');
		break;
	case N_MAP: {
		if (!x->n) {
			bputs(b, "{}");
			break;
		}
		/* Sort an index of (key, value) pairs: keys point at their slot. */
		const char **keys = NULL;
		if (sorted) {
			keys = malloc(x->n * sizeof(char *));
			if (!keys)
				exit(2);
			memcpy(keys, x->k, x->n * sizeof(char *));
			qsort(keys, x->n, sizeof(char *), key_cmp);
		}
		bputc(b, '{');
		for (size_t i = 0; i < x->n; i++) {
			const char *k = sorted ? keys[i] : x->k[i];
			const node *v = sorted ? get(x, k) : x->v[i];
			if (i)
				bputc(b, ',');
			if (next >= 0)
				indent(b, next);
			json_str(b, k, strlen(k));
			bputs(b, level >= 0 ? ": " : ":");
			json_write(b, v, next, sorted);
		}
		if (level >= 0)
			indent(b, level);
		bputc(b, '}');
		free(keys);
		break;
	}
	}
}

/* Sorted output needs values by key fast for big maps: build a sorted copy of
 * the map first instead of get() per key (which would be quadratic). */
static node *sorted_copy(const node *x)
{
	if (x->t == N_LIST) {
		node *c = mk_list();
		for (size_t i = 0; i < x->n; i++)
			add(c, sorted_copy(x->v[i]));
		return c;
	}
	if (x->t != N_MAP)
		return (node *)x;
	size_t *idx = malloc((x->n + 1) * sizeof(size_t));
	if (!idx)
		exit(2);
	for (size_t i = 0; i < x->n; i++)
		idx[i] = i;
	/* insertion sort is too slow for 200,000 keys: use qsort on pairs */
	struct kv {
		const char *k;
		node *v;
	} *kv = malloc((x->n + 1) * sizeof(*kv));
	if (!kv)
		exit(2);
	for (size_t i = 0; i < x->n; i++) {
		kv[i].k = x->k[i];
		kv[i].v = x->v[i];
	}
	qsort(kv, x->n, sizeof(*kv), key_cmp);
	node *c = mk_map();
	for (size_t i = 0; i < x->n; i++)
		put(c, kv[i].k, sorted_copy(kv[i].v));
	free(kv);
	free(idx);
	return c;
}

/* What kubectl writes into the last-applied annotation: compact JSON with
 * sorted keys (our strings hold no <, > or & that Go would escape), of the
 * config whose annotations map kubectl set and emptied again: it stays as
 * "annotations": {} even when the config had none. A newline ends it. */
static node *last_applied(const node *config)
{
	buf b = {0};
	node *c = copy1(config);
	node *meta = copy1(get(c, "metadata"));
	if (!get(meta, "annotations"))
		put(meta, "annotations", mk_map());
	set(c, "metadata", meta);
	json_write(&b, sorted_copy(c), -1, 0);
	bputc(&b, '\n'); /* kubectl's encoder ends the text with a newline */
	node *s = mk_strn(b.p, b.n);
	free(b.p);
	return s;
}

static void yaml_write(buf *b, const node *x, int level, int inlist);

static void yaml_pad(buf *b, int level)
{
	for (int i = 0; i < level; i++)
		bput(b, "  ", 2);
}

static int yaml_is_block(const node *x)
{
	return (x->t == N_LIST || x->t == N_MAP) && x->n > 0;
}

/* Block YAML; `inlist`: the first key goes right after "- ". */
static void yaml_write(buf *b, const node *x, int level, int inlist)
{
	if (x->t == N_MAP) {
		for (size_t i = 0; i < x->n; i++) {
			if (!(inlist && i == 0))
				yaml_pad(b, level);
			bputs(b, x->k[i]); /* our keys are plain-safe */
			bputc(b, ':');
			if (yaml_is_block(x->v[i])) {
				bputc(b, '\n');
				yaml_write(b, x->v[i],
				           x->v[i]->t == N_LIST ? level : level + 1, 0);
			} else {
				bputc(b, ' ');
				scalar_write(b, x->v[i]);
				bputc(b, '\n');
			}
		}
	} else if (x->t == N_LIST) {
		for (size_t i = 0; i < x->n; i++) {
			yaml_pad(b, level);
			bput(b, "- ", 2);
			if (x->v[i]->t == N_MAP && x->v[i]->n > 0) {
				yaml_write(b, x->v[i], level + 1, 1);
			} else if (yaml_is_block(x->v[i])) {
				bputc(b, '\n');
				yaml_write(b, x->v[i], level + 1, 0);
			} else {
				scalar_write(b, x->v[i]);
				bputc(b, '\n');
			}
		}
	}
}

static const char *outdir;

static void write_file(const char *name, const buf *b)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b->p, 1, b->n, f) != b->n || fclose(f) != 0) {
		fprintf(stderr, "gen: cannot write %s: %s\n", path, strerror(errno));
		exit(2);
	}
}

static void emit_json(const char *name, const node *x)
{
	buf b = {0};
	/* Compact, as API clients send and store objects; sizes in MB then
	 * measure content, not indentation. */
	json_write(&b, x, -1, 0);
	bputc(&b, '\n');
	write_file(name, &b);
	free(b.p);
}

static void emit_yaml(const char *name, const node *x)
{
	buf b = {0};
	yaml_write(&b, x, 0, 0);
	write_file(name, &b);
	free(b.p);
}

/* ---- fixed-seed PRNG ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned pct(void) { return (unsigned)(rnd() % 100); }

/* Fate of one element of a collection in the new config. */
enum { KEEP, CHANGE, REMOVE };

static int fate(void)
{
	unsigned r = pct();
	return r < 5 ? REMOVE : r < 15 ? CHANGE : KEEP;
}

static int added_after(void) { return pct() < 5; }

static node *meta_live(const char *name, const char *ns, node *labels,
                       node *annotations, int generation)
{
	node *m = obj("name", S(name), "namespace", S(ns), NULL);
	put(m, "uid", mk_str("3f1c2a7e-%04x-4d1b-9c1e-7a4b5c6d7e8f",
	                      (unsigned)(rnd() & 0xffff)));
	put(m, "resourceVersion", S("424242"));
	if (generation)
		put(m, "generation", mk_int(generation));
	put(m, "creationTimestamp", S("2026-01-01T00:00:00Z"));
	if (labels)
		put(m, "labels", labels);
	put(m, "annotations", annotations);
	return m;
}

/* Applies the config-side metadata `cfg_meta` (labels) and annotation to a
 * copy of the live metadata. */
static node *meta_with(const node *live_meta, node *labels, node *la)
{
	node *m = copy1(live_meta);
	if (labels)
		set(m, "labels", labels);
	node *ann = copy1(get(m, "annotations"));
	set(ann, LA_KEY, la);
	set(m, "annotations", ann);
	return m;
}

/* ---- Deployment: C containers x E env vars ---- */

static node *env_var(const char *name, node *value)
{
	return obj("name", S(name), "value", value, NULL);
}

static node *container(const char *name, node *image, node *env, int live)
{
	node *port = obj("containerPort", mk_int(8080), "name", S("http"), NULL);
	if (live)
		put(port, "protocol", S("TCP"));
	node *ports = mk_list();
	add(ports, port);
	node *c = obj("name", S(name), "image", image, "ports", ports, "env", env,
	              "resources",
	              obj("requests", obj("cpu", S("100m"), "memory", S("64Mi"), NULL),
	                  NULL),
	              NULL);
	if (live) {
		put(c, "imagePullPolicy", S("IfNotPresent"));
		put(c, "terminationMessagePath", S("/dev/termination-log"));
		put(c, "terminationMessagePolicy", S("File"));
	}
	return c;
}

static node *list1(node *x)
{
	node *l = mk_list();
	add(l, x);
	return l;
}

/* The Pod's one container, with its volume mounts. */
static node *container_pod(node *image, node *mounts, int live)
{
	node *c = obj("image", image, "name", S("app"), "volumeMounts", mounts, NULL);
	if (live) {
		put(c, "imagePullPolicy", S("IfNotPresent"));
		put(c, "resources", mk_map());
		put(c, "terminationMessagePath", S("/dev/termination-log"));
		put(c, "terminationMessagePolicy", S("File"));
	}
	return c;
}

static node *del_elem(const char *key, node *val)
{
	return obj("$patch", S("delete"), key, val, NULL);
}

static void gen_deploy(int C, int E)
{
	node *last_c = mk_list(), *new_c = mk_list(), *live_c = mk_list();
	node *exp_c = mk_list(), *patch_c = mk_list(), *order_c = mk_list();
	char name[64], ename[64];
	int added = 0;

	for (int i = 0; i < C; i++) {
		int f = fate();
		snprintf(name, sizeof(name), "c-%04d", i);
		node *img_old = mk_str("registry.example.com/team/app-%04d:1.0.%d", i,
		                       (int)(rnd() % 10));
		node *img_new = f == CHANGE ? mk_str("registry.example.com/team/app-%04d:2.0.0", i)
		                            : img_old;
		node *env_last = mk_list(), *env_new = mk_list();
		node *env_patch = mk_list(), *env_order = mk_list();
		int env_changed = 0, eadded = 0;
		for (int j = 0; j < E; j++) {
			int ef = fate();
			snprintf(ename, sizeof(ename), "ENV_%04d_%03d", i, j);
			node *v = mk_str("value-%d-%d-%08x", i, j, (unsigned)rnd());
			node *ev = env_var(ename, v);
			add(env_last, ev);
			if (ef == REMOVE) {
				add(env_patch, del_elem("name", S(ename)));
				env_changed = 1;
			} else {
				node *nv = ev;
				if (ef == CHANGE) {
					nv = env_var(ename, mk_str("changed-%d-%d-%08x", i, j,
					                           (unsigned)rnd()));
					add(env_patch, nv);
					env_changed = 1;
				}
				add(env_new, nv);
				add(env_order, obj("name", S(ename), NULL));
			}
			if (added_after()) {
				snprintf(ename, sizeof(ename), "ENV_%04d_NEW_%03d", i, eadded++);
				node *nv = env_var(ename, mk_str("added-%d-%d-%08x", i, j,
				                                 (unsigned)rnd()));
				add(env_new, nv);
				add(env_patch, nv);
				add(env_order, obj("name", S(ename), NULL));
				env_changed = 1;
			}
		}
		add(last_c, container(name, img_old, env_last, 0));
		add(live_c, container(name, img_old, env_last, 1));
		if (f == REMOVE) {
			add(patch_c, del_elem("name", S(name)));
		} else {
			add(new_c, container(name, img_new, env_new, 0));
			add(exp_c, container(name, img_new, env_new, 1));
			add(order_c, obj("name", S(name), NULL));
			if (f == CHANGE || env_changed) {
				node *p = obj("name", S(name), NULL);
				if (f == CHANGE)
					put(p, "image", img_new);
				if (env_changed) {
					put(p, "$setElementOrder/env", env_order);
					put(p, "env", env_patch);
				}
				add(patch_c, p);
			}
		}
		if (added_after()) {
			/* A new container with a fresh env list of E vars. */
			snprintf(name, sizeof(name), "c-new-%04d", added++);
			node *env = mk_list();
			for (int j = 0; j < E; j++) {
				snprintf(ename, sizeof(ename), "NEW_%04d_%03d", added, j);
				add(env, env_var(ename, mk_str("fresh-%d-%08x", j, (unsigned)rnd())));
			}
			node *c = container(name, mk_str("registry.example.com/team/new-%04d:1.0.0",
			                                 added), env, 0);
			add(new_c, c);
			add(exp_c, c);
			add(patch_c, c);
			add(order_c, obj("name", S(name), NULL));
		}
	}

	node *labels_old = obj("app", S("bench"), "tier", S("backend"), NULL);
	node *labels_new = obj("app", S("bench"), "tier", S("backend"), "version", S("v2"),
	                       NULL);
	node *sel = obj("matchLabels", obj("app", S("bench"), NULL), NULL);
	node *tmeta = obj("labels", obj("app", S("bench"), NULL), NULL);

#define DEPLOY_CFG(labels, replicas, cs) \
	obj("apiVersion", S("apps/v1"), "kind", S("Deployment"), "metadata", \
	    obj("name", S("bench"), "namespace", S("bench"), "labels", labels, NULL), \
	    "spec", obj("replicas", mk_int(replicas), "selector", sel, "template", \
	                obj("metadata", tmeta, "spec", obj("containers", cs, NULL), NULL), \
	                NULL), NULL)
	node *last = DEPLOY_CFG(labels_old, 3, last_c);
	node *new = DEPLOY_CFG(labels_new, 4, new_c);
	node *la_old = last_applied(last), *la_new = last_applied(new);

	node *meta = meta_live("bench", "bench", labels_old,
	                       obj("deployment.kubernetes.io/revision", S("1"), LA_KEY,
	                           la_old, NULL), 1);
	node *tmeta_live = obj("creationTimestamp", mk(N_NULL), "labels",
	                       obj("app", S("bench"), NULL), NULL);
	node *status = obj("availableReplicas", mk_int(3), "observedGeneration", mk_int(1),
	                   "readyReplicas", mk_int(3), "replicas", mk_int(3),
	                   "updatedReplicas", mk_int(3), NULL);
	node *conds = mk_list();
	add(conds, obj("lastTransitionTime", S("2026-01-01T00:00:10Z"), "lastUpdateTime",
	               S("2026-01-01T00:00:10Z"), "message",
	               S("Deployment has minimum availability."), "reason",
	               S("MinimumReplicasAvailable"), "status", S("True"), "type",
	               S("Available"), NULL));
	add(conds, obj("lastTransitionTime", S("2026-01-01T00:00:00Z"), "lastUpdateTime",
	               S("2026-01-01T00:00:10Z"), "message",
	               S("ReplicaSet \"bench-5d8f7c9b4\" has successfully progressed."),
	               "reason", S("NewReplicaSetAvailable"), "status", S("True"), "type",
	               S("Progressing"), NULL));
	put(status, "conditions", conds);

#define DEPLOY_LIVE(m, replicas, cs) \
	obj("apiVersion", S("apps/v1"), "kind", S("Deployment"), "metadata", m, "spec", \
	    obj("progressDeadlineSeconds", mk_int(600), "replicas", mk_int(replicas), \
	        "revisionHistoryLimit", mk_int(10), "selector", sel, "strategy", \
	        obj("rollingUpdate", obj("maxSurge", S("25%"), "maxUnavailable", S("25%"), \
	                                 NULL), \
	            "type", S("RollingUpdate"), NULL), \
	        "template", \
	        obj("metadata", tmeta_live, "spec", \
	            obj("containers", cs, "dnsPolicy", S("ClusterFirst"), "restartPolicy", \
	                S("Always"), "schedulerName", S("default-scheduler"), \
	                "securityContext", mk_map(), "terminationGracePeriodSeconds", \
	                mk_int(30), NULL), \
	            NULL), \
	        NULL), \
	    "status", status, NULL)
	node *live = DEPLOY_LIVE(meta, 3, live_c);
	node *expected = DEPLOY_LIVE(meta_with(meta, labels_new, la_new), 4, exp_c);
	node *expected3 = DEPLOY_LIVE(meta_with(meta, labels_new, la_old), 4, exp_c);
	node *patch = obj("metadata",
	                  obj("annotations", obj(LA_KEY, la_new, NULL), "labels",
	                      obj("version", S("v2"), NULL), NULL),
	                  "spec",
	                  obj("replicas", mk_int(4), "template",
	                      obj("spec", obj("$setElementOrder/containers", order_c,
	                                      "containers", patch_c, NULL),
	                          NULL),
	                      NULL),
	                  NULL);
	emit_json("last.json", last);
	emit_json("new.json", new);
	emit_yaml("new.yaml", new);
	emit_json("live.json", live);
	emit_json("patch.json", patch);
	emit_json("expected.json", expected);
	emit_json("expected3.json", expected3);
}

/* ---- ConfigMap: K keys ---- */

static void gen_configmap(int K)
{
	node *d_last = mk_map(), *d_new = mk_map(), *d_patch = mk_map();
	char key[32];
	int added = 0;

	for (int i = 0; i < K; i++) {
		int f = fate();
		snprintf(key, sizeof(key), "k%06d", i);
		const char *k = xstrdup(key, strlen(key));
		node *v = mk_str("v%06d-%08x", i, (unsigned)rnd());
		put(d_last, k, v);
		if (f == REMOVE) {
			put(d_patch, k, mk(N_NULL));
		} else if (f == CHANGE) {
			node *nv = mk_str("w%06d-%08x", i, (unsigned)rnd());
			put(d_new, k, nv);
			put(d_patch, k, nv);
		} else {
			put(d_new, k, v);
		}
		if (added_after()) {
			snprintf(key, sizeof(key), "a%06d", added++);
			k = xstrdup(key, strlen(key));
			node *nv = mk_str("n%06d-%08x", i, (unsigned)rnd());
			put(d_new, k, nv);
			put(d_patch, k, nv);
		}
	}
	node *labels = obj("app", S("bench"), NULL);
#define CM_CFG(d) \
	obj("apiVersion", S("v1"), "kind", S("ConfigMap"), "metadata", \
	    obj("name", S("bench-config"), "namespace", S("bench"), "labels", labels, NULL), \
	    "data", d, NULL)
	node *last = CM_CFG(d_last), *new = CM_CFG(d_new);
	node *la_old = last_applied(last), *la_new = last_applied(new);
	node *meta = meta_live("bench-config", "bench", labels,
	                       obj(LA_KEY, la_old, NULL), 0);
#define CM_LIVE(m, d) obj("apiVersion", S("v1"), "data", d, "kind", S("ConfigMap"), \
                          "metadata", m, NULL)
	emit_json("last.json", last);
	emit_json("new.json", new);
	emit_yaml("new.yaml", new);
	emit_json("live.json", CM_LIVE(meta, d_last));
	emit_json("patch.json", obj("data", d_patch, "metadata",
	                            obj("annotations", obj(LA_KEY, la_new, NULL), NULL),
	                            NULL));
	emit_json("expected.json", CM_LIVE(meta_with(meta, NULL, la_new), d_new));
	emit_json("expected3.json", CM_LIVE(meta_with(meta, NULL, la_old), d_new));
}

/* ---- Pod: V volumes (merge,retainKeys) and as many volume mounts ---- */

static const char *vol_types[3] = {"configMap", "secret", "emptyDir"};

/* The volume source of type t; `ref` names the ConfigMap/Secret (or, for an
 * emptyDir, any non-NULL ref sets medium: Memory). */
static node *vol_source(int t, const char *ref, int live)
{
	node *s;
	switch (t) {
	case 0:
		s = obj("name", S(ref), NULL);
		if (live)
			put(s, "defaultMode", mk_int(420));
		return s;
	case 1:
		s = obj("secretName", S(ref), NULL);
		if (live)
			put(s, "defaultMode", mk_int(420));
		return s;
	default:
		return ref ? obj("medium", S("Memory"), NULL) : mk_map();
	}
}

static node *retain(int t)
{
	node *l = mk_list();
	if (strcmp(vol_types[t], "name") < 0) {
		add(l, S(vol_types[t]));
		add(l, S("name"));
	} else {
		add(l, S("name"));
		add(l, S(vol_types[t]));
	}
	return l;
}

static void gen_pod(int V)
{
	node *v_last = mk_list(), *v_new = mk_list(), *v_live = mk_list(), *v_exp = mk_list();
	node *v_patch = mk_list(), *v_order = mk_list();
	node *m_last = mk_list(), *m_new = mk_list(), *m_patch = mk_list();
	node *m_order = mk_list(), *m_exp = mk_list();
	char name[64], ref[64], path[96];
	int added = 0;

	/* The server adds the service account token volume and its mount. */
	node *sources = mk_list();
	add(sources, obj("serviceAccountToken",
	                 obj("expirationSeconds", mk_int(3607), "path", S("token"), NULL),
	                 NULL));
	node *items = mk_list();
	add(items, obj("key", S("ca.crt"), "path", S("ca.crt"), NULL));
	add(sources, obj("configMap", obj("items", items, "name", S("kube-root-ca.crt"), NULL),
	                 NULL));
	node *sa_vol = obj("name", S("kube-api-access-x7k2p"), "projected",
	                   obj("defaultMode", mk_int(420), "sources", sources, NULL), NULL);
	node *sa_mount = obj("mountPath", S("/var/run/secrets/kubernetes.io/serviceaccount"),
	                     "name", S("kube-api-access-x7k2p"), "readOnly", mk_bool(1), NULL);

	for (int i = 0; i < V; i++) {
		int f = fate(), t = i % 3;
		snprintf(name, sizeof(name), "vol-%05d", i);
		snprintf(ref, sizeof(ref), "%s-%05d", t == 0 ? "cm" : "sec", i);
		snprintf(path, sizeof(path), "/mnt/data/%s", name);
		node *mount = obj("mountPath", S(path), "name", S(name), NULL);
		add(v_last, obj("name", S(name), vol_types[t],
		                vol_source(t, t == 2 ? NULL : ref, 0), NULL));
		add(v_live, obj("name", S(name), vol_types[t],
		                vol_source(t, t == 2 ? NULL : ref, 1), NULL));
		add(m_last, mount);
		if (f == REMOVE) {
			add(v_patch, del_elem("name", S(name)));
			add(m_patch, del_elem("mountPath", S(path)));
		} else {
			add(v_order, obj("name", S(name), NULL));
			add(m_new, mount);
			add(m_exp, mount);
			add(m_order, obj("mountPath", S(path), NULL));
			if (f == KEEP) {
				add(v_new, obj("name", S(name), vol_types[t],
				               vol_source(t, t == 2 ? NULL : ref, 0), NULL));
				add(v_exp, obj("name", S(name), vol_types[t],
				               vol_source(t, t == 2 ? NULL : ref, 1), NULL));
			} else if (pct() < 50) {
				/* Same type, other reference: merged, defaults kept. */
				snprintf(ref, sizeof(ref), "%s-%05d-v2", t == 0 ? "cm" : "sec", i);
				add(v_new, obj("name", S(name), vol_types[t],
				               vol_source(t, ref, 0), NULL));
				add(v_exp, obj("name", S(name), vol_types[t],
				               vol_source(t, ref, 1), NULL));
				node *p = obj("name", S(name), vol_types[t], vol_source(t, ref, 0),
				              NULL);
				put(p, "$retainKeys", retain(t));
				add(v_patch, p);
			} else {
				/* Another type: $retainKeys drops the old source. */
				int nt = (t + 1) % 3;
				snprintf(ref, sizeof(ref), "%s-%05d-new", nt == 0 ? "cm" : "sec", i);
				node *src = vol_source(nt, nt == 2 ? NULL : ref, 0);
				node *v = obj("name", S(name), vol_types[nt], src, NULL);
				add(v_new, v);
				add(v_exp, v);
				node *p = obj("name", S(name), vol_types[nt], src, NULL);
				put(p, "$retainKeys", retain(nt));
				add(v_patch, p);
			}
		}
		if (added_after()) {
			/* kubectl places server-only items (the token volume and
			 * mount, last in the live lists) before the first item that
			 * the live list lacks: see mergeSortedSlice in patch.go. */
			if (added == 0) {
				add(v_exp, sa_vol);
				add(m_exp, sa_mount);
			}
			snprintf(name, sizeof(name), "vol-new-%05d", added++);
			snprintf(ref, sizeof(ref), "cm-new-%05d", added);
			snprintf(path, sizeof(path), "/mnt/data/%s", name);
			node *v = obj("name", S(name), "configMap", vol_source(0, ref, 0), NULL);
			node *m = obj("mountPath", S(path), "name", S(name), NULL);
			add(v_new, v);
			add(v_exp, v);
			add(v_patch, v);
			add(v_order, obj("name", S(name), NULL));
			add(m_new, m);
			add(m_exp, m);
			add(m_patch, m);
			add(m_order, obj("mountPath", S(path), NULL));
		}
	}
	add(v_live, sa_vol);
	node *m_live = copy1(m_last);
	add(m_live, sa_mount);
	if (added == 0) {
		add(v_exp, sa_vol);
		add(m_exp, sa_mount);
	}

	node *img_old = S("registry.example.com/team/pod-app:1.0.0");
	node *img_new = S("registry.example.com/team/pod-app:1.1.0");
	node *labels = obj("app", S("bench-pod"), NULL);
#define POD_CFG(img, mounts, vols) \
	obj("apiVersion", S("v1"), "kind", S("Pod"), "metadata", \
	    obj("name", S("bench-pod"), "namespace", S("bench"), "labels", labels, NULL), \
	    "spec", obj("containers", list1(container_pod(img, mounts, 0)), "volumes", vols, \
	                NULL), NULL)
	node *last = POD_CFG(img_old, m_last, v_last);
	node *new = POD_CFG(img_new, m_new, v_new);
	node *la_old = last_applied(last), *la_new = last_applied(new);
	node *meta = meta_live("bench-pod", "bench", labels, obj(LA_KEY, la_old, NULL), 0);
	node *tolerations = mk_list();
	add(tolerations, obj("effect", S("NoExecute"), "key",
	                     S("node.kubernetes.io/not-ready"), "operator", S("Exists"),
	                     "tolerationSeconds", mk_int(300), NULL));
	add(tolerations, obj("effect", S("NoExecute"), "key",
	                     S("node.kubernetes.io/unreachable"), "operator", S("Exists"),
	                     "tolerationSeconds", mk_int(300), NULL));
	node *pconds = mk_list();
	const char *ctypes[] = {"Initialized", "Ready", "ContainersReady", "PodScheduled"};
	for (int i = 0; i < 4; i++)
		add(pconds, obj("lastProbeTime", mk(N_NULL), "lastTransitionTime",
		                S("2026-01-01T00:00:05Z"), "status", S("True"), "type",
		                S(ctypes[i]), NULL));
	node *cstat = mk_list();
	add(cstat, obj("containerID", S("containerd://0123456789abcdef"), "image",
	               img_old, "imageID", S("registry.example.com/team/pod-app@sha256:abc"),
	               "lastState", mk_map(), "name", S("app"), "ready", mk_bool(1),
	               "restartCount", mk_int(0), "started", mk_bool(1), "state",
	               obj("running", obj("startedAt", S("2026-01-01T00:00:04Z"), NULL), NULL),
	               NULL));
	node *podips = mk_list();
	add(podips, obj("ip", S("10.244.1.17"), NULL));
	node *status = obj("conditions", pconds, "containerStatuses", cstat, "hostIP",
	                   S("172.18.0.2"), "phase", S("Running"), "podIP", S("10.244.1.17"),
	                   "podIPs", podips, "qosClass", S("Burstable"), "startTime",
	                   S("2026-01-01T00:00:01Z"), NULL);
#define POD_LIVE(m, img, mounts, vols) \
	obj("apiVersion", S("v1"), "kind", S("Pod"), "metadata", m, "spec", \
	    obj("containers", list1(container_pod(img, mounts, 1)), "dnsPolicy", \
	        S("ClusterFirst"), "enableServiceLinks", mk_bool(1), "nodeName", S("node-1"), \
	        "preemptionPolicy", S("PreemptLowerPriority"), "priority", mk_int(0), \
	        "restartPolicy", S("Always"), "schedulerName", S("default-scheduler"), \
	        "securityContext", mk_map(), "serviceAccount", S("default"), \
	        "serviceAccountName", S("default"), "terminationGracePeriodSeconds", \
	        mk_int(30), "tolerations", tolerations, "volumes", vols, NULL), \
	    "status", status, NULL)
	node *patch = obj("metadata", obj("annotations", obj(LA_KEY, la_new, NULL), NULL),
	                  "spec",
	                  obj("$setElementOrder/containers", list1(obj("name", S("app"), NULL)),
	                      "$setElementOrder/volumes", v_order,
	                      "containers",
	                      list1(obj("image", img_new, "name", S("app"),
	                                "$setElementOrder/volumeMounts", m_order,
	                                "volumeMounts", m_patch, NULL)),
	                      "volumes", v_patch, NULL),
	                  NULL);
	emit_json("last.json", last);
	emit_json("new.json", new);
	emit_yaml("new.yaml", new);
	emit_json("live.json", POD_LIVE(meta, img_old, m_live, v_live));
	emit_json("patch.json", patch);
	emit_json("expected.json", POD_LIVE(meta_with(meta, NULL, la_new), img_new, m_exp,
	                                    v_exp));
	emit_json("expected3.json", POD_LIVE(meta_with(meta, NULL, la_old), img_new, m_exp,
	                                     v_exp));
}

/* ---- List of N small objects (Services) ---- */

static node *svc_ports(int target, int live)
{
	node *l = mk_list();
	node *http = obj("name", S("http"), "port", mk_int(80), "targetPort", mk_int(target),
	                 NULL);
	node *metrics = obj("name", S("metrics"), "port", mk_int(9090), "targetPort",
	                    mk_int(9090), NULL);
	if (live) {
		put(http, "protocol", S("TCP"));
		put(metrics, "protocol", S("TCP"));
	}
	add(l, http);
	add(l, metrics);
	return l;
}

static node *svc_cfg(const char *name, const char *tier, int target)
{
	return obj("apiVersion", S("v1"), "kind", S("Service"), "metadata",
	           obj("name", S(name), "namespace", S("bench"), "labels",
	               obj("app", S(name), "tier", S(tier), NULL), NULL),
	           "spec", obj("selector", obj("app", S(name), NULL), "ports",
	                       svc_ports(target, 0), NULL),
	           NULL);
}

static node *svc_live(node *meta, const char *name, int i, int target)
{
	node *ip = mk_str("10.96.%d.%d", (i / 250) % 250, i % 250 + 1);
	return obj("apiVersion", S("v1"), "kind", S("Service"), "metadata", meta, "spec",
	           obj("clusterIP", ip, "clusterIPs", list1(ip), "internalTrafficPolicy",
	               S("Cluster"), "ipFamilies", list1(S("IPv4")), "ipFamilyPolicy",
	               S("SingleStack"), "ports", svc_ports(target, 1), "selector",
	               obj("app", S(name), NULL), "sessionAffinity", S("None"), "type",
	               S("ClusterIP"), NULL),
	           "status", obj("loadBalancer", mk_map(), NULL), NULL);
}

static node *k8s_list(node *items)
{
	return obj("apiVersion", S("v1"), "kind", S("List"), "metadata",
	           obj("resourceVersion", S(""), NULL), "items", items, NULL);
}

static void gen_list(int N)
{
	node *last = mk_list(), *new = mk_list(), *live = mk_list();
	node *patched = mk_list(), *applied = mk_list();
	char name[64];
	int added = 0;

	for (int i = 0; i < N; i++) {
		int f = fate();
		snprintf(name, sizeof(name), "svc-%05d", i);
		node *cfg = svc_cfg(name, "web", 8080);
		node *la = last_applied(cfg);
		node *labels = obj("app", S(name), "tier", S("web"), NULL);
		node *meta = meta_live(name, "bench", labels, obj(LA_KEY, la, NULL), 0);
		node *lv = svc_live(meta, name, i, 8080);
		add(last, cfg);
		add(live, lv);
		/* The one patch of patch.json, applied to every item. */
		node *pl = copy1(labels);
		put(pl, "patched", S("true"));
		node *pm = copy1(meta);
		set(pm, "labels", pl);
		add(patched, svc_live(pm, name, i, 8088));
		if (f == KEEP) {
			add(new, cfg);
			add(applied, lv);
		} else if (f == CHANGE) {
			node *nc = svc_cfg(name, "api", 8081);
			add(new, nc);
			add(applied, svc_live(meta_with(meta, obj("app", S(name), "tier", S("api"),
			                                          NULL),
			                                last_applied(nc)),
			                      name, i, 8081));
		}
		if (added_after()) {
			snprintf(name, sizeof(name), "svc-new-%05d", added++);
			node *nc = svc_cfg(name, "web", 8080);
			add(new, nc);
			node *created = copy1(nc);
			node *cm = copy1(get(nc, "metadata"));
			put(cm, "annotations", obj(LA_KEY, last_applied(nc), NULL));
			set(created, "metadata", cm);
			add(applied, created);
		}
	}
	node *patch = obj("metadata", obj("labels", obj("patched", S("true"), NULL), NULL),
	                  "spec", obj("ports", list1(obj("port", mk_int(80), "targetPort",
	                                                 mk_int(8088), NULL)),
	                              NULL),
	                  NULL);
	emit_json("last.json", k8s_list(last));
	emit_json("new.json", k8s_list(new));
	/* YAML configs as a multi-document stream, as people write them. */
	buf b = {0};
	for (size_t i = 0; i < new->n; i++) {
		bputs(&b, "---\n");
		yaml_write(&b, new->v[i], 0, 0);
	}
	write_file("new.yaml", &b);
	free(b.p);
	emit_json("live.json", k8s_list(live));
	emit_json("patch.json", patch);
	emit_json("expected.json", k8s_list(patched));
	emit_json("apply.json", k8s_list(applied));
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: gen OUTDIR deploy|configmap|pod|list SIZE\n");
		return 2;
	}
	outdir = argv[1];
	int size = atoi(argv[3]);
	if (size <= 0 || size > 1000000) {
		fprintf(stderr, "gen: bad size '%s'\n", argv[3]);
		return 2;
	}
	if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "gen: cannot create %s: %s\n", outdir, strerror(errno));
		return 2;
	}
	/* One fixed seed per family and size: outputs are byte-for-byte stable. */
	rng_state = 0x736d7061746368ull ^ ((uint64_t)size << 20) ^ (uint64_t)argv[2][0];
	if (strcmp(argv[2], "deploy") == 0)
		gen_deploy(size, 100);
	else if (strcmp(argv[2], "configmap") == 0)
		gen_configmap(size);
	else if (strcmp(argv[2], "pod") == 0)
		gen_pod(size);
	else if (strcmp(argv[2], "list") == 0)
		gen_list(size);
	else {
		fprintf(stderr, "gen: unknown family '%s'\n", argv[2]);
		return 2;
	}
	arena_free();
	return 0;
}
