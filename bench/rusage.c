/*
 * bench_rusage: runs a command and writes what it cost, for the benchmarks
 * that compare whole programs (bench_plugin).
 *
 *   bench_rusage OUTPUT COMMAND [ARGUMENT...]
 *
 * OUTPUT gets one line, "CPU RSS": CPU the command's user + system time in
 * seconds, to the microsecond, and RSS its peak resident set in MiB; both
 * include every descendant it waited for (wait4's usage of the child). The
 * exit status is the command's (128 + the signal when one killed it; 127
 * when it could not be started).
 *
 * GNU time prints CPU time in hundredths of a second: on a run of half a
 * second that is up to 2 % per side, more than the differences the
 * benchmark has to tell apart.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static double seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_rusage OUTPUT COMMAND [ARGUMENT...]\n");
		return 2;
	}
	FILE *out = fopen(argv[1], "w");
	if (!out) {
		fprintf(stderr, "bench_rusage: cannot write %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "bench_rusage: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		fclose(out);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "bench_rusage: cannot run %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "bench_rusage: wait4: %s\n", strerror(errno));
			return 2;
		}
	}
	fprintf(out, "%.6f %.1f\n", seconds(ru.ru_utime) + seconds(ru.ru_stime), (double)ru.ru_maxrss / 1024.0);
	if (fclose(out) != 0) {
		fprintf(stderr, "bench_rusage: cannot write %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
