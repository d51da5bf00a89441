/*
 * Runner for the tests that open real tracepoints on real processes. They need
 * root; elsewhere they skip (exit 77), except under CI=true where a skip
 * would hide a missing check and is a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
	SRunner *sr = srunner_create(engine_suite());
	srunner_add_suite(sr, stat_suite());
	srunner_add_suite(sr, flowlive_suite());
	srunner_add_suite(sr, syscalls_suite());
	srunner_add_suite(sr, loss_suite());
	srunner_add_suite(sr, sched_suite());
	srunner_add_suite(sr, machine_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
