/*
 * labels.c - label key and value validation, with the messages of
 * k8s.io/apimachinery's validation package (as vendored by kubectl v1.32).
 */
#include "apply/apply_int.h"

#include <stdio.h>
#include <string.h>

#define LABEL_NAME_MAX 63
#define LABEL_VALUE_MAX 63
#define DNS1123_SUBDOMAIN_MAX 253

#define LABEL_KEY_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define LABEL_KEY_MSG "must consist of alphanumeric characters, '-', '_' or '.', " \
	"and must start and end with an alphanumeric character"
#define LABEL_KEY_EXAMPLES " (e.g. 'MyName',  or 'my.name',  or '123-abc', " \
	"regex used for validation is '" LABEL_KEY_FMT "')"
#define LABEL_VALUE_MSG "a valid label must be an empty string or consist of " \
	"alphanumeric characters, '-', '_' or '.', and must start and end with an " \
	"alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex " \
	"used for validation is '(" LABEL_KEY_FMT ")?')"
#define DNS1123_LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define DNS1123_SUBDOMAIN_MSG "a lowercase RFC 1123 subdomain must consist of lower " \
	"case alphanumeric characters, '-' or '.', and must start and end with an " \
	"alphanumeric character (e.g. 'example.com', regex used for validation is '" \
	DNS1123_LABEL_FMT "(\\." DNS1123_LABEL_FMT ")*')"

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] */
static bool name_ok(const char *s, size_t n)
{
	if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
		return false;
	for (size_t i = 1; i + 1 < n; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* Lower-case DNS-1123 subdomain: dot-separated labels of [a-z0-9-], each
 * starting and ending with [a-z0-9]. */
static bool subdomain_ok(const char *s, size_t n)
{
	size_t start = 0;

	if (n == 0)
		return false;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.') {
			char c = s[i];
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
				return false;
			continue;
		}
		if (i == start || s[start] == '-' || s[i - 1] == '-')
			return false;
		start = i + 1;
	}
	return true;
}

/* Appends msg after the messages in b since `start`, `sep` between. */
static void add_msg(smp_buf *b, size_t start, const char *sep, const char *msg)
{
	if (b->len > start)
		smp_buf_puts(b, sep);
	smp_buf_puts(b, msg);
}

int smp_label_key_list(smp_buf *b, const char *key, size_t n, const char *sep)
{
	const char *slash = memchr(key, '/', n);
	const char *name = key;
	size_t nlen = n;
	size_t before = b->len;

	if (slash) {
		size_t plen = (size_t)(slash - key);
		if (memchr(slash + 1, '/', n - plen - 1)) {
			add_msg(b, before, sep, "a qualified name " LABEL_KEY_MSG LABEL_KEY_EXAMPLES
			        " with an optional DNS subdomain prefix and '/' (e.g. "
			        "'example.com/MyName')");
			return b->len != before;
		}
		if (plen == 0) {
			add_msg(b, before, sep, "prefix part must be non-empty");
		} else {
			if (plen > DNS1123_SUBDOMAIN_MAX)
				add_msg(b, before, sep, "prefix part must be no more than 253 characters");
			if (!subdomain_ok(key, plen))
				add_msg(b, before, sep, "prefix part " DNS1123_SUBDOMAIN_MSG);
		}
		name = slash + 1;
		nlen = n - plen - 1;
	}
	if (nlen == 0)
		add_msg(b, before, sep, "name part must be non-empty");
	else if (nlen > LABEL_NAME_MAX)
		add_msg(b, before, sep, "name part must be no more than 63 characters");
	if (!name_ok(name, nlen))
		add_msg(b, before, sep, "name part " LABEL_KEY_MSG LABEL_KEY_EXAMPLES);
	return b->len != before;
}

