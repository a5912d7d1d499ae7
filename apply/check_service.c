/*
 * check_service.c - a Service as pkg/apis/core/validation's
 * ValidateService checks it (after its metadata), on its stored form,
 * with the server's words.
 */
#include "apply/check.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PORT_RANGE "must be between 1 and 65535, inclusive"

/* validateServicePort */
static void check_port(smp_felist *l, const smp_value *p, bool require_name, smp_buf *names)
{
	static const char *const protocols[] = {"SCTP", "TCP", "UDP", NULL};
	const smp_value *name = smp__check_get(p, "name"), *port = smp__check_get(p, "port");
	const smp_value *tp = smp__check_get(p, "targetPort");
	size_t n;
	const char *s = smp__check_str(name, &n);
	int64_t v = 0;

	if (require_name && n == 0) {
		smp_fe_add(l, SMP_FE_REQUIRED, "name", p, NULL, NULL);
	} else if (n) {
		smp__check_dns_label(l, "name", name);
		/* names seen so far, "\n"-terminated */
		bool seen = false;
		for (const char *q = names->ptr; q && q < names->ptr + names->len;) {
			const char *nl = memchr(q, '\n', (size_t)(names->ptr + names->len - q));
			if ((size_t)(nl - q) == n && memcmp(q, s, n) == 0)
				seen = true;
			q = nl + 1;
		}
		if (seen) {
			smp_fe_add_str(l, SMP_FE_DUPLICATE, "name", name, s, n, NULL);
		} else {
			smp_buf_put(names, s, n);
			smp_buf_putc(names, '\n');
		}
	}
	smp__check_int(port, &v);
	if (v < 1 || v > 65535)
		smp_fe_add_int(l, SMP_FE_INVALID, "port", port ? port : p, v, PORT_RANGE);
	smp__check_enum(l, "protocol", smp__check_get(p, "protocol"), protocols,
	           "\"SCTP\", \"TCP\", \"UDP\"");
	if (tp && tp->type == SMP_INT) {
		if (tp->u.i < 1 || tp->u.i > 65535)
			smp_fe_add_int(l, SMP_FE_INVALID, "targetPort", tp, tp->u.i, PORT_RANGE);
	} else if (tp && tp->type == SMP_STRING) {
		smp__check_port_name(l, "targetPort", tp);
	} else {
		/* the defaulted target port is the port */
		if (v < 1 || v > 65535)
			smp_fe_add_int(l, SMP_FE_INVALID, "targetPort", port ? port : p, v, PORT_RANGE);
	}
	if (smp__check_get(p, "appProtocol"))
		l->unpredictable = true; /* ValidateQualifiedName is not here yet */
}

/* netutils.ParseIPSloppy: IPv4 (leading zeros allowed) into a[0..3] with
 * *v6 false, or IPv6 into a[0..15]. false when s is no IP. */
static bool parse_ip(const char *s, size_t n, unsigned char a[16], bool *v6)
{
	char buf[64];

	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v6 = memchr(s, ':', n) != NULL;
	if (*v6)
		return inet_pton(AF_INET6, buf, a) == 1;
	for (int part = 0, i = 0; part < 4; part++) {
		unsigned v = 0;
		int digits = 0;

		while (buf[i] >= '0' && buf[i] <= '9' && digits < 4)
			v = v * 10 + (unsigned)(buf[i++] - '0'), digits++;
		if (!digits || v > 255 || buf[i] != (part < 3 ? '.' : '\0'))
			return false;
		a[part] = (unsigned char)v;
		i++;
	}
	return true;
}

