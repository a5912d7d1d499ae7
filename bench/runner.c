/*
 * runner.c - runs one command and reports its wall time and peak RSS.
 *
 *   runner OUT ERR -- PROGRAM ARGS...
 *
 * Standard output goes to OUT, standard error to ERR, standard input is
 * /dev/null. Prints one line:
 *   "<wall ms> <peak RSS KiB> <status> <CPU ms>"
 * where status is the exit code, or 128+N after signal N, and CPU is user +
 * system time (of the process and the descendants it waited for). CPU time
 * does not grow when other processes compete for the cores, so it is what
 * the growth check uses on a shared machine.
 *
 * The peak RSS is ru_maxrss from wait4(), the figure `/usr/bin/time -v`
 * reports as "Maximum resident set size" (it reads the same field, which
 * also covers descendants the process waited for, e.g. a kubectl that runs
 * its versioned binary). The clock is CLOCK_MONOTONIC around fork..wait, so
 * the shell's own overhead is not counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* wait4 is BSD/GNU, not POSIX: declare it when the headers hide it. */
pid_t wait4(pid_t pid, int *status, int options, struct rusage *rusage);

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status = 0;
	pid_t pid;

	if (argc < 5 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "usage: runner OUT ERR -- PROGRAM ARGS...\n");
		return 2;
	}
	int out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int err = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int in = open("/dev/null", O_RDONLY);
	if (out < 0 || err < 0 || in < 0) {
		fprintf(stderr, "runner: cannot open output files: %s\n", strerror(errno));
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "runner: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		close(in);
		close(out);
		close(err);
		execvp(argv[4], argv + 4);
		fprintf(stderr, "runner: cannot run %s: %s\n", argv[4], strerror(errno));
		_exit(127);
	}
	close(in);
	close(out);
	close(err);
	if (wait4(pid, &status, 0, &ru) < 0) {
		fprintf(stderr, "runner: wait4: %s\n", strerror(errno));
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
	            (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	int code = WIFEXITED(status) ? WEXITSTATUS(status)
	                             : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	             (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	printf("%.3f %ld %d %.3f\n", ms, ru.ru_maxrss, code, cpu);
	return 0;
}
