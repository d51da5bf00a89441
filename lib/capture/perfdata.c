/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the writer and the reader of captures share: record names and small
 * helpers. The format is described in perfdata.h; the writer is in
 * pd-writer.c, the reader in pd-reader.c, pd-records.c, pd-sample.c and
 * pd-sections.c.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "capture/perfdata.h"
#include "capture/pd-file.h"

/* ================================================================ record names */

static const char *const kernel_names[] = {
	[PERF_RECORD_MMAP] = "MMAP",
	[PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_SAMPLE] = "SAMPLE",
	/* 10 (MMAP2) to 21, in the order the kernel numbers them */
	"MMAP2", "AUX", "ITRACE_START", "LOST_SAMPLES", "SWITCH", "SWITCH_CPU_WIDE",
	"NAMESPACES", "KSYMBOL", "BPF_EVENT", "CGROUP", "TEXT_POKE", "AUX_OUTPUT_HW_ID",
};
_Static_assert(PERF_RECORD_SAMPLE == 9 && IPP_ARRAY_SIZE(kernel_names) == 22,
	       "the names after SAMPLE are numbered from 10 on, up to 21");

static const char *const user_names[] = {
	"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
	"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
	"THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
	"TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT",
};

const char *ipp_pd_record_name(uint32_t type)
{
	if (type < IPP_ARRAY_SIZE(kernel_names) && kernel_names[type])
		return kernel_names[type];
	if (type >= IPP_PD_RECORD_USER_TYPE_START &&
	    type - IPP_PD_RECORD_USER_TYPE_START < IPP_ARRAY_SIZE(user_names))
		return user_names[type - IPP_PD_RECORD_USER_TYPE_START];
	return "unknown";
}

bool ipp_pd_record_skippable(uint32_t type)
{
	switch (type) {
	case 71:	/* AUXTRACE: hardware trace data */
	case 72:	/* AUXTRACE_ERROR */
	case 75:	/* STAT_CONFIG, STAT, STAT_ROUND: perf stat record's counts */
	case 76:
	case 77:
	case IPP_PD_RECORD_COMPRESSED:	/* the reader unpacks them: none gets here */
		return false;
	default:
		break;
	}
	if (type < IPP_PD_RECORD_USER_TYPE_START)
		return type < IPP_ARRAY_SIZE(kernel_names) && kernel_names[type];
	return type < IPP_PD_RECORD_HEADER_MAX;
}

/* ================================================================ helpers */

char *ipp_pd_memdup0(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

