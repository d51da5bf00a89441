/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfdata-read: how fast lib/capture/perfdata.c reads a capture. Writes a synthetic
 * capture (tests/pd-synth.h: sys_enter_write / sys_exit_write samples in
 * ipcperf's layout, COMM, LOST, a FINISHED_ROUND every 16 records) of N
 * records, then times, over several passes from the page cache:
 *   iterate  ipp_pd_reader__next() over every record
 *   parse    the same plus ipp_pd_reader__parse() of each (id -> event, tid,
 *            time, cpu, raw)
 *   report   what ipcperf report does: a replay session
 *            (ipcperf_session__open_file) with a stats object attached,
 *            consumed to the end: merge, decode, pair, accounting
 * and prints records/s (best pass; median in brackets) and the reader's
 * memory high-water mark, which does not grow with the file.
 *
 *   perfdata-read [-n RECORDS] [-p PASSES] [-o FILE]     (default 5000000, 5, a temp file)
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "capture/perfdata.h"
#include "pd-synth.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One pass: @return records/s, or < 0 on error. */
static double pass(const char *path, bool parse, uint64_t *records)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_pd_sample s;
	struct ipp_pd_rec rec;
	uint64_t n = 0, sink = 0;
	double t0, t1;
	int ret;

	if (!r)
		return -1;
	t0 = now_s();
	if (ipp_pd_reader__open(r, path)) {
		fprintf(stderr, "perfdata-read: %s\n", ipp_pd_reader__error(r));
		ipp_pd_reader__delete(r);
		return -1;
	}
	while ((ret = ipp_pd_reader__next(r, &rec)) == 1) {
		n++;
		if (parse && ipp_pd_reader__parse(r, &rec, &s) == 0)
			sink += s.time + s.raw_size;
	}
	t1 = now_s();
	if (ret < 0)
		fprintf(stderr, "perfdata-read: %s\n", ipp_pd_reader__error(r));
	ipp_pd_reader__delete(r);
	if (ret < 0)
		return -1;
	*records = n + (sink & 0);
	return (double)n / (t1 - t0);
}

/* One replay of the capture into a stats object: @return records/s, or < 0. */
static double replay(const char *path)
{
	struct ipcperf_session_stats ss = { .sz = sizeof(ss) };
	struct ipcperf_stats *st = ipcperf_stats__new(NULL);
	struct ipcperf_session *s;
	double t0 = now_s(), t1;
	int err = 0;

	s = ipcperf_session__open_file(path, NULL);
	if (!s || !st || ipcperf_stats__attach(st, s) < 0 || ipcperf_session__start(s) < 0) {
		ipcperf_session__delete(s);
		ipcperf_stats__delete(st);
		return -1;
	}
	while (!ipcperf_session__done(s) && (err = ipcperf_session__consume(s)) >= 0)
		;
	ipcperf_session__stop(s);
	t1 = now_s();
	ipcperf_session__stats(s, &ss);
	ipcperf_session__delete(s);
	ipcperf_stats__delete(st);
	return err < 0 ? -1 : (double)ss.records / (t1 - t0);
}

static void report(const char *what, double *v, int passes)
{
	qsort(v, (size_t)passes, sizeof(*v), cmp_double);
	printf("%-8s %6.1f M records/s (median %.1f)\n", what, v[passes - 1] / 1e6,
	       v[passes / 2] / 1e6);
}

int main(int argc, char **argv)
{
	uint64_t nr = 5000000, got = 0;
	int passes = 5, opt;
	char tmp[] = "/tmp/perfdata-bench.XXXXXX";
	const char *path = NULL;
	struct pds_opts o = { 0 };
	struct rusage ru;
	double t0, t1, *it, *pa, *rp;
	long rss_before;

	while ((opt = getopt(argc, argv, "n:p:o:")) != -1) {
		switch (opt) {
		case 'n': nr = strtoull(optarg, NULL, 10); break;
		case 'p': passes = atoi(optarg); break;
		case 'o': path = optarg; break;
		default:
			fprintf(stderr, "usage: perfdata-read [-n RECORDS] [-p PASSES] [-o FILE]\n");
			return 2;
		}
	}
	if (passes < 1)
		passes = 1;
	if (!path) {
		int fd = mkstemp(tmp);

		if (fd < 0) {
			perror("mkstemp");
			return 1;
		}
		close(fd);
		path = tmp;
	}
	o.nr_records = nr;
	t0 = now_s();
	if (pds_write_capture(path, &o)) {
		fprintf(stderr, "perfdata-read: writing %s failed\n", path);
		return 1;
	}
	t1 = now_s();
	printf("capture  %llu records (+%llu rounds), %s\n", (unsigned long long)nr,
	       (unsigned long long)(nr / PDS_ROUND), path);
	printf("write    %6.1f M records/s\n", (double)nr / (t1 - t0) / 1e6);
	getrusage(RUSAGE_SELF, &ru);
	rss_before = ru.ru_maxrss;
	it = calloc((size_t)passes, sizeof(*it));
	pa = calloc((size_t)passes, sizeof(*pa));
	rp = calloc((size_t)passes, sizeof(*rp));
	for (int i = 0; i < passes; i++) {
		it[i] = pass(path, false, &got);
		pa[i] = pass(path, true, &got);
		if (it[i] < 0 || pa[i] < 0)
			return 1;
	}
	getrusage(RUSAGE_SELF, &ru);
	report("iterate", it, passes);
	report("parse", pa, passes);
	for (int i = 0; i < passes; i++)
		if ((rp[i] = replay(path)) < 0) {
			fprintf(stderr, "perfdata-read: replaying %s failed\n", path);
			return 1;
		}
	report("report", rp, passes);
	{
		long rss_reader = ru.ru_maxrss;

		getrusage(RUSAGE_SELF, &ru);
		printf("report   max RSS %ld KiB after the replays (%ld KiB after reading alone)\n",
		       ru.ru_maxrss, rss_reader);
	}
	printf("records  %llu per pass; max RSS %ld KiB before reading, %ld KiB after\n",
	       (unsigned long long)got, rss_before, ru.ru_maxrss);
	free(it);
	free(pa);
	free(rp);
	if (path == tmp)
		unlink(tmp);
	return 0;
}
