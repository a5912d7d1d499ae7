/*
 * applyset.c - kubectl's ApplySet (KEP-3659, `kubectl apply --prune
 * --applyset=[RESOURCE][.GROUP]/NAME`), as kubectl 1.32's applyset.go runs
 * it: the parent reference resolved and checked (a Secret, a ConfigMap, or
 * a custom resource whose CRD is labelled a parent type); the
 * applyset.kubernetes.io/part-of label on every configuration; the parent
 * applied server-side by "<tool>-applyset" before the objects (the union of
 * the kinds and namespaces it lists and those applied) and, when every
 * object went through, the members no configuration named pruned and the
 * parent applied again with the latest set.
 */
#include "plan_int.h"
#include "codec/codec.h"
#include "schema/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define AS_PART_OF "applyset.kubernetes.io/part-of"
#define AS_ID "applyset.kubernetes.io/id"
#define AS_TOOLING "applyset.kubernetes.io/tooling"
#define AS_GKS "applyset.kubernetes.io/contains-group-kinds"
#define AS_GRS "applyset.kubernetes.io/contains-group-resources"
#define AS_NSS "applyset.kubernetes.io/additional-namespaces"
#define AS_PARENT_TYPE "applyset.kubernetes.io/is-parent-type"

/* Strings kept sorted and unique (kinds as "Kind.group", namespaces). */
typedef struct strset {
	char **v;
	size_t n, cap;
} strset;

struct plan_applyset {
	char *text;                 /* the reference as given */
	char res[256], group[256];  /* its resource and group */
	const char *name;           /* into text */
	char av[256], kind[256];    /* the parent's apiVersion and kind */
	char ns[256];               /* its namespace, "" when cluster-scoped */
	bool namespaced, builtin;   /* builtin: a Secret or ConfigMap */
	char gvr[600];              /* as kubectl prints it: "G/V, Resource=R" */
	char ref[600];              /* kubectl's ParentRef.String(): "secrets./NAME" */
	char id[64];
	char tooling[256];          /* "NAME/VERSION" */
	char tool_name[256];
	char manager[300];          /* "<tool name>-applyset" */
	strset cur_gk, cur_ns;      /* what the live parent lists */
	strset upd_gk, upd_ns;      /* what the configurations apply */
	smp_doc *doc;               /* labels added to configurations, the
	                               parent after its first apply */
	const smp_value *live;      /* the live parent, NULL: none */
	smp_doc *live_doc;
	const smp_value *after;     /* the parent after the first apply */
};

static int oom(smp_error *err)
{
	return smp__err(err, SMP_ENOMEM, "out of memory");
}

/* Inserts str (len bytes, copied) unless present. false on ENOMEM. */
static bool set_add(strset *s, const char *str, size_t len)
{
	size_t lo = 0, hi = s->n;
	char *c;

	if (!(c = strndup(str, len)))
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(s->v[mid], c);

		if (r == 0) {
			free(c);
			return true;
		}
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!smp_grow((void **)&s->v, &s->cap, s->n, sizeof(*s->v), 16)) {
		free(c);
		return false;
	}
	memmove(&s->v[lo + 1], &s->v[lo], (s->n - lo) * sizeof(*s->v));
	s->v[lo] = c;
	s->n++;
	return true;
}

