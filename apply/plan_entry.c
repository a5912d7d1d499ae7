/*
 * plan_entry.c - plan entries: how the loop fills them in (warnings, the
 * reference, a failure and its Status), what they tell (action, object,
 * requests, warnings, error) and how they are shown: kubectl's status line
 * and the `kubectl diff` of the live object against the result.
 */
#include "plan_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ filling in */

int smp__plan_warn(smp_plan_entry *e, const char *line, size_t n)
{
	char **g = realloc(e->warn, (e->nwarn + 1) * sizeof(*g));

	if (!g)
		return SMP_ENOMEM;
	e->warn = g;
	if (!(g[e->nwarn] = strndup(line, n)))
		return SMP_ENOMEM;
	e->nwarn++;
	return 0;
}

void smp__plan_ref(smp_plan_entry *e, const smp_value *obj, const char *ns)
{
	const smp_value *md = smp_map_get(obj, "metadata");
	const char *s;

	e->av = (s = smpv_map_str(obj, "apiVersion")) ? s : "";
	e->kind = (s = smpv_map_str(obj, "kind")) ? s : "";
	e->ns = (s = smpv_map_str(md, "namespace")) ? s : ns ? ns : "";
	e->name = (s = smpv_map_str(md, "name")) ? s : "";
}

/* Puts "<ref>: " in front of the message (its end cut when too long). */
static void prefix_message(smp_error *err, const char *ref)
{
	char p[sizeof(err->message)];

	if ((size_t)snprintf(p, sizeof(p), "%s: ", ref) < sizeof(p))
		smp_error_prefix(err, p);
}

int smp__plan_fail(smp_plan_entry *e, const smp_error *err, const smp_value *obj, bool bare)
{
	const smp_value *c = e->config;

	if (!(e->error = malloc(sizeof(*e->error))))
		return SMP_ENOMEM;
	*e->error = *err;
	if (!bare && obj) {
		char ref[512];

		smp_apply_object_ref(ref, sizeof(ref), obj);
		prefix_message(e->error, ref);
	}
	if (!e->error->file[0] && c) {
		snprintf(e->error->file, sizeof(e->error->file), "%s", e->label);
		if (!e->error->line) {
			e->error->line = smp_value_line(c);
			e->error->column = smp_value_column(c);
		}
	}
	if (e->action != SMP_ACTION_CONFLICT)
		e->action = SMP_ACTION_ERROR;
	if (!e->status && c) {
		/* the server's answer, in one shape for every mode */
		smp_error e2;

		if (smp_status_from_error(&e->status_doc, e->error, c, &e2) == SMP_ENOMEM)
			return SMP_ENOMEM;
		e->status = smp_doc_root(e->status_doc, 0);
	}
	return 0;
}

/* ------------------------------------------------------------ telling */

smp_apply_action smp_plan_entry_action(const smp_plan_entry *e)
{
	return e ? e->action : SMP_ACTION_ERROR;
}

bool smp_plan_entry_applyset_parent(const smp_plan_entry *e)
{
	return e && e->applyset_parent;
}

const char *smp_plan_entry_label(const smp_plan_entry *e)
{
	return e && e->label ? e->label : "";
}

const char *smp_plan_entry_api_version(const smp_plan_entry *e)
{
	return e && e->av ? e->av : "";
}

const char *smp_plan_entry_kind(const smp_plan_entry *e)
{
	return e && e->kind ? e->kind : "";
}

const char *smp_plan_entry_namespace(const smp_plan_entry *e)
{
	return e && e->ns ? e->ns : "";
}

const char *smp_plan_entry_name(const smp_plan_entry *e)
{
	return e && e->name ? e->name : "";
}

const smp_value *smp_plan_entry_config(const smp_plan_entry *e)
{
	return e ? e->config : NULL;
}

const smp_value *smp_plan_entry_live(const smp_plan_entry *e)
{
	return e ? e->live : NULL;
}

