/*
 * manager.c - the API server's field-manager pipeline around the Updater
 * (apimachinery's pkg/util/managedfields/internal), and the public API.
 *
 * Innermost first, as the server stacks them:
 * - structured merge: live and config typed by the kind's schema, then
 *   Updater.Apply / Updater.Update (update.c);
 * - strip: apiVersion, kind, metadata and its name, namespace,
 *   creationTimestamp, selfLink, uid, clusterName, generation,
 *   managedFields and resourceVersion are never owned;
 * - updates run as "current-operation", then join the manager's Update
 *   entry; times: an apply stamps its entry only when the object changed,
 *   an update only when it took ownership of something;
 * - manager identifiers are the JSON of {manager, operation, apiVersion
 *   (updates only), subresource}: foo/Apply and foo/Update are two owners;
 * - decode and encode of metadata.managedFields (FieldsV1), entries sorted
 *   by operation (Apply first), time, manager, apiVersion, subresource.
 */
#include "ssa/ssa.h"
#include "codec/codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct smp_ssa_result {
	smp_doc *doc;  /* owns every value and string below */
	const smp_value *object, *managed;
	bool changed;
	smp_ssa_conflict *conflicts;
	size_t nconflicts;
	const char *message, *warning;
};

/* ---------------------------------------------------------------- helpers */

static const char *str_of(const smp_value *v)
{
	return v && v->type == SMP_STRING ? v->u.s.ptr : "";
}

static const smp_value *map_get(const smp_value *m, const char *k)
{
	return m && m->type == SMP_MAP ? smpv_map_get(m, k) : NULL;
}

static bool map_has(const smp_value *m, const char *k)
{
	return m && m->type == SMP_MAP && smpv_map_find(m, k, strlen(k)) >= 0;
}

/* A shallow copy of map m without key k. */
static smp_value *map_without(ssa_ctx *c, const smp_value *m, const char *k)
{
	smp_value *o = smpv_map(&c->arena, m->u.map.len);
	size_t kl = strlen(k);

	if (!o) {
		ssa_oom(c);
		return NULL;
	}
	for (size_t i = 0; i < m->u.map.len; i++) {
		const smp_member *e = &m->u.map.items[i];

		if (e->klen == kl && memcmp(e->key, k, kl) == 0)
			continue;
		if (smpv_map_add(&c->arena, o, e->key, e->klen, e->val)) {
			ssa_oom(c);
			return NULL;
		}
	}
	return o;
}

/* obj with metadata.managedFields removed (a shallow copy when present). */
static const smp_value *without_managed(ssa_ctx *c, const smp_value *obj)
{
	const smp_value *md = map_get(obj, "metadata");
	smp_value *o, *nmd;

	if (!map_has(md, "managedFields"))
		return obj;
	if (!(nmd = map_without(c, md, "managedFields")) || !(o = map_without(c, obj, "metadata")))
		return NULL;
	if (smpv_map_add(&c->arena, o, "metadata", 8, nmd)) {
		ssa_oom(c);
		return NULL;
	}
	return o;
}

/* Go's time.Parse(time.RFC3339, s) as Unix seconds. */
static bool parse_time(const char *s, int64_t *out)
{
	int y, mo, d, h, mi, sec, n = 0;
	int64_t days, off = 0;
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	size_t len = strlen(s);
	const char *p;

	if (len < 20 || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 ||
	    n != 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
		return false;
	for (int i = 0; i < 19; i++)
		if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && (s[i] < '0' || s[i] > '9'))
			return false;
	if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59)
		return false;
	{
		int md = mdays[mo - 1] + (mo == 2 && (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)));

		if (d > md)
			return false;
	}
	p = s + 19;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'Z') {
		p++;
	} else if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':' && p[1] >= '0' &&
	           p[1] <= '9' && p[2] >= '0' && p[2] <= '9' && p[4] >= '0' && p[4] <= '9' &&
	           p[5] >= '0' && p[5] <= '9') {
		int oh = (p[1] - '0') * 10 + (p[2] - '0'), om = (p[4] - '0') * 10 + (p[5] - '0');

		if (oh > 23 || om > 59)
			return false;
		off = (int64_t)(oh * 3600 + om * 60) * (*p == '-' ? -1 : 1);
		p += 6;
	} else {
		return false;
	}
	if (*p)
		return false;
	/* Days from the civil date (Howard Hinnant's algorithm). */
	{
		int64_t yy = y - (mo <= 2);
		int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
		int64_t yoe = yy - era * 400;
		int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
		int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

		days = era * 146097 + doe - 719468;
	}
	*out = days * 86400 + h * 3600 + mi * 60 + sec - off;
	return true;
}

/* {"manager":..,"operation":..[,"apiVersion":..][,"subresource":..]} as
 * Go's json.Marshal writes metav1.ManagedFieldsEntry (omitempty fields). */
static char *make_id(ssa_ctx *c, const char *manager, const char *op, const char *av,
                     const char *sub)
{
	smp_buf b;
	char *id = NULL;
	bool first = true;
	const char *names[] = {"manager", "operation", "apiVersion", "subresource"};
	const char *vals[] = {manager, op, av, sub};

	smp_buf_init(&b);
	smp_buf_putc(&b, '{');
	for (int i = 0; i < 4; i++) {
		if (!vals[i] || !vals[i][0])
			continue;
		if (!first)
			smp_buf_putc(&b, ',');
		first = false;
		smp_buf_printf(&b, "\"%s\":", names[i]);
		ssa_json_put_string_html(&b, vals[i], strlen(vals[i]));
	}
	smp_buf_putc(&b, '}');
	if (!b.oom)
		id = smp_arena_strndup(&c->arena, b.ptr, b.len);
	smp_buf_release(&b);
	if (!id)
		ssa_oom(c);
	return id;
}

static char *dup(ssa_ctx *c, const char *s)
{
	char *d = smp_arena_strndup(&c->arena, s, strlen(s));

	if (!d)
		ssa_oom(c);
	return d;
}

/* ---------------------------------------------------------------- decode */

/* The JSON type word Go's decoder uses in its errors. */
static const char *type_name_of(const smp_value *v)
{
	switch (v->type) {
	case SMP_BOOL: return "bool";
	case SMP_INT:
	case SMP_FLOAT: return "number";
	case SMP_STRING: return "string";
	case SMP_LIST: return "array";
	case SMP_MAP: return "object";
	default: return "null";
	}
}

