/*
 * plan_int.h - the insides of an apply plan (smp_plan_*), shared by its
 * files, each calling only the ones before it in this list:
 *   plan_live_read.c  a live object not held, read again from its file
 *   plan_entry.c      what an entry tells and renders, its failures and
 *                     warnings, its release
 *   plan_index.c      the index of objects by group, kind, namespace, name
 *   plan_sink.c       where decided entries go (kept, or to a callback)
 *   pod_warnings.c    the server's warnings about a pod template
 *   plan_ignore.c     the ignore rules of a decided entry
 *   plan_object.c     what each mode decides for one object
 *   plan_prune.c      prune: which live objects go, their entries
 *   applyset.c        kubectl's ApplySet around the loop
 *   plan.c            options and inputs
 *   plan_loop.c       the loop that decides the entries (the runner)
 *   plan_live.c       live files not held (smp_plan_add_live_file)
 *   plan_summary.c    a plan's counts
 */
#ifndef SMP_PLAN_INT_H
#define SMP_PLAN_INT_H

#include "apply_int.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One input object: a configuration or a live object. */
typedef struct plan_obj {
	const smp_value *v;   /* NULL for an input error (configurations only);
	                         from a live file, the object's skeleton */
	const char *label;    /* owned by the plan */
	smp_error *err;       /* owned: kubectl cannot decode it (metadata), or
	                         the input error that stands in its place */
	/* a live object the plan does not hold (plan_live.c): file (1 + its
	 * index in lfds; 0 = held, v is the object) and its bytes there */
	unsigned file;
	uint64_t off;
	size_t len;
} plan_obj;

/* One request kubectl sends. */
typedef struct plan_req {
	const char *method, *content_type, *manager; /* static or the options' */
	bool force;
	const smp_value *body;
} plan_req;

#define PLAN_MAX_REQ 4

struct smp_plan_entry {
	smp_apply_action action;
	const smp_plan *plan;
	const char *label;
	const smp_value *config, *live, *object, *patch, *status;
	/* apiVersion, kind, namespace, name: borrowed, never NULL */
	const char *av, *kind, *ns, *name;
	smp_patch_type patch_type;
	plan_req req[PLAN_MAX_REQ];
	size_t nreq;
	char **warn;
	size_t nwarn;
	smp_error *error;   /* ERROR and CONFLICT entries */
	char *detail;
	/* what the entry owns */
	smp_apply_result *ares;  /* client-side */
	smp_ssa_result *sres;    /* server-side and replace */
	/* the deciding thread's server-side apply cache (NULL: none), while
	 * the entry is decided: borrowed, not the entry's */
	smp_ssa_cache *ssa_cache;
	smp_doc *sent, *status_doc, *extra;
	smp_doc *steps[2];   /* server-side migration: the bodies of its requests */
	/* with the stored form: the live object and the result as stored */
	const smp_value *live_stored;
	smp_doc *live_stored_doc, *object_stored_doc;
	smp_doc *delete_doc;  /* prune: DeleteOptions with preconditions */
	smp_doc *live_doc;    /* the live object read again from its file */
	/* with ignore rules: both sides without the ignored fields */
	const smp_value *live_cmp, *object_cmp;
	smp_doc *live_cmp_doc, *object_cmp_doc;
	bool ignoring;
	bool applyset_parent; /* the ApplySet's parent (applyset.c) */
};

/* The ApplySet of a plan with the applyset option (applyset.c). */
typedef struct plan_applyset plan_applyset;

/* What kubectl writes as the ApplySet's tooling by default. */
#define SMP_APPLYSET_TOOLING "kubectl/v1.32.0"

struct smp_plan {
	smp_plan_options o;
	smp_apply_options ao;  /* what the per-object calls get */
	smp_ssa_options so;
	smp_scopes *scopes;
	char **allow_group, **allow_kind; /* parsed prune_allowlist */
	size_t nallow;
	/* inputs */
	smp_doc **docs;
	size_t ndocs, dcap;
	char **labels;
	size_t nlabels, lcap;
	plan_obj *cfg, *live;
	size_t ncfg, cfgcap, nlive, livecap;
	bool started;
	/* the live files read again as entries need their objects */
	int *lfds;
	size_t nlfds, lfcap;
	/* kinds already warned about (unknown scope) */
	char **warned;
	size_t nwarned, wcap;
	plan_applyset *as;     /* with the applyset option */
	/* smp_plan_compute's entries */
	smp_plan_entry *entries;
	size_t nentries, ecap;
};

