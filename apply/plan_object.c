/*
 * plan_object.c - what a plan decides for one configuration: client-side
 * apply (smp_apply_object, with kubectl's conflict report), server-side
 * apply (smp_ssa_apply) and replace (smp_ssa_update of the object the
 * server stores for a PUT), with the requests kubectl sends and, for a
 * refused request, the metav1.Status the server answers.
 */
#include "plan_int.h"
#include "codec/codec.h"
#include "schema/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char conflict_advice[] =
	"Please review the fields above--they currently have other managers. Here\n"
	"are the ways you can resolve this warning:\n"
	"* If you intend to manage all of these fields, please re-run the apply\n"
	"  command with the `--force-conflicts` flag.\n"
	"* If you do not intend to manage all of the fields, please edit your\n"
	"  manifest to remove references to the fields that should keep their\n"
	"  current managers.\n"
	"* You may co-own fields by updating your manifest to match the existing\n"
	"  value; in this case, you'll become the manager if the other manager(s)\n"
	"  stop managing the field (remove it from their configuration).\n"
	"See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts\n";

/* ------------------------------------------------------------ building values */

/* map[key] = v (key a literal); nonzero when v could not be made. */
static int put(smp_arena *a, smp_value *m, const char *key, smp_value *v)
{
	return !m || !v || smpv_map_add(a, m, key, strlen(key), v);
}

static smp_value *str(smp_arena *a, const char *s)
{
	return smpv_str(a, s, strlen(s));
}

/* A new document whose root is a new map; NULL on ENOMEM. */
static smp_value *new_map_doc(smp_doc **doc)
{
	smp_value *m;

	if (!(*doc = smp_doc_alloc()))
		return NULL;
	if ((m = smpv_map(&(*doc)->arena, 8)) && !smp_doc_push_root(*doc, m))
		return m;
	smp_doc_free(*doc);
	*doc = NULL;
	return NULL;
}

/* obj merged with the JSON merge patch `patch` (RFC 7386) into *out. */
static int merged(smp_doc **out, const smp_value *obj, const smp_value *patch, smp_error *err)
{
	smp_patch_options po = SMP_PATCH_OPTIONS_INIT;

	po.type = SMP_PATCH_MERGE;
	return smp_patch_apply(out, obj, patch, &po, err);
}

int smp__plan_with_namespace(smp_doc **out, const smp_value *cfg,
                             const smp_apply_options *ao, bool enforce, smp_error *err)
{
	const char *ns = smp_apply_namespace(cfg, ao);
	const char *have = smpv_map_str(smp_map_get(cfg, "metadata"), "namespace");
	smp_doc *pdoc = NULL;
	smp_value *patch, *md;
	int rc;

	*out = NULL;
	if (enforce && ao->enforce_namespace && have && *have && *ns &&
	    strcmp(have, ao->default_namespace) != 0)
		return smp__err(err, SMP_EINVALOBJ, "the namespace from the provided object \"%s\" "
		                "does not match the namespace \"%s\"", have, ao->default_namespace);
	if (!*ns || (have && strcmp(have, ns) == 0))
		return 0;
	/* resource.SetNamespace, as a merge patch {"metadata":{"namespace":ns}} */
	if (!(patch = new_map_doc(&pdoc)))
		return smp__err(err, SMP_ENOMEM, "out of memory");
	md = smpv_map(&pdoc->arena, 1);
	if (put(&pdoc->arena, md, "namespace", str(&pdoc->arena, ns)) ||
	    put(&pdoc->arena, patch, "metadata", md))
		rc = smp__err(err, SMP_ENOMEM, "out of memory");
	else
		rc = merged(out, cfg, patch, err);
	smp_doc_free(pdoc);
	return rc;
}

/* Whether the field selector keeps cfg, read with its namespace filled in. */
static int field_match(const smp_plan *p, const smp_value *cfg, bool *match)
{
	smp_doc *filled = NULL;
	smp_error err;
	int rc;

	*match = true;
	if (!p->o.field_selector)
		return 0;
	rc = smp__plan_with_namespace(&filled, cfg, &p->ao, false, &err);
	if (rc == SMP_ENOMEM)
		return rc;
	*match = smp_field_selector_matches(p->o.field_selector,
	                                    filled ? smp_doc_root(filled, 0) : cfg);
	smp_doc_free(filled);
	return 0;
}

/* ------------------------------------------------------------ client-side */

/* Appends v as sorted YAML to b. */
static int put_yaml(smp_buf *b, const smp_value *v, smp_error *err)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;

	po.output = SMP_OUT_YAML;
	po.sort_keys = true;
	return smp_print_buf(b, v, &po, err);
}

/* What kubectl shows with a conflict: the patch it would send and the
 * changes made to the live object since the last apply. NULL detail when
 * they cannot be computed (the error alone is shown then). */
static int conflict_detail(smp_plan_entry *e, const smp_plan *p, const smp_value *live)
{
	smp_apply_options force = p->ao;
	smp_apply_result *res = NULL;
	smp_patch_options po = SMP_PATCH_OPTIONS_INIT;
	smp_doc *orig = NULL, *changed = NULL;
	const char *la;
	smp_error e2;
	smp_buf b;
	int rc = 0;

	force.overwrite = true;
	if (smp_apply_object(&res, live, e->config, &force, &e2))
		return e2.code == SMP_ENOMEM ? SMP_ENOMEM : 0;
	la = smpv_map_str(smp_value_at(live, "metadata.annotations"), SMP_LAST_APPLIED_ANNOTATION);
	po.type = smp_apply_result_patch_type(res);
	smp_buf_init(&b);
	if ((!la || !smp_doc_parse(&orig, la, strlen(la), NULL, &e2)) &&
	    !smp_diff_two_way(&changed, orig ? smp_doc_root(orig, 0) : NULL, live, &po, &e2)) {
		smp_buf_puts(&b, "patch:\n");
		put_yaml(&b, smp_apply_result_patch(res), &e2);
		smp_buf_puts(&b, "conflicts with changes made from original to current:\n");
		put_yaml(&b, smp_doc_root(changed, 0), &e2);
		if (b.oom)
			rc = SMP_ENOMEM;
		else
			e->detail = smp_buf_detach(&b, NULL);
	}
	smp_buf_release(&b);
	smp_doc_free(orig);
	smp_doc_free(changed);
	smp_apply_result_free(res);
	return rc;
}