/* IsValidIP, then ValidateNonSpecialIP, of an external IP. */
static void check_external_ip(smp_felist *l, const smp_value *v)
{
	static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	static const unsigned char loop6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	unsigned char a[16] = {0};
	size_t n;
	const char *s = smp__check_str(v, &n);
	bool v6, zero = true;
	char msg[320];

	if (!parse_ip(s, n, a, &v6)) {
		smp_fe_add_str(l, SMP_FE_INVALID, NULL, v, s, n,
		               "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
		return;
	}
	if (v6 && memcmp(a, mapped, 12) == 0) {
		memmove(a, a + 12, 4); /* an IPv4-mapped address is the IPv4 one */
		v6 = false;
	}
	for (int i = 0; i < (v6 ? 16 : 4); i++)
		zero &= a[i] == 0;
	if (zero) {
		snprintf(msg, sizeof(msg), "may not be unspecified (%.*s)", (int)n, s);
		smp_fe_add_str(l, SMP_FE_INVALID, NULL, v, s, n, msg);
	}
	if (v6 ? memcmp(a, loop6, 16) == 0 : a[0] == 127)
		smp_fe_add_str(l, SMP_FE_INVALID, NULL, v, s, n,
		               "may not be in the loopback range (127.0.0.0/8, ::1/128)");
	if (v6 ? (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) : (a[0] == 169 && a[1] == 254))
		smp_fe_add_str(l, SMP_FE_INVALID, NULL, v, s, n,
		               "may not be in the link-local range (169.254.0.0/16, fe80::/10)");
	if (v6 ? (a[0] == 0xff && (a[1] & 0x0f) == 0x02) : (a[0] == 224 && a[1] == 0 && a[2] == 0))
		smp_fe_add_str(l, SMP_FE_INVALID, NULL, v, s, n,
		               "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)");
}

/* The same (protocol, port) twice: the value is the key's struct. */
static void check_duplicate_ports(smp_felist *l, const smp_value *ports)
{
	size_t np = smp__check_len(ports);

	for (size_t i = 1; ports && ports->type == SMP_LIST && i < np; i++) {
		const smp_value *p = ports->u.list.items[i];
		const smp_value *pr = smp__check_get(p, "protocol"), *po = smp__check_get(p, "port");

		for (size_t j = 0; j < i; j++) {
			const smp_value *q = ports->u.list.items[j];
			const smp_value *qr = smp__check_get(q, "protocol"), *qo = smp__check_get(q, "port");
			size_t pn, pa;
			const char *ps = smp__check_str(pr, &pn);
			int64_t pv = 0;

			if (!(pr && qr && smpv_equal(pr, qr)) || !(po && qo && smpv_equal(po, qo)))
				continue;
			smp__check_int(po, &pv);
			l->val.len = 0;
			smp_buf_puts(&l->val, "core.ServicePort{Name:\"\", Protocol:");
			smp_quote_go(&l->val, ps, pn);
			smp_buf_printf(&l->val, ", AppProtocol:(*string)(nil), Port:%lld, TargetPort:"
			               "intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}",
			               (long long)pv);
			pa = smp_fe_child(l, "ports");
			smp_fe_index(l, i);
			smp_fe_add_val(l, SMP_FE_DUPLICATE, NULL, p, NULL);
			smp_fe_pop(l, pa);
			break;
		}
	}
}

/* The same (protocol, node port) twice. The allocator, which runs
 * before validation, refuses the second with its own words ("provided
 * port is already allocated"), as it refuses a port another Service
 * holds: node ports the user gives are not predicted. */
static void check_duplicate_node_ports(smp_felist *l, const smp_value *ports)
{
	size_t np = smp__check_len(ports);

	for (size_t i = 1; ports && ports->type == SMP_LIST && i < np; i++) {
		const smp_value *p = ports->u.list.items[i], *npv = smp__check_get(p, "nodePort");
		int64_t v = 0;

		if (!smp__check_int(npv, &v) || v == 0)
			continue;
		for (size_t j = 0; j < i; j++) {
			const smp_value *q = ports->u.list.items[j], *nq = smp__check_get(q, "nodePort");
			const smp_value *pr = smp__check_get(p, "protocol"), *qr = smp__check_get(q, "protocol");
			size_t pa;

			if (!nq || !smpv_equal(npv, nq) || !(pr && qr && smpv_equal(pr, qr)))
				continue;
			pa = smp_fe_child(l, "ports");
			smp_fe_index(l, i);
			smp_fe_add_int(l, SMP_FE_DUPLICATE, "nodePort", npv, v, NULL);
			smp_fe_pop(l, pa);
			l->unpredictable = true;
			break;
		}
	}
}

/* The values of one of the `valid` strings, or else NotSupported. */
static void check_value(smp_felist *l, const char *sub, const smp_value *v,
                        const char *const *valid, const char *shown)
{
	size_t n;
	const char *s = smp__check_str(v, &n);

	if (!smp__check_one_of(s, n, valid))
		smp_fe_not_supported(l, sub, v, s, n, shown);
}

/* ValidateService after the ports and the selector: session affinity, IP
 * families (the cluster IPs are the server's, allocated before
 * validation), external IPs, the type and its node ports, the load
 * balancer's fields, the traffic policies. */
static void check_service_tail(smp_felist *l, const smp_value *spec, const smp_value *obj,
                               const char *t, size_t tn)
{
	static const char *const affinity[] = {"ClientIP", "None", NULL};
	static const char *const types[] = {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort",
	                                    NULL};
	static const char *const families[] = {"IPv4", "IPv6", NULL};
	static const char *const policies[] = {"PreferDualStack", "RequireDualStack", "SingleStack",
	                                       NULL};
	static const char *const traffic[] = {"Cluster", "Local", NULL};
	static const char *const close[] = {"PreferClose", NULL};
	const smp_value *ports = smp__check_get(spec, "ports");
	const smp_value *sa = smp__check_get(spec, "sessionAffinity");
	const smp_value *sac = smp__check_get(spec, "sessionAffinityConfig");
	const smp_value *fam = smp__check_get(spec, "ipFamilies");
	const smp_value *ips = smp__check_get(spec, "externalIPs");
	const smp_value *etp = smp__check_get(spec, "externalTrafficPolicy");
	const smp_value *hc = smp__check_get(spec, "healthCheckNodePort");
	size_t np = smp__check_len(ports), n, en;
	const char *sas = smp__check_str(sa, &n), *es = smp__check_str(etp, &en);
	bool cluster_ip = tn == 9 && memcmp(t, "ClusterIP", 9) == 0;
	bool lb = tn == 12 && memcmp(t, "LoadBalancer", 12) == 0;
	bool node_port = tn == 8 && memcmp(t, "NodePort", 8) == 0;
	bool accessible = lb || node_port || (cluster_ip && smp__check_len(ips));
	int64_t v = 0;

	smp__check_enum(l, "sessionAffinity", sa, affinity, "\"ClientIP\", \"None\"");
	if (n == 8 && memcmp(sas, "ClientIP", 8) == 0) {
		const smp_value *ci = smp__check_get(sac, "clientIP");
		const smp_value *to = smp__check_get(ci, "timeoutSeconds");
		const char *why = "when session affinity type is ClientIP";
		size_t at = smp_fe_child(l, "sessionAffinityConfig");

		if (!sac)
			smp_fe_add(l, SMP_FE_REQUIRED, NULL, spec, NULL, why);
		else if (!ci)
			smp_fe_add(l, SMP_FE_REQUIRED, "clientIP", sac, NULL, why);
		else if (!to)
			smp_fe_add(l, SMP_FE_REQUIRED, "clientIP.timeoutSeconds", ci, NULL, why);
		else if (smp__check_int(to, &v) && (v <= 0 || v > 86400))
			smp_fe_add_int(l, SMP_FE_INVALID, "clientIP.timeoutSeconds", to, v,
			               "must be greater than 0 and less than 86400");
		smp_fe_pop(l, at);
	} else if (n == 4 && memcmp(sas, "None", 4) == 0 && sac) {
		smp_fe_add(l, SMP_FE_FORBIDDEN, "sessionAffinityConfig", sac, NULL,
		           "must not be set when session affinity is None");
	}
	for (size_t i = 0; fam && fam->type == SMP_LIST && i < fam->u.list.len; i++) {
		const smp_value *f = fam->u.list.items[i];
		size_t at = smp_fe_child(l, "ipFamilies"), fn;
		const char *fs = smp__check_str(f, &fn);

		smp_fe_index(l, i);
		check_value(l, NULL, f, families, "\"IPv4\", \"IPv6\"");
		for (size_t j = 0; j < i; j++)
			if (smpv_equal(f, fam->u.list.items[j])) {
				smp_fe_add_str(l, SMP_FE_DUPLICATE, NULL, f, fs, fn, NULL);
				break;
			}
		smp_fe_pop(l, at);
	}
	if (smp__check_get(spec, "ipFamilyPolicy"))
		check_value(l, "ipFamilyPolicy", smp__check_get(spec, "ipFamilyPolicy"), policies,
		            "\"PreferDualStack\", \"RequireDualStack\", \"SingleStack\"");
	for (size_t i = 0; ips && ips->type == SMP_LIST && i < ips->u.list.len; i++) {
		size_t at = smp_fe_child(l, "externalIPs");

		smp_fe_index(l, i);
		check_external_ip(l, ips->u.list.items[i]);
		smp_fe_pop(l, at);
	}
	smp__check_enum(l, "type", smp__check_get(spec, "type"), types,
	           "\"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\"");
	for (size_t i = 0; cluster_ip && ports && ports->type == SMP_LIST && i < np; i++) {
		const smp_value *npv = smp__check_get(ports->u.list.items[i], "nodePort");

		if (smp__check_int(npv, &v) && v != 0) {
			size_t pa = smp_fe_child(l, "ports");
			smp_fe_index(l, i);
			smp_fe_add(l, SMP_FE_FORBIDDEN, "nodePort", npv, NULL,
			           "may not be used when `type` is 'ClusterIP'");
			smp_fe_pop(l, pa);
		}
	}
	check_duplicate_node_ports(l, ports);
	check_duplicate_ports(l, ports);
	if (smp__check_get(spec, "loadBalancerSourceRanges") ||
	    smp__check_get(smp__check_get(smp__check_get(obj, "metadata"), "annotations"),
	                   "service.beta.kubernetes.io/load-balancer-source-ranges"))
		l->unpredictable = true; /* the CIDR rules are not here yet */
	if (smp__check_get(spec, "allocateLoadBalancerNodePorts") && !lb)
		smp_fe_add(l, SMP_FE_FORBIDDEN, "allocateLoadBalancerNodePorts",
		           smp__check_get(spec, "allocateLoadBalancerNodePorts"), NULL,
		           "may only be used when `type` is 'LoadBalancer'");
	if (smp__check_get(spec, "loadBalancerClass")) {
		if (lb)
			l->unpredictable = true; /* ValidateQualifiedName is not here yet */
		else
			smp_fe_add(l, SMP_FE_FORBIDDEN, "loadBalancerClass",
			           smp__check_get(spec, "loadBalancerClass"), NULL,
			           "may only be used when `type` is 'LoadBalancer'");
	}
	if (!accessible && en)
		smp_fe_add_str(l, SMP_FE_INVALID, "externalTrafficPolicy", etp, es, en,
		               "may only be set for externally-accessible services");
	else if (accessible)
		smp__check_enum(l, "externalTrafficPolicy", etp, traffic, "\"Cluster\", \"Local\"");
	if (lb && en == 5 && memcmp(es, "Local", 5) == 0)
		l->unpredictable = l->unpredictable || !hc; /* the server allocates it */
	else if (smp__check_int(hc, &v) && v != 0)
		smp_fe_add_int(l, SMP_FE_INVALID, "healthCheckNodePort", hc, v,
		               "may only be set when `type` is 'LoadBalancer' and "
		               "`externalTrafficPolicy` is 'Local'");
	if (smp__check_get(spec, "internalTrafficPolicy"))
		smp__check_enum(l, "internalTrafficPolicy", smp__check_get(spec, "internalTrafficPolicy"),
		                traffic, "\"Cluster\", \"Local\"");
	if (smp__check_get(spec, "trafficDistribution"))
		check_value(l, "trafficDistribution", smp__check_get(spec, "trafficDistribution"), close,
		            "\"PreferClose\"");
}

void smp__check_service_update(smp_felist *l, const smp_value *obj, const smp_value *live)
{
	/* ValidateServiceUpdate's rules of cluster IPs, IP families and load
	 * balancer classes are not here yet: the registry keeps the live
	 * cluster IPs in the stored form. */
	(void)l;
	(void)obj;
	(void)live;
}

void smp__check_service(smp_felist *l, const smp_value *obj, const smp_value *live)
{
	const smp_value *spec = smp__check_get(obj, "spec"), *ports = smp__check_get(spec, "ports");
	const smp_value *type = smp__check_get(spec, "type");
	const smp_value *cips = smp__check_get(spec, "clusterIPs");
	const char *cip = smp__check_str(smp__check_get(spec, "clusterIP"), &(size_t){0});
	size_t at = smp_fe_child(l, "spec"), np = smp__check_len(ports), n;
	const char *t = smp__check_str(type, &n);
	bool lb = n == 12 && memcmp(t, "LoadBalancer", 12) == 0;
	bool external = n == 12 && memcmp(t, "ExternalName", 12) == 0;
	bool headless;
	smp_buf names;

	headless = strcmp(cip, "None") == 0 ||
	           (smp__check_len(cips) == 1 && smpv_is_str(cips->u.list.items[0], "None"));
	if (*cip && strcmp(cip, "None") != 0 &&
	    !(live && smpv_equal(smp__check_get(spec, "clusterIP"),
	                         smp__check_get(smp__check_get(live, "spec"), "clusterIP")) &&
	      (!cips || smpv_equal(cips, smp__check_get(smp__check_get(live, "spec"), "clusterIPs")))))
		l->unpredictable = true; /* a cluster IP of the user's: the allocator's rules */
	if (np == 0 && !headless && !external)
		smp_fe_add(l, SMP_FE_REQUIRED, "ports", spec ? spec : obj, NULL, NULL);
	if (external)
		l->unpredictable = true; /* its own rules are not here yet */
	for (size_t i = 0; lb && ports && ports->type == SMP_LIST && i < np; i++) {
		const smp_value *pv = smp__check_get(ports->u.list.items[i], "port");
		int64_t v;

		if (smp__check_int(pv, &v) && v == 10250) {
			size_t pa = smp_fe_child(l, "ports");
			smp_fe_index(l, i);
			smp_fe_add_int(l, SMP_FE_INVALID, NULL, pv, v,
			               "may not expose port 10250 externally since it is used by kubelet");
			smp_fe_pop(l, pa);
		}
	}
	if (headless && (lb || (n == 8 && memcmp(t, "NodePort", 8) == 0))) {
		size_t pa = smp_fe_child(l, "clusterIPs");
		smp_fe_index(l, 0);
		smp_fe_add_str(l, SMP_FE_INVALID, NULL, spec, "None", 4,
		               lb ? "may not be set to 'None' for LoadBalancer services"
		                  : "may not be set to 'None' for NodePort services");
		smp_fe_pop(l, pa);
	}
	smp_buf_init(&names);
	for (size_t i = 0; ports && ports->type == SMP_LIST && i < np; i++) {
		size_t pa = smp_fe_child(l, "ports");

		smp_fe_index(l, i);
		check_port(l, ports->u.list.items[i], np > 1, &names);
		smp_fe_pop(l, pa);
	}
	if (names.oom)
		l->rc = SMP_ENOMEM;
	smp_buf_release(&names);
	smp__check_labels(l, "selector", smp__check_get(spec, "selector"));
	check_service_tail(l, spec, obj, t, n);
	smp_fe_pop(l, at);
}
