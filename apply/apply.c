/*
 * apply.c - what client-side `kubectl apply` does with one object: the
 * last-applied annotation (k8s.io/kubectl/pkg/util/apply.go), the choice
 * between strategic and JSON merge patch (pkg/cmd/apply/patcher.go), the
 * three-way patch, preconditions, conflicts and the annotation size limit.
 */
#include "apply/apply_int.h"
#include "codec/codec.h"
#include "schema/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct smp_apply_result {
	smp_doc *doc;              /* owns patch and object */
	smp_doc *pdoc, *odoc;      /* documents from the merge engine */
	smp_apply_action action;
	smp_patch_type ptype;
	const smp_value *patch;
	const smp_value *object;
	char *warning;
	char *enc;                 /* the annotation text (referenced by the object) */
};

#define LA SMP_LAST_APPLIED_ANNOTATION

static int oom(smp_error *err)
{
	return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
}

/* ---- object names ---- */

static void put_lower(smp_buf *b, const char *s)
{
	for (; *s; s++)
		smp_buf_putc(b, (*s >= 'A' && *s <= 'Z') ? (char)(*s - 'A' + 'a') : *s);
}

/* The group of an apiVersion ("apps/v1" -> "apps", "v1" -> ""). */
static size_t group_len(const char *api_version)
{
	const char *slash = api_version ? strchr(api_version, '/') : NULL;
	return slash ? (size_t)(slash - api_version) : 0;
}

/* meta.UnsafeGuessKindToResource: the lower-cased kind, "endpoints" kept
 * as it is, then "s" -> "ses", "y" -> "ies", else + "s". */
static void put_guessed_resource(smp_buf *b, const char *kind)
{
	size_t n = strlen(kind);

	put_lower(b, kind);
	if (!n || b->oom)
		return;
	if (n >= 9 && memcmp(b->ptr + b->len - 9, "endpoints", 9) == 0)
		return;
	if (kind[n - 1] == 's' || kind[n - 1] == 'S') {
		smp_buf_puts(b, "es");
	} else if (kind[n - 1] == 'y' || kind[n - 1] == 'Y') {
		b->len--;
		smp_buf_puts(b, "ies");
	} else {
		smp_buf_putc(b, 's');
	}
}

/* kind.group/name as kubectl prints it ("deployment.apps/nginx"); with
 * `resource`, the resource name instead ("deployments/nginx", as the
 * missing-annotation warning shows it): from `schema` (a loaded document or
 * CRDs), then the built-in tables, else guessed as kubectl's
 * UnsafeGuessKindToResource does. */
static void put_ref(smp_buf *b, const smp_value *obj, bool resource,
                    const smp_schema *schema)
{
	const char *kind = smpv_map_str(obj, "kind");
	const char *av = smpv_map_str(obj, "apiVersion");
	const char *name = smpv_map_str(smpv_map_get(obj, "metadata"), "name");
	size_t gl = group_len(av);

	if (!kind)
		kind = "";
	if (resource) {
		const char *r = schema ? smp_schema_kind_resource(schema, av, kind) : NULL;

		if (!r)
			r = smp_schema_kind_resource(smp_schema_builtin(), av, kind);
		if (r)
			smp_buf_puts(b, r);
		else
			put_guessed_resource(b, kind);
	} else {
		put_lower(b, kind);
		if (gl) {
			smp_buf_putc(b, '.');
			smp_buf_put(b, av, gl);
		}
	}
	smp_buf_putc(b, '/');
	smp_buf_puts(b, name ? name : "");
}

size_t smp_apply_object_ref(char *buf, size_t size, const smp_value *obj)
{
	smp_buf b;
	size_t n;

	smp_buf_init(&b);
	put_ref(&b, obj, false, NULL);
	n = b.oom ? 0 : b.len;
	if (size) {
		size_t c = n < size - 1 ? n : size - 1;
		if (c)
			memcpy(buf, b.ptr, c);
		buf[c] = '\0';
	}
	smp_buf_release(&b);
	return n;
}

/* ---- namespaces ---- */

static const smp_schema *builtin(void)
{
	return smp_schema_builtin();
}

/* The scope of obj's kind: 1 namespaced, 0 cluster-scoped, -1 unknown.
 * In order: the exact group/version/kind in opts->schema, then in the
 * built-in tables; any version of the group/kind there (a kind keeps its
 * scope across versions: apps/v1beta2 Deployment); kinds removed from
 * Kubernetes; opts->scopes (declared or learned from live objects). */
