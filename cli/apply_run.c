/*
 * apply_run.c - the one runner of `smpatch apply` (client-side and
 * server-side) and `smpatch replace`: reads the files, fills a plan
 * (smp_plan_*), and prints its entries as kubectl does. Failed objects are
 * reported on standard error as they are decided; status lines and the -o
 * output are written at the end, so a failure of the output itself leaves
 * nothing half-written.
 */
#include "apply_cli.h"
#include "apply_util.h"
#include "diff_dirs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int oom(void)
{
	fprintf(stderr, "smpatch: error: out of memory\n");
	return CLI_INTERNAL;
}

/* ------------------------------------------------------------ inputs */

/* Documents read from one -f or --live argument, in order: docs[i] the
 * file names[i], or NULL with errs[i] saying why it could not be read. */
typedef struct input_docs {
	smp_doc **docs;
	smp_error *errs;
	char **names;
	size_t n;
	int rc;          /* listing the files failed (err), or out of memory */
	smp_error err;
} input_docs;

static void input_docs_release(input_docs *in)
{
	for (size_t i = 0; i < in->n; i++)
		smp_doc_free(in->docs[i]);
	free(in->docs);
	free(in->errs);
	cli_free_files(in->names, in->n);
	memset(in, 0, sizeof(*in));
}

/* Lists the files `path` names (cli_list_files) into in, with room for
 * their documents; they are parsed by parse_some. */
static void list_path(input_docs *in, const char *path, bool recursive)
{
	memset(in, 0, sizeof(*in));
	if ((in->rc = cli_list_files(&in->names, &in->n, path, recursive, &in->err)))
		return;
	if (!(in->docs = calloc(in->n + 1, sizeof(*in->docs))) ||
	    !(in->errs = calloc(in->n + 1, sizeof(*in->errs)))) {
		in->err.code = in->rc = SMP_ENOMEM;
		snprintf(in->err.message, sizeof(in->err.message), "out of memory");
	}
}

/* The configuration files of every -f argument, parsed by whichever thread
 * takes each next (file k of them all: in[i] from starts[i] on). */
typedef struct parse_work {
	input_docs *in;
	size_t nin, total;
	size_t *starts;
	atomic_size_t next;
} parse_work;

/* Parses files of w until none is left; a file that fails does not stop
 * the others. */
static void parse_some(parse_work *w)
{
	size_t k, i = 0;

	while ((k = atomic_fetch_add(&w->next, 1)) < w->total) {
		while (i + 1 < w->nin && w->starts[i + 1] <= k)
			i++; /* k only grows for one thread */
		input_docs *in = &w->in[i];
		size_t j = k - w->starts[i];

		cli_parse_file(&in->docs[j], in->names[j], &in->errs[j]);
	}
}

/* Whether a configuration file that failed leaves the others to go on, as
 * kubectl reports a file it cannot decode and applies the rest: bad YAML
 * or JSON, or a document that is no object. A file that cannot be read is
 * the end, as kubectl checks the paths before anything. */
static bool goes_on(int code)
{
	return code == SMP_EPARSE || code == SMP_ELIMIT || code == SMP_EINVALOBJ;
}

/* Hands the documents of `in` to the plan (which takes them over): the
 * live objects, or the configurations, with the files that failed in
 * their places. CLI_OK, or the exit code after the error that ends it. */
static int add_docs(smp_plan *plan, input_docs *in, bool live)
{
	int code = CLI_OK;

	if (in->rc)
		return cli_fail(&in->err);
	for (size_t i = 0; i < in->n && code == CLI_OK; i++) {
		smp_doc *d = in->docs[i];
		smp_error err = in->errs[i];
		int rc = err.code;

		in->docs[i] = NULL;
		if (!rc)
			rc = live ? smp_plan_add_live(plan, d, in->names[i], &err)
			          : smp_plan_add_config(plan, d, in->names[i], &err);
		if (rc && !live && goes_on(rc))
			rc = smp_plan_add_error(plan, &err) ? SMP_ENOMEM : 0;
		if (rc)
			code = cli_fail(&err);
	}
	return code;
}

/* The live objects, read into the plan by one thread while the others
 * parse the configurations (which reach the plan after it); that thread
 * then parses configurations too. */
