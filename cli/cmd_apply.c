/*
 * cmd_apply.c - `smpatch apply`: what `kubectl apply` (client-side, or
 * --server-side) would send for each configuration given the live objects,
 * and what the objects become. Reads the command line; the run is
 * apply_run.c's, over the library's plan.
 */
#include "apply_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const help_text[] = {
	"Usage: smpatch apply -f PATH [-f PATH...] [-R] [--live FILE|-]\n"
	"                     [-o patch|yaml|json|diff|name] [--overwrite=false]\n"
	"                     [--prune -l SELECTOR|--all] [--prune-allowlist G/V/K ...]\n"
	"                     [--prune --applyset=[RESOURCE][.GROUP]/NAME]\n"
	"                     [-l SELECTOR] [--field-selector SEL]\n"
	"                     [-n NAMESPACE] [--openapi FILE | --schema CRD.yaml ...]\n"
	"                     [--cluster-scoped KIND[.GROUP] ...] [--dry-run=none|client]\n"
	"                     [--summary]\n"
	"       smpatch apply --server-side [--field-manager NAME] [--force-conflicts]\n"
	"                     -f PATH ... [--dry-run=server] (and the options above;\n"
	"                     prune with --applyset only)\n"
	"\n"
	"Computes what `kubectl apply` would do, offline: for every object in the\n"
	"configuration files, the request kubectl would send and the object that\n"
	"results, given the live objects (as `kubectl get -o yaml|json` prints them).\n"
	"\n"
	"Client-side (the default), per object: no live object -> created (the\n"
	"object with the kubectl.kubernetes.io/last-applied-configuration\n"
	"annotation set; null fields are dropped from the object sent, the\n"
	"annotation keeps them); otherwise a three-way patch from the live object's\n"
	"annotation, the configuration and the live object: a strategic merge patch\n"
	"for built-in kinds, a JSON merge patch for custom resources and unknown\n"
	"kinds, as kubectl chooses -> configured, or unchanged when the patch is\n"
	"empty. A live object without the annotation gets kubectl's warning, then a\n"
	"patch (nothing is deleted from it).\n"
	"\n"
	"Server-side (--server-side): the request is a PATCH of type\n"
	"application/apply-patch+yaml whose body is the configuration, and the API\n"
	"server stores the configuration merged into the live object by field\n"
	"ownership (metadata.managedFields): fields the manager applied before and\n"
	"no longer applies are removed unless another manager owns them, and a field\n"
	"the configuration sets to another value than the live one while another\n"
	"manager owns it is a conflict. The live objects must carry their\n"
	"metadata.managedFields (kubectl get -o yaml --show-managed-fields);\n"
	"docs/SSA.md explains the algorithm.\n"
	"\n"
	,
	"Options:\n"
	"  -f, --filename PATH   configuration: a file, a directory (its .yaml, .yml\n"
	"                        and .json files, in name order) or - for standard\n"
	"                        input; repeatable. Multi-document streams and\n"
	"                        lists (`kind: List`, any object with items) are\n"
	"                        expanded; nothing to apply is an error.\n"
	"  -R, --recursive       descend into subdirectories of directories given\n"
	"                        with -f\n"
	"      --live FILE|-     the live objects: a stream of objects or a List.\n"
	"                        Objects match by API group (not version), kind,\n"
	"                        namespace and name. Without --live nothing exists yet.\n"
	"  -o, --output FORMAT   patch (default): one JSON line per object\n"
	"                          {\"apiVersion\",\"kind\",\"namespace\",\"name\",\"action\",\n"
	"                           \"patchType\",\"patch\"}\n"
	"                        with action create|configure|unchanged|prune;\n"
	"                        patch is the request body: the object for create,\n"
	"                        the patch for configure, {} for unchanged, null for\n"
	"                        prune; patchType the content type:\n"
	"                        application/strategic-merge-patch+json or\n"
	"                        application/merge-patch+json (application/json for\n"
	"                        create, null for prune). Server-side: patchType\n"
	"                        application/apply-patch+yaml, then \"fieldManager\" and\n"
	"                        \"force\" (the query parameters), patch the\n"
	"                        configuration with its namespace filled in; action\n"
	"                        create, configure (the object changes) or unchanged;\n"
	"                        on an object last applied client-side, \"requests\"\n"
	"                        lists kubectl's migration requests too.\n"
	,
	"                        yaml, json: the resulting objects, as the API server\n"
	"                        stores them before its defaulting (what kubectl apply\n"
	"                        -o yaml|json or --dry-run=server shows; --dry-run=client\n"
	"                        shows this only for creates, and the live object\n"
	"                        unchanged otherwise), several as one `kind: List`\n"
	"                        (as kubectl 1.32); then pruned objects as they are\n"
	"                        live, and server-side, for each object the server\n"
	"                        refuses, the metav1.Status it answers (a conflict:\n"
	"                        reason Conflict, code 409, details.causes of type\n"
	"                        FieldManagerConflict).\n"
	"                        diff: a unified diff of each live object against its\n"
	"                        result, both as the API server stores them (pruned\n"
	"                        objects against nothing), so that defaults and the\n"
	"                        spelling of quantities do not show; exit 1 when\n"
	"                        anything differs, like kubectl diff. As there, the\n"
	"                        values of a v1 Secret's data show as ***, or\n"
	"                        *** (before) / *** (after) where they change.\n"
	"                        The values of stringData are masked the same way,\n"
	"                        and both inside the last-applied annotation too.\n"
	"                        With $KUBECTL_EXTERNAL_DIFF set, that program runs\n"
	"                        instead, as kubectl diff runs it: on two directories,\n"
	"                        LIVE-* and MERGED-*, of one file per object named\n"
	"                        [group.]version.Kind.namespace.name, its arguments\n"
	"                        after them; its output and exit code are the diff's.\n"
	,
	"                        name: kind.group/name per object.\n"
	"                        changes: one JSON line per changed field of the\n"
	"                          stored forms {\"apiVersion\",\"kind\",\"namespace\",\n"
	"                           \"name\",\"action\",\"path\",\"op\",\"from\",\"to\"}\n"
	"                        with op add|remove|replace, list items by merge key\n"
	"                        (spec.template.spec.containers[name=web].image),\n"
	"                        Secret values masked; a new or pruned object is one\n"
	"                        line (path \"\"). -o patch lines carry their number,\n"
	"                        \"changes\": N; a prune line also \"deleteOptions\"\n"
	"                        (kubectl's body plus the live object's uid and\n"
	"                        resourceVersion as preconditions), and a failed\n"
	"                        object a line with \"status\", the server's answer.\n"
	"                        With diff, name and changes, no status lines.\n"
	"                        With --applyset, the parent's requests are -o patch\n"
	"                        lines with \"role\":\"applyset-parent\" (first and\n"
	"                        last) and its changes are in -o changes; kubectl\n"
	"                        prints nothing else about it.\n"
	"      --color[=WHEN]    -o diff in colour: auto (default: when the output is\n"
	"                        a terminal), always (--color alone) or never\n"
	"      --show-managed-fields  keep metadata.managedFields in the objects\n"
	"                        printed by -o yaml, json and diff (like kubectl, they\n"
	"                        are left out by default)\n"
	,
	"      --overwrite=false like kubectl: refuse (exit 4) to overwrite fields\n"
	"                        changed in the live object since the last apply. As in\n"
	"                        kubectl, the last-applied annotation itself counts as\n"
	"                        such a field, so any change to a configuration whose\n"
	"                        live object has the annotation conflicts. Ignored with\n"
	"                        --server-side, as kubectl ignores it.\n"
	"      --prune           with -l or --all: live objects that carry the\n"
	"                        last-applied annotation, match the selector and are\n"
	"                        absent from the configurations are planned for\n"
	"                        deletion (action prune). As kubectl's default, only\n"
	"                        these kinds are pruned: ConfigMap, Endpoints,\n"
	"                        Namespace, PersistentVolumeClaim, PersistentVolume,\n"
	"                        Pod, ReplicationController, Secret, Service, batch Job\n"
	"                        and CronJob, networking.k8s.io Ingress, apps\n"
	"                        DaemonSet, Deployment, ReplicaSet and StatefulSet;\n"
	"                        namespaced ones only in namespaces the configurations\n"
	"                        use. Nothing is deleted anywhere: this is a plan.\n"
	"                        As kubectl, no prune when an object failed. Not with\n"
	"                        --server-side, unless with --applyset.\n"
	"      --all             select all objects: --prune without -l (not with -l)\n"
	"      --cascade[=HOW]   prune's propagationPolicy: background (default),\n"
	"                        foreground or orphan\n"
	"      --grace-period=N  prune's gracePeriodSeconds (-1, the default: none)\n"
	"      --prune-allowlist GROUP/VERSION/KIND  prune these kinds instead of the\n"
	"                        default set (core for the core group, e.g.\n"
	"                        core/v1/ConfigMap, apps/v1/Deployment); repeatable;\n"
	"                        the kind must be known (built-in or --schema)\n"
	"      --applyset [RESOURCE][.GROUP]/NAME  with --prune, kubectl's ApplySet\n"
	"                        (KUBECTL_APPLYSET=true kubectl apply --applyset):\n"
	"                        the parent (NAME alone: a Secret; configmaps/NAME; a\n"
	"                        custom resource that exists, its CRD live and\n"
	"                        labelled applyset.kubernetes.io/is-parent-type) is\n"
	"                        applied server-side by kubectl-applyset before the\n"
	"                        objects and after the prune; every object gets the\n"
	"                        label applyset.kubernetes.io/part-of; prune takes the\n"
	"                        members of the kinds and namespaces the parent lists\n"
	"                        that no configuration names. -n is needed for a\n"
	"                        namespaced parent; not with -l, --all or\n"
	"                        --prune-allowlist; also with --server-side\n"
	"      --applyset-tooling NAME/VERSION  the parent's tooling annotation, as\n"
	"                        kubectl writes its own version (default\n"
	"                        kubectl/v1.32.0); the manager is NAME-applyset\n"
	,
	"  -l, --selector SEL    apply only configurations whose labels match SEL\n"
	"                        (=, ==, !=, in, notin, key, !key, comma = AND)\n"
	"      --field-selector SEL  apply only objects whose fields match SEL\n"
	"                        (path=value, path==value, path!=value, comma = AND;\n"
	"                        any dotted path, e.g. metadata.name, read on the\n"
	"                        configuration with its namespace filled in)\n"
	"  -n, --namespace NS    namespace for namespaced objects that name none\n"
	"                        (default \"default\"); an object naming another one is\n"
	"                        an error, as in kubectl\n"
	"      --openapi FILE    an OpenAPI v2/v3 document: patch metadata for\n"
	"                        built-in kinds (as kubectl uses the server's), and\n"
	"                        the schema of the kinds it defines (custom resources'\n"
	"                        x-kubernetes-list-type, -list-map-keys, -map-type)\n"
	"      --schema FILE     a CustomResourceDefinition (scope and schema of\n"
	"                        custom kinds); repeatable\n"
	"      --cluster-scoped KIND[.GROUP]  the kind (in GROUP, or in any group) is\n"
	"                        cluster-scoped, for kinds no schema describes;\n"
	"                        repeatable. Without it such a kind is cluster-scoped\n"
	"                        when a live object of it has no namespace, else it\n"
	"                        is assumed namespaced (with a warning)\n"
	,
	"      --validate[=HOW]  the server's field validation of what is sent:\n"
	"                        strict (default; true): an unknown field fails the\n"
	"                        object with the server's message (strict decoding\n"
	"                        error: unknown field \"spec.contianers\"), warn: a\n"
	"                        Warning: line, ignore (false): nothing; a value of\n"
	"                        the wrong type always fails\n"
	"      --ignore-field [KIND[.GROUP]:]PATH  leave the field out of -o diff,\n"
	"                        -o changes and the configured/unchanged decision,\n"
	"                        never out of the patch: a JSON pointer (/spec/replicas)\n"
	"                        or a path as -o changes writes it\n"
	"                        (spec.template.spec.containers[name=web].image; *\n"
	"                        for every key or item); repeatable\n"
	"      --ignore-manager NAME  likewise for the fields NAME owns in the live\n"
	"                        object's managedFields; repeatable\n"
	"      --summary         after the plan, one line on stderr: \"N objects: A to\n"
	"                        create, B to configure, C unchanged, D to prune,\n"
	"                        E conflicts, F errors; M fields changed\" (the\n"
	"                        ApplySet parent aside; fields as -o changes lists\n"
	"                        them, between stored forms with -o patch|diff|changes\n"
	"                        or --dry-run=server); kubectl's outputs unchanged\n"
	"      --no-progress     no progress line (on stderr, when it is a terminal\n"
	"                        and the plan takes over a second: objects done of\n"
	"                        all and the rate, rewritten in place)\n"
	"      --jobs N          threads that read and plan (default: the number of\n"
	"                        cores); the output is the same for every N\n"
	"      --dry-run[=MODE]  none, or client (--dry-run alone): the same plan\n"
	"                        (nothing is ever sent anywhere), client adding\n"
	"                        \"(dry run)\" to the status lines as kubectl does;\n"
	"                        server: the objects as the API server stores them\n"
	"                        (its defaults, canonical quantities, unknown fields\n"
	"                        dropped; docs/STORED.md), \"(server dry run)\"\n"
	"      --server-side     apply on the server's terms (field ownership)\n"
	"      --field-manager NAME  with --server-side: the manager that owns what\n"
	"                        is applied (default \"kubectl\", as kubectl's);\n"
	"                        accepted and unused client-side\n"
	"      --force-conflicts with --server-side: take the conflicting fields from\n"
	"                        their managers instead of failing\n"
	"      --csa-manager NAME  with --server-side: migrate the Update entries of\n"
	"                        the client-side manager NAME into the field manager's\n"
	"                        Apply entry (as Helm moving to server-side apply);\n"
	"                        repeatable. Without it, kubectl's migration: of the\n"
	"                        managers that own the last-applied annotation\n"
	"  -h, --help            show this help\n"
	"\n"
	,
	"Status lines go to standard error as kubectl prints them\n"
	"(deployment.apps/nginx created|configured|unchanged|pruned; server-side:\n"
	"deployment.apps/web serverside-applied), warnings too. An object that fails\n"
	"(invalid labels, annotations over 262144 bytes, conflict, changed\n"
	"apiVersion/kind/name, a request the server rejects) is reported with its\n"
	"file and name and left out of the output; the others are still shown, and\n"
	"the exit code is that of the first failure. The time written into the\n"
	"managedFields entries that change is the current time, or $SMPATCH_NOW\n"
	"(RFC 3339, e.g. 2024-01-01T00:00:00Z) when set.\n"
	"\n"
	"Exit codes: 0 success; 1 differences found (-o diff); 2 usage or bad\n"
	"selector syntax (with its position); 3 invalid input (unreadable or\n"
	"invalid files, invalid labels, annotations too large, a request the server\n"
	"rejects: managedFields in a configuration, duplicate list keys, a missing\n"
	"key field, a value of the wrong type, an unknown kind); 4 conflict\n"
	"(--overwrite=false, or fields other managers own) or changed\n"
	"apiVersion/kind/name; 5 internal error.\n",
	NULL
};

