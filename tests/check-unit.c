/* Runner for the unit tests of the pure modules: needs neither root nor a kernel. */
#include <stdlib.h>
#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(decode_suite());
	srunner_add_suite(sr, merge_suite());
	srunner_add_suite(sr, pipeline_suite());
	srunner_add_suite(sr, follow_suite());
	srunner_add_suite(sr, pair_suite());
	srunner_add_suite(sr, opts_suite());
	srunner_add_suite(sr, hist_suite());
	srunner_add_suite(sr, procfd_suite());
	srunner_add_suite(sr, account_suite());
	srunner_add_suite(sr, fdtable_suite());
	srunner_add_suite(sr, flows_suite());
	srunner_add_suite(sr, paths_suite());
	srunner_add_suite(sr, chains_suite());
	srunner_add_suite(sr, flowout_suite());
	srunner_add_suite(sr, perfdata_suite());
	srunner_add_suite(sr, metrics_suite());
	srunner_add_suite(sr, httpd_suite());
	srunner_add_suite(sr, util_suite());
	srunner_add_suite(sr, interval_suite());
	srunner_add_suite(sr, topview_suite());
	srunner_add_suite(sr, tracefds_suite());
	srunner_add_suite(sr, traceargs_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