const smp_value *smp_plan_entry_object(const smp_plan_entry *e)
{
	return e ? e->object : NULL;
}

const smp_value *smp_plan_entry_patch(const smp_plan_entry *e)
{
	return e ? e->patch : NULL;
}

smp_patch_type smp_plan_entry_patch_type(const smp_plan_entry *e)
{
	return e ? e->patch_type : SMP_PATCH_STRATEGIC;
}

size_t smp_plan_entry_request_count(const smp_plan_entry *e)
{
	return e ? e->nreq : 0;
}

static const plan_req *req(const smp_plan_entry *e, size_t i)
{
	return e && i < e->nreq ? &e->req[i] : NULL;
}

const char *smp_plan_request_method(const smp_plan_entry *e, size_t i)
{
	return req(e, i) ? req(e, i)->method : NULL;
}

const char *smp_plan_request_content_type(const smp_plan_entry *e, size_t i)
{
	return req(e, i) ? req(e, i)->content_type : NULL;
}

const char *smp_plan_request_field_manager(const smp_plan_entry *e, size_t i)
{
	return req(e, i) ? req(e, i)->manager : NULL;
}

bool smp_plan_request_force(const smp_plan_entry *e, size_t i)
{
	return req(e, i) ? req(e, i)->force : false;
}

const smp_value *smp_plan_request_body(const smp_plan_entry *e, size_t i)
{
	return req(e, i) ? req(e, i)->body : NULL;
}

size_t smp_plan_entry_warning_count(const smp_plan_entry *e)
{
	return e ? e->nwarn : 0;
}

const char *smp_plan_entry_warning(const smp_plan_entry *e, size_t i)
{
	return e && i < e->nwarn ? e->warn[i] : NULL;
}

const smp_error *smp_plan_entry_error(const smp_plan_entry *e)
{
	return e ? e->error : NULL;
}

const char *smp_plan_entry_error_detail(const smp_plan_entry *e)
{
	return e ? e->detail : NULL;
}

const smp_value *smp_plan_entry_status(const smp_plan_entry *e)
{
	return e ? e->status : NULL;
}

const smp_value *smp_plan_entry_delete_options(const smp_plan_entry *e)
{
	return e && e->delete_doc ? smp_doc_root(e->delete_doc, 0) : NULL;
}

static bool failed(const smp_plan_entry *e)
{
	return e->action == SMP_ACTION_ERROR || e->action == SMP_ACTION_CONFLICT;
}

/* The object the entry names: the result, else the live object. */
static const smp_value *named(const smp_plan_entry *e)
{
	return e->object ? e->object : e->patch ? e->patch : e->live;
}

int smp_plan_entry_status_line(char **out, size_t *len, const smp_plan_entry *e,
                               unsigned flags, smp_error *err)
{
	static const char *const words[] = {"created", "configured", "unchanged", "pruned"};
	smp_plan_mode mode;
	char ref[1024];
	smp_buf b;

	if (out)
		*out = NULL;
	if (!out || !e)
		return smp__err(err, SMP_EINVAL, "smp_plan_entry_status_line: bad arguments");
	if (failed(e))
		return smp__err(err, SMP_EINVAL, "a failed entry has no status line");
	mode = e->plan->o.mode;
	smp_apply_object_ref(ref, sizeof(ref), named(e));
	smp_buf_init(&b);
	smp_buf_printf(&b, "%s %s%s%s", ref,
	               mode == SMP_PLAN_SERVER_SIDE ? "serverside-applied"
	               : mode == SMP_PLAN_REPLACE   ? "replaced"
	               : mode == SMP_PLAN_CREATE    ? "created"
	                                            : words[e->action],
	               flags & SMP_PLAN_LINE_DRY_RUN ? " (dry run)" : "",
	               flags & SMP_PLAN_LINE_SERVER_DRY_RUN ? " (server dry run)" : "");
	if (!(*out = smp_buf_detach(&b, len)))
		return smp__err(err, SMP_ENOMEM, "out of memory");
	return 0;
}