/* Each line of a result's warning text, on the entry. */
static int warn_lines(smp_plan_entry *e, const char *text)
{
	while (text && *text) {
		size_t n = strcspn(text, "\n");

		if (smp__plan_warn(e, text, n))
			return SMP_ENOMEM;
		text += n + (text[n] == '\n');
	}
	return 0;
}

/* The server's decoding and field validation of `obj`, what a create or
 * patch leaves (the live object has no unknown field: they come from the
 * configuration) or a create's or replace's body: an error, or warnings,
 * as p->o.validate says. */
static int validate(smp_plan_entry *e, const smp_plan *p, const smp_value *obj)
{
	smp_validation *v = NULL;
	smp_error err;
	int rc;

	if ((rc = smp_object_validate(&v, obj, p->o.schema, &err)))
		return rc == SMP_ENOMEM ? rc : 0;
	rc = smp_validation_error(v, p->o.validate, &err);
	if (rc == SMP_ENOMEM) {
		smp_validation_free(v);
		return rc;
	}
	if (rc) {
		/* refused: nothing is sent, nothing changes */
		e->object = NULL;
		e->patch = NULL;
		e->nreq = 0;
		rc = smp__plan_fail(e, &err, e->config, false);
	} else if (p->o.validate == SMP_VALIDATE_WARN) {
		for (size_t i = 0; i < smp_validation_count(v) && !rc; i++) {
			char line[SMP_ERROR_MESSAGE_MAX + 16];

			snprintf(line, sizeof(line), "Warning: %s", smp_validation_text(v, i));
			rc = smp__plan_warn(e, line, strlen(line));
		}
	}
	smp_validation_free(v);
	return rc;
}

/* Lists merged by a key whose items share a key value: client-side apply
 * cannot tell them apart (smp_duplicate_merge_keys), a warning each. */
/* Whether the server's own warning names the repetition `text` tells of
 * ("<list>: items i and j have the same <key> (..."): `hidden` holds
 * "<list>\n<key>\n" pairs. */
static bool told_by_server(const smp_buf *hidden, const char *text)
{
	const char *h = hidden->ptr, *end = h ? h + hidden->len : NULL;

	while (h && h < end) {
		const char *nl = strchr(h, '\n'), *key = nl + 1, *knl = strchr(key, '\n');
		size_t ll = (size_t)(nl - h);
		const char *same;

		if (ll && strncmp(text, h, ll) == 0 && strncmp(text + ll, ": items ", 8) == 0 &&
		    (same = strstr(text, " have the same ")) &&
		    strncmp(same + 15, key, (size_t)(knl - key)) == 0 && same[15 + (knl - key)] == ' ')
			return true;
		h = knl + 1;
	}
	return false;
}

static int warn_duplicate_keys(smp_plan_entry *e, const smp_plan *p, const smp_value *cfg)
{
	smp_doc *d = NULL;
	const smp_value *list;
	smp_buf hidden;
	smp_error err;
	int rc = smp_duplicate_merge_keys(&d, cfg, p->o.schema, &err);

	if (rc)
		return rc == SMP_ENOMEM ? rc : 0;
	list = smp_doc_root(d, 0);
	smp_buf_init(&hidden);
	/* where the API server has its own words for a repetition, those */
	rc = smp__pod_warnings(e, cfg, &hidden);
	for (size_t i = 0; i < smp_value_len(list) && !rc; i++) {
		const char *text = smp_value_string(smp_list_get(list, i), NULL);
		smp_buf b;

		if (told_by_server(&hidden, text))
			continue;
		smp_buf_init(&b);
		smp_buf_printf(&b, "Warning: %s", text);
		rc = b.oom ? SMP_ENOMEM : smp__plan_warn(e, b.ptr, b.len);
		smp_buf_release(&b);
	}
	smp_buf_release(&hidden);
	smp_doc_free(d);
	return rc;
}

