/*
 * plan.c - apply plans: the options and the inputs (Lists expanded,
 * kubectl's decoding checked). The index of objects is plan_index.c's, the
 * loop that decides the entries plan_loop.c's.
 */
#include "plan_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ------------------------------------------------------------ options */

int smp_plan_options_init(smp_plan_options *o, unsigned version)
{
	smp_plan_options d = SMP_PLAN_OPTIONS_INIT;

	if (!o || version != SMP_PLAN_OPTIONS_VERSION)
		return SMP_EINVAL;
	*o = d;
	return 0;
}

int smp_plan_options_new(smp_plan_options **out)
{
	if (!out)
		return SMP_EINVAL;
	if (!(*out = malloc(sizeof(**out))))
		return SMP_ENOMEM;
	return smp_plan_options_init(*out, SMP_PLAN_OPTIONS_VERSION);
}

void smp_plan_options_free(smp_plan_options *o)
{
	free(o);
}

int smp_plan_options_set_bool(smp_plan_options *o, const char *name, bool value)
{
	static const struct { const char *name; size_t off; } fields[] = {
		{"force_conflicts", offsetof(smp_plan_options, force_conflicts)},
		{"enforce_namespace", offsetof(smp_plan_options, enforce_namespace)},
		{"overwrite", offsetof(smp_plan_options, overwrite)},
		{"prune", offsetof(smp_plan_options, prune)},
		{"prune_all", offsetof(smp_plan_options, prune_all)},
		{"stored", offsetof(smp_plan_options, stored)},
	};

	for (size_t i = 0; o && name && i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strcmp(name, fields[i].name) == 0) {
			*(bool *)((char *)o + fields[i].off) = value;
			return 0;
		}
	return SMP_EINVAL;
}

int smp_plan_options_set_string(smp_plan_options *o, const char *name, const char *value)
{
	static const char *const modes[] = {"client-side", "server-side", "replace", "create"};

	if (!o || !name)
		return SMP_EINVAL;
	if (strcmp(name, "mode") == 0) {
		for (size_t i = 0; value && i < sizeof(modes) / sizeof(modes[0]); i++)
			if (strcmp(value, modes[i]) == 0) {
				o->mode = (smp_plan_mode)i;
				return 0;
			}
		return SMP_EINVAL;
	}
	if (strcmp(name, "propagation") == 0) {
		static const char *const policies[] = {"background", "foreground", "orphan"};

		for (size_t i = 0; value && i < sizeof(policies) / sizeof(policies[0]); i++)
			if (strcasecmp(value, policies[i]) == 0) {
				o->propagation = (smp_propagation)i;
				return 0;
			}
		return SMP_EINVAL;
	}
	if (strcmp(name, "validate") == 0) {
		static const char *const vmodes[][2] = {{"strict", "true"}, {"warn", "warn"},
		                                        {"ignore", "false"}};

		for (size_t i = 0; value && i < sizeof(vmodes) / sizeof(vmodes[0]); i++)
			if (strcmp(value, vmodes[i][0]) == 0 || strcmp(value, vmodes[i][1]) == 0) {
				o->validate = (smp_validate_mode)i;
				return 0;
			}
		return SMP_EINVAL;
	}
	if (strcmp(name, "field_manager") == 0)
		o->field_manager = value;
	else if (strcmp(name, "default_namespace") == 0)
		o->default_namespace = value;
	else if (strcmp(name, "now") == 0)
		o->now = value;
	else if (strcmp(name, "applyset") == 0)
		o->applyset = value;
	else if (strcmp(name, "applyset_tooling") == 0)
		o->applyset_tooling = value;
	else
		return SMP_EINVAL;
	return 0;
}

int smp_plan_options_set_int(smp_plan_options *o, const char *name, int64_t value)
{
	if (!o || !name)
		return SMP_EINVAL;
	if (strcmp(name, "grace_period_seconds") == 0 && value >= -1)
		o->grace_period_seconds = value;
	else if (strcmp(name, "jobs") == 0 && value >= 0)
		o->jobs = value > 64 ? 64 : (unsigned)value;
	else
		return SMP_EINVAL;
	return 0;
}