int smp_apply_kind_scope(const smp_value *obj, const smp_apply_options *opts)
{
	const char *av = smpv_map_str(obj, "apiVersion"), *kind = smpv_map_str(obj, "kind");
	const smp_schema *user = opts ? opts->schema : NULL;
	const smp_scopes *scopes = opts && opts->version >= 2 ? opts->scopes : NULL;
	const smp_gvk_entry *e;
	const char *g, *v;
	size_t glen, vlen;
	int r;

	if (!av || !kind)
		return -1;
	for (int exact = 1; exact >= 0; exact--) {
		if (user && (e = smp_schema_find_kind(user, av, kind, exact)) && e->namespaced >= 0)
			return e->namespaced;
		if ((e = smp_schema_find_kind(builtin(), av, kind, exact)) && e->namespaced >= 0)
			return e->namespaced;
	}
	smp_split_api_version(av, &g, &glen, &v, &vlen);
	if ((r = smp_removed_kind_scope(g, glen, kind)) >= 0)
		return r;
	return smp_scopes_get(scopes, av, kind);
}

static bool is_namespaced(const smp_value *obj, const smp_apply_options *o)
{
	/* Unknown kinds count as namespaced: most custom resources are, and
	 * that keeps -n meaningful for them. */
	return smp_apply_kind_scope(obj, o) != 0;
}

const char *smp_apply_namespace(const smp_value *config, const smp_apply_options *opts)
{
	smp_apply_options def = SMP_APPLY_OPTIONS_INIT;
	const smp_apply_options *o = opts ? opts : &def;
	const char *ns;

	if (!is_namespaced(config, o))
		return "";
	ns = smpv_map_str(smpv_map_get(config, "metadata"), "namespace");
	if (ns && *ns)
		return ns;
	return o->default_namespace && *o->default_namespace ? o->default_namespace
	                                                     : "default";
}

/* ---- the annotation ---- */

/* Sets obj.metadata.annotations to a fresh map holding the string-valued
 * annotations of `obj` except the last-applied one (the reference reads them
 * as map[string]string: a map with any non-string value reads as none). */
static smp_value *reset_annotations(smp_arena *a, smp_value *obj)
{
	smp_value *md = smpv_map_get(obj, "metadata");
	smp_value *old, *fresh;
	ptrdiff_t at;

	if (!md) {
		md = smpv_map(a, 2);
		if (!md || smpv_map_add(a, obj, "metadata", 8, md))
			return NULL;
	}
	old = smpv_map_get(md, "annotations");
	fresh = smpv_map(a, old && old->type == SMP_MAP ? old->u.map.len + 1 : 1);
	if (!fresh)
		return NULL;
	if (old && old->type == SMP_MAP) {
		bool all_strings = true;
		for (size_t i = 0; i < old->u.map.len; i++)
			if (old->u.map.items[i].val->type != SMP_STRING)
				all_strings = false;
		for (size_t i = 0; all_strings && i < old->u.map.len; i++) {
			const smp_member *m = &old->u.map.items[i];
			if (m->klen == strlen(LA) && memcmp(m->key, LA, m->klen) == 0)
				continue;
			if (smpv_map_add(a, fresh, m->key, m->klen, m->val))
				return NULL;
		}
	}
	at = smpv_map_find(md, "annotations", 11);
	if (at >= 0)
		md->u.map.items[at].val = fresh;
	else if (smpv_map_add(a, md, "annotations", 11, fresh))
		return NULL;
	return fresh;
}

/* v as Go's json.Encoder writes a map: compact, sorted keys, <>& escaped,
 * a final newline. */
static int print_encoded(char **out, size_t *len, const smp_value *v, smp_error *err)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	smp_buf b;
	int rc;

	po.sort_keys = true;
	po.go_escape = true;
	smp_buf_init(&b);
	if ((rc = smp_print_buf(&b, v, &po, err))) {
		smp_buf_release(&b);
		return rc;
	}
	/* json.Encoder.Encode, which the reference uses, ends with a newline. */
	smp_buf_putc(&b, '\n');
	if (!(*out = smp_buf_detach(&b, len)))
		return oom(err);
	return 0;
}

/* The annotation text of `cfg` (which must be a map; it is modified: its
 * annotations map is rebuilt without the last-applied entry). */
static int encode_into(char **out, size_t *len, smp_arena *a, smp_value *cfg,
                       smp_value **annotations, smp_error *err)
{
	smp_value *ann = reset_annotations(a, cfg);

	if (!ann)
		return oom(err);
	if (annotations)
		*annotations = ann;
	return print_encoded(out, len, cfg, err);
}

int smp_last_applied_encode(char **out, size_t *len, const smp_value *config,
                            smp_error *err)
{
	smp_arena a;
	smp_value *cfg;
	size_t n = 0;
	int rc;

	*out = NULL;
	if (len)
		*len = 0;
	if (!config || config->type != SMP_MAP)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "the configuration must be an object (a map)");
	smp_arena_init(&a);
	cfg = smpv_copy(&a, config);
	if (!cfg) {
		rc = oom(err);
		goto out;
	}
	rc = encode_into(out, &n, &a, cfg, NULL, err);
	if (!rc && len)
		*len = n;
out:
	smp_arena_release(&a);
	return rc;
}

