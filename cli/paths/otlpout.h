/*
 * Request paths as OpenTelemetry traces, OTLP/JSON (an
 * ExportTraceServiceRequest of opentelemetry-proto): a trace per request, a
 * resource per process, a SERVER span per hop and a CLIENT span per
 * exchange, written to a file or POSTed to a collector (OTLP/HTTP).
 */
#ifndef IPCPERF_CLI_OTLPOUT_H
#define IPCPERF_CLI_OTLPOUT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "pathsout.h"

/*
 * The document of the requests @po kept, into @f. @real_minus_mono: the
 * wall clock less CLOCK_MONOTONIC (the paths' clock), in ns; @seed: the
 * random part of the trace and span ids. @return 0, or -1 (out of memory).
 */
int otlpout_write(FILE *f, const struct pathsout *po, int64_t real_minus_mono, uint64_t seed);

/*
 * The document, in memory (ids with a random seed): malloc'ed, of *@len
 * bytes; NULL when out of memory.
 */
char *otlpout_doc(const struct pathsout *po, int64_t real_minus_mono, size_t *len);

/*
 * POST @len bytes of @body (an OTLP/JSON document) to @url. A failure is
 * said in one line that names the URL and the HTTP status or the error.
 * @return 0, or -1.
 */
int otlpout_post(const char *url, const char *body, size_t len);

#endif /* IPCPERF_CLI_OTLPOUT_H */