int smp_plan_options_set_handle(smp_plan_options *o, const char *name, const void *handle)
{
	if (!o || !name)
		return SMP_EINVAL;
	if (strcmp(name, "schema") == 0)
		o->schema = handle;
	else if (strcmp(name, "selector") == 0)
		o->selector = handle;
	else if (strcmp(name, "field_selector") == 0)
		o->field_selector = handle;
	else
		return SMP_EINVAL;
	return 0;
}

int smp_plan_options_set_list(smp_plan_options *o, const char *name,
                              const char *const *values, size_t n)
{
	if (!o || !name || (n && !values))
		return SMP_EINVAL;
	if (strcmp(name, "prune_allowlist") == 0) {
		o->prune_allowlist = values;
		o->prune_allowlist_len = n;
	} else if (strcmp(name, "cluster_scoped") == 0) {
		o->cluster_scoped = values;
		o->cluster_scoped_len = n;
	} else if (strcmp(name, "ignore_fields") == 0) {
		o->ignore_fields = values;
		o->ignore_fields_len = n;
	} else if (strcmp(name, "ignore_managers") == 0) {
		o->ignore_managers = values;
		o->ignore_managers_len = n;
	} else if (strcmp(name, "csa_managers") == 0) {
		o->csa_managers = values;
		o->csa_managers_len = n;
	} else {
		return SMP_EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------ the plan */

static int oom(smp_error *err)
{
	return smp__err(err, SMP_ENOMEM, "out of memory");
}

/* Parses prune_allowlist[i], "group/version/kind" ("core" = the core
 * group), as kubectl's prune.ParseResources does; the kind must be known
 * (the built-in tables or the schema), as kubectl asks the server. */
static int parse_allow(smp_plan *p, size_t i, smp_error *err)
{
	const char *text = p->o.prune_allowlist[i];
	const char *s1 = text ? strchr(text, '/') : NULL, *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
	char av[512], path[64];
	bool known = false;

	snprintf(path, sizeof(path), "prune_allowlist[%zu]", i);
	if (!s1 || !s2 || strchr(s2 + 1, '/'))
		return smp__err_path(err, SMP_EINVAL, path, "invalid GroupVersionKind format: %s, "
		                     "please follow <group/version/kind>", text ? text : "");
	p->allow_group[i] = strndup(text, (size_t)(s1 - text));
	p->allow_kind[i] = strdup(s2 + 1);
	p->nallow = i + 1;
	if (!p->allow_group[i] || !p->allow_kind[i])
		return oom(err);
	if (strcmp(p->allow_group[i], "core") == 0)
		p->allow_group[i][0] = '\0';
	if (p->allow_group[i][0])
		snprintf(av, sizeof(av), "%.200s/%.*s", p->allow_group[i], (int)(s2 - s1 - 1) & 255,
		         s1 + 1);
	else
		snprintf(av, sizeof(av), "%.*s", (int)(s2 - s1 - 1) & 255, s1 + 1);
	smp_schema_kind_namespaced(smp_schema_builtin(), av, p->allow_kind[i], &known);
	if (!known && p->o.schema)
		smp_schema_kind_namespaced(p->o.schema, av, p->allow_kind[i], &known);
	if (!known)
		return smp__err_path(err, SMP_EINVAL, path, "no matches for kind \"%s\" in version "
		                     "\"%s\"", p->allow_kind[i], av);
	return 0;
}

static int check_options(smp_plan *p, smp_error *err)
{
	const smp_plan_options *o = &p->o;

	if (o->version != SMP_PLAN_OPTIONS_VERSION || (unsigned)o->mode > SMP_PLAN_CREATE ||
	    (unsigned)o->propagation > SMP_PROPAGATION_ORPHAN || o->grace_period_seconds < -1 ||
	    (unsigned)o->validate > SMP_VALIDATE_IGNORE ||
	    (o->prune_allowlist_len && !o->prune_allowlist) ||
	    (o->cluster_scoped_len && !o->cluster_scoped) ||
	    (o->ignore_fields_len && !o->ignore_fields) ||
	    (o->ignore_managers_len && !o->ignore_managers) ||
	    (o->csa_managers_len && !o->csa_managers))
		return smp__err(err, SMP_EINVAL, "smp_plan_new: bad options");
	if (o->csa_managers_len && o->mode != SMP_PLAN_SERVER_SIDE)
		return smp__err(err, SMP_EINVAL, "csa_managers is for server-side apply only");
	if (o->applyset || o->applyset_tooling)
		return smp__applyset_check(o, err);
	if (o->prune && o->mode != SMP_PLAN_CLIENT_SIDE)
		return smp__err(err, SMP_EINVAL, "prune is supported in client-side mode only");
	if (o->prune && !o->selector && !o->prune_all)
		return smp__err(err, SMP_EINVAL, "prune needs a label selector or prune_all");
	if (o->prune_all && o->selector)
		return smp__err(err, SMP_EINVAL, "prune_all and a selector cannot be used together");
	return 0;
}

int smp_plan_new(smp_plan **out, const smp_plan_options *opts, smp_error *err)
{
	smp_plan_options d = SMP_PLAN_OPTIONS_INIT;
	smp_plan *p;
	int rc;

	if (!out)
		return smp__err(err, SMP_EINVAL, "smp_plan_new: bad arguments");
	*out = NULL;
	if (!(p = calloc(1, sizeof(*p))))
		return oom(err);
	p->o = opts ? *opts : d;
	if ((rc = check_options(p, err)))
		goto fail;
	if (smp_scopes_new(&p->scopes)) {
		rc = oom(err);
		goto fail;
	}
	for (size_t i = 0; i < p->o.cluster_scoped_len; i++) {
		const char *name = p->o.cluster_scoped[i];
		char path[64];

		snprintf(path, sizeof(path), "cluster_scoped[%zu]", i);
		if ((rc = smp_scopes_declare(p->scopes, name ? name : "", false, err))) {
			if (err)
				snprintf(err->path, sizeof(err->path), "%s", path);
			goto fail;
		}
	}
	for (size_t i = 0; i < p->o.ignore_fields_len; i++)
		if ((rc = smp__ignore_check(p->o.ignore_fields[i] ? p->o.ignore_fields[i] : "",
		                            err))) {
			if (err)
				snprintf(err->path, sizeof(err->path), "ignore_fields[%zu]", i);
			goto fail;
		}
	if (p->o.prune_allowlist_len) {
		p->allow_group = calloc(p->o.prune_allowlist_len, sizeof(*p->allow_group));
		p->allow_kind = calloc(p->o.prune_allowlist_len, sizeof(*p->allow_kind));
		if (!p->allow_group || !p->allow_kind) {
			rc = oom(err);
			goto fail;
		}
		for (size_t i = 0; i < p->o.prune_allowlist_len; i++)
			if ((rc = parse_allow(p, i, err)))
				goto fail;
	}
	p->ao.schema = p->o.schema;
	p->ao.default_namespace = p->o.default_namespace;
	p->ao.enforce_namespace = p->o.enforce_namespace;
	p->ao.overwrite = p->o.overwrite;
	p->ao.scopes = p->scopes;
	p->ao.version = SMP_APPLY_OPTIONS_VERSION;
	p->so.version = SMP_SSA_OPTIONS_VERSION;
	p->so.manager = p->o.field_manager ? p->o.field_manager
	                : p->o.mode == SMP_PLAN_REPLACE ? "kubectl-replace"
	                : p->o.mode == SMP_PLAN_CREATE  ? "kubectl-create" : "kubectl";
	if (!*p->so.manager && (p->o.mode == SMP_PLAN_REPLACE || p->o.mode == SMP_PLAN_CREATE))
		p->so.manager = "kubectl"; /* kubectl sends none: the server names the
		                              writer by its User-Agent's product */
	p->so.force = p->o.force_conflicts;
	p->so.schema = p->o.schema;
	if (p->o.applyset && (rc = smp__applyset_new(&p->as, &p->o, err)))
		goto fail;
	p->so.now = p->o.now;
	*out = p;
	return 0;
fail:
	smp_plan_free(p);
	return rc;
}

void smp_plan_free(smp_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nentries; i++)
		smp__plan_entry_release(&p->entries[i]);
	free(p->entries);
	for (size_t i = 0; i < p->ncfg; i++)
		free(p->cfg[i].err);
	for (size_t i = 0; i < p->nlive; i++)
		free(p->live[i].err);
	free(p->cfg);
	free(p->live);
	for (size_t i = 0; i < p->ndocs; i++)
		smp_doc_free(p->docs[i]);
	free(p->docs);
	for (size_t i = 0; i < p->nlabels; i++)
		free(p->labels[i]);
	free(p->labels);
	for (size_t i = 0; i < p->nlfds; i++)
		close(p->lfds[i]);
	free(p->lfds);
	for (size_t i = 0; i < p->nallow; i++) {
		free(p->allow_group[i]);
		free(p->allow_kind[i]);
	}
	free(p->allow_group);
	free(p->allow_kind);
	for (size_t i = 0; i < p->nwarned; i++)
		free(p->warned[i]);
	free(p->warned);
	smp_scopes_free(p->scopes);
	smp__applyset_free(p->as);
	free(p);
}

/* ------------------------------------------------------------ inputs */

/* A problem with the shape of an input at v. */
static int bad_input(smp_error *err, const char *label, const smp_value *v, const char *msg)
{
	return smp_err_set(err, SMP_EINVALOBJ, label, smp_value_line(v), smp_value_column(v),
	                   NULL, "%s", msg);
}

int smp_apply_list_items(const smp_value *v, const smp_value **items)
{
	const smp_value *it;

	*items = NULL;
	if (smp_value_type(v) != SMP_MAP || smp_value_type(smp_map_get(v, "kind")) != SMP_STRING ||
	    !(it = smp_map_get(v, "items")))
		return 0;
	if (smp_value_type(it) == SMP_NULL)
		return 1;
	*items = it;
	return smp_value_type(it) == SMP_LIST ? 1 : -1;
}

/* Checks v (a root at depth 0, or an item of a List) and, unless `count`
 * only, appends the objects it gives to *arr. Configurations (`meta`) are
 * checked as kubectl decodes them: a root that fails is kept whole, with
 * its error, and not expanded. */
static int add_value(smp_plan *p, plan_obj **arr, size_t *n, size_t *cap, const smp_value *v,
                     const char *label, bool meta, unsigned depth, bool count, smp_error *err)
{
	const smp_value *items;
	smp_error *merr = NULL;
	int list;

	if (smp_value_type(v) == SMP_NULL)
		return 0;
	if (smp_value_type(v) != SMP_MAP)
		return bad_input(err, label, v, "expected an object (a map)");
	if (meta && depth == 0 && smp_value_type(smp_map_get(v, "kind")) == SMP_STRING) {
		smp_error tmp;
		int rc = smp_object_validate_meta(v, &tmp);

		if (rc == SMP_ENOMEM)
			return oom(err);
		if (rc && !count) {
			if (!(merr = malloc(sizeof(*merr))))
				return oom(err);
			*merr = tmp;
			snprintf(merr->file, sizeof(merr->file), "%s", label);
		}
		if (rc)
			list = 0, items = NULL;
		else
			list = smp_apply_list_items(v, &items);
	} else {
		list = smp_apply_list_items(v, &items);
	}
	if (list < 0)
		return bad_input(err, label, items, "items: expected a list of objects");
	if (depth > 0 && smp_map_get(v, "items"))
		return bad_input(err, label, v, "an item of a list is itself a list (it has items); "
		                 "kubectl rejects it too");
	if (list > 0 && !merr) {
		for (size_t i = 0; i < smp_value_len(items); i++) {
			int rc = add_value(p, arr, n, cap, smp_list_get(items, i), label, meta,
			                   depth + 1, count, err);
			if (rc)
				return rc;
		}
		return 0;
	}
	if (count)
		return 0;
	if (!smp_grow((void **)arr, cap, *n, sizeof(**arr), 16)) {
		free(merr);
		return oom(err);
	}
	memset(&(*arr)[*n], 0, sizeof((*arr)[*n]));
	(*arr)[*n].v = v;
	(*arr)[*n].label = label;
	(*arr)[*n].err = merr;
	(*n)++;
	return 0;
}

/* Takes doc over and adds its objects to *arr: first a check of the whole
 * document (nothing is added when any of it is malformed), then the
 * objects. */
static int add_doc(smp_plan *p, plan_obj **arr, size_t *n, size_t *cap, smp_doc *doc,
                   const char *label, bool meta, smp_error *err)
{
	size_t n0 = *n;
	char *name;
	int rc = 0;

	if (p->started || !doc) {
		smp_doc_free(doc);
		return smp__err(err, SMP_EINVAL, p->started ? "the plan is already computed"
		                                            : "no document");
	}
	if (!smp_grow((void **)&p->docs, &p->dcap, p->ndocs, sizeof(*p->docs), 16) ||
	    !smp_grow((void **)&p->labels, &p->lcap, p->nlabels, sizeof(*p->labels), 16) ||
	    !(name = strdup(label ? label : ""))) {
		smp_doc_free(doc);
		return oom(err);
	}
	p->docs[p->ndocs++] = doc;
	p->labels[p->nlabels++] = name;
	for (size_t i = 0; i < smp_doc_count(doc) && !rc; i++)
		rc = add_value(p, arr, n, cap, smp_doc_root(doc, i), name, meta, 0, true, err);
	for (size_t i = 0; i < smp_doc_count(doc) && !rc; i++)
		rc = add_value(p, arr, n, cap, smp_doc_root(doc, i), name, meta, 0, false, err);
	if (rc) {
		for (size_t i = n0; i < *n; i++)
			free((*arr)[i].err);
		*n = n0;
	}
	return rc;
}

int smp_plan_add_config(smp_plan *p, smp_doc *doc, const char *label, smp_error *err)
{
	if (!p) {
		smp_doc_free(doc);
		return smp__err(err, SMP_EINVAL, "smp_plan_add_config: no plan");
	}
	return add_doc(p, &p->cfg, &p->ncfg, &p->cfgcap, doc, label, true, err);
}

int smp_plan_add_live(smp_plan *p, smp_doc *doc, const char *label, smp_error *err)
{
	size_t n0;
	int rc;

	if (!p) {
		smp_doc_free(doc);
		return smp__err(err, SMP_EINVAL, "smp_plan_add_live: no plan");
	}
	n0 = p->nlive;
	if ((rc = add_doc(p, &p->live, &p->nlive, &p->livecap, doc, label, false, err)))
		return rc;
	for (size_t i = n0; i < p->nlive; i++)
		if ((rc = smp_scopes_learn(p->scopes, p->live[i].v, err)))
			return rc;
	return 0;
}

bool smp__plan_grow_files(smp_plan *p)
{
	return smp_grow((void **)&p->lfds, &p->lfcap, p->nlfds, sizeof(*p->lfds), 16);
}

int smp__plan_commit_live(smp_plan *p, const plan_obj *objs, size_t n, smp_doc *skel,
                          char *label, smp_error *err)
{
	size_t n0 = p->nlive;
	int rc;

	if (!smp_grow((void **)&p->docs, &p->dcap, p->ndocs, sizeof(*p->docs), 16) ||
	    !smp_grow((void **)&p->labels, &p->lcap, p->nlabels, sizeof(*p->labels), 16))
		return oom(err);
	while (p->livecap < n0 + n)
		if (!smp_grow((void **)&p->live, &p->livecap, p->livecap, sizeof(*p->live), 16))
			return oom(err);
	for (size_t i = 0; i < n; i++)
		if ((rc = smp_scopes_learn(p->scopes, objs[i].v, err)))
			return rc;
	p->docs[p->ndocs++] = skel;
	p->labels[p->nlabels++] = label;
	if (n)
		memcpy(p->live + n0, objs, n * sizeof(*objs));
	p->nlive += n;
	return 0;
}

int smp_plan_add_error(smp_plan *p, const smp_error *input_error)
{
	smp_error *copy;

	if (!p || !input_error || p->started)
		return SMP_EINVAL;
	if (!smp_grow((void **)&p->cfg, &p->cfgcap, p->ncfg, sizeof(*p->cfg), 16) ||
	    !(copy = malloc(sizeof(*copy))))
		return SMP_ENOMEM;
	*copy = *input_error;
	if (!copy->code)
		copy->code = SMP_EINVALOBJ;
	memset(&p->cfg[p->ncfg], 0, sizeof(p->cfg[p->ncfg]));
	p->cfg[p->ncfg].v = NULL;
	p->cfg[p->ncfg].label = "";
	p->cfg[p->ncfg].err = copy;
	p->ncfg++;
	return 0;
}

size_t smp_plan_count(const smp_plan *p)
{
	return p ? p->nentries : 0;
}

size_t smp_plan_config_count(const smp_plan *p)
{
	return p ? p->ncfg : 0;
}

const smp_plan_entry *smp_plan_entry_at(const smp_plan *p, size_t i)
{
	return p && i < p->nentries ? &p->entries[i] : NULL;
}