int smp__plan_client_side(smp_plan_entry *e, smp_plan *p, const plan_step *s)
{
	const smp_value *cfg = s->c->v;
	smp_error err;
	bool match;
	int rc;

	e->live = s->live;
	if (field_match(p, cfg, &match))
		return SMP_ENOMEM;
	if (!match)
		return 1;
	rc = smp__apply_object(&e->ares, s->live, cfg, &p->ao, false, &err);
	if (rc == SMP_ENOMEM)
		return rc;
	if (rc) {
		smp__plan_ref(e, cfg, smp_apply_namespace(cfg, &p->ao));
		if (rc == SMP_ECONFLICT && s->live) {
			char ref[512];

			/* the one-line error, then both sides in full (kubectl's
			 * "patch: ... conflicts with changes made from original to
			 * current: ...") */
			smp_apply_object_ref(ref, sizeof(ref), cfg);
			snprintf(err.message, sizeof(err.message), "%.500s: conflict: the patch changes "
			         "fields changed in the live object since the last apply", ref);
			e->action = SMP_ACTION_CONFLICT;
			if (smp__plan_fail(e, &err, NULL, true) || conflict_detail(e, p, s->live))
				return SMP_ENOMEM;
			return 0;
		}
		return smp__plan_fail(e, &err, NULL, true) ? SMP_ENOMEM : 0;
	}
	e->action = smp_apply_result_action(e->ares);
	e->object = smp_apply_result_object(e->ares);
	e->patch = smp_apply_result_patch(e->ares);
	e->patch_type = smp_apply_result_patch_type(e->ares);
	smp__plan_ref(e, e->object, NULL);
	if (e->action != SMP_ACTION_UNCHANGED) {
		plan_req *r = &e->req[e->nreq++];

		r->method = e->action == SMP_ACTION_CREATE ? "POST" : "PATCH";
		r->content_type = e->action == SMP_ACTION_CREATE ? "application/json"
		                  : e->patch_type == SMP_PATCH_MERGE ? "application/merge-patch+json"
		                  : "application/strategic-merge-patch+json";
		r->manager = "kubectl-client-side-apply";
		r->body = e->patch;
	}
	if ((rc = warn_lines(e, smp_apply_result_warning(e->ares))) ||
	    (rc = warn_duplicate_keys(e, p, cfg)))
		return rc;
	return e->action == SMP_ACTION_UNCHANGED ? 0 : validate(e, p, e->object);
}

/* ------------------------------------------------------------ server-side */

/* A refused request: the Status the server answers (`status`, else made
 * from the error) and the error, named by obj. */
static int refuse(smp_plan_entry *e, const smp_error *err, const smp_value *obj,
                  smp_doc *status)
{
	smp_error e2;

	if (err->code == SMP_ENOMEM) {
		smp_doc_free(status);
		return SMP_ENOMEM;
	}
	e->status_doc = status;
	if (!status && smp_status_from_error(&e->status_doc, err, obj, &e2) == SMP_ENOMEM)
		return SMP_ENOMEM;
	e->status = smp_doc_root(e->status_doc, 0);
	return smp__plan_fail(e, err, obj, false);
}

/* The metav1.Status the API server answers a conflicting apply
 * (NewApplyConflict: no name or kind in the details, one cause per field;
 * the cause's type is serialised as "reason", as metav1.StatusCause is). */
static int conflict_status(smp_doc **out, const smp_ssa_result *res)
{
	const smp_ssa_conflict *cs;
	size_t n = smp_ssa_result_conflicts(res, &cs);
	smp_value *st, *details, *causes;
	smp_arena *a;
	int bad;

	if (!(st = new_map_doc(out)))
		return SMP_ENOMEM;
	a = &(*out)->arena;
	details = smpv_map(a, 1);
	causes = smpv_list(a, n);
	bad = put(a, st, "kind", str(a, "Status")) | put(a, st, "apiVersion", str(a, "v1")) |
	      put(a, st, "metadata", smpv_map(a, 0)) | put(a, st, "status", str(a, "Failure")) |
	      put(a, st, "message", str(a, smp_ssa_result_message(res))) |
	      put(a, st, "reason", str(a, "Conflict")) | put(a, details, "causes", causes) |
	      put(a, st, "details", details) | put(a, st, "code", smpv_int(a, 409));
	for (size_t i = 0; i < n && !bad; i++) {
		smp_value *cause = smpv_map(a, 3);
		smp_buf who;

		/* printManager: appliers by name, updaters with their version */
		smp_buf_init(&who);
		smp_buf_printf(&who, "conflict with \"%s\"", cs[i].manager);
		if (cs[i].subresource[0])
			smp_buf_printf(&who, " with subresource \"%s\"", cs[i].subresource);
		if (strcmp(cs[i].operation, "Update") == 0)
			smp_buf_printf(&who, " using %s", cs[i].api_version);
		bad = who.oom || put(a, cause, "reason", str(a, "FieldManagerConflict")) ||
		      put(a, cause, "message", smpv_str(a, who.ptr, who.len)) ||
		      put(a, cause, "field", str(a, cs[i].path)) || smpv_list_add(a, causes, cause);
		smp_buf_release(&who);
	}
	if (bad) {
		smp_doc_free(*out);
		*out = NULL;
		return SMP_ENOMEM;
	}
	return 0;
}

/* The server's answer naming the object (apimachinery's NewNotFound and
 * NewAlreadyExists): `deployments.apps "web" not found` (404 NotFound, a
 * replace of nothing: exit 3) or `... already exists` (409 AlreadyExists,
 * a create of what exists: exit 4), with details {name, group, kind: the
 * resource}. */
static int named_refusal(smp_plan_entry *e, const smp_plan *p, const smp_value *obj,
                         bool exists)
{
	const char *av = smpv_map_str(obj, "apiVersion"), *kind = smpv_map_str(obj, "kind");
	const char *name = smpv_map_str(smp_map_get(obj, "metadata"), "name");
	const char *res = NULL, *slash = av ? strchr(av, '/') : NULL;
	smp_value *st, *details;
	smp_doc *doc = NULL;
	smp_error err;
	smp_arena *a;
	char group[256] = "";

	if (p->o.schema && av && kind)
		res = smp_schema_kind_resource(p->o.schema, av, kind);
	if (!res && av && kind)
		res = smp_schema_kind_resource(smp_schema_builtin(), av, kind);
	if (!res)
		res = kind ? kind : "";
	if (slash)
		snprintf(group, sizeof(group), "%.*s", (int)((slash - av) & 255), av);
	smp_err_set(&err, exists ? SMP_ECONFLICT : SMP_EINVALOBJ, NULL, 0, 0, NULL,
	            "%s%s%s \"%s\" %s", res, slash ? "." : "", group, name ? name : "",
	            exists ? "already exists" : "not found");
	if (!(st = new_map_doc(&doc)))
		return SMP_ENOMEM;
	a = &doc->arena;
	details = smpv_map(a, 3);
	if (put(a, st, "kind", str(a, "Status")) | put(a, st, "apiVersion", str(a, "v1")) |
	    put(a, st, "metadata", smpv_map(a, 0)) | put(a, st, "status", str(a, "Failure")) |
	    put(a, st, "message", str(a, err.message)) |
	    put(a, st, "reason", str(a, exists ? "AlreadyExists" : "NotFound")) |
	    put(a, details, "name", str(a, name ? name : "")) |
	    (slash ? put(a, details, "group", str(a, group)) : 0) |
	    put(a, details, "kind", str(a, res)) | put(a, st, "details", details) |
	    put(a, st, "code", smpv_int(a, exists ? 409 : 404))) {
		smp_doc_free(doc);
		return SMP_ENOMEM;
	}
	return refuse(e, &err, obj, doc);
}

