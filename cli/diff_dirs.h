/*
 * diff_dirs.h - `-o diff` through KUBECTL_EXTERNAL_DIFF (diff_dirs.c).
 */
#ifndef SMP_CLI_DIFF_DIRS_H
#define SMP_CLI_DIFF_DIRS_H

#include "smpatch.h"

/* Two new temporary directories, LIVE-XXXXXX and MERGED-XXXXXX; NULL after
 * a message when they cannot be made. */
typedef struct cli_diff_dirs cli_diff_dirs;
cli_diff_dirs *cli_diff_dirs_new(void);

/* Writes the entry's two sides (smp_plan_entry_diff_sides with `flags`)
 * as files named as kubectl diff names them (smp_plan_entry_diff_name). */
int cli_diff_dirs_add(cli_diff_dirs *d, const smp_plan_entry *e, unsigned flags,
                      smp_error *err);

/* Runs `program` (KUBECTL_EXTERNAL_DIFF, split as kubectl splits it) on
 * the two directories, its output on ours: its exit status (0 same, 1
 * differences, as diff), 2 or more after a message when it fails. */
int cli_diff_dirs_run(cli_diff_dirs *d, const char *program);

/* Removes the files and the directories. NULL is fine. */
void cli_diff_dirs_free(cli_diff_dirs *d);

#endif