/* Every option of `smpatch apply`, as the parser, --help and completion
 * read them. */
const cli_option cli_apply_options[] = {
	APPLY_OPTIONS_INPUT,
	{"output", 'o', CLI_ARG_VALUE, APPLY_OPT_OUTPUT, "patch yaml json diff name changes", NULL},
	{"overwrite", 0, CLI_ARG_BOOL, APPLY_OPT_OVERWRITE, NULL, NULL},
	{"show-managed-fields", 0, CLI_ARG_BOOL, APPLY_OPT_MANAGED, NULL, NULL},
	{"prune", 0, CLI_ARG_BOOL, APPLY_OPT_PRUNE, NULL, NULL},
	{"all", 0, CLI_ARG_BOOL, APPLY_OPT_ALL, NULL, NULL},
	{"prune-allowlist", 0, CLI_ARG_VALUE, APPLY_OPT_ALLOW, NULL, NULL},
	{"prune-whitelist", 0, CLI_ARG_VALUE, APPLY_OPT_ALLOW, NULL, NULL},
	{"selector", 'l', CLI_ARG_VALUE, APPLY_OPT_SELECTOR, NULL, NULL},
	{"field-selector", 0, CLI_ARG_VALUE, APPLY_OPT_FIELD_SELECTOR, NULL, NULL},
	APPLY_OPTIONS_SCHEMA,
	{"cluster-scoped", 0, CLI_ARG_VALUE, APPLY_OPT_CLUSTER_SCOPED, NULL, NULL},
	{"dry-run", 0, CLI_ARG_OPTIONAL, APPLY_OPT_DRY_RUN, "none server client", "unchanged"},
	{"server-side", 0, CLI_ARG_BOOL, APPLY_OPT_SERVER_SIDE, NULL, NULL},
	{"field-manager", 0, CLI_ARG_VALUE, APPLY_OPT_FIELD_MANAGER, NULL, NULL},
	{"force-conflicts", 0, CLI_ARG_BOOL, APPLY_OPT_FORCE_CONFLICTS, NULL, NULL},
	{"color", 0, CLI_ARG_OPTIONAL, APPLY_OPT_COLOR, "auto always never", "always"},
	{"cascade", 0, CLI_ARG_OPTIONAL, APPLY_OPT_CASCADE, "background foreground orphan",
	 "background"},
	{"grace-period", 0, CLI_ARG_VALUE, APPLY_OPT_GRACE_PERIOD, NULL, NULL},
	{"validate", 0, CLI_ARG_OPTIONAL, APPLY_OPT_VALIDATE, "strict warn ignore true false",
	 "strict"},
	{"ignore-field", 0, CLI_ARG_VALUE, APPLY_OPT_IGNORE_FIELD, NULL, NULL},
	{"ignore-manager", 0, CLI_ARG_VALUE, APPLY_OPT_IGNORE_MANAGER, NULL, NULL},
	{"no-progress", 0, CLI_ARG_BOOL, APPLY_OPT_NO_PROGRESS, NULL, NULL},
	{"summary", 0, CLI_ARG_BOOL, APPLY_OPT_SUMMARY, NULL, NULL},
	{"jobs", 0, CLI_ARG_VALUE, APPLY_OPT_JOBS, NULL, NULL},
	{"csa-manager", 0, CLI_ARG_VALUE, APPLY_OPT_CSA_MANAGER, NULL, NULL},
	{"applyset", 0, CLI_ARG_VALUE, APPLY_OPT_APPLYSET, NULL, NULL},
	{"applyset-tooling", 0, CLI_ARG_VALUE, APPLY_OPT_APPLYSET_TOOLING, NULL, NULL},
	{NULL, 0, 0, 0, NULL, NULL},
};