typedef struct live_job {
	smp_plan *plan;
	const char *path;
	int rc;
	smp_error err;
	parse_work *work;
} live_job;

/* Adds each file `path` names with smp_plan_add_live_file (a JSON List is
 * indexed without being held), then helps with the configurations. */
static void *read_live(void *arg)
{
	live_job *j = arg;
	char **names;
	size_t n;

	if (j->path && !(j->rc = cli_list_files(&names, &n, j->path, false, &j->err))) {
		for (size_t i = 0; i < n && !j->rc; i++)
			j->rc = smp_plan_add_live_file(j->plan, names[i], &j->err);
		cli_free_files(names, n);
	}
	if (j->work)
		parse_some(j->work);
	return NULL;
}

static void *parse_worker(void *arg)
{
	parse_some(arg);
	return NULL;
}

/* Reads every -f and --live file into the plan: the configurations as
 * kubectl decodes them, with --jobs threads (one of them reads the live
 * objects first). */
static int read_inputs(smp_plan *plan, const apply_cli_args *a)
{
	live_job lj;
	parse_work w;
	pthread_t tid[64];
	size_t nthreads = 0, nlisted = 0;
	int code = CLI_OK;

	memset(&lj, 0, sizeof(lj));
	memset(&w, 0, sizeof(w));
	if (!(w.in = calloc(a->nfiles + 1, sizeof(*w.in))) ||
	    !(w.starts = calloc(a->nfiles + 1, sizeof(*w.starts)))) {
		free(w.in);
		return oom();
	}
	while (nlisted < a->nfiles) {
		list_path(&w.in[nlisted], a->files[nlisted], a->recursive);
		w.starts[nlisted] = w.total;
		w.total += w.in[nlisted].rc ? 0 : w.in[nlisted].n;
		if (w.in[nlisted++].rc)
			break; /* kubectl checks the paths before anything */
	}
	w.nin = nlisted;
	atomic_init(&w.next, 0);
	lj.plan = plan;
	lj.path = a->live_path;
	lj.work = &w;
	/* the plan is the live thread's until it ends: the configurations
	 * wait in w.in */
	if (a->jobs > 1 && pthread_create(&tid[nthreads], NULL, read_live, &lj) == 0)
		nthreads++;
	while (nthreads > 0 && nthreads + 1 < a->jobs && nthreads < 64 &&
	       pthread_create(&tid[nthreads], NULL, parse_worker, &w) == 0)
		nthreads++;
	parse_some(&w);
	for (size_t i = 0; i < nthreads; i++)
		pthread_join(tid[i], NULL);
	if (!nthreads) /* one job: the live objects after the configurations */
		read_live(&lj);
	for (size_t i = 0; i < nlisted; i++) {
		if (code == CLI_OK)
			code = add_docs(plan, &w.in[i], false);
		input_docs_release(&w.in[i]);
	}
	free(w.in);
	free(w.starts);
	if (code == CLI_OK && a->live_path && lj.rc)
		code = cli_fail(&lj.err);
	return code;
}

/* ------------------------------------------------------------ the plan */

/* $SMPATCH_NOW, checked (the library reads the rest of RFC 3339): NULL
 * (the wall clock) when unset. */
static int now_from_env(const char **now)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	const char *s = getenv("SMPATCH_NOW");
	size_t i;

	*now = NULL;
	if (!s || !*s)
		return CLI_OK;
	for (i = 0; shape[i] && s[i]; i++)
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i])
			break;
	if (shape[i] || (s[i] != 'Z' && s[i] != '+' && s[i] != '-' && s[i] != '.')) {
		fprintf(stderr, "smpatch: error: SMPATCH_NOW: \"%s\" is not an RFC 3339 time "
		        "(2024-01-01T00:00:00Z)\n", s);
		return CLI_USAGE;
	}
	*now = s;
	return CLI_OK;
}

/* What the plan references: freed after it. */
typedef struct plan_refs {
	smp_selector *lsel, *fsel;
	smp_schema *schema;
} plan_refs;