/* The server's 422 for an apply without a field manager (PatchOptions
 * validation: apimachinery's NewInvalid of meta.k8s.io PatchOptions "",
 * field.Required("fieldManager", "is required for apply patch")), before
 * any object is looked at. */
static int no_manager(smp_plan_entry *e)
{
	static const char body[] = "Required value: is required for apply patch";
	smp_value *st, *details, *causes, *cause;
	smp_doc *doc = NULL;
	smp_error err;
	smp_arena *a;

	smp_err_set(&err, SMP_EINVALOBJ, NULL, 0, 0, NULL,
	            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: %s", body);
	if (!(st = new_map_doc(&doc)))
		return SMP_ENOMEM;
	a = &doc->arena;
	details = smpv_map(a, 3);
	causes = smpv_list(a, 1);
	cause = smpv_map(a, 3);
	if (!details || !causes || !cause ||
	    put(a, st, "kind", str(a, "Status")) | put(a, st, "apiVersion", str(a, "v1")) |
	    put(a, st, "metadata", smpv_map(a, 0)) | put(a, st, "status", str(a, "Failure")) |
	    put(a, st, "message", str(a, err.message)) | put(a, st, "reason", str(a, "Invalid")) |
	    put(a, details, "group", str(a, "meta.k8s.io")) |
	    put(a, details, "kind", str(a, "PatchOptions")) |
	    put(a, cause, "reason", str(a, "FieldValueRequired")) |
	    put(a, cause, "message", str(a, body)) | put(a, cause, "field", str(a, "fieldManager")) |
	    smpv_list_add(a, causes, cause) | put(a, details, "causes", causes) |
	    put(a, st, "details", details) | put(a, st, "code", smpv_int(a, 422))) {
		smp_doc_free(doc);
		return SMP_ENOMEM;
	}
	e->status_doc = doc;
	e->status = smp_doc_root(doc, 0);
	e->patch = NULL;
	/* on stderr in kubectl's words for an Invalid answer */
	snprintf(err.message, sizeof(err.message),
	         "The PatchOptions \"\" is invalid: fieldManager: %s", body);
	return smp__plan_fail(e, &err, e->config, false);
}

/* A PUT as the API server stores it before the field manager sees it
 * (rest.BeforeUpdate and the kinds' PrepareForUpdate): uid,
 * creationTimestamp, generation, deletionTimestamp,
 * deletionGracePeriodSeconds and resourceVersion stay the live ones (the
 * server then writes the next version, which cannot be known here), and
 * so does the status of built-in kinds (written through the status
 * subresource only). */
static int replace_body(smp_doc **body, const smp_value *live, const smp_value *cfg,
                        smp_error *err)
{
	static const char *const kept[] = {"uid", "creationTimestamp", "generation",
	                                   "deletionTimestamp", "deletionGracePeriodSeconds",
	                                   "resourceVersion"};
	const smp_value *lmd = smp_map_get(live, "metadata");
	const smp_value *lstatus = smp_map_get(live, "status");
	const char *av = smpv_map_str(cfg, "apiVersion"), *kind = smpv_map_str(cfg, "kind");
	bool builtin = false;
	smp_doc *pdoc = NULL, *mid = NULL;
	smp_value *patch, *md;
	smp_arena *a;
	int rc, bad = 0;

	if (av && kind)
		smp_schema_kind_namespaced(smp_schema_builtin(), av, kind, &builtin);
	if (!(patch = new_map_doc(&pdoc)))
		return smp__err(err, SMP_ENOMEM, "out of memory");
	a = &pdoc->arena;
	md = smpv_map(a, 6);
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]) && !bad; i++) {
		const smp_value *v = smp_map_get(lmd, kept[i]);

		if (v && smp_value_type(v) != SMP_NULL)
			bad = put(a, md, kept[i], smpv_copy(a, v));
	}
	bad = bad || put(a, patch, "metadata", md) ||
	      (builtin && put(a, patch, "status", smpv_null(a)));
	if (bad) {
		smp_doc_free(pdoc);
		return smp__err(err, SMP_ENOMEM, "out of memory");
	}
	rc = merged(&mid, cfg, patch, err);
	smp_doc_free(pdoc);
	if (rc || !builtin || !lstatus) {
		*body = mid;
		return rc;
	}
	/* then the live status, whole */
	if (!(patch = new_map_doc(&pdoc)) ||
	    put(&pdoc->arena, patch, "status", smpv_copy(&pdoc->arena, lstatus)))
		rc = smp__err(err, SMP_ENOMEM, "out of memory");
	else
		rc = merged(body, smp_doc_root(mid, 0), patch, err);
	smp_doc_free(pdoc);
	smp_doc_free(mid);
	return rc;
}

/* A PUT whose body names a resourceVersion other than the live one is
 * refused (optimistic concurrency). */
