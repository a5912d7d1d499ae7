/*
 * fake_apiserver.c - just enough of a Kubernetes API server, on 127.0.0.1,
 * for `kubectl apply` to run against it and show what it would send: the
 * kubectl differential test compares that request with `smpatch apply`.
 *
 * usage: fake_apiserver STATE_DIR PORT_FILE
 *
 * Binds an ephemeral loopback port and writes it to PORT_FILE. Serves
 * discovery for a fixed set of kinds, 404 for /openapi (so kubectl uses its
 * compiled-in patch metadata, as with no server schema), the object in
 * STATE_DIR/live.json for any other GET (404 when absent), and records every
 * PATCH/POST/PUT body in STATE_DIR/request.json and its method and content
 * type in STATE_DIR/request.type. With STATE_DIR/objects.json (a list of
 * live objects, or a List) objects and collections are served from it
 * instead (label selectors: k=v, k==v, k!=v, k, !k) and DELETE answers
 * success, so that `kubectl apply --prune` runs; each DELETE's body is
 * appended as a line to STATE_DIR/delete.json. One request per
 * connection. Exits after 30 s without a connection, so a forgotten server
 * does not linger.
 *
 * usage: fake_apiserver STATE_DIR PORT_FILE ORACLE (server-side mode)
 *
 * With ORACLE, the server-side apply reference (../shared/oracle-ssa, run
 * with $SSA_ORACLE_SWAGGER) computes every write as the API server's field
 * manager does, and the objects live in STATE_DIR/objects.json, rewritten
 * after each write, so that kubectl's follow-up requests meet real replies:
 * a PATCH of type apply-patch+yaml is an apply (fieldManager and force from
 * the query; an empty or missing fieldManager is the server's 422; a
 * conflict its 409 with FieldManagerConflict causes); other PATCH types
 * are applied to the stored object (smp_patch_apply) and, like PUT and
 * POST, written as an update by fieldManager (else the User-Agent's
 * product, as the server names it). A create gets a uid and a
 * creationTimestamp, every write the next resourceVersion; POST over an
 * existing object is 409 AlreadyExists, PUT or a non-apply PATCH of a
 * missing one 404; DELETE removes the object (404 when missing). Every
 * request (method, path, query, content type, body) is appended as a line
 * to STATE_DIR/requests.jsonl.
 */
#include "smpatch.h"

#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define IDLE_MS 30000
#define MAX_REQ (8u << 20)

struct res {
	const char *gv, *name, *kind;
	int namespaced;
};

