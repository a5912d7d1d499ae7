/*
 * check_workload.c - the controllers around a pod template as
 * pkg/apis/apps/validation checks them (ValidateDeploymentSpec,
 * ValidateReplicaSetSpec, ValidateDaemonSetSpec, their selectors and
 * strategies) and the registry's selector immutability, on stored forms,
 * with the server's words.
 */
#include "apply/check.h"
#include "apply/apply_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PERCENT_MSG "a valid percent string must be a numeric string followed by an ending " \
	"'%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"

/* %#v of a metav1.LabelSelector (a selector in a stored form). false when
 * it holds what cannot be printed the server's way. */
static bool go_selector(smp_buf *b, const smp_value *sel)
{
	const smp_value *ml = smp__check_get(sel, "matchLabels");
	const smp_value *me = smp__check_get(sel, "matchExpressions");

	smp_buf_puts(b, "v1.LabelSelector{MatchLabels:");
	if (ml && ml->type == SMP_MAP && ml->u.map.len == 0)
		smp_buf_puts(b, "map[string]string{}");
	else
		smp_fe_go_map(b, ml);
	smp_buf_puts(b, ", MatchExpressions:");
	if (!smp__check_len(me)) {
		smp_buf_puts(b, "[]v1.LabelSelectorRequirement(nil)}");
		return true;
	}
	smp_buf_puts(b, "[]v1.LabelSelectorRequirement{");
	for (size_t i = 0; i < me->u.list.len; i++) {
		const smp_value *r = me->u.list.items[i], *vals = smp__check_get(r, "values");
		size_t n;
		const char *s;

		if (i)
			smp_buf_puts(b, ", ");
		smp_buf_puts(b, "v1.LabelSelectorRequirement{Key:");
		s = smp__check_str(smp__check_get(r, "key"), &n);
		smp_quote_go(b, s, n);
		smp_buf_puts(b, ", Operator:");
		s = smp__check_str(smp__check_get(r, "operator"), &n);
		smp_quote_go(b, s, n);
		smp_buf_puts(b, ", Values:");
		if (!vals || vals->type != SMP_LIST) {
			smp_buf_puts(b, "[]string(nil)}");
			continue;
		}
		smp_buf_puts(b, "[]string{");
		for (size_t k = 0; k < vals->u.list.len; k++) {
			if (k)
				smp_buf_puts(b, ", ");
			s = smp__check_str(vals->u.list.items[k], &n);
			smp_quote_go(b, s, n);
		}
		smp_buf_puts(b, "}}");
	}
	smp_buf_putc(b, '}');
	return true;
}

/* Whether a label selector (stored form) selects `labels`, as
 * LabelSelectorAsSelector and Matches do; *bad when the selector does not
 * convert (an unknown operator, a key or value NewRequirement refuses). */
static bool selects(const smp_value *sel, const smp_value *labels, bool *bad)
{
	const smp_value *ml = smp__check_get(sel, "matchLabels");
	const smp_value *me = smp__check_get(sel, "matchExpressions");
	bool match = true;
	smp_buf b;

	smp_buf_init(&b);
	*bad = false;
	for (size_t i = 0; ml && ml->type == SMP_MAP && i < ml->u.map.len; i++) {
		const smp_member *m = &ml->u.map.items[i];
		const smp_value *lv = smp__check_get(labels, m->key);
		size_t n;
		const char *s = smp__check_str(m->val, &n);

		b.len = 0;
		if (smp_label_key_list(&b, m->key, m->klen, "\n") ||
		    smp_label_value_list(&b, s, n, "\n"))
			*bad = true;
		if (!lv || !smpv_equal(lv, m->val))
			match = false;
	}
	for (size_t i = 0; me && me->type == SMP_LIST && i < me->u.list.len; i++) {
		const smp_value *r = me->u.list.items[i], *vals = smp__check_get(r, "values");
		const char *op = smpv_map_str(r, "operator");
		size_t kn, nv = smp__check_len(vals), found = 0;
		const char *key = smp__check_str(smp__check_get(r, "key"), &kn);
		const smp_value *lv = kn ? smp__check_get(labels, key) : NULL;
		bool in = op && (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0);
		bool ex = op && (strcmp(op, "Exists") == 0 || strcmp(op, "DoesNotExist") == 0);

		b.len = 0;
		if ((!in && !ex) || (in && nv == 0) || (ex && nv) || smp_label_key_list(&b, key, kn, "\n"))
			*bad = true;
		for (size_t k = 0; k < nv; k++) {
			size_t n;
			const char *s = smp__check_str(vals->u.list.items[k], &n);

			if (smp_label_value_list(&b, s, n, "\n"))
				*bad = true;
			if (lv && smpv_equal(lv, vals->u.list.items[k]))
				found++;
		}
		if (op && ((strcmp(op, "In") == 0 && !found) || (strcmp(op, "NotIn") == 0 && found) ||
		           (strcmp(op, "Exists") == 0 && !lv) || (strcmp(op, "DoesNotExist") == 0 && lv)))
			match = false;
	}
	smp_buf_release(&b);
	return match;
}

