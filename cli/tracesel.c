/* -e trace=SET of ipcperf trace: syscall names and classes (tracesel.h). */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ipcperf/ipcperf.h>
#include "cli.h"
#include "tracesel.h"

/*
 * The classes, by the names of their calls. A name this architecture does
 * not have (an older or a 32-bit-only call) is skipped.
 */
static const char *const class_file[] = {
	"open", "openat", "openat2", "creat", "access", "faccessat", "faccessat2", "stat",
	"lstat", "newfstatat", "statx", "statfs", "truncate", "chdir", "chroot", "mkdir",
	"mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "link",
	"linkat", "symlink", "symlinkat", "readlink", "readlinkat", "chmod", "fchmodat",
	"fchmodat2", "chown", "lchown", "fchownat", "utime", "utimes", "futimesat", "utimensat",
	"mknod", "mknodat", "execve", "execveat", "getxattr", "lgetxattr", "setxattr",
	"lsetxattr", "listxattr", "llistxattr", "removexattr", "lremovexattr", "mount",
	"umount2", "swapon", "swapoff", "acct", "pivot_root", "quotactl", "name_to_handle_at",
	"fanotify_mark", "inotify_add_watch", "uselib", NULL,
};
static const char *const class_desc[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2",
	"pwritev2", "close", "close_range", "dup", "dup2", "dup3", "fcntl", "ioctl", "lseek",
	"fstat", "fstatfs", "fsync", "fdatasync", "ftruncate", "fchmod", "fchown", "fchdir",
	"flock", "getdents", "getdents64", "sendfile", "splice", "tee", "vmsplice",
	"copy_file_range", "fadvise64", "fallocate", "sync_file_range", "syncfs", "readahead",
	"select", "pselect6", "poll", "ppoll", "epoll_create", "epoll_create1", "epoll_ctl",
	"epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2", "signalfd",
	"signalfd4", "timerfd_create", "timerfd_settime", "timerfd_gettime", "inotify_init",
	"inotify_init1", "memfd_create", "pidfd_open", "pidfd_getfd", "pipe", "pipe2",
	"openat", "openat2", "open", "creat", "mmap", "fgetxattr", "fsetxattr", "flistxattr",
	"fremovexattr", "io_uring_setup", "io_uring_enter", "io_uring_register", NULL,
};
static const char *const class_network[] = {
	"socket", "socketpair", "bind", "listen", "accept", "accept4", "connect", "getsockname",
	"getpeername", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg",
	"shutdown", "setsockopt", "getsockopt", NULL,
};
static const char *const class_process[] = {
	"fork", "vfork", "clone", "clone3", "execve", "execveat", "exit", "exit_group", "wait4",
	"waitid", "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
	"pidfd_send_signal", "pidfd_open", "unshare", "setns", NULL,
};
static const char *const class_memory[] = {
	"brk", "mmap", "munmap", "mremap", "mprotect", "pkey_mprotect", "madvise",
	"process_madvise", "mlock", "mlock2", "munlock", "mlockall", "munlockall", "mincore",
	"msync", "remap_file_pages", "mbind", "set_mempolicy", "get_mempolicy", "migrate_pages",
	"move_pages", "shmat", "shmdt", NULL,
};
static const char *const class_signal[] = {
	"rt_sigaction", "rt_sigprocmask", "rt_sigpending", "rt_sigtimedwait", "rt_sigsuspend",
	"rt_sigreturn", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sigaltstack", "pause", "kill",
	"tkill", "tgkill", "signalfd", "signalfd4", "pidfd_send_signal", NULL,
};
static const char *const class_ipc[] = {
	"msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop", "semctl",
	"shmget", "shmat", "shmdt", "shmctl", "mq_open", "mq_unlink", "mq_timedsend",
	"mq_timedreceive", "mq_notify", "mq_getsetattr", NULL,
};

static const struct {
	const char *name;
	const char *const *calls;
} classes[] = {
	{ "%file", class_file }, { "%desc", class_desc }, { "%network", class_network },
	{ "%net", class_network }, { "%process", class_process }, { "%memory", class_memory },
	{ "%signal", class_signal }, { "%ipc", class_ipc },
};

static void set_bit(struct tracesel *s, int nr)
{
	s->bits[nr / 64] |= 1ull << (nr % 64);
}

/* Syscall @name's number here, or -1. */
static int nr_of(const char *name)
{
	for (int nr = 0; nr < TRACESEL_MAX; nr++) {
		const char *n = ipcperf_syscall_name(nr);

		if (n && !strcmp(n, name))
			return nr;
	}
	return -1;
}

static int add_class(struct tracesel *s, const char *item)
{
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		if (strcmp(classes[i].name, item))
			continue;
		for (const char *const *c = classes[i].calls; *c; c++) {
			int nr = nr_of(*c);

			if (nr >= 0)
				set_bit(s, nr);
		}
		return 0;
	}
	cli_err("-e trace=: unknown class '%s'; the classes are %%file, %%desc, %%network "
		"(%%net), %%process, %%memory, %%signal and %%ipc", item);
	return -1;
}

static int add_item(struct tracesel *s, const char *item)
{
	int nr;

	if (!*item) {
		cli_err("-e trace=: an empty item; give names or classes separated by commas, "
			"e.g. -e trace=openat,%%network");
		return -1;
	}
	if (item[0] == '%')
		return add_class(s, item);
	nr = nr_of(item);
	if (nr < 0) {
		cli_err("-e trace=: no syscall '%s' on this machine (ipcperf list "
			"'syscalls:sys_enter_*' gives the names)", item);
		return -1;
	}
	set_bit(s, nr);
	return 0;
}

static int parse_one(struct tracesel *s, const char *expr)
{
	bool negate;
	char *copy, *item;
	int err = 0;

	if (!strncmp(expr, "trace=", 6))
		expr += 6;
	else if (strchr(expr, '=')) {
		cli_err("-e %s: only trace=SET is known here (strace's other -e kinds are not)",
			expr);
		return -1;
	}
	negate = expr[0] == '!';
	expr += negate;
	copy = strdup(expr);
	if (!copy) {
		cli_err("out of memory");
		return -1;
	}
	memset(s, 0, sizeof(*s));
	s->on = true;
	/* strtok_r() would pass over empty items: an empty set or ",," must be refused */
	item = copy;
	for (char *end; !err; item = end + 1) {
		end = strchr(item, ',');
		if (end)
			*end = '\0';
		err = add_item(s, item);
		if (!end)
			break;
	}
	free(copy);
	if (negate)
		for (size_t i = 0; i < TRACESEL_MAX / 64; i++)
			s->bits[i] = ~s->bits[i];
	return err ? -1 : 0;
}

int tracesel_parse(struct tracesel *s, const char *expr)
{
	struct tracesel one;

	if (parse_one(&one, expr) < 0)
		return -1;
	for (size_t i = 0; i < TRACESEL_MAX / 64; i++)
		s->bits[i] = (s->on ? s->bits[i] : 0) | one.bits[i];
	s->on = true;
	return 0;
}

bool tracesel_has(const struct tracesel *s, int nr)
{
	if (!s->on)
		return true;
	if (nr < 0 || nr >= TRACESEL_MAX)
		return false;
	return s->bits[nr / 64] >> (nr % 64) & 1;
}
