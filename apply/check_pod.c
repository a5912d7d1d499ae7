/*
 * check_pod.c - pod templates as pkg/apis/core/validation checks them
 * (ValidatePodTemplateSpec, ValidatePodSpec, validateContainers), on
 * stored forms (defaults applied), with the server's words. What has no
 * rule here yet is listed in docs/APPLY.md.
 */
#include "apply/check.h"
#include "apply/apply_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PORT_RANGE "must be between 1 and 65535, inclusive"

/* A set of names seen (linear: the lists checked are short). */
typedef struct names {
	const smp_value **v;
	size_t n, cap;
} names;

static bool names_has(const names *s, const char *p, size_t n)
{
	for (size_t i = 0; i < s->n; i++) {
		size_t k;
		const char *q = smp__check_str(s->v[i], &k);
		if (k == n && memcmp(p, q, n) == 0)
			return true;
	}
	return false;
}

static void names_add(smp_felist *l, names *s, const smp_value *v)
{
	if (!smp_grow((void **)&s->v, &s->cap, s->n, sizeof(*s->v), 8))
		l->rc = SMP_ENOMEM;
	else
		s->v[s->n++] = v;
}

/* validateContainerPorts */
static void check_container_ports(smp_felist *l, const smp_value *ports)
{
	static const char *const protocols[] = {"SCTP", "TCP", "UDP", NULL};
	names seen = {0};
	size_t at = smp_fe_child(l, "ports");

	for (size_t i = 0; ports && ports->type == SMP_LIST && i < ports->u.list.len; i++) {
		const smp_value *p = ports->u.list.items[i], *name = smp__check_get(p, "name");
		const smp_value *cp = smp__check_get(p, "containerPort"), *hp = smp__check_get(p, "hostPort");
		size_t pi = smp_fe_index(l, i), n;
		const char *s = smp__check_str(name, &n);
		int64_t v;

		if (n && !smp__check_port_name(l, "name", name)) {
			if (names_has(&seen, s, n))
				smp_fe_add_str(l, SMP_FE_DUPLICATE, "name", name, s, n, NULL);
			else
				names_add(l, &seen, name);
		}
		if (!smp__check_int(cp, &v) || v == 0)
			smp_fe_add(l, SMP_FE_REQUIRED, "containerPort", cp ? cp : p, NULL, NULL);
		else if (v < 1 || v > 65535)
			smp_fe_add_int(l, SMP_FE_INVALID, "containerPort", cp, v, PORT_RANGE);
		if (smp__check_int(hp, &v) && v != 0 && (v < 1 || v > 65535))
			smp_fe_add_int(l, SMP_FE_INVALID, "hostPort", hp, v, PORT_RANGE);
		smp__check_enum(l, "protocol", smp__check_get(p, "protocol"), protocols,
		           "\"SCTP\", \"TCP\", \"UDP\"");
		smp_fe_pop(l, pi);
	}
	free(seen.v);
	smp_fe_pop(l, at);
}

/* validateEnvVarValueFrom: one source, and the keys a ConfigMap's or a
 * Secret's reference names. The downward API's field and resource paths
 * have no rules here yet. */
static void check_value_from(smp_felist *l, const smp_value *e)
{
	static const char *const src[] = {"fieldRef", "resourceFieldRef", "configMapKeyRef",
	                                  "secretKeyRef"};
	const smp_value *vf = smp__check_get(e, "valueFrom");
	size_t at, sources = 0, vn;

	if (!vf)
		return;
	at = smp_fe_child(l, "valueFrom");
	smp__check_str(smp__check_get(e, "value"), &vn);
	for (int i = 0; i < 4; i++) {
		const smp_value *r = smp__check_get(vf, src[i]);
		size_t kn, ra;
		const char *k;

		if (!r)
			continue;
		sources++;
		if (i < 2) {
			l->unpredictable = true;
			continue;
		}
		ra = smp_fe_child(l, src[i]);
		smp__check_subdomain(l, "name", smp__check_get(r, "name") ? smp__check_get(r, "name") : r);
		k = smp__check_str(smp__check_get(r, "key"), &kn);
		if (kn == 0)
			smp_fe_add(l, SMP_FE_REQUIRED, "key", r, NULL, NULL);
		else
			smp__check_config_key(l, "key", smp__check_get(r, "key"), k, kn);
		smp_fe_pop(l, ra);
	}
	if (sources == 0)
		smp_fe_add_str(l, SMP_FE_INVALID, NULL, vf, "", 0,
		               "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` "
		               "or `secretKeyRef`");
	else if (vn)
		smp_fe_add_str(l, SMP_FE_INVALID, NULL, vf, "", 0,
		               "may not be specified when `value` is not empty");
	else if (sources > 1)
		smp_fe_add_str(l, SMP_FE_INVALID, NULL, vf, "", 0,
		               "may not have more than one field specified at a time");
	smp_fe_pop(l, at);
}