/* Where the entries go: kept in the plan (compute) or handed to a
 * callback and freed (run). */
typedef struct plan_sink {
	smp_plan_fn fn;
	void *user;
	int stop;        /* the callback's non-zero value */
	size_t failed;   /* ERROR and CONFLICT entries handed on */
} plan_sink;

/* Hands the decided entry *e over: appended to the plan's entries
 * (compute), or given to the callback and then released unless `keep`
 * (run: its result is still needed, and the caller keeps *e aside).
 * 0 or SMP_ENOMEM (then *e is released). */
int smp__plan_emit(smp_plan *p, plan_sink *sink, smp_plan_entry *e, bool keep);

/* The PRUNE entry of live object i (an ERROR entry when its file changed
 * under the plan), handed on. 0 or SMP_ENOMEM (plan_prune.c). */
int smp__plan_prune_one(smp_plan *p, size_t i, plan_sink *sink);

/* Prune entries after the configurations, handed on: live objects with
 * the last-applied annotation that no configuration named (used[i]
 * false), of a prunable kind, selected, in a namespace the applied
 * configurations use (nss[0..ncfg): each applied configuration's, NULL
 * for the others; sorted in place), cluster-scoped ones always. 0 or
 * SMP_ENOMEM. */
int smp__plan_prune_all(smp_plan *p, const bool *used, const char **nss, plan_sink *sink);

/* What the loop hands to the per-mode decision for one configuration. */
typedef struct plan_step {
	const plan_obj *c;
	const smp_value *live;      /* the object as it is now (NULL: none) */
} plan_step;

/* The length of apiVersion's group ("apps/v1": 4; "v1": 0). */
static inline size_t smp__plan_group_len(const char *av)
{
	const char *slash = av ? strchr(av, '/') : NULL;
	return slash ? (size_t)(slash - av) : 0;
}

/* Open addressing over objs[] by (API group, kind, namespace, name): slot
 * holds index + 1, 0 is empty; the first object of a key wins. */
typedef struct plan_index {
	size_t *slots;
	uint64_t *hashes; /* the key hash of each slot's object */
	size_t cap;
} plan_index;

/* Builds ix over objs[0..n) (entries without a value left out);
 * SMP_ENOMEM. Free its slots and hashes. */
int smp__plan_index_build(plan_index *ix, const plan_obj *objs, size_t n,
                          const smp_apply_options *ao);

/* Index in objs[] of the first object with obj's key, or -1. */
ptrdiff_t smp__plan_index_find(const plan_index *ix, const plan_obj *objs,
                               const smp_value *obj, const smp_apply_options *ao);

/* Room for one more live file in p->lfds (plan.c); false on ENOMEM. */
bool smp__plan_grow_files(smp_plan *p);

/* Adds the n live objects of a scanned file (plan_live.c: skeletons in
 * `skel`, labelled `label`; both taken over) and learns their scopes.
 * SMP_ENOMEM (then nothing is taken over). */
int smp__plan_commit_live(smp_plan *p, const plan_obj *objs, size_t n, smp_doc *skel,
                          char *label, smp_error *err);

/* The live object o as a whole: o->v when the plan holds it (*doc NULL),
 * else read again from its file into *doc (the caller's). SMP_EIO or
 * SMP_EPARSE when the file changed since, SMP_ENOMEM. */
int smp__plan_live_load(const smp_plan *p, const plan_obj *o, smp_doc **doc,
                        const smp_value **v, smp_error *err);

/* The decision for one configuration in each mode: fills `e` (zeroed by
 * the caller) and returns 0, 1 when the configuration is left out (field
 * selector), or SMP_ENOMEM (the plan cannot go on). A failed object is an
 * ERROR or CONFLICT entry, not an error of the call. */
