/* Shared layer of the CLI: target options, outputs (messages: message.c). */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "output.h"
#include "util.h"

int cli_check_format(bool json, const char *sep)
{
	if (json && sep) {
		cli_err("give either --json or -x, not both");
		return -1;
	}
	return 0;
}

int cli_target_finish(struct cli_target *t, int argc, char **argv, int first)
{
	int kinds;

	if (first < argc)
		t->argv = argv + first;
	/* -p/-t with -- CMD: a server traced from now, its client from its exec */
	kinds = (t->pids.n || t->tids.n || t->argv) + t->system_wide;
	if (kinds == 0) {
		cli_err("no target: give -p PID, -t TID, -a, or -- CMD [ARGS]");
		return -1;
	}
	if (kinds > 1) {
		cli_err("-a traces every process: give it without -p/-t or -- CMD");
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

	char e[CLI_ESC_LEN(256)];

	/* what the headers say: the command line and the capture's path shown, not obeyed */
	if (t->input) {
		snprintf(w, len, "capture %s", cli_esc(e, sizeof(e), t->input));
		return;
	}
	if (t->system_wide) {
		snprintf(w, len, "whole system");
		return;
	}
	if (t->argv) {
		n = (size_t)snprintf(w, len, "command '");
		for (char **a = t->argv; *a && n < len; a++)
			n += (size_t)snprintf(w + n, len - n, "%s%s", a == t->argv ? "" : " ",
					      cli_esc(e, sizeof(e), *a));
		if (n < len)
			n += (size_t)snprintf(w + n, len - n, "'");
		if ((!t->pids.n && !t->tids.n) || n >= len)
			return;
		n += (size_t)snprintf(w + n, len - n, " and ");
	}
	if (n < len) {
		const struct cli_ids *ids = t->pids.n ? &t->pids : &t->tids;

		n += (size_t)snprintf(w + n, len - n, "%s ", t->pids.n ? "pid" : "tid");
		for (size_t i = 0; i < ids->n && n < len; i++)
			n += (size_t)snprintf(w + n, len - n, "%s%d", i ? "," : "", (int)ids->v[i]);
	}
}

/* ------------------------------------------------------------------ outputs */

static void out_failed(struct cli_out *o, int err)
{
	if (o->err)
		return;
	o->err = err;
	/* EPIPE: the reader went away (head -1), which SIGPIPE ends us for: nothing to say. */
	if (err != EPIPE)
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
		o->fd = cli_user_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
				      0666);
		if (o->fd < 0) {
			cli_user_open_failed(what, path, errno, false);
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
	cli_set_term_fd(o->fd);
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

int cli_out_close_all(struct cli_out *o, ...)
{
	va_list ap;
	int ret = 0;

	va_start(ap, o);
	for (; o; o = va_arg(ap, struct cli_out *))
		if (cli_out_close(o) < 0)
			ret = -1;
	va_end(ap);
	return ret;
}

void cli_out_discard(struct cli_out *o)
{
	struct cli_user_rights r;
	struct stat st;
	bool regular = o->f && o->regular;

	cli_out_close(o);
	/* The file we made, not whatever has taken its name since; as the user made it. */
	if (regular && cli_user_rights_enter(&r) == 0) {
		if (lstat(o->name, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == o->dev &&
		    st.st_ino == o->ino)
			unlink(o->name);
		cli_user_rights_leave(&r);
	}
}

void cli_warn_lost(const struct cli_target *t, const struct ipcperf_session_stats *st,
		   const char *what)
{
	unsigned int pages = st->ring_pages;
	char hint[CLI_HINT_LEN];

	if (!st->lost)
		return;
	if (!t->input)
		snprintf(hint, sizeof(hint), "raise the ring size with -m (now %u page%s per CPU)",
			 pages, pages == 1 ? "" : "s");
	else if (pages)
		snprintf(hint, sizeof(hint), "record with a larger -m (this capture: %u page%s per CPU)",
			 pages, pages == 1 ? "" : "s");
	else
		snprintf(hint, sizeof(hint), "record with a larger -m");
	cli_err("warning: %" PRIu64 " events lost: %s; %s", st->lost, what, hint);
}