/* The plan of the command line: selectors, schemas and options. */
static int make_plan(smp_plan **plan, plan_refs *r, const apply_cli_args *a)
{
	smp_plan_options o = SMP_PLAN_OPTIONS_INIT;
	smp_error err;
	int code;

	o.mode = a->mode;
	if ((code = now_from_env(&o.now)) != CLI_OK)
		return code;
	if (a->selector && smp_selector_parse(&r->lsel, a->selector, &err))
		return cli_selector_error(a->cmd, "-l", a->selector, &err);
	if (a->field_sel && smp_field_selector_parse(&r->fsel, a->field_sel, &err))
		return cli_selector_error("apply", "--field-selector", a->field_sel, &err);
	if (cli_load_schemas(&r->schema, a->openapi, a->schemas, a->nschemas, &err))
		return cli_fail(&err);
	o.field_manager = a->manager;
	o.force_conflicts = a->force;
	o.schema = r->schema;
	o.default_namespace = a->ns;
	o.enforce_namespace = a->ns != NULL;
	o.overwrite = a->overwrite;
	o.selector = r->lsel;
	o.field_selector = r->fsel;
	o.prune = a->prune;
	o.prune_all = a->all;
	o.prune_allowlist = a->allow;
	o.prune_allowlist_len = a->nallow;
	o.cluster_scoped = a->scoped;
	o.cluster_scoped_len = a->nscoped;
	/* kubectl diff and --dry-run=server show the server's answers; the
	 * changes (-o changes, and their count in -o patch) are between them;
	 * validate's verdicts need only the refusals (cmd_validate.c) */
	o.stored = !a->verdict && (a->server_dry_run || a->fmt == APPLY_OUT_DIFF ||
	                           a->fmt == APPLY_OUT_PATCH || a->fmt == APPLY_OUT_CHANGES);
	o.propagation = a->cascade;
	o.validate = a->validate;
	o.ignore_fields = a->ignore_fields;
	o.ignore_fields_len = a->nignore_fields;
	o.ignore_managers = a->ignore_managers;
	o.ignore_managers_len = a->nignore_managers;
	o.grace_period_seconds = a->grace_period;
	o.jobs = a->jobs;
	o.csa_managers = a->csa_managers;
	o.csa_managers_len = a->ncsa_managers;
	o.applyset = a->applyset;
	o.applyset_tooling = a->applyset_tooling;
	if (!smp_plan_new(plan, &o, &err))
		return CLI_OK;
	if (err.code != SMP_EINVAL)
		return cli_fail(&err);
	if (strncmp(err.path, "cluster_scoped", 14) == 0)
		return cli_usage(a->cmd, "--cluster-scoped: %s", err.message);
	if (strncmp(err.path, "ignore_fields", 13) == 0)
		return cli_usage(a->cmd, "--ignore-field: %s", err.message);
	return cli_usage(a->cmd, "%s", err.message);
}

/* ------------------------------------------------------------ output */

/* What the run has printed and keeps for the end. */
typedef struct apply_out {
	const apply_cli_args *a;
	cli_buf out, status;
	/* -o yaml|json in server-side modes: the objects, put together as one
	 * List when there are several, and the Status of each refusal after
	 * them (`pieces`: each object or Status as printed alone, in order) */
	cli_buf items;
	cli_buf pieces;
	size_t nitems, npieces, nout;
	cli_diff_dirs *dirs; /* -o diff with an external diff program */
	/* the progress line (stderr a terminal, a run over a second) */
	bool progress, shown;
	size_t done, total;
	struct timespec start, last;
	int code;      /* the first failure's exit code */
	size_t counts[SMP_PLAN_SUMMARY_COUNT]; /* --summary */
	int fatal;     /* an error that ends the run (after its message) */
	bool differs;
	cli_verdicts verdicts; /* smpatch validate */
} apply_out;

static const char *action_name(smp_apply_action a)
{
	static const char *const names[] = {"create", "configure", "unchanged", "prune",
	                                    "conflict", "error"};

	return (unsigned)a < 6 ? names[a] : "error";
}

/* Appends `"key":<v as compact JSON, keys sorted>`, a comma first. */
static int put_member(cli_buf *b, const char *key, const smp_value *v, smp_error *err)
{
	cli_buf_putc(b, ',');
	cli_json_string(b, key);
	cli_buf_putc(b, ':');
	return cli_buf_value(b, v, SMP_OUT_JSON, true, err);
}

