/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pd-record: record a command into a perf.data file through a session's tap
 * and lib/capture/pd-writer.c's writer, for tests/test-perfdata.sh (perf script and
 * perf report must read the result).
 *
 *   pd-record [-e SETS] [-b TEXT] [-k] -o FILE -- CMD ARGS...
 *	-e SETS  comma-separated io,fds,sched,task,all-syscalls (default: the
 *	         session's default set)
 *	-b TEXT  store TEXT as the ipcperf section's payload (version 1)
 *	-k       stop like a killed recorder: never finish the file (its header
 *	         keeps data size 0)
 * Prints "records N" on stdout; exits with the command's status (or 1).
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "source/formats.h"
#include "capture/record.h"
#include "capture/perfdata.h"

struct rec_ctx {
	struct ipp_pd_writer *w;
	int err;
};

static int print_fn(enum ipcperf_print_level level, const char *fmt, va_list ap)
{
	if (level == IPCPERF_DEBUG)
		return 0;
	fputs("pd-record: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

static void tap(void *ctx, const void *rec, size_t size)
{
	struct rec_ctx *c = ctx;
	int err = ipp_pd_writer__write(c->w, rec, size);

	if (err && !c->err)
		c->err = err;
}

static int add_event(void *ctx, const struct ipcperf_event_desc *d)
{
	struct rec_ctx *c = ctx;

	return ipp_pd_writer__add_event(c->w, d->system, d->name, d->attr, d->attr_size, d->ids,
					d->nr_ids, d->format, d->format_len);
}


static unsigned int parse_sets(const char *s)
{
	static const struct { const char *name; unsigned int bit; } sets[] = {
		{ "io", IPCPERF_EV_IO }, { "fds", IPCPERF_EV_FDS }, { "sched", IPCPERF_EV_SCHED },
		{ "task", IPCPERF_EV_TASK }, { "all-syscalls", IPCPERF_EV_ALL_SYSCALLS },
	};
	unsigned int bits = 0;
	char *copy = strdup(s), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < IPP_ARRAY_SIZE(sets) && strcmp(sets[i].name, t); i++)
			;
		if (i == IPP_ARRAY_SIZE(sets)) {
			fprintf(stderr, "pd-record: unknown event set '%s'\n", t);
			exit(2);
		}
		bits |= sets[i].bit;
	}
	free(copy);
	return bits;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *blob = NULL;
	unsigned int events = 0;
	bool killed = false;
	struct rec_ctx c = { 0 };
	struct ipcperf_session *s;
	struct ipp_pd_writer_opts wopts = { .sz = sizeof(wopts) };
	int opt, err, status = 0;

	while ((opt = getopt(argc, argv, "+e:b:ko:")) != -1) {
		switch (opt) {
		case 'e': events = parse_sets(optarg); break;
		case 'b': blob = optarg; break;
		case 'k': killed = true; break;
		case 'o': out = optarg; break;
		default: return 2;
		}
	}
	if (!out || optind >= argc) {
		fprintf(stderr, "usage: pd-record [-e SETS] [-b TEXT] [-k] -o FILE -- CMD ARGS...\n");
		return 2;
	}
	ipcperf_set_print(print_fn);
	wopts.header_page = ipp_tracefs_events_file("header_page", &wopts.header_page_len);
	wopts.header_event = ipp_tracefs_events_file("header_event", &wopts.header_event_len);
	wopts.kernel_text = ipp_pd_kernel_text();
	c.w = ipp_pd_writer__new(out, &wopts);
	if (!c.w) {
		fprintf(stderr, "pd-record: %s: %s\n", out, strerror(errno));
		return 1;
	}
	s = ipcperf_session__new(&(struct ipcperf_session_opts){
		.sz = sizeof(struct ipcperf_session_opts), .argv = argv + optind, .events = events,
	});
	if (!s) {
		fprintf(stderr, "pd-record: session: %s\n", strerror(errno));
		return 1;
	}
	if ((err = ipcperf_session__set_tap(s, tap, &c)) ||
	    (err = ipcperf_session__start(s)) ||
	    (err = ipcperf_session__for_each_event(s, add_event, &c))) {
		fprintf(stderr, "pd-record: %s\n", strerror(-err));
		return 1;
	}
	while (!ipcperf_session__done(s)) {
		err = ipcperf_session__poll(s, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "pd-record: poll: %s\n", strerror(-err));
			break;
		}
	}
	ipcperf_session__stop(s);
	ipcperf_session__wait_child(s, &status);
	/* The tap ends each pass with a round; make sure the last one is closed too. */
	tap(&c, NULL, 0);
	if (blob && (err = ipp_pd_writer__set_blob(c.w, 1, blob, strlen(blob))) && !c.err)
		c.err = err;
	printf("records %llu\n", (unsigned long long)ipp_pd_writer__records(c.w));
	if (killed) {
		ipp_pd_writer__delete(c.w);
	} else {
		err = ipp_pd_writer__close(c.w);
		if (err && !c.err)
			c.err = err;
	}
	ipcperf_session__delete(s);
	free((void *)wopts.header_page);
	free((void *)wopts.header_event);
	if (c.err) {
		fprintf(stderr, "pd-record: %s: %s\n", out, strerror(-c.err));
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