/* %#v of an intstr.IntOrString (a number or a string in a stored form). */
static void go_intstr(smp_buf *b, const smp_value *v)
{
	size_t n;
	const char *s = smp__check_str(v, &n);

	if (!v || v->type == SMP_INT) {
		/* absent: the zero IntOrString */
		smp_buf_printf(b, "intstr.IntOrString{Type:0, IntVal:%lld, StrVal:\"\"}",
		               v ? (long long)v->u.i : 0LL);
		return;
	}
	smp_buf_puts(b, "intstr.IntOrString{Type:1, IntVal:0, StrVal:");
	smp_quote_go(b, s, n);
	smp_buf_putc(b, '}');
}

/* An Invalid error at child `sub` whose value is the IntOrString v. */
static void intstr_error(smp_felist *l, const char *sub, const smp_value *v, const char *msg)
{
	l->val.len = 0;
	go_intstr(&l->val, v);
	smp_fe_add_val(l, SMP_FE_INVALID, sub, v, msg);
}

/* Whether v is a valid percent ("[0-9]+%"), with its number in *pct. */
static bool percent(const smp_value *v, int64_t *pct)
{
	size_t n;
	const char *s = smp__check_str(v, &n);
	bool ok = v && v->type == SMP_STRING && n >= 2 && s[n - 1] == '%';

	for (size_t k = 0; ok && k + 1 < n; k++)
		ok = s[k] >= '0' && s[k] <= '9';
	if (ok)
		*pct = strtoll(s, NULL, 10);
	return ok;
}

/* A RollingUpdate int-or-percent (ValidatePositiveIntOrPercent) and its
 * value as getIntOrPercentValue reads it. */
static int64_t check_int_or_percent(smp_felist *l, const char *sub, const smp_value *v)
{
	int64_t i = 0;
	size_t n;
	const char *s = smp__check_str(v, &n);

	if (smp__check_int(v, &i)) {
		smp__check_nonnegative(l, sub, v);
		return i;
	}
	if (v && v->type == SMP_STRING) {
		int64_t pct;

		if (percent(v, &pct))
			return pct;
		intstr_error(l, sub, v, PERCENT_MSG);
		/* IntValue: Atoi of the text, 0 when it is no number */
		for (size_t k = 0; k < n; k++)
			if (!(s[k] >= '0' && s[k] <= '9') && !(k == 0 && (s[k] == '-' || s[k] == '+')))
				return 0;
		return strtoll(s, NULL, 10);
	}
	return 0;
}

/* A strategy of an unknown type without a rolling update: NotSupported
 * with the struct as Go prints it (apps.<kind>Strategy{Type:"...",
 * RollingUpdate:(*apps.RollingUpdate<...>)(nil)}), `valid` the types. */
