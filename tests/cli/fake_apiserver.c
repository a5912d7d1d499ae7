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
			 code, code == 200 ? "OK" : code == 201 ? "Created" : "Not Found", len);
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

static void serve(int fd, const char *state)
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

	if (argc != 3) {
		fprintf(stderr, "usage: fake_apiserver STATE_DIR PORT_FILE\n");
		return 2;
	}
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
		serve(c, argv[1]);
		close(c);
	}
	close(s);
	return 0;
}