/* The start of an entry's JSON line: what it is about and its action. */
static void put_head(cli_buf *b, const smp_plan_entry *e)
{
	cli_entry_head(b, e);
	cli_buf_puts(b, ",\"action\":");
	cli_json_string(b, action_name(smp_plan_entry_action(e)));
}

/* An entry of several requests (server-side apply migrating an object
 * from client-side apply: kubectl's follow-up requests): all of them, in
 * order, as "requests": [{"method", "patchType", "fieldManager", "force",
 * "patch"}...]; nothing for one request. */
static int put_requests(cli_buf *b, const smp_plan_entry *e, smp_error *err)
{
	size_t n = smp_plan_entry_request_count(e);

	if (n < 2)
		return 0;
	cli_buf_puts(b, ",\"requests\":[");
	for (size_t i = 0; i < n; i++) {
		cli_buf_puts(b, i ? ",{\"method\":" : "{\"method\":");
		cli_json_string(b, smp_plan_request_method(e, i));
		cli_buf_puts(b, ",\"patchType\":");
		cli_json_string(b, smp_plan_request_content_type(e, i));
		cli_buf_puts(b, ",\"fieldManager\":");
		cli_json_string(b, smp_plan_request_field_manager(e, i));
		cli_buf_puts(b, smp_plan_request_force(e, i) ? ",\"force\":true" : ",\"force\":false");
		if (put_member(b, "patch", smp_plan_request_body(e, i), err))
			return err->code;
		cli_buf_puts(b, "}");
	}
	cli_buf_puts(b, "]");
	return 0;
}

/* -o patch: one JSON line, the request kubectl sends, with the number of
 * fields it changes (as -o changes lists them); a prune line carries the
 * DeleteOptions to delete safely, a failed object's the server's Status,
 * an ApplySet parent's its role. */
static int put_patch_line(apply_out *o, const smp_plan_entry *e, size_t nchanges,
                          smp_error *err)
{
	cli_buf *b = &o->out;
	smp_apply_action act = smp_plan_entry_action(e);
	char num[32];

	put_head(b, e);
	if (act == SMP_ACTION_ERROR || act == SMP_ACTION_CONFLICT) {
		if (put_member(b, "status", smp_plan_entry_status(e), err))
			return err->code;
		cli_buf_puts(b, "}\n");
		return 0;
	}
	cli_buf_puts(b, ",\"patchType\":");
	if (act == SMP_ACTION_PRUNE) {
		snprintf(num, sizeof(num), "%zu", nchanges);
		cli_buf_puts(b, "null,\"changes\":");
		cli_buf_puts(b, num);
		if (put_member(b, "deleteOptions", smp_plan_entry_delete_options(e), err))
			return err->code;
		cli_buf_puts(b, ",\"patch\":null}\n");
		return 0;
	}
	if (o->a->mode != SMP_PLAN_CLIENT_SIDE || smp_plan_entry_applyset_parent(e)) {
		cli_json_string(b, smp_plan_request_content_type(e, 0));
		cli_buf_puts(b, ",\"fieldManager\":");
		cli_json_string(b, smp_plan_request_field_manager(e, 0));
		cli_buf_puts(b, smp_plan_request_force(e, 0) ? ",\"force\":true" : ",\"force\":false");
	} else if (act == SMP_ACTION_CREATE) {
		cli_json_string(b, "application/json");
	} else {
		cli_json_string(b, smp_plan_entry_patch_type(e) == SMP_PATCH_MERGE
		                   ? "application/merge-patch+json"
		                   : "application/strategic-merge-patch+json");
	}
	snprintf(num, sizeof(num), ",\"changes\":%zu", nchanges);
	cli_buf_puts(b, num);
	if (smp_plan_entry_applyset_parent(e))
		cli_buf_puts(b, ",\"role\":\"applyset-parent\"");
	if (put_member(b, "patch", smp_plan_entry_patch(e), err) || put_requests(b, e, err))
		return err->code;
	cli_buf_puts(b, "}\n");
	return 0;
}

/* -o changes: one JSON line per changed field; *n their number. With
 * `print` false only counted. */
