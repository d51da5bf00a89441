/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The replay rule of `ipcperf report`, checked on one capture (replay-check.h). */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <ipcperf/ipcperf.h>

#include "replay-check.h"

static struct {
	char text[4096];	/* the lines, as printed */
	unsigned int lines, errors;	/* all, and those not warnings */
	char error[1024];	/* the last that is not a warning */
} said;

static int on_print(enum ipcperf_print_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(said.text);
	char line[1024];

	if (level == IPCPERF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	said.lines++;
	if (level != IPCPERF_WARN) {
		said.errors++;
		snprintf(said.error, sizeof(said.error), "%s", line);
	}
	snprintf(said.text + n, sizeof(said.text) - n, "%s%s",
		 level == IPCPERF_WARN ? "warning: " : "", line);
	return 0;
}

/* Does @msg read "PATH: offset 0x<hex>: <something>\n"? */
static bool offset_shape(const char *msg, const char *path)
{
	size_t n = strlen(path);
	const char *p;

	if (strncmp(msg, path, n) || strncmp(msg + n, ": offset 0x", 11))
		return false;
	p = msg + n + 11;
	if (!*p || !strchr("0123456789abcdef", *p))
		return false;
	while (*p && strchr("0123456789abcdef", *p))
		p++;
	return p[0] == ':' && p[1] == ' ' && p[2] && p[2] != '\n' && strchr(p, '\n') &&
	       !strchr(p, '\n')[1];
}

const char *pd_replay_check(const char *path, int expect, char *why, size_t whylen)
{
	ipcperf_print_fn_t old = ipcperf_set_print(on_print);
	struct ipcperf_stats *st = ipcperf_stats__new(NULL);
	struct ipcperf_flows *fl = st ? ipcperf_flows__new(st) : NULL;
	struct ipcperf_session *s = NULL;
	int err = 0, loops = 0;

	why[0] = '\0';
	if (!fl) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	memset(&said, 0, sizeof(said));
	s = ipcperf_session__open_file(path, NULL);
	if (!s)
		err = -errno;
	else if ((err = ipcperf_stats__attach(st, s)) < 0 || (err = ipcperf_flows__attach(fl, s)) < 0)
		snprintf(why, whylen, "cannot attach the accounting: %s", strerror(-err));
	else if ((err = ipcperf_session__start(s)) == 0)
		while (!ipcperf_session__done(s) && (err = ipcperf_session__consume(s)) >= 0)
			if (++loops > 1000000) {
				snprintf(why, whylen, "consume is never done");
				break;
			}
	if (why[0])
		goto out;
	if (s && err >= 0)
		err = ipcperf_session__stop(s);
	if (s && err < 0) {
		unsigned int lines = said.lines;
		int again = ipcperf_session__consume(s);

		if (again != err || said.lines != lines) {
			snprintf(why, whylen, "a consume after the failure (%s) gave %d and said %u more "
				 "lines", strerror(-err), again, said.lines - lines);
			goto out;
		}
	}
	if (err < 0 && said.errors != 1)
		snprintf(why, whylen, "failed (%s) with %u lines not warnings: %s", strerror(-err),
			 said.errors, said.text);
	else if (err < 0 && !offset_shape(said.error, path))
		snprintf(why, whylen, "failed with an error not 'FILE: offset 0x...: ...': %s",
			 said.error);
	else if (err >= 0 && said.errors)
		snprintf(why, whylen, "succeeded, but said more than warnings: %s", said.text);
	else if (err >= 0 && expect < 0)
		snprintf(why, whylen, "replayed without an error");
	else if (err < 0 && expect > 0)
		snprintf(why, whylen, "failed: %s", said.error);
out:
	ipcperf_session__delete(s);
	ipcperf_flows__delete(fl);
	ipcperf_stats__delete(st);
	ipcperf_set_print(old);
	return why[0] ? why : NULL;
}