static bool stale(const smp_value *live, const smp_value *cfg)
{
	const char *want = smp_value_string(smp_value_at(cfg, "metadata.resourceVersion"), NULL);
	const char *have = smp_value_string(smp_value_at(live, "metadata.resourceVersion"), NULL);

	return want && *want && (!have || strcmp(want, have) != 0);
}

/* Replace: the stored object and its ownership (smp_ssa_update). */
static int replace_one(smp_plan_entry *e, smp_plan *p, const smp_value *body, smp_error *err)
{
	smp_doc *stored = NULL;
	int rc;

	if (!e->live)
		return -1; /* not found: the caller's answer */
	if (stale(e->live, body))
		return smp__err(err, SMP_ECONFLICT, "the object has been modified; please apply "
		                "your changes to the latest version and try again");
	if ((rc = replace_body(&stored, e->live, body, err)))
		return rc;
	smp_ssa_options so = smp__plan_ssa_options(e, p);

	rc = smp_ssa_update(&e->sres, e->live, smp_doc_root(stored, 0), &so, err);
	smp_doc_free(stored);
	return rc;
}

/* ------------------------------------------------------------ migration */

static plan_req *add_req(smp_plan_entry *e, const char *ctype, const char *manager, bool force,
                         const smp_value *body)
{
	plan_req *r = &e->req[e->nreq++];

	r->method = "PATCH";
	r->content_type = ctype;
	r->manager = manager;
	r->force = force;
	r->body = body;
	return r;
}

/* e->sres becomes `next` (the result of the entry's next request). */
static void advance(smp_plan_entry *e, smp_ssa_result *next)
{
	smp_ssa_result_free(e->sres);
	e->sres = next;
}

/* kubectl's warning when a migration step fails: the object stays as the
 * steps before left it (apply.go's warningMigration... texts). */
static int migration_warning(smp_plan_entry *e, const char *what, const smp_error *err)
{
	char line[1400];

	snprintf(line, sizeof(line), "Warning: failed to %s for Server-Side Apply. This is "
	         "non-fatal and will be retried next time you apply. Error: %s", what, err->message);
	return smp__plan_warn(e, line, strlen(line)) ? SMP_ENOMEM : 0;
}

/* The body kubectl applies as kubectl-last-applied: the object's kind,
 * name and namespace and the annotation alone (saveLastApplyAnnotation). */
static smp_value *just_annotation(smp_doc **doc, const smp_value *obj, const char *ann)
{
	const char *ns = smpv_map_str(smp_map_get(obj, "metadata"), "namespace");
	const char *name = smpv_map_str(smp_map_get(obj, "metadata"), "name");
	smp_value *root = new_map_doc(doc), *md, *anns;
	smp_arena *a;

	if (!root)
		return NULL;
	a = &(*doc)->arena;
	md = smpv_map(a, 3);
	anns = smpv_map(a, 1);
	if (!md || !anns || put(a, root, "apiVersion", str(a, smpv_map_str(obj, "apiVersion"))) |
	    put(a, root, "kind", str(a, smpv_map_str(obj, "kind"))) |
	    put(a, anns, SMP_LAST_APPLIED_ANNOTATION, str(a, ann)) |
	    put(a, md, "annotations", anns) | put(a, md, "name", str(a, name ? name : "")) |
	    (ns ? put(a, md, "namespace", str(a, ns)) : 0) | put(a, root, "metadata", md))
		return NULL;
	return root;
}

/* The csaupgrade JSON patch: managedFields replaced, and the
 * resourceVersion (the server's answer to the request before, which
 * cannot be known here: the live one). */
static smp_value *upgrade_patch(smp_doc **doc, const smp_value *mf, const smp_value *obj)
{
	const char *rv = smpv_map_str(smp_map_get(obj, "metadata"), "resourceVersion");
	smp_value *ops, *op1 = NULL, *op2 = NULL;
	smp_arena *a;

	if (!(*doc = smp_doc_alloc()))
		return NULL;
	a = &(*doc)->arena;
	if (!(ops = smpv_list(a, 2)) || !(op1 = smpv_map(a, 3)) || !(op2 = smpv_map(a, 3)) ||
	    put(a, op1, "op", str(a, "replace")) | put(a, op1, "path", str(a, "/metadata/managedFields")) |
	    put(a, op1, "value", smpv_copy(a, mf)) | put(a, op2, "op", str(a, "replace")) |
	    put(a, op2, "path", str(a, "/metadata/resourceVersion")) |
	    put(a, op2, "value", str(a, rv ? rv : "")) | smpv_list_add(a, ops, op1) |
	    smpv_list_add(a, ops, op2) || smp_doc_push_root(*doc, ops))
		return NULL;
	return ops;
}

/*
 * What kubectl apply --server-side does after its apply when the object
 * carries the last-applied annotation (apply.go): as manager "kubectl", it
 * first applies the annotation alone as kubectl-last-applied, unless an
 * Apply entry owns it already (saveLastApplyAnnotationIfNecessary); then,
 * when Update entries own the annotation (kubectl-client-side-apply, or
 * another client-side manager), it sends the csaupgrade JSON patch uniting
 * their fields into its own Apply entry, and applies the configuration
 * again, so that the fields the old configuration set and the new one
 * dropped are removed (migrateToSSAIfNecessary). With the plan's
 * csa_managers, those managers' Update entries are migrated instead,
 * annotation or not (a tool's own client-side writes: Helm's). Each step a
 * request of the entry and a result in e->sres. 0 or SMP_ENOMEM (a failed
 * step is kubectl's warning, and the object stays as the steps before
 * left it).
 */
