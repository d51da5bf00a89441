/* Shared layer of the CLI: messages, target options, outputs. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "output.h"
#include "util.h"

const char *cli_prog = "ipcperf";
static bool verbose_print;

void cli_err(const char *fmt, ...)
{
	va_list ap;

	cli_status_clear();
	fprintf(stderr, "%s: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int print_fn(enum ipcperf_print_level level, const char *fmt, va_list ap)
{
	if (level == IPCPERF_DEBUG && !verbose_print)
		return 0;
	cli_status_clear();
	fprintf(stderr, "%s: %s", cli_prog, level == IPCPERF_WARN ? "warning: " : "");
	return vfprintf(stderr, fmt, ap);
}

void cli_setup_print(bool verbose)
{
	verbose_print = verbose;
	ipcperf_set_print(print_fn);
}

/* "1,2,3" into a list of positive ids; a usage error names the bad item. */
static int parse_ids(const char *arg, const char *opt, pid_t **out, size_t *nr)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	size_t cap = *nr;	/* the list of an earlier -p: full */
	int ret = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v;

		errno = 0;
		v = strtol(tok, &end, 10);
		if (errno || end == tok || *end || v <= 0 || v > INT_MAX) {
			cli_err("invalid id '%s' in %s: give positive numbers, e.g. %s 1234,5678",
				tok, opt, opt);
			ret = -1;
			break;
		}
		if (cli_grow((void **)out, &cap, *nr + 1, sizeof(**out)) < 0) {
			ret = -1;
			break;
		}
		(*out)[(*nr)++] = (pid_t)v;
	}
	if (!ret && !*nr) {
		cli_err("%s needs at least one id", opt);
		ret = -1;
	}
	free(copy);
	return ret;
}

int cli_target_opt(struct cli_target *t, int opt, const char *arg)
{
	char *end;

	switch (opt) {
	case 'p':
		return parse_ids(arg, "-p", &t->pids, &t->nr_pids);
	case 't':
		return parse_ids(arg, "-t", &t->tids, &t->nr_tids);
	case 'a':
		t->system_wide = true;
		return 0;
	case 'd':
		errno = 0;
		t->duration = strtod(arg, &end);
		if (errno || end == arg || *end || !(t->duration > 0) || !isfinite(t->duration)) {
			cli_err("invalid duration '%s' for -d: give seconds > 0, e.g. -d 2.5", arg);
			return -1;
		}
		return 0;
	case 'm': {
		unsigned long v;

		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || !v || (v & (v - 1)) || v > (1ul << 16)) {
			cli_err("invalid ring size '%s' for -m: give a power of two from 1 to 65536 pages",
				arg);
			return -1;
		}
		t->ring_pages = (unsigned int)v;
		return 0;
	}
	case 'o':
		t->output = arg;
		return 0;
	case CLI_OPT_SCOPE:
		if (strcmp(arg, "auto") == 0)
			t->scope = IPCPERF_SCOPE_AUTO;
		else if (strcmp(arg, "cpu") == 0)
			t->scope = IPCPERF_SCOPE_CPU;
		else if (strcmp(arg, "task") == 0)
			t->scope = IPCPERF_SCOPE_TASK;
		else {
			cli_err("invalid scope '%s' for --scope: give auto, cpu or task", arg);
			return -1;
		}
		return 0;
	default:
		return 1;
	}
}

const char *cli_report_input;

int cli_target_finish(struct cli_target *t, int argc, char **argv, int first)
{
	int kinds;

	if (cli_report_input) {
		/* A report: its targets were those of the recording. */
		t->input = cli_report_input;
		if (first < argc || t->nr_pids || t->nr_tids || t->system_wide) {
			cli_err("a report takes no target: it reads %s", t->input);
			return -1;
		}
		return 0;
	}
	if (first < argc)
		t->argv = argv + first;
	kinds = (t->nr_pids || t->nr_tids) + t->system_wide + !!t->argv;
	if (kinds == 0) {
		cli_err("no target: give -p PID, -t TID, -a, or -- CMD [ARGS]");
		return -1;
	}
	if (kinds > 1) {
		cli_err("give one kind of target: -p/-t, -a, or -- CMD");
		return -1;
	}
	if (t->record && t->scope == IPCPERF_SCOPE_CPU && !t->system_wide) {
		cli_err("a capture holds its targets' records only: record with --scope task or auto");
		return -1;
	}
	return 0;
}

void cli_describe_targets(const struct cli_target *t, char *w, size_t len)
{
	size_t n = 0;

	if (t->input) {
		snprintf(w, len, "capture %s", t->input);
		return;
	}
	if (t->system_wide) {
		snprintf(w, len, "whole system");
		return;
	}
	if (t->argv) {
		n = (size_t)snprintf(w, len, "command '");
		for (char **a = t->argv; *a && n < len; a++)
			n += (size_t)snprintf(w + n, len - n, "%s%s", a == t->argv ? "" : " ", *a);
		if (n < len)
			snprintf(w + n, len - n, "'");
		return;
	}
	{
		const pid_t *ids = t->nr_pids ? t->pids : t->tids;
		size_t nr = t->nr_pids ? t->nr_pids : t->nr_tids;

		n = (size_t)snprintf(w, len, "%s ", t->nr_pids ? "pid" : "tid");
		for (size_t i = 0; i < nr && n < len; i++)
			n += (size_t)snprintf(w + n, len - n, "%s%d", i ? "," : "", (int)ids[i]);
	}
}

