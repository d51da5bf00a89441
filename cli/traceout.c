/* The lines of ipcperf trace (traceout.h). */
#include "config.h"
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/socket.h>
#include "traceout.h"

/* The largest errno a call returns as -errno (the kernel's MAX_ERRNO). */
#define MAX_ERRNO 4095

/* The kernel's O_ values (x86 and most others; glibc hides some, O_LARGEFILE is 0 in it). */
#define K_O_LARGEFILE 0100000u
#define K_O_SYNC_ONLY 04000000u	/* __O_SYNC: O_SYNC is it with O_DSYNC */
#define K_O_TMPFILE_ONLY 020000000u

struct flag_name {
	uint64_t bit;
	const char *name;
};

static const struct flag_name open_flags[] = {
	{ O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" }, { O_NOCTTY, "O_NOCTTY" },
	{ O_TRUNC, "O_TRUNC" }, { O_APPEND, "O_APPEND" }, { O_NONBLOCK, "O_NONBLOCK" },
	{ O_DSYNC, "O_DSYNC" }, { 040000, "O_DIRECT" }, { K_O_LARGEFILE, "O_LARGEFILE" },
	{ O_DIRECTORY, "O_DIRECTORY" }, { O_NOFOLLOW, "O_NOFOLLOW" }, { 01000000, "O_NOATIME" },
	{ O_CLOEXEC, "O_CLOEXEC" }, { K_O_SYNC_ONLY, "O_SYNC" }, { 010000000, "O_PATH" },
	{ K_O_TMPFILE_ONLY, "O_TMPFILE" },
};

/* Append "|NAME" for each bit of @flags named in @tab, then what is left in hex. */
static void put_bits(char *buf, size_t len, size_t *at, uint64_t flags,
		     const struct flag_name *tab, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!(flags & tab[i].bit))
			continue;
		if (*at < len)
			*at += (size_t)snprintf(buf + *at, len - *at, "%s%s", *at ? "|" : "",
						tab[i].name);
		flags &= ~tab[i].bit;
	}
	if (flags && *at < len)
		*at += (size_t)snprintf(buf + *at, len - *at, "%s%#" PRIx64, *at ? "|" : "", flags);
}

const char *traceout_open_flags(char *buf, size_t len, uint64_t flags)
{
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
	size_t at;

	/* O_SYNC carries O_DSYNC: named once, as O_SYNC. */
	if ((flags & (K_O_SYNC_ONLY | O_DSYNC)) == (K_O_SYNC_ONLY | O_DSYNC))
		flags &= ~(uint64_t)O_DSYNC;
	/* O_TMPFILE carries O_DIRECTORY. */
	if (flags & K_O_TMPFILE_ONLY)
		flags &= ~(uint64_t)O_DIRECTORY;
	at = (size_t)snprintf(buf, len, "%s", acc[flags & O_ACCMODE]);
	put_bits(buf, len, &at, flags & ~(uint64_t)O_ACCMODE, open_flags,
		 sizeof(open_flags) / sizeof(open_flags[0]));
	return buf;
}

static const char *domain_name(uint64_t d)
{
	switch (d) {
	case AF_UNIX: return "AF_UNIX";
	case AF_INET: return "AF_INET";
	case AF_INET6: return "AF_INET6";
	case AF_NETLINK: return "AF_NETLINK";
	case AF_PACKET: return "AF_PACKET";
	default: return NULL;
	}
}

static void put_domain(FILE *f, uint64_t d)
{
	const char *n = domain_name(d);

	if (n)
		fputs(n, f);
	else
		fprintf(f, "%" PRIu64, d);
}

static void put_sock_type(FILE *f, uint64_t t)
{
	static const char *const types[] = { NULL, "SOCK_STREAM", "SOCK_DGRAM", "SOCK_RAW",
					     "SOCK_RDM", "SOCK_SEQPACKET" };
	static const struct flag_name fl[] = { { SOCK_NONBLOCK, "SOCK_NONBLOCK" },
					       { SOCK_CLOEXEC, "SOCK_CLOEXEC" } };
	uint64_t base = t & 0xf;
	char buf[64];
	size_t at;

	if (base < sizeof(types) / sizeof(types[0]) && types[base])
		at = (size_t)snprintf(buf, sizeof(buf), "%s", types[base]);
	else
		at = (size_t)snprintf(buf, sizeof(buf), "%" PRIu64, base);
	put_bits(buf, sizeof(buf), &at, t & ~(uint64_t)0xf, fl, 2);
	fputs(buf, f);
}