int smp_set_last_applied_encode(char **out, size_t *len, const smp_value *config,
                                const char *namespace, smp_error *err)
{
	smp_arena a;
	smp_value *cfg, *md, *nsv;
	size_t n = 0;
	int rc = 0;

	*out = NULL;
	if (len)
		*len = 0;
	if (!config || config->type != SMP_MAP)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "the configuration must be an object (a map)");
	smp_arena_init(&a);
	if (!(cfg = smpv_copy(&a, config))) {
		rc = oom(err);
		goto out;
	}
	md = smpv_map_get(cfg, "metadata");
	nsv = md && md->type == SMP_MAP ? smpv_map_get(md, "namespace") : NULL;
	/* the builder's default namespace, where the object names none */
	if (namespace && *namespace && !(nsv && nsv->type == SMP_STRING && nsv->u.s.len)) {
		smp_value *v = smpv_str(&a, namespace, strlen(namespace));
		ptrdiff_t at;

		if (!v) {
			rc = oom(err);
			goto out;
		}
		if (!md || md->type != SMP_MAP) {
			smp_value *m = smpv_map(&a, 2);

			at = smpv_map_find(cfg, "metadata", 8);
			if (!m || (at < 0 && smpv_map_add(&a, cfg, "metadata", 8, m))) {
				rc = oom(err);
				goto out;
			}
			if (at >= 0)
				cfg->u.map.items[at].val = m;
			md = m;
		}
		at = smpv_map_find(md, "namespace", 9);
		if (at >= 0)
			md->u.map.items[at].val = v;
		else if (smpv_map_add(&a, md, "namespace", 9, v)) {
			rc = oom(err);
			goto out;
		}
	}
	rc = print_encoded(out, &n, cfg, err);
	if (!rc && len)
		*len = n;
out:
	smp_arena_release(&a);
	return rc;
}

/* Removes null map values, recursively (maps inside lists too). */
static void drop_nulls(smp_value *v, unsigned depth)
{
	if (depth > SMP_DEFAULT_MAX_DEPTH)
		return;
	if (v->type == SMP_MAP) {
		size_t j = 0;
		for (size_t i = 0; i < v->u.map.len; i++) {
			if (v->u.map.items[i].val->type == SMP_NULL)
				continue;
			drop_nulls(v->u.map.items[i].val, depth + 1);
			v->u.map.items[j++] = v->u.map.items[i];
		}
		v->u.map.len = j;
	} else if (v->type == SMP_LIST) {
		for (size_t i = 0; i < v->u.list.len; i++)
			drop_nulls(v->u.list.items[i], depth + 1);
	}
}

/* kubectl diffs the configuration and the live object after a trip through
 * Go's JSON (json.Marshal, then numbers read back as int64 where the text
 * allows), so a float that Go prints as an integer (3.0 -> 3, -0.0 -> -0 ->
 * 0) becomes that integer and equals an applied 3. The annotation and the
 * body of a create are the configuration before that trip: a JSON -0.0 is
 * written -0 there. The annotation is read from its text as is. */
static bool has_int_float(const smp_value *v, unsigned depth)
{
	int64_t iv;

	if (depth > SMP_DEFAULT_MAX_DEPTH)
		return false;
	if (v->type == SMP_FLOAT)
		return smp_float_is_int(v->u.f, &iv);
	if (v->type == SMP_MAP) {
		for (size_t i = 0; i < v->u.map.len; i++)
			if (has_int_float(v->u.map.items[i].val, depth + 1))
				return true;
	} else if (v->type == SMP_LIST) {
		for (size_t i = 0; i < v->u.list.len; i++)
			if (has_int_float(v->u.list.items[i], depth + 1))
				return true;
	}
	return false;
}

static void ints_from_floats(smp_value *v, unsigned depth)
{
	int64_t iv;

	if (depth > SMP_DEFAULT_MAX_DEPTH)
		return;
	if (v->type == SMP_FLOAT && smp_float_is_int(v->u.f, &iv)) {
		v->type = SMP_INT;
		v->u.i = iv;
	} else if (v->type == SMP_MAP) {
		for (size_t i = 0; i < v->u.map.len; i++)
			ints_from_floats(v->u.map.items[i].val, depth + 1);
	} else if (v->type == SMP_LIST) {
		for (size_t i = 0; i < v->u.list.len; i++)
			ints_from_floats(v->u.list.items[i], depth + 1);
	}
}

/* kubectl computes its JSON merge patch (jsonmergepatch, for kinds without
 * strategic metadata) on the three objects read back through Go's
 * encoding/json, every number a float64: integers beyond 2^53 are compared
 * and sent rounded (123456789012345678 -> 123456789012345680). The
 * annotation and a create keep the exact text. */
#define EXACT_INT_LIMIT 9007199254740992LL /* 2^53 */