typedef struct mfield {
	const char *name;
	const char **out;
} mfield;

/* Decodes metadata.managedFields as the server's JSON decoding of
 * []ManagedFieldsEntry and DecodeManagedFields do. SMP_EINVALOBJ with the
 * reason in msg. */
static int decode_managed(ssa_ctx *c, ssa_managers *ms, const smp_value *raw, char *msg,
                          size_t msgsize)
{
	memset(ms, 0, sizeof(*ms));
	if (!raw || raw->type == SMP_NULL)
		return 0;
	if (raw->type != SMP_LIST) {
		snprintf(msg, msgsize, "json: cannot unmarshal %s into Go value of type "
		         "[]v1.ManagedFieldsEntry", raw->type == SMP_MAP ? "object" :
		         raw->type == SMP_STRING ? "string" : raw->type == SMP_BOOL ? "bool" : "number");
		return SMP_EINVALOBJ;
	}
	/* Types first, as json.Unmarshal checks the whole list. */
	for (size_t i = 0; i < raw->u.list.len; i++) {
		const smp_value *e = raw->u.list.items[i];

		if (e->type == SMP_NULL)
			continue;
		if (e->type != SMP_MAP) {
			snprintf(msg, msgsize, "json: cannot unmarshal %s into Go value of type "
			         "v1.ManagedFieldsEntry", e->type == SMP_LIST ? "array" : "scalar");
			return SMP_EINVALOBJ;
		}
		for (size_t k = 0; k < e->u.map.len; k++) {
			const smp_member *m = &e->u.map.items[k];
			static const char *const strs[] = {"manager", "operation", "apiVersion", "time",
			                                   "fieldsType", "subresource"};

			for (size_t s = 0; s < sizeof(strs) / sizeof(*strs); s++)
				if (strcasecmp(m->key, strs[s]) == 0 && m->val->type != SMP_STRING &&
				    m->val->type != SMP_NULL) {
					snprintf(msg, msgsize, "json: cannot unmarshal %s into Go struct field "
					         "ManagedFieldsEntry.%s of type %s",
					         type_name_of(m->val), strs[s],
					         s == 3 ? "v1.Time" : "string");
					return SMP_EINVALOBJ;
				}
		}
	}
	for (size_t i = 0; i < raw->u.list.len; i++) {
		const smp_value *e = raw->u.list.items[i];
		const char *manager = "", *op = "", *av = "", *tm = "", *ft = "", *sub = "";
		const smp_value *fv = NULL;
		mfield f[] = {{"manager", &manager}, {"operation", &op}, {"apiVersion", &av},
		              {"time", &tm}, {"fieldsType", &ft}, {"subresource", &sub}};
		ssa_manager *m;
		ssa_set *set;
		char *id;
		int rc;

		for (size_t k = 0; e->type == SMP_MAP && k < e->u.map.len; k++) {
			const smp_member *mm = &e->u.map.items[k];

			if (strcasecmp(mm->key, "fieldsV1") == 0) {
				fv = mm->val;
				continue;
			}
			for (size_t s = 0; s < sizeof(f) / sizeof(*f); s++)
				if (strcasecmp(mm->key, f[s].name) == 0)
					*f[s].out = str_of(mm->val);
		}
		if (strcmp(op, "Apply") != 0 && strcmp(op, "Update") != 0) {
			snprintf(msg, msgsize, "operation must be `Apply` or `Update`");
			return SMP_EINVALOBJ;
		}
		if (!av[0]) {
			snprintf(msg, msgsize, "apiVersion must not be empty");
			return SMP_EINVALOBJ;
		}
		if (!ft[0]) {
			snprintf(msg, msgsize, "missing fieldsType in managed fields entry %zu", i);
			return SMP_EINVALOBJ;
		}
		if (strcmp(ft, "FieldsV1") != 0) {
			snprintf(msg, msgsize, "invalid fieldsType \"%s\" in managed fields entry %zu", ft, i);
			return SMP_EINVALOBJ;
		}
		{
			char sub_msg[512];

			if ((rc = ssa_set_from_value(c, &set, fv, sub_msg, sizeof(sub_msg)))) {
				if (rc == SMP_ENOMEM)
					return ssa_oom(c);
				snprintf(msg, msgsize, "error decoding set in managed fields entry %zu: %s", i,
				         sub_msg);
				return SMP_EINVALOBJ;
			}
		}
		if (!(id = make_id(c, manager, op, strcmp(op, "Apply") == 0 ? "" : av, sub)) ||
		    !(m = ssa_managers_put(c, ms, id)))
			return SMP_ENOMEM;
		m->name = manager;
		m->operation = op;
		m->subresource = sub;
		m->api_version = av;
		m->applied = strcmp(op, "Apply") == 0;
		m->set = set;
		m->time = tm[0] ? tm : NULL;
	}
	return 0;
}

/* ---------------------------------------------------------------- strip */

/* The fields stripMetaManager keeps out of every applier's set. */
static ssa_set *strip_set(ssa_ctx *c)
{
	static const char *const top[] = {"apiVersion", "kind", "metadata"};
	size_t ntop = 3;
	static const char *const meta[] = {"name", "namespace", "creationTimestamp", "selfLink",
	                                   "uid", "clusterName", "generation", "managedFields",
	                                   "resourceVersion"};
	ssa_ent *t = ssa_alloc(c, 3 * sizeof(*t)), *m = ssa_alloc(c, 9 * sizeof(*m));
	ssa_set *ms;

	if (!t || !m)
		return NULL;
	for (size_t i = 0; i < 9; i++) {
		m[i].pe.kind = SSA_PE_FIELD;
		m[i].pe.u.name = meta[i];
		m[i].pe.n = (uint32_t)strlen(meta[i]);
		m[i].member = true;
		m[i].child = NULL;
	}
	if (!(ms = ssa_set_build(c, m, 9)))
		return NULL;
	for (size_t i = 0; i < ntop; i++) {
		t[i].pe.kind = SSA_PE_FIELD;
		t[i].pe.u.name = top[i];
		t[i].pe.n = (uint32_t)strlen(top[i]);
		t[i].member = true;
		t[i].child = i == 2 ? ms : NULL;
	}
	return ssa_set_build(c, t, ntop);
}

/* stripFields: the manager's set without the meta fields and, with
 * `status` (`spec`), without the status (spec) and everything below it
 * (the registry's reset fields, removed as the server's exclude filter
 * does: RecursiveDifference); gone if empty. */
