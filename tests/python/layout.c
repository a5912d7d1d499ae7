/*
 * layout.c - prints the layout of every struct of smpatch.h the Python
 * binding declares with ctypes (bindings/python/smpatch/_native.py,
 * STRUCTS), as the compiler lays it out from the header: one line
 * "STRUCT size N" per struct and "STRUCT.FIELD offset N" per field.
 * tests/python/test_binding.py compares the binding's copies with it, so
 * a change of the header that the binding misses fails a test.
 */
#include "smpatch.h"

#include <stddef.h>
#include <stdio.h>

#define SIZE(s) printf(#s " size %zu\n", sizeof(s))
#define FIELD(s, f) printf(#s "." #f " offset %zu\n", offsetof(s, f))

int main(void)
{
	SIZE(smp_error);
	FIELD(smp_error, code); FIELD(smp_error, message); FIELD(smp_error, file);
	FIELD(smp_error, line); FIELD(smp_error, column); FIELD(smp_error, path);
	SIZE(smp_parse_options);
	FIELD(smp_parse_options, version); FIELD(smp_parse_options, format);
	FIELD(smp_parse_options, filename); FIELD(smp_parse_options, max_depth);
	FIELD(smp_parse_options, max_alias_nodes); FIELD(smp_parse_options, max_bytes);
	FIELD(smp_parse_options, allow_duplicate_keys); FIELD(smp_parse_options, map_file);
	SIZE(smp_print_options);
	FIELD(smp_print_options, version); FIELD(smp_print_options, output);
	FIELD(smp_print_options, sort_keys); FIELD(smp_print_options, go_escape);
	SIZE(smp_patch_options);
	FIELD(smp_patch_options, version); FIELD(smp_patch_options, type);
	FIELD(smp_patch_options, stype); FIELD(smp_patch_options, overwrite);
	SIZE(smp_stored_options);
	FIELD(smp_stored_options, version); FIELD(smp_stored_options, flags);
	FIELD(smp_stored_options, schema);
	SIZE(smp_check_options);
	FIELD(smp_check_options, version); FIELD(smp_check_options, live);
	FIELD(smp_check_options, schema);
	SIZE(smp_ssa_options);
	FIELD(smp_ssa_options, version); FIELD(smp_ssa_options, manager);
	FIELD(smp_ssa_options, force); FIELD(smp_ssa_options, schema); FIELD(smp_ssa_options, now);
	FIELD(smp_ssa_options, cache);
	SIZE(smp_ssa_conflict);
	FIELD(smp_ssa_conflict, manager); FIELD(smp_ssa_conflict, operation);
	FIELD(smp_ssa_conflict, api_version); FIELD(smp_ssa_conflict, subresource);
	FIELD(smp_ssa_conflict, path);
	SIZE(smp_changes_options);
	FIELD(smp_changes_options, version); FIELD(smp_changes_options, schema);
	FIELD(smp_changes_options, flags);
	SIZE(smp_delete_options);
	FIELD(smp_delete_options, version); FIELD(smp_delete_options, propagation);
	FIELD(smp_delete_options, grace_period_seconds);
	SIZE(smp_field_info);
	FIELD(smp_field_info, path); FIELD(smp_field_info, type); FIELD(smp_field_info, strategy);
	FIELD(smp_field_info, merge_key); FIELD(smp_field_info, list_type);
	FIELD(smp_field_info, list_map_keys); FIELD(smp_field_info, map_type);
	FIELD(smp_field_info, format); FIELD(smp_field_info, preserve_unknown);
	FIELD(smp_field_info, stype);
	return 0;
}
