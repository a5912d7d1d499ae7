/*
 * plan_loop.c - deciding a plan's entries: the loop over the
 * configurations in order (each one meeting the live object as earlier
 * configurations left it), prune after them, and the entries handed on
 * (smp_plan_compute keeps them, smp_plan_run hands each to its callback).
 */
#include "plan_int.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name a warning gives kind of obj: "Kind.group" or "Kind". */
static void scope_name(char *name, size_t size, const smp_value *obj)
{
	const char *av = smpv_map_str(obj, "apiVersion"), *kind = smpv_map_str(obj, "kind");
	size_t gl = smp__plan_group_len(av);

	if (gl)
		snprintf(name, size, "%.250s.%.*s", kind, (int)(gl & 255), av);
	else
		snprintf(name, size, "%.250s", kind);
}

/* Whether obj is the first configuration of a kind whose scope nothing
 * tells (no schema, no declaration, no live object of it): its entry warns
 * once for the kind (*warns). Before the loop, in order. SMP_ENOMEM. */
static int scope_warns(smp_plan *p, const smp_value *obj, bool *warns)
{
	char name[512];

	*warns = false;
	if (!smpv_map_str(obj, "kind") || smp_apply_kind_scope(obj, &p->ao) >= 0)
		return 0;
	scope_name(name, sizeof(name), obj);
	for (size_t i = 0; i < p->nwarned; i++)
		if (strcmp(p->warned[i], name) == 0)
			return 0;
	if (!smp_grow((void **)&p->warned, &p->wcap, p->nwarned, sizeof(*p->warned), 16) ||
	    !(p->warned[p->nwarned] = strdup(name)))
		return SMP_ENOMEM;
	p->nwarned++;
	*warns = true;
	return 0;
}

/* The warning scope_warns decided on. */
static int warn_scope(smp_plan_entry *e, const smp_value *obj)
{
	char name[512], line[1400];

	scope_name(name, sizeof(name), obj);
	snprintf(line, sizeof(line), "Warning: the scope of kind %s is unknown (no schema and no "
	         "live object of it): it is taken as namespaced; if it is cluster-scoped, "
	         "declare it cluster-scoped", name);
	return smp__plan_warn(e, line, strlen(line));
}

/* ------------------------------------------------------------ the loop */

/* The state of the loop over the configurations. Per configuration i
 * (prepare fills them before the loop, in order): */
typedef struct plan_loop {
	plan_index live_ix, cfg_ix;
	bool *keeps;              /* the label selector keeps it (and it has no
	                             input error) */
	bool *warns;              /* its entry warns about its kind's scope */
	ptrdiff_t *group;         /* the first configuration of its object, -1 */
	ptrdiff_t *prev;          /* the kept configuration of its object before
	                             it, -1: its result is what i meets */
	size_t kept;              /* configurations the label selector kept, and
	                             failed inputs */
	/* per group (first configuration of an object): */
	const smp_value **current; /* the object as the last one left it */
	size_t *remaining;        /* kept configurations not yet decided */
	smp_plan_entry **held;    /* run: the entry `current` points into */
	/* filled while deciding: */
	bool *used;               /* per live object: some configuration named it */
	const char **nss;         /* per configuration: its namespace, when
	                             applied with prune on */
} plan_loop;

static void loop_release(plan_loop *l, size_t ncfg)
{
	free(l->live_ix.slots);
	free(l->live_ix.hashes);
	free(l->cfg_ix.slots);
	free(l->cfg_ix.hashes);
	free(l->keeps);
	free(l->warns);
	free(l->group);
	free(l->prev);
	free(l->current);
	free(l->remaining);
	for (size_t i = 0; l->held && i < ncfg; i++)
		if (l->held[i]) {
			smp__plan_entry_release(l->held[i]);
			free(l->held[i]);
		}
	free(l->held);
	free(l->used);
	free(l->nss);
}

/* Before the loop, in kubectl's order: which configurations the label
 * selector keeps, which entries warn about a kind's scope (the first of
 * each kind), and each object's configurations chained. SMP_ENOMEM. */
static int prepare(smp_plan *p, plan_loop *l)
{
	ptrdiff_t *last = calloc(p->ncfg, sizeof(*last)); /* per group: its last + 1 */
	int rc = 0;

	if (!last)
		return SMP_ENOMEM;
	for (size_t i = 0; i < p->ncfg && !rc; i++) {
		const plan_obj *c = &p->cfg[i];
		ptrdiff_t fi;

		l->group[i] = l->prev[i] = -1;
		if (!c->v || c->err) {
			l->kept++; /* reported: it counts as passed */
			continue;
		}
		if (p->o.selector &&
		    !smp_selector_matches(p->o.selector, smp_value_at(c->v, "metadata.labels")))
			continue;
		l->keeps[i] = true;
		l->kept++;
		if (p->o.mode == SMP_PLAN_CLIENT_SIDE && (rc = scope_warns(p, c->v, &l->warns[i])))
			break;
		fi = smp__plan_index_find(&l->cfg_ix, p->cfg, c->v, &p->ao);
		l->group[i] = fi;
		if (fi >= 0) {
			l->remaining[fi]++;
			l->prev[i] = last[fi] - 1;
			last[fi] = (ptrdiff_t)i + 1;
		}
	}
	free(last);
	return rc;
}