static int put_changes(apply_out *o, const smp_plan_entry *e, bool print, size_t *n,
                       smp_error *err)
{
	smp_doc *d = NULL;
	const smp_value *list;
	int rc = smp_plan_entry_changes(&d, e, 0, err);

	*n = 0;
	if (rc)
		return rc;
	list = smp_doc_root(d, 0);
	*n = smp_value_len(list);
	for (size_t i = 0; print && i < *n && !rc; i++) {
		const smp_value *c = smp_list_get(list, i);

		put_head(&o->out, e);
		for (size_t k = 0; k < smp_value_len(c) && !rc; k++) {
			const char *key = smp_map_key(c, k, NULL);

			/* "op" names the change; the entry's action says the rest */
			rc = put_member(&o->out, key, smp_map_value(c, k), err);
		}
		cli_buf_puts(&o->out, "}\n");
	}
	smp_doc_free(d);
	return rc;
}

/* The object an entry shows with -o yaml|json: the result, or the live
 * object of a prune; as kubectl prints it (see smp_display_objects). */
static int put_object(cli_buf *b, const smp_plan_entry *e, smp_output fmt, bool managed,
                      smp_error *err)
{
	const smp_value *obj = smp_plan_entry_object(e);
	smp_doc *d = NULL;
	int rc;

	if (!obj)
		obj = smp_plan_entry_live(e);
	rc = smp_display_objects(NULL, &d, NULL, obj, managed ? SMP_DISPLAY_MANAGED_FIELDS : 0,
	                         err);
	if (!rc)
		rc = cli_buf_value(b, smp_doc_root(d, 0), fmt, true, err);
	smp_doc_free(d);
	return rc;
}

/* -o yaml|json: the entry's object (kept for the List), a pruned object
 * (printed alone, after it, as kubectl's prune prints it) or, for a
 * refusal, the server's Status. */
static int keep_piece(apply_out *o, const smp_plan_entry *e, smp_error *err)
{
	smp_output fmt = o->a->fmt == APPLY_OUT_YAML ? SMP_OUT_YAML : SMP_OUT_JSON_INDENT;
	const smp_value *status = smp_plan_entry_status(e);
	bool prune = smp_plan_entry_action(e) == SMP_ACTION_PRUNE;
	int rc;

	if (smp_plan_entry_object(e)) {
		if (o->nitems++)
			cli_buf_putc(&o->items, ',');
		if ((rc = put_object(&o->items, e, SMP_OUT_JSON, o->a->managed, err)))
			return rc;
	} else if (!status && !prune) {
		return 0;
	}
	/* each piece as printed alone, NUL-separated, after a mark: '!' an
	 * object of the List, '-' a pruned one, '?' a Status */
	cli_buf_putc(&o->pieces, status ? '?' : prune ? '-' : '!');
	rc = status ? cli_buf_value(&o->pieces, status, fmt, false, err)
	            : put_object(&o->pieces, e, fmt, o->a->managed, err);
	cli_buf_put(&o->pieces, "", 1);
	o->npieces++;
	return rc;
}

static double seconds_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* One line on stderr, rewritten in place: objects done / total and the
 * rate, once the run has taken a second, at most ten times a second. */
static void progress(apply_out *o)
{
	double all;

	o->done++;
	if (!o->progress || (all = seconds_since(&o->start)) < 1.0 || seconds_since(&o->last) < 0.1)
		return;
	clock_gettime(CLOCK_MONOTONIC, &o->last);
	fprintf(stderr, "\r\033[K%zu/%zu objects, %.0f/s", o->done, o->total, (double)o->done / all);
	fflush(stderr);
	o->shown = true;
}

/* Takes the progress line away before anything else is written there. */
static void progress_clear(apply_out *o)
{
	if (o->shown)
		fputs("\r\033[K", stderr);
	o->shown = false;
}

/* A failed object: reported now, the run goes on. A server-side
 * conflict keeps the server's lines (one per manager and field). */
static void report(apply_out *o, const smp_plan_entry *e)
{
	const char *detail = smp_plan_entry_error_detail(e);
	const smp_error *err = smp_plan_entry_error(e);
	int code;

	progress_clear(o);
	if (o->a->mode != SMP_PLAN_CLIENT_SIDE && smp_plan_entry_action(e) == SMP_ACTION_CONFLICT) {
		fprintf(stderr, "smpatch: %s:%u:%u: error: %s", err->file, err->line, err->column,
		        detail);
		detail = NULL;
		code = cli_exit_code(err->code);
	} else {
		code = cli_fail(err);
	}

	if (detail)
		fputs(detail, stderr);
	if (o->code == CLI_OK)
		o->code = code;
}