/* ValidateEnv: a name is required (Kubernetes 1.32 takes any printable
 * name but '=': RelaxedEnvironmentVariableValidation). */
static void check_env(smp_felist *l, const smp_value *env)
{
	size_t at = smp_fe_child(l, "env");

	for (size_t i = 0; env && env->type == SMP_LIST && i < env->u.list.len; i++) {
		const smp_value *e = env->u.list.items[i], *name = smp__check_get(e, "name");
		size_t ei = smp_fe_index(l, i), n;
		const char *s = smp__check_str(name, &n);
		bool bad = false;

		for (size_t k = 0; k < n; k++)
			bad |= s[k] < ' ' || s[k] > '~' || s[k] == '=';
		if (n == 0)
			smp_fe_add(l, SMP_FE_REQUIRED, "name", name ? name : e, NULL, NULL);
		else if (bad)
			smp_fe_add_str(l, SMP_FE_INVALID, "name", name, s, n,
			               "a valid environment variable name must consist only of printable "
			               "ASCII characters other than '='");
		check_value_from(l, e);
		smp_fe_pop(l, ei);
	}
	smp_fe_pop(l, at);
}

/* ValidateVolumeMounts: a mount names a valid volume of the pod. */
static void check_mounts(smp_felist *l, const smp_value *mounts, const names *vols)
{
	names paths = {0};
	size_t at = smp_fe_child(l, "volumeMounts");

	for (size_t i = 0; mounts && mounts->type == SMP_LIST && i < mounts->u.list.len; i++) {
		const smp_value *m = mounts->u.list.items[i], *name = smp__check_get(m, "name");
		const smp_value *mp = smp__check_get(m, "mountPath");
		size_t mi = smp_fe_index(l, i), n, pn;
		const char *s = smp__check_str(name, &n), *p = smp__check_str(mp, &pn);

		if (n == 0)
			smp_fe_add(l, SMP_FE_REQUIRED, "name", name ? name : m, NULL, NULL);
		if (!names_has(vols, s, n))
			smp_fe_add_str(l, SMP_FE_NOT_FOUND, "name", name ? name : m, s, n, NULL);
		if (pn == 0)
			smp_fe_add(l, SMP_FE_REQUIRED, "mountPath", mp ? mp : m, NULL, NULL);
		if (names_has(&paths, p, pn))
			smp_fe_add_str(l, SMP_FE_INVALID, "mountPath", mp, p, pn, "must be unique");
		else if (mp)
			names_add(l, &paths, mp);
		smp_fe_pop(l, mi);
	}
	free(paths.v);
	smp_fe_pop(l, at);
}

/* The resource names whose requests and limits are compared here (the
 * overcommitable standard ones). */
static bool standard_resource(const char *k, size_t n)
{
	return (n == 3 && memcmp(k, "cpu", 3) == 0) || (n == 6 && memcmp(k, "memory", 6) == 0) ||
	       (n == 17 && memcmp(k, "ephemeral-storage", 17) == 0);
}

/* validateResourceRequirements for cpu, memory and ephemeral storage:
 * no negative quantity, no request over its limit. */