static void strategy_unknown(smp_felist *l, const smp_value *st, const char *kind,
                             const char *valid)
{
	size_t n;
	const char *s = smp__check_str(smp__check_get(st, "type"), &n);
	char detail[128];

	l->val.len = 0;
	smp_buf_printf(&l->val, "apps.%sStrategy{Type:", kind);
	smp_quote_go(&l->val, s, n);
	smp_buf_printf(&l->val, ", RollingUpdate:(*apps.RollingUpdate%s)(nil)}",
	               strcmp(kind, "Deployment") == 0 ? "Deployment" : "DaemonSet");
	snprintf(detail, sizeof(detail), "supported values: %s", valid);
	smp_fe_add_val(l, SMP_FE_NOT_SUPPORTED, NULL, st, detail);
}

/* ValidateDeploymentStrategy; false when its value cannot be printed the
 * server's way (a struct holding a pointer's address). */
static bool check_strategy(smp_felist *l, const smp_value *st)
{
	const smp_value *t = smp__check_get(st, "type"), *ru = smp__check_get(st, "rollingUpdate");
	size_t at = smp_fe_child(l, "strategy"), n;
	const char *s = smp__check_str(t, &n);
	bool ok = true;

	if (!st || n == 0) {
		/* SetDefaults_Deployment's RollingUpdate (a stored form does
		 * not default a spec that was not given: see smp__check_enum in check.h) */
		smp_fe_pop(l, at);
		return true;
	}
	if (n == 8 && memcmp(s, "Recreate", 8) == 0) {
		if (ru)
			smp_fe_add(l, SMP_FE_FORBIDDEN, "rollingUpdate", ru, NULL,
			           "may not be specified when strategy `type` is 'Recreate'");
	} else if (n == 13 && memcmp(s, "RollingUpdate", 13) == 0) {
		if (ru) {
			size_t r = smp_fe_child(l, "rollingUpdate");
			const smp_value *mu = smp__check_get(ru, "maxUnavailable");
			int64_t u = check_int_or_percent(l, "maxUnavailable", mu);
			int64_t g = check_int_or_percent(l, "maxSurge", smp__check_get(ru, "maxSurge"));

			int64_t pct;

			if (u == 0 && g == 0)
				intstr_error(l, "maxUnavailable", mu ? mu : ru, "may not be 0 when `maxSurge` is 0");
			if (percent(mu, &pct) && pct > 100)
				intstr_error(l, "maxUnavailable", mu, "must not be greater than 100%");
			smp_fe_pop(l, r);
		}
	} else if (ru) {
		ok = false; /* apps.DeploymentStrategy{..., RollingUpdate:(*...)(0xc...)} */
	} else {
		strategy_unknown(l, st, "Deployment", "\"Recreate\", \"RollingUpdate\"");
	}
	smp_fe_pop(l, at);
	return ok;
}

/* Adds an Invalid error at child `sub` whose value is the selector. */
static void selector_error(smp_felist *l, const char *sub, const smp_value *sel, const char *msg)
{
	l->val.len = 0;
	go_selector(&l->val, sel);
	smp_fe_add_val(l, SMP_FE_INVALID, sub, sel, msg);
}

/* The selector's own rules (ValidateLabelSelector; `required`: a nil one is
 * Required) and whether the template's labels are then checked against it:
 * false when LabelSelectorAsSelector fails ("invalid label selector"). */
static bool check_selector(smp_felist *l, const smp_value *spec, const smp_value *sel,
                           const smp_value *tlabels, bool required, bool *match)
{
	bool bad = false;

	if (!sel) {
		if (required)
			smp_fe_add(l, SMP_FE_REQUIRED, "selector", spec, NULL, NULL);
	} else {
		size_t s = smp_fe_child(l, "selector");

		smp__check_labels(l, "matchLabels", smp__check_get(sel, "matchLabels"));
		smp_fe_pop(l, s);
		if (!smp__check_len(smp__check_get(sel, "matchLabels")) &&
		    !smp__check_len(smp__check_get(sel, "matchExpressions")))
			/* the server prints matchLabels: {} and an absent one
			 * apart; a stored form has neither */
			l->unpredictable = true;
		if (smp__check_len(smp__check_get(sel, "matchExpressions")))
			l->unpredictable = true; /* the requirements' own rules */
	}
	/* a nil selector selects nothing */
	*match = sel ? selects(sel, tlabels, &bad) : false;
	return !bad;
}