/* What the command line asked besides the plan's own arguments. */
typedef struct apply_flags {
	bool server_side, manager_set;
	const char *dry_run;
	const char *prune_flag; /* how a prune option was spelled */
} apply_flags;

/* --cascade as kubectl reads it (true and false are its old spellings). */
static int cascade(apply_cli_args *a, const char *val)
{
	static const char *const names[] = {"background", "foreground", "orphan"};
	bool b;

	if (cli_args_parse_bool(val, &b))
		val = b ? "background" : "orphan";
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(val, names[i]) == 0) {
			a->cascade = (smp_propagation)i;
			return CLI_OK;
		}
	return cli_usage("apply", "invalid cascade value (%s). Must be \"background\", "
	                 "\"foreground\", or \"orphan\".", val);
}

/* --validate as kubectl reads it: strict (true), warn, ignore (false). */
static int validate(apply_cli_args *a, const char *val)
{
	static const char *const names[][2] = {{"strict", "true"}, {"warn", "warn"},
	                                       {"ignore", "false"}};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(val, names[i][0]) == 0 || strcmp(val, names[i][1]) == 0) {
			a->validate = (smp_validate_mode)i;
			return CLI_OK;
		}
	return cli_usage("apply", "invalid - validate option \"%s\"; must be one of: strict (or true), "
	                 "warn, ignore (or false)", val);
}