static bool set_has(const strset *s, const char *str)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(s->v[mid], str);

		if (r == 0)
			return true;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static void set_free(strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

void smp__applyset_free(plan_applyset *as)
{
	if (!as)
		return;
	free(as->text);
	set_free(&as->cur_gk);
	set_free(&as->cur_ns);
	set_free(&as->upd_gk);
	set_free(&as->upd_ns);
	smp_doc_free(as->doc);
	smp_doc_free(as->live_doc);
	free(as);
}

int smp__applyset_check(const smp_plan_options *o, smp_error *err)
{
	const char *tool = o->applyset_tooling;

	if (!o->applyset) {
		if (tool)
			return smp__err(err, SMP_EINVAL, "applyset_tooling needs applyset");
		return 0;
	}
	if (o->mode != SMP_PLAN_CLIENT_SIDE && o->mode != SMP_PLAN_SERVER_SIDE)
		return smp__err(err, SMP_EINVAL, "applyset is for apply only");
	if (!o->prune)
		return smp__err(err, SMP_EINVAL, "applyset requires prune");
	if (o->prune_all)
		return smp__err(err, SMP_EINVAL, "prune_all is incompatible with applyset");
	if (o->selector)
		return smp__err(err, SMP_EINVAL, "a selector is incompatible with applyset");
	if (o->prune_allowlist_len)
		return smp__err(err, SMP_EINVAL, "prune_allowlist is incompatible with applyset");
	if (tool && (!strchr(tool, '/') || tool[0] == '/' || strlen(tool) > 250))
		return smp__err(err, SMP_EINVAL, "applyset_tooling: expected NAME/VERSION, got "
		                "\"%s\"", tool);
	return 0;
}

int smp__applyset_new(plan_applyset **out, const smp_plan_options *o, smp_error *err)
{
	plan_applyset *as = calloc(1, sizeof(*as));
	const char *tool = o->applyset_tooling ? o->applyset_tooling : SMP_APPLYSET_TOOLING;
	const char *slash;

	*out = NULL;
	if (!as || !(as->text = strdup(o->applyset)) || !(as->doc = smp_doc_alloc())) {
		smp__applyset_free(as);
		return oom(err);
	}
	/* kubectl's toolingBaseName: all before the last '/' */
	snprintf(as->tooling, sizeof(as->tooling), "%s", tool);
	slash = strrchr(tool, '/');
	snprintf(as->tool_name, sizeof(as->tool_name), "%.*s", (int)(slash - tool), tool);
	snprintf(as->manager, sizeof(as->manager), "%s-applyset", as->tool_name);
	*out = as;
	return 0;
}

/* ------------------------------------------------------------ the parent */

/* A live CustomResourceDefinition of `group` naming `res` (plural,
 * singular or kind): fills the parent's kind, apiVersion (the preferred
 * served version) and scope; *permitted: labelled a parent type. 1 found,
 * 0 not, SMP_ENOMEM. */
static int from_crd(plan_applyset *as, smp_plan *p, bool *permitted)
{
	for (size_t i = 0; i < p->nlive; i++) {
		const smp_value *v = p->live[i].v, *spec, *names, *vers;
		const char *av = smpv_map_str(v, "apiVersion"), *best = NULL;
		const char *name = smpv_map_str(smp_map_get(v, "metadata"), "name");
		size_t nl = name ? strlen(name) : 0, gl = strlen(as->group);
		smp_doc *doc = NULL;
		smp_error lerr;
		int rc;

		/* a CRD is named PLURAL.GROUP: only those of the group are read */
		if (!v || !av || strncmp(av, "apiextensions.k8s.io/", 21) != 0 ||
		    !smpv_map_str(v, "kind") || strcmp(smpv_map_str(v, "kind"), "CustomResourceDefinition") != 0 ||
		    nl <= gl + 1 || name[nl - gl - 1] != '.' || strcmp(name + nl - gl, as->group) != 0)
			continue;
		if ((rc = smp__plan_live_load(p, &p->live[i], &doc, &v, &lerr)))
			if (rc == SMP_ENOMEM)
				return rc;
		spec = smp_map_get(v, "spec");
		names = smp_map_get(spec, "names");
		if (rc || !smpv_map_str(spec, "group") || strcmp(smpv_map_str(spec, "group"), as->group) != 0 ||
		    !smpv_map_str(names, "kind") ||
		    !((smpv_map_str(names, "plural") && strcasecmp(smpv_map_str(names, "plural"), as->res) == 0) ||
		      (smpv_map_str(names, "singular") &&
		       strcasecmp(smpv_map_str(names, "singular"), as->res) == 0) ||
		      strcasecmp(smpv_map_str(names, "kind"), as->res) == 0)) {
			smp_doc_free(doc);
			continue;
		}
		vers = smp_map_get(spec, "versions");
		for (size_t j = 0; j < smp_value_len(vers); j++) {
			const smp_value *ver = smp_list_get(vers, j);
			const char *vn = smpv_map_str(ver, "name");

			if (vn && smp_value_type(smp_map_get(ver, "served")) == SMP_BOOL &&
			    smp_value_bool(smp_map_get(ver, "served")) &&
			    (!best || smp_version_priority(vn, best) > 0))
				best = vn;
		}
		if (!best)
			best = smpv_map_str(spec, "version") ? smpv_map_str(spec, "version") : "v1";
		snprintf(as->kind, sizeof(as->kind), "%s", smpv_map_str(names, "kind"));
		snprintf(as->av, sizeof(as->av), "%.180s/%.60s", as->group, best);
		snprintf(as->gvr, sizeof(as->gvr), "%.200s/%.60s, Resource=%.200s", as->group, best,
		         smpv_map_str(names, "plural") ? smpv_map_str(names, "plural") : as->res);
		as->namespaced = smpv_map_str(spec, "scope") && strcmp(smpv_map_str(spec, "scope"), "Namespaced") == 0;
		*permitted = smp_map_get(smp_value_at(v, "metadata.labels"), AS_PARENT_TYPE) != NULL;
		smp_doc_free(doc);
		return 1;
	}
	return 0;
}

/* kubectl's ParseApplySetParentRef and ApplySet.Validate: the parent's
 * kind, scope and namespace, or the error kubectl gives. */
static int resolve(plan_applyset *as, smp_plan *p, smp_error *err)
{
	const char *slash = strchr(as->text, '/'), *dot;
	const smp_gvk_entry *e = NULL;
	char errs[2][700];
	size_t nerr = 0;
	bool permitted = false;
	int rc = 0;

	if (slash) {
		size_t n = (size_t)(slash - as->text);

		as->name = slash + 1;
		dot = memchr(as->text, '.', n);
		snprintf(as->res, sizeof(as->res), "%.*s", (int)(dot ? dot - as->text : (ptrdiff_t)n),
		         as->text);
		if (dot)
			snprintf(as->group, sizeof(as->group), "%.*s", (int)(slash - dot - 1), dot + 1);
	} else {
		as->name = as->text;
		snprintf(as->res, sizeof(as->res), "secrets");
	}
	if (!*as->name)
		return smp__err(err, SMP_EINVALOBJ, "invalid parent reference \"%s\": name cannot "
		                "be blank", as->text);
	/* custom resources are in groups with a dot; the core group has none */
	if (as->group[0] && (rc = from_crd(as, p, &permitted)) < 0)
		return oom(err);
	if (!rc) {
		if (!(e = smp_schema_find_resource(smp_schema_builtin(), as->group, as->res)) &&
		    p->o.schema)
			e = smp_schema_find_resource(p->o.schema, as->group, as->res);
		if (!e)
			return smp__err(err, SMP_EINVALOBJ, "invalid parent reference \"%s\": no "
			                "matches for %s/, Resource=%s", as->text, as->group, as->res);
		snprintf(as->kind, sizeof(as->kind), "%s", e->kind);
		if (e->group[0])
			snprintf(as->av, sizeof(as->av), "%s/%s", e->group, e->version);
		else
			snprintf(as->av, sizeof(as->av), "%s", e->version);
		snprintf(as->gvr, sizeof(as->gvr), "%s/%s, Resource=%s", e->group, e->version,
		         e->resource ? e->resource : as->res);
		as->namespaced = e->namespaced != 0;
		as->builtin = !e->group[0] && e->version && strcmp(e->version, "v1") == 0 &&
		              (strcmp(e->kind, "Secret") == 0 || strcmp(e->kind, "ConfigMap") == 0);
		permitted = as->builtin;
	}
	/* ParentRef.String(): the resource, its group, the name */
	snprintf(as->ref, sizeof(as->ref), "%s.%s/%s", strchr(as->gvr, '=') + 1, as->group,
	         as->name);
	/* the namespace comes from -n alone, not from defaults */
	if (as->namespaced && p->o.enforce_namespace && p->o.default_namespace)
		snprintf(as->ns, sizeof(as->ns), "%s", p->o.default_namespace);
	if (as->namespaced && !as->ns[0])
		snprintf(errs[nerr++], sizeof(errs[0]), "namespace is required to use "
		         "namespace-scoped ApplySet");
	if (!permitted)
		snprintf(errs[nerr++], sizeof(errs[0]), "resource \"%s\" is not permitted as an "
		         "ApplySet parent", as->gvr);
	if (nerr == 1)
		return smp__err(err, SMP_EINVALOBJ, "%s", errs[0]);
	if (nerr == 2) /* utilerrors.NewAggregate */
		return smp__err(err, SMP_EINVALOBJ, "[%s, %s]", errs[0], errs[1]);
	return 0;
}

/* kubectl's ApplySet.ID(): "applyset-" base64url(sha256(name.namespace.
 * kind.group)) "-v1". */
static void make_id(plan_applyset *as)
{
	char text[1100], b64[48];
	unsigned char sum[32];
	int n = snprintf(text, sizeof(text), "%s.%s.%s.%s", as->name, as->ns, as->kind, as->group);

	smp__sha256(sum, text, n < (int)sizeof(text) ? (size_t)n : sizeof(text) - 1);
	smp_base64_encode(b64, sum, sizeof(sum), true);
	snprintf(as->id, sizeof(as->id), "applyset-%s-v1", b64);
}

/* A kind as the annotations name it: "Kind.group", or "Kind". */
static bool add_gk(strset *s, const char *av, const char *kind)
{
	size_t gl = smp__plan_group_len(av);
	char buf[600];

	if (gl)
		snprintf(buf, sizeof(buf), "%s.%.*s", kind, (int)(gl & 511), av);
	else
		snprintf(buf, sizeof(buf), "%s", kind);
	return set_add(s, buf, strlen(buf));
}

/* Adds the comma-separated items of `list` to s. false on ENOMEM. */
static bool add_list(strset *s, const char *list)
{
	while (list && *list) {
		size_t n = strcspn(list, ",");

		if (!set_add(s, list, n))
			return false;
		list += n + (list[n] == ',');
	}
	return true;
}

/* kubectl's fetchParent on the live parent: the tooling, the ID label and
 * the kinds and namespaces it lists (or, without it, the error). */
static int read_parent(plan_applyset *as, smp_error *err)
{
	const smp_value *md = smp_map_get(as->live, "metadata");
	const smp_value *ann = smp_map_get(md, "annotations");
	const char *tool = smpv_map_str(ann, AS_TOOLING), *id = smpv_map_str(smp_map_get(md, "labels"), AS_ID);
	const char *gks = smpv_map_str(ann, AS_GKS), *grs = smpv_map_str(ann, AS_GRS), *slash;

	if (!tool)
		return smp__err(err, SMP_EINVALOBJ, "ApplySet parent object \"%s\" already exists "
		                "and is missing required annotation \"%s\"", as->ref, AS_TOOLING);
	slash = strrchr(tool, '/');
	if (strlen(as->tool_name) != (size_t)(slash ? slash - tool : (ptrdiff_t)strlen(tool)) ||
	    strncmp(as->tool_name, tool, strlen(as->tool_name)) != 0)
		return smp__err(err, SMP_EINVALOBJ, "ApplySet parent object \"%s\" already exists "
		                "and is managed by tooling \"%.*s\" instead of \"%s\"", as->ref,
		                (int)(slash ? slash - tool : (ptrdiff_t)strlen(tool)), tool,
		                as->tool_name);
	if (!id)
		return smp__err(err, SMP_EINVALOBJ, "ApplySet parent object \"%s\" exists and does "
		                "not have required label %s", as->ref, AS_ID);
	if (strcmp(id, as->id) != 0)
		return smp__err(err, SMP_EINVALOBJ, "ApplySet parent object \"%s\" exists and has "
		                "incorrect value for label \"%s\" (got: %s, want: %s)", as->ref, AS_ID,
		                id, as->id);
	if (gks) {
		if (!add_list(&as->cur_gk, gks))
			return oom(err);
	} else if (grs && *grs) {
		/* the deprecated resources annotation: "resource.group,..." */
		for (const char *s = grs; *s;) {
			size_t n = strcspn(s, ",");
			char res[256] = "", grp[256] = "";
			const char *dot = memchr(s, '.', n);
			const smp_gvk_entry *e;

			snprintf(res, sizeof(res), "%.*s", (int)(dot ? dot - s : (ptrdiff_t)n), s);
			if (dot)
				snprintf(grp, sizeof(grp), "%.*s", (int)(s + n - dot - 1), dot + 1);
			if (!(e = smp_schema_find_resource(smp_schema_builtin(), grp, res)))
				return smp__err(err, SMP_EINVALOBJ, "parsing ApplySet annotation on \"%s\": "
				                "invalid group resource in \"%s\" annotation: no matches "
				                "for %s/, Resource=%s", as->ref, AS_GRS, grp, res);
			if (!add_gk(&as->cur_gk, e->group[0] ? e->group : "", e->kind))
				return oom(err);
			s += n + (s[n] == ',');
		}
	} else if (!grs) {
		return smp__err(err, SMP_EINVALOBJ, "parsing ApplySet annotation on \"%s\": kubectl "
		                "requires the \"%s\" annotation to be set on all ApplySet parent "
		                "objects", as->ref, AS_GKS);
	}
	if (!add_list(&as->cur_ns, smpv_map_str(ann, AS_NSS)) ||
	    (as->namespaced && !set_add(&as->cur_ns, as->ns, strlen(as->ns))))
		return oom(err);
	return 0;
}

/* The body kubectl's updateParent applies (a PartialObjectMetadata), with
 * the kinds and namespaces of `gks` and `nss` (the parent's own left
 * out). NULL on ENOMEM. */
static smp_doc *parent_body(const plan_applyset *as, const strset *gks, const strset *nss)
{
	smp_doc *doc = smp_doc_alloc();
	smp_arena *a = doc ? &doc->arena : NULL;
	smp_value *root, *md, *labels, *ann;
	smp_buf kinds, spaces;
	bool ok;

	if (!doc)
		return NULL;
	smp_buf_init(&kinds);
	smp_buf_init(&spaces);
	for (size_t i = 0; i < gks->n; i++)
		smp_buf_printf(&kinds, "%s%s", i ? "," : "", gks->v[i]);
	for (size_t i = 0; i < nss->n; i++)
		if (strcmp(nss->v[i], as->ns) != 0)
			smp_buf_printf(&spaces, "%s%s", spaces.len ? "," : "", nss->v[i]);
	root = smpv_map(a, 3);
	md = smpv_map(a, 5);
	labels = smpv_map(a, 1);
	ann = smpv_map(a, 3);
	ok = root && md && labels && ann && !kinds.oom && !spaces.oom &&
	     !smpv_map_add(a, root, "apiVersion", 10, smpv_str(a, as->av, strlen(as->av))) &&
	     !smpv_map_add(a, root, "kind", 4, smpv_str(a, as->kind, strlen(as->kind))) &&
	     !smpv_map_add(a, root, "metadata", 8, md) &&
	     !smpv_map_add(a, md, "name", 4, smpv_str(a, as->name, strlen(as->name))) &&
	     (!as->ns[0] ||
	      !smpv_map_add(a, md, "namespace", 9, smpv_str(a, as->ns, strlen(as->ns)))) &&
	     !smpv_map_add(a, md, "creationTimestamp", 17, smpv_null(a)) &&
	     !smpv_map_add(a, md, "labels", 6, labels) &&
	     !smpv_map_add(a, labels, AS_ID, strlen(AS_ID), smpv_str(a, as->id, strlen(as->id))) &&
	     !smpv_map_add(a, md, "annotations", 11, ann) &&
	     !smpv_map_add(a, ann, AS_NSS, strlen(AS_NSS),
	                   smpv_str(a, spaces.len ? spaces.ptr : "", spaces.len)) &&
	     !smpv_map_add(a, ann, AS_GKS, strlen(AS_GKS),
	                   smpv_str(a, kinds.len ? kinds.ptr : "", kinds.len)) &&
	     !smpv_map_add(a, ann, AS_TOOLING, strlen(AS_TOOLING),
	                   smpv_str(a, as->tooling, strlen(as->tooling))) &&
	     !smp_doc_push_root(doc, root);
	smp_buf_release(&kinds);
	smp_buf_release(&spaces);
	if (!ok) {
		smp_doc_free(doc);
		return NULL;
	}
	return doc;
}

/* A parent entry: `body` applied server-side by the ApplySet's manager to
 * `live`, as kubectl's updateParent sends it (a conflict: kubectl's
 * warning, and the apply again with force). The entry takes `body` over.
 * 0, SMP_ENOMEM, or the error kubectl stops with. */
static int parent_entry(smp_plan_entry *e, smp_plan *p, smp_doc *body,
                        const smp_value *live, smp_error *err)
{
	plan_applyset *as = p->as;
	smp_ssa_options so = p->so;
	const smp_value *b = smp_doc_root(body, 0);
	smp_error serr;
	int rc;

	e->plan = p;
	e->applyset_parent = true;
	e->label = "";
	e->sent = body;
	e->patch = b;
	e->live = live;
	smp__plan_ref(e, b, NULL);
	so.manager = as->manager;
	so.force = false;
	for (int force = 0; force < 2; force++) {
		plan_req *r = &e->req[e->nreq++];

		r->method = "PATCH";
		r->content_type = "application/apply-patch+yaml";
		r->manager = as->manager;
		r->force = force;
		r->body = b;
		so.force = force;
		rc = smp_ssa_apply(&e->sres, live, b, &so, &serr);
		if (rc != SMP_ECONFLICT || force)
			break;
		/* kubectl: klog's warning, then the same apply with force */
		{
			char line[2048];

			snprintf(line, sizeof(line), "Warning: failed to update ApplySet: %s",
			         e->sres && smp_ssa_result_message(e->sres) ? smp_ssa_result_message(e->sres)
			                                                   : serr.message);
			if (smp__plan_warn(e, line, strlen(line)))
				return SMP_ENOMEM;
			snprintf(line, sizeof(line), "ApplySet field manager %s should own these fields. "
			         "Retrying with conflicts forced.", as->manager);
			if (smp__plan_warn(e, line, strlen(line)))
				return SMP_ENOMEM;
		}
		smp_ssa_result_free(e->sres);
		e->sres = NULL;
	}
	if (rc == SMP_ENOMEM)
		return rc;
	if (rc)
		return smp__err(err, rc == SMP_ECONFLICT ? SMP_ECONFLICT : SMP_EINVALOBJ,
		                "failed to update ApplySet: %s", serr.message);
	e->object = smp_ssa_result_object(e->sres);
	e->action = !live ? SMP_ACTION_CREATE
	            : smp_ssa_result_changed(e->sres) ? SMP_ACTION_CONFIGURE : SMP_ACTION_UNCHANGED;
	return 0;
}

/* Sets the part-of label on every configuration kubectl decodes (the
 * label goes to the request and the last-applied annotation alike); 1
 * when one already has it (kubectl then applies nothing), 0, or
 * SMP_ENOMEM. */
static int label_configs(smp_plan *p, smp_error *lerr)
{
	plan_applyset *as = p->as;
	smp_arena *a = &as->doc->arena;

	for (size_t i = 0; i < p->ncfg; i++) {
		smp_value *md, *labels;
		const plan_obj *c = &p->cfg[i];

		if (!c->v || c->err)
			continue;
		md = smpv_map_get(c->v, "metadata");
		if (smp_value_type(md) != SMP_MAP)
			continue;
		labels = smpv_map_get(md, "labels");
		if (smp_value_type(labels) == SMP_MAP && smpv_map_get(labels, AS_PART_OF)) {
			smp__err(lerr, SMP_EINVALOBJ, "ApplySet label \"%s\" already set in input data",
			         AS_PART_OF);
			return 1;
		}
		if (smp_value_type(labels) != SMP_MAP) {
			ptrdiff_t at = smpv_map_find(md, "labels", 6);

			if (!(labels = smpv_map(a, 1)))
				return SMP_ENOMEM;
			if (at >= 0)
				md->u.map.items[at].val = labels; /* labels: null */
			else if (smpv_map_add(a, md, "labels", 6, labels))
				return SMP_ENOMEM;
		}
		if (smpv_map_add(a, labels, AS_PART_OF, strlen(AS_PART_OF),
		                 smpv_str(a, as->id, strlen(as->id))))
			return SMP_ENOMEM;
	}
	return 0;
}

int smp__applyset_begin(smp_plan *p, const plan_index *live_ix, plan_sink *sink, smp_error *err)
{
	plan_applyset *as = p->as;
	smp_error lerr;
	strset gks = {0}, nss = {0};
	smp_plan_entry e;
	smp_doc *body;
	ptrdiff_t li;
	int rc, labelled;

	if ((rc = resolve(as, p, err)))
		return rc;
	make_id(as);
	if ((labelled = label_configs(p, &lerr)) < 0)
		return oom(err);
	/* the parent as live: found as a configuration would find it */
	if (!(body = parent_body(as, &gks, &nss)))
		return oom(err);
	li = smp__plan_index_find(live_ix, p->live, smp_doc_root(body, 0), &p->ao);
	smp_doc_free(body);
	if (li >= 0 && (rc = smp__plan_live_load(p, &p->live[li], &as->live_doc, &as->live, err)))
		return rc;
	if (!as->live && !as->builtin)
		return smp__err(err, SMP_EINVALOBJ, "custom resource ApplySet parents cannot be "
		                "created automatically");
	if (as->live && (rc = read_parent(as, err)))
		return rc;
	/* what this apply adds: kubectl's addResource for each object it read */
	for (size_t i = 0; i < p->ncfg && !labelled; i++) {
		const plan_obj *c = &p->cfg[i];
		const char *ns;

		if (!c->v || c->err || !smpv_map_str(c->v, "kind"))
			continue;
		ns = smp_apply_namespace(c->v, &p->ao);
		if (!add_gk(&as->upd_gk, smpv_map_str(c->v, "apiVersion"), smpv_map_str(c->v, "kind")) ||
		    (*ns && !set_add(&as->upd_ns, ns, strlen(ns))))
			return oom(err);
	}
	/* the superset: what it lists and what this apply adds */
	for (size_t i = 0; i < as->cur_gk.n; i++)
		if (!set_add(&gks, as->cur_gk.v[i], strlen(as->cur_gk.v[i])))
			goto nomem;
	for (size_t i = 0; i < as->upd_gk.n; i++)
		if (!set_add(&gks, as->upd_gk.v[i], strlen(as->upd_gk.v[i])))
			goto nomem;
	for (size_t i = 0; i < as->cur_ns.n; i++)
		if (!set_add(&nss, as->cur_ns.v[i], strlen(as->cur_ns.v[i])))
			goto nomem;
	for (size_t i = 0; i < as->upd_ns.n; i++)
		if (!set_add(&nss, as->upd_ns.v[i], strlen(as->upd_ns.v[i])))
			goto nomem;
	body = parent_body(as, &gks, &nss);
	set_free(&gks);
	set_free(&nss);
	if (!body)
		return oom(err);
	memset(&e, 0, sizeof(e));
	if ((rc = parent_entry(&e, p, body, as->live, err))) {
		smp__plan_entry_release(&e);
		return rc;
	}
	/* the second apply meets what the first left */
	if (smp_doc_add_copy(&as->after, as->doc, e.object, err) ||
	    (p->o.stored && smp__plan_stored(&e, p))) {
		smp__plan_entry_release(&e);
		return oom(err);
	}
	if (smp__plan_emit(p, sink, &e, false))
		return oom(err);
	if (labelled) {
		*err = lerr;
		return SMP_EINVALOBJ;
	}
	return 0;
nomem:
	set_free(&gks);
	set_free(&nss);
	return oom(err);
}

/* Orders prune candidates (indices into p->live) as "Kind.group",
 * namespace, name: kubectl lists each kind in each namespace on its own
 * (in no fixed order between them), the server by name. */
typedef struct cand {
	char gk[300];
	const char *ns, *name;
	size_t i;
} cand;

static int cmp_cand(const void *x, const void *y)
{
	const cand *a = x, *b = y;
	int r = strcmp(a->gk, b->gk);

	if (!r)
		r = strcmp(a->ns, b->ns);
	return r ? r : strcmp(a->name, b->name);
}

int smp__applyset_end(smp_plan *p, const bool *used, plan_sink *sink, smp_error *err)
{
	plan_applyset *as = p->as;
	cand *c = NULL;
	size_t n = 0, cap = 0, failed;
	smp_plan_entry e;
	smp_doc *body;
	int rc = 0;

	/* kubectl's FindAllObjectsToPrune: the members (the part-of label) of
	 * the kinds the parent listed, in the namespaces it listed (every
	 * cluster-scoped one), that this apply did not name */
	for (size_t i = 0; i < p->nlive; i++) {
		const smp_value *lv = p->live[i].v, *md = smp_map_get(lv, "metadata");
		const char *id = smpv_map_str(smp_map_get(md, "labels"), AS_PART_OF);
		const char *ns = smpv_map_str(md, "namespace"), *av = smpv_map_str(lv, "apiVersion");
		size_t gl = smp__plan_group_len(av);

		if (used[i] || !id || strcmp(id, as->id) != 0 || !smpv_map_str(lv, "kind") ||
		    !smpv_map_str(md, "name"))
			continue;
		if (!smp_grow((void **)&c, &cap, n, sizeof(*c), 16)) {
			free(c);
			return oom(err);
		}
		if (gl)
			snprintf(c[n].gk, sizeof(c[n].gk), "%s.%.*s", smpv_map_str(lv, "kind"),
			         (int)(gl & 255), av);
		else
			snprintf(c[n].gk, sizeof(c[n].gk), "%s", smpv_map_str(lv, "kind"));
		c[n].ns = ns ? ns : "";
		c[n].name = smpv_map_str(md, "name");
		c[n].i = i;
		if (!set_has(&as->cur_gk, c[n].gk) || (*c[n].ns && !set_has(&as->cur_ns, c[n].ns)))
			continue;
		n++;
	}
	if (n > 1)
		qsort(c, n, sizeof(*c), cmp_cand);
	failed = sink->failed;
	for (size_t k = 0; k < n && !rc && !sink->stop; k++)
		rc = smp__plan_prune_one(p, c[k].i, sink);
	free(c);
	if (rc)
		return oom(err);
	if (sink->stop || sink->failed != failed) /* kubectl: prune failed, no update */
		return 0;
	if (!(body = parent_body(as, &as->upd_gk, &as->upd_ns)))
		return oom(err);
	memset(&e, 0, sizeof(e));
	if ((rc = parent_entry(&e, p, body, as->after, err)) ||
	    (p->o.stored && (rc = smp__plan_stored(&e, p)) && oom(err))) {
		smp__plan_entry_release(&e);
		return rc;
	}
	return smp__plan_emit(p, sink, &e, false) ? oom(err) : 0;
}