static bool big_int(const smp_value *v)
{
	return v->type == SMP_INT && (v->u.i > EXACT_INT_LIMIT || v->u.i < -EXACT_INT_LIMIT);
}

static bool has_big_int(const smp_value *v, unsigned depth)
{
	if (depth > SMP_DEFAULT_MAX_DEPTH)
		return false;
	if (big_int(v))
		return true;
	if (v->type == SMP_MAP) {
		for (size_t i = 0; i < v->u.map.len; i++)
			if (has_big_int(v->u.map.items[i].val, depth + 1))
				return true;
	} else if (v->type == SMP_LIST) {
		for (size_t i = 0; i < v->u.list.len; i++)
			if (has_big_int(v->u.list.items[i], depth + 1))
				return true;
	}
	return false;
}

static void floats_from_big_ints(smp_value *v, unsigned depth)
{
	if (depth > SMP_DEFAULT_MAX_DEPTH)
		return;
	if (big_int(v)) {
		double f = (double)v->u.i;

		v->type = SMP_FLOAT;
		v->u.f = f;
	} else if (v->type == SMP_MAP) {
		for (size_t i = 0; i < v->u.map.len; i++)
			floats_from_big_ints(v->u.map.items[i].val, depth + 1);
	} else if (v->type == SMP_LIST) {
		for (size_t i = 0; i < v->u.list.len; i++)
			floats_from_big_ints(v->u.list.items[i], depth + 1);
	}
}

/* v as kubectl's JSON merge patch sees it: v itself, or a copy in `a`
 * with its big integers made floats. NULL only when the copy fails. */
static const smp_value *as_float64(smp_arena *a, const smp_value *v)
{
	smp_value *c;

	if (!v || !has_big_int(v, 0))
		return v;
	if (!(c = smpv_copy(a, v)))
		return NULL;
	floats_from_big_ints(c, 0);
	return c;
}

/* One warning line per number of the patch `p` that is the integer at the
 * same place of the configuration `m`, rounded to another value. `path`
 * (plen used, room for cap) names the place. */
static void warn_rounded(smp_buf *b, const smp_value *p, const smp_value *m, char *path,
                         size_t plen, size_t cap, unsigned depth)
{
	if (!p || !m || depth > SMP_DEFAULT_MAX_DEPTH)
		return;
	if (p->type == SMP_FLOAT && big_int(m)) {
		char ftext[32], itext[24];
		size_t fn = smp_format_float(ftext, p->u.f), in = smp_format_int(itext, m->u.i);

		if (fn != in || memcmp(ftext, itext, in) != 0)
			smp_buf_printf(b, "%sWarning: %.*s: %.*s is sent as %.*s: kubectl's JSON merge "
			               "patch carries numbers as float64, exact only up to 2^53",
			               b->len ? "\n" : "", (int)plen, path, (int)in, itext, (int)fn,
			               ftext);
	} else if (p->type == SMP_MAP && m->type == SMP_MAP) {
		for (size_t i = 0; i < p->u.map.len; i++) {
			const smp_member *e = &p->u.map.items[i];
			ptrdiff_t at = smpv_map_find(m, e->key, e->klen);
			int n = snprintf(path + plen, cap - plen, "%s%.*s", plen ? "." : "",
			                 (int)e->klen, e->key);

			warn_rounded(b, e->val, at >= 0 ? m->u.map.items[at].val : NULL, path,
			             plen + ((size_t)n < cap - plen ? (size_t)n : cap - plen - 1), cap,
			             depth + 1);
		}
	} else if (p->type == SMP_LIST && m->type == SMP_LIST) {
		for (size_t i = 0; i < p->u.list.len && i < m->u.list.len; i++) {
			int n = snprintf(path + plen, cap - plen, "[%zu]", i);

			warn_rounded(b, p->u.list.items[i], m->u.list.items[i], path,
			             plen + ((size_t)n < cap - plen ? (size_t)n : cap - plen - 1), cap,
			             depth + 1);
		}
	}
}

static size_t annotations_size(const smp_value *obj)
{
	const smp_value *ann = smpv_map_get(smpv_map_get(obj, "metadata"), "annotations");
	size_t total = 0;

	if (!ann || ann->type != SMP_MAP)
		return 0;
	for (size_t i = 0; i < ann->u.map.len; i++) {
		const smp_value *v = ann->u.map.items[i].val;
		total += ann->u.map.items[i].klen;
		if (v->type == SMP_STRING)
			total += v->u.s.len;
	}
	return total;
}

/* A new map: `key` first with value v, then map's other members (shared). */
static smp_value *with_member(smp_arena *a, const smp_value *map, const char *key,
                              const smp_value *v)
{
	size_t klen = strlen(key);
	smp_value *m = smpv_map(a, map->u.map.len + 1);

	if (!m || smpv_map_add(a, m, key, klen, (smp_value *)v))
		return NULL;
	for (size_t i = 0; i < map->u.map.len; i++) {
		const smp_member *e = &map->u.map.items[i];

		if (e->klen == klen && memcmp(e->key, key, klen) == 0)
			continue;
		if (smpv_map_add(a, m, e->key, e->klen, e->val))
			return NULL;
	}
	return m;
}

