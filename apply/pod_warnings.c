/*
 * pod_warnings.c - the API server's own warnings about items a pod
 * template repeats (pkg/api/pod/warnings.go, warningsForPodSpecAndMeta):
 * an env var that hides an earlier one of its name, and container ports
 * defined twice. kubectl prints them as "Warning: ..." lines; the plan
 * gives them instead of its own words for the same repetition.
 */
#include "plan_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the pod spec of a kind lies ("" for a Pod), or NULL. */
static const char *template_path(const char *av, const char *kind)
{
	static const struct { const char *group, *kind, *path; } kinds[] = {
		{"", "Pod", ""},
		{"", "PodTemplate", "template"},
		{"", "ReplicationController", "spec.template"},
		{"apps", "Deployment", "spec.template"},
		{"apps", "ReplicaSet", "spec.template"},
		{"apps", "StatefulSet", "spec.template"},
		{"apps", "DaemonSet", "spec.template"},
		{"batch", "Job", "spec.template"},
		{"batch", "CronJob", "spec.jobTemplate.spec.template"},
	};
	const char *slash = av ? strchr(av, '/') : NULL;
	size_t gl = slash ? (size_t)(slash - av) : 0;

	for (size_t i = 0; kind && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].kind, kind) == 0 && strlen(kinds[i].group) == gl &&
		    strncmp(kinds[i].group, av ? av : "", gl) == 0)
			return kinds[i].path;
	return NULL;
}

static const char *str(const smp_value *v, const char *key)
{
	const char *s = smpv_map_str(v, key);
	return s ? s : "";
}

/* Appends "Warning: <text>" to the entry and the repetition it names to
 * `hidden` ("<list path>\n<key>\n" lines) so that the plan's own warning
 * about the same items is left out. */
static int add(smp_plan_entry *e, smp_buf *hidden, const char *text, const char *list,
               const char *key)
{
	char line[2048];

	snprintf(line, sizeof(line), "Warning: %.2000s", text);
	smp_buf_printf(hidden, "%s\n%s\n", list, key);
	return hidden->oom ? SMP_ENOMEM : smp__plan_warn(e, line, strlen(line));
}

/* env: a later item of a name already seen hides it, unless it refers to
 * it ($(X)) without being only that reference or a valueFrom. */
static int env_warnings(smp_plan_entry *e, smp_buf *hidden, const smp_value *c,
                        const char *cpath, const char *cname, const char *group)
{
	const smp_value *env = smp_map_get(c, "env");
	int rc = 0;

	for (size_t i = 1; i < smp_value_len(env) && !rc; i++) {
		const smp_value *item = smp_list_get(env, i);
		const char *name = str(item, "name"), *value = str(item, "value");
		char ref[600], text[900], list[600], key[600];
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(str(smp_list_get(env, j), "name"), name) == 0;
		if (!seen)
			continue;
		snprintf(ref, sizeof(ref), "$(%s)", name);
		if (!smp_map_get(item, "valueFrom") && strcmp(value, ref) != 0 && strstr(value, ref))
			continue;
		snprintf(text, sizeof(text), "%s.env[%zu]: hides previous definition of \"%s\", "
		         "which may be dropped when using apply", cpath, i, name);
		snprintf(list, sizeof(list), "%s[name=%s].env", group, cname);
		snprintf(key, sizeof(key), "name \"%s\"", name);
		rc = add(e, hidden, text, list, key);
	}
	return rc;
}

/* One container port as the server compares them. */
typedef struct port_seen {
	char field[600];
	char key[64];         /* containerPort/protocol, protocol defaulted */
	const char *host_ip;
	int64_t host_port;
	char list[600];       /* the plan's own path of the container's ports */
} port_seen;

/* The server's warnings about a container's ports defined twice (the
 * same port, protocol and host IP), in its words. */