static int strip(ssa_ctx *c, ssa_managers *ms, const char *id, bool status, bool spec)
{
	static const ssa_pe st = {.kind = SSA_PE_FIELD, .u.name = "status", .n = 6};
	static const ssa_pe sp = {.kind = SSA_PE_FIELD, .u.name = "spec", .n = 4};
	ssa_manager *m = ssa_managers_get(ms, id);
	ssa_set *s, *r;

	if (!m)
		return 0;
	if (!(s = strip_set(c)))
		return SMP_ENOMEM;
	m->set = ssa_set_difference(c, m->set, s);
	for (int i = 0; i < 2 && !c->rc; i++) {
		if (!(i ? spec : status))
			continue;
		if (!(r = ssa_set_from_path(c, i ? &sp : &st, 1)))
			return c->rc ? c->rc : SMP_ENOMEM;
		m->set = ssa_set_recursive_difference(c, m->set, r);
	}
	if (c->rc)
		return c->rc;
	if (ssa_set_empty(m->set))
		m->present = false;
	return 0;
}

/* ---------------------------------------------------------------- result */

/* A deep copy of v into the result's arena, without the null map values
 * with `drop` (a built-in kind: decoding into the Go types loses them; a
 * custom resource keeps them for its CRD's rules, docs/STORED.md); *rc set
 * on failure (SMP_ELIMIT when nested too deeply). */
static smp_value *copy_result(smp_arena *a, const smp_value *v, bool drop, size_t depth,
                              int *rc)
{
	smp_value *o;

	if (depth > SSA_MAX_DEPTH) {
		*rc = SMP_ELIMIT;
		return NULL;
	}
	switch (v->type) {
	case SMP_MAP:
		if (!(o = smpv_map(a, v->u.map.len)))
			break;
		for (size_t i = 0; i < v->u.map.len; i++) {
			const smp_member *m = &v->u.map.items[i];
			smp_value *cv;

			if (drop && m->val->type == SMP_NULL)
				continue;
			if (!(cv = copy_result(a, m->val, drop, depth + 1, rc)) ||
			    smpv_map_add_copy(a, o, m->key, m->klen, cv))
				return NULL;
		}
		return o;
	case SMP_LIST:
		if (!(o = smpv_list(a, v->u.list.len)))
			break;
		for (size_t i = 0; i < v->u.list.len; i++) {
			smp_value *cv = copy_result(a, v->u.list.items[i], drop, depth + 1, rc);

			if (!cv || smpv_list_add(a, o, cv))
				return NULL;
		}
		return o;
	default:
		if ((o = smpv_copy(a, v)))
			return o;
		break;
	}
	if (!*rc)
		*rc = SMP_ENOMEM;
	return NULL;
}

typedef struct entry {
	const ssa_manager *m;
	int64_t secs;
} entry;

static int entry_cmp(const void *x, const void *y)
{
	const entry *a = x, *b = y;
	const char *ao = a->m->applied ? "Apply" : "Update", *bo = b->m->applied ? "Apply" : "Update";
	int r;

	if ((r = strcmp(ao, bo)))
		return r;
	if (a->secs != b->secs)
		return a->secs < b->secs ? -1 : 1;
	if ((r = strcmp(a->m->name, b->m->name)))
		return r;
	if ((r = strcmp(a->m->api_version, b->m->api_version)))
		return r;
	return strcmp(a->m->subresource, b->m->subresource);
}

static int put_str(smp_arena *a, smp_value *map, const char *k, const char *v)
{
	smp_value *s = smpv_str(a, v, strlen(v));

	return !s || smpv_map_add_copy(a, map, k, strlen(k), s) ? SMP_ENOMEM : 0;
}

/* The managedFields list, encoded and sorted as the server does. */
static smp_value *encode_managed(ssa_ctx *c, smp_arena *a, const ssa_managers *ms)
{
	entry *e = ssa_alloc(c, (ms->n ? ms->n : 1) * sizeof(*e));
	smp_value *list;
	size_t n = 0;

	if (!e)
		return NULL;
	for (size_t i = 0; i < ms->n; i++)
		if (ms->m[i].present) {
			e[n].m = &ms->m[i];
			if (!ms->m[i].time || !parse_time(ms->m[i].time, &e[n].secs))
				e[n].secs = 0;
			n++;
		}
	qsort(e, n, sizeof(*e), entry_cmp);
	if (!(list = smpv_list(a, n)))
		goto oom;
	for (size_t i = 0; i < n; i++) {
		const ssa_manager *m = e[i].m;
		smp_value *ent = smpv_map(a, 7), *fv;

		if (!ent)
			goto oom;
		if ((m->name[0] && put_str(a, ent, "manager", m->name)) ||
		    put_str(a, ent, "operation", m->applied ? "Apply" : "Update") ||
		    (m->api_version[0] && put_str(a, ent, "apiVersion", m->api_version)) ||
		    (m->time && put_str(a, ent, "time", m->time)) ||
		    put_str(a, ent, "fieldsType", "FieldsV1"))
			goto oom;
		if (!(fv = ssa_set_to_value(c, a, m->set)) ||
		    smpv_map_add_copy(a, ent, "fieldsV1", 8, fv))
			goto oom;
		if (m->subresource[0] && put_str(a, ent, "subresource", m->subresource))
			goto oom;
		if (smpv_list_add(a, list, ent))
			goto oom;
	}
	return list;
oom:
	ssa_oom(c);
	return NULL;
}

/* The stored object: `obj` without nulls, with metadata.managedFields. */
static int finish(ssa_ctx *c, smp_ssa_result *res, const smp_value *obj, const ssa_managers *ms,
                  bool drop_nulls)
{
	smp_arena *a = &res->doc->arena;
	smp_value *o, *md = NULL, *list;
	int rc = 0;

	if (!(list = encode_managed(c, a, ms)))
		return c->rc ? c->rc : SMP_ENOMEM;
	res->managed = list;
	if (!(o = copy_result(a, obj, drop_nulls, 0, &rc)))
		return rc == SMP_ELIMIT ? smp_err_set(c->err, SMP_ELIMIT, NULL, 0, 0, NULL,
		                                      "object nested deeper than %d levels",
		                                      SSA_MAX_DEPTH)
		                        : ssa_oom(c);
	if (o->type == SMP_MAP && list->u.list.len) {
		ptrdiff_t i = smpv_map_find(o, "metadata", 8);

		if (i >= 0 && o->u.map.items[i].val->type == SMP_MAP) {
			md = o->u.map.items[i].val;
		} else {
			if (i >= 0)
				smpv_map_remove(o, (size_t)i);
			if (!(md = smpv_map(a, 1)) || smpv_map_add_copy(a, o, "metadata", 8, md))
				return ssa_oom(c);
		}
		if ((i = smpv_map_find(md, "managedFields", 13)) >= 0)
			md->u.map.items[i].val = list;
		else if (smpv_map_add_copy(a, md, "managedFields", 13, list))
			return ssa_oom(c);
	}
	res->object = o;
	if (smp_doc_push_root(res->doc, o))
		return ssa_oom(c);
	return 0;
}

