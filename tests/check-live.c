/*
 * Runner for the tests that open real tracepoints on real processes. They need
 * root; elsewhere they skip (exit 77), except under CI=true where a skip
 * would hide a missing check and is a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check-helpers.h"
#include "suites.h"

int main(void)
{
	if (geteuid() != 0) {
		const char *ci = getenv("CI");
		if (ci && strcmp(ci, "true") == 0) {
			fprintf(stderr, "check-live: CI=true but not root: the live tests cannot run\n");
			return EXIT_FAILURE;
		}
		fprintf(stderr, "check-live: skipped: needs root (perf_event_open on tracepoints)\n");
		return 77;
	}
	static const suite_fn suites[] = {
		engine_suite,
		stat_suite,
		flowlive_suite,
		syscalls_suite,
		loss_suite,
		sched_suite,
		machine_suite,
	};

	return run_suites(suites, ARRAY_SIZE(suites));
}