static void put_fcntl_cmd(FILE *f, uint64_t cmd)
{
	static const char *const cmds[] = { "F_DUPFD", "F_GETFD", "F_SETFD", "F_GETFL",
					    "F_SETFL", "F_GETLK", "F_SETLK", "F_SETLKW" };

	if (cmd < sizeof(cmds) / sizeof(cmds[0]))
		fputs(cmds[cmd], f);
	else if (cmd == F_DUPFD_CLOEXEC)
		fputs("F_DUPFD_CLOEXEC", f);
	else
		fprintf(f, "%" PRIu64, cmd);
}

/* An fd and, when known, what it is: 3</etc/hosts>, as strace -y. */
static void put_fd(FILE *f, int fd, const struct ipcperf_fd_object *o)
{
	fprintf(f, "%d", fd);
	if (o && o->kind != IPCPERF_FD_UNKNOWN && o->object && strcmp(o->object, "unknown"))
		fprintf(f, "<%s>", o->object);
}

/* The object of new fd @fd, if @fds has it. */
static const struct ipcperf_fd_object *made(const struct ipcperf_call_fds *fds, int fd)
{
	for (unsigned int i = 0; fds && i < fds->nr_new; i++)
		if (fds->new_fds[i] == fd)
			return &fds->new_objects[i];
	return NULL;
}

/* The arguments of a call that makes fds in user memory: [3<pipe:[1]>, 4<pipe:[1]>]. */
static void put_pair(FILE *f, const struct ipcperf_syscall *ev, const struct ipcperf_call_fds *fds,
		     uint64_t ptr)
{
	if (ev->ret < 0 || !fds || fds->nr_new < 2) {
		fprintf(f, "%#" PRIx64, ptr);	/* where the fds went: the kernel did not say */
		return;
	}
	fputc('[', f);
	put_fd(f, fds->new_fds[0], &fds->new_objects[0]);
	fputs(", ", f);
	put_fd(f, fds->new_fds[1], &fds->new_objects[1]);
	fputc(']', f);
}

static const struct ipcperf_fd_object *arg_obj(const struct ipcperf_call_fds *fds)
{
	return fds ? fds->fd : NULL;
}

static void put_dirfd(FILE *f, int64_t dirfd)
{
	if ((int)dirfd == AT_FDCWD)
		fputs("AT_FDCWD", f);
	else
		fprintf(f, "%d", (int)dirfd);
}

/* open, openat: the path is in user memory (its address here); the new fd says what it is. */
static void put_open_args(FILE *f, const struct ipcperf_syscall *ev)
{
	bool at = !strcmp(ev->name, "openat");
	unsigned int fl = at ? 2 : 1;
	char buf[256];

	if (at)
		put_dirfd(f, (int64_t)ev->args[0]);
	fprintf(f, "%s%#" PRIx64 ", %s", at ? ", " : "", ev->args[fl - 1],
		traceout_open_flags(buf, sizeof(buf), ev->args[fl]));
	if (ev->args[fl] & (O_CREAT | K_O_TMPFILE_ONLY))
		fprintf(f, ", %#" PRIo64, ev->args[fl + 1]);
}

/* The arguments of an fd call (ev->cls is one of IPCPERF_SC_FD_*). */
static void put_fd_call_args(FILE *f, const struct ipcperf_syscall *ev,
			     const struct ipcperf_call_fds *fds)
{
	const char *n = ev->name;
	char buf[256];

	if (!strcmp(n, "open") || !strcmp(n, "openat")) {
		put_open_args(f, ev);
	} else if (!strcmp(n, "socket")) {
		put_domain(f, ev->args[0]);
		fputs(", ", f);
		put_sock_type(f, ev->args[1]);
		fprintf(f, ", %" PRIu64, ev->args[2]);
	} else if (!strcmp(n, "socketpair")) {
		put_domain(f, ev->args[0]);
		fputs(", ", f);
		put_sock_type(f, ev->args[1]);
		fprintf(f, ", %" PRIu64 ", ", ev->args[2]);
		put_pair(f, ev, fds, ev->args[3]);
	} else if (!strcmp(n, "pipe2") || !strcmp(n, "pipe")) {
		put_pair(f, ev, fds, ev->args[0]);
		if (!strcmp(n, "pipe2")) {	/* pipe has no flags */
			size_t at = 0;

			buf[0] = '\0';
			put_bits(buf, sizeof(buf), &at, ev->args[1], open_flags,
				 sizeof(open_flags) / sizeof(open_flags[0]));
			fprintf(f, ", %s", at ? buf : "0");
		}
	} else if (ev->fd >= 0) {
		put_fd(f, ev->fd, arg_obj(fds));
		if (ev->cls == IPCPERF_SC_FD_DUP2)
			fprintf(f, ", %d", (int)ev->args[1]);
		if (!strcmp(n, "dup3"))
			fprintf(f, ", %s", ev->args[2] == O_CLOEXEC ? "O_CLOEXEC" : "0");
		if (!strcmp(n, "fcntl")) {
			fputs(", ", f);
			put_fcntl_cmd(f, ev->args[1]);
			if (ev->args[1] != F_GETFD && ev->args[1] != F_GETFL)
				fprintf(f, ", %" PRIu64, ev->args[2]);
		}
	}
}