/* Kinds discovery knows; kubectl needs them to map a file to a URL. */
static const struct res resources[] = {
	{ "v1", "configmaps", "ConfigMap", 1 },
	{ "v1", "services", "Service", 1 },
	{ "v1", "pods", "Pod", 1 },
	{ "v1", "secrets", "Secret", 1 },
	{ "v1", "serviceaccounts", "ServiceAccount", 1 },
	{ "v1", "persistentvolumeclaims", "PersistentVolumeClaim", 1 },
	{ "v1", "namespaces", "Namespace", 0 },
	{ "v1", "nodes", "Node", 0 },
	{ "v1", "endpoints", "Endpoints", 1 },
	{ "v1", "persistentvolumes", "PersistentVolume", 0 },
	{ "v1", "replicationcontrollers", "ReplicationController", 1 },
	{ "apps/v1", "deployments", "Deployment", 1 },
	{ "apps/v1", "daemonsets", "DaemonSet", 1 },
	{ "apps/v1", "statefulsets", "StatefulSet", 1 },
	{ "apps/v1", "replicasets", "ReplicaSet", 1 },
	{ "batch/v1", "jobs", "Job", 1 },
	{ "batch/v1", "cronjobs", "CronJob", 1 },
	{ "batch/v1beta1", "cronjobs", "CronJob", 1 },
	{ "extensions/v1beta1", "deployments", "Deployment", 1 },
	{ "extensions/v1beta1", "ingresses", "Ingress", 1 },
	{ "policy/v1", "poddisruptionbudgets", "PodDisruptionBudget", 1 },
	{ "policy/v1beta1", "poddisruptionbudgets", "PodDisruptionBudget", 1 },
	{ "policy/v1beta1", "podsecuritypolicies", "PodSecurityPolicy", 0 },
	{ "networking.k8s.io/v1", "ingresses", "Ingress", 1 },
	{ "networking.k8s.io/v1", "networkpolicies", "NetworkPolicy", 1 },
	{ "networking.k8s.io/v1", "ingressclasses", "IngressClass", 0 },
	{ "admissionregistration.k8s.io/v1", "validatingwebhookconfigurations",
	  "ValidatingWebhookConfiguration", 0 },
	{ "admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations",
	  "MutatingWebhookConfiguration", 0 },
	{ "rbac.authorization.k8s.io/v1", "roles", "Role", 1 },
	{ "rbac.authorization.k8s.io/v1", "clusterroles", "ClusterRole", 0 },
	{ "rbac.authorization.k8s.io/v1", "rolebindings", "RoleBinding", 1 },
	{ "rbac.authorization.k8s.io/v1", "clusterrolebindings", "ClusterRoleBinding", 0 },
	{ "autoscaling/v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", 1 },
	{ "apiextensions.k8s.io/v1", "customresourcedefinitions", "CustomResourceDefinition", 0 },
	{ "apiregistration.k8s.io/v1", "apiservices", "APIService", 0 },
	{ "example.com/v1", "widgets", "Widget", 1 },
	{ "example.com/v1", "gadgets", "Gadget", 0 },
};
#define NRES (sizeof resources / sizeof resources[0])

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		char *p;
		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static int buf_str(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void respond(int fd, int code, const char *body, size_t len)
{
	char head[256];
	int n = snprintf(head, sizeof head,
			 "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
			 "Content-Length: %zu\r\nConnection: close\r\n\r\n",
			 code, code == 200 ? "OK" : code == 201 ? "Created" : code == 404 ? "Not Found" :
			 code == 409 ? "Conflict" : code == 422 ? "Unprocessable Entity" : "Error", len);
	if (write_all(fd, head, (size_t)n) == 0)
		write_all(fd, body, len);
}

static void not_found(int fd)
{
	static const char s[] = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
				"\"reason\":\"NotFound\",\"code\":404,\"message\":\"not found\"}";
	respond(fd, 404, s, sizeof s - 1);
}

static int gv_known(const char *gv)
{
	size_t i;

	for (i = 0; i < NRES; i++)
		if (strcmp(resources[i].gv, gv) == 0)
			return 1;
	return 0;
}

static void resource_list(struct buf *b, const char *gv)
{
	size_t i;
	int first = 1;

	buf_str(b, "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"");
	buf_str(b, gv);
	buf_str(b, "\",\"resources\":[");
	for (i = 0; i < NRES; i++) {
		if (strcmp(resources[i].gv, gv) != 0)
			continue;
		buf_str(b, first ? "{\"name\":\"" : ",{\"name\":\"");
		first = 0;
		buf_str(b, resources[i].name);
		buf_str(b, "\",\"singularName\":\"\",\"namespaced\":");
		buf_str(b, resources[i].namespaced ? "true" : "false");
		buf_str(b, ",\"kind\":\"");
		buf_str(b, resources[i].kind);
		buf_str(b, "\",\"verbs\":[\"create\",\"delete\",\"get\",\"list\",\"patch\","
			   "\"update\",\"watch\"]}");
	}
	buf_str(b, "]}");
}

/* APIGroupList: each group once, its versions in table order (the first
 * is the preferred one). */
static void group_list(struct buf *b)
{
	size_t i, j;
	int first = 1;

	buf_str(b, "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[");
	for (i = 0; i < NRES; i++) {
		const char *gv = resources[i].gv, *slash = strchr(gv, '/');
		size_t glen;
		int seen = 0, firstv = 1;

		if (!slash)
			continue;
		glen = (size_t)(slash - gv);
		for (j = 0; j < i && !seen; j++)
			seen = strncmp(resources[j].gv, gv, glen + 1) == 0;
		if (seen)
			continue;
		buf_str(b, first ? "{\"name\":\"" : ",{\"name\":\"");
		first = 0;
		buf_add(b, gv, glen);
		buf_str(b, "\",\"versions\":[");
		for (j = i; j < NRES; j++) {
			const char *v = resources[j].gv;
			int dup = 0;
			size_t k;

			if (strncmp(v, gv, glen + 1) != 0)
				continue;
			for (k = i; k < j && !dup; k++)
				dup = strcmp(resources[k].gv, v) == 0;
			if (dup)
				continue;
			buf_str(b, firstv ? "{\"groupVersion\":\"" : ",{\"groupVersion\":\"");
			firstv = 0;
			buf_str(b, v);
			buf_str(b, "\",\"version\":\"");
			buf_str(b, v + glen + 1);
			buf_str(b, "\"}");
		}
		buf_str(b, "],\"preferredVersion\":{\"groupVersion\":\"");
		buf_str(b, gv);
		buf_str(b, "\",\"version\":\"");
		buf_str(b, slash + 1);
		buf_str(b, "\"}}");
	}
	buf_str(b, "]}");
}

static int read_file(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	char tmp[4096];
	size_t n;
	int rc = 0;

	if (!f)
		return -1;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		if (buf_add(b, tmp, n) < 0) {
			rc = -1;
			break;
		}
	fclose(f);
	return rc;
}

static int write_file(const char *path, const char *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int rc;

	if (!f)
		return -1;
	rc = fwrite(p, 1, n, f) == n ? 0 : -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

/* The value of header `name` (without CRLF) into out. */
static void header(const char *req, const char *name, char *out, size_t size)
{
	const char *h = req;
	size_t n = strlen(name);

	out[0] = '\0';
	while ((h = strstr(h, "\r\n")) != NULL) {
		h += 2;
		if (h[0] == '\r')
			return;
		if (strncasecmp(h, name, n) == 0 && h[n] == ':') {
			const char *v = h + n + 1, *e;
			while (*v == ' ')
				v++;
			e = strstr(v, "\r\n");
			if (!e)
				return;
			snprintf(out, size, "%.*s", (int)(e - v), v);
			return;
		}
	}
}

/* Reads one request: headers, then Content-Length bytes of body. */
static int read_request(int fd, struct buf *req, size_t *body_off, size_t *body_len)
{
	char tmp[8192];
	int have_headers = 0;
	size_t want = 0;

	for (;;) {
		ssize_t r;

		if (have_headers && req->len >= *body_off + want)
			break;
		r = read(fd, tmp, sizeof tmp);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (buf_add(req, tmp, (size_t)r) < 0 || req->len > MAX_REQ)
			return -1;
		if (!have_headers && strstr(req->p, "\r\n\r\n")) {
			char cl[32];

			have_headers = 1;
			header(req->p, "Content-Length", cl, sizeof cl);
			want = strtoul(cl, NULL, 10);
			*body_off = (size_t)(strstr(req->p, "\r\n\r\n") - req->p) + 4;
		}
	}
	*body_len = want;
	return 0;
}

/* Decodes %XX and '+' of a query value in place. */
static void url_decode(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (*s == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
			char hex[3] = { s[1], s[2], 0 };
			*o++ = (char)strtol(hex, NULL, 16);
			s += 2;
		} else {
			*o++ = *s == '+' ? ' ' : *s;
		}
	}
	*o = '\0';
}

static int str_is(const smp_value *v, const char *s)
{
	const char *t = smp_value_string(v, NULL);
	return t && strcmp(t, s) == 0;
}

/* Does `labels` satisfy one selector term? */
static int term_matches(const smp_value *labels, char *term)
{
	char *op;
	const smp_value *v;

	if (term[0] == '!')
		return smp_map_get(labels, term + 1) == NULL;
	if ((op = strstr(term, "!=")) != NULL) {
		*op = '\0';
		v = smp_map_get(labels, term);
		return !v || !str_is(v, op + 2);
	}
	if ((op = strchr(term, '=')) != NULL) {
		*op = '\0';
		v = smp_map_get(labels, term);
		return v && str_is(v, op + (op[1] == '=' ? 2 : 1));
	}
	return smp_map_get(labels, term) != NULL;
}

static int selector_matches(const smp_value *obj, const char *selector)
{
	const smp_value *labels = smp_value_at(obj, "metadata.labels");
	char sel[1024], *save = NULL, *t;

	snprintf(sel, sizeof sel, "%s", selector);
	for (t = strtok_r(sel, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		if (*t && !term_matches(labels, t))
			return 0;
	}
	return 1;
}

static void add_value(struct buf *b, const smp_value *v)
{
	smp_print_options po = SMP_PRINT_OPTIONS_INIT;
	smp_error err;
	char *s = NULL;
	size_t n;

	if (smp_print(&s, &n, v, &po, &err) == SMP_OK)
		buf_add(b, s, n);
	smp_free(s);
}

/* Serves GET and PATCH of objects and collections from objects.json.
 * Returns 0 when it answered, -1 when objects.json does not exist. */
static int serve_objects(int fd, const char *state, const char *path, const char *query)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	char file[4096], gv[256], res[128], ns[256] = "", name[256] = "", sel[1024] = "";
	const char *kind = NULL, *p, *q;
	const smp_value *root, *items;
	struct buf out = { 0 };
	smp_doc *doc = NULL;
	smp_error err;
	size_t i, n;
	int first = 1;
	char rest[2048], *seg[6], *save = NULL;
	int nseg = 0;

	snprintf(file, sizeof file, "%s/objects.json", state);
	if (access(file, R_OK) != 0)
		return -1;
	if (smp_doc_parse_file(&doc, file, &po, &err) != SMP_OK) {
		not_found(fd);
		return 0;
	}
	root = smp_doc_root(doc, 0);
	items = smp_value_type(root) == SMP_LIST ? root : smp_map_get(root, "items");
	/* /api/v1/REST or /apis/G/V/REST */
	if (strncmp(path, "/api/", 5) == 0) {
		p = path + 5;
		q = strchr(p, '/');
		snprintf(gv, sizeof gv, "%.*s", q ? (int)(q - p) : (int)strlen(p), p);
	} else if (strncmp(path, "/apis/", 6) == 0) {
		p = path + 6;
		q = strchr(p, '/');
		q = q ? strchr(q + 1, '/') : NULL;
		snprintf(gv, sizeof gv, "%.*s", q ? (int)(q - p) : (int)strlen(p), p);
	} else {
		q = NULL;
	}
	if (!q)
		goto missing;
	snprintf(rest, sizeof rest, "%s", q + 1);
	for (p = strtok_r(rest, "/", &save); p && nseg < 6; p = strtok_r(NULL, "/", &save))
		seg[nseg++] = (char *)p;
	i = 0;
	if (nseg >= 3 && strcmp(seg[0], "namespaces") == 0) {
		snprintf(ns, sizeof ns, "%s", seg[1]);
		i = 2;
	}
	if ((int)i >= nseg)
		goto missing;
	snprintf(res, sizeof res, "%s", seg[i]);
	if ((int)i + 1 < nseg)
		snprintf(name, sizeof name, "%s", seg[i + 1]);
	for (n = 0; n < NRES; n++)
		if (strcmp(resources[n].gv, gv) == 0 && strcmp(resources[n].name, res) == 0)
			kind = resources[n].kind;
	if (!kind)
		goto missing;
	if (query && (p = strstr(query, "labelSelector=")) != NULL) {
		snprintf(sel, sizeof sel, "%.*s", (int)strcspn(p + 14, "&"), p + 14);
		url_decode(sel);
	}
	if (!name[0]) {
		buf_str(&out, "{\"kind\":\"");
		buf_str(&out, kind);
		buf_str(&out, "List\",\"apiVersion\":\"");
		buf_str(&out, gv);
		buf_str(&out, "\",\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[");
	}
	for (i = 0; i < smp_value_len(items); i++) {
		const smp_value *o = smp_list_get(items, i);
		const smp_value *ons = smp_value_at(o, "metadata.namespace");

		if (!str_is(smp_map_get(o, "apiVersion"), gv) || !str_is(smp_map_get(o, "kind"), kind))
			continue;
		if (ns[0] && !str_is(ons, ns))
			continue;
		if (name[0]) {
			if (!str_is(smp_value_at(o, "metadata.name"), name))
				continue;
			add_value(&out, o);
			respond(fd, 200, out.p, out.len);
			goto done;
		}
		if (!selector_matches(o, sel))
			continue;
		if (!first)
			buf_str(&out, ",");
		first = 0;
		add_value(&out, o);
	}
	if (name[0])
		goto missing;
	buf_str(&out, "]}");
	respond(fd, 200, out.p, out.len);
	goto done;
missing:
	not_found(fd);
done:
	free(out.p);
	smp_doc_free(doc);
	return 0;
}

/* ------------------------------------------------------------ server-side mode */

/* The oracle, a coprocess answering one JSON line per request line. */
struct oracle {
	FILE *in, *out;
	unsigned long rv; /* the last resourceVersion given */
	unsigned long id;
};

static int oracle_start(struct oracle *o, const char *bin)
{
	int to[2], from[2];
	pid_t pid;

	if (pipe(to) || pipe(from))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[0]);
		close(to[1]);
		close(from[0]);
		close(from[1]);
		execl(bin, bin, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	o->in = fdopen(to[1], "w");
	o->out = fdopen(from[0], "r");
	o->rv = 1000;
	return o->in && o->out ? 0 : -1;
}

/* A JSON string of s. */
static void json_str(struct buf *b, const char *s)
{
	buf_str(b, "\"");
	for (; *s; s++) {
		char e[8];
		if (*s == '"' || *s == '\\') {
			e[0] = '\\';
			e[1] = *s;
			buf_add(b, e, 2);
		} else if ((unsigned char)*s < 0x20) {
			snprintf(e, sizeof e, "\\u%04x", (unsigned char)*s);
			buf_str(b, e);
		} else {
			buf_add(b, s, 1);
		}
	}
	buf_str(b, "\"");
}

/* The value of query parameter `name`, decoded; found or not. */
static int query_param(const char *query, const char *name, char *out, size_t size)
{
	size_t n = strlen(name);
	const char *p = query;

	out[0] = '\0';
	while (p && *p) {
		if (strncmp(p, name, n) == 0 && p[n] == '=') {
			snprintf(out, size, "%.*s", (int)strcspn(p + n + 1, "&"), p + n + 1);
			url_decode(out);
			return 1;
		}
		p = strchr(p, '&');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

/* The Status of a refused write. */
static void status(struct buf *b, int code, const char *reason, const char *message,
                   const char *details)
{
	char c[16];

	buf_str(b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
	           "\"status\":\"Failure\",\"message\":");
	json_str(b, message);
	buf_str(b, ",\"reason\":\"");
	buf_str(b, reason);
	buf_str(b, "\"");
	if (details) {
		buf_str(b, ",\"details\":");
		buf_str(b, details);
	}
	snprintf(c, sizeof c, "%d", code);
	buf_str(b, ",\"code\":");
	buf_str(b, c);
	buf_str(b, "}");
}

/* Appends the request to STATE_DIR/requests.jsonl. */
static void log_request(const char *state, const char *method, const char *path,
                        const char *query, const char *ctype, const char *body, size_t blen)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	struct buf l = { 0 };
	char file[4096];
	smp_doc *d = NULL;
	smp_error err;
	FILE *f;

	buf_str(&l, "{\"method\":");
	json_str(&l, method);
	buf_str(&l, ",\"path\":");
	json_str(&l, path);
	buf_str(&l, ",\"query\":");
	json_str(&l, query);
	buf_str(&l, ",\"contentType\":");
	json_str(&l, ctype);
	buf_str(&l, ",\"body\":");
	if (blen && smp_doc_parse(&d, body, blen, &po, &err) == SMP_OK && smp_doc_count(d) == 1)
		add_value(&l, smp_doc_root(d, 0));
	else
		buf_str(&l, "null");
	buf_str(&l, "}\n");
	smp_doc_free(d);
	snprintf(file, sizeof file, "%s/requests.jsonl", state);
	if ((f = fopen(file, "a"))) {
		fwrite(l.p, 1, l.len, f);
		fclose(f);
	}
	free(l.p);
}

/* Where a write goes: group/version, kind, namespace, name (for a POST,
 * the body's). 0, or -1 for a path no resource serves. */
static int write_target(const char *path, const smp_value *body, char *gv, size_t gvs,
                        const char **kind, char *ns, size_t nss, char *name, size_t names)
{
	char rest[2048], *seg[6], *save = NULL, *t, res[128];
	const char *p, *q;
	int nseg = 0, i = 0;

	if (strncmp(path, "/api/", 5) == 0) {
		p = path + 5;
		q = strchr(p, '/');
	} else if (strncmp(path, "/apis/", 6) == 0) {
		p = path + 6;
		q = strchr(p, '/');
		q = q ? strchr(q + 1, '/') : NULL;
	} else {
		return -1;
	}
	if (!q)
		return -1;
	snprintf(gv, gvs, "%.*s", (int)(q - p), p);
	snprintf(rest, sizeof rest, "%s", q + 1);
	for (t = strtok_r(rest, "/", &save); t && nseg < 6; t = strtok_r(NULL, "/", &save))
		seg[nseg++] = t;
	ns[0] = name[0] = '\0';
	if (nseg >= 2 && strcmp(seg[0], "namespaces") == 0) {
		snprintf(ns, nss, "%s", seg[1]);
		i = 2;
	}
	if (i >= nseg)
		return -1;
	snprintf(res, sizeof res, "%s", seg[i]);
	if (i + 1 < nseg)
		snprintf(name, names, "%s", seg[i + 1]);
	else if (smp_value_string(smp_value_at(body, "metadata.name"), NULL))
		snprintf(name, names, "%s", smp_value_string(smp_value_at(body, "metadata.name"), NULL));
	*kind = NULL;
	for (size_t n = 0; n < NRES; n++)
		if (strcmp(resources[n].gv, gv) == 0 && strcmp(resources[n].name, res) == 0)
			*kind = resources[n].kind;
	return *kind && name[0] ? 0 : -1;
}

/* Rewrites objects.json with `obj` in the place of the object it names
 * (index `at`, or appended when at is -1; obj NULL: that object
 * removed). */
static void store(const char *state, const smp_value *items, ptrdiff_t at, const smp_value *obj)
{
	struct buf out = { 0 };
	char file[4096];
	int first = 1;

	buf_str(&out, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
	for (size_t i = 0; i < smp_value_len(items); i++) {
		if ((ptrdiff_t)i == at && !obj)
			continue;
		if (!first)
			buf_str(&out, ",");
		first = 0;
		add_value(&out, (ptrdiff_t)i == at ? obj : smp_list_get(items, i));
	}
	if (at < 0 && obj) {
		if (!first)
			buf_str(&out, ",");
		add_value(&out, obj);
	}
	buf_str(&out, "]}\n");
	snprintf(file, sizeof file, "%s/objects.json", state);
	write_file(file, out.p, out.len);
	free(out.p);
}

/* The oracle's answer to one write: the object to store (a new document
 * in *out) or the Status refusing it (in *refusal, with its code). */
static int ask_oracle(struct oracle *o, const smp_value *live, const smp_value *config,
                      const char *manager, int force, int apply, smp_doc **out,
                      struct buf *refusal)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	struct buf q = { 0 }, patch = { 0 };
	char *line = NULL, rv[32];
	size_t cap = 0;
	ssize_t n;
	smp_doc *ans = NULL;
	smp_error err;
	const smp_value *r, *obj;
	int code = 0;

	snprintf(rv, sizeof rv, "%lu", ++o->id);
	buf_str(&q, "{\"id\":\"");
	buf_str(&q, rv);
	buf_str(&q, "\",\"live\":");
	if (live)
		add_value(&q, live);
	else
		buf_str(&q, "null");
	buf_str(&q, ",\"config\":");
	add_value(&q, config);
	buf_str(&q, ",\"manager\":");
	json_str(&q, manager);
	buf_str(&q, force ? ",\"force\":true" : ",\"force\":false");
	buf_str(&q, apply ? ",\"op\":\"apply\"}\n" : ",\"op\":\"update\"}\n");
	fwrite(q.p, 1, q.len, o->in);
	fflush(o->in);
	free(q.p);
	if ((n = getline(&line, &cap, o->out)) <= 0 ||
	    smp_doc_parse(&ans, line, (size_t)n, &po, &err) != SMP_OK) {
		free(line);
		status(refusal, 500, "InternalError", "the oracle did not answer", NULL);
		return 500;
	}
	free(line);
	r = smp_doc_root(ans, 0);
	if (smp_value_type(smp_map_get(r, "ok")) != SMP_BOOL || !smp_value_bool(smp_map_get(r, "ok"))) {
		const smp_value *cs = smp_map_get(r, "conflicts");
		const char *msg = smp_value_string(smp_map_get(r, "error"), NULL);

		if (smp_value_len(cs)) {
			struct buf d = { 0 };

			buf_str(&d, "{\"causes\":[");
			for (size_t i = 0; i < smp_value_len(cs); i++) {
				const smp_value *c = smp_list_get(cs, i);
				const char *m = smp_value_string(smp_map_get(c, "manager"), NULL);
				const char *pth = smp_value_string(smp_map_get(c, "path"), NULL);
				struct buf cm = { 0 };

				buf_str(&cm, "conflict with ");
				json_str(&cm, m ? m : "");
				buf_str(&d, i ? ",{\"reason\":\"FieldManagerConflict\",\"message\":"
				              : "{\"reason\":\"FieldManagerConflict\",\"message\":");
				json_str(&d, cm.p);
				buf_str(&d, ",\"field\":");
				json_str(&d, pth ? pth : "");
				buf_str(&d, "}");
				free(cm.p);
			}
			buf_str(&d, "]}");
			status(refusal, 409, "Conflict", msg ? msg : "conflict", d.p);
			free(d.p);
			code = 409;
		} else {
			status(refusal, 422, "Invalid", msg ? msg : "invalid", NULL);
			code = 422;
		}
		smp_doc_free(ans);
		return code;
	}
	/* the object with its managedFields and the next resourceVersion; a
	 * create's uid and creationTimestamp */
	obj = smp_map_get(r, "object");
	snprintf(rv, sizeof rv, "%lu", ++o->rv);
	buf_str(&patch, "{\"metadata\":{\"managedFields\":");
	add_value(&patch, smp_map_get(r, "managedFields"));
	buf_str(&patch, ",\"resourceVersion\":\"");
	buf_str(&patch, rv);
	buf_str(&patch, "\"");
	if (!live && !smp_value_at(obj, "metadata.uid")) {
		buf_str(&patch, ",\"uid\":\"00000000-0000-0000-0000-");
		snprintf(rv, sizeof rv, "%012lu", o->rv);
		buf_str(&patch, rv);
		buf_str(&patch, "\"");
	}
	if (!live && !smp_value_at(obj, "metadata.creationTimestamp"))
		buf_str(&patch, ",\"creationTimestamp\":\"2026-01-01T00:00:00Z\"");
	buf_str(&patch, "}}");
	{
		smp_patch_options opt = SMP_PATCH_OPTIONS_INIT;
		smp_doc *pd = NULL;

		opt.type = SMP_PATCH_MERGE;
		if (smp_doc_parse(&pd, patch.p, patch.len, &po, &err) != SMP_OK ||
		    smp_patch_apply(out, obj, smp_doc_root(pd, 0), &opt, &err) != SMP_OK)
			code = 500;
		smp_doc_free(pd);
	}
	free(patch.p);
	smp_doc_free(ans);
	if (code)
		status(refusal, 500, "InternalError", "cannot build the stored object", NULL);
	return code ? code : live ? 200 : 201;
}

/* A PATCH, POST or PUT in server-side mode. */
static void ssa_write(int fd, const char *state, struct oracle *o, const char *method,
                      const char *path, const char *query, const char *ctype,
                      const char *useragent, const char *body, size_t blen)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	char file[4096], gv[256], ns[256], name[256], manager[256], force[16];
	const char *kind = NULL;
	smp_doc *objs = NULL, *bd = NULL, *result = NULL, *patched = NULL;
	const smp_value *items = NULL, *live = NULL, *config;
	struct buf out = { 0 };
	ptrdiff_t at = -1;
	smp_error err;
	int apply = strcmp(method, "PATCH") == 0 && strstr(ctype, "apply-patch") != NULL;
	int code;

	snprintf(file, sizeof file, "%s/objects.json", state);
	if (smp_doc_parse_file(&objs, file, &po, &err) == SMP_OK) {
		const smp_value *root = smp_doc_root(objs, 0);
		items = smp_value_type(root) == SMP_LIST ? root : smp_map_get(root, "items");
	}
	if (strcmp(method, "DELETE") == 0 && blen == 0) {
		body = "{}";
		blen = 2;
	}
	if (smp_doc_parse(&bd, body, blen, &po, &err) != SMP_OK || smp_doc_count(bd) != 1) {
		status(&out, 400, "BadRequest", "the body does not parse", NULL);
		code = 400;
		goto answer;
	}
	config = smp_doc_root(bd, 0);
	if (write_target(path, config, gv, sizeof gv, &kind, ns, sizeof ns, name, sizeof name)) {
		not_found(fd);
		goto done;
	}
	for (size_t i = 0; i < smp_value_len(items); i++) {
		const smp_value *x = smp_list_get(items, i);
		const char *xns = smp_value_string(smp_value_at(x, "metadata.namespace"), NULL);

		if (str_is(smp_map_get(x, "kind"), kind) &&
		    str_is(smp_value_at(x, "metadata.name"), name) &&
		    strcmp(xns ? xns : "", ns) == 0) {
			live = x;
			at = (ptrdiff_t)i;
			break;
		}
	}
	if (strcmp(method, "DELETE") == 0) {
		/* the object goes; the answer is a Status, as the server's for a
		 * background deletion */
		if (!live) {
			not_found(fd);
			goto done;
		}
		store(state, items, at, NULL);
		buf_str(&out, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Success\"}");
		code = 200;
		goto answer;
	}
	if (!query_param(query, "fieldManager", manager, sizeof manager) && !apply)
		snprintf(manager, sizeof manager, "%.*s", (int)strcspn(useragent, "/"), useragent);
	query_param(query, "force", force, sizeof force);
	if (apply && !manager[0]) {
		status(&out, 422, "Invalid", "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: "
		       "Required value: is required for apply patch",
		       "{\"group\":\"meta.k8s.io\",\"kind\":\"PatchOptions\",\"causes\":[{\"reason\":"
		       "\"FieldValueRequired\",\"message\":\"Required value: is required for apply "
		       "patch\",\"field\":\"fieldManager\"}]}");
		code = 422;
		goto answer;
	}
	if (strcmp(method, "POST") == 0 && live) {
		/* apimachinery's NewAlreadyExists: `configmaps "x" already exists`,
		 * the resource qualified by its group */
		struct buf m = { 0 }, d = { 0 }, qr = { 0 };
		const char *slash = strchr(gv, '/');

		buf_str(&qr, strstr(path, "/namespaces/") ? strchr(strstr(path, "/namespaces/") + 12, '/') + 1
		                                          : strrchr(path, '/') + 1);
		qr.len = strcspn(qr.p, "/");
		qr.p[qr.len] = '\0';
		if (slash) {
			buf_str(&qr, ".");
			buf_add(&qr, gv, (size_t)(slash - gv));
		}
		buf_str(&m, qr.p);
		buf_str(&m, " ");
		json_str(&m, name);
		buf_str(&m, " already exists");
		buf_str(&d, "{\"name\":");
		json_str(&d, name);
		buf_str(&d, ",\"group\":");
		{
			char g[128];
			snprintf(g, sizeof g, "%.*s", slash ? (int)(slash - gv) : 0, gv);
			json_str(&d, g);
		}
		buf_str(&d, ",\"kind\":");
		qr.p[strcspn(qr.p, ".")] = '\0';
		json_str(&d, qr.p);
		buf_str(&d, "}");
		status(&out, 409, "AlreadyExists", m.p, d.p);
		free(m.p);
		free(d.p);
		free(qr.p);
		code = 409;
		goto answer;
	}
	if (!live && !apply && strcmp(method, "POST") != 0) {
		not_found(fd);
		goto done;
	}
	if (strcmp(method, "PATCH") == 0 && !apply) {
		smp_patch_options opt = SMP_PATCH_OPTIONS_INIT;

		opt.type = strstr(ctype, "json-patch") ? SMP_PATCH_JSON :
		           strstr(ctype, "merge-patch") ? SMP_PATCH_MERGE : SMP_PATCH_STRATEGIC;
		if (smp_patch_apply(&patched, live, config, &opt, &err) != SMP_OK) {
			status(&out, 422, "Invalid", err.message, NULL);
			code = 422;
			goto answer;
		}
		config = smp_doc_root(patched, 0);
	}
	code = ask_oracle(o, live, config, manager, strcmp(force, "true") == 0, apply, &result, &out);
	if (code < 300) {
		store(state, items, at, smp_doc_root(result, 0));
		add_value(&out, smp_doc_root(result, 0));
	}
answer:
	respond(fd, code, out.p, out.len);
done:
	free(out.p);
	smp_doc_free(objs);
	smp_doc_free(bd);
	smp_doc_free(result);
	smp_doc_free(patched);
}

static void serve(int fd, const char *state, struct oracle *o)
{
	struct buf req = { 0 }, body = { 0 };
	size_t off = 0, blen = 0;
	char method[16], path[2048], query[2048] = "", ctype[256], file[4096];

	if (read_request(fd, &req, &off, &blen) < 0 ||
	    sscanf(req.p, "%15s %2047s", method, path) != 2)
		goto out;
	if (strchr(path, '?'))
		snprintf(query, sizeof query, "%s", strchr(path, '?') + 1);
	path[strcspn(path, "?")] = '\0';
	header(req.p, "Content-Type", ctype, sizeof ctype);
	if (o) {
		char ua[256];

		header(req.p, "User-Agent", ua, sizeof ua);
		log_request(state, method, path, query, ctype, req.p + off, blen);
		if (strcmp(method, "PATCH") == 0 || strcmp(method, "POST") == 0 ||
		    strcmp(method, "PUT") == 0 || strcmp(method, "DELETE") == 0) {
			ssa_write(fd, state, o, method, path, query, ctype, ua, req.p + off, blen);
			goto out;
		}
	}
	if (strcmp(method, "DELETE") == 0) {
		static const char ok[] = "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
					 "\"status\":\"Success\"}";
		FILE *f;

		/* each DeleteOptions body, a line each, in the order sent */
		snprintf(file, sizeof file, "%s/delete.json", state);
		if (blen && (f = fopen(file, "a"))) {
			fwrite(req.p + off, 1, blen, f);
			fputc('\n', f);
			fclose(f);
		}
		respond(fd, 200, ok, sizeof ok - 1);
		goto out;
	}
	if (strcmp(method, "GET") == 0) {
		if (strcmp(path, "/api") == 0) {
			buf_str(&body, "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],"
				       "\"serverAddressByClientCIDRs\":[{\"clientCIDR\":\"0.0.0.0/0\","
				       "\"serverAddress\":\"127.0.0.1\"}]}");
		} else if (strcmp(path, "/apis") == 0) {
			group_list(&body);
		} else if (strcmp(path, "/api/v1") == 0) {
			resource_list(&body, "v1");
		} else if (strncmp(path, "/apis/", 6) == 0 && strchr(path + 6, '/') &&
			   !strchr(strchr(path + 6, '/') + 1, '/') && gv_known(path + 6)) {
			resource_list(&body, path + 6);
		} else if (strcmp(path, "/version") == 0) {
			buf_str(&body, "{\"major\":\"1\",\"minor\":\"32\",\"gitVersion\":\"v1.32.0\"}");
		} else if (strncmp(path, "/openapi", 8) != 0) {
			if (serve_objects(fd, state, path, query) == 0)
				goto out;
			snprintf(file, sizeof file, "%s/live.json", state);
			if (read_file(file, &body) < 0)
				body.len = 0;
		}
		if (body.len)
			respond(fd, 200, body.p, body.len);
		else
			not_found(fd);
		goto out;
	}
	/* PATCH, POST, PUT: record, answer with the live object (or the body). */
	snprintf(file, sizeof file, "%s/request.json", state);
	write_file(file, req.p + off, blen);
	header(req.p, "Content-Type", ctype, sizeof ctype);
	snprintf(file, sizeof file, "%s/request.type", state);
	{
		char line[512];
		int n = snprintf(line, sizeof line, "%s %s\n", method, ctype);
		write_file(file, line, (size_t)n);
	}
	if (strcmp(method, "PATCH") == 0 && serve_objects(fd, state, path, NULL) == 0)
		goto out;
	snprintf(file, sizeof file, "%s/live.json", state);
	if (strcmp(method, "PATCH") == 0 && read_file(file, &body) == 0)
		respond(fd, 200, body.p, body.len);
	else
		respond(fd, strcmp(method, "POST") == 0 ? 201 : 200, req.p + off, blen);
out:
	free(req.p);
	free(body.p);
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr;
	socklen_t alen = sizeof addr;
	char port[32];
	int s, one = 1;

	struct oracle orc = { 0 };

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: fake_apiserver STATE_DIR PORT_FILE [ORACLE]\n");
		return 2;
	}
	if (argc == 4 && oracle_start(&orc, argv[3]) < 0)
		return perror(argv[3]), 1;
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return perror("socket"), 1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	memset(&addr, 0, sizeof addr);
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr.sin_port = 0;
	if (bind(s, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(s, 16) < 0 ||
	    getsockname(s, (struct sockaddr *)&addr, &alen) < 0)
		return perror("bind"), 1;
	snprintf(port, sizeof port, "%u\n", (unsigned)ntohs(addr.sin_port));
	if (write_file(argv[2], port, strlen(port)) < 0)
		return perror(argv[2]), 1;
	for (;;) {
		struct pollfd p = { s, POLLIN, 0 };
		int c, r = poll(&p, 1, IDLE_MS);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		c = accept(s, NULL, NULL);
		if (c < 0)
			continue;
		serve(c, argv[1], argc == 4 ? &orc : NULL);
		close(c);
	}
	close(s);
	return 0;
}