static void check_resources(smp_felist *l, const smp_value *res)
{
	const smp_value *lim = smp__check_get(res, "limits"), *req = smp__check_get(res, "requests");
	const char *const part[] = {"limits", "requests"};
	const smp_value *maps[] = {lim, req};
	size_t at = smp_fe_child(l, "resources");

	for (int w = 0; w < 2; w++) {
		const smp_member **sorted = NULL;
		const smp_value *m = maps[w];

		if (!m || m->type != SMP_MAP)
			continue;
		if (smp_sorted_members(&sorted, m, true)) {
			l->rc = SMP_ENOMEM;
			break;
		}
		for (size_t i = 0; i < m->u.map.len; i++) {
			const smp_member *e = smp_member_at(sorted, m, i);
			smp_quantity *q = NULL, *lq = NULL;
			const smp_value *lv;
			size_t qn, pa;
			const char *qs;
			smp_error err;

			if (!standard_resource(e->key, e->klen) ||
			    smp_quantity_from_value(&q, e->val, NULL, &err))
				continue;
			qs = smp_quantity_string(q, &qn);
			pa = smp_fe_child(l, part[w]);
			if (smp_quantity_sign(q) < 0) {
				size_t k = smp_fe_key(l, e->key, e->klen);
				smp_fe_add_str(l, SMP_FE_INVALID, NULL, e->val, qs, qn,
				               "must be greater than or equal to 0");
				smp_fe_pop(l, k);
			}
			if (w == 1 && (lv = smp__check_get(lim, e->key)) &&
			    smp_quantity_from_value(&lq, lv, NULL, &err) == 0 && smp_quantity_cmp(q, lq) > 0) {
				char msg[256];
				size_t ln;
				const char *ls = smp_quantity_string(lq, &ln);

				snprintf(msg, sizeof(msg), "must be less than or equal to %.*s limit of %.*s",
				         (int)e->klen, e->key, (int)ln, ls);
				smp_fe_add_str(l, SMP_FE_INVALID, NULL, e->val, qs, qn, msg);
			}
			smp_fe_pop(l, pa);
			smp_quantity_free(q);
			smp_quantity_free(lq);
		}
		free(sorted);
	}
	smp_fe_pop(l, at);
}

/* validateContainers: each container's common rules, then its name once. */
static void check_containers(smp_felist *l, const smp_value *spec, const smp_value *list,
                             const names *vols)
{
	static const char *const tmp[] = {"File", "FallbackToLogsOnError", NULL};
	static const char *const pull[] = {"Always", "IfNotPresent", "Never", NULL};
	names seen = {0};
	size_t at = smp_fe_child(l, "containers");

	if (!smp__check_len(list)) {
		smp_fe_add(l, SMP_FE_REQUIRED, NULL, list ? list : spec, NULL, NULL);
		smp_fe_pop(l, at);
		return;
	}
	for (size_t i = 0; list->type == SMP_LIST && i < list->u.list.len; i++) {
		const smp_value *c = list->u.list.items[i], *name = smp__check_get(c, "name");
		size_t ci = smp_fe_index(l, i), n, in;
		const char *s = smp__check_str(name, &n);

		if (n == 0)
			smp_fe_add(l, SMP_FE_REQUIRED, "name", name ? name : c, NULL, NULL);
		else
			smp__check_dns_label(l, "name", name);
		if (smp__check_str(smp__check_get(c, "image"), &in), in == 0)
			smp_fe_add(l, SMP_FE_REQUIRED, "image", c, NULL, NULL);
		smp__check_enum(l, "terminationMessagePolicy", smp__check_get(c, "terminationMessagePolicy"),
		           tmp, "\"File\", \"FallbackToLogsOnError\"");
		check_container_ports(l, smp__check_get(c, "ports"));
		check_env(l, smp__check_get(c, "env"));
		check_mounts(l, smp__check_get(c, "volumeMounts"), vols);
		smp__check_enum(l, "imagePullPolicy", smp__check_get(c, "imagePullPolicy"), pull,
		           "\"Always\", \"IfNotPresent\", \"Never\"");
		check_resources(l, smp__check_get(c, "resources"));
		if (names_has(&seen, s, n))
			smp_fe_add_str(l, SMP_FE_DUPLICATE, "name", name ? name : c, s, n, NULL);
		else
			names_add(l, &seen, name);
		if (smp__check_get(c, "restartPolicy"))
			smp_fe_add(l, SMP_FE_FORBIDDEN, "restartPolicy", smp__check_get(c, "restartPolicy"),
			           NULL, "may not be set for non-init containers");
		smp_fe_pop(l, ci);
	}
	free(seen.v);
	smp_fe_pop(l, at);
}