/* What deciding configuration i gave. */
typedef struct decided {
	smp_plan_entry e;
	int rc;        /* 0: e to hand on; 1: nothing (left out); SMP_ENOMEM */
	bool hold;     /* run: a later configuration of the object reads e's
	                  result (l->current) */
	ptrdiff_t fi;  /* its group, or -1 */
} decided;

/* Decides configuration i into *d, with the calling thread's server-side
 * apply cache (NULL: none). Touches only what is i's own and its group's
 * (l->current, l->remaining), and l->used[] of its live object, so
 * configurations of other objects may be decided at the same time. */
static void decide_one(smp_plan *p, plan_loop *l, size_t i, decided *d, smp_ssa_cache *cache)
{
	const plan_obj *c = &p->cfg[i];
	smp_plan_entry *e = &d->e;
	smp_error lerr;
	plan_step st;
	ptrdiff_t li, fi = l->group[i];
	bool early;
	int rc;

	memset(d, 0, sizeof(*d));
	d->fi = -1;
	e->plan = p;
	e->ssa_cache = cache;
	e->label = c->label;
	e->config = c->v;
	if (!c->v || c->err) {
		/* kubectl could not read or decode it; the others still go */
		smp__plan_ref(e, c->v, c->v ? smp_apply_namespace(c->v, &p->ao) : NULL);
		d->rc = smp__plan_fail(e, c->err, c->v, !c->v);
		return;
	}
	if (!l->keeps[i]) {
		d->rc = 1;
		return;
	}
	if (l->warns[i] && (d->rc = warn_scope(e, c->v)))
		return;
	li = smp__plan_index_find(&l->live_ix, p->live, c->v, &p->ao);
	if (li >= 0)
		l->used[li] = true;
	st.c = c;
	st.live = NULL;
	if (fi >= 0)
		l->remaining[fi]--;
	if (fi >= 0 && l->current[fi]) {
		st.live = l->current[fi];
	} else if (li >= 0 && (rc = smp__plan_live_load(p, &p->live[li], &e->live_doc, &st.live,
	                                                &lerr))) {
		/* the live file changed under the plan: this object fails */
		if (rc == SMP_ENOMEM || smp__plan_fail(e, &lerr, c->v, false)) {
			d->rc = SMP_ENOMEM;
			return;
		}
		smp__plan_ref(e, c->v, smp_apply_namespace(c->v, &p->ao));
		return;
	}
	rc = p->o.mode == SMP_PLAN_CLIENT_SIDE ? smp__plan_client_side(e, p, &st)
	                                       : smp__plan_server_side(e, p, &st);
	early = !rc && e->object && smp__plan_check_early(e, p);
	if (early)
		rc = smp__plan_check(e, p);
	if (!rc && p->o.stored && e->object)
		rc = smp__plan_stored(e, p);
	if (!rc && !early && e->object)
		rc = smp__plan_check(e, p);
	if (!rc && e->object)
		rc = smp__plan_ignore(e, p);
	if ((d->rc = rc) || e->action == SMP_ACTION_ERROR || e->action == SMP_ACTION_CONFLICT)
		return; /* rc 1: left out by the field selector */
	/* Later configurations of the same object see this result, as kubectl
	 * applies them one after the other. */
	if (fi >= 0) {
		l->current[fi] = e->object;
		d->fi = fi;
		d->hold = l->remaining[fi] > 0;
	}
	if (p->o.prune)
		l->nss[i] = smp_apply_namespace(c->v, &p->ao);
}

/* decide_one, the cache the thread's again afterwards. */
static void decide(smp_plan *p, plan_loop *l, size_t i, decided *d, smp_ssa_cache *cache)
{
	decide_one(p, l, i, d, cache);
	d->e.ssa_cache = NULL;
}

/* Hands the entry of a decided configuration on, in kubectl's order; in a
 * run, keeps it while later configurations of its object read its result.
 * 0 or SMP_ENOMEM. */
