/*
 * check.c - what the rules of the built-in kinds share: object metadata
 * as k8s.io/apimachinery pkg/api/validation/objectmeta.go checks it, and
 * the name, label and key rules of pkg/util/validation, with the
 * server's words.
 */
#include "apply/check.h"
#include "apply/apply_int.h"
#include "schema/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUBDOMAIN_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
#define SUBDOMAIN_MSG "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric " \
	"characters, '-' or '.', and must start and end with an alphanumeric character (e.g. " \
	"'example.com', regex used for validation is '" SUBDOMAIN_FMT "')"
#define LABEL_MSG "a lowercase RFC 1123 label must consist of lower case alphanumeric " \
	"characters or '-', and must start and end with an alphanumeric character (e.g. " \
	"'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define DNS1035_MSG "a DNS-1035 label must consist of lower case alphanumeric characters or " \
	"'-', start with an alphabetic character, and end with an alphanumeric character (e.g. " \
	"'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
#define KEY_MSG "a valid config key must consist of alphanumeric characters, '-', '_' or '.' " \
	"(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is " \
	"'[-._a-zA-Z0-9]+')"
#define ANNOTATIONS_MAX 262144

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0..n) */
static bool is_label(const char *s, size_t n)
{
	if (n == 0 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

static bool is_subdomain(const char *s, size_t n)
{
	size_t start = 0;

	for (size_t i = 0; i <= n; i++)
		if (i == n || s[i] == '.') {
			if (!is_label(s + start, i - start))
				return false;
			start = i + 1;
		}
	return true;
}


int smp__name_list(smp_buf *b, const char *s, size_t n, smp_name_rule r)
{
	size_t before = b->len;
	const char *msgs[2];
	size_t k = 0;

	switch (r) {
	case NAME_SUBDOMAIN:
		if (n > 253)
			msgs[k++] = "must be no more than 253 characters";
		if (!is_subdomain(s, n))
			msgs[k++] = SUBDOMAIN_MSG;
		break;
	case NAME_LABEL:
	case NAME_DNS1035:
		if (n > 63)
			msgs[k++] = "must be no more than 63 characters";
		if (r == NAME_DNS1035) {
			if (!is_label(s, n) || !(s[0] >= 'a' && s[0] <= 'z'))
				msgs[k++] = DNS1035_MSG;
		} else if (!is_label(s, n)) {
			msgs[k++] = is_subdomain(s, n) ? "must not contain dots" : LABEL_MSG;
		}
		break;
	case NAME_NONE:
		break;
	}
	for (size_t i = 0; i < k; i++) {
		if (b->len > before)
			smp_buf_putc(b, '\n');
		smp_buf_puts(b, msgs[i]);
	}
	return b->len != before;
}

/* The messages of a name rule for v's string, each added as an Invalid
 * error at child `sub` with the value. */
static void add_each(smp_felist *l, const char *sub, const smp_value *at, const smp_buf *b,
                     const char *s, size_t n);

static void check_name(smp_felist *l, const char *sub, const smp_value *v, smp_name_rule r)
{
	size_t n;
	const char *s = smp__check_str(v, &n);
	smp_buf b;

	smp_buf_init(&b);
	if (smp__name_list(&b, s, n, r)) {
		if (b.oom)
			l->rc = SMP_ENOMEM;
		else
			add_each(l, sub, v, &b, s, n);
	}
	smp_buf_release(&b);
}

void smp__check_dns_label(smp_felist *l, const char *sub, const smp_value *v)
{
	check_name(l, sub, v, NAME_LABEL);
}

void smp__check_subdomain(smp_felist *l, const char *sub, const smp_value *v)
{
	check_name(l, sub, v, NAME_SUBDOMAIN);
}

/* Each message of a "\n"-separated list in b as an Invalid error at child
 * `sub` with the value s. */
static void add_each(smp_felist *l, const char *sub, const smp_value *at, const smp_buf *b,
                     const char *s, size_t n)
{
	const char *p = b->ptr, *end;
	char msg[1024];

	if (!p)
		return; /* no message */
	end = p + b->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t k = nl ? (size_t)(nl - p) : (size_t)(end - p);

		snprintf(msg, sizeof(msg), "%.*s", (int)k, p);
		smp_fe_add_str(l, SMP_FE_INVALID, sub, at, s, n, msg);
		p += k + 1;
	}
}

void smp__check_labels(smp_felist *l, const char *sub, const smp_value *labels)
{
	const smp_member **sorted = NULL;
	smp_buf b;

	if (!labels || labels->type != SMP_MAP)
		return;
	if (smp_sorted_members(&sorted, labels, true)) {
		l->rc = SMP_ENOMEM;
		return;
	}
	smp_buf_init(&b);
	for (size_t i = 0; i < labels->u.map.len; i++) {
		const smp_member *m = smp_member_at(sorted, labels, i);
		size_t vn;
		const char *vs = smp__check_str(m->val, &vn);

		b.len = 0;
		smp_label_key_list(&b, m->key, m->klen, "\n");
		add_each(l, sub, m->val, &b, m->key, m->klen);
		b.len = 0;
		smp_label_value_list(&b, vs, vn, "\n");
		add_each(l, sub, m->val, &b, vs, vn);
	}
	if (b.oom)
		l->rc = SMP_ENOMEM;
	smp_buf_release(&b);
	free(sorted);
}

void smp__check_annotations(smp_felist *l, const char *sub, const smp_value *ann)
{
	const smp_member **sorted = NULL;
	size_t total = 0;
	smp_buf b, low;

	if (!ann || ann->type != SMP_MAP)
		return;
	if (smp_sorted_members(&sorted, ann, true)) {
		l->rc = SMP_ENOMEM;
		return;
	}
	smp_buf_init(&b);
	smp_buf_init(&low);
	for (size_t i = 0; i < ann->u.map.len; i++) {
		const smp_member *m = smp_member_at(sorted, ann, i);
		size_t vn;

		smp__check_str(m->val, &vn);
		total += m->klen + vn;
		/* the key's case does not matter: the lower-case key is checked,
		 * the key as written reported */
		low.len = 0;
		smp_buf_put(&low, m->key, m->klen);
		for (size_t k = 0; low.ptr && k < low.len; k++)
			if (low.ptr[k] >= 'A' && low.ptr[k] <= 'Z')
				low.ptr[k] = (char)(low.ptr[k] + 32);
		b.len = 0;
		smp_label_key_list(&b, low.ptr ? low.ptr : "", low.len, "\n");
		add_each(l, sub, m->val, &b, m->key, m->klen);
	}
	if (total > ANNOTATIONS_MAX) {
		char max[64];

		snprintf(max, sizeof(max), "may not be more than %d bytes", ANNOTATIONS_MAX);
		smp_fe_add(l, SMP_FE_TOO_LONG, sub, ann, NULL, max);
	}
	if (b.oom || low.oom)
		l->rc = SMP_ENOMEM;
	smp_buf_release(&b);
	smp_buf_release(&low);
	free(sorted);
}

void smp__check_nonnegative(smp_felist *l, const char *sub, const smp_value *v)
{
	int64_t i;

	if (smp__check_int(v, &i) && i < 0)
		smp_fe_add_int(l, SMP_FE_INVALID, sub, v, i, "must be greater than or equal to 0");
}

void smp__check_meta(smp_felist *l, const smp_value *md, bool namespaced, smp_name_rule r)
{
	size_t at = smp_fe_child(l, "metadata");
	const smp_value *name = smp__check_get(md, "name");
	const smp_value *gen = smp__check_get(md, "generateName");
	const smp_value *ns = smp__check_get(md, "namespace");
	size_t n;

	if (smp__check_str(gen, &n), n)
		l->unpredictable = true; /* a prefix's rules are not here yet */
	if (smp__check_str(name, &n), n == 0)
		smp_fe_add(l, SMP_FE_REQUIRED, "name", md, NULL, "name or generateName is required");
	else
		check_name(l, "name", name, r);
	if (namespaced) {
		if (smp__check_str(ns, &n), n == 0)
			smp_fe_add(l, SMP_FE_REQUIRED, "namespace", md, NULL, NULL);
		else
			check_name(l, "namespace", ns, NAME_LABEL);
	}
	smp__check_nonnegative(l, "generation", smp__check_get(md, "generation"));
	smp__check_labels(l, "labels", smp__check_get(md, "labels"));
	smp__check_annotations(l, "annotations", smp__check_get(md, "annotations"));
	smp_fe_pop(l, at);
}

void smp__check_meta_update(smp_felist *l, const smp_value *md)
{
	size_t at = smp_fe_child(l, "metadata");

	smp__check_labels(l, "labels", smp__check_get(md, "labels"));
	smp__check_annotations(l, "annotations", smp__check_get(md, "annotations"));
	smp_fe_pop(l, at);
}

void smp__check_config_key(smp_felist *l, const char *sub, const smp_value *at, const char *key,
                           size_t n)
{
	bool ok = n > 0;

	if (n > 253)
		smp_fe_add_str(l, SMP_FE_INVALID, sub, at, key, n, "must be no more than 253 characters");
	for (size_t k = 0; k < n; k++) {
		char c = key[k];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_' || c == '.'))
			ok = false;
	}
	if (!ok)
		smp_fe_add_str(l, SMP_FE_INVALID, sub, at, key, n, KEY_MSG);
	if (n == 1 && key[0] == '.')
		smp_fe_add_str(l, SMP_FE_INVALID, sub, at, key, n, "must not be '.'");
	else if (n == 2 && memcmp(key, "..", 2) == 0)
		smp_fe_add_str(l, SMP_FE_INVALID, sub, at, key, n, "must not be '..'");
	else if (n > 2 && memcmp(key, "..", 2) == 0)
		smp_fe_add_str(l, SMP_FE_INVALID, sub, at, key, n, "must not start with '..'");
}

bool smp__check_port_name(smp_felist *l, const char *sub, const smp_value *v)
{
	size_t n, before = l->n;
	const char *s = smp__check_str(v, &n);
	bool charset = true, letter = false, hyphens = false;

	for (size_t i = 0; i < n; i++) {
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			charset = false;
		if (s[i] >= 'a' && s[i] <= 'z')
			letter = true;
	}
	if (n > 15)
		smp_fe_add_str(l, SMP_FE_INVALID, sub, v, s, n, "must be no more than 15 characters");
	if (!charset)
		smp_fe_add_str(l, SMP_FE_INVALID, sub, v, s, n,
		               "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
	if (!letter)
		smp_fe_add_str(l, SMP_FE_INVALID, sub, v, s, n, "must contain at least one letter (a-z)");
	for (size_t i = 0; i + 1 < n && !hyphens; i++)
		hyphens = s[i] == '-' && s[i + 1] == '-';
	if (hyphens)
		smp_fe_add_str(l, SMP_FE_INVALID, sub, v, s, n, "must not contain consecutive hyphens");
	if (n && (s[0] == '-' || s[n - 1] == '-'))
		smp_fe_add_str(l, SMP_FE_INVALID, sub, v, s, n, "must not begin or end with a hyphen");
	return l->n != before;
}

bool smp__check_one_of(const char *s, size_t n, const char *const *valid)
{
	for (size_t i = 0; valid[i]; i++)
		if (strlen(valid[i]) == n && memcmp(valid[i], s, n) == 0)
			return true;
	return false;
}

void smp__check_enum(smp_felist *l, const char *sub, const smp_value *v,
                     const char *const *valid, const char *shown)
{
	size_t n;
	const char *s = smp__check_str(v, &n);

	if (!v)
		return; /* absent from a stored form: a default (check.h) */
	if (n == 0)
		smp_fe_add(l, SMP_FE_REQUIRED, sub, v, NULL, NULL);
	else if (!smp__check_one_of(s, n, valid))
		smp_fe_not_supported(l, sub, v, s, n, shown);
}