/* ---------------------------------------------------------------- conflicts */

typedef struct cl {
	ssa_ctx *c;
	smp_arena *a;
	smp_ssa_conflict *out;
	size_t n;
	const ssa_manager *m;
	smp_buf *msg;
	bool multi;
} cl;

static int conflict_path(void *ctx, const ssa_pe *path, size_t n)
{
	cl *x = ctx;
	smp_ssa_conflict *k = &x->out[x->n++];
	smp_buf b;
	char *p;

	smp_buf_init(&b);
	ssa_path_print(&b, path, n);
	p = b.oom ? NULL : smp_arena_strndup(x->a, b.ptr ? b.ptr : "", b.len);
	smp_buf_release(&b);
	if (!p)
		return SMP_ENOMEM;
	k->manager = x->m->name;
	k->operation = x->m->applied ? "Apply" : "Update";
	k->api_version = x->m->applied ? "" : x->m->api_version;
	k->subresource = x->m->subresource;
	k->path = p;
	if (x->multi)
		smp_buf_printf(x->msg, "\n- %s", p);
	return 0;
}

/* Go's %q of s (ssa_pe_print writes a value element as [="..."]: the
 * quoted part is kept). */
static void put_quoted(smp_buf *b, const char *s)
{
	smp_value v = {.type = SMP_STRING};
	ssa_pe pe = {.kind = SSA_PE_VALUE, .u.val = &v};
	smp_buf q;

	v.u.s.ptr = s;
	v.u.s.len = (uint32_t)strlen(s);
	smp_buf_init(&q);
	ssa_pe_print(&q, &pe);
	if (q.ptr && q.len >= 3)
		smp_buf_put(b, q.ptr + 2, q.len - 3);
	smp_buf_release(&q);
}

/* A manager as printManager names it. */
static void put_manager(smp_buf *b, const ssa_manager *m)
{
	put_quoted(b, m->name);
	if (m->subresource[0]) {
		smp_buf_puts(b, " with subresource ");
		put_quoted(b, m->subresource);
	}
	if (!m->applied)
		smp_buf_printf(b, " using %s", m->api_version);
}

/* The conflicts of an apply as the server reports them: one per field
 * (managers sorted, paths in the server's order) and its message ("Apply
 * failed with N conflicts: conflicts with ..."). */
static int build_conflicts(ssa_ctx *c, smp_ssa_result *res, const ssa_conflicts *cf)
{
	smp_arena *a = &res->doc->arena;
	size_t total = 0, *order;
	smp_buf msg, head;
	cl x;
	int rc = 0;

	for (size_t i = 0; i < cf->n; i++)
		total += ssa_set_count(cf->sets[i]);
	if (!(res->conflicts = smp_arena_alloc(a, (total ? total : 1) * sizeof(*res->conflicts))) ||
	    !(order = ssa_alloc(c, (cf->n ? cf->n : 1) * 2 * sizeof(*order))))
		return ssa_oom(c);
	/* Managers by identifier (sort.SliceStable by Manager). */
	for (size_t i = 0; i < cf->n; i++)
		order[2 * i] = i;
	for (size_t i = 1; i < cf->n; i++) {
		size_t k = i, v = order[2 * i];

		while (k > 0 && strcmp(cf->m[order[2 * (k - 1)]].id, cf->m[v].id) > 0) {
			order[2 * k] = order[2 * (k - 1)];
			k--;
		}
		order[2 * k] = v;
	}
	smp_buf_init(&msg);
	x = (cl){c, a, res->conflicts, 0, NULL, &msg, total > 1};
	for (size_t i = 0; i < cf->n && !rc; i++) {
		ssa_manager *m = &cf->m[order[2 * i]];

		/* The result owns its strings. */
		if (!(m->name = smp_arena_strndup(a, m->name, strlen(m->name))) ||
		    !(m->api_version = smp_arena_strndup(a, m->api_version, strlen(m->api_version))) ||
		    !(m->subresource = smp_arena_strndup(a, m->subresource, strlen(m->subresource)))) {
			rc = SMP_ENOMEM;
			break;
		}
		x.m = m;
		if (x.multi) {
			smp_buf_puts(&msg, "\nconflicts with ");
			put_manager(&msg, x.m);
			smp_buf_putc(&msg, ':');
		}
		rc = ssa_set_iterate_go(c, cf->sets[order[2 * i]], conflict_path, &x);
	}
	res->nconflicts = x.n;
	smp_buf_init(&head);
	if (total == 1) {
		smp_buf_puts(&head, "Apply failed with 1 conflict: conflict with ");
		put_manager(&head, x.m);
		smp_buf_printf(&head, ": %s", res->conflicts[0].path);
	} else {
		smp_buf_printf(&head, "Apply failed with %zu conflicts: ", total);
		if (msg.len)
			smp_buf_put(&head, msg.ptr + 1, msg.len - 1);
	}
	if (!rc && (head.oom || msg.oom ||
	            !(res->message = smp_arena_strndup(a, head.ptr ? head.ptr : "", head.len))))
		rc = SMP_ENOMEM;
	smp_buf_release(&msg);
	smp_buf_release(&head);
	if (rc)
		return rc == SMP_ENOMEM ? ssa_oom(c) : rc;
	/* smp_error holds one line: the lines joined with "; ". */
	{
		char line[SMP_ERROR_MESSAGE_MAX];
		size_t k = 0;

		for (const char *p = res->message; *p && k + 3 < sizeof(line); p++) {
			if (*p == '\n') {
				if (k > 0 && line[k - 1] == ':')
					line[k++] = ' ';
				else {
					line[k++] = ';';
					line[k++] = ' ';
				}
			} else {
				line[k++] = *p;
			}
		}
		line[k] = 0;
		return smp_err_set(c->err, SMP_ECONFLICT, NULL, 0, 0,
		                   res->nconflicts ? res->conflicts[0].path : NULL, "%s", line);
	}
}