/* The template's labels against a selector that does not select them. */
static void template_mismatch(smp_felist *l, const smp_value *tmpl, const smp_value *tlabels)
{
	size_t t = smp_fe_child(l, "template");

	l->val.len = 0;
	if (tlabels && tlabels->type == SMP_MAP && tlabels->u.map.len == 0)
		smp_buf_puts(&l->val, "map[string]string{}");
	else
		smp_fe_go_map(&l->val, tlabels);
	smp_fe_child(l, "metadata");
	smp_fe_add_val(l, SMP_FE_INVALID, "labels", tlabels ? tlabels : tmpl,
	               "`selector` does not match template `labels`");
	smp_fe_pop(l, t);
}

/* What a controller's pods may not have: a restartPolicy other than
 * Always, an activeDeadlineSeconds ("... in <what> is not Supported"). */
static void template_policies(smp_felist *l, const smp_value *tmpl, const char *what)
{
	const smp_value *tspec = smp__check_get(tmpl, "spec");
	const smp_value *rp = smp__check_get(tspec, "restartPolicy");
	const smp_value *ads = smp__check_get(tspec, "activeDeadlineSeconds");
	size_t at = smp_fe_child(l, "template"), n;
	const char *s = smp__check_str(rp, &n);
	char msg[96];

	smp_fe_child(l, "spec");
	if (rp && !(n == 6 && memcmp(s, "Always", 6) == 0))
		smp_fe_not_supported(l, "restartPolicy", rp, s, n, "\"Always\"");
	if (ads) {
		snprintf(msg, sizeof(msg), "activeDeadlineSeconds in %s is not Supported", what);
		smp_fe_add(l, SMP_FE_FORBIDDEN, "activeDeadlineSeconds", ads, NULL, msg);
	}
	smp_fe_pop(l, at);
}

void smp__check_selector_immutable(smp_felist *l, const smp_value *obj, const smp_value *live)
{
	const smp_value *sel = smp__check_get(smp__check_get(obj, "spec"), "selector");
	const smp_value *old = smp__check_get(smp__check_get(live, "spec"), "selector");
	size_t s;

	if (!live || (sel && old ? smpv_equal(sel, old) : sel == old))
		return;
	s = smp_fe_child(l, "spec");
	if (sel)
		selector_error(l, "selector", sel, "field is immutable");
	else
		l->unpredictable = true;
	smp_fe_pop(l, s);
}

/* ValidatePodTemplateSpecForReplicaSet after the selector (a Deployment's
 * and a ReplicaSet's), skipped when the selector does not convert. */
static void replicaset_template(smp_felist *l, const smp_value *spec, const smp_value *sel,
                                bool converts, bool match)
{
	const smp_value *tmpl = smp__check_get(spec, "template");
	const smp_value *tlabels = smp__check_get(smp__check_get(tmpl, "metadata"), "labels");
	size_t t;

	if (!converts) {
		selector_error(l, "selector", sel, "invalid label selector");
		return;
	}
	if (!match && !(sel && !smp__check_len(smp__check_get(sel, "matchLabels")) &&
	                !smp__check_len(smp__check_get(sel, "matchExpressions"))))
		template_mismatch(l, tmpl, tlabels);
	t = smp_fe_child(l, "template");
	smp__check_pod_template(l, tmpl);
	smp_fe_pop(l, t);
	template_policies(l, tmpl, "ReplicaSet");
}

