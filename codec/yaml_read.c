/* yaml_read.c - YAML reader (libyaml). */
#include "codec.h"

int smp_yaml_read(smp_doc *doc, const char *buf, size_t len, const smp_pctx *pc)
{
	(void)doc;
	(void)buf;
	(void)len;
	return smp_err_set(pc->err, SMP_EINTERNAL, pc->file, 0, 0, NULL,
	                   "YAML reading is not implemented yet");
}