static int port_warnings(smp_plan_entry *e, smp_buf *hidden, port_seen *ps, size_t *n,
                         size_t max, const smp_value *c, const char *cpath, const char *cname,
                         const char *group)
{
	const smp_value *ports = smp_map_get(c, "ports");
	int rc = 0;

	for (size_t i = 0; i < smp_value_len(ports) && *n < max && !rc; i++) {
		const smp_value *p = smp_list_get(ports, i);
		port_seen *me = &ps[*n];
		const char *proto = str(p, "protocol");
		int64_t cp = smp_value_int(smp_map_get(p, "containerPort"));

		snprintf(me->field, sizeof(me->field), "%s.ports[%zu]", cpath, i);
		snprintf(me->key, sizeof(me->key), "%lld/%s", (long long)cp, *proto ? proto : "TCP");
		snprintf(me->list, sizeof(me->list), "%s[name=%s].ports", group, cname);
		me->host_ip = str(p, "hostIP");
		me->host_port = smp_value_int(smp_map_get(p, "hostPort"));
		for (size_t j = 0; j < *n && !rc; j++) {
			const port_seen *o = &ps[j];
			bool a = !*me->host_ip, b = !*o->host_ip;
			const char *what = NULL;
			char text[1400], key[64];

			if (strcmp(o->key, me->key) != 0)
				continue;
			if (strcmp(me->host_ip, o->host_ip) == 0 && me->host_port == o->host_port)
				what = "duplicate";
			else if (me->host_port == 0 || o->host_port == 0)
				what = "overlapping";
			else if (me->host_port == o->host_port && (a || b) && !(a && b))
				what = "dangerously ambiguous";
			if (!what)
				continue;
			snprintf(text, sizeof(text), "%s: %s port definition with %s", me->field, what,
			         o->field);
			snprintf(key, sizeof(key), "containerPort %lld", (long long)cp);
			/* the plan's own words only name items of one container */
			rc = add(e, hidden, text, strcmp(o->list, me->list) == 0 ? me->list : "", key);
		}
		(*n)++;
	}
	return rc;
}

/* What the visits of the containers share. */
typedef struct visit {
	smp_plan_entry *e;
	smp_buf *hidden;
	port_seen *ps;
	size_t n, max;
} visit;

static const char *const groups[] = {"initContainers", "containers", "ephemeralContainers"};

/* Calls fn on every container of the pod spec at `base`, in the order of
 * pods.VisitContainersWithPath (init containers, containers, ephemeral
 * ones), with its path ("spec.template.spec.containers[0]") and its
 * group's path. */
static int visit_containers(const smp_value *spec, const char *base, visit *v,
                            int (*fn)(visit *, const smp_value *, const char *, const char *))
{
	int rc = 0;

	for (size_t g = 0; g < 3 && !rc; g++) {
		const smp_value *cs = smp_map_get(spec, groups[g]);
		char group[300];

		snprintf(group, sizeof(group), "%s.%s", base, groups[g]);
		for (size_t i = 0; i < smp_value_len(cs) && !rc; i++) {
			char cpath[340];

			snprintf(cpath, sizeof(cpath), "%.300s[%zu]", group, i);
			rc = fn(v, smp_list_get(cs, i), cpath, group);
		}
	}
	return rc;
}

static int visit_env(visit *v, const smp_value *c, const char *cpath, const char *group)
{
	return env_warnings(v->e, v->hidden, c, cpath, str(c, "name"), group);
}

static int visit_ports(visit *v, const smp_value *c, const char *cpath, const char *group)
{
	return port_warnings(v->e, v->hidden, v->ps, &v->n, v->max, c, cpath, str(c, "name"),
	                     group);
}

int smp__pod_warnings(smp_plan_entry *e, const smp_value *obj, smp_buf *hidden)
{
	const char *tp = template_path(smp_value_string(smp_map_get(obj, "apiVersion"), NULL),
	                               smp_value_string(smp_map_get(obj, "kind"), NULL));
	const smp_value *spec;
	visit v = {e, hidden, NULL, 0, 0};
	char base[256];
	int rc;

	if (!tp)
		return 0;
	snprintf(base, sizeof(base), "%s%sspec", tp, *tp ? "." : "");
	spec = smp_value_at(obj, base);
	for (size_t g = 0; g < 3; g++)
		for (size_t i = 0; i < smp_value_len(smp_map_get(spec, groups[g])); i++)
			v.max += smp_value_len(smp_map_get(smp_list_get(smp_map_get(spec, groups[g]), i),
			                                   "ports"));
	if (!(v.ps = calloc(v.max + 1, sizeof(*v.ps))))
		return SMP_ENOMEM;
	/* as the server: every container's env first, then the ports of all */
	rc = visit_containers(spec, base, &v, visit_env);
	if (!rc)
		rc = visit_containers(spec, base, &v, visit_ports);
	free(v.ps);
	return rc;
}