void smp__check_deployment(smp_felist *l, const smp_value *obj, const smp_value *live)
{
	const smp_value *spec = smp__check_get(obj, "spec"), *sel = smp__check_get(spec, "selector");
	const smp_value *tlabels = smp__check_get(smp__check_get(smp__check_get(spec, "template"),
	                                                         "metadata"), "labels");
	const smp_value *pds = smp__check_get(spec, "progressDeadlineSeconds");
	size_t at = smp_fe_child(l, "spec");
	int64_t mrs = 0, pd;
	bool match, converts;

	smp__check_nonnegative(l, "replicas", smp__check_get(spec, "replicas"));
	converts = check_selector(l, spec ? spec : obj, sel, tlabels, true, &match);
	replicaset_template(l, spec, sel, converts, match);
	if (!check_strategy(l, smp__check_get(spec, "strategy")))
		l->unpredictable = true;
	smp__check_nonnegative(l, "minReadySeconds", smp__check_get(spec, "minReadySeconds"));
	smp__check_int(smp__check_get(spec, "minReadySeconds"), &mrs);
	smp__check_nonnegative(l, "revisionHistoryLimit", smp__check_get(spec, "revisionHistoryLimit"));
	if (smp__check_int(pds, &pd)) {
		smp__check_nonnegative(l, "progressDeadlineSeconds", pds);
		if (pd <= mrs)
			smp_fe_add_int(l, SMP_FE_INVALID, "progressDeadlineSeconds", pds, pd,
			               "must be greater than minReadySeconds");
	}
	smp_fe_pop(l, at);
}

void smp__check_replicaset(smp_felist *l, const smp_value *obj, const smp_value *live)
{
	const smp_value *spec = smp__check_get(obj, "spec"), *sel = smp__check_get(spec, "selector");
	const smp_value *tlabels = smp__check_get(smp__check_get(smp__check_get(spec, "template"),
	                                                         "metadata"), "labels");
	size_t at = smp_fe_child(l, "spec");
	bool match, converts;

	smp__check_nonnegative(l, "replicas", smp__check_get(spec, "replicas"));
	smp__check_nonnegative(l, "minReadySeconds", smp__check_get(spec, "minReadySeconds"));
	converts = check_selector(l, spec ? spec : obj, sel, tlabels, true, &match);
	replicaset_template(l, spec, sel, converts, match);
	smp_fe_pop(l, at);
}

/* ValidateDaemonSetUpdateStrategy. A rolling update's numbers other than
 * plain integers print as Go structs: left out. */
static void check_daemonset_strategy(smp_felist *l, const smp_value *st)
{
	const smp_value *t = smp__check_get(st, "type"), *ru = smp__check_get(st, "rollingUpdate");
	size_t at = smp_fe_child(l, "updateStrategy"), n;
	const char *s = smp__check_str(t, &n);

	if (!st || (n == 8 && memcmp(s, "OnDelete", 8) == 0)) {
		/* nothing to check */
	} else if (n == 13 && memcmp(s, "RollingUpdate", 13) == 0) {
		if (!ru)
			smp_fe_add(l, SMP_FE_REQUIRED, "rollingUpdate", st, NULL, NULL);
		else {
			/* ValidateRollingUpdateDaemonSet */
			const smp_value *mu = smp__check_get(ru, "maxUnavailable");
			const smp_value *ms = smp__check_get(ru, "maxSurge");
			size_t r = smp_fe_child(l, "rollingUpdate");
			int64_t u = check_int_or_percent(l, "maxUnavailable", mu);
			int64_t g = check_int_or_percent(l, "maxSurge", ms);
			int64_t pct;

			if (percent(mu, &pct) && pct > 100)
				intstr_error(l, "maxUnavailable", mu, "must not be greater than 100%");
			if (percent(ms, &pct) && pct > 100)
				intstr_error(l, "maxSurge", ms, "must not be greater than 100%");
			if (u != 0 && g != 0)
				intstr_error(l, "maxSurge", ms, "may not be set when maxUnavailable is non-zero");
			else if (u == 0 && g == 0)
				smp_fe_add(l, SMP_FE_REQUIRED, "maxUnavailable", mu ? mu : ru, NULL,
				           "cannot be 0 when maxSurge is 0");
			smp_fe_pop(l, r);
		}
	} else if (!ru) {
		strategy_unknown(l, st, "DaemonSetUpdate", "\"RollingUpdate\", \"OnDelete\"");
	} else {
		l->unpredictable = true; /* a struct holding a pointer's address */
	}
	smp_fe_pop(l, at);
}