int smp_label_value_list(smp_buf *b, const char *value, size_t n, const char *sep)
{
	size_t before = b->len;

	if (n > LABEL_VALUE_MAX)
		add_msg(b, before, sep, "must be no more than 63 characters");
	if (n && !name_ok(value, n))
		add_msg(b, before, sep, LABEL_VALUE_MSG);
	return b->len != before;
}

int smp_label_key_problems(smp_buf *b, const char *key, size_t n)
{
	return smp_label_key_list(b, key, n, "; ");
}

int smp_label_value_problems(smp_buf *b, const char *value, size_t n)
{
	return smp_label_value_list(b, value, n, "; ");
}

static int report(smp_buf *b, smp_error *err, const char *what, const char *s, size_t n)
{
	smp_buf q;
	int rc;

	if (b->oom) {
		smp_buf_release(b);
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	}
	smp_buf_init(&q);
	smp_quote_go(&q, s, n);
	rc = smp_err_set(err, SMP_EINVALOBJ, NULL, 0, 0, NULL, "invalid label %s %s: %s",
	                 what, q.oom ? "" : q.ptr, b->ptr);
	smp_buf_release(&q);
	smp_buf_release(b);
	return rc;
}

int smp_label_validate_key(const char *key, smp_error *err)
{
	smp_buf b;

	if (!key)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL, "label key is NULL");
	smp_buf_init(&b);
	if (!smp_label_key_problems(&b, key, strlen(key)) && !b.oom) {
		smp_buf_release(&b);
		return 0;
	}
	return report(&b, err, "key", key, strlen(key));
}

int smp_label_validate_value(const char *value, smp_error *err)
{
	smp_buf b;

	if (!value)
		return smp_err_set(err, SMP_EINVAL, NULL, 0, 0, NULL, "label value is NULL");
	smp_buf_init(&b);
	if (!smp_label_value_problems(&b, value, strlen(value)) && !b.oom) {
		smp_buf_release(&b);
		return 0;
	}
	return report(&b, err, "value", value, strlen(value));
}

int smp_labels_validate(const smp_value *labels, const char *path, smp_error *err)
{
	smp_buf b;
	const char *p = path ? path : "metadata.labels";

	if (!labels || labels->type == SMP_NULL)
		return 0;
	if (labels->type != SMP_MAP)
		return smp_err_set(err, SMP_EINVALOBJ, NULL, labels->line, labels->col, p,
		                   "%s: Invalid value: labels must be a map of strings", p);
	smp_buf_init(&b);
	for (size_t i = 0; i < labels->u.map.len; i++) {
		const smp_member *m = &labels->u.map.items[i];
		const smp_value *v = m->val;
		const char *s = m->key;
		size_t n = m->klen;
		bool bad;

		/* kubectl drops a null label on create and deletes the label with
		 * it in a patch: the server never validates it */
		if (v->type == SMP_NULL)
			continue;
		bad = smp_label_key_problems(&b, m->key, m->klen);

		if (!bad) {
			if (v->type != SMP_STRING) {
				smp_buf_release(&b);
				return smp_err_set(err, SMP_EINVALOBJ, NULL, v->line, v->col, p,
				                   "%s: Invalid value: the value of label \"%s\" "
				                   "must be a string", p, m->key);
			}
			s = v->u.s.ptr;
			n = v->u.s.len;
			bad = smp_label_value_problems(&b, s, n);
		}
		if (b.oom)
			break;
		if (bad) {
			smp_buf q;
			int rc;
			smp_buf_init(&q);
			smp_quote_go(&q, s, n);
			rc = smp_err_set(err, SMP_EINVALOBJ, NULL, v->line, v->col, p,
			                 "%s: Invalid value: %s: %s", p, q.oom ? "" : q.ptr, b.ptr);
			smp_buf_release(&q);
			smp_buf_release(&b);
			return rc;
		}
	}
	if (b.oom) {
		smp_buf_release(&b);
		return smp_err_set(err, SMP_ENOMEM, NULL, 0, 0, NULL, "out of memory");
	}
	smp_buf_release(&b);
	return 0;
}