/* "<ref>: " in front of an error message. */
static void prefix_ref(smp_error *err, const smp_value *obj)
{
	smp_buf b;

	if (!err)
		return;
	smp_buf_init(&b);
	put_ref(&b, obj, false, NULL);
	smp_buf_puts(&b, ": ");
	smp_buf_puts(&b, err->message);
	if (!b.oom)
		snprintf(err->message, sizeof(err->message), "%s", b.ptr);
	smp_buf_release(&b);
}

/* ---- the workflow ---- */

void smp_apply_result_free(smp_apply_result *res)
{
	if (!res)
		return;
	smp_doc_free(res->doc);
	smp_doc_free(res->pdoc);
	smp_doc_free(res->odoc);
	free(res->warning);
	smp_free(res->enc);
	free(res);
}

smp_apply_action smp_apply_result_action(const smp_apply_result *res)
{
	return res ? res->action : SMP_ACTION_UNCHANGED;
}

smp_patch_type smp_apply_result_patch_type(const smp_apply_result *res)
{
	return res ? res->ptype : SMP_PATCH_STRATEGIC;
}

const smp_value *smp_apply_result_patch(const smp_apply_result *res)
{
	return res ? res->patch : NULL;
}

const smp_value *smp_apply_result_object(const smp_apply_result *res)
{
	return res ? res->object : NULL;
}

const char *smp_apply_result_warning(const smp_apply_result *res)
{
	return res ? res->warning : NULL;
}

/* Checks what kubectl needs before it can apply an object at all. */
static int check_config(const smp_value *cfg, smp_error *err)
{
	const smp_value *md;
	const char *name;

	if (!cfg || cfg->type != SMP_MAP)
		return smp_err_set(err, SMP_EINVAL, NULL, cfg ? cfg->line : 0,
		                   cfg ? cfg->col : 0, NULL,
		                   "the configuration must be an object (a map)");
	if (!smpv_map_str(cfg, "kind") || !*smpv_map_str(cfg, "kind"))
		return smp_err_set(err, SMP_EINVALOBJ, NULL, cfg->line, cfg->col, "kind",
		                   "Object 'Kind' is missing");
	if (!smpv_map_str(cfg, "apiVersion") || !*smpv_map_str(cfg, "apiVersion"))
		return smp_err_set(err, SMP_EINVALOBJ, NULL, cfg->line, cfg->col, "apiVersion",
		                   "Object 'apiVersion' is missing");
	md = smpv_map_get(cfg, "metadata");
	if (md && md->type != SMP_MAP && md->type != SMP_NULL)
		return smp_err_set(err, SMP_EINVALOBJ, NULL, md->line, md->col, "metadata",
		                   "metadata must be a map");
	name = smpv_map_str(md, "name");
	if (!name || !*name) {
		if (smpv_map_str(md, "generateName"))
			return smp_err_set(err, SMP_EINVALOBJ, NULL, cfg->line, cfg->col,
			                   "metadata.name", "cannot use generate name with apply");
		return smp_err_set(err, SMP_EINVALOBJ, NULL, cfg->line, cfg->col,
		                   "metadata.name", "resource name may not be empty");
	}
	return 0;
}

/* The namespace kubectl gives a configuration: -n (or default) for a
 * namespaced kind that names none, an error for another one when -n is
 * enforced, none for a cluster-scoped kind. */
static int set_namespace(smp_arena *a, smp_value *cfg, const smp_apply_options *o,
                         smp_error *err)
{
	smp_value *md = smpv_map_get(cfg, "metadata");
	const char *want = o->default_namespace && *o->default_namespace
	                   ? o->default_namespace : "default";
	smp_value *nsv = md ? smpv_map_get(md, "namespace") : NULL;
	const char *ns = nsv && nsv->type == SMP_STRING ? nsv->u.s.ptr : NULL;
	ptrdiff_t at;

	if (!is_namespaced(cfg, o)) {
		/* kubectl's builder (FilterNamespace) drops the namespace of a
		 * cluster-scoped object from what it sends and records. */
		at = md && md->type == SMP_MAP ? smpv_map_find(md, "namespace", 9) : -1;
		if (at >= 0)
			smpv_map_remove(md, (size_t)at);
		return 0;
	}
	if (ns && *ns) {
		if (o->enforce_namespace && o->default_namespace && strcmp(ns, want) != 0)
			return smp_err_set(err, SMP_EINVALOBJ, NULL, nsv->line, nsv->col, NULL,
			                   "the namespace from the provided object \"%s\" does not "
			                   "match the namespace \"%s\"", ns, want);
		return 0;
	}
	nsv = smpv_str(a, want, strlen(want));
	if (!nsv)
		return oom(err);
	if (md->type != SMP_MAP) {
		/* metadata: null */
		smp_value *m = smpv_map(a, 2);
		if (!m)
			return oom(err);
		at = smpv_map_find(cfg, "metadata", 8);
		cfg->u.map.items[at].val = m;
		md = m;
	}
	at = smpv_map_find(md, "namespace", 9);
	if (at >= 0)
		md->u.map.items[at].val = nsv;
	else if (smpv_map_add(a, md, "namespace", 9, nsv))
		return oom(err);
	return 0;
}