/* ---------------------------------------------------------------- the call */

/* Number of values in v (to size the arenas: a call touches a few bytes
 * per value, and one large block takes a handful of page faults where
 * many small ones take thousands). */
static size_t count_values(const smp_value *v, size_t depth)
{
	size_t n = 1;

	if (!v || depth > SSA_MAX_DEPTH)
		return 0;
	if (v->type == SMP_LIST)
		for (size_t i = 0; i < v->u.list.len; i++)
			n += count_values(v->u.list.items[i], depth + 1);
	else if (v->type == SMP_MAP)
		for (size_t i = 0; i < v->u.map.len; i++)
			n += count_values(v->u.map.items[i].val, depth + 1);
	return n;
}

static int fail(ssa_ctx *c, int code, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

static int fail(ssa_ctx *c, int code, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	c->rc = smp_err_setv(c->err, code, NULL, 0, 0, path, fmt, ap);
	va_end(ap);
	return c->rc;
}

static bool is_reset(const smp_value *v)
{
	if (!v || v->type != SMP_LIST)
		return false;
	return v->u.list.len == 0 ||
	       (v->u.list.len == 1 && v->u.list.items[0]->type == SMP_MAP &&
	        v->u.list.items[0]->u.map.len == 0);
}

static size_t count_present(const ssa_managers *ms)
{
	size_t n = 0;

	for (size_t i = 0; i < ms->n; i++)
		n += ms->m[i].present;
	return n;
}

/* RFC 3339 text of the wall clock, whole seconds, UTC. */
static const char *wall_clock(ssa_ctx *c)
{
	char buf[32];
	time_t now = time(NULL);
	struct tm tm;

	if (!gmtime_r(&now, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return "1970-01-01T00:00:00Z";
	return dup(c, buf);
}

/* What one call works on once its arguments are checked: the context,
 * the result being built, the managers, the kind's type, the live object
 * without its managedFields and those. Failures are left in c.rc. */
typedef struct call {
	ssa_ctx c;
	smp_ssa_result *res;
	ssa_managers ms;
	ssa_type *t;
	const smp_stype *stype; /* the kind's type (its Go zero value) */
	bool existing;          /* a live object was given (not a create) */
	const smp_value *live_obj, *live_mf;
	const char *manager, *av, *now;
	bool reset_status; /* a built-in kind with a status: reset on writes */
	bool reset_spec;   /* a CertificateSigningRequest: its spec too */
	char msg[768];
} call;

/* The checks of a request before anything is computed, as the server
 * makes them: the arguments, the time, the field manager (an apply needs
 * one; an update without one is "unknown"), the kind and apiVersion
 * against the live object's, and the kind's schema (*schema, *ge). */
static int check_request(const smp_value **live, const smp_value *config,
                         const smp_ssa_options *o, bool apply, const char **manager,
                         const char **av, const smp_schema **schema, const smp_gvk_entry **ge,
                         smp_error *err)
{
	const char *kind;

	if (o->version < 1 || o->version > SMP_SSA_OPTIONS_VERSION)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
		                   "smp_ssa_options: unknown version %u", o->version);
	if (config->type != SMP_MAP)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL, "config: not an object");
	if (*live && (*live)->type == SMP_NULL)
		*live = NULL;
	if (*live && (*live)->type != SMP_MAP)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL, "live: not an object");
	if (o->now) {
		int64_t secs;

		if (!parse_time(o->now, &secs))
			return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
			                   "smp_ssa_options.now: \"%s\" is not an RFC 3339 time", o->now);
	}
	*manager = o->manager && o->manager[0] ? o->manager : NULL;
	if (!*manager) {
		if (apply)
			return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL,
			                   "PATCH request with apply content-type requires a fieldManager");
		*manager = "unknown";
	}
	*av = str_of(map_get(config, "apiVersion"));
	kind = str_of(map_get(config, "kind"));
	if (*live) {
		const char *lav = str_of(map_get(*live, "apiVersion"));
		const char *lkind = str_of(map_get(*live, "kind"));

		if (!(*av)[0] && !apply) {
			*av = lav;
			kind = lkind;
		}
		if (lkind[0] && strcmp(kind, lkind) != 0)
			return smp_err_set(err, SMP_EPRECOND, NULL, 0, 0, "kind",
			                   "invalid object type: %s/%s, expected %s/%s", *av, kind, lav,
			                   lkind);
		if (lav[0] && strcmp(*av, lav) != 0)
			return smp_err_set(err, SMP_EPRECOND, NULL, 0, 0, "apiVersion",
			                   "Incorrect version specified in apply patch. Specified patch "
			                   "version: %s, expected: %s", *av, lav);
	}
	*schema = NULL;
	if (o->schema && (*ge = smp_schema_find_kind(o->schema, *av, kind, true)))
		*schema = o->schema;
	else if ((*ge = smp_schema_find_kind(smp_schema_builtin(), *av, kind, true)))
		*schema = smp_schema_builtin();
	if (!*ge)
		return smp_err_set(err, SMP_ESCHEMA, NULL, 0, 0, NULL,
		                   "no schema for apiVersion \"%s\" kind \"%s\"", *av, kind);
	return 0;
}

/* An update of `live` to `obj` by `manager` recorded in k->ms (the
 * server's managedFieldsUpdater): what it changed, added or removed goes
 * to its Update entry of this apiVersion (united with an earlier one),
 * timed now; *changed whether anything did. Non-zero after a failure. */