/*
 * A zero-copy move's arguments, as strace prints them: both fds with what
 * they are, offsets and the iovec as addresses (NULL), the rest as numbers.
 */
static void put_move_args(FILE *f, const struct ipcperf_syscall *ev,
			  const struct ipcperf_call_fds *fds)
{
	static const struct {
		const char *name;
		unsigned int nargs, in, out, ptrs;	/* ptrs: a bit per pointer argument */
	} mv[] = {
		{ "sendfile", 4, 1, 0, 1u << 2 },
		{ "splice", 6, 0, 2, 1u << 1 | 1u << 3 },
		{ "tee", 4, 0, 1, 0 },
		{ "copy_file_range", 6, 0, 2, 1u << 1 | 1u << 3 },
		{ "vmsplice", 4, 0, 9, 1u << 1 },
	};
	size_t k = 0;

	while (k < sizeof(mv) / sizeof(mv[0]) - 1 && strcmp(mv[k].name, ev->name))
		k++;
	for (unsigned int i = 0; i < mv[k].nargs && i < ev->nr_args; i++) {
		if (i)
			fputs(", ", f);
		if (i == mv[k].in)
			put_fd(f, ev->fd, arg_obj(fds));
		else if (i == mv[k].out)
			put_fd(f, ev->out_fd, fds ? fds->out_fd : NULL);
		else if ((mv[k].ptrs >> i & 1) && !ev->args[i])
			fputs("NULL", f);
		else if (mv[k].ptrs >> i & 1)
			fprintf(f, "%#" PRIx64, ev->args[i]);
		else
			fprintf(f, "%" PRIu64, ev->args[i]);
	}
}

static void put_ret(FILE *f, const struct ipcperf_syscall *ev, const struct ipcperf_call_fds *fds)
{
	if (ev->ret < 0 && ev->ret >= -MAX_ERRNO) {
		const char *name = strerrorname_np((int)-ev->ret);

		/* as strace: the name, then what it means */
		if (name)
			fprintf(f, ") = -1 %s (%s)", name, strerror((int)-ev->ret));
		else
			fprintf(f, ") = -1 E%d (%s)", (int)-ev->ret, strerror((int)-ev->ret));
		return;
	}
	fputs(") = ", f);
	if (ev->cls == IPCPERF_SC_FD_NEW || ev->cls == IPCPERF_SC_FD_DUP2)
		put_fd(f, (int)ev->ret, made(fds, (int)ev->ret));
	else
		fprintf(f, "%" PRId64, ev->ret);
	/* fds received (SCM_RIGHTS) */
	if (ev->cls == IPCPERF_SC_READ && fds && fds->nr_new) {
		fputs(" (SCM_RIGHTS [", f);
		for (unsigned int i = 0; i < fds->nr_new; i++) {
			if (i)
				fputs(", ", f);
			put_fd(f, fds->new_fds[i], &fds->new_objects[i]);
		}
		fputs("])", f);
	}
}

void traceout_call(FILE *f, const struct ipcperf_syscall *ev, const struct ipcperf_call_fds *fds)
{
	uint64_t ns = ev->end_ns - ev->start_ns;

	fprintf(f, "%d/%d %s(", (int)ev->pid, (int)ev->tid, ev->name);
	if (!ev->name[0] || ev->cls == IPCPERF_SC_OTHER || ev->cls == IPCPERF_SC_WAIT) {
		/* A call we know nothing of: its raw arguments. */
		for (unsigned int i = 0; i < ev->nr_args && i < 3; i++)
			fprintf(f, "%s0x%" PRIx64, i ? ", " : "", ev->args[i]);
		if (ev->nr_args > 3)
			fputs(", ...", f);
	} else if (ev->cls == IPCPERF_SC_READ || ev->cls == IPCPERF_SC_WRITE) {
		put_fd(f, ev->fd, arg_obj(fds));
		if (ev->nr_args > 2)
			fprintf(f, ", %" PRIu64, ev->count);
	} else if (ev->cls == IPCPERF_SC_MOVE) {
		put_move_args(f, ev, fds);
	} else {
		put_fd_call_args(f, ev, fds);
	}
	put_ret(f, ev, fds);
	if (ev->started_before_capture)
		fputs(" <entered before the capture>\n", f);	/* its duration is unknown */
	else
		fprintf(f, " <%" PRIu64 ".%06" PRIu64 ">\n", ns / 1000000000, ns / 1000 % 1000000);
}
