/* yaml_print.c - block-style YAML printer. */
#include "codec.h"

int smp_yaml_print(smp_buf *b, const smp_value *v, bool sort_keys, smp_error *err)
{
	(void)b;
	(void)v;
	(void)sort_keys;
	return smp_err_set(err, SMP_EINTERNAL, NULL, 0, 0, NULL,
	                   "YAML printing is not implemented yet");
}