size_t smp_plan_entry_diff_name(char *buf, size_t size, const smp_plan_entry *e)
{
	smp_buf b;
	size_t n;

	smp_buf_init(&b);
	if (e) {
		const smp_value *obj = named(e);
		const smp_value *md = smp_map_get(obj, "metadata");
		const char *av = smp_value_string(smp_map_get(obj, "apiVersion"), NULL);
		const char *kind = smp_value_string(smp_map_get(obj, "kind"), NULL);
		const char *ns = smp_value_string(smp_map_get(md, "namespace"), NULL);
		const char *name = smp_value_string(smp_map_get(md, "name"), NULL);

		/* kubectl diff's file name: the namespace part stays, empty, for
		 * cluster-scoped objects */
		for (const char *c = av ? av : ""; *c; c++)
			smp_buf_putc(&b, *c == '/' ? '.' : *c);
		smp_buf_printf(&b, ".%s.%s.%s", kind ? kind : "", ns ? ns : "", name ? name : "");
	}
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

/* v as sorted YAML into a new buffer; NULL v gives NULL. */
static int yaml_text(char **out, size_t *len, const smp_doc *d, smp_error *err)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;

	*out = NULL;
	*len = 0;
	if (!d)
		return 0;
	po.output = SMP_OUT_YAML;
	po.sort_keys = true;
	return smp_print(out, len, smp_doc_root(d, 0), &po, err);
}

/* The flags of smp_display_objects for a diff's flags. */
static unsigned display_flags(unsigned flags)
{
	return (flags & SMP_PLAN_DIFF_MANAGED_FIELDS ? SMP_DISPLAY_MANAGED_FIELDS : 0) |
	       (flags & SMP_PLAN_DIFF_NO_MASK ? 0 : SMP_DISPLAY_MASK_SECRETS);
}

/* The two objects a diff of e compares: the live one (its stored form)
 * and the result. */
static void diff_objects(const smp_plan_entry *e, const smp_value **lv, const smp_value **ov)
{
	*lv = e->ignoring ? e->live_cmp : e->live_stored ? e->live_stored : e->live;
	*ov = e->ignoring ? e->object_cmp : e->object;
}

int smp_plan_entry_diff_sides(char **live, size_t *live_len, char **merged,
                              size_t *merged_len, const smp_plan_entry *e, unsigned flags,
                              smp_error *err)
{
	unsigned dflags = display_flags(flags);
	smp_doc *ld = NULL, *rd = NULL;
	size_t ll = 0, rl = 0;
	int rc;

	if (live)
		*live = NULL;
	if (merged)
		*merged = NULL;
	if (!live || !merged || !e)
		return smp__err(err, SMP_EINVAL, "smp_plan_entry_diff_sides: bad arguments");
	if (failed(e))
		return smp__err(err, SMP_EINVAL, "a failed entry has no diff");
	const smp_value *lv, *ov;

	diff_objects(e, &lv, &ov);
	if (!(rc = smp_display_objects(&ld, &rd, lv, ov, dflags, err)) &&
	    !(rc = yaml_text(live, &ll, ld, err)) && (rc = yaml_text(merged, &rl, rd, err))) {
		smp_free(*live);
		*live = NULL;
	}
	smp_doc_free(ld);
	smp_doc_free(rd);
	if (!rc) {
		if (live_len)
			*live_len = ll;
		if (merged_len)
			*merged_len = rl;
	}
	return rc;
}