/* ValidateVolumes' names: a volume with a bad name is left out of the set
 * the mounts are checked against. */
static void check_volumes(smp_felist *l, const smp_value *vols, names *ok)
{
	size_t at = smp_fe_child(l, "volumes");

	for (size_t i = 0; vols && vols->type == SMP_LIST && i < vols->u.list.len; i++) {
		const smp_value *v = vols->u.list.items[i], *name = smp__check_get(v, "name");
		size_t vi = smp_fe_index(l, i), before = l->n, n;
		const char *s = smp__check_str(name, &n);

		if (n == 0)
			smp_fe_add(l, SMP_FE_REQUIRED, "name", name ? name : v, NULL, NULL);
		else
			smp__check_dns_label(l, "name", name);
		if (names_has(ok, s, n))
			smp_fe_add_str(l, SMP_FE_DUPLICATE, "name", name, s, n, NULL);
		if (l->n == before && name)
			names_add(l, ok, name);
		smp_fe_pop(l, vi);
	}
	smp_fe_pop(l, at);
}

void smp__check_pod_template(smp_felist *l, const smp_value *tmpl)
{
	static const char *const restart[] = {"Always", "OnFailure", "Never", NULL};
	static const char *const dns[] = {"ClusterFirstWithHostNet", "ClusterFirst", "Default",
	                                  "None", NULL};
	const smp_value *md = smp__check_get(tmpl, "metadata"), *spec = smp__check_get(tmpl, "spec");
	names vols = {0};
	size_t sp;
	int64_t ads;

	/* the template's own path: "spec.template.labels", without
	 * "metadata" (ValidatePodTemplateSpec's fldPath.Child("labels")) */
	smp__check_labels(l, "labels", smp__check_get(md, "labels"));
	smp__check_annotations(l, "annotations", smp__check_get(md, "annotations"));
	sp = smp_fe_child(l, "spec");
	check_volumes(l, smp__check_get(spec, "volumes"), &vols);
	check_containers(l, spec, smp__check_get(spec, "containers"), &vols);
	smp__check_enum(l, "restartPolicy", smp__check_get(spec, "restartPolicy"), restart,
	           "\"Always\", \"OnFailure\", \"Never\"");
	smp__check_enum(l, "dnsPolicy", smp__check_get(spec, "dnsPolicy"), dns,
	           "\"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\"");
	smp__check_labels(l, "nodeSelector", smp__check_get(spec, "nodeSelector"));
	if (smp__check_int(smp__check_get(spec, "activeDeadlineSeconds"), &ads) &&
	    (ads < 1 || ads > 2147483647))
		smp_fe_add_int(l, SMP_FE_INVALID, "activeDeadlineSeconds",
		               smp__check_get(spec, "activeDeadlineSeconds"), ads,
		               "must be between 1 and 2147483647, inclusive");
	for (int i = 0; i < 2; i++) {
		const char *f = i ? "subdomain" : "hostname";
		size_t n;

		if (smp__check_str(smp__check_get(spec, f), &n), n)
			smp__check_dns_label(l, f, smp__check_get(spec, f));
	}
	if (smp__check_len(smp__check_get(spec, "ephemeralContainers")))
		smp_fe_add(l, SMP_FE_FORBIDDEN, "ephemeralContainers", spec, NULL,
		           "ephemeral containers not allowed in pod template");
	smp_fe_pop(l, sp);
	free(vols.v);
}
