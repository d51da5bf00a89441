/* Printing the return value of a call, as strace -yy prints it after " = " (traceargs.h). */
#include "config.h"
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include "traceargs.h"
#include "traceflags.h"

/* The largest errno a call returns as -errno (the kernel's MAX_ERRNO). */
#define MAX_ERRNO 4095

/*
 * Print the kernel's restart codes, which a traced call may end with, as
 * strace's "= ? ERESTARTSYS (...)".
 */
static bool put_restart(FILE *f, int64_t ret)
{
	static const struct tf_name r[] = {
		{ 512, "ERESTARTSYS (To be restarted if SA_RESTART is set)" },
		{ 513, "ERESTARTNOINTR (To be restarted)" },
		{ 514, "ERESTARTNOHAND (To be restarted if no handler)" },
		{ 516, "ERESTART_RESTARTBLOCK (Interrupted by signal)" },
	};

	for (size_t i = 0; i < TF_N(r); i++)
		if ((uint64_t)-ret == r[i].v) {
			fprintf(f, "? %s", r[i].name);
			return true;
		}
	return false;
}

static void put_error(FILE *f, int64_t ret)
{
	const char *name = strerrorname_np((int)-ret);

	if (put_restart(f, ret))
		return;
	/* Print the name, then what it means, as strace does. */
	if (name)
		fprintf(f, "-1 %s (%s)", name, strerror((int)-ret));
	else
		fprintf(f, "-1 E%d (%s)", (int)-ret, strerror((int)-ret));
}

/* For fcntl's F_GETFD and F_GETFL, print the flags as strace adds them. */
static bool put_fcntl_ret(const struct traceargs *a)
{
	int64_t r = a->ev->ret;

	if (strcmp(a->ev->name, "fcntl") || r < 0)
		return false;
	if (a->ev->args[1] == F_GETFD) {
		fprintf(a->f, r ? "%#" PRIx64 " (flags FD_CLOEXEC)" : "0", (uint64_t)r);
		return true;
	}
	if (a->ev->args[1] == F_GETFL) {
		char buf[512];

		fprintf(a->f, "%#" PRIx64 " (flags %s)", (uint64_t)r,
			traceout_open_flags(buf, sizeof(buf), (uint64_t)r));
		return true;
	}
	return false;
}

/* Print what poll returned: " (Timeout)", or the fds with events, " ([{fd=3, revents=POLLIN}])". */
static void put_poll_ret(const struct traceargs *a)
{
	const struct ipcperf_call_mem *m = traceargs_mem(a->ev, 0, IPCPERF_MEM_OUT);
	bool any = false;

	if (!a->ev->ret) {
		fputs(" (Timeout)", a->f);
		return;
	}
	if (!m)
		return;
	fputs(" ([", a->f);
	for (unsigned int i = 0; i + 8 <= m->len && i / 8 < a->ev->args[1]; i += 8) {
		int fd;
		int16_t rev;

		memcpy(&fd, m->data + i, sizeof(fd));
		memcpy(&rev, m->data + i + 6, sizeof(rev));
		if (!rev)
			continue;
		fprintf(a->f, "%s{fd=%d, revents=", any ? ", " : "", fd);
		tf_names(a->f, TF_POLL_EVENTS, (uint16_t)rev);
		fputc('}', a->f);
		any = true;
	}
	fputs("])", a->f);
}

static bool ret_is_address(const char *name)
{
	return !strcmp(name, "mmap") || !strcmp(name, "brk") || !strcmp(name, "mremap") ||
	       !strcmp(name, "shmat");
}

void traceargs_ret(const struct traceargs *a)
{
	const struct ipcperf_syscall *ev = a->ev;

	if (ev->never_returns)
		fputc('?', a->f);
	else if (ev->ret < 0 && ev->ret >= -MAX_ERRNO)
		put_error(a->f, ev->ret);
	else if (ev->cls == IPCPERF_SC_FD_NEW || ev->cls == IPCPERF_SC_FD_DUP2)
		traceargs_fd(a->f, (int)ev->ret, traceargs_made(a->fds, (int)ev->ret));
	else if (ret_is_address(ev->name))
		fprintf(a->f, "%#" PRIx64, (uint64_t)ev->ret);
	else if (!put_fcntl_ret(a))
		fprintf(a->f, "%" PRId64, ev->ret);
	if (!strcmp(ev->name, "poll") && ev->ret >= 0)
		put_poll_ret(a);
	/* The fds received (SCM_RIGHTS). */
	if (ev->cls == IPCPERF_SC_READ && a->fds && a->fds->nr_new) {
		fputs(" (SCM_RIGHTS [", a->f);
		for (unsigned int i = 0; i < a->fds->nr_new; i++) {
			if (i)
				fputs(", ", a->f);
			traceargs_fd(a->f, a->fds->new_fds[i], &a->fds->new_objects[i]);
		}
		fputs("])", a->f);
	}
}