/* A warning line; an unknown scope gets the flag that declares it. */
static void put_warning(cli_buf *b, const char *w)
{
	static const char scope[] = "Warning: the scope of kind ";

	cli_buf_puts(b, w);
	if (strncmp(w, scope, sizeof(scope) - 1) == 0) {
		const char *name = w + sizeof(scope) - 1;

		cli_buf_puts(b, " (--cluster-scoped ");
		cli_buf_put(b, name, strcspn(name, " "));
		cli_buf_putc(b, ')');
	}
	cli_buf_putc(b, '\n');
}

/* -o diff: the entry's diff, or its two sides into the directories of
 * an external diff program. */
static int put_diff(apply_out *o, const smp_plan_entry *e, smp_error *err)
{
	unsigned flags = (o->a->managed ? SMP_PLAN_DIFF_MANAGED_FIELDS : 0) |
	                 (o->a->color ? SMP_PLAN_DIFF_COLOR : 0);
	char *diff = NULL;
	size_t len = 0;
	int rc;

	if (o->a->external_diff)
		return cli_diff_dirs_add(o->dirs, e, flags, err);
	if ((rc = smp_plan_entry_diff(&diff, &len, e, flags, err)))
		return rc;
	cli_buf_put(&o->out, diff, len);
	o->differs |= len > 0;
	smp_free(diff);
	return 0;
}

/* smp_plan_run's callback: one entry into the outputs. */
static int on_entry(const smp_plan_entry *e, void *user)
{
	apply_out *o = user;
	const apply_cli_args *a = o->a;
	smp_apply_action act = smp_plan_entry_action(e);
	bool objects = a->fmt == APPLY_OUT_YAML || a->fmt == APPLY_OUT_JSON;
	char *line = NULL, ref[512];
	size_t len = 0;
	smp_error err;
	int rc = 0;

	smp_apply_object_ref(ref, sizeof(ref), smp_plan_entry_object(e) ? smp_plan_entry_object(e)
	                                       : smp_plan_entry_live(e));
	progress(o);
	if (a->verdict) {
		/* validate: a verdict per object; the input's own errors are
		 * reported as the other commands report them */
		if ((act == SMP_ACTION_ERROR || act == SMP_ACTION_CONFLICT) && !smp_plan_entry_status(e))
			report(o, e);
		rc = cli_verdict_add(&o->verdicts, e, &err);
		goto out;
	}
	if (a->summary &&
	    (rc = smp_plan_summary_add(o->counts, SMP_PLAN_SUMMARY_COUNT, e, &err)))
		goto out;
	if (act == SMP_ACTION_ERROR || act == SMP_ACTION_CONFLICT) {
		/* the server's warnings come with its refusal, before it (a
		 * field dropped with --validate=warn, then the object refused) */
		cli_buf w;

		cli_buf_init(&w);
		for (size_t i = 0; i < smp_plan_entry_warning_count(e); i++)
			put_warning(&w, smp_plan_entry_warning(e, i));
		if (w.len) {
			progress_clear(o);
			fwrite(w.ptr, 1, w.len, stderr);
		}
		cli_buf_release(&w);
		report(o, e);
		if (objects)
			rc = keep_piece(o, e, &err);
		else if (a->fmt == APPLY_OUT_PATCH && smp_plan_entry_status(e))
			rc = put_patch_line(o, e, 0, &err);
		goto out;
	}
	for (size_t i = 0; i < smp_plan_entry_warning_count(e); i++)
		put_warning(&o->status, smp_plan_entry_warning(e, i));
	if (smp_plan_entry_applyset_parent(e)) {
		/* kubectl prints nothing about the parent; -o patch shows its
		 * requests among the others, -o changes what they change */
		size_t n = 0;

		if (a->fmt == APPLY_OUT_CHANGES)
			rc = put_changes(o, e, true, &n, &err);
		else if (a->fmt == APPLY_OUT_PATCH && !(rc = put_changes(o, e, false, &n, &err)))
			rc = put_patch_line(o, e, n, &err);
		goto out;
	}
	/* -o diff, name and changes print no status lines, as kubectl's
	 * printers */
	if (a->fmt != APPLY_OUT_DIFF && a->fmt != APPLY_OUT_NAME && a->fmt != APPLY_OUT_CHANGES) {
		if ((rc = smp_plan_entry_status_line(&line, &len, e,
		                                     (a->server_dry_run ? SMP_PLAN_LINE_SERVER_DRY_RUN : 0) |
		                                     (a->client_dry_run ? SMP_PLAN_LINE_DRY_RUN : 0),
		                                     &err)))
			goto out;
		cli_buf_put(&o->status, line, len);
		cli_buf_putc(&o->status, '\n');
	}
	if (a->fmt == APPLY_OUT_PATCH) {
		size_t n = 0;

		if (!(rc = put_changes(o, e, false, &n, &err)))
			rc = put_patch_line(o, e, n, &err);
	} else if (a->fmt == APPLY_OUT_CHANGES) {
		size_t n = 0;

		rc = put_changes(o, e, true, &n, &err);
	} else if (objects) {
		rc = keep_piece(o, e, &err);
	} else if (a->fmt == APPLY_OUT_DIFF) {
		rc = put_diff(o, e, &err);
	} else if (a->fmt == APPLY_OUT_NAME) {
		cli_buf_puts(&o->out, ref);
		cli_buf_putc(&o->out, '\n');
	}
out:
	smp_free(line);
	if (rc) {
		/* kubectl stops at such an error too; name the object */
		progress_clear(o);
		if (rc != SMP_ENOMEM && act != SMP_ACTION_ERROR && act != SMP_ACTION_CONFLICT)
			cli_err_prefix(&err, ref);
		if (a->mode == SMP_PLAN_CLIENT_SIDE && !err.file[0] && smp_plan_entry_config(e)) {
			snprintf(err.file, sizeof(err.file), "%s", smp_plan_entry_label(e));
			if (!err.line) {
				err.line = smp_value_line(smp_plan_entry_config(e));
				err.column = smp_value_column(smp_plan_entry_config(e));
			}
		}
		o->fatal = cli_fail(&err);
		return 1;
	}
	return 0;
}