/* --grace-period=N: seconds, -1 (the default) sends none. */
static int grace_period(apply_cli_args *a, const char *val)
{
	char *end;
	long long n = strtoll(val, &end, 10);

	if (!*val || *end || n < -1)
		return cli_usage("apply", "invalid value for --grace-period: '%s' (seconds, or -1)",
		                 val);
	a->grace_period = n;
	return CLI_OK;
}

/* One option or argument into a / f: apply's own, else those it shares
 * (apply_cli_take); CLI_OK or CLI_USAGE (said). */
static int take(apply_cli_args *a, apply_flags *f, const cli_args *p, int k)
{
	switch (k) {
	case APPLY_OPT_CASCADE: return cascade(a, p->value);
	case APPLY_OPT_VALIDATE: return validate(a, p->value);
	case APPLY_OPT_IGNORE_FIELD: a->ignore_fields[a->nignore_fields++] = p->value; break;
	case APPLY_OPT_IGNORE_MANAGER: a->ignore_managers[a->nignore_managers++] = p->value; break;
	case APPLY_OPT_SUMMARY: a->summary = p->on; break;
	case APPLY_OPT_GRACE_PERIOD: return grace_period(a, p->value);
	case APPLY_OPT_CSA_MANAGER: a->csa_managers[a->ncsa_managers++] = p->value; break;
	case APPLY_OPT_APPLYSET: a->applyset = p->value; break;
	case APPLY_OPT_APPLYSET_TOOLING: a->applyset_tooling = p->value; break;
	case APPLY_OPT_OVERWRITE: a->overwrite = p->on; break;
	case APPLY_OPT_PRUNE: a->prune = p->on; f->prune_flag = "--prune"; break;
	case APPLY_OPT_ALL:
		a->all = p->on;
		f->prune_flag = f->prune_flag ? f->prune_flag : "--all";
		break;
	case APPLY_OPT_ALLOW:
		a->allow[a->nallow++] = p->value;
		f->prune_flag = f->prune_flag ? f->prune_flag : "--prune-allowlist";
		break;
	case APPLY_OPT_SELECTOR: a->selector = p->value; break;
	case APPLY_OPT_FIELD_SELECTOR: a->field_sel = p->value; break;
	case APPLY_OPT_CLUSTER_SCOPED: a->scoped[a->nscoped++] = p->value; break;
	case APPLY_OPT_DRY_RUN: f->dry_run = p->value; break;
	case APPLY_OPT_SERVER_SIDE: f->server_side = p->on; break;
	case APPLY_OPT_FIELD_MANAGER: a->manager = p->value; f->manager_set = true; break;
	case APPLY_OPT_FORCE_CONFLICTS: a->force = p->on; break;
	default: return apply_cli_take(a, p, k);
	}
	return CLI_OK;
}