static int hand_on(smp_plan *p, plan_loop *l, plan_sink *sink, decided *d)
{
	smp_plan_entry *prev;
	int rc;

	if (d->rc) {
		smp__plan_entry_release(&d->e);
		return d->rc == 1 ? 0 : d->rc;
	}
	if (d->fi < 0 || !sink->fn)
		return smp__plan_emit(p, sink, &d->e, false);
	prev = l->held[d->fi];
	l->held[d->fi] = NULL;
	if (d->hold) {
		/* the result outlives the callback until the next configuration
		 * of the object replaces it */
		if (!(l->held[d->fi] = malloc(sizeof(*l->held[d->fi])))) {
			rc = SMP_ENOMEM;
			smp__plan_entry_release(&d->e);
		} else {
			rc = smp__plan_emit(p, sink, &d->e, true);
			*l->held[d->fi] = d->e;
		}
	} else {
		rc = smp__plan_emit(p, sink, &d->e, false);
	}
	if (prev) { /* nothing later reads the one before */
		smp__plan_entry_release(prev);
		free(prev);
	}
	return rc;
}

/* ------------------------------------------------------------ threads */

/* Configurations decided by several threads (the caller's and jobs - 1
 * more) and handed on by the caller's in order: configuration i is decided
 * into slot[i % window] once every configuration before i - window was
 * handed on, and after the configuration of its object before it (prev). */
typedef struct plan_par {
	smp_plan *p;
	plan_loop *l;
	pthread_mutex_t mu;
	pthread_cond_t cv;  /* a configuration decided, handed on, or stop */
	decided *slot;
	bool *done;         /* per configuration: decided */
	size_t window, next, handed;
	bool stop;
} plan_par;

/* Takes the next configuration and decides it: false when there is none
 * to take now (all taken, stop, or it must wait; `wait`: then wait for
 * one, unless all are taken or stop). */
static bool take_one(plan_par *w, bool wait, smp_ssa_cache *cache)
{
	const size_t n = w->p->ncfg;
	size_t i;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		if (w->stop || w->next >= n) {
			pthread_mutex_unlock(&w->mu);
			return false;
		}
		i = w->next;
		if (i < w->handed + w->window && (w->l->prev[i] < 0 || w->done[w->l->prev[i]]))
			break;
		if (!wait) {
			pthread_mutex_unlock(&w->mu);
			return false;
		}
		pthread_cond_wait(&w->cv, &w->mu);
	}
	w->next++;
	pthread_mutex_unlock(&w->mu);
	decide(w->p, w->l, i, &w->slot[i % w->window], cache);
	pthread_mutex_lock(&w->mu);
	w->done[i] = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return true;
}

static void *par_worker(void *arg)
{
	/* the thread's own (NULL when out of memory: the calls go without) */
	smp_ssa_cache *cache = smp_ssa_cache_new();

	while (take_one(arg, true, cache))
		;
	smp_ssa_cache_free(cache);
	return NULL;
}

/* The configurations on `jobs` threads; the caller's hands every entry on
 * in order, and decides too when the next entry is not ready. */
static int decide_parallel(smp_plan *p, plan_loop *l, plan_sink *sink, unsigned jobs)
{
	plan_par w;
	pthread_t tid[63];
	smp_ssa_cache *cache;
	size_t nt = 0;
	int rc = 0;

	memset(&w, 0, sizeof(w));
	w.p = p;
	w.l = l;
	w.window = (size_t)jobs * 32;
	if (!(w.slot = calloc(w.window, sizeof(*w.slot))) ||
	    !(w.done = calloc(p->ncfg, sizeof(*w.done)))) {
		free(w.slot);
		return SMP_ENOMEM;
	}
	cache = smp_ssa_cache_new(); /* the caller's thread's; NULL: none */
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	while (nt + 1 < jobs && nt < 63 && pthread_create(&tid[nt], NULL, par_worker, &w) == 0)
		nt++;
	for (size_t i = 0; i < p->ncfg && !rc && !sink->stop; i++) {
		pthread_mutex_lock(&w.mu);
		while (!w.done[i]) {
			pthread_mutex_unlock(&w.mu);
			if (!take_one(&w, false, cache)) {
				pthread_mutex_lock(&w.mu);
				if (!w.done[i])
					pthread_cond_wait(&w.cv, &w.mu);
				continue;
			}
			pthread_mutex_lock(&w.mu);
		}
		pthread_mutex_unlock(&w.mu);
		rc = hand_on(p, l, sink, &w.slot[i % w.window]);
		pthread_mutex_lock(&w.mu);
		w.handed = i + 1;
		w.stop = rc || sink->stop;
		pthread_cond_broadcast(&w.cv);
		pthread_mutex_unlock(&w.mu);
	}
	pthread_mutex_lock(&w.mu);
	w.stop = true;
	pthread_cond_broadcast(&w.cv);
	pthread_mutex_unlock(&w.mu);
	for (size_t t = 0; t < nt; t++)
		pthread_join(tid[t], NULL);
	for (size_t i = w.handed; i < w.next; i++) /* decided after a stop */
		smp__plan_entry_release(&w.slot[i % w.window].e);
	pthread_cond_destroy(&w.cv);
	pthread_mutex_destroy(&w.mu);
	smp_ssa_cache_free(cache);
	free(w.slot);
	free(w.done);
	return rc;
}

