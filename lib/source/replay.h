/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * replay.c: the source that reads a capture (a perf.data file written by
 * ipcperf or by perf record) through the perf.data reader (pd-reader.h) and
 * feeds its records to the pipeline.
 */
#ifndef IPCPERF_REPLAY_H
#define IPCPERF_REPLAY_H

#include "source/source.h"

/*
 * Create the source of ipcperf_session__open_file(). Returns it, or NULL
 * with errno set after explaining the error through the print function.
 */
struct ipp_source *ipp_replay__new(const char *path, const struct ipcperf_file_opts *opts,
				   struct ipp_pipeline *pl);
/* Whether the capture was cut short because its recorder did not finish it. */
bool ipp_replay__partial(const struct ipp_source *src);
/* From now on, deliver no record stamped after @until (UINT64_MAX: no bound). */
void ipp_replay__until(struct ipp_source *src, uint64_t until);
extern const struct ipp_source_ops ipp_replay_ops;

#endif /* IPCPERF_REPLAY_H */
