/*
 * check_config.c - ConfigMap and Secret as pkg/apis/core/validation
 * checks them after their metadata (ValidateConfigMap, ValidateSecret and
 * their updates), with the server's words.
 */
#include "apply/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECRET_MAX 1048576

/* IsConfigMapKey's messages for the keys of `map` (at `field`), plus
 * ConfigMap's duplicate of a binaryData key; the bytes the values hold
 * are added to *total (`b64`: the values are base64 text). */
static void check_keys(smp_felist *l, const char *field, const smp_value *map,
                       const smp_value *other, bool b64, size_t *total)
{
	const smp_member **sorted = NULL;
	size_t at = smp_fe_child(l, field);

	if (map && map->type == SMP_MAP && smp_sorted_members(&sorted, map, true)) {
		l->rc = SMP_ENOMEM;
		return;
	}
	for (size_t i = 0; map && map->type == SMP_MAP && i < map->u.map.len; i++) {
		const smp_member *m = smp_member_at(sorted, map, i);
		size_t kat = smp_fe_key(l, m->key, m->klen), vn;
		const char *vs = smp__check_str(m->val, &vn);

		smp__check_config_key(l, NULL, m->val, m->key, m->klen);
		if (other && other->type == SMP_MAP && smpv_map_find(other, m->key, m->klen) >= 0)
			smp_fe_add_str(l, SMP_FE_INVALID, NULL, m->val, m->key, m->klen,
			               "duplicate of key present in binaryData");
		smp_fe_pop(l, kat);
		/* base64 text of n bytes: 4 characters per 3 bytes, '=' padding */
		if (b64 && vn >= 2)
			*total += vn / 4 * 3 - (vs[vn - 1] == '=') - (vs[vn - 2] == '=');
		else if (!b64)
			*total += vn;
	}
	free(sorted);
	smp_fe_pop(l, at);
}

/* An immutable object's (`live` holds immutable: true) update: it stays
 * immutable and keeps each of `fields` (ValidateConfigMapUpdate,
 * ValidateSecretUpdate). */
static void check_immutable(smp_felist *l, const smp_value *obj, const smp_value *live,
                            const char *const *fields)
{
	const smp_value *was = smp__check_get(live, "immutable"), *im = smp__check_get(obj, "immutable");

	if (!was || was->type != SMP_BOOL || !was->u.b)
		return;
	if (!im || im->type != SMP_BOOL || !im->u.b)
		smp_fe_add(l, SMP_FE_FORBIDDEN, "immutable", im ? im : obj, NULL,
		           "field is immutable when `immutable` is set");
	for (size_t i = 0; fields[i]; i++) {
		const smp_value *v = smp__check_get(obj, fields[i]), *old = smp__check_get(live, fields[i]);

		if (!(v ? old && smpv_equal(v, old) : !old))
			smp_fe_add(l, SMP_FE_FORBIDDEN, fields[i], v ? v : obj, NULL,
			           "field is immutable when `immutable` is set");
	}
}

void smp__check_configmap_update(smp_felist *l, const smp_value *obj, const smp_value *live)
{
	static const char *const fields[] = {"data", "binaryData", NULL};

	check_immutable(l, obj, live, fields);
}

/* ValidateConfigMap after its metadata. The 1 MiB total (a TooLong at
 * the root path) is not checked: the request limit refuses such objects
 * first in practice. */
void smp__check_configmap(smp_felist *l, const smp_value *obj, const smp_value *live)
{
	const smp_value *data = smp__check_get(obj, "data"), *bin = smp__check_get(obj, "binaryData");
	size_t total = 0;

	(void)live; /* the create rules: the same on update */
	check_keys(l, "data", data, bin, false, &total);
	check_keys(l, "binaryData", bin, NULL, true, &total);
}

/* ValidateSecretUpdate's own rules: the type is immutable, and an
 * immutable Secret keeps its data. */
void smp__check_secret_update(smp_felist *l, const smp_value *obj, const smp_value *live)
{
	static const char *const fields[] = {"data", NULL};
	const smp_value *t = smp__check_get(obj, "type"), *lt = smp__check_get(live, "type");

	if (t && lt && !smpv_equal(t, lt)) {
		size_t n;
		const char *s = smp__check_str(t, &n);
		smp_fe_add_str(l, SMP_FE_INVALID, "type", t, s, n, "field is immutable");
	}
	check_immutable(l, obj, live, fields);
}

/* ValidateSecret after its metadata: keys, size, and what each type
 * requires. */
void smp__check_secret(smp_felist *l, const smp_value *obj, const smp_value *live)
{
	const smp_value *data = smp__check_get(obj, "data");
	const char *type = smpv_map_str(obj, "type");
	size_t total = 0;

	(void)live; /* the create rules: the same on update */
	check_keys(l, "data", data, NULL, true, &total);
	if (total > SECRET_MAX) {
		char max[64];

		snprintf(max, sizeof(max), "may not be more than %d bytes", SECRET_MAX);
		smp_fe_add(l, SMP_FE_TOO_LONG, "data", data, NULL, max);
	}
#define HAS(k) (data && data->type == SMP_MAP && smpv_map_find(data, k, strlen(k)) >= 0)
#define REQUIRE(k) do { size_t a_ = smp_fe_child(l, "data"); smp_fe_key(l, k, strlen(k)); \
		smp_fe_add(l, SMP_FE_REQUIRED, NULL, obj, NULL, NULL); smp_fe_pop(l, a_); } while (0)
	if (!type)
		return;
	if (strcmp(type, "kubernetes.io/service-account-token") == 0) {
		const smp_value *ann = smp__check_get(smp__check_get(obj, "metadata"), "annotations");
		size_t n;

		if (smp__check_str(smp__check_get(ann, "kubernetes.io/service-account.name"), &n), !n) {
			size_t a = smp_fe_child(l, "metadata");
			smp_fe_child(l, "annotations");
			smp_fe_key(l, "kubernetes.io/service-account.name", 34);
			smp_fe_add(l, SMP_FE_REQUIRED, NULL, obj, NULL, NULL);
			smp_fe_pop(l, a);
		}
	} else if (strcmp(type, "kubernetes.io/dockercfg") == 0) {
		if (!HAS(".dockercfg"))
			REQUIRE(".dockercfg");
	} else if (strcmp(type, "kubernetes.io/dockerconfigjson") == 0) {
		if (!HAS(".dockerconfigjson"))
			REQUIRE(".dockerconfigjson");
	} else if (strcmp(type, "kubernetes.io/basic-auth") == 0) {
		if (!HAS("username") && !HAS("password")) {
			REQUIRE("username");
			REQUIRE("password");
		}
	} else if (strcmp(type, "kubernetes.io/ssh-auth") == 0) {
		size_t n;

		if (smp__check_str(smp__check_get(data, "ssh-privatekey"), &n), !n)
			REQUIRE("ssh-privatekey");
	} else if (strcmp(type, "kubernetes.io/tls") == 0) {
		if (!HAS("tls.crt"))
			REQUIRE("tls.crt");
		if (!HAS("tls.key"))
			REQUIRE("tls.key");
	}
#undef HAS
#undef REQUIRE
}