/* Plans with fewer configurations than this are decided on the caller's
 * thread alone: starting threads would cost more. */
#define PAR_MIN_CONFIGS 64

/* Every configuration decided and handed on, in order. 0 or SMP_ENOMEM. */
static int decide_all(smp_plan *p, plan_loop *l, plan_sink *sink)
{
	smp_ssa_cache *cache;
	decided d;
	int rc = 0;

	if (p->o.jobs > 1 && p->ncfg >= PAR_MIN_CONFIGS)
		return decide_parallel(p, l, sink, p->o.jobs > 64 ? 64 : p->o.jobs);
	cache = smp_ssa_cache_new(); /* NULL: the calls go without */
	for (size_t i = 0; i < p->ncfg && !rc && !sink->stop; i++) {
		decide(p, l, i, &d, cache);
		rc = hand_on(p, l, sink, &d);
	}
	smp_ssa_cache_free(cache);
	return rc;
}

/* The command in kubectl's "no objects passed to ..." */
static const char *mode_verb(const smp_plan *p)
{
	return p->o.mode == SMP_PLAN_REPLACE ? "replace"
	       : p->o.mode == SMP_PLAN_CREATE ? "create" : "apply";
}

/* compute and run: every entry, in kubectl's order, into the sink. */
static int plan_all(smp_plan *p, plan_sink *sink, smp_error *err)
{
	plan_loop l;
	int rc = 0;

	if (!p)
		return smp__err(err, SMP_EINVAL, "no plan");
	if (p->started)
		return smp__err(err, SMP_EINVAL, "the plan is already computed");
	p->started = true;
	if (p->ncfg == 0)
		return smp__err(err, SMP_EINVALOBJ, "no objects passed to %s",
		                mode_verb(p));
	memset(&l, 0, sizeof(l));
	if (smp__plan_index_build(&l.live_ix, p->live, p->nlive, &p->ao) ||
	    smp__plan_index_build(&l.cfg_ix, p->cfg, p->ncfg, &p->ao) ||
	    !(l.keeps = calloc(p->ncfg, sizeof(*l.keeps))) ||
	    !(l.warns = calloc(p->ncfg, sizeof(*l.warns))) ||
	    !(l.group = calloc(p->ncfg, sizeof(*l.group))) ||
	    !(l.prev = calloc(p->ncfg, sizeof(*l.prev))) ||
	    !(l.current = calloc(p->ncfg, sizeof(*l.current))) ||
	    !(l.remaining = calloc(p->ncfg, sizeof(*l.remaining))) ||
	    !(l.held = calloc(p->ncfg, sizeof(*l.held))) ||
	    !(l.used = calloc(p->nlive + 1, sizeof(*l.used))) ||
	    !(l.nss = calloc(p->ncfg, sizeof(*l.nss))) || prepare(p, &l)) {
		loop_release(&l, p->ncfg);
		return smp__err(err, SMP_ENOMEM, "out of memory");
	}
	if (!l.kept) {
		/* kubectl: the selector kept nothing and nothing failed */
		loop_release(&l, p->ncfg);
		return smp__err(err, SMP_EINVALOBJ, "no objects passed to %s",
		                mode_verb(p));
	}
	if (p->as && (rc = smp__applyset_begin(p, &l.live_ix, sink, err))) {
		loop_release(&l, p->ncfg);
		return rc;
	}
	if (!sink->stop)
		rc = decide_all(p, &l, sink);
	/* kubectl prunes (and updates the ApplySet) only when every object
	 * went through */
	if (!rc && !sink->stop && p->o.prune && !sink->failed) {
		if (p->as) {
			rc = smp__applyset_end(p, l.used, sink, err);
			loop_release(&l, p->ncfg);
			return rc ? rc : sink->stop;
		}
		rc = smp__plan_prune_all(p, l.used, l.nss, sink);
	}
	loop_release(&l, p->ncfg);
	if (rc)
		return smp__err(err, SMP_ENOMEM, "out of memory");
	return sink->stop;
}

int smp_plan_compute(smp_plan *p, smp_error *err)
{
	plan_sink sink = {NULL, NULL, 0, 0};

	return plan_all(p, &sink, err);
}

int smp_plan_run(smp_plan *p, smp_plan_fn fn, void *user, smp_error *err)
{
	plan_sink sink = {fn, user, 0, 0};

	if (!fn)
		return smp__err(err, SMP_EINVAL, "smp_plan_run: no callback");
	return plan_all(p, &sink, err);
}