/* -o yaml|json: the objects (one alone, several as one `kind: List`, as
 * kubectl 1.32 prints them), then each pruned object and the Status of
 * each refusal, in order (pieces marked '!' are the objects). Unlike
 * kubectl, whose prune prints its objects right after the List with no
 * separator, YAML documents are separated by "---" so that the output
 * reads back. */
static int put_pieces(apply_out *o, smp_error *err)
{
	smp_output fmt = o->a->fmt == APPLY_OUT_YAML ? SMP_OUT_YAML : SMP_OUT_JSON_INDENT;
	const char *p = o->pieces.ptr, *end = p ? p + o->pieces.len : NULL;
	bool first = true;
	int rc = 0;

	if (o->nitems > 1) {
		smp_print_options pr = SMP_PRINT_OPTIONS_INIT;
		smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
		smp_doc *list = NULL;
		char *text = NULL;
		size_t len = 0;
		cli_buf json;

		/* put together as JSON and read back, to print as one value */
		cli_buf_init(&json);
		cli_buf_puts(&json, "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{},"
		             "\"items\":[");
		cli_buf_put(&json, o->items.ptr ? o->items.ptr : "", o->items.len);
		cli_buf_puts(&json, "]}");
		pr.output = fmt;
		pr.sort_keys = fmt == SMP_OUT_YAML;
		pr.go_escape = fmt != SMP_OUT_YAML;
		po.format = SMP_FORMAT_JSON;
		if (json.oom)
			rc = SMP_ENOMEM;
		else if (!(rc = smp_doc_parse(&list, json.ptr, json.len, &po, err)) &&
		         !(rc = smp_print(&text, &len, smp_doc_root(list, 0), &pr, err)))
			cli_buf_put(&o->out, text, len);
		smp_free(text);
		smp_doc_free(list);
		cli_buf_release(&json);
		first = false;
	}
	/* one object alone first (pass 0), then the rest in order (pass 1) */
	for (int pass = o->nitems == 1 ? 0 : 1; pass < 2 && !rc; pass++) {
		for (p = o->pieces.ptr; p && p < end; p += strlen(p) + 1) {
			size_t n = strlen(p);

			if ((p[0] == '!') != (pass == 0))
				continue;
			if (!first && fmt == SMP_OUT_YAML)
				cli_buf_puts(&o->out, "---\n");
			first = false;
			cli_buf_put(&o->out, p + 1, n - 1);
		}
	}
	return rc;
}