/* kubectl's checks of the flags (apply.go Validate) for the mode. */
static int check_mode(apply_cli_args *a, const apply_flags *f)
{
	int code;

	if (!f->server_side && a->force)
		return cli_usage("apply", "%s", "--force-conflicts only works with --server-side");
	if (!f->server_side && a->ncsa_managers)
		return cli_usage("apply", "%s", "--csa-manager only works with --server-side");
	if (a->all && a->selector)
		return cli_usage("apply", "%s", "cannot set --all and --selector at the same time");
	if (a->applyset_tooling && !a->applyset)
		return cli_usage("apply", "%s", "--applyset-tooling needs --applyset");
	if (a->applyset) {
		/* kubectl's messages, in its order */
		if (!a->prune)
			return cli_usage("apply", "%s", "--applyset requires --prune");
		if (a->all)
			return cli_usage("apply", "%s", "--all is incompatible with --applyset");
		if (a->selector)
			return cli_usage("apply", "%s", "--selector is incompatible with --applyset");
		if (a->nallow)
			return cli_usage("apply", "%s", "--prune-allowlist is incompatible with "
			                 "--applyset");
	} else if (f->server_side && f->prune_flag) {
		return cli_usage("apply", "%s is not supported with --server-side", f->prune_flag);
	}
	if (f->dry_run && (code = apply_cli_dry_run(a, f->dry_run, f->server_side)) != CLI_OK)
		return code;
	if (f->server_side) {
		a->mode = SMP_PLAN_SERVER_SIDE;
		a->overwrite = true; /* kubectl ignores it here */
		return apply_cli_check(a);
	}
	a->manager = NULL; /* client-side apply does not compute managedFields */
	if ((code = apply_cli_check(a)) != CLI_OK)
		return code;
	if (a->prune && !a->applyset && !a->selector && !a->all)
		return cli_usage("apply", "%s", "all resources selected for prune without "
		                 "explicitly passing --all. To prune all resources, pass the --all "
		                 "flag. If you did not mean to prune all resources, specify a label "
		                 "selector");
	return CLI_OK;
}

int cmd_apply(int argc, char **argv)
{
	apply_cli_args a;
	apply_flags f;
	cli_args p;
	int k, code;

	memset(&f, 0, sizeof(f));
	if ((code = apply_cli_args_init(&a, argc, SMP_PLAN_CLIENT_SIDE, "apply")) != CLI_OK)
		return code;
	a.color = isatty(STDOUT_FILENO); /* --color=auto */
	cli_args_init(&p, argc, argv, cli_apply_options);
	while (code == CLI_OK && !a.help && (k = cli_args_next(&p)) != CLI_ARGS_END)
		code = take(&a, &f, &p, k);
	if (a.fmt == APPLY_OUT_DIFF && getenv("KUBECTL_EXTERNAL_DIFF") &&
	    *getenv("KUBECTL_EXTERNAL_DIFF"))
		a.external_diff = getenv("KUBECTL_EXTERNAL_DIFF");
	if (code == CLI_OK && a.help) {
		for (size_t h = 0; help_text[h]; h++)
			fputs(help_text[h], stdout);
	} else if (code == CLI_OK && (code = check_mode(&a, &f)) == CLI_OK) {
		code = apply_cli_run(&a);
	}
	apply_cli_args_release(&a);
	return code;
}