int smp__validate_labels(const smp_value *cfg, smp_error *err)
{
	const smp_value *md = smpv_map_get(cfg, "metadata");
	const smp_value *tmpl;
	int rc = smp_labels_validate(smpv_map_get(md, "labels"), "metadata.labels", err);

	if (rc)
		return rc;
	/* Pod templates: the API server checks their labels too. */
	tmpl = smpv_map_get(smpv_map_get(cfg, "spec"), "template");
	return smp_labels_validate(smpv_map_get(smpv_map_get(tmpl, "metadata"), "labels"),
	                           "spec.template.metadata.labels", err);
}

/* Whether kubectl would compute a strategic merge patch (patcher.go: the
 * kind is in its scheme, which the built-in tables record per GVK; not
 * CustomResourceDefinition or APIService, for instance) and the schema type
 * to use for it: the user's OpenAPI document first (kubectl prefers the
 * server's), else built-in. The user's document never changes the choice. */
static bool strategic_type(const smp_value *cfg, const smp_apply_options *o,
                           const smp_stype **st)
{
	const char *av = smpv_map_str(cfg, "apiVersion"), *kind = smpv_map_str(cfg, "kind");
	const smp_gvk_entry *e = smp_schema_find_kind(builtin(), av, kind, true);
	const smp_stype *ut = NULL;

	if (!e || !e->kubectl_scheme)
		return false;
	if (o->schema && smp_schema_kind(&ut, o->schema, av, kind, NULL) == 0 && ut)
		*st = ut;
	else
		*st = e->type;
	return true;
}

static int make_warning(smp_apply_result *res, const smp_value *live,
                        const smp_apply_options *o)
{
	smp_buf b;

	smp_buf_init(&b);
	smp_buf_puts(&b, "Warning: resource ");
	put_ref(&b, live, true, o->schema);
	smp_buf_puts(&b, " is missing the " LA " annotation which is required by kubectl "
	             "apply. kubectl apply should only be used on resources created "
	             "declaratively by either kubectl create --save-config or kubectl "
	             "apply. The missing annotation will be patched automatically.");
	res->warning = smp_buf_detach(&b, NULL);
	return res->warning ? 0 : SMP_ENOMEM;
}

/* Appends the rounding warnings (patch vs configuration) to res->warning. */
static int add_rounding_warnings(smp_apply_result *res, const smp_value *mod)
{
	char path[1024];
	smp_buf b;

	smp_buf_init(&b);
	if (res->warning)
		smp_buf_puts(&b, res->warning);
	path[0] = '\0';
	warn_rounded(&b, res->patch, mod, path, 0, sizeof(path), 0);
	if (b.oom) {
		smp_buf_release(&b);
		return SMP_ENOMEM;
	}
	free(res->warning);
	res->warning = b.len ? smp_buf_detach(&b, NULL) : NULL;
	smp_buf_release(&b);
	return 0;
}

/* Create: the object itself is sent (a float -0 as -0), and the server
 * reads its integral numbers as integers. */
static int apply_create(smp_apply_result *res, smp_arena *a, smp_value *mod, bool too_large,
                        smp_error *err)
{
	if (!too_large)
		drop_nulls(mod, 0);
	res->action = SMP_ACTION_CREATE;
	res->patch = res->object = mod;
	if (has_int_float(mod, 0)) {
		smp_value *obj = smpv_copy(a, mod);

		if (!obj)
			return oom(err);
		ints_from_floats(obj, 0);
		res->object = obj;
	}
	return 0;
}

/* The live object's last-applied annotation as kubectl reads it: parsed
 * into *odoc (*original NULL when there is none or it is empty); none at
 * all is kubectl's warning on the result. */