static int record_update(call *k, const smp_value *live, const smp_value *obj,
                         const char *manager, bool *changed)
{
	ssa_ctx *c = &k->c;
	ssa_manager *cur;
	ssa_cmp cmp;
	char *id;
	int rc;

	if (!(id = make_id(c, manager, "Update", k->av, "")))
		return SMP_ENOMEM;
	if ((rc = ssa_updater_update(c, &cmp, live, obj, k->t, k->av, &k->ms,
	                             "current-operation"))) {
		if (!c->rc)
			c->rc = rc;
		return rc;
	}
	if (strip(c, &k->ms, "current-operation", k->reset_status, k->reset_spec))
		return c->rc ? c->rc : SMP_ENOMEM;
	if ((cur = ssa_managers_get(&k->ms, "current-operation"))) {
		ssa_manager *prev = ssa_managers_get(&k->ms, id);
		ssa_set *set = cur->set;

		cur->present = false;
		if (prev)
			set = ssa_set_union(c, set, prev->set);
		if (c->rc || !(prev = ssa_managers_put(c, &k->ms, id)))
			return c->rc ? c->rc : SMP_ENOMEM;
		prev->set = set;
		prev->applied = false;
		prev->api_version = k->av;
		prev->name = manager;
		prev->operation = "Update";
		prev->subresource = "";
		prev->time = k->now;
	}
	*changed = !ssa_set_empty(cmp.removed) || !ssa_set_empty(cmp.modified) ||
	           !ssa_set_empty(cmp.added);
	return 0;
}

/* The first apply onto an object nobody owns a field of (the server's
 * skipNonAppliedManager.Apply): its fields are first recorded as an update
 * by "before-first-apply" from the zero value of its kind, so that the
 * apply conflicts with them as with any other manager's. */
static int before_first_apply(call *k)
{
	ssa_ctx *c = &k->c;
	const smp_value *zero = smp_go_zero_object(&c->arena, k->stype,
	                                           map_get(k->live_obj, "apiVersion"),
	                                           map_get(k->live_obj, "kind"));
	bool changed;

	if (!zero)
		return ssa_oom(c);
	return record_update(k, zero, k->live_obj, "before-first-apply", &changed);
}

/* Whether the call's manager is "kubectl": only its applies move from
 * client-side apply (the server's lastAppliedManager and
 * lastAppliedUpdater opt every other manager out). */
static bool is_kubectl(const call *k)
{
	return strcmp(k->manager, "kubectl") == 0;
}

/* The last-applied annotation of obj, or NULL when absent or empty. */
static const smp_value *last_applied_of(const smp_value *obj)
{
	const smp_value *v = map_get(map_get(map_get(obj, "metadata"), "annotations"),
	                             SMP_LAST_APPLIED_ANNOTATION);

	return v && v->type == SMP_STRING && v->u.s.len ? v : NULL;
}

/* The fields the live object's last-applied annotation says client-side
 * apply set and that still hold those values (the server's
 * lastAppliedManager.allowedConflictsFromLastApplied): the annotation's
 * typed field set less what differs between it and the live object. NULL
 * (nothing forgiven) when the annotation is missing, not an object with a
 * kind, of another apiVersion or kind, or not typed by the schema, or the
 * live object does not type without duplicates; c->rc only on ENOMEM. */
static ssa_set *last_applied_fields(call *k)
{
	ssa_ctx *c = &k->c;
	const smp_value *la = last_applied_of(k->live_obj), *obj;
	smp_error saved = {0};
	smp_doc *doc = NULL;
	ssa_set *set = NULL;
	ssa_cmp cmp;
	int rc;

	if (!la || smp_doc_parse(&doc, la->u.s.ptr, la->u.s.len, NULL, NULL) ||
	    smp_doc_count(doc) != 1) {
		smp_doc_free(doc);
		return NULL;
	}
	obj = smpv_copy(&c->arena, doc->roots[0]);
	smp_doc_free(doc);
	if (!obj) {
		ssa_oom(c);
		return NULL;
	}
	if (obj->type != SMP_MAP || !*str_of(map_get(obj, "kind")) ||
	    strcmp(str_of(map_get(obj, "apiVersion")), k->av) != 0 ||
	    strcmp(str_of(map_get(obj, "kind")), str_of(map_get(k->live_obj, "kind"))) != 0)
		return NULL;
	/* typing failures here forgive nothing, and are no error of the call */
	if (c->err)
		saved = *c->err;
	if ((rc = ssa_validate(c, obj, k->t, "last applied", false)) == 0)
		rc = ssa_validate(c, k->live_obj, k->t, "live", false);
	if (rc) {
		if (rc != SMP_EINVALOBJ)
			return NULL;
		c->rc = 0;
		if (c->err)
			*c->err = saved;
		return NULL;
	}
	if (ssa_to_set(c, &set, obj, k->t, false) || ssa_compare(c, &cmp, obj, k->live_obj, k->t))
		return NULL;
	set = ssa_set_difference(c, set, cmp.modified);
	set = ssa_set_difference(c, set, cmp.added);
	return ssa_set_difference(c, set, cmp.removed);
}

/* The conflicts of cf that `allowed` does not forgive, in place
 * (lastAppliedManager's conflictsDifference); whether any is left. */
static bool unforgiven(ssa_ctx *c, ssa_conflicts *cf, const ssa_set *allowed)
{
	size_t n = 0;

	for (size_t i = 0; i < cf->n; i++) {
		ssa_set *s = ssa_set_difference(c, cf->sets[i], allowed);

		if (ssa_set_empty(s))
			continue;
		cf->m[n] = cf->m[i];
		cf->sets[n++] = s;
	}
	cf->n = n;
	return n > 0;
}

/* The configuration as the last-applied annotation the server writes for
 * the manager kubectl (lastAppliedUpdater's buildLastApplied): the
 * configuration without that annotation (its annotations dropped when
 * they are not a map of strings, as unstructured's GetAnnotations reads
 * them), encoded as Go's json.Encoder does (sorted keys, HTML escaping,
 * a newline at the end). NULL on ENOMEM (said). */
static smp_value *build_last_applied(ssa_ctx *c, smp_arena *a, const smp_value *config)
{
	const smp_value *md = map_get(config, "metadata"), *anns = map_get(md, "annotations");
	const smp_value *obj = config;
	smp_value *v;
	smp_buf b;

	if (map_has(md, "annotations")) {
		bool strings = anns && anns->type == SMP_MAP;
		smp_value *nmd, *o;

		for (size_t i = 0; strings && i < anns->u.map.len; i++)
			strings = anns->u.map.items[i].val->type == SMP_STRING;
		if (!(nmd = map_without(c, md, "annotations")) || !(o = map_without(c, config, "metadata")))
			return NULL;
		if (strings) {
			smp_value *na = map_without(c, anns, SMP_LAST_APPLIED_ANNOTATION);

			if (!na || smpv_map_add(&c->arena, nmd, "annotations", 11, na)) {
				ssa_oom(c);
				return NULL;
			}
		}
		if (smpv_map_add(&c->arena, o, "metadata", 8, nmd)) {
			ssa_oom(c);
			return NULL;
		}
		obj = o;
	}
	smp_buf_init(&b);
	ssa_json_put_value(&b, obj, true);
	smp_buf_putc(&b, '\n');
	v = b.oom ? NULL : smpv_str(a, b.ptr ? b.ptr : "", b.len);
	smp_buf_release(&b);
	if (!v)
		ssa_oom(c);
	return v;
}