static int migrate(smp_plan_entry *e, smp_plan *p, const smp_value *body)
{
	static const char *const path[] = {"metadata", "annotations", SMP_LAST_APPLIED_ANNOTATION};
	const smp_value *obj = smp_ssa_result_object(e->sres), *mf;
	const char *ann = smpv_map_str(smp_value_at(obj, "metadata.annotations"),
	                         SMP_LAST_APPLIED_ANNOTATION);
	const char *owners[16];
	smp_ssa_options so = smp__plan_ssa_options(e, p);
	smp_ssa_result *next = NULL;
	smp_doc *newmf = NULL, *patched = NULL;
	smp_error err;
	size_t n;
	int rc;

	if (!ann && !p->o.csa_managers_len)
		return 0;
	mf = smp_value_at(obj, "metadata.managedFields");
	if (ann && strcmp(p->so.manager, "kubectl") == 0 &&
	    !smp_ssa_fields_owners(owners, 0, mf, "Apply", path, 3)) {
		const smp_value *just = just_annotation(&e->steps[0], obj, ann);

		so.manager = "kubectl-last-applied";
		so.force = false;
		if (!just)
			return SMP_ENOMEM;
		if ((rc = smp_ssa_apply(&next, obj, just, &so, &err))) {
			smp_ssa_result_free(next);
			return rc == SMP_ENOMEM ? rc : migration_warning(e, "migrate kubectl.kubernetes.io/"
			                                                 "last-applied-configuration", &err);
		}
		add_req(e, "application/apply-patch+yaml", "kubectl-last-applied", false, just);
		advance(e, next);
		obj = smp_ssa_result_object(e->sres);
		mf = smp_value_at(obj, "metadata.managedFields");
	}
	if (p->o.csa_managers_len) {
		n = p->o.csa_managers_len < 16 ? p->o.csa_managers_len : 16;
		for (size_t i = 0; i < n; i++)
			owners[i] = p->o.csa_managers[i];
	} else {
		n = smp_ssa_fields_owners(owners, 16, mf, "Update", path, 3);
	}
	if (!n)
		return 0;
	{
		/* the managers once each, as kubectl's set */
		size_t k = 0;

		for (size_t i = 0; i < n && i < 16; i++) {
			size_t j = 0;

			while (j < k && strcmp(owners[j], owners[i]) != 0)
				j++;
			if (j == k)
				owners[k++] = owners[i];
		}
		n = k;
	}
	if ((rc = smp_ssa_upgrade_managed_fields(&newmf, mf, owners, n, p->so.manager, &err)))
		return rc == SMP_ENOMEM ? rc : migration_warning(e, "migrate managed fields", &err);
	if (!newmf)
		return 0; /* nothing to migrate */
	{
		const smp_value *jp = upgrade_patch(&e->steps[1], smp_doc_root(newmf, 0), obj);
		smp_patch_options po = SMP_PATCH_OPTIONS_INIT;

		smp_doc_free(newmf);
		if (!jp)
			return SMP_ENOMEM;
		po.type = SMP_PATCH_JSON;
		so = smp__plan_ssa_options(e, p);
		so.force = false;
		if ((rc = smp_patch_apply(&patched, obj, jp, &po, &err)) ||
		    (rc = smp_ssa_update(&next, obj, smp_doc_root(patched, 0), &so, &err))) {
			smp_doc_free(patched);
			smp_ssa_result_free(next);
			return rc == SMP_ENOMEM ? rc : migration_warning(e, "migrate managed fields", &err);
		}
		smp_doc_free(patched);
		add_req(e, "application/json-patch+json", p->so.manager, false, jp);
		advance(e, next);
	}
	/* the configuration again: what the old one set and this one does not
	 * is dropped now */
	so = smp__plan_ssa_options(e, p);
	if ((rc = smp_ssa_apply(&next, smp_ssa_result_object(e->sres), body, &so, &err))) {
		smp_ssa_result_free(next);
		return rc == SMP_ENOMEM ? rc : migration_warning(e, "re-apply the configuration", &err);
	}
	add_req(e, "application/apply-patch+yaml", p->so.manager, p->o.force_conflicts, body);
	advance(e, next);
	e->action = SMP_ACTION_CONFIGURE; /* the ownership changed, at least */
	return 0;
}