static int read_last_applied(smp_apply_result *res, const smp_value *live,
                             const smp_apply_options *o, smp_doc **odoc,
                             const smp_value **original, smp_error *err)
{
	const smp_value *lann = smpv_map_get(smpv_map_get(live, "metadata"), "annotations");
	const smp_value *lav = lann && lann->type == SMP_MAP ? smpv_map_get(lann, LA) : NULL;
	smp_parse_options pp = SMP_PARSE_OPTIONS_INIT;
	smp_error perr;
	int rc;

	*original = NULL;
	/* kubectl reads annotations as map[string]string: one value of
	 * another type and it sees none at all. */
	for (size_t i = 0; lav && i < lann->u.map.len; i++)
		if (lann->u.map.items[i].val->type != SMP_STRING)
			lav = NULL;
	if (!lav)
		return make_warning(res, live, o) ? oom(err) : 0;
	if (!lav->u.s.len)
		return 0;
	pp.format = SMP_FORMAT_JSON;
	pp.filename = LA;
	rc = smp_doc_parse(odoc, lav->u.s.ptr, lav->u.s.len, &pp, &perr);
	if (rc == SMP_ENOMEM)
		return oom(err);
	if (rc || smp_doc_count(*odoc) != 1 ||
	    (smp_doc_root(*odoc, 0)->type != SMP_MAP && smp_doc_root(*odoc, 0)->type != SMP_NULL))
		/* no position: it would be read as one in the configuration */
		return smp_err_set(err, SMP_EINVALOBJ, NULL, 0, 0, NULL,
		                   "the live object's " LA " annotation is not a JSON object%s%s",
		                   rc ? ": " : "", rc ? perr.message : "");
	*original = smp_doc_root(*odoc, 0);
	if ((*original)->type == SMP_NULL)
		*original = NULL;
	return 0;
}

/* kubectl's three-way patch into res->pdoc, as patcher.go makes it for
 * the patch type: kubectl checks that apiVersion, kind and name stay only
 * on its JSON merge patch path, so a strategic patch for a live object
 * served at another version (apps/v1beta2 for an apps/v1 configuration)
 * carries the configuration's apiVersion: the diff sees live at that
 * version, and the apiVersion goes into the patch after it. A merge patch
 * is computed on float64 numbers, as kubectl's JSON decoding gives them
 * (*rounded when that changed the configuration). */
static int three_way_patch(smp_apply_result *res, smp_arena *a, const smp_value *original,
                           const smp_value *mod, const smp_value *live,
                           const smp_patch_options *po, bool *rounded, smp_error *err)
{
	const smp_value *cur = live, *avv = NULL;
	int rc;

	*rounded = false;
	if (po->type == SMP_PATCH_STRATEGIC && smpv_map_str(mod, "apiVersion") &&
	    (!smpv_map_str(live, "apiVersion") ||
	     strcmp(smpv_map_str(live, "apiVersion"), smpv_map_str(mod, "apiVersion")) != 0)) {
		avv = smpv_map_get(mod, "apiVersion");
		if (!(cur = with_member(a, live, "apiVersion", avv)))
			return oom(err);
	}
	if (po->type == SMP_PATCH_MERGE) {
		const smp_value *fo = as_float64(a, original), *fm = as_float64(a, mod);
		const smp_value *fc = as_float64(a, cur);

		if ((original && !fo) || !fm || !fc)
			return oom(err);
		*rounded = fm != mod;
		rc = smp_diff_three_way(&res->pdoc, fo, fm, fc, po, err);
	} else {
		rc = smp_diff_three_way(&res->pdoc, original, mod, cur, po, err);
	}
	if (!rc && avv) {
		smp_value *p = res->pdoc->nroots ? res->pdoc->roots[0] : NULL;

		if (!p || p->type != SMP_MAP || !(avv = smpv_copy(&res->pdoc->arena, avv)) ||
		    !(p = with_member(&res->pdoc->arena, p, "apiVersion", avv)))
			return oom(err);
		res->pdoc->roots[0] = p;
	}
	if (rc == SMP_EPRECOND) {
		char changed[SMP_ERROR_PATH_MAX];

		snprintf(changed, sizeof(changed), "%s", err->path);
		return smp_err_set(err, SMP_EPRECOND, NULL, 0, 0, changed,
		                   "At least one of apiVersion, kind and name was changed");
	}
	return rc;
}

/* A live object: the three-way patch of its last-applied annotation, the
 * configuration and itself; an empty patch leaves it unchanged, else the
 * patch applied gives the result (not computed when the annotation alone
 * is over the size limit: the object will be refused). */