/* obj (a shallow copy) with its last-applied annotation set to `la`. */
static const smp_value *with_last_applied(ssa_ctx *c, const smp_value *obj, smp_value *la)
{
	const smp_value *md = map_get(obj, "metadata"), *anns = map_get(md, "annotations");
	smp_value *na, *nmd, *o;

	if (!(na = map_without(c, anns, SMP_LAST_APPLIED_ANNOTATION)) ||
	    !(nmd = map_without(c, md, "annotations")) || !(o = map_without(c, obj, "metadata")))
		return NULL;
	if (smpv_map_add(&c->arena, na, SMP_LAST_APPLIED_ANNOTATION,
	                 strlen(SMP_LAST_APPLIED_ANNOTATION), la) ||
	    smpv_map_add(&c->arena, nmd, "annotations", 11, na) ||
	    smpv_map_add(&c->arena, o, "metadata", 8, nmd)) {
		ssa_oom(c);
		return NULL;
	}
	return o;
}

/* The apply pipeline (FieldManager.Apply): the configuration checked and
 * merged by the Updater, the applier's entry named and timed when the
 * object changed, the result finished. */
static void apply_config(call *k, const smp_value *config, bool force)
{
	ssa_ctx *c = &k->c;
	const smp_value *cfg_md = map_get(config, "metadata"), *mf = map_get(cfg_md, "managedFields");
	const smp_value *cfg = config, *result;
	ssa_conflicts cf = {0};
	ssa_manager *m;
	bool changed;
	char *id;
	int rc;

	if (mf && mf->type != SMP_NULL) {
		fail(c, SMP_EINVALOBJ, "metadata.managedFields", "metadata.managedFields must be nil");
		return;
	}
	if (mf && !(cfg = without_managed(c, config)))
		return;
	if (decode_managed(c, &k->ms, k->live_mf, k->msg, sizeof(k->msg))) {
		if (!c->rc)
			fail(c, SMP_EINVALOBJ, "metadata.managedFields",
			     "failed to decode managed fields: %s", k->msg);
		return;
	}
	if (k->existing && count_present(&k->ms) == 0 && before_first_apply(k))
		return;
	/* duplicates in an applied configuration are errors (the server types
	 * it without typed.AllowDuplicates) */
	if (ssa_validate(c, cfg, k->t, "failed to create typed patch object", false) ||
	    !(id = make_id(c, k->manager, "Apply", "", "")))
		return;
	rc = ssa_updater_apply(c, &result, &changed, k->live_obj, cfg, k->t, k->av, &k->ms, id,
	                       force, &cf);
	if (rc == SMP_ECONFLICT && is_kubectl(k)) {
		/* kubectl's apply may take what its client-side applies set
		 * (lastAppliedManager): conflicts on those fields are forgiven,
		 * and when none is left the apply is forced */
		ssa_set *allowed = last_applied_fields(k);

		if (c->rc)
			return;
		if (allowed && !unforgiven(c, &cf, allowed)) {
			memset(&k->ms, 0, sizeof(k->ms));
			memset(&cf, 0, sizeof(cf));
			if (decode_managed(c, &k->ms, k->live_mf, k->msg, sizeof(k->msg)) ||
			    (k->existing && count_present(&k->ms) == 0 && before_first_apply(k)))
				return;
			rc = ssa_updater_apply(c, &result, &changed, k->live_obj, cfg, k->t, k->av,
			                       &k->ms, id, true, &cf);
		}
	}
	if (rc == SMP_ECONFLICT) {
		c->rc = build_conflicts(c, k->res, &cf);
		return;
	}
	if (rc) {
		if (!c->rc)
			c->rc = rc;
		return;
	}
	if ((m = ssa_managers_get(&k->ms, id))) {
		m->name = k->manager;
		m->operation = "Apply";
		m->subresource = "";
	}
	if (strip(c, &k->ms, id, k->reset_status, k->reset_spec))
		return;
	if (changed) {
		if ((m = ssa_managers_get(&k->ms, id)))
			m->time = k->now;
	} else {
		result = k->live_obj;
	}
	k->res->changed = changed;
	if (is_kubectl(k) && last_applied_of(result)) {
		/* the server keeps the annotation of an object kubectl applied
		 * client-side up to date (lastAppliedUpdater), after the times */
		smp_value *la = build_last_applied(c, &c->arena, config);
		const smp_value *was = last_applied_of(result);

		if (!la || !(result = with_last_applied(c, result, la)))
			return;
		if (!smpv_equal_numeric(was, la))
			k->res->changed = true;
	}
	finish(c, k->res, result, &k->ms, k->stype != NULL);
}

/* The ownership a write that is not an apply decodes: managedFields sent
 * with the object win when non-empty, an empty list resets them, else the
 * live ones; undecodable live ones make the server store the object
 * untracked (then *untracked, and the result is finished). */
static void update_managers(call *k, const smp_value *config, bool *untracked)
{
	ssa_ctx *c = &k->c;
	const smp_value *md = map_get(config, "metadata"), *new_mf = NULL;
	bool has_new = map_has(md, "managedFields");
	int drc;

	*untracked = false;
	if (has_new)
		new_mf = map_get(md, "managedFields");
	if (has_new && is_reset(new_mf)) {
		memset(&k->ms, 0, sizeof(k->ms));
		return;
	}
	drc = decode_managed(c, &k->ms, new_mf, k->msg, sizeof(k->msg));
	if (c->rc || !(drc || count_present(&k->ms) == 0))
		return;
	if (decode_managed(c, &k->ms, k->live_mf, k->msg, sizeof(k->msg))) {
		char w[1024];

		if (c->rc)
			return;
		/* The server gives up tracking and stores the object as sent. */
		snprintf(w, sizeof(w), "managedFields not decodable; object stored untracked: %s",
		         k->msg);
		if (!(k->res->warning = smp_arena_strndup(&k->res->doc->arena, w, strlen(w)))) {
			ssa_oom(c);
			return;
		}
		memset(&k->ms, 0, sizeof(k->ms));
		*untracked = true;
		finish(c, k->res, config, &k->ms, k->stype != NULL);
	}
}

