/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for the perf.data reader (lib/capture/perfdata.c): the input is a
 * whole file. It is opened from memory and, through a memfd, as a file; every
 * record is iterated and parsed, and the tracepoint formats go through the
 * decoder with the samples' raw data, as `ipcperf report` does. Errors are
 * expected; crashes, leaks and undefined behaviour are not, nor an error
 * that does not say where ("FILE: offset 0x...: "), nor a parsed cpu that is
 * not one of the capture's CPUs (a replay indexes per-CPU counts with it).
 *
 * Build (clang): -fsanitize=fuzzer,address,undefined, linked with
 * lib/libipcperf-internal. It has no main(): libFuzzer provides one, or
 * tests/replay-perfdata.c calls pd_fuzz_one() on each corpus file.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* memfd_create */
#endif
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "capture/perfdata.h"
#include "fuzz-perfdata.h"
#include "pipeline/decode.h"

/* Every error of the reader names the offset. */
static void check_error(const struct ipp_pd_reader *r)
{
	if (!strstr(ipp_pd_reader__error(r), ": offset 0x"))
		__builtin_trap();
}

static void walk(struct ipp_pd_reader *r, struct ipp_decoder *d)
{
	const struct ipp_pd_info *info = ipp_pd_reader__info(r);
	struct ipp_pd_sample s;
	struct ipp_pd_rec rec;
	const void *blob;
	uint32_t version, cpus;
	size_t blen, n = 0;
	volatile uint64_t sink = 0;
	int ret;

	if (!info)
		__builtin_trap();
	cpus = info->nr_cpus_avail ? info->nr_cpus_avail : IPP_PD_MAX_CPUS;
	if (cpus > IPP_PD_MAX_CPUS || (info->nr_cpus_avail && info->nr_cpus_online > cpus))
		__builtin_trap();
	for (size_t i = 0; i < ipp_pd_reader__nr_events(r); i++) {
		const struct ipp_pd_event *ev = ipp_pd_reader__event(r, i);

		sink += ev->nr_ids + (ev->name ? strlen(ev->name) : 0);
		for (size_t j = 0; j < ev->nr_ids; j++)
			if (!ipp_pd_reader__event_by_id(r, ev->ids[j]))
				__builtin_trap();
		if (ev->format)
			sink += ev->format->len;
	}
	for (size_t i = 0; d && i < ipp_pd_reader__nr_formats(r); i++) {
		const struct ipp_pd_format *f = ipp_pd_reader__format(r, i);
		const char *pf = strstr(f->text, "\nprint fmt:");

		if (strlen(f->text) != f->len)
			__builtin_trap();
		/*
		 * Only the fields matter to the decoder. libtraceevent 1.7.1 dies
		 * of SIGFPE on some print fmt lines (perfdata-corpus/
		 * libtraceevent-fpe-print-fmt.data: "R/C->ret"), so leave them out.
		 */
		ipp_decoder__add_format(d, f->system, f->name, f->text,
					pf ? (size_t)(pf - f->text) + 1 : f->len);
	}
	if (ipp_pd_reader__blob(r, &version, &blob, &blen) == 0 && blen)
		sink += ((const unsigned char *)blob)[blen - 1] + version;
	while ((ret = ipp_pd_reader__next(r, &rec)) == 1) {
		if (rec.size < 8 || rec.offset < info->data_offset)
			__builtin_trap();
		sink += ((const unsigned char *)rec.data)[rec.size - 1];
		ret = ipp_pd_reader__parse(r, &rec, &s);
		if (ret == -EPROTO)
			check_error(r);
		else if (ret && ret != -ENOENT)
			__builtin_trap();
		if (ret == 0 && (s.sample_type & PERF_SAMPLE_CPU) && s.cpu >= cpus)
			__builtin_trap();
		if (ret == 0 && s.raw) {
			struct ipp_rec out;

			sink += ((const unsigned char *)s.raw)[0] * !!s.raw_size;
			if (d)
				ipp_decoder__decode(d, s.raw, s.raw_size, &out);
		}
		/* Bounded work per input, even for a long stream of tiny records. */
		if (++n > 100000)
			break;
	}
	if (ret < 0)
		check_error(r);
	(void)sink;
}

/*
 * libtraceevent 1.7 leaks a token when tep_parse_event() fails on some
 * malformed formats: not ours to fix here, and it would stop every run.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

int pd_fuzz_one(const uint8_t *data, size_t size)
{
	struct ipp_pd_reader *r = ipp_pd_reader__new();
	struct ipp_decoder *d = ipp_decoder__new();
	int fd;

	if (!r || !d)
		goto out;
	if (ipp_pd_reader__open_mem(r, data, size) == 0) {
		walk(r, d);
		/* Again from the start: rewind must give the same stream. */
		ipp_pd_reader__rewind(r);
		walk(r, NULL);
	} else {
		check_error(r);	/* every failure explains itself */
	}
	ipp_pd_reader__delete(r);
	r = NULL;

	/* The file path reads through its own buffer: the same input as a file. */
	fd = memfd_create("fuzz-perfdata", MFD_CLOEXEC);
	if (fd >= 0) {
		char path[64];

		if (write(fd, data, size) == (ssize_t)size) {
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			r = ipp_pd_reader__new();
			if (r && ipp_pd_reader__open(r, path) == 0)
				walk(r, NULL);
		}
		close(fd);
	}
out:
	ipp_pd_reader__delete(r);
	ipp_decoder__delete(d);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return pd_fuzz_one(data, size);
}