static int apply_configure(smp_apply_result *res, smp_arena *a, smp_value *mod,
                           const smp_value *live, const smp_apply_options *o,
                           const smp_patch_options *po, bool too_large, smp_doc **odoc,
                           smp_error *err)
{
	const smp_value *original;
	bool rounded;
	int rc;

	if (live->type != SMP_MAP)
		return smp_err_set(err, SMP_EINVALOBJ, NULL, 0, 0, NULL,
		                   "the live object must be an object (a map)");
	/* modified as kubectl reads it back from its JSON text */
	ints_from_floats(mod, 0);
	if (has_int_float(live, 0)) {
		smp_value *lc = smpv_copy(a, live);

		if (!lc)
			return oom(err);
		ints_from_floats(lc, 0);
		live = lc;
	}
	if ((rc = read_last_applied(res, live, o, odoc, &original, err)) ||
	    (rc = three_way_patch(res, a, original, mod, live, po, &rounded, err)))
		return rc;
	res->patch = smp_doc_root(res->pdoc, 0);
	if (!res->patch || smp_patch_is_empty(res->patch)) {
		if (!(res->patch = smpv_map(a, 0)))
			return oom(err);
		res->action = SMP_ACTION_UNCHANGED;
		res->object = too_large ? live : smpv_copy(a, live);
		return res->object ? 0 : oom(err);
	}
	res->action = SMP_ACTION_CONFIGURE;
	if (rounded && add_rounding_warnings(res, mod))
		return oom(err);
	if (!too_large && (rc = smp_patch_apply(&res->odoc, live, res->patch, po, err)))
		return rc;
	res->object = too_large ? NULL : smp_doc_root(res->odoc, 0);
	/* the server reads the rounded numbers back as integers */
	if (rounded && res->object)
		ints_from_floats((smp_value *)res->object, 0);
	return 0;
}

int smp_apply_object(smp_apply_result **out, const smp_value *live,
                     const smp_value *config, const smp_apply_options *opts,
                     smp_error *err)
{
	return smp__apply_object(out, live, config, opts, true, err);
}

/* kubectl apply of one configuration (patcher.go's Patch): the
 * configuration normalised (namespace), checked (labels, with `meta`),
 * encoded into the last-applied annotation it is given
 * (GetModifiedConfiguration); then a create, or the three-way patch of the
 * live object; then (with `meta`) the size of the annotations. Errors name
 * the object (unless out of memory). */
int smp__apply_object(smp_apply_result **out, const smp_value *live, const smp_value *config,
                      const smp_apply_options *opts, bool meta, smp_error *err)
{
	smp_apply_options def = SMP_APPLY_OPTIONS_INIT;
	const smp_apply_options *o = opts ? opts : &def;
	smp_patch_options po = SMP_PATCH_OPTIONS_INIT;
	smp_apply_result *res;
	smp_arena *a;
	smp_value *cfg = NULL, *mod, *ann = NULL, *encv;
	smp_doc *odoc = NULL;
	size_t enclen = 0;
	bool too_large;
	int rc;

	*out = NULL;
	if ((rc = check_config(config, err)))
		return rc;
	res = calloc(1, sizeof(*res));
	if (!res || !(res->doc = smp_doc_alloc())) {
		free(res);
		return oom(err);
	}
	a = &res->doc->arena;
	/* One copy: the configuration, normalised (namespace), then encoded,
	 * then given the annotation: modified (GetModifiedConfiguration). */
	if (!(mod = smpv_copy(a, config))) {
		rc = oom(err);
		goto out;
	}
	cfg = mod; /* names for messages: the annotation does not change them */
	if ((rc = set_namespace(a, mod, o, err)) || (meta && (rc = smp__validate_labels(mod, err))) ||
	    (rc = encode_into(&res->enc, &enclen, a, mod, &ann, err)))
		goto out;
	/* referenced, not copied: the result owns the text */
	encv = smpv_str_ref(a, res->enc, enclen);
	if (!encv || smpv_map_add(a, ann, LA, strlen(LA), encv)) {
		rc = oom(err);
		goto out;
	}
	/* The result carries this annotation (set by the patch, or already
	 * equal), so when it alone is over the limit the object will be
	 * refused: what only serves the result is skipped then. Errors of the
	 * three-way patch (preconditions, conflicts) still come first. */
	too_large = meta && strlen(LA) + enclen > SMP_ANNOTATIONS_MAX_BYTES;
	po.type = strategic_type(cfg, o, &po.stype) ? SMP_PATCH_STRATEGIC : SMP_PATCH_MERGE;
	po.overwrite = o->overwrite;
	res->ptype = po.type;
	if (!live || live->type == SMP_NULL)
		rc = apply_create(res, a, mod, too_large, err);
	else
		rc = apply_configure(res, a, mod, live, o, &po, too_large, &odoc, err);
	if (!rc && meta && (too_large || annotations_size(res->object) > SMP_ANNOTATIONS_MAX_BYTES)) {
		const char *kind = smpv_map_str(cfg, "kind");
		const char *name = smpv_map_str(smpv_map_get(cfg, "metadata"), "name");

		rc = smp_err_set(err, SMP_EINVALOBJ, NULL, config->line, config->col,
		                 "metadata.annotations",
		                 "The %s \"%s\" is invalid: metadata.annotations: Too long: may "
		                 "not be more than %d bytes", kind, name, SMP_ANNOTATIONS_MAX_BYTES);
	}
out:
	if (rc && rc != SMP_ENOMEM)
		prefix_ref(err, cfg ? cfg : config);
	smp_doc_free(odoc);
	if (rc) {
		smp_apply_result_free(res);
		return rc;
	}
	*out = res;
	return 0;
}