void smp__check_daemonset(smp_felist *l, const smp_value *obj, const smp_value *live)
{
	const smp_value *spec = smp__check_get(obj, "spec"), *sel = smp__check_get(spec, "selector");
	const smp_value *tmpl = smp__check_get(spec, "template");
	const smp_value *tlabels = smp__check_get(smp__check_get(tmpl, "metadata"), "labels");
	size_t at = smp_fe_child(l, "spec"), t;
	bool match, converts;

	converts = check_selector(l, spec ? spec : obj, sel, tlabels, false, &match);
	if (converts && !match)
		template_mismatch(l, tmpl, tlabels);
	t = smp_fe_child(l, "template");
	smp__check_pod_template(l, tmpl);
	smp_fe_pop(l, t);
	template_policies(l, tmpl, "DaemonSet");
	smp__check_nonnegative(l, "minReadySeconds", smp__check_get(spec, "minReadySeconds"));
	smp__check_nonnegative(l, "templateGeneration", smp__check_get(spec, "templateGeneration"));
	check_daemonset_strategy(l, smp__check_get(spec, "updateStrategy"));
	smp__check_nonnegative(l, "revisionHistoryLimit", smp__check_get(spec, "revisionHistoryLimit"));
	smp_fe_pop(l, at);
}

/* ValidateStatefulSetSpec's update strategy (an unknown type and a
 * rolling update of an OnDelete one print their structs: predicted only
 * when they hold no pointer). maxUnavailable is dropped by the registry
 * (the MaxUnavailableStatefulSet gate is off in 1.32) before validation. */
static void check_statefulset_strategy(smp_felist *l, const smp_value *st)
{
	const smp_value *t = smp__check_get(st, "type"), *ru = smp__check_get(st, "rollingUpdate");
	size_t at = smp_fe_child(l, "updateStrategy"), n;
	const char *s = smp__check_str(t, &n);
	int64_t part = 0;

	if (!st) {
		/* a default (check.h, smp__check_enum) */
	} else if (n == 0) {
		smp_fe_add(l, SMP_FE_REQUIRED, NULL, st, NULL, NULL);
	} else if (n == 8 && memcmp(s, "OnDelete", 8) == 0) {
		if (ru) {
			smp__check_int(smp__check_get(ru, "partition"), &part);
			l->val.len = 0;
			smp_buf_printf(&l->val, "apps.RollingUpdateStatefulSetStrategy{Partition:%lld, "
			               "MaxUnavailable:(*intstr.IntOrString)(nil)}", (long long)part);
			smp_fe_add_val(l, SMP_FE_INVALID, "rollingUpdate", ru,
			               "only allowed for updateStrategy 'RollingUpdate'");
		}
	} else if (n == 13 && memcmp(s, "RollingUpdate", 13) == 0) {
		if (ru) {
			size_t r = smp_fe_child(l, "rollingUpdate");

			smp__check_nonnegative(l, "partition", smp__check_get(ru, "partition"));
			smp_fe_pop(l, r);
		}
	} else if (ru) {
		l->unpredictable = true; /* a struct holding a pointer's address */
	} else {
		l->val.len = 0;
		smp_buf_puts(&l->val, "apps.StatefulSetUpdateStrategy{Type:");
		smp_quote_go(&l->val, s, n);
		smp_buf_puts(&l->val, ", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}");
		smp_fe_add_val(l, SMP_FE_INVALID, NULL, st, "must be 'RollingUpdate' or 'OnDelete'");
	}
	smp_fe_pop(l, at);
}

/* ValidateStatefulSetSpec. Its pod template gets its labels and
 * annotations checked, not its spec (the server leaves that to the pods). */
