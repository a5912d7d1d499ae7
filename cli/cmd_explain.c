/* cmd_explain.c - placeholder until the command lands; it says so and fails. */
#include "cli.h"

#include <stdio.h>

int cmd_explain(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "smpatch %s: not implemented yet\n", argv[0]);
	return CLI_INTERNAL;
}