int smp__plan_server_side(smp_plan_entry *e, smp_plan *p, const plan_step *s)
{
	const smp_value *cfg = s->c->v, *body;
	bool apply = p->o.mode == SMP_PLAN_SERVER_SIDE, create = p->o.mode == SMP_PLAN_CREATE;
	smp_ssa_options so;
	smp_error err;
	plan_req *r;
	smp_buf b;
	int rc;

	smp__plan_ref(e, cfg, smp_apply_namespace(cfg, &p->ao));
	if ((rc = smp__plan_with_namespace(&e->sent, cfg, &p->ao, true, &err)))
		return refuse(e, &err, cfg, NULL);
	body = e->sent ? smp_doc_root(e->sent, 0) : cfg;
	if (p->o.field_selector && !smp_field_selector_matches(p->o.field_selector, body))
		return 1;
	smp__plan_ref(e, body, NULL);
	e->live = s->live;
	e->patch = body;
	if (apply && !*p->so.manager)
		return no_manager(e);
	/* a create's or replace's body is decoded first (400) */
	if (!apply && ((rc = validate(e, p, body)) || e->action == SMP_ACTION_ERROR))
		return rc;
	if (create && e->live)
		return named_refusal(e, p, body, true);
	so = smp__plan_ssa_options(e, p);
	rc = apply    ? smp_ssa_apply(&e->sres, e->live, body, &so, &err)
	     : create ? smp_ssa_update(&e->sres, NULL, body, &so, &err)
	              : replace_one(e, p, body, &err);
	if (rc == -1)
		return named_refusal(e, p, body, false);
	if (rc == SMP_ECONFLICT && e->sres && smp_ssa_result_message(e->sres)) {
		/* field conflicts: the server's message and Status, kubectl's
		 * advice */
		e->action = SMP_ACTION_CONFLICT;
		smp_buf_init(&b);
		smp_buf_printf(&b, "%s\n%s", smp_ssa_result_message(e->sres), conflict_advice);
		if (conflict_status(&e->status_doc, e->sres) || !(e->detail = smp_buf_detach(&b, NULL)))
			return SMP_ENOMEM;
		e->status = smp_doc_root(e->status_doc, 0);
		smp_err_set(&err, SMP_ECONFLICT, NULL, 0, 0, NULL, "%s",
		            smp_ssa_result_message(e->sres));
		smp_ssa_result_free(e->sres);
		e->sres = NULL;
		e->patch = NULL;
		return smp__plan_fail(e, &err, NULL, true);
	}
	/* the registry validates the object after the field manager (a
	 * conflict is answered first): smp__plan_check */
	if (rc) {
		smp_ssa_result_free(e->sres);
		e->sres = NULL;
		e->patch = NULL;
		return refuse(e, &err, body, NULL);
	}
	e->action = !e->live ? SMP_ACTION_CREATE
	            : smp_ssa_result_changed(e->sres) ? SMP_ACTION_CONFIGURE : SMP_ACTION_UNCHANGED;
	r = &e->req[e->nreq++];
	r->method = apply ? "PATCH" : create ? "POST" : "PUT";
	r->content_type = apply ? "application/apply-patch+yaml" : "application/json";
	r->manager = p->so.manager;
	r->force = apply && p->o.force_conflicts;
	r->body = body;
	if (apply && e->live && (rc = migrate(e, p, body)))
		return rc;
	e->object = smp_ssa_result_object(e->sres);
	return 0;
}

/* ------------------------------------------------------------ stored form */

/* The object a create is compared with by the server's field manager: the
 * zero value of the kind's Go type as the server writes it
 * (smp_go_zero_object; a custom resource's: its apiVersion and kind), so
 * that the structs every object has are not counted as added. */
static int zero_object(smp_doc **out, const smp_value *obj)
{
	const smp_value *av = smp_map_get(obj, "apiVersion"), *kind = smp_map_get(obj, "kind");
	const smp_gvk_entry *e = smp_schema_find_kind(smp_schema_builtin(),
	                                              smp_value_string(av, NULL),
	                                              smp_value_string(kind, NULL), true);
	smp_value *root;

	if (!(*out = smp_doc_alloc()) ||
	    !(root = smp_go_zero_object(&(*out)->arena, e ? e->type : NULL, av, kind)) ||
	    smp_doc_push_root(*out, root))
		return SMP_ENOMEM;
	return 0;
}

/* `pre` as the request it stands for carries managedFields: with the
 * body's (`sent`, the configuration of a create or a replace) when it has
 * them, else none (the live ownership counts); a client-side apply's
 * patched object keeps the live ones it holds. A new document in *out. */
static int with_sent_managed(smp_doc **out, const smp_value *pre, const smp_value *sent)
{
	const smp_value *smf = smp_value_at(sent, "metadata.managedFields");
	smp_value *root, *md;
	ptrdiff_t i;

	if (!(*out = smp_doc_alloc()) || !(root = smpv_copy(&(*out)->arena, pre)) ||
	    smp_doc_push_root(*out, root))
		return SMP_ENOMEM;
	md = smpv_map_get(root, "metadata");
	if (smp_value_type(md) != SMP_MAP)
		return 0;
	i = smpv_map_find(md, "managedFields", 13);
	if (smf) {
		smp_value *c = smpv_copy(&(*out)->arena, smf);

		if (!c)
			return SMP_ENOMEM;
		if (i >= 0)
			md->u.map.items[i].val = c;
		else if (smpv_map_add(&(*out)->arena, md, "managedFields", 13, c))
			return SMP_ENOMEM;
	} else if (i >= 0) {
		smpv_map_remove(md, (size_t)i);
	}
	return 0;
}

/* The managedFields the server records for a write that is not an apply,
 * put into the stored object e->object: an Update of the object as the
 * server decodes it (defaults included; what the registry and the
 * admission plugins add afterwards, not), against the live object, or for
 * a create against the kind's zero value. A client-side apply's by
 * kubectl-client-side-apply (or --field-manager), a create's and a
 * replace's by the plan's manager, after the ownership their body sends.
 * Only where the live object's ownership is known (a create, or a live
 * object that carries its managedFields); after a field manager's failure
 * the object has none, as the server's UpdateNoErrors clears them. */