void smp__check_statefulset(smp_felist *l, const smp_value *obj, const smp_value *live)
{
	static const char *const retention[] = {"whenDeleted", "whenScaled"};
	const smp_value *spec = smp__check_get(obj, "spec"), *sel = smp__check_get(spec, "selector");
	const smp_value *tmpl = smp__check_get(spec, "template");
	const smp_value *tmd = smp__check_get(tmpl, "metadata");
	const smp_value *tlabels = smp__check_get(tmd, "labels");
	const smp_value *pmp = smp__check_get(spec, "podManagementPolicy");
	const smp_value *rp = smp__check_get(spec, "persistentVolumeClaimRetentionPolicy");
	size_t at = smp_fe_child(l, "spec"), n, t;
	const char *s = smp__check_str(pmp, &n);
	bool match, converts;

	if (pmp && n == 0)
		smp_fe_add(l, SMP_FE_REQUIRED, "podManagementPolicy", pmp, NULL, NULL);
	else if (pmp && !(n == 12 && memcmp(s, "OrderedReady", 12) == 0) &&
	         !(n == 8 && memcmp(s, "Parallel", 8) == 0))
		smp_fe_add_str(l, SMP_FE_INVALID, "podManagementPolicy", pmp, s, n,
		               "must be 'OrderedReady' or 'Parallel'");
	check_statefulset_strategy(l, smp__check_get(spec, "updateStrategy"));
	for (int i = 0; rp && i < 2; i++) {
		const smp_value *v = smp__check_get(rp, retention[i]);
		size_t r = smp_fe_child(l, "persistentVolumeClaimRetentionPolicy"), vn;
		const char *vs = smp__check_str(v, &vn);

		if (!(vn == 6 && (memcmp(vs, "Retain", 6) == 0 || memcmp(vs, "Delete", 6) == 0)))
			smp_fe_not_supported(l, retention[i], v ? v : rp, vs, vn, "\"Retain\", \"Delete\"");
		smp_fe_pop(l, r);
	}
	smp__check_nonnegative(l, "replicas", smp__check_get(spec, "replicas"));
	smp__check_nonnegative(l, "minReadySeconds", smp__check_get(spec, "minReadySeconds"));
	smp__check_nonnegative(l, "ordinals.start",
	                       smp__check_get(smp__check_get(spec, "ordinals"), "start"));
	converts = check_selector(l, spec ? spec : obj, sel, tlabels, true, &match);
	if (!converts) {
		selector_error(l, "selector", sel, "");
	} else {
		if (!match && !(sel && !smp__check_len(smp__check_get(sel, "matchLabels")) &&
		                !smp__check_len(smp__check_get(sel, "matchExpressions"))))
			template_mismatch(l, tmpl, tlabels);
		t = smp_fe_child(l, "template");
		smp__check_labels(l, "labels", tlabels);
		smp__check_annotations(l, "annotations", smp__check_get(tmd, "annotations"));
		smp_fe_pop(l, t);
	}
	template_policies(l, tmpl, "StatefulSet");
	smp_fe_pop(l, at);
	if (live) {
		/* only some fields of the spec may change: the rest is Forbidden,
		 * compared as Go compares them (not done here yet) */
		static const char *const may[] = {"replicas", "ordinals", "template", "updateStrategy",
		                                  "persistentVolumeClaimRetentionPolicy",
		                                  "minReadySeconds"};
		const smp_value *old = smp__check_get(live, "spec");

		for (size_t i = 0; spec && spec->type == SMP_MAP && i < spec->u.map.len; i++) {
			const smp_member *m = &spec->u.map.items[i];
			bool free_field = false;

			for (size_t k = 0; k < sizeof(may) / sizeof(may[0]); k++)
				free_field |= strlen(may[k]) == m->klen && memcmp(may[k], m->key, m->klen) == 0;
			if (!free_field && !(smpv_map_get(old, m->key) &&
			                     smpv_equal(m->val, smpv_map_get(old, m->key))))
				l->unpredictable = true;
		}
	}
}