/* The update pipeline (FieldManager.Update): the ownership decoded, the
 * Updater's comparison giving the writer what it changed, added or
 * removed (its Update entry of this apiVersion, united with an earlier
 * one), the result finished. */
static void update_object(call *k, const smp_value *config)
{
	ssa_ctx *c = &k->c;
	const smp_value *obj;
	bool untracked, changed;

	update_managers(k, config, &untracked);
	if (c->rc || untracked)
		return;
	if (count_present(&k->ms) == 0 && *str_of(map_get(map_get(k->live_obj, "metadata"), "uid"))) {
		/* an update of an object nobody owns a field of is not tracked
		 * (the server's skipNonAppliedManager: only creates start the
		 * tracking, and applies) */
		if (!(obj = without_managed(c, config)))
			return;
		k->res->changed = !smpv_equal_numeric(k->live_obj, obj);
		finish(c, k->res, obj, &k->ms, k->stype != NULL);
		return;
	}
	if (!(obj = without_managed(c, config)) ||
	    ssa_validate(c, obj, k->t, "failed to convert new object to smd typed", true) ||
	    record_update(k, k->live_obj, obj, k->manager, &changed))
		return;
	k->res->changed = changed;
	finish(c, k->res, obj, &k->ms, k->stype != NULL);
}

/* smp_ssa_apply and smp_ssa_update: the request checked, the call's
 * context set up (arena sizes from the inputs, the kind's type, the live
 * object without its managedFields, validated), then the pipeline. */
static int run(smp_ssa_result **out, const smp_value *live, const smp_value *config,
               const smp_ssa_options *opts, bool apply, smp_error *err)
{
	static const smp_ssa_options defaults = SMP_SSA_OPTIONS_INIT;
	const smp_ssa_options *o = opts ? opts : &defaults;
	const smp_gvk_entry *ge = NULL;
	const smp_schema *schema = NULL;
	call k;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !config)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL, "smp_ssa_%s: NULL argument",
		                   apply ? "apply" : "update");
	memset(&k, 0, sizeof(k));
	if ((rc = check_request(&live, config, o, apply, &k.manager, &k.av, &schema, &ge, err)))
		return rc;
	{
		/* The registries of built-in kinds with a status, and of custom
		 * resources with the status subresource, reset it on writes to
		 * the main resource (GetResetFields): nobody owns it there. */
		const smp_gvk_entry *b = smp_schema_find_kind(smp_schema_builtin(), k.av,
		                                              ge->kind, true);
		k.reset_status = (b && smp_stype_field(b->type, "status", 6)) ||
		                 (!b && ge->status_subresource);
		k.reset_spec = b && strcmp(b->group, "certificates.k8s.io") == 0 &&
		               strcmp(b->kind, "CertificateSigningRequest") == 0;
	}
	ssa_ctx_init(&k.c, err, o->version >= 2 ? o->cache : NULL);
	if (k.c.rc)
		goto done;
	if (!(k.res = calloc(1, sizeof(*k.res))) || !(k.res->doc = smp_doc_alloc())) {
		ssa_oom(&k.c);
		goto done;
	}
	{
		size_t n = count_values(live, 0) + count_values(config, 0);

		/* Bytes per value measured on large Deployments and ConfigMaps
		 * (bench/ssa.sh: at most 64 and 40), with room to spare. */
		if (n > 4096) {
			smp_arena_hint(&k.c.arena, n * 80);
			smp_arena_hint(&k.res->doc->arena, n * 48);
		}
	}
	k.stype = smp_schema_find_kind(smp_schema_builtin(), k.av, ge->kind, true) ? ge->type : NULL;
	if (!(k.t = ssa_type_root(&k.c, schema, ge->type))) {
		ssa_oom(&k.c);
		goto done;
	}
	/* live without its managedFields (the ownership before the call) */
	if (live) {
		k.existing = true;
		k.live_mf = map_get(map_get(live, "metadata"), "managedFields");
		if (!(k.live_obj = without_managed(&k.c, live)))
			goto done;
	} else if (!(k.live_obj = smpv_map(&k.c.arena, 0))) {
		ssa_oom(&k.c);
		goto done;
	}
	if (ssa_validate(&k.c, k.live_obj, k.t, "failed to create typed live object", true) ||
	    !(k.now = o->now ? o->now : wall_clock(&k.c)))
		goto done;
	if (apply)
		apply_config(&k, config, o->force);
	else
		update_object(&k, config);
done:
	rc = k.c.rc;
	ssa_ctx_release(&k.c);
	if (rc && !(rc == SMP_ECONFLICT && k.res && k.res->message)) {
		smp_ssa_result_free(k.res);
		return rc;
	}
	*out = k.res;
	return rc;
}

/* ---------------------------------------------------------------- API */

int smp_ssa_apply(smp_ssa_result **out, const smp_value *live, const smp_value *config,
                  const smp_ssa_options *opts, smp_error *err)
{
	return run(out, live, config, opts, true, err);
}

int smp_ssa_update(smp_ssa_result **out, const smp_value *live, const smp_value *object,
                   const smp_ssa_options *opts, smp_error *err)
{
	return run(out, live, object, opts, false, err);
}

void smp_ssa_result_free(smp_ssa_result *res)
{
	if (!res)
		return;
	smp_doc_free(res->doc);
	free(res);
}

const smp_value *smp_ssa_result_object(const smp_ssa_result *res)
{
	return res ? res->object : NULL;
}

const smp_value *smp_ssa_result_managed_fields(const smp_ssa_result *res)
{
	return res ? res->managed : NULL;
}

bool smp_ssa_result_changed(const smp_ssa_result *res)
{
	return res && res->changed;
}

size_t smp_ssa_result_conflicts(const smp_ssa_result *res, const smp_ssa_conflict **list)
{
	if (list)
		*list = res && res->nconflicts ? res->conflicts : NULL;
	return res ? res->nconflicts : 0;
}

const char *smp_ssa_result_message(const smp_ssa_result *res)
{
	return res ? res->message : NULL;
}

const char *smp_ssa_result_warning(const smp_ssa_result *res)
{
	return res ? res->warning : NULL;
}