int smp__plan_client_side(smp_plan_entry *e, smp_plan *p, const plan_step *s);
int smp__plan_server_side(smp_plan_entry *e, smp_plan *p, const plan_step *s);
/* The plan's server-side apply options with the entry's cache. */
static inline smp_ssa_options smp__plan_ssa_options(const smp_plan_entry *e, const smp_plan *p)
{
	smp_ssa_options so = p->so;

	so.cache = e->ssa_cache;
	return so;
}

/* The configuration's body as kubectl sends it (server-side, replace) and
 * as field selectors read it: a copy with metadata.namespace filled in
 * for namespaced kinds (*out NULL when `cfg` already is that); SMP_EINVALOBJ
 * when it names another namespace than an enforced one. */
int smp__plan_with_namespace(smp_doc **out, const smp_value *cfg,
                             const smp_apply_options *ao, bool enforce, smp_error *err);

/* The plan's stored-form mode for a decided entry: e->object becomes the
 * result's stored form and e->live_stored the live object's; an object the
 * server would refuse there turns the entry into an ERROR with its Status.
 * SMP_ENOMEM. */
int smp__plan_stored(smp_plan_entry *e, smp_plan *p);
/* The API server's validation of what the entry sends (plan_check.c): a
 * refusal makes the entry an ERROR with the server's Status. 0 or
 * SMP_ENOMEM. */
int smp__plan_check(smp_plan_entry *e, smp_plan *p);
/* Whether the entry's object is checked before its stored form is made
 * (smp__plan_check then makes the form it validates): a custom resource
 * whose CRD stores another version, validated in its own. */
bool smp__plan_check_early(const smp_plan_entry *e, const smp_plan *p);

/* The plan's ignore rules for a decided entry (plan_ignore.c): both sides
 * of its comparison without the ignored fields, and a CONFIGURE that
 * changes nothing else UNCHANGED. SMP_ENOMEM. */
int smp__plan_ignore(smp_plan_entry *e, smp_plan *p);

/* The API server's warnings about items a pod template repeats (env vars
 * hiding earlier ones, ports defined twice: pod_warnings.c) on the entry;
 * the repetitions they name go to `hidden` as "<list>\n<key>\n" lines,
 * so that the plan's own warning about them is left out. SMP_ENOMEM. */
int smp__pod_warnings(smp_plan_entry *e, const smp_value *obj, smp_buf *hidden);

/* Checks an ignore_fields rule; SMP_EINVAL naming it. */
int smp__ignore_check(const char *rule, smp_error *err);

/* Fills e->error from err: the object's reference in front of the
 * message (unless `bare`), the configuration's label, line and column
 * where err names no file; and, unless the entry has one, the Status the
 * server answers (smp_status_from_error). SMP_ENOMEM. */
int smp__plan_fail(smp_plan_entry *e, const smp_error *err, const smp_value *obj, bool bare);

/* Appends a warning line to the entry (copied). SMP_ENOMEM. */
int smp__plan_warn(smp_plan_entry *e, const char *line, size_t n);

/* Sets e->av/kind/ns/name from obj (namespace: metadata.namespace, else
 * `ns`). */
void smp__plan_ref(smp_plan_entry *e, const smp_value *obj, const char *ns);

/* Frees what an entry owns and zeroes it. */
void smp__plan_entry_release(smp_plan_entry *e);

/* ApplySet (applyset.c). check: the options' consistency (SMP_EINVAL);
 * new: the state of a plan with the applyset option (SMP_ENOMEM);
 * begin: before the configurations, the parent resolved and checked,
 * the part-of label set on every configuration, the parent's first apply
 * handed on; end: after them when none failed, the members to prune and
 * the parent's last apply. begin and end return 0, SMP_ENOMEM, or the
 * error kubectl stops with (err set). */
int smp__applyset_check(const smp_plan_options *o, smp_error *err);
int smp__applyset_new(plan_applyset **out, const smp_plan_options *o, smp_error *err);
void smp__applyset_free(plan_applyset *as);
int smp__applyset_begin(smp_plan *p, const plan_index *live_ix, plan_sink *sink,
                        smp_error *err);
int smp__applyset_end(smp_plan *p, const bool *used, plan_sink *sink, smp_error *err);

/* The unified diff of two texts appended to `out` (udiff.c). */
int smp__text_diff(smp_buf *out, const char *lname, const char *a, size_t alen,
                   const char *rname, const char *b, size_t blen, bool color);

#endif