void cli_target_free(struct cli_target *t)
{
	free(t->pids);
	free(t->tids);
}

/* ------------------------------------------------------------------ outputs */

static void out_failed(struct cli_out *o, int err)
{
	if (o->err)
		return;
	o->err = err;
	cli_err("cannot write %s to %s: %s", o->what, o->name, strerror(err));
}

/* All of @size, or nothing more once a write failed: the output ends at its first error. */
static ssize_t out_write(void *cookie, const char *buf, size_t size)
{
	struct cli_out *o = cookie;
	size_t done = 0;

	if (o->err)
		return 0;
	while (done < size) {
		ssize_t n = write(o->fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			out_failed(o, n < 0 ? errno : EIO);
			return 0;	/* fopencookie(3): 0 is the error */
		}
		done += (size_t)n;
	}
	return (ssize_t)size;
}

static int out_close(void *cookie)
{
	struct cli_out *o = cookie;

	/* close(2) is where some file systems (NFS) report a write that failed. */
	if (o->own_fd && close(o->fd) < 0 && errno != EINTR)
		out_failed(o, errno);
	o->fd = -1;
	return o->err ? EOF : 0;
}

/* "/dev/fd/N": N, or -1 for any other path. */
static int dev_fd_number(const char *path)
{
	char *end;
	long n;

	if (strncmp(path, "/dev/fd/", 8) || !isdigit((unsigned char)path[8]))
		return -1;
	errno = 0;
	n = strtol(path + 8, &end, 10);
	return errno || *end || n > INT_MAX ? -1 : (int)n;
}

int cli_out_open(struct cli_out *o, const char *path, const char *what)
{
	static const cookie_io_functions_t io = { .write = out_write, .close = out_close };
	struct stat st;
	int fd;

	*o = (struct cli_out){ .what = what, .name = path, .fd = -1 };
	if (!path || !strcmp(path, "-") || !strcmp(path, "/dev/stdout")) {
		o->name = "standard output";
		o->fd = STDOUT_FILENO;
	} else if (!strcmp(path, "/dev/stderr")) {
		o->name = "standard error";
		o->fd = STDERR_FILENO;
	} else if ((fd = dev_fd_number(path)) >= 0) {
		o->fd = fd;
	}
	if (o->fd >= 0) {
		/* A descriptor we were given: it must be open for writing. */
		int fl = fcntl(o->fd, F_GETFL);

		if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
			cli_err("cannot write %s to %s: %s", what, o->name,
				strerror(fl < 0 ? errno : EBADF));
			return -1;
		}
	} else {
		/* Not inherited by a traced command; never through a link (see cli.h). */
		o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
		if (o->fd < 0) {
			int err = errno;

			if (err == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
				cli_err("refusing to write %s to %s: it is a symbolic link, which "
					"is never followed; remove it, or give the path of the file "
					"it points to", what, path);
			else
				cli_err("cannot write %s to %s: %s", what, path, strerror(err));
			return -1;
		}
		o->own_fd = true;
		if (fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode)) {
			o->regular = true;
			o->dev = st.st_dev;
			o->ino = st.st_ino;
		}
	}
	o->f = fopencookie(o, "w", io);
	if (!o->f) {
		cli_err("cannot write %s to %s: %s", what, o->name, strerror(errno));
		if (o->own_fd)
			close(o->fd);
		o->fd = -1;
		return -1;
	}
	/* A stream of our own knows no terminal: lines as they come, as stdout does there. */
	if (isatty(o->fd))
		setvbuf(o->f, NULL, _IOLBF, 0);
	return 0;
}

int cli_out_close(struct cli_out *o)
{
	int ret;

	if (!o->f)
		return 0;
	ret = fclose(o->f);
	o->f = NULL;
	if (ret && !o->err)
		out_failed(o, EIO);	/* not from our write or close: nothing better to say */
	return o->err ? -1 : 0;
}

void cli_out_discard(struct cli_out *o)
{
	struct stat st;
	bool regular = o->f && o->regular;

	cli_out_close(o);
	/* The file we made, not whatever has taken its name since. */
	if (regular && lstat(o->name, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == o->dev &&
	    st.st_ino == o->ino)
		unlink(o->name);
}

void cli_lost_hint(char *buf, size_t len, const struct cli_target *t,
		   const struct ipcperf_session_stats *st)
{
	unsigned int pages = st->ring_pages;

	if (!t->input)
		snprintf(buf, len, "raise the ring size with -m (now %u page%s per CPU)", pages,
			 pages == 1 ? "" : "s");
	else if (pages)
		snprintf(buf, len, "record with a larger -m (this capture: %u page%s per CPU)", pages,
			 pages == 1 ? "" : "s");
	else
		snprintf(buf, len, "record with a larger -m");
}