static int update_fields(smp_plan_entry *e, smp_plan *p, const smp_value *pre)
{
	bool csa = p->o.mode == SMP_PLAN_CLIENT_SIDE;
	smp_stored_options sto = SMP_STORED_OPTIONS_INIT;
	smp_ssa_options so = smp__plan_ssa_options(e, p);
	smp_doc *zero = NULL, *decoded = NULL, *sent = NULL;
	smp_ssa_result *res = NULL;
	smp_value *md;
	smp_error err;
	int rc;

	if ((csa && e->sres) || e->applyset_parent || !e->object || !pre ||
	    !e->object_stored_doc ||
	    (e->action != SMP_ACTION_CREATE && e->action != SMP_ACTION_CONFIGURE &&
	     !(e->action == SMP_ACTION_UNCHANGED && !csa)) ||
	    (e->live_stored && !smp_value_at(e->live_stored, "metadata.managedFields")))
		return 0;
	sto.schema = p->o.schema;
	sto.flags = SMP_STORED__DECODED;
	if (csa)
		so.manager = p->o.field_manager && *p->o.field_manager ? p->o.field_manager
		                                                       : "kubectl-client-side-apply";
	else if ((rc = with_sent_managed(&sent, pre, e->patch)))
		goto out;
	if (!(rc = smp_stored_form(&decoded, sent ? smp_doc_root(sent, 0) : pre, &sto, &err)) &&
	    !(rc = e->live_stored ? 0 : zero_object(&zero, pre)))
		rc = smp_ssa_update(&res, zero ? smp_doc_root(zero, 0) : e->live_stored,
		                    smp_doc_root(decoded, 0), &so, &err);
	md = smpv_map_get(smp_doc_root(e->object_stored_doc, 0), "metadata");
	if (!rc && smp_value_type(md) == SMP_MAP) {
		/* none, or an empty list (the body reset them): not stored */
		const smp_value *rmf = smp_value_len(smp_ssa_result_managed_fields(res))
		                       ? smp_ssa_result_managed_fields(res) : NULL;
		ptrdiff_t i = smpv_map_find(md, "managedFields", 13);
		smp_value *mf = rmf ? smpv_copy(&e->object_stored_doc->arena, rmf) : NULL;

		if (rmf && !mf)
			rc = SMP_ENOMEM;
		else if (!mf && i >= 0)
			smpv_map_remove(md, (size_t)i);
		else if (mf && i >= 0)
			md->u.map.items[i].val = mf;
		else if (mf)
			rc = smpv_map_add(&e->object_stored_doc->arena, md, "managedFields", 13, mf);
	} else if (rc && rc != SMP_ENOMEM && smp_value_type(md) == SMP_MAP) {
		/* the field manager failed (an object it cannot type): the
		 * server's UpdateNoErrors stores the object without any */
		ptrdiff_t i = smpv_map_find(md, "managedFields", 13);

		if (i >= 0)
			smpv_map_remove(md, (size_t)i);
	}
out:
	smp_ssa_result_free(res);
	smp_doc_free(zero);
	smp_doc_free(decoded);
	smp_doc_free(sent);
	return rc == SMP_ENOMEM ? rc : 0;
}

/* Whether e is a custom resource whose CRD gives its version the status
 * subresource (the registry then keeps the status out of main resource
 * writes). */
static bool status_subresource(const smp_plan *p, const smp_plan_entry *e)
{
	const smp_gvk_entry *g;

	if (!p->o.schema || smp_schema_find_kind(smp_schema_builtin(), e->av, e->kind, true))
		return false;
	g = smp_schema_find_kind(p->o.schema, e->av, e->kind, true);
	return g && g->status_subresource;
}

/* The registry's PrepareForUpdate with a status subresource: the object
 * keeps the live status (none when the live object has none). */
static int keep_live_status(smp_arena *a, smp_value *obj, const smp_value *live)
{
	const smp_value *ls = smp_map_get(live, "status");
	ptrdiff_t i = smpv_map_find(obj, "status", 6);
	smp_value *c = ls ? smpv_copy(a, ls) : NULL;

	if (ls && !c)
		return SMP_ENOMEM;
	if (i >= 0 && c)
		obj->u.map.items[i].val = c;
	else if (i >= 0)
		smpv_map_remove(obj, (size_t)i);
	else if (c)
		return smpv_map_add(a, obj, "status", 6, c);
	return 0;
}

int smp__plan_stored(smp_plan_entry *e, smp_plan *p)
{
	smp_stored_options so = SMP_STORED_OPTIONS_INIT;
	const smp_value *pre;
	smp_error err;
	int rc = 0;

	so.schema = p->o.schema; /* custom resources from their CRD */
	if (e->live)
		so.flags |= SMP_STORED__UPDATE;
	if (e->live && (rc = smp_stored_form(&e->live_stored_doc, e->live, &so, &err)) == 0)
		e->live_stored = smp_doc_root(e->live_stored_doc, 0);
	if (!rc && e->action == SMP_ACTION_UNCHANGED &&
	    (p->o.mode == SMP_PLAN_CLIENT_SIDE ||
	     (p->o.mode == SMP_PLAN_SERVER_SIDE && e->live_stored && e->object &&
	      smpv_equal(e->object, e->live)))) {
		/* nothing is sent, or a server-side apply that leaves the object
		 * and its managedFields as they are: the object is the live one,
		 * stored once */
		e->object = e->live_stored;
		return 0;
	}
	pre = e->object;
	if (!rc && e->object && (rc = smp_stored_form(&e->object_stored_doc, e->object, &so, &err)) == 0) {
		e->object = smp_doc_root(e->object_stored_doc, 0);
		if (e->live_stored && strcmp(e->kind, "Service") == 0 && strcmp(e->av, "v1") == 0)
			smp__stored_service_update(e->object_stored_doc->roots[0], e->live_stored);
		if (e->live_stored && strcmp(e->kind, "DaemonSet") == 0 && strcmp(e->av, "apps/v1") == 0)
			rc = smp__stored_daemonset_update(&e->object_stored_doc->arena,
			                                  e->object_stored_doc->roots[0], e->live_stored);
		if (!rc && e->live_stored && status_subresource(p, e))
			rc = keep_live_status(&e->object_stored_doc->arena,
			                      e->object_stored_doc->roots[0], e->live_stored);
	}
	if (!rc)
		return p->o.mode == SMP_PLAN_SERVER_SIDE ? 0 : update_fields(e, p, pre);
	if (rc == SMP_ENOMEM)
		return rc;
	/* the server refuses what it cannot decode: the entry fails */
	e->object = NULL;
	e->patch = NULL;
	e->nreq = 0;
	return refuse(e, &err, e->config ? e->config : e->live, NULL);
}
