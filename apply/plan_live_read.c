/*
 * plan_live_read.c - a live object of a file the plan does not hold
 * (plan_live.c keeps only its place there), read again when an entry
 * needs it.
 */
#include "plan_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int smp__plan_live_load(const smp_plan *p, const plan_obj *o, smp_doc **doc,
                        const smp_value **v, smp_error *err)
{
	smp_parse_options po = SMP_PARSE_OPTIONS_INIT;
	size_t got = 0;
	char *buf;
	int rc;

	*doc = NULL;
	*v = o->v;
	if (!o->file)
		return 0;
	if (!(buf = malloc(o->len ? o->len : 1)))
		return smp__err(err, SMP_ENOMEM, "out of memory");
	while (got < o->len) {
		ssize_t n = pread(p->lfds[o->file - 1], buf + got, o->len - got,
		                  (off_t)(o->off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = smp_err_set(err, SMP_EIO, o->label, 0, 0, NULL, "cannot read: %s",
			                 n ? strerror(errno) : "the file is shorter than it was");
			free(buf);
			return rc;
		}
		got += (size_t)n;
	}
	po.format = SMP_FORMAT_JSON;
	po.filename = o->label;
	rc = smp_doc_parse(doc, buf, o->len, &po, err);
	free(buf);
	if (!rc && smp_value_type(smp_doc_root(*doc, 0)) != SMP_MAP)
		rc = smp_err_set(err, SMP_EIO, o->label, 0, 0, NULL,
		                 "the file changed since it was read");
	if (rc) {
		smp_doc_free(*doc);
		*doc = NULL;
		return rc;
	}
	*v = smp_doc_root(*doc, 0);
	return 0;
}
