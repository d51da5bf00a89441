/* Runner for the unit tests of the pure modules: needs neither root nor a kernel. */
#include "check-helpers.h"
#include "suites.h"

int main(void)
{
	static const suite_fn suites[] = {
		decode_suite,
		merge_suite,
		pipeline_suite,
		follow_suite,
		pair_suite,
		opts_suite,
		hist_suite,
		procfd_suite,
		account_suite,
		fdtable_suite,
		flows_suite,
		paths_suite,
		chains_suite,
		flowout_suite,
		perfdata_suite,
		metrics_suite,
		httpd_suite,
		util_suite,
		interval_suite,
		topview_suite,
		tracefds_suite,
		traceargs_suite,
	};

	return run_suites(suites, ARRAY_SIZE(suites));
}