int smp_plan_entry_diff(char **out, size_t *len, const smp_plan_entry *e, unsigned flags,
                        smp_error *err)
{
	char *l = NULL, *r = NULL, name[1024], *lname = NULL, *rname = NULL;
	size_t ll = 0, rl = 0, nl;
	smp_buf b;
	int rc;

	if (out)
		*out = NULL;
	if (len)
		*len = 0;
	if (!out)
		return smp__err(err, SMP_EINVAL, "smp_plan_entry_diff: bad arguments");
	if (e && !failed(e)) {
		/* most objects of a plan do not change: no need to print them */
		const smp_value *lv, *ov;

		diff_objects(e, &lv, &ov);
		if (smp__display_same(lv, ov, display_flags(flags))) {
			if (!(*out = calloc(1, 1)))
				return smp__err(err, SMP_ENOMEM, "out of memory");
			return 0;
		}
	}
	if ((rc = smp_plan_entry_diff_sides(&l, &ll, &r, &rl, e, flags, err)))
		return rc;
	nl = smp_plan_entry_diff_name(name, sizeof(name), e);
	smp_buf_init(&b);
	if (nl < sizeof(name) && (lname = malloc(nl + 8)) && (rname = malloc(nl + 8))) {
		snprintf(lname, nl + 8, "live/%s", name);
		snprintf(rname, nl + 8, "merged/%s", name);
		rc = smp__text_diff(&b, lname, l ? l : "", ll, rname, r ? r : "", rl,
		                    (flags & SMP_PLAN_DIFF_COLOR) != 0);
	} else {
		rc = SMP_ENOMEM;
	}
	free(lname);
	free(rname);
	smp_free(l);
	smp_free(r);
	smp_buf_put(&b, "", 0); /* "" when nothing changes */
	if (!rc && !(*out = smp_buf_detach(&b, len)))
		rc = SMP_ENOMEM;
	smp_buf_release(&b);
	return rc ? smp__err(err, rc, rc == SMP_ENOMEM ? "out of memory"
	                                               : "the objects are too large to compare")
	          : 0;
}

int smp_plan_entry_changes(smp_doc **out, const smp_plan_entry *e, unsigned flags,
                           smp_error *err)
{
	smp_changes_options co = SMP_CHANGES_OPTIONS_INIT;

	if (out)
		*out = NULL;
	if (!out || !e)
		return smp__err(err, SMP_EINVAL, "smp_plan_entry_changes: bad arguments");
	if (failed(e))
		return smp__err(err, SMP_EINVAL, "a failed entry has no changes");
	co.schema = e->plan->o.schema;
	co.flags = flags;
	if (e->plan->o.mode == SMP_PLAN_CLIENT_SIDE && e->action != SMP_ACTION_PRUNE &&
	    !e->applyset_parent)
		co.flags |= SMP_CHANGES__NO_MANAGED_FIELDS;
	if (!e->ignoring && e->object && e->object == e->live_stored) {
		/* one tree on both sides (an unchanged object): no change */
		smp_value *list;

		if (!(*out = smp_doc_alloc()) || !(list = smpv_list(&(*out)->arena, 0)) ||
		    smp_doc_push_root(*out, list)) {
			smp_doc_free(*out);
			*out = NULL;
			return smp__err(err, SMP_ENOMEM, "out of memory");
		}
		return 0;
	}
	if (e->ignoring)
		return smp_changes(out, e->live_cmp, e->object_cmp, &co, err);
	return smp_changes(out, e->live_stored ? e->live_stored : e->live, e->object, &co, err);
}

void smp__plan_entry_release(smp_plan_entry *e)
{
	for (size_t i = 0; i < e->nwarn; i++)
		free(e->warn[i]);
	free(e->warn);
	free(e->error);
	free(e->detail);
	smp_apply_result_free(e->ares);
	smp_ssa_result_free(e->sres);
	smp_doc_free(e->sent);
	smp_doc_free(e->status_doc);
	smp_doc_free(e->extra);
	smp_doc_free(e->steps[0]);
	smp_doc_free(e->steps[1]);
	smp_doc_free(e->live_stored_doc);
	smp_doc_free(e->delete_doc);
	smp_doc_free(e->live_doc);
	smp_doc_free(e->live_cmp_doc);
	smp_doc_free(e->object_cmp_doc);
	smp_doc_free(e->object_stored_doc);
	memset(e, 0, sizeof(*e));
}