/* Writes the status lines (stderr; stdout for replace without -o, as
 * kubectl prints them) and the output; the exit code. */
static int finish(apply_out *o)
{
	const apply_cli_args *a = o->a;
	smp_error err;

	if (a->verdict) {
		if (!cli_verdict_write(&o->verdicts))
			return CLI_INTERNAL;
		/* kubeconform's: 1 when any object is invalid; unreadable input
		 * first (its exit code) */
		return o->code != CLI_OK ? o->code : o->verdicts.invalid ? CLI_DIFF : CLI_OK;
	}
	if ((a->fmt == APPLY_OUT_YAML || a->fmt == APPLY_OUT_JSON) && put_pieces(o, &err))
		return err.code == SMP_ENOMEM ? oom() : cli_fail(&err);
	if (o->out.oom || o->status.oom || o->items.oom || o->pieces.oom)
		return oom();
	if (a->fmt == APPLY_OUT_NONE) {
		if (!cli_write(o->status.ptr ? o->status.ptr : "", o->status.len))
			return CLI_INTERNAL;
	} else {
		fwrite(o->status.ptr ? o->status.ptr : "", 1, o->status.len, stderr);
		if (!cli_write(o->out.ptr ? o->out.ptr : "", o->out.len))
			return CLI_INTERNAL;
	}
	if (a->fmt == APPLY_OUT_DIFF && a->external_diff) {
		/* kubectl diff: the program's own exit code, 1 for differences */
		int rc;

		fflush(stdout);
		rc = cli_diff_dirs_run(o->dirs, a->external_diff);
		if (rc > 1)
			return CLI_INTERNAL;
		o->differs = rc == 1;
	}
	if (a->summary) {
		/* one line after the plan, as terraform's "Plan: ..." */
		char *line = NULL;

		if (smp_plan_summary_line(&line, NULL, o->counts, &err))
			return oom();
		fflush(stdout);
		fprintf(stderr, "%s\n", line);
		smp_free(line);
	}
	if (o->code == CLI_OK && a->fmt == APPLY_OUT_DIFF && o->differs)
		return CLI_DIFF;
	return o->code;
}

int apply_cli_run(const apply_cli_args *a)
{
	plan_refs refs = {NULL, NULL, NULL};
	smp_plan *plan = NULL;
	apply_out o;
	smp_error err;
	int code, rc;

	memset(&o, 0, sizeof(o));
	o.a = a;
	if (a->fmt == APPLY_OUT_DIFF && a->external_diff && !(o.dirs = cli_diff_dirs_new())) {
		code = CLI_INTERNAL;
		goto out;
	}
	if ((code = make_plan(&plan, &refs, a)) != CLI_OK ||
	    (code = read_inputs(plan, a)) != CLI_OK)
		goto out;
	o.verdicts.fmt = a->verdict;
	o.verdicts.schema = refs.schema;
	o.progress = !a->no_progress && isatty(STDERR_FILENO);
	o.total = smp_plan_config_count(plan);
	clock_gettime(CLOCK_MONOTONIC, &o.start);
	o.last = o.start;
	rc = smp_plan_run(plan, on_entry, &o, &err);
	progress_clear(&o);
	if (rc < 0)
		code = err.code == SMP_ENOMEM ? oom() : cli_fail(&err);
	else if (o.fatal)
		code = o.fatal;
	else
		code = finish(&o);
out:
	smp_plan_free(plan);
	smp_selector_free(refs.lsel);
	smp_selector_free(refs.fsel);
	smp_schema_free(refs.schema);
	cli_buf_release(&o.out);
	cli_buf_release(&o.status);
	cli_buf_release(&o.items);
	cli_buf_release(&o.pieces);
	cli_diff_dirs_free(o.dirs);
	cli_verdicts_release(&o.verdicts);
	return code;
}
