/*
 * convert_main.c - `smpatch convert` alone, for the codec tests: the same
 * command code (cli/cmd_convert.c) linked without the other subcommands, so
 * the codec is tested end to end even while other modules are in flux.
 */
#include "cli/cli.h"

int main(int argc, char **argv)
{
	static char name[] = "convert";

	(void)argc;
	argv[0] = name; /* messages say "smpatch convert: ..." as in smpatch */
	return cli_finish(cmd_convert(argc, argv));
}
