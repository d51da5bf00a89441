/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file ipcperf.h
 * @brief libipcperf: watch processes' syscalls, scheduling and IPC from the kernel side.
 *
 * A session opens `syscalls:sys_enter_*`/`sys_exit_*` and `sched:*` tracepoints
 * through perf_event_open (libperf), reads the per-CPU ring buffers, merges
 * them by timestamp, decodes the records (libtraceevent) and hands typed
 * events to handlers the caller registered. The caller owns the loop: it
 * polls ipcperf_session__fd() or calls ipcperf_session__poll().
 *
 * Conventions:
 *  - int functions return >= 0 on success and a negative errno on failure;
 *    constructors return NULL and set errno.
 *  - Options come in structs whose first member is `size_t sz`; declare them
 *    with IPCPERF_OPTS(type, name, ...) so that sz is set. NULL means defaults.
 *  - Data handed to a handler lives only for the duration of the call.
 *  - When a function that takes a handler fails, the handler is never called.
 *  - The library never prints on its own: diagnostics go through the print
 *    function set with ipcperf_set_print() (default: none).
 */
#ifndef IPCPERF_IPCPERF_H
#define IPCPERF_IPCPERF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef IPCPERF_API
#define IPCPERF_API __attribute__((visibility("default")))
#endif

/**
 * Declare an options struct @p NAME of type `struct TYPE` with sz set and the
 * given designated initializers; every other member is zero.
 */
#define IPCPERF_OPTS(TYPE, NAME, ...) \
	struct TYPE NAME = { .sz = sizeof(struct TYPE), __VA_ARGS__ }

/* ------------------------------------------------------------------ */
/* Library-wide                                                        */
/* ------------------------------------------------------------------ */

/** Version of the library as "X.Y.Z"; static storage. */
IPCPERF_API const char *ipcperf_version(void);

enum ipcperf_print_level {
	IPCPERF_WARN,	/**< something was skipped or degraded; the run goes on */
	IPCPERF_INFO,	/**< explanation of an error being returned, or progress */
	IPCPERF_DEBUG,
};

/** Print function: receives a printf-style message ending in a newline. */
typedef int (*ipcperf_print_fn_t)(enum ipcperf_print_level level, const char *fmt, va_list ap);

/**
 * Set the function that receives the library's diagnostics.
 * @return the previous function. NULL silences the library (the default).
 */
IPCPERF_API ipcperf_print_fn_t ipcperf_set_print(ipcperf_print_fn_t fn);

/* ------------------------------------------------------------------ */
/* Events handed to handlers                                           */
/* ------------------------------------------------------------------ */

/** What a traced syscall does to data or to the fd table. */
enum ipcperf_sc_class {
	IPCPERF_SC_OTHER = 0,
	IPCPERF_SC_READ,	/**< moves data out of an fd: read, readv, pread64, preadv, recvfrom, recvmsg, recvmmsg */
	IPCPERF_SC_WRITE,	/**< moves data into an fd: write, writev, pwrite64, pwritev, sendto, sendmsg, sendmmsg */
	IPCPERF_SC_FD_NEW,	/**< returns a new fd: openat, socket, accept, accept4, dup, fcntl(F_DUPFD*) */
	IPCPERF_SC_FD_PAIR,	/**< creates two fds in user memory: pipe2, socketpair */
	IPCPERF_SC_FD_DUP2,	/**< makes args[1] a copy of args[0]: dup2, dup3 */
	IPCPERF_SC_FD_CLOSE,	/**< close; close_range (fd -1: it closes args[0] to args[1]; since 0.2.1) */
	IPCPERF_SC_FD_OTHER,	/**< uses an fd without moving data: connect, fcntl (other commands) */
	/**
	 * Moves data from one fd (ipcperf_syscall.fd) into another (out_fd)
	 * inside the kernel: sendfile, splice, tee, copy_file_range; vmsplice
	 * (out_fd -1) into a pipe or out of one, as the pipe end was opened.
	 * Since 0.2.
	 */
	IPCPERF_SC_MOVE,
	IPCPERF_SC_WAIT,	/**< waits for fds to be ready: epoll_wait, epoll_pwait, epoll_pwait2, poll, ppoll, select, pselect6 (since 0.2) */
};

/** Bytes of a task's name (comm) with its NUL: the kernel's TASK_COMM_LEN. Since 0.2. */
#define IPCPERF_COMM_LEN 16

/**
 * One completed system call: its sys_enter and sys_exit records, paired per
 * thread after all rings were merged by timestamp. It is delivered at its
 * sys_exit: among other events, its place in time order is end_ns.
 */
struct ipcperf_syscall {
	uint64_t start_ns;	/**< CLOCK_MONOTONIC time of sys_enter */
	uint64_t end_ns;	/**< CLOCK_MONOTONIC time of sys_exit */
	pid_t pid;		/**< process (tgid) */
	pid_t tid;		/**< thread */
	int cpu;		/**< CPU of sys_exit */
	int nr;			/**< syscall number of this architecture */
	const char *name;	/**< "write", ...; "syscall_N" for a number without a name; static storage */
	enum ipcperf_sc_class cls;
	int fd;			/**< the fd argument, or -1 if the call takes none */
	uint64_t count;		/**< requested bytes (read/write family), iovcnt (v-calls), vlen (mmsg); 0 otherwise */
	int64_t ret;		/**< return value: bytes, new fd, 0, or -errno */
	uint64_t args[6];	/**< raw arguments as recorded at sys_enter */
	unsigned int nr_args;	/**< how many of args[] the tracepoint carries */
	bool ret_is_msgs;	/**< sendmmsg/recvmmsg: ret counts messages, not bytes */
	unsigned int switches;	/**< times the thread was switched out inside the call */
	uint64_t off_cpu_ns;	/**< time switched out inside the call (switch-out to switch-in) */
	uint64_t blocked_ns;	/**< the part of off_cpu_ns where it slept (not preempted) */
	/**
	 * The thread was already inside this call when the capture started (-p):
	 * what it entered with was read from /proc/PID/task/TID/syscall, start_ns
	 * is the start of the capture, and the call is also counted as unpaired.
	 * Its result is real; its duration is not (keep it out of latencies).
	 */
	bool started_before_capture;
	/**
	 * IPCPERF_SC_MOVE: the fd the bytes went into (fd is the one they came
	 * from); -1 for vmsplice and the other classes. Since 0.2.
	 */
	int out_fd;
	/**
	 * The user memory its arguments pointed to, read in the kernel at the
	 * call (ipcperf_session_opts.call_memory): nr_mem pieces, NULL and 0
	 * without. Lives only for the callback it is handed to. Since 0.2.
	 */
	unsigned int nr_mem;
	const struct ipcperf_call_mem *mem;
	/**
	 * exit or exit_group, which never return: handed at their entry
	 * (end_ns = start_ns, ret 0) with call_memory only. Since 0.2.
	 */
	bool never_returns;
};

/** The most bytes of one piece of a call's memory (ipcperf_call_mem.len). */
#define IPCPERF_CALL_MEM_MAX 256

/** What a piece of a call's memory is (ipcperf_call_mem.kind). Since 0.2. */
enum ipcperf_mem_kind {
	IPCPERF_MEM_STRING = 1,	/**< a NUL-terminated string at entry (path, name), without its NUL */
	IPCPERF_MEM_IN = 2,	/**< bytes at entry: what the call was given (a write's buffer, a sockaddr) */
	IPCPERF_MEM_OUT = 3,	/**< bytes at exit, when it succeeded: what it wrote (a read's buffer, a struct stat) */
	IPCPERF_MEM_SOCKADDR = 4, /**< a sockaddr the call wrote (accept, recvfrom; getsockopt's optval), its length the kernel's */
	IPCPERF_MEM_STRV = 5,	/**< an argv at entry: count strings, each NUL-ended, in data */
	IPCPERF_MEM_NPTR = 6,	/**< an envp at entry: count pointers before its NULL; no data */
	IPCPERF_MEM_DIRENTS = 7, /**< getdents64's buffer at exit: count entries; no data */
	/** rt_sigreturn: the signal mask its signal frame restores, 8 bytes (arg 0). Since 0.2. */
	IPCPERF_MEM_SIGMASK = 8,
	/**
	 * An iovec array (writev, readv): its struct iovec entries as the
	 * caller's, the first 16 at most; count: the entries there were. IN
	 * at entry (writev), OUT at exit, whatever the call returned (readv).
	 * Since 0.2.
	 */
	IPCPERF_MEM_IOV_IN = 9,
	IPCPERF_MEM_IOV_OUT = 10,
	/**
	 * The buffer of one entry of such an array (the first three entries
	 * only), count: the entry's index. IN at entry: its iov_len bytes; OUT
	 * at exit, when the call succeeded: what of its return filled this
	 * entry (the entries fill in order). Since 0.2.
	 */
	IPCPERF_MEM_IOVB_IN = 11,
	IPCPERF_MEM_IOVB_OUT = 12,
};

/** One piece of a call's user memory (ipcperf_syscall.mem). Since 0.2. */
struct ipcperf_call_mem {
	unsigned int arg;	/**< the argument (0-5) that pointed to it */
	unsigned int kind;	/**< enum ipcperf_mem_kind */
	unsigned int len;	/**< bytes in data, at most IPCPERF_CALL_MEM_MAX */
	/** STRV, NPTR, DIRENTS, IOV: how many; IOVB: the entry's index; IN, OUT, SOCKADDR: the bytes there were (len or more) */
	uint32_t count;
	bool truncated;		/**< there was more than len (a string: longer than the kernel kept) */
	bool fault;		/**< the memory could not be read (a bad pointer): len is 0 */
	bool more;		/**< STRV, NPTR, DIRENTS: count stopped at the kernel's limit */
	const unsigned char *data;
};

/** The thread @p prev_tid was switched out on @p cpu (sched:sched_switch). */
struct ipcperf_switch {
	uint64_t time_ns;
	pid_t pid;		/**< tgid of the thread switched out */
	pid_t tid;		/**< the thread switched out (prev_pid) */
	int cpu;
	bool preempted;		/**< true: involuntary (still runnable); false: it blocked (voluntary) */
	long prev_state;	/**< raw prev_state */
	pid_t next_tid;		/**< thread switched in */
	char prev_comm[IPCPERF_COMM_LEN];
	char next_comm[IPCPERF_COMM_LEN];
};

/**
 * A thread's scheduling while traced, counted in the kernel
 * (IPCPERF_EV_SCHED_TOTALS): what its sched_switch and sched_wakeup events
 * would have added up to. Since 0.2.
 */
struct ipcperf_sched_totals {
	uint64_t time_ns;	/**< when it was written: the thread's exit, or the stop */
	pid_t pid;		/**< tgid */
	pid_t tid;
	bool exited;		/**< the thread exited (false: alive at the stop) */
	uint64_t voluntary;	/**< switched out blocked (ipcperf_switch.preempted false) */
	uint64_t involuntary;	/**< switched out still runnable (preempted) */
	uint64_t wakeups;	/**< woken (sched_wakeup of this thread) */
	uint64_t migrations;	/**< switched out on another CPU than its switch-out before */
	char comm[IPCPERF_COMM_LEN];
};

/** @p tid was woken (sched:sched_wakeup) by @p waker_tid. */
struct ipcperf_wakeup {
	uint64_t time_ns;
	pid_t waker_pid;	/**< tgid of the thread running when the wakeup happened (may be 0: irq) */
	pid_t waker_tid;
	pid_t tid;		/**< woken thread */
	int target_cpu;
	char comm[IPCPERF_COMM_LEN];		/**< of the woken thread */
};

enum ipcperf_task_kind {
	IPCPERF_TASK_FORK,	/**< child_tid was created by tid (a thread or a process) */
	IPCPERF_TASK_EXEC,	/**< tid executed filename */
	IPCPERF_TASK_EXIT,	/**< tid exited */
};

/** Process lifecycle (sched:sched_process_fork/exec/exit). */
struct ipcperf_task {
	enum ipcperf_task_kind kind;
	uint64_t time_ns;
	pid_t pid;		/**< tgid of the thread the event happened in */
	pid_t tid;
	pid_t child_tid;	/**< FORK only */
	const char *comm;	/**< comm (FORK: of the child) */
	const char *filename;	/**< EXEC only */
	/**
	 * EXIT only: how the thread ended, as wait(2) tells it (WIFEXITED()
	 * and WEXITSTATUS(), or WIFSIGNALED(), WTERMSIG() and WCOREDUMP());
	 * -1 when not known: the sched_process_exit tracepoint does not say
	 * it; where the calls are paired in the kernel
	 * (IPCPERF_SC_RECORDS_KERNEL), its record of the exit does. Since 0.2.
	 */
	int exit_status;
	/**
	 * EXEC only: the program made the process one the caller may not
	 * read (set-user-ID, set-group-ID, file capabilities) while the caller
	 * has not root's rights (its real uid is not 0). The kernel ends its
	 * perf events there, and the session stops tracing it and its new
	 * children: this is its last event. Told where the calls are paired
	 * in the kernel (IPCPERF_SC_RECORDS_KERNEL). Since 0.2.
	 */
	bool left_view;
};

/** Bytes of ipcperf_signal.info: a siginfo_t's on Linux. Since 0.2. */
#define IPCPERF_SIGINFO_SIZE 128

/** What a delivered signal does (ipcperf_signal.action). Since 0.2. */
enum ipcperf_signal_action {
	IPCPERF_SIG_HANDLER = 0,	/**< runs the thread's handler */
	IPCPERF_SIG_DEFAULT = 1,	/**< its default action: stop, terminate, dump core, or nothing */
	IPCPERF_SIG_IGNORED = 2,	/**< ignored (SIG_IGN) */
};

/**
 * A signal delivered to a target thread (ipcperf_session_opts.call_memory):
 * taken off its queue as the thread returns to user space, to run its
 * handler or its default action, at the signal_deliver tracepoint. A
 * signal that kills its process without a handler (SIGTERM, SIGPIPE, ...)
 * is handed once, in the thread it was sent to (a signal sent to the
 * process: its leader), when the kernel still had it queued; SIGKILL is
 * not handed (the thread's exit says it: ipcperf_task.exit_status). A
 * signal the kernel discards when it is sent (ignored, or SIGCHLD and the
 * like with no handler) is never delivered, so never handed. Since 0.2.
 */
struct ipcperf_signal {
	uint64_t time_ns;
	pid_t pid;		/**< process (tgid) */
	pid_t tid;		/**< the thread it was delivered to */
	int signo;
	enum ipcperf_signal_action action;
	/**
	 * What the kernel tells a SA_SIGINFO handler, the bytes of a
	 * siginfo_t (copy them into one): si_signo, si_errno, si_code and the
	 * fields of its kind (si_pid and si_uid of a sender; si_status,
	 * si_utime and si_stime of SIGCHLD; si_addr of a fault; ...).
	 */
	unsigned char info[IPCPERF_SIGINFO_SIZE];
};

/**
 * Records lost: the kernel dropped them because a ring was full
 * (PERF_RECORD_LOST), or (cpu -1) the session dropped them because nobody
 * could say any more whether their task was a target (IPCPERF_SCOPE_CPU,
 * after side-band records were lost and the task exited).
 */
struct ipcperf_lost {
	int cpu;		/**< CPU whose ring overflowed; -1: records of tasks that could not be placed */
	uint64_t lost;		/**< records lost in this report */
	uint64_t total;		/**< records lost so far in the session, all rings */
};

/** What an fd refers to. */
enum ipcperf_fd_kind {
	IPCPERF_FD_UNKNOWN = 0,	/**< could not be resolved in time: never guessed */
	IPCPERF_FD_PIPE,	/**< anonymous pipe or FIFO */
	IPCPERF_FD_UNIX,
	IPCPERF_FD_TCP,
	IPCPERF_FD_UDP,
	IPCPERF_FD_FILE,
	IPCPERF_FD_TTY,
	IPCPERF_FD_OTHER,
};

/**
 * What a new fd refers to, read from the kernel's own structures at the
 * exit of the call that made it (IPCPERF_FDID_BPF: see
 * ipcperf_session_stats.fd_identity). One per new fd (pipe2, socketpair and
 * a recvmsg carrying SCM_RIGHTS make several), delivered next to that
 * call's syscall event: just before or just after it, as the kernel runs
 * the probes of the tracepoints (ipcperf_stats pairs them either way).
 * Since 0.2.
 */
struct ipcperf_fd_open {
	uint64_t time_ns;
	pid_t pid;		/**< process (tgid) */
	pid_t tid;
	int fd;
	int nr;			/**< the call that made it: its syscall number */
	int64_t ret;		/**< and its return value */
	bool update;		/**< not a new fd: what it is connected to now (connect) */
	bool gone;		/**< closed before it could be looked at: what it was is unknown */
	const char *object;	/**< "pipe:[123]", "socket:[456]", "/path", "anon_inode:[eventfd]" */
	enum ipcperf_fd_kind kind;
	const char *detail;	/**< as ipcperf_fd_row.detail */
	uint64_t ino;		/**< inode of pipes and sockets, 0 otherwise */
	uint64_t peer_ino;	/**< unix sockets: the peer's inode, 0 if none or not accepted yet */
	int sock_type;		/**< SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET; 0 otherwise */
	int64_t capacity;	/**< pipes: bytes they hold; sockets: the send buffer; -1 unknown */
	bool cloexec;		/**< the fd closes at exec */
	/** O_RDONLY, O_WRONLY or O_RDWR as the file was opened (a pipe's end); -1 unknown. Since 0.2. */
	int accmode;
};

/**
 * Handlers for decoded events. Any member may be NULL. All events are
 * delivered in timestamp order; ctx is passed back unchanged.
 */
struct ipcperf_handlers {
	size_t sz;
	void *ctx;
	void (*syscall)(void *ctx, const struct ipcperf_syscall *ev);
	void (*sched_switch)(void *ctx, const struct ipcperf_switch *ev);
	void (*wakeup)(void *ctx, const struct ipcperf_wakeup *ev);
	void (*task)(void *ctx, const struct ipcperf_task *ev);
	void (*lost)(void *ctx, const struct ipcperf_lost *ev);
	/** New fds, as the kernel saw them (since 0.2; IPCPERF_FDID_BPF only). */
	void (*fd_open)(void *ctx, const struct ipcperf_fd_open *ev);
	/** A thread's switches and wakeups (since 0.2; IPCPERF_EV_SCHED_TOTALS only). */
	void (*sched_totals)(void *ctx, const struct ipcperf_sched_totals *ev);
	/** A signal delivered to a target thread (since 0.2; ipcperf_session_opts.call_memory only). */
	void (*signal)(void *ctx, const struct ipcperf_signal *ev);
	/**
	 * A call under way: its thread was switched out inside it (it blocks,
	 * or was preempted), the first time in that call. What was known at
	 * its entry: args, and the memory read then (mem); ret 0, end_ns the
	 * switch. The call itself comes to syscall at its exit (unless the
	 * thread dies in it). Since 0.2; ipcperf_session_opts.call_memory only.
	 */
	void (*call_entered)(void *ctx, const struct ipcperf_syscall *ev);
};

/* ------------------------------------------------------------------ */
/* Session                                                             */
/* ------------------------------------------------------------------ */

struct ipcperf_session;

/** Event groups a session opens. */
enum ipcperf_event_set {
	IPCPERF_EV_IO = 1u << 0,	/**< read/write family, socket send/recv, zero-copy moves (IPCPERF_SC_MOVE), io_uring_enter */
	IPCPERF_EV_FDS = 1u << 1,	/**< fd lifecycle: close, dup*, fcntl, pipe2, socketpair, socket, accept*, connect, openat */
	IPCPERF_EV_SCHED = 1u << 2,	/**< sched_switch, sched_wakeup */
	IPCPERF_EV_TASK = 1u << 3,	/**< sched_process_fork/exec/exit */
	/**
	 * Switch-out/in records of the traced threads: they fill the switches,
	 * off_cpu_ns and blocked_ns of syscall events (flows' verdicts need them).
	 * Four more records per blocking round trip: leave out if not needed.
	 */
	IPCPERF_EV_BLOCKED = 1u << 5,
	IPCPERF_EV_DEFAULT = IPCPERF_EV_IO | IPCPERF_EV_FDS | IPCPERF_EV_SCHED | IPCPERF_EV_TASK | IPCPERF_EV_BLOCKED,
	/**
	 * Every system call, through raw_syscalls:sys_enter/sys_exit, instead of
	 * the per-syscall tracepoints of IPCPERF_EV_IO and IPCPERF_EV_FDS (the
	 * calls of those sets are still classified, so fd accounting works).
	 * Where the kernel pairs the calls (IPCPERF_SC_RECORDS_KERNEL), every
	 * call is paired there, and the fd identity comes from the kernel
	 * (IPCPERF_FDID_BPF) as without this flag.
	 * Costs a little on every syscall of the targets, traced or not.
	 */
	IPCPERF_EV_ALL_SYSCALLS = 1u << 4,
	/**
	 * Take the calls of IPCPERF_EV_IO and IPCPERF_EV_FDS from
	 * raw_syscalls:sys_enter/sys_exit with an in-kernel filter on their
	 * numbers, instead of from their own sys_enter_X/sys_exit_X tracepoints:
	 * the same events, for about half the cost on kernels (6.18 here) whose
	 * per-syscall tracepoints are the dearer path.
	 */
	IPCPERF_EV_RAW_FILTER = 1u << 6,
	/**
	 * With IPCPERF_EV_SCHED, where the kernel pairs the syscalls
	 * (IPCPERF_SC_RECORDS_KERNEL): count each target thread's
	 * sched_switch and sched_wakeup in the kernel and deliver one
	 * sched_totals event per thread, at its exit and at the stop for the
	 * threads still alive, in place of their sched_switch and wakeup
	 * events. Elsewhere the events come, as without it:
	 * ipcperf_session_stats.sched_records says which. For totals at the
	 * end of a run (ipcperf_stats__attach() takes either); a switch costs
	 * the traced program a map update instead of a sample. With counters
	 * and process targets, the software counters then come from what the
	 * kernel accounts to each counted thread, not from per-task events
	 * (see libipcperf-session(3)). When the session's only syscall
	 * consumer is an ipcperf_stats attached to it (no other handler with
	 * a syscall callback, no ipcperf_stats__on_call() or
	 * __on_every_call(), no per_thread rows) and the targets are
	 * processes, the kernel also adds the read/write family's calls up
	 * per process, fd and syscall: the same counts and histograms, no
	 * record per call. Since 0.2.
	 */
	IPCPERF_EV_SCHED_TOTALS = 1u << 7,
	/**
	 * The calls of an event loop: epoll_ctl (which fds each epoll fd
	 * watches) and the waits (IPCPERF_SC_WAIT: epoll_wait, epoll_pwait,
	 * epoll_pwait2, poll, ppoll, select, pselect6), for flows to put the
	 * time waited on the fds that became ready. Since 0.2.
	 */
	IPCPERF_EV_WAITS = 1u << 8,
	IPCPERF_EV__ALL = 0x1ff,
};

/**
 * How the tracepoints of pid, tid and command targets are opened
 * (ipcperf_session_opts.scope; a system_wide session is CPU-wide anyway).
 */
enum ipcperf_scope {
	/**
	 * IPCPERF_SCOPE_CPU when the caller may open CPU-wide tracepoints (root,
	 * CAP_PERFMON, CAP_SYS_ADMIN or kernel.perf_event_paranoid -1) and the
	 * session has no recorder and no tap; IPCPERF_SCOPE_TASK otherwise, or
	 * when opening CPU-wide fails for lack of permission.
	 */
	IPCPERF_SCOPE_AUTO = 0,
	/**
	 * Per task, inherited by the targets' children: the kernel records only
	 * the targets, but switches the events in and out at every context
	 * switch of a target, which costs the targets (a blocking ping-pong
	 * pays most).
	 */
	IPCPERF_SCOPE_TASK = 1,
	/**
	 * On every CPU, for every task: the library follows the targets through
	 * fork, exec and exit records and drops the other tasks' records
	 * (ipcperf_session_stats.foreign). Nothing to switch at context
	 * switches, so the targets pay less; the price is a record for each
	 * traced event of every other task, which the kernel filter keeps to
	 * the traced syscalls. Counters stay per task.
	 */
	IPCPERF_SCOPE_CPU = 2,
};

/**
 * The fixed ring size that ring_pages 0 meant up to 0.2 (2 MiB of 4 KiB
 * pages). ring_pages 0 now takes the largest power of two, up to 8192
 * pages per CPU, whose rings this process may lock (perf_event_mlock_kb
 * per online CPU plus RLIMIT_MEMLOCK; no limit with CAP_IPC_LOCK, root's,
 * or perf_event_paranoid -1) within what the per-CPU budget of 64 MiB
 * leaves the rings: no cap on 1 or 2 CPUs (8192 pages), else up to 40 MiB
 * for all CPUs together (2048 pages on 4 CPUs, 128 on 64, 32 on 256);
 * ipcperf_session_stats.ring_pages says what a session took.
 */
#define IPCPERF_DEFAULT_RING_PAGES 512

struct ipcperf_session_opts {
	size_t sz;
	/** Processes to trace: every thread of each, and their future children. */
	const pid_t *pids;
	size_t nr_pids;
	/** Single threads to trace (and their future children). */
	const pid_t *tids;
	size_t nr_tids;
	/** Trace the whole system. Excludes pids/tids/argv. */
	bool system_wide;
	/**
	 * Command to start corked: forked at ipcperf_session__new(), held before
	 * exec until ipcperf_session__start(). NULL-terminated. With pids/tids
	 * (a server and its client): those are traced from the start, the
	 * command from its exec, and the session is done when it exits.
	 */
	char *const *argv;
	/** Pages of each per-CPU ring: a power of two; 0 = sized from the memlock limit (IPCPERF_DEFAULT_RING_PAGES). */
	unsigned int ring_pages;
	/** Which events to open (enum ipcperf_event_set); 0 = IPCPERF_EV_DEFAULT. */
	unsigned int events;
	/**
	 * Trace the library's own process too (only matters with system_wide).
	 * By default the calling process's events are dropped.
	 */
	bool include_self;
	/**
	 * Also count task-clock, page-faults, context-switches, cpu-migrations
	 * (software) and cycles, instructions, cache-references, cache-misses
	 * (hardware) on the same targets; read with ipcperf_session__read_counters().
	 */
	bool counters;
	/** enum ipcperf_scope; 0 = IPCPERF_SCOPE_AUTO. */
	unsigned int scope;
	/**
	 * Which counters to open: IPCPERF_CNT_BIT() of each; 0 = all of them
	 * (when counters is set). Not 0 implies counters. The others read as
	 * IPCPERF_CNT_NOT_REQUESTED. Since 0.2.
	 */
	unsigned int counter_mask;
	/**
	 * Never tell what fds are from the kernel (IPCPERF_FDID_BPF), even where
	 * its BPF program could be loaded: from /proc only, as before 0.2.
	 * Since 0.2.
	 */
	bool no_bpf;
	/**
	 * Take every syscall from its sys_enter and sys_exit tracepoint samples
	 * even where the kernel can pair them (IPCPERF_SC_RECORDS_KERNEL: see
	 * ipcperf_session_stats.syscall_records). The same calls either way;
	 * the samples cost the traced program about twice as much. Captures
	 * always take the samples. Since 0.2.
	 */
	bool syscall_samples;
	/**
	 * Also read the user memory each call's arguments point to, in the
	 * kernel at the call (paths and strings at its entry, the buffers and
	 * structs it wrote at its exit, as ipcperf trace prints them), and hand
	 * it with the call: ipcperf_syscall.mem. Only where the kernel pairs
	 * the calls (IPCPERF_SC_RECORDS_KERNEL); elsewhere nr_mem stays 0.
	 * Costs a record and up to 1 KiB of copies per call that has such
	 * arguments. Also hands exit and exit_group, which never return, as
	 * calls with never_returns set; the signals delivered to the targets
	 * (ipcperf_handlers.signal; a program on the signal_deliver
	 * tracepoint); each thread's exit with its status
	 * (ipcperf_task.exit_status); and the calls a thread is switched out
	 * in, when it is (ipcperf_handlers.call_entered; a program on
	 * sched_switch). Since 0.2.
	 *
	 * A caller without root's rights (its real uid is not 0, whatever
	 * capabilities or setuid bit the binary has) gets the memory of the
	 * processes the kernel lets it read only (PTRACE_MODE_READ, by its
	 * real ids: its own processes, not set-user-ID ones): a pid or tid of
	 * another's makes ipcperf_session__new() fail, errno EACCES (or
	 * EPERM), said in one line; with system_wide, another's calls come
	 * without their memory.
	 */
	bool call_memory;
};

/**
 * Create a session: resolves targets, loads tracepoint formats (mounting
 * tracefs when needed and allowed), and with opts->argv forks the command,
 * which waits until ipcperf_session__start(). Opens no events yet.
 * @return the session, to be freed with ipcperf_session__delete(); NULL with
 *   errno: EINVAL (bad opts: no target, several kinds of target, ring_pages
 *   not a power of two), ESRCH (a pid does not exist), ENOENT (tracefs or a
 *   needed format not found), EACCES (tracefs may not be read: the print
 *   function is told the file denied and the fixes; CAP_PERFMON does not
 *   give it), EPERM. The reason also goes to the print function.
 */
IPCPERF_API struct ipcperf_session *ipcperf_session__new(const struct ipcperf_session_opts *opts);

/**
 * Stop (if running), kill and reap a command that never started, close
 * everything. A command that did start is not killed; it is reaped if it
 * already exited. Accepts NULL.
 */
IPCPERF_API void ipcperf_session__delete(struct ipcperf_session *s);

/**
 * Register handlers (copied; may be called several times: every set gets
 * every event, in registration order).
 * @return 0; -EINVAL on a bad sz; -EBUSY once the session has started.
 */
IPCPERF_API int ipcperf_session__add_handlers(struct ipcperf_session *s,
					      const struct ipcperf_handlers *h);

/**
 * Open all events on all targets, map the rings, enable, and release the
 * corked command (its events start at its exec). Events this kernel lacks
 * are skipped with a warning.
 * @return 0; -errno when tracing cannot start (explained through the print
 *   function): -EACCES (perf_event_paranoid / CAP_PERFMON), -EPERM (mlock
 *   limit for the ring size), -ESRCH (target gone), -ENOENT (exec failed),
 *   -EBUSY (already started).
 */
IPCPERF_API int ipcperf_session__start(struct ipcperf_session *s);

/**
 * A file descriptor that becomes readable when a ring holds data, a target
 * hangs up or the session's command exits (IPCPERF_SCOPE_CPU: also every
 * 50 ms, as its rings never hang up); poll it in your own loop, then call
 * ipcperf_session__consume().
 * Owned by the session. -EINVAL before start.
 */
IPCPERF_API int ipcperf_session__fd(const struct ipcperf_session *s);

/**
 * Wait up to @p timeout_ms (-1: forever) for data, then consume it.
 * @return number of events delivered (>= 0); -EINTR when a signal
 *   interrupted the wait (what the rings held is consumed all the same);
 *   other -errno on failure.
 */
IPCPERF_API int ipcperf_session__poll(struct ipcperf_session *s, int timeout_ms);

/**
 * Read every ring without waiting and deliver the events that are old enough
 * to be in order (newer ones wait for the next call or for stop).
 * @return number of events delivered, or -errno.
 */
IPCPERF_API int ipcperf_session__consume(struct ipcperf_session *s);

/**
 * True once every traced task has exited: all rings hung up (per task), or
 * the exit of every followed task delivered (IPCPERF_SCOPE_CPU). Never true
 * in system-wide mode.
 */
IPCPERF_API bool ipcperf_session__done(const struct ipcperf_session *s);

/**
 * Disable all events, drain every ring, deliver everything still pending in
 * timestamp order, and count syscalls left without their exit as unpaired.
 * Idempotent. @return number of events delivered, or -errno (of a recording
 * session: the capture could not be written, ipcperf_session__record()).
 */
IPCPERF_API int ipcperf_session__stop(struct ipcperf_session *s);

/** Pid of the command started by the session, or -1. */
IPCPERF_API pid_t ipcperf_session__child_pid(const struct ipcperf_session *s);

/**
 * Wait for the command started by the session to exit (blocking) and give its
 * wait status (as waitpid's). Can be called before or after stop.
 * @return 0; -ECHILD if there is no command; -errno from waitpid.
 */
IPCPERF_API int ipcperf_session__wait_child(struct ipcperf_session *s, int *status);

/** Where a session learns what the fds made during it are. */
enum ipcperf_fdid_source {
	/**
	 * From /proc/PID/fd and fdinfo, read when an fd is first seen, tens of
	 * ms after the call: an fd closed, or whose process exits, before the
	 * rings are read stays "unknown". Also every replay of a capture made
	 * so.
	 */
	IPCPERF_FDID_PROC = 1,
	/**
	 * From the kernel's own structures at the exit of each call that makes
	 * an fd (a BPF program on the syscall tracepoints): exact whatever the
	 * fd's life (ipcperf_handlers.fd_open). Needs CAP_BPF and CAP_PERFMON
	 * (or CAP_SYS_ADMIN) and a kernel with BTF; fds that existed before
	 * the session still come from /proc.
	 */
	IPCPERF_FDID_BPF = 2,
};

/**
 * Which fd identity a session on this machine would get, and why: tries
 * to load the BPF program (and unloads it). @p why (may be NULL) gets one
 * line of explanation. Since 0.2.
 * @return IPCPERF_FDID_BPF, or IPCPERF_FDID_PROC with errno saying why:
 * ENOTSUP (built without BPF), EPERM or EACCES (not allowed), ENOENT (no
 * kernel BTF), another (the kernel refused the program).
 */
IPCPERF_API enum ipcperf_fdid_source ipcperf_fd_identity_probe(char *why, size_t len);

/** What a session's syscalls come from. */
enum ipcperf_sc_records {
	/**
	 * The sys_enter and sys_exit tracepoint samples of each call, paired
	 * by the library: what perf trace and perf script read, and what
	 * captures hold.
	 */
	IPCPERF_SC_RECORDS_SAMPLES = 1,
	/**
	 * One record per call, written at its exit by a BPF program that kept
	 * its sys_enter (arguments, time) by thread, with its time switched out
	 * when asked (IPCPERF_EV_BLOCKED): the same calls and fields, half the
	 * records. Live sessions with IPCPERF_FDID_BPF, unless
	 * ipcperf_session_opts.syscall_samples.
	 */
	IPCPERF_SC_RECORDS_KERNEL = 2,
};

/** What a session's scheduling comes from. */
enum ipcperf_sched_records {
	/** The sched_switch and sched_wakeup tracepoint samples: one event each. */
	IPCPERF_SCHED_RECORDS_EVENTS = 1,
	/** Each thread's counts, kept by a BPF program (IPCPERF_EV_SCHED_TOTALS): one event per thread. */
	IPCPERF_SCHED_RECORDS_TOTALS = 2,
};

/** Session counters, for every output that must say what was lost. */
struct ipcperf_session_stats {
	size_t sz;
	uint64_t records;		/**< ring records read */
	uint64_t lost;			/**< records lost: dropped by the kernel (all rings), plus unattributed */
	uint64_t unpaired_enter;	/**< sys_enter without sys_exit (target died, capture stopped mid-call) */
	uint64_t unpaired_exit;		/**< sys_exit without sys_enter (attached mid-call, or lost enter) */
	uint64_t syscalls;		/**< completed syscalls delivered */
	uint64_t start_ns;		/**< CLOCK_MONOTONIC when enabled */
	uint64_t stop_ns;		/**< CLOCK_MONOTONIC when the events stopped, before the rings were read dry (0 while running) */
	unsigned int rings;		/**< number of rings */
	unsigned int skipped_events;	/**< tracepoints this kernel lacks */
	unsigned int scope;		/**< the scope in use (IPCPERF_SCOPE_TASK or _CPU), 0 before start */
	uint64_t foreign;		/**< records of other tasks read and dropped (IPCPERF_SCOPE_CPU) */
	/**
	 * IPCPERF_SCOPE_CPU: records dropped because their task had exited
	 * before it could be told whether it was a target (its fork record
	 * was lost). Counted in lost as well: they may have been a target's.
	 */
	uint64_t unattributed;
	/**
	 * Pages of each ring: the session's ring_pages, the default applied. A
	 * replay gives the recording session's, or 0 when the capture does not
	 * say (perf's captures, and ipcperf's written before it was recorded).
	 */
	unsigned int ring_pages;
	/**
	 * Where the identities of the fds made during the session come from
	 * (enum ipcperf_fdid_source), 0 before start. Since 0.2.
	 */
	unsigned int fd_identity;
	/** What the syscalls come from (enum ipcperf_sc_records), 0 before start. Since 0.2. */
	unsigned int syscall_records;
	/**
	 * What the scheduling comes from (enum ipcperf_sched_records); 0
	 * before start, or without IPCPERF_EV_SCHED. Since 0.2.
	 */
	unsigned int sched_records;
	/**
	 * Runs of the session's BPF programs that the kernel skipped because
	 * the same program was already running on that CPU (a wakeup in an
	 * interrupt that came during another wakeup's run): the kernel's
	 * switch and wakeup totals (IPCPERF_SCHED_RECORDS_TOTALS) may be short
	 * by as many. Counted over every process the programs saw, targets or
	 * not, so an upper bound; read at the stop (0 before it, and without
	 * BPF). Since 0.2.
	 */
	uint64_t bpf_missed;
};

/** Fill @p st (whose sz the caller set). @return 0 or -EINVAL. */
IPCPERF_API int ipcperf_session__stats(const struct ipcperf_session *s,
				       struct ipcperf_session_stats *st);

/** An event the session opened, as a capture needs to describe it. */
struct ipcperf_event_desc {
	const char *system;	/**< "syscalls", "raw_syscalls", "sched" */
	const char *name;	/**< "sys_enter_write", ... */
	int id;			/**< tracepoint id (common_type of its records) */
	const void *attr;	/**< the struct perf_event_attr it was opened with */
	size_t attr_size;
	const uint64_t *ids;	/**< kernel ids of its instances (PERF_SAMPLE_IDENTIFIER) */
	size_t nr_ids;
	const char *format;	/**< its tracefs format text */
	size_t format_len;
};

/**
 * Call @p cb for each event the session opened (after start). Data lives
 * only during the call. @return 0, -EINVAL before start, or what @p cb returned.
 */
IPCPERF_API int ipcperf_session__for_each_event(const struct ipcperf_session *s,
						int (*cb)(void *ctx, const struct ipcperf_event_desc *d),
						void *ctx);

/**
 * Hand every ring record, as read and before any ordering, to @p tap (for
 * writing captures): samples, PERF_RECORD_LOST, COMM/FORK/EXIT, SWITCH. At
 * the end of each pass over the rings that read something, @p tap gets
 * (NULL, 0): records before it are older than records after it are not
 * guaranteed to be, but a pass is what perf calls a finished round.
 * Records live only during the call. With a tap, IPCPERF_SCOPE_AUTO means
 * per task; in IPCPERF_SCOPE_CPU the tap sees every task's records.
 * @return 0; -EBUSY once started.
 */
IPCPERF_API int ipcperf_session__set_tap(struct ipcperf_session *s,
					 void (*tap)(void *ctx, const void *rec, size_t size),
					 void *ctx);

/** Records lost in the ring of CPU @p cpu so far; 0 for an unknown cpu. */
IPCPERF_API uint64_t ipcperf_session__lost_on_cpu(const struct ipcperf_session *s, int cpu);

/**
 * Also write everything the session reads into @p path, a capture in the
 * perf.data format that `perf script` and `perf report` read and
 * ipcperf_session__open_file() replays with the live run's numbers: the
 * events and their tracepoint formats, every ring record (samples, lost,
 * COMM/FORK/EXIT, SWITCH), and in an ipcperf section of its own the session's
 * counts, the counter values at stop, and the fd identities the stats
 * objects attached to this session read from /proc (so call it before
 * ipcperf_stats__attach()). No buffer contents are ever captured: syscall
 * arguments and return values only, which are numbers.
 * The file is created now (mode 0600, truncated if it exists), filled from
 * start and finished at stop; a session deleted without stop leaves a
 * partial capture. A symbolic link as the last component of @p path is
 * never followed, whether it points to a file or nowhere (-ELOOP): a
 * recorder usually runs as root, and a link another user planted there
 * would have it overwrite, chmod or create the file the link names. Links
 * in the directories of @p path are followed. The file must be seekable
 * (-ESPIPE); a FIFO fails at once (-ENXIO or -ESPIPE) rather than blocking.
 * A recording session of pid, tid or command targets
 * traces per task (IPCPERF_SCOPE_AUTO; start() fails with -EINVAL in
 * IPCPERF_SCOPE_CPU), so that a capture holds the targets' records only.
 * @return 0; -EINVAL (NULL, or a replay session); -EBUSY (started, or already
 *   recording); -ELOOP (@p path is a symbolic link); other -errno of creating
 *   the file; each explained through the print function ("refusing to write
 *   the capture to PATH: it is a symbolic link ...", "cannot write the
 *   capture to PATH: REASON"). A failure to write the capture is explained
 *   through the print function when it happens, once, and returned by
 *   ipcperf_session__stop().
 */
IPCPERF_API int ipcperf_session__record(struct ipcperf_session *s, const char *path);

/**
 * ipcperf_session__record() into @p fd, a file the caller opened for
 * writing (empty: opened with O_TRUNC, or new), instead of a path the
 * library opens: so that a program with privileges for tracing (a
 * capability, setuid) can open the file a user names with that user's own
 * rights and keep its own for tracefs and the kernel. The file is made
 * private (mode 0600 when it is a regular file readable by others) and must
 * be seekable (-ESPIPE). @p name names it in messages (its path).
 * The session owns @p fd from this call on, whatever it returns: it is
 * closed on failure, and when the session is deleted.
 * @return 0; -EBADF (@p fd < 0); -EINVAL (NULL, or a replay session);
 *   -EBUSY (started, or already recording); -ESPIPE; other -errno, explained
 *   through the print function as ipcperf_session__record()'s are. Since 0.2.
 */
IPCPERF_API int ipcperf_session__record_fd(struct ipcperf_session *s, int fd, const char *name);

/** Room for a host's name in struct ipcperf_capture_info, its NUL included. Since 0.3. */
#define IPCPERF_HOST_MAX 65

/**
 * Name the host a recording session's capture says it was made on (its
 * ipcperf section), in place of the machine's hostname: for two hosts that
 * share one name, whose captures are joined (doc/accuracy.md). @p name: 1
 * to IPCPERF_HOST_MAX - 1 bytes, no control character, no space.
 * @return 0; -EINVAL (NULL, a replay session, a bad name); -EBUSY (started).
 * Since 0.3.
 */
IPCPERF_API int ipcperf_session__set_host(struct ipcperf_session *s, const char *name);

/**
 * Where and when a session runs, or its capture was recorded: the host's
 * name and the clock reference, CLOCK_MONOTONIC (the events' clock) and
 * CLOCK_REALTIME read together at the start and at the stop. Since 0.3.
 */
struct ipcperf_capture_info {
	size_t sz;
	/**
	 * The host: live, ipcperf_session__set_host()'s name or the hostname; of
	 * a capture, the one it recorded, else (perf's, or ipcperf's before 0.3)
	 * perf's hostname header; "" when none says.
	 */
	char host[IPCPERF_HOST_MAX];
	/** The clock reference is known (live: once started; a capture written before 0.3: never). */
	bool has_clock;
	uint64_t mono_start_ns, real_start_ns;	/**< read together at the start */
	uint64_t mono_stop_ns, real_stop_ns;	/**< at the stop; 0 before it */
};

/** Fill @p out (its sz set by the caller). @return 0; -EINVAL. Since 0.3. */
IPCPERF_API int ipcperf_session__capture_info(const struct ipcperf_session *s,
					      struct ipcperf_capture_info *out);

/** Options of ipcperf_session__open_file(); NULL for the defaults. */
struct ipcperf_file_opts {
	size_t sz;
	/** Fail with EPROTO on a partial capture (recorder killed) instead of warning. */
	bool refuse_partial;
};

/**
 * A session that replays a capture in the perf.data format (written by
 * ipcperf_session__record() or `perf record -e syscalls:...`) instead of
 * reading rings: the same add_handlers / start / poll or consume / done /
 * stop / stats / delete, and handlers get the same events, decoded with the
 * tracepoint formats the capture carries. start() opens nothing; consume()
 * (and poll(), which never waits) reads the next round of records; done() is
 * true at the end of the file; ipcperf_session__fd() has no fd to give
 * (-EINVAL); child_pid() is the recorded command's pid, which is not waited for. Lost records are counted from the capture's
 * PERF_RECORD_LOST. Memory is bounded by a round of records, not the file.
 * A stats object attached to it never reads /proc (the processes are not
 * this machine's now): fd identities come from what the recorder stored, else
 * they are unknown.
 * @return the session, freed with ipcperf_session__delete(); NULL with errno:
 *   EINVAL (not a perf.data file, bad opts), EPROTO (corrupt or truncated: the
 *   print function gets "FILE: offset 0x...: what"), ENOMEM, open(2)'s errors.
 *   A partial capture opens with a warning through the print function.
 *   consume() and poll() fail with -EPROTO at a corrupt record (its size, its
 *   type, fields it is too short for, a cpu the capture does not have) and
 *   -ENOMEM: every failure of a replay, at open or at a record, is said in
 *   one line through the print function (IPCPERF_INFO, the offset in it
 *   when there is one), once; a later consume() gives the same error again
 *   and says nothing. A replay that succeeds says nothing but warnings.
 */
IPCPERF_API struct ipcperf_session *ipcperf_session__open_file(const char *path,
								const struct ipcperf_file_opts *opts);

/**
 * A replay (ipcperf_session__open_file()) reads its capture and delivers
 * every record stamped up to @p until_ns (the capture's clock), and no
 * later one, until it is called again with a later time (UINT64_MAX lifts
 * the bound; consume(), poll() and stop() keep the bound last set, stop()
 * delivers everything): so that the captures of several hosts are fed to
 * one consumer in the order of their times (ipcperf_paths__add_host()).
 * ipcperf_session__done() is true once the whole capture is read.
 * @return events delivered; -EINVAL (NULL, a live session, not started);
 *   the errors of consume(). Since 0.3.
 */
IPCPERF_API int ipcperf_session__consume_until(struct ipcperf_session *s, uint64_t until_ns);

/** True for a session of ipcperf_session__open_file() whose capture is partial. */
IPCPERF_API bool ipcperf_session__partial(const struct ipcperf_session *s);

/** Name of syscall number @p nr of this architecture (from the kernel headers at build time), or NULL. */
IPCPERF_API const char *ipcperf_syscall_name(int nr);


/* ------------------------------------------------------------------ */
/* What this machine offers                                            */
/* ------------------------------------------------------------------ */

/** Version of the libperf the library was built against, e.g. "0.0.1"; static. */
IPCPERF_API const char *ipcperf_libperf_version(void);

enum ipcperf_avail {
	IPCPERF_AVAIL_OK = 0,	/**< opened on the calling thread */
	IPCPERF_AVAIL_MISSING,	/**< this kernel or machine lacks it (err: ENOENT, EOPNOTSUPP...) */
	IPCPERF_AVAIL_DENIED,	/**< it exists, but this process may not open it (EACCES/EPERM) */
};

struct ipcperf_event_info {
	const char *name;	/**< "syscalls:sys_enter_write", "sched:sched_switch", counters by perf's names ("task-clock", ...; since 0.2) */
	const char *group;	/**< "syscalls", "raw_syscalls", "sched", "software", "hardware" */
	enum ipcperf_avail status;
	int err;		/**< the errno behind a status other than OK */
};

/**
 * Try every event a session may open (each tracepoint and counter is opened
 * on the calling thread and closed again) and report each to @p cb. Data
 * lives only during the call; a non-zero return from @p cb stops the walk
 * and is returned. Needs tracefs for the tracepoints (mounted when root).
 */
IPCPERF_API int ipcperf_list_events(int (*cb)(void *ctx, const struct ipcperf_event_info *ev),
				    void *ctx);

/** How one item of the machine check came out. Since 0.2. */
enum ipcperf_check_status {
	IPCPERF_CHECK_OK = 0,		/**< what was found works */
	IPCPERF_CHECK_PROBLEM,		/**< it limits what a capture shows (e.g. no hardware counters) */
	IPCPERF_CHECK_FATAL,		/**< no capture can work until it is fixed */
};

/** One item of ipcperf_machine_check(); lives only during the callback. Since 0.2. */
struct ipcperf_check_item {
	/**
	 * What was checked: "tracefs", "perf_event_paranoid", "ring_buffers",
	 * "events" (they could not be tried), "tracepoints", "software_counters",
	 * "hardware_counters", "fd_identity", "libperf", "capture".
	 */
	const char *name;
	enum ipcperf_check_status status;
	/** One line: what was found, or what is wrong and why. */
	const char *detail;
	/** Not OK: the command (or step) that fixes it, one line; NULL when OK. */
	const char *fix;
};

struct ipcperf_check_opts {
	size_t sz;
	/** The ring size to check the mlock limit and the capture with; 0: a session's default (IPCPERF_DEFAULT_RING_PAGES). */
	unsigned int ring_pages;
	/** Leave out the test capture of /bin/true (its item too). */
	bool no_capture;
};

/**
 * Check that this machine and this process can trace, item by item, in this
 * order: tracefs (mounted or mountable, readable), kernel.perf_event_paranoid
 * against root and CAP_PERFMON, the mlock limit for the rings, the
 * tracepoints and counters (ipcperf_list_events()), where fd identities come
 * from (ipcperf_fd_identity_probe()), the libperf version, and a test capture
 * of /bin/true through a real session. Each goes to @p cb as it is found; the
 * fixes name this program (/proc/self/exe) for setcap. Tracepoints this
 * kernel lacks, and what the library said during a failed capture, go to the
 * print function (IPCPERF_INFO). A non-zero return from @p cb stops the items
 * (the checks still run) and is returned. Since 0.2.
 * @return 1 when tracing works here (the capture succeeded; without one, no
 *   item IPCPERF_CHECK_FATAL), 0 when it cannot; -EINVAL (NULL @p cb, bad
 *   opts, ring_pages not a power of two); or what @p cb returned.
 */
IPCPERF_API int ipcperf_machine_check(const struct ipcperf_check_opts *opts,
				      int (*cb)(void *ctx, const struct ipcperf_check_item *item),
				      void *ctx);

/* ------------------------------------------------------------------ */
/* Counters (opts.counters)                                            */
/* ------------------------------------------------------------------ */

enum ipcperf_counter {
	IPCPERF_CNT_TASK_CLOCK = 0,	/**< ns on CPU */
	IPCPERF_CNT_PAGE_FAULTS,
	IPCPERF_CNT_CONTEXT_SWITCHES,
	IPCPERF_CNT_CPU_MIGRATIONS,
	IPCPERF_CNT_CYCLES,
	IPCPERF_CNT_INSTRUCTIONS,
	IPCPERF_CNT_CACHE_REFERENCES,
	IPCPERF_CNT_CACHE_MISSES,
	IPCPERF_CNT__MAX,
};

/** The bit of counter @p c in ipcperf_session_opts.counter_mask. */
#define IPCPERF_CNT_BIT(c) (1u << (c))

enum ipcperf_counter_status {
	IPCPERF_CNT_OK = 0,		/**< value is valid (scaled if multiplexed) */
	IPCPERF_CNT_NOT_SUPPORTED,	/**< the machine has no such counter (e.g. no PMU in a VM) */
	IPCPERF_CNT_NOT_COUNTED,	/**< opened, but never scheduled on a PMU */
	IPCPERF_CNT_NOT_REQUESTED,	/**< left out of opts.counter_mask: never opened (since 0.2) */
};

struct ipcperf_counter_value {
	enum ipcperf_counter_status status;
	uint64_t value;		/**< summed over CPUs and threads, scaled by enabled/running */
	uint64_t enabled_ns;
	uint64_t running_ns;	/**< < enabled_ns when the counter was multiplexed */
};

/** JSON-style name of a counter ("cycles", "task_clock_ns", ...); static. */
IPCPERF_API const char *ipcperf_counter_name(enum ipcperf_counter c);

/**
 * perf's name of a counter, as `perf list` and `perf stat -e` spell it
 * ("task-clock", "page-faults", "context-switches", "cpu-migrations",
 * "cycles", "instructions", "cache-references", "cache-misses"); static;
 * NULL for a value that is no counter. Since 0.2.
 */
IPCPERF_API const char *ipcperf_counter_perf_name(enum ipcperf_counter c);

/**
 * Read the counters of the session (opened when opts.counters was set).
 * @p pid selects one target process (its threads at start, plus the children
 * they created: the kernel folds a child's counts into its parent's at exit);
 * 0 gives the sum over all targets. With system_wide, only pid 0.
 * @p vals must hold IPCPERF_CNT__MAX entries.
 * @return 0; -ENODATA when the session counts nothing; -ESRCH for a pid that
 *   is not a target; -EINVAL.
 */
IPCPERF_API int ipcperf_session__read_counters(const struct ipcperf_session *s, pid_t pid,
					       struct ipcperf_counter_value *vals);

/* ------------------------------------------------------------------ */
/* Accounting: per-fd throughput and latency, per-process scheduling   */
/* ------------------------------------------------------------------ */


/** "pipe", "unix", "tcp", "udp", "file", "tty", "other", "unknown"; static. */
IPCPERF_API const char *ipcperf_fd_kind_name(enum ipcperf_fd_kind kind);

/**
 * Of an inet fd's addresses ("LOCAL -> REMOTE", as ipcperf_fd_row.detail
 * gives them), the one with the lower port, copied into @p buf (@p len
 * bytes, NUL-terminated): the server's end, below the ephemeral range, by
 * which flows group a server's connections when neither its accept nor
 * the client's connect was seen (ipcperf_flow.endpoint). "" when @p detail
 * holds no " -> ". Since 0.3.
 */
IPCPERF_API void ipcperf_inet_endpoint(char *buf, size_t len, const char *detail);

/** Latency distribution of calls, in ns (log-linear histogram: p50/p99 within 1/64). */
struct ipcperf_lat {
	uint64_t min, avg, p50, p99, max;
};

/**
 * A distribution of durations in ns: the log-linear histogram behind
 * struct ipcperf_lat, whose buckets are 1/32 to 1/64 of their values wide
 * (exact below 32 ns). Opaque; it lives as long as the row or flow that
 * points to it. Since 0.2.
 */
struct ipcperf_hist;

/** Samples in @p h (0 for NULL). Since 0.2. */
IPCPERF_API uint64_t ipcperf_hist__count(const struct ipcperf_hist *h);

/** Sum of the samples of @p h in ns, exact, saturated at UINT64_MAX (0 for NULL). Since 0.2. */
IPCPERF_API uint64_t ipcperf_hist__sum(const struct ipcperf_hist *h);

/**
 * Cumulative counts at @p n ascending @p bounds (ns), as a Prometheus
 * histogram's `le` buckets: @p counts[i] = the samples <= @p bounds[i].
 * Each sample is taken as the middle of its bucket (clamped to the exact
 * min and max), the value the percentiles report, so a sample within 1/64
 * of a bound may be counted on the other side of it; counts at bounds
 * below 32 ns, at or above the largest sample, or below the smallest are
 * exact. Counts only grow with the bound, and stay <= ipcperf_hist__count()
 * (equal past the largest sample, unless 4.29e9 samples fell in one bucket).
 * Since 0.2.
 * @return 0; -EINVAL (NULL @p h, @p bounds or @p counts with @p n > 0, or
 *   @p bounds not ascending: @p counts untouched).
 */
IPCPERF_API int ipcperf_hist__count_le(const struct ipcperf_hist *h, const uint64_t *bounds,
				       size_t n, uint64_t *counts);

/**
 * An empty histogram of the caller's own, to merge rows' histograms into
 * (e.g. one syscall over several processes: exact percentiles of the union,
 * where the largest of the rows' p99s is only an upper bound). About 8 KiB.
 * @return it, freed with ipcperf_hist__delete(); NULL with errno (ENOMEM).
 * Since 0.2.
 */
IPCPERF_API struct ipcperf_hist *ipcperf_hist__new(void);
/** Free a histogram of ipcperf_hist__new(); accepts NULL. Since 0.2. */
IPCPERF_API void ipcperf_hist__delete(struct ipcperf_hist *h);
/**
 * Add every sample of @p src (NULL: none) into @p dst, one of
 * ipcperf_hist__new(): as if each had been counted in @p dst. The result's
 * count, sum, min and max are exact and its percentiles those of the union,
 * within 1/64 as any row's. Since 0.2. @return 0; -EINVAL (NULL @p dst).
 */
IPCPERF_API int ipcperf_hist__merge(struct ipcperf_hist *dst, const struct ipcperf_hist *src);
/**
 * The latencies of @p h as rows report them: exact min, max and avg
 * (floor of sum / count), p50 and p99 from the buckets; all 0 when empty.
 * Since 0.2. @return 0; -EINVAL (NULL @p h or @p lat).
 */
IPCPERF_API int ipcperf_hist__lat(const struct ipcperf_hist *h, struct ipcperf_lat *lat);

/** One direction (read or write side) of an fd row. */
struct ipcperf_io {
	uint64_t ops;		/**< completed calls */
	uint64_t bytes;		/**< bytes actually moved: sum of positive return values */
	uint64_t errors;	/**< calls that returned an error other than EAGAIN (no bytes) */
	uint64_t time_ns;	/**< total time in the calls */
	struct ipcperf_lat lat_ns;
	uint64_t msgs;		/**< sendmmsg/recvmmsg: messages moved (their bytes are unknown) */
	/**
	 * Calls refused with EAGAIN (EWOULDBLOCK): a non-blocking fd found
	 * empty (read) or full (write). Since 0.2; not counted in errors
	 * since 0.2.1 (an event loop's refusals are its way of working).
	 */
	uint64_t again;
};

/**
 * The part of one side of an fd that zero-copy calls (IPCPERF_SC_MOVE:
 * sendfile, splice, tee, vmsplice, copy_file_range) moved: a move counts as
 * a read of its source fd and a write of its destination, its ops, errors,
 * time and bytes in both. Since 0.2.
 */
struct ipcperf_moved {
	uint64_t ops;		/**< move calls, failed ones included */
	uint64_t bytes;		/**< bytes they moved */
};

/** How the connections of an fd group (ipcperf_fd_group) were grouped. Since 0.2. */
enum ipcperf_fd_group_role {
	/** Not grouped: one fd row (pipes, files, listening sockets, the rest). */
	IPCPERF_GROUP_ONE = 0,
	/**
	 * Connections to an endpoint of the process (a server's accepted
	 * sockets): inet sockets that accept or accept4 returned, whatever
	 * their ports; the endpoint is the local address. A connection whose
	 * accept or connect was not seen (made before the capture) is one
	 * when its remote port is in the machine's ephemeral range
	 * (net.ipv4.ip_local_port_range) and its local port is not
	 * (ipcperf_fd_group.by_ports).
	 */
	IPCPERF_GROUP_SERVED,
	/**
	 * Connections the process made: inet sockets it called connect on;
	 * one whose origin was not seen, by its ports: its local port
	 * ephemeral, the remote not. The endpoint is the remote address.
	 */
	IPCPERF_GROUP_CLIENT,
	/**
	 * Connected unix stream or seqpacket sockets, grouped by the peer
	 * process; no endpoint. Since 0.3 also the sockets accept returned
	 * whose peer was gone before it was named (peer_pid 0).
	 */
	IPCPERF_GROUP_UNIX,
};

/** One row per (process, fd, object): an fd reused for another object is another row. */
struct ipcperf_fd_row {
	pid_t pid;
	int fd;
	const char *object;	/**< "pipe:[123]", "socket:[456]", "/path", or "unknown" */
	enum ipcperf_fd_kind kind;
	const char *detail;	/**< inet: "127.0.0.1:5000 -> 127.0.0.1:40000"; unix: "peer socket:[N]"; else "" */
	uint64_t ino;		/**< inode of pipes and sockets, 0 if unknown */
	uint64_t peer_ino;	/**< unix sockets: the peer's inode, 0 if none or unknown */
	struct ipcperf_io read, write;
	uint64_t first_ns, last_ns;	/**< first call's start, last call's end */
	/** The latencies of read and write as a distribution (for buckets); since 0.2. */
	const struct ipcperf_hist *read_hist, *write_hist;
	/**
	 * Since 0.2: the process at the other end, as `ss -p` names it; 0 when
	 * not known. A unix or TCP/UDP socket: a holder of the peer socket (the
	 * peer inode; for inet, the socket whose addresses are this one's
	 * mirrored); a pipe: a process other than this one holding the pipe.
	 * A traced process is known from the fd table; others from one scan of
	 * /proc/<pid>/fd made at the first walk that needs it, for the peers still
	 * unknown, never for a stats object that reads no /proc (no_proc,
	 * replays). Of several traced holders: one that read or wrote it,
	 * then the lowest pid; of untraced ones, the one started first.
	 */
	pid_t peer_pid;
	/** Its name ("" when unknown, or not known to the accounting nor /proc). Since 0.2. */
	const char *peer_comm;
	/** The zero-copy part of read and write (struct ipcperf_moved). Since 0.2. */
	struct ipcperf_moved read_moved, write_moved;
	/**
	 * The group ipcperf_stats__for_each_fd_group() puts the row in: its
	 * role, and the group's endpoint (ipcperf_fd_group.endpoint; "" for
	 * IPCPERF_GROUP_ONE and IPCPERF_GROUP_UNIX), its peer_pid the rest of
	 * the group's key. What the row is known as may change while a capture
	 * runs (a connection's peer or origin learnt later): a caller that
	 * keeps totals of its own by row groups them afresh at each walk.
	 * Since 0.2.
	 */
	enum ipcperf_fd_group_role group_role;
	const char *group_endpoint;
	/**
	 * Since 0.3: 0 for a row of its own. A row of
	 * ipcperf_stats__for_each_fd_fold(): how many closed connections'
	 * rows it holds (its fd -1, its object and detail "").
	 */
	uint64_t folded;
};

/**
 * The fd rows of one process that are connections of one kind to one
 * endpoint with one peer process, added up (ipcperf_stats__for_each_fd_group()).
 * Since 0.2.
 */
struct ipcperf_fd_group {
	pid_t pid;
	enum ipcperf_fd_kind kind;
	enum ipcperf_fd_group_role role;
	/** SERVED: the local address ("127.0.0.1:6379"); CLIENT: the remote one; UNIX: ""; ONE: the row's object. */
	const char *endpoint;
	int fd;			/**< the row's fd (conns 1); else the lowest fd of the group */
	const char *object;	/**< the row's object when conns is 1, else "" */
	const char *detail;	/**< the row's detail when conns is 1, else "" */
	pid_t peer_pid;		/**< as ipcperf_fd_row.peer_pid: the same for every row of the group */
	const char *peer_comm;
	uint64_t conns;		/**< fd rows added up (1 for ONE) */
	struct ipcperf_io read, write;	/**< sums of the rows'; latencies of the merged distributions */
	uint64_t first_ns, last_ns;
	const struct ipcperf_hist *read_hist, *write_hist;	/**< the rows' merged */
	struct ipcperf_moved read_moved, write_moved;	/**< the rows' zero-copy parts added up */
	/**
	 * Of conns, the inet connections whose accept or connect the capture
	 * did not see (made before it, or passed in): grouped by their port
	 * numbers alone (ipcperf_fd_group_role). 0 for the others. Since 0.2.
	 */
	uint64_t by_ports;
};

/** Per process (tgid). */
struct ipcperf_proc_row {
	pid_t pid;
	const char *comm;
	uint64_t voluntary_cs;		/**< switched out while blocked */
	uint64_t involuntary_cs;	/**< preempted while runnable */
	uint64_t wakeups;		/**< times its threads were woken */
	uint64_t migrations;		/**< consecutive switch-outs of a thread on different CPUs */
	uint64_t syscalls;		/**< completed traced syscalls */
	uint64_t threads;		/**< threads seen */
	bool exited;
	/**
	 * io_uring requests it submitted (the sum of io_uring_enter's return
	 * values), whose bytes no fd row counts. A ring polled by the kernel
	 * (IORING_SETUP_SQPOLL) submits without the call: not counted. Since 0.2.
	 */
	uint64_t uring_unaccounted;
	/**
	 * When (CLOCK_MONOTONIC, ns) it left what the caller may see
	 * (ipcperf_task.left_view): nothing of it after; 0 when it did not.
	 * Since 0.2.
	 */
	uint64_t left_ns;
	/**
	 * Exited processes of one comm added up (ipcperf_stats_opts.fold_exited):
	 * how many; 0 for a process of its own. Such a row's pid is negative,
	 * -1, -2, ... one per comm, and its fd rows, groups and syscall rows
	 * carry the same pid. Since 0.2.
	 */
	uint64_t folded;
};

/** How often a syscall failed with one errno. */
struct ipcperf_errno_count {
	int err;		/**< positive errno value (EBADF, ...) */
	uint64_t count;
};

/** Per syscall within a process (or a thread, with opts.per_thread). */
struct ipcperf_syscall_row {
	pid_t pid;
	const char *name;
	uint64_t calls, errors, time_ns;
	struct ipcperf_lat lat_ns;
	int nr;			/**< syscall number */
	pid_t tid;		/**< the thread, with opts.per_thread; else 0 */
	const struct ipcperf_errno_count *errnos;	/**< by errno, ascending; lives during the call */
	size_t nr_errnos;
	/**
	 * The latencies of the calls as a distribution, to merge rows with
	 * ipcperf_hist__merge(); lives during the call. Since 0.2.
	 */
	const struct ipcperf_hist *hist;
};

struct ipcperf_stats;

struct ipcperf_stats_opts {
	size_t sz;
	/**
	 * Do not read /proc to tell what an fd is (for replaying events from a
	 * capture or in tests): objects then come only from
	 * ipcperf_stats__set_fd_object() and fd duplication.
	 */
	bool no_proc;
	/** Keep syscall rows per thread (ipcperf_syscall_row.tid) instead of per process. */
	bool per_thread;
	/**
	 * Fold the rows of closed connections (the rows that group:
	 * ipcperf_fd_group.role IPCPERF_GROUP_SERVED, _CLIENT or _UNIX) into
	 * their groups, in batches once a thousand or more have closed, so
	 * that a server traced for hours keeps its open fds and its groups,
	 * not a row per connection it ever served. Those rows are then in
	 * ipcperf_stats__for_each_fd_group() only, not in
	 * ipcperf_stats__for_each_fd(), and in one row a group in
	 * ipcperf_stats__for_each_fd_fold() (since 0.3). A group's peer is
	 * named when its rows fold (a traced process's connection waits for
	 * its other end to close too). Since 0.2.
	 */
	bool fold_conns;
	/**
	 * Fold each exited process, once its report is settled (its fds
	 * retired, a second of events after its exit), into the row of the
	 * exited processes of its comm (ipcperf_proc_row.folded): its counts,
	 * its syscall rows by syscall, its fd rows by kind (fd -1, object "",
	 * no peer) added up exactly, its own rows freed. A tracer left on a
	 * machine that runs short-lived processes then keeps what lives plus a
	 * row per comm, not a row per process it ever saw. Since 0.2.
	 */
	bool fold_exited;
};

/** @return accounting state, freed with ipcperf_stats__delete(); NULL with errno. */
IPCPERF_API struct ipcperf_stats *ipcperf_stats__new(const struct ipcperf_stats_opts *opts);
/** Accepts NULL. Detach first by deleting the session, or never feed it again. */
IPCPERF_API void ipcperf_stats__delete(struct ipcperf_stats *st);

/**
 * Feed @p st from @p s (registers handlers) and, unless no_proc, learn the
 * open fds of the session's target processes now.
 * @return 0; -EBUSY once the session has started; -errno.
 */
IPCPERF_API int ipcperf_stats__attach(struct ipcperf_stats *st, struct ipcperf_session *s);

/** Feed events by hand (what attach does for each event). */
IPCPERF_API void ipcperf_stats__add_syscall(struct ipcperf_stats *st, const struct ipcperf_syscall *ev);
IPCPERF_API void ipcperf_stats__add_switch(struct ipcperf_stats *st, const struct ipcperf_switch *ev);
IPCPERF_API void ipcperf_stats__add_wakeup(struct ipcperf_stats *st, const struct ipcperf_wakeup *ev);
IPCPERF_API void ipcperf_stats__add_task(struct ipcperf_stats *st, const struct ipcperf_task *ev);
/** A thread's counted switches and wakeups, as its switch and wakeup events would add them. Since 0.2. */
IPCPERF_API void ipcperf_stats__add_sched_totals(struct ipcperf_stats *st,
						 const struct ipcperf_sched_totals *ev);
/** What the kernel said a new fd is; feed it before the syscall event of the call that made it. Since 0.2. */
IPCPERF_API void ipcperf_stats__add_fd_open(struct ipcperf_stats *st,
					    const struct ipcperf_fd_open *ev);
/** A signal delivered: counts nothing; for ipcperf_stats__on_every_signal(). Since 0.2. */
IPCPERF_API void ipcperf_stats__add_signal(struct ipcperf_stats *st,
					   const struct ipcperf_signal *ev);
/** A call under way (ipcperf_handlers.call_entered): counts nothing; for __on_every_call_entered(). Since 0.2. */
IPCPERF_API void ipcperf_stats__add_call_entered(struct ipcperf_stats *st,
						 const struct ipcperf_syscall *ev);

/**
 * Tell what @p fd of process @p pid refers to from now on (until it is
 * closed or replaced). @p object is copied.
 * @return 0 or -ENOMEM / -EINVAL.
 */
IPCPERF_API int ipcperf_stats__set_fd_object(struct ipcperf_stats *st, pid_t pid, int fd,
					     const char *object, enum ipcperf_fd_kind kind);

/** Everything known about what an fd refers to (for ipcperf_stats__set_fd_identity). */
struct ipcperf_fd_identity {
	size_t sz;
	const char *object;	/**< "pipe:[123]", "socket:[456]", "/path" (copied) */
	enum ipcperf_fd_kind kind;
	uint64_t ino;		/**< pipe or socket inode (0: parsed from object) */
	uint64_t peer_ino;	/**< sockets: the other end's inode, 0 if none/unknown */
	int sock_type;		/**< SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET; 0 otherwise */
	int64_t capacity;	/**< bytes the channel holds (pipe size, socket sndbuf); 0 = unknown */
};

/**
 * Like ipcperf_stats__set_fd_object(), with socket peers and capacity (what
 * flow correlation needs). @return 0 or -EINVAL / -ENOMEM.
 */
IPCPERF_API int ipcperf_stats__set_fd_identity(struct ipcperf_stats *st, pid_t pid, int fd,
					       const struct ipcperf_fd_identity *id);

/**
 * Call @p cb for each fd row, ordered by pid then fd; rows of one
 * (pid, fd, object) are merged. Every fd a seen process held during the
 * capture has a row, without I/O too (zero ops; since 0.2). Rows live only
 * during the call. A non-zero return from @p cb stops the walk and is
 * returned.
 */
IPCPERF_API int ipcperf_stats__for_each_fd(struct ipcperf_stats *st,
					   int (*cb)(void *ctx, const struct ipcperf_fd_row *row),
					   void *ctx);
/**
 * Call @p cb for each fold of closed connections
 * (ipcperf_stats_opts.fold_conns), in the order they were made: one row
 * per group whose rows folded, with fd -1, object and detail "", the
 * group's key (pid, kind, group_role, group_endpoint, peer_pid) and
 * ipcperf_fd_row.folded the rows it holds; its counts, bytes and latencies
 * are those rows' added up exactly. With ipcperf_stats__for_each_fd(), every
 * call and byte is in exactly one row. After ipcperf_stats__reset() a fold
 * keeps its key, with zero counts and zero rows (an interval's fold holds
 * the rows folded during it). Rows live only during the call; a
 * non-zero return from @p cb stops the walk and is returned. Since 0.3.
 * @return 0, or that return, or -EINVAL / -ENOMEM.
 */
IPCPERF_API int ipcperf_stats__for_each_fd_fold(struct ipcperf_stats *st,
						int (*cb)(void *ctx, const struct ipcperf_fd_row *row),
						void *ctx);
/**
 * Call @p cb for each group of fd rows: the rows of one process that share
 * a kind, an endpoint and a peer process (enum ipcperf_fd_group_role says
 * how), each row in exactly one group, so that summed over the groups every
 * count equals the rows' sum. Ordered by pid, then the group's lowest fd.
 * Groups live only during the call. A non-zero return from @p cb stops the
 * walk and is returned. Since 0.2.
 * @return 0, what @p cb returned, -EINVAL or -ENOMEM.
 */
IPCPERF_API int ipcperf_stats__for_each_fd_group(struct ipcperf_stats *st,
						 int (*cb)(void *ctx,
							   const struct ipcperf_fd_group *g),
						 void *ctx);
/** Same, for each process that was seen, ordered by pid. */
IPCPERF_API int ipcperf_stats__for_each_proc(struct ipcperf_stats *st,
					     int (*cb)(void *ctx, const struct ipcperf_proc_row *row),
					     void *ctx);
/** Same, for each (process[, thread], syscall), ordered by pid, tid, then name. */
IPCPERF_API int ipcperf_stats__for_each_syscall(struct ipcperf_stats *st,
						int (*cb)(void *ctx, const struct ipcperf_syscall_row *row),
						void *ctx);

/** What the fd of a call referred to (ipcperf_stats__on_call()). */
struct ipcperf_fd_object {
	const char *object;	/**< "pipe:[123]", "socket:[456]", "/path", or "unknown" */
	enum ipcperf_fd_kind kind;
	const char *detail;	/**< as ipcperf_fd_row.detail */
	uint64_t ino;		/**< inode of pipes and sockets, 0 if unknown */
	uint64_t peer_ino;	/**< unix sockets: the peer's inode, 0 if none or unknown */
	/** Sockets: SOCK_STREAM, SOCK_DGRAM or SOCK_SEQPACKET; 0 otherwise or unknown. Since 0.2. */
	int sock_type;
};

/**
 * Call @p cb for each read/write-family call or move (IPCPERF_SC_MOVE: @p fd
 * is its source) fed to @p st (with ev->fd >= 0),
 * with what its fd referred to at that call, as soon as that is settled: at
 * once when it is known exactly, else when the events have caught up with
 * the moment /proc was read (tens of ms). Calls come in the order they were
 * fed. Data lives only during the call. A new callback replaces the last;
 * NULL stops. Since 0.2. @return 0; -EINVAL.
 */
IPCPERF_API int ipcperf_stats__on_call(struct ipcperf_stats *st,
				       void (*cb)(void *ctx, const struct ipcperf_syscall *ev,
						  const struct ipcperf_fd_object *fd),
				       void *ctx);

/**
 * Hand every call still waiting to the ipcperf_stats__on_call() callback:
 * what is not settled by now is "unknown". Call it after
 * ipcperf_session__stop(). Accepts NULL. Since 0.2.
 */
IPCPERF_API void ipcperf_stats__settle_calls(struct ipcperf_stats *st);

/** What the fds of a call referred to (ipcperf_stats__on_every_call()). */
struct ipcperf_call_fds {
	/** Its fd argument (ev->fd >= 0) as it was at the call (close: what it closed); NULL if none. */
	const struct ipcperf_fd_object *fd;
	/**
	 * The fds it made and what each is: the return value of open, openat,
	 * socket, accept, dup and fcntl(F_DUPFD*), the second argument of
	 * dup2/dup3; the fds of pipe2, socketpair and of a recvmsg's
	 * SCM_RIGHTS only as the kernel described them (IPCPERF_FDID_BPF).
	 */
	unsigned int nr_new;
	const int *new_fds;
	const struct ipcperf_fd_object *new_objects;
	/** IPCPERF_SC_MOVE: the fd the bytes went into (ev->out_fd >= 0); NULL if none. Since 0.2. */
	const struct ipcperf_fd_object *out_fd;
};

/**
 * Call @p cb for every call fed to @p st, in the order fed, with what its
 * fds referred to, as soon as all of that is settled (a call the kernel may
 * still describe waits for the thread's next call, or a few ms of events):
 * what strace -y prints. ipcperf_stats__settle_calls() hands the rest.
 * Data lives only during the call. A new callback replaces the last; NULL
 * stops. Since 0.2. @return 0; -EINVAL.
 */
IPCPERF_API int ipcperf_stats__on_every_call(struct ipcperf_stats *st,
					     void (*cb)(void *ctx, const struct ipcperf_syscall *ev,
							const struct ipcperf_call_fds *fds),
					     void *ctx);

/**
 * Call @p cb for every signal fed to @p st (ipcperf_stats__add_signal()) in
 * its place among the calls ipcperf_stats__on_every_call() hands: after
 * every call fed before it, before every call fed after it (it waits for
 * them as they wait for their fds). Data lives only during the call. A new
 * callback replaces the last; NULL stops. Since 0.2. @return 0; -EINVAL.
 */
IPCPERF_API int ipcperf_stats__on_every_signal(struct ipcperf_stats *st,
					       void (*cb)(void *ctx, const struct ipcperf_signal *ev),
					       void *ctx);

/**
 * The same for every call under way fed to @p st
 * (ipcperf_stats__add_call_entered()), with what its fds are at the time
 * (no new fd: the call has made none yet): what strace -f prints as
 * "read(3</dev/tty>,  <unfinished ...>" when another thread's line comes
 * before the call ends. The call itself comes later to the
 * ipcperf_stats__on_every_call() callback. Since 0.2. @return 0; -EINVAL.
 */
IPCPERF_API int ipcperf_stats__on_every_call_entered(struct ipcperf_stats *st,
						     void (*cb)(void *ctx,
								const struct ipcperf_syscall *ev,
								const struct ipcperf_call_fds *fds),
						     void *ctx);

/**
 * The same for every thread's exit fed to @p st (ipcperf_task of kind
 * IPCPERF_TASK_EXIT; its exit_status says how it ended, when known): in
 * its place among the calls. Since 0.2. @return 0; -EINVAL.
 */
IPCPERF_API int ipcperf_stats__on_every_exit(struct ipcperf_stats *st,
					     void (*cb)(void *ctx, const struct ipcperf_task *ev),
					     void *ctx);

/**
 * Zero every count (for interval deltas); what fds refer to is kept.
 * The sum of the counts between resets equals the counts without resets.
 */
IPCPERF_API void ipcperf_stats__reset(struct ipcperf_stats *st);

/** What an accounting is for (ipcperf_stats__events()). Since 0.2. */
struct ipcperf_stats_events_opts {
	size_t sz;
	/** Count every system call (a strace -c table), not only the I/O and fd calls. */
	bool every_syscall;
	/** The session records a capture: per-syscall tracepoints, which perf script names. */
	bool recording;
	/** Flows are correlated too (ipcperf_flows): their verdicts need IPCPERF_EV_BLOCKED. */
	bool flows;
	/**
	 * The counts are looked at while the session runs (intervals, live
	 * metrics), not only at its end: scheduling as events, not per-thread
	 * totals delivered at the stop (IPCPERF_EV_SCHED_TOTALS).
	 */
	bool running_view;
};

/**
 * The event set (ipcperf_session_opts.events) a session needs to feed an
 * ipcperf_stats (and flows) used as @p opts says (NULL: the totals of the
 * I/O and fd calls at the end of a live run): the I/O and fd calls, through
 * raw_syscalls with a kernel filter unless recording (half the cost of their
 * own tracepoints on recent kernels), or every syscall; scheduling and task
 * events; switch records for flows; the epoll calls (IPCPERF_EV_WAITS) for
 * flows and recordings; kernel-counted scheduling totals unless
 * there is a running view. Pure. Since 0.2.
 * @return the enum ipcperf_event_set bits (> 0); -EINVAL (bad sz).
 */
IPCPERF_API int ipcperf_stats__events(const struct ipcperf_stats_events_opts *opts);

/**
 * The name the accounting knows for process @p pid (its
 * ipcperf_proc_row.comm), copied into @p buf (@p len bytes, NUL-terminated,
 * cut if short): of a target, read from /proc when attached (a command held
 * before its exec still has its parent's); each exec renames it (the file's
 * base name); else the first name its events gave. Since 0.2.
 * @return 0; -ENOENT (no such process seen, or no name known yet); -EINVAL.
 */
IPCPERF_API int ipcperf_stats__proc_comm(struct ipcperf_stats *st, pid_t pid, char *buf,
					 size_t len);

/**
 * The process at the other end of what an fd of process @p pid refers to
 * (@p fd, as ipcperf_stats__on_call() and ipcperf_stats__on_every_call()
 * hand it), found as ipcperf_fd_row.peer_pid is, with its name copied into
 * @p comm (@p len bytes, may be 0): for strace -yy-like names. Among the
 * fds the accounting knows now (each call looks through them: its cost
 * grows with them), else among what /proc said before; with @p may_scan,
 * a peer not looked for yet is looked for in /proc at once, with every
 * other peer of the fds known now that is not (one scan of every
 * process's fds: milliseconds; later calls reuse the answers). Never for a
 * stats object that reads no /proc. Since 0.2.
 * @return the peer's pid (> 0); 0 when not known; -EINVAL.
 */
IPCPERF_API pid_t ipcperf_stats__fd_peer(struct ipcperf_stats *st, pid_t pid,
					 const struct ipcperf_fd_object *fd, bool may_scan,
					 char *comm, size_t len);

/* ------------------------------------------------------------------ */
/* Intervals: the deltas of a running session, tick by tick           */
/* ------------------------------------------------------------------ */

/**
 * A session cut into consecutive intervals (ipcperf stat -I): for each, the
 * accounting of what happened in it, the counters' deltas and the records
 * read, lost and left unpaired in it. Summed over the intervals, every count
 * equals the session's totals (a counter's deltas telescope to its last
 * read). Since 0.2.
 */
struct ipcperf_interval;

struct ipcperf_interval_opts {
	size_t sz;
	/** Syscall rows per thread, as ipcperf_stats_opts.per_thread. */
	bool per_thread;
	/**
	 * Target processes whose counters are read on their own (with their
	 * children), as ipcperf_session__read_counters() takes them; pid 0 (all
	 * targets) is always read. Copied.
	 */
	const pid_t *pids;
	size_t nr_pids;
	/**
	 * Fold exited processes into the rows of their comms, as
	 * ipcperf_stats_opts.fold_exited: a row's folded counts the processes
	 * folded during the interval. Since 0.2.
	 */
	bool fold_exited;
	/**
	 * Fold the rows of closed connections into their groups, as
	 * ipcperf_stats_opts.fold_conns: an interval's fold
	 * (ipcperf_stats__for_each_fd_fold()) counts the rows folded during
	 * it, and the calls in the interval of every row folded so far.
	 * Since 0.3.
	 */
	bool fold_conns;
};

/** What one interval covered. */
struct ipcperf_interval_info {
	size_t sz;
	uint64_t start_ns;	/**< the end of the interval before, or the session's start */
	uint64_t end_ns;	/**< as given to ipcperf_interval__close(), never before start_ns */
	uint64_t time_ns;	/**< from the session's start to end_ns */
	uint64_t lost;		/**< records lost in the interval */
	uint64_t unpaired;	/**< syscalls left unpaired (enter or exit) in the interval */
	uint64_t records;	/**< ring records read in the interval */
};

/**
 * Intervals of @p s, which has not started: makes an ipcperf_stats of its own
 * and attaches it (after whatever the caller attached before, in that order).
 * Delete the session first. The first interval starts with the session.
 * @return it, freed with ipcperf_interval__delete(); NULL with errno: EINVAL,
 *   EBUSY (the session started), ENOMEM.
 */
IPCPERF_API struct ipcperf_interval *ipcperf_interval__new(struct ipcperf_session *s,
							   const struct ipcperf_interval_opts *opts);
/** Accepts NULL. */
IPCPERF_API void ipcperf_interval__delete(struct ipcperf_interval *iv);

/**
 * End the current interval at @p end_ns (CLOCK_MONOTONIC; the stop's time
 * for the last one): read the session's counts and the counters now, and
 * keep their differences from the end of the interval before. Fills
 * @p info (may be NULL; its sz set by the caller). Then read the interval
 * with ipcperf_interval__stats() and ipcperf_interval__counters(), and start
 * the next with ipcperf_interval__next() before feeding the session again.
 * @return 0; -EINVAL.
 */
IPCPERF_API int ipcperf_interval__close(struct ipcperf_interval *iv, uint64_t end_ns,
					struct ipcperf_interval_info *info);

/**
 * The accounting of the current interval (all fds and processes seen since
 * the start are kept, with zero counts when idle in it); owned by @p iv.
 */
IPCPERF_API struct ipcperf_stats *ipcperf_interval__stats(const struct ipcperf_interval *iv);

/**
 * The counters' deltas over the closed interval of target @p pid (0: all
 * targets) into @p vals (IPCPERF_CNT__MAX entries): values, enabled and
 * running times, for the counters IPCPERF_CNT_OK at both ends; the others as
 * last read.
 * @return 0; -EBUSY (not closed); -ENODATA (the session counts nothing);
 *   -ESRCH (@p pid not given at new); -EINVAL.
 */
IPCPERF_API int ipcperf_interval__counters(const struct ipcperf_interval *iv, pid_t pid,
					   struct ipcperf_counter_value *vals);

/**
 * Start the next interval after a closed one: zero the accounting (what fds
 * are is kept) and take the counters' last read as the new baseline (a
 * multiplexed value that dipped keeps the highest, so no rise counts twice).
 * Accepts NULL; does nothing unless closed.
 */
IPCPERF_API void ipcperf_interval__next(struct ipcperf_interval *iv);

/* ------------------------------------------------------------------ */
/* IPC flows: who feeds whom, wire time, occupancy, backpressure       */
/* ------------------------------------------------------------------ */

/** Who holds a flow back. The rule is in ipcperf_flows__new()'s documentation. */
enum ipcperf_verdict {
	IPCPERF_VERDICT_BALANCED = 0,
	IPCPERF_VERDICT_BACKPRESSURE,		/**< writers wait on a full channel: the consumer is slow */
	IPCPERF_VERDICT_CONSUMER_STARVED,	/**< readers wait on an empty channel: the producer is slow */
	IPCPERF_VERDICT_IDLE,	/**< since 0.2: no byte was written or read (calls failed, or EOF) */
	/**
	 * Since 0.2: no traced process wrote into the flow, or none read from
	 * it, and bytes moved: one side's waits are unknown, so no verdict
	 * was measured.
	 */
	IPCPERF_VERDICT_UNMEASURED,
};

/** "balanced", "backpressure", "consumer-starved", "idle", "unmeasured"; static. */
IPCPERF_API const char *ipcperf_verdict_name(enum ipcperf_verdict v);

/**
 * One channel, one direction: a pipe (or FIFO), or the data going from one
 * socket end to its peer (a socketpair carries two flows, one each way).
 */
struct ipcperf_flow {
	/**
	 * "pipe:[123]", or the writing end "socket:[456]"; since 0.2, the
	 * reading end when the writing end is not known (a TCP peer that is
	 * not traced): ino is then 0.
	 */
	const char *object;
	enum ipcperf_fd_kind kind;	/**< PIPE, UNIX, TCP, UDP */
	uint64_t ino;			/**< pipe inode, or the writing socket's inode (0: not known) */
	uint64_t reader_ino;		/**< the reading end's inode (== ino for a pipe) */
	bool datagram;			/**< messages are matched one by one, not byte by byte */
	const pid_t *writers;		/**< processes that wrote, ascending */
	size_t nr_writers;
	const pid_t *readers;		/**< processes that read, ascending */
	size_t nr_readers;
	uint64_t writes, reads;		/**< successful calls */
	uint64_t bytes_written;
	uint64_t bytes_read;		/**< the flow's "bytes": what came out */
	uint64_t unmatched_bytes;	/**< bytes read that no traced write put in (written before the capture) */
	uint64_t matches;		/**< (write, read) pairs that shared bytes */
	struct { uint64_t min, p50, p99, max; } wire_ns;	/**< write's start to read's end, per match (>= 1) */
	int64_t capacity;		/**< bytes, -1 unknown */
	bool capacity_default;		/**< the system default, not read from the channel */
	uint64_t max_queued;		/**< most bytes in the channel at once (written - read) */
	uint64_t full_ns;		/**< time at or above 90% of capacity */
	uint64_t writer_blocked_ns;	/**< writers asleep inside writes on this channel */
	uint64_t reader_blocked_ns;	/**< readers asleep inside reads on this channel */
	enum ipcperf_verdict verdict;
	uint64_t first_ns, last_ns;
	/** The wire times (ns) of the matches as a distribution (for buckets); since 0.2. */
	const struct ipcperf_hist *wire_hist;
	/**
	 * Since 0.2: where the flow sits along its chain, its writers' depth: 0
	 * when they read no traced flow, else one more than the deepest writer
	 * feeding them (`a | b | c`: a -> b is 0, b -> c is 1). A cycle (a client
	 * and a server talking both ways) is cut at its smallest pid.
	 */
	unsigned stage;
	/**
	 * Since 0.2, non-blocking ends: writes refused with EAGAIN (the channel
	 * was full) and reads that found it empty (EAGAIN).
	 */
	uint64_t write_again, read_again;
	/**
	 * Since 0.2, event loops (IPCPERF_EV_WAITS): the time asleep in
	 * waits (epoll, poll, select) that ended with this channel ready, and
	 * how many such waits. A wait that returned ready fds is put on each
	 * fd of its set (for poll, select and an epoll fd made before the
	 * capture: any fd) that its thread then reads, or writes after a write
	 * on it was refused (EAGAIN) or while its channel was full during the
	 * wait, first before its next wait: the reader waited for bytes, the
	 * writer for room.
	 */
	uint64_t write_wait_ns, read_wait_ns;
	uint64_t write_waits, read_waits;
	/**
	 * Since 0.3, each side's pace: the span of its successful calls (the
	 * first one's start to the last one's end) over their number, in ns; 0
	 * with no such call.
	 */
	uint64_t write_pace_ns, read_pace_ns;
	/**
	 * Since 0.3, the queue residence: the median wire time (wire_ns.p50)
	 * over the slower side's pace, how many of its calls the bytes waited
	 * in the channel; 0 when it is not counted: fewer than 8 reads, a
	 * median under 1 ms, or writers that met a full channel (asleep 1 ms
	 * or more, or refused), whose W and R say who held whom. Bytes that wait for many of the
	 * reader's reads in a channel deep enough that the writers never
	 * wait show the consumer is slow (the verdict rule).
	 */
	double queue_residence;
	/**
	 * Since 0.3: a verdict near its line. When the ratio the verdict rule
	 * weighs (W / R, R / W, or queue_residence; the line is 2) lies
	 * within a factor of 1.25 of the line (1.6 to 2.5), @p marginal is
	 * the verdict that ratio points to (backpressure or consumer-starved,
	 * whichever side of the line it is on) and @p margin the ratio;
	 * otherwise BALANCED and 0.
	 */
	enum ipcperf_verdict marginal;
	double margin;
	/**
	 * Since 0.3: the verdict (backpressure), or the marginal one, comes
	 * from the queue residence, not from the time the sides waited.
	 */
	bool by_queue;
	/**
	 * Since 0.3, TCP and UDP: the server's address of the channel
	 * ("127.0.0.1:8080"), what its connections are grouped by: since
	 * 0.3, the local address of an accepted end, the remote one of a
	 * connected end; when the flow's first call was on an end whose
	 * accept or connect was not seen, the address of the lower port of
	 * its two ends. "" for the other kinds, or when the addresses are
	 * not known.
	 */
	const char *endpoint;
	/**
	 * Since 0.3: 0 for a channel's own flow; else this is a fold, the
	 * flows of that many closed channels of one group (the same writers,
	 * readers, kind, datagram and endpoint) added up: its counts, bytes,
	 * times and refusals their sums, max_queued the largest, first_ns the
	 * earliest and last_ns the latest, wire_hist their merged wire times,
	 * capacity theirs or -1 when they differ, object and inodes its first
	 * flow's, and @p folded_verdicts how many of them had each verdict
	 * (enum ipcperf_verdict); its own verdict is judged from its sums.
	 * ipcperf_flows__new() says when channels fold.
	 */
	uint64_t folded;
	uint64_t folded_verdicts[IPCPERF_VERDICT_UNMEASURED + 1];
	/**
	 * Since 0.3, a fold whose flows had a side no traced process made a
	 * call on (nr_writers or nr_readers 0): the process at that side, as
	 * the fd row of their traced end named it (ipcperf_fd_row.peer_pid
	 * and peer_comm of the row whose ino is reader_ino when no traced
	 * process wrote, else ino), 0 and "" when not known; part of the
	 * fold's group. 0 and "" for a channel's own flow (its row names that
	 * side) and for a fold of flows traced at both sides.
	 */
	pid_t untraced_pid;
	const char *untraced_comm;
};

/**
 * Since 0.2: a process that the flows around it wait on. It is one when a
 * flow into it is held back (backpressure: its writers wait to write into
 * it) or a flow out of it starves (consumer-starved: its readers wait for
 * it), and it does not wait itself: no flow into it starves and no flow out
 * of it is held back. In `a | b | c` with a slow b, b is the bottleneck.
 */
struct ipcperf_bottleneck {
	pid_t pid;
	/** The writer that waits the longest to write into it, 0 if none; and the writers' time asleep on its held-back input flows. */
	pid_t waits_to_write;
	uint64_t write_wait_ns;
	/** The reader that waits the longest for it, 0 if none; and the readers' time asleep on its starved output flows. */
	pid_t waits_to_read;
	uint64_t read_wait_ns;
	/**
	 * Since 0.3: the longest median wire time of its input flows held
	 * back by their queue (verdict by_queue: the bytes, not the writers,
	 * wait for it), 0 if none.
	 */
	uint64_t queue_wait_ns;
};

/** One write whose bytes one read took out (all or part of them). */
struct ipcperf_flow_match {
	const char *object;		/**< the flow's object */
	pid_t wpid, wtid, rpid, rtid;
	uint64_t write_start_ns, write_end_ns;
	uint64_t read_start_ns, read_end_ns;
	uint64_t bytes;			/**< bytes of that write taken by that read */
	uint64_t queued;		/**< bytes left in the channel after the read */
};

struct ipcperf_flows;

/**
 * Flow correlation over the syscalls of @p st's process (it supplies what
 * each fd is). Pure: no I/O of its own.
 *
 * Verdict rule: over the flow's whole life, writers' blocked time W (asleep
 * inside writes: a blocking write sleeps only on a full channel) and
 * readers' blocked time R (asleep inside reads: only on an empty one).
 * idle when no byte was written into the flow or read out of it; else
 * backpressure when W > 2R and W >= 1 ms; consumer-starved when R > 2W and
 * R >= 1 ms; else backpressure when the queue residence is over 2 (the
 * bytes waited in the channel for more than two of the slower side's
 * calls: a slow reader behind a deep buffer); balanced otherwise (then,
 * with non-blocking ends, the refusals and the full channel:
 * doc/accuracy.md). A ratio within 1.25x of its line of 2 is marginal
 * (struct ipcperf_flow, marginal); a marginal flow makes no bottleneck.
 * A flow that no traced process wrote into, or none read from, is
 * unmeasured unless idle: the other side's time is not known. A read on a socket
 * whose peer is not known (a TCP connection whose other end is not
 * traced) still makes a flow, keyed by the reading end, so that both
 * directions of a traced side are reported.
 *
 * Memory (since 0.3): once more than 4096 flows are kept (then twice
 * those left after the last pass, plus 4096), the flows of the closed
 * channels fold into their groups (struct ipcperf_flow, folded): a channel
 * is closed when no fd of a traced process holds either of its ends and no
 * call on it waits to be matched; its reads still waiting for their write
 * count as unmatched bytes. A flow with a side that made no call since the
 * last reset (a side not traced) folds too, with the process its traced
 * end's fd row names as its peer in its group (ipcperf_flow.untraced_pid,
 * since 0.3): while such a flow is kept, @p st keeps that row from folding
 * into its group (ipcperf_stats_opts.fold_conns), so that it still names
 * the peer. So a tracer left on a server keeps its open channels and its
 * groups, and a run of a few thousand channels keeps every flow, as before.
 * Delete the flows before @p st.
 * @return flows state freed with ipcperf_flows__delete(); NULL with errno.
 */
IPCPERF_API struct ipcperf_flows *ipcperf_flows__new(struct ipcperf_stats *st);
/** Accepts NULL. */
IPCPERF_API void ipcperf_flows__delete(struct ipcperf_flows *fl);

/**
 * Feed @p fl from @p s. Attach the stats object given to ipcperf_flows__new()
 * first: each event must reach the stats before the flows.
 * @return 0; -EBUSY once started.
 */
IPCPERF_API int ipcperf_flows__attach(struct ipcperf_flows *fl, struct ipcperf_session *s);

/** Feed one syscall by hand, after ipcperf_stats__add_syscall() got it. */
IPCPERF_API void ipcperf_flows__add_syscall(struct ipcperf_flows *fl, const struct ipcperf_syscall *ev);

/**
 * Call @p cb for every match as it is made (for timelines). Data lives only
 * during the call. @return 0.
 */
IPCPERF_API int ipcperf_flows__on_match(struct ipcperf_flows *fl,
					void (*cb)(void *ctx, const struct ipcperf_flow_match *m),
					void *ctx);

/**
 * Call @p cb for each flow with data, ordered by first activity. Flows live
 * only during the call. A non-zero return stops the walk and is returned.
 * Calls wait inside @p fl until what their fd is has been settled (some tens
 * of ms of events); this settles all of them as of now, so call it after
 * ipcperf_session__stop() for the complete picture.
 */
IPCPERF_API int ipcperf_flows__for_each(struct ipcperf_flows *fl,
					int (*cb)(void *ctx, const struct ipcperf_flow *f), void *ctx);

/**
 * Like ipcperf_flows__for_each(), but settling nothing: calls whose fd is
 * not settled yet go on waiting and are left out of the flows given, which
 * are so some tens of ms of events behind. For views of a running session
 * (live metrics), which a later walk must never contradict: forcing calls
 * through would report as "unknown" what is about to be known. Since 0.2.
 */
IPCPERF_API int ipcperf_flows__for_each_settled(struct ipcperf_flows *fl,
						int (*cb)(void *ctx, const struct ipcperf_flow *f),
						void *ctx);

/**
 * Call @p cb for each bottleneck of the flows (struct ipcperf_bottleneck),
 * by depth along the chains (the stage of the flows it writes), then pid,
 * over the same flows as ipcperf_flows__for_each(). The data lives for the
 * call. Since 0.2.
 * @return 0, the first non-zero value @p cb returned, or -EINVAL / -ENOMEM.
 */
IPCPERF_API int ipcperf_flows__for_each_bottleneck(struct ipcperf_flows *fl,
						   int (*cb)(void *ctx,
							     const struct ipcperf_bottleneck *b),
						   void *ctx);

/**
 * Since 0.3: end an interval of @p fl and start the next (ipcperf flows
 * -I): zero what each flow counts (its calls, bytes, unmatched bytes,
 * matches and wire times, blocked and epoll times, refusals, time full,
 * paces, and its writers and readers) and keep what the matching carries
 * on (the bytes queued and the reads still waiting for their write, the
 * capacity). The walks then give only the flows with a call since, with
 * what happened since, judged by the same rule: max_queued counts from
 * the bytes queued at the reset, first_ns and last_ns are those of their
 * calls since, and a side whose traced processes made no call since is an
 * empty list (a flow stays measured once both sides were traced).
 * unmatched_bytes counts the reads waiting for their write as of the walk.
 * A call counts in the interval whose walk finds it processed: walk with
 * ipcperf_flows__for_each_settled() while the session runs (calls whose fd
 * is not settled yet go into the next interval), and with
 * ipcperf_flows__for_each() after ipcperf_session__stop(). Summed over the
 * intervals, the calls, bytes, matches, blocked and epoll times and
 * refusals equal those of a flows object fed the same and never reset.
 * To have both, feed two objects (over the same stats) and reset one.
 * The folds (struct ipcperf_flow, folded) hold the flows folded during the
 * interval: they are freed at the reset.
 * Accepts NULL.
 */
IPCPERF_API void ipcperf_flows__reset(struct ipcperf_flows *fl);

/* ------------------------------------------------------------------ */
/* Request paths: each request followed from process to process        */
/* ------------------------------------------------------------------ */

/**
 * One hop of a request: the process that served it (its *server span*)
 * and the exchange its caller made with it over a stream channel.
 *
 * On a stream socket an *exchange* is a request (bytes one way) and its
 * response (the bytes back): turn-taking delimits the messages. The caller
 * is the end that connected (the server the end a listener accepted); of a
 * connection made before the capture, or a socket pair, the side that wrote
 * first. A process holds a request from the read
 * that took its first byte to the write that completed its response. The
 * exchanges it makes on other channels while it holds the request are the
 * hops under it (their @p parent is its index). The times of one hop nest:
 * call_start_ns <= start_ns <= end_ns <= call_end_ns, and a hop's calls lie
 * in its span; so along a chain of single calls, a request's end-to-end
 * time is the sum over its hops of request_ns + self_ns + response_ns.
 *
 * A pipeline (src | a | b | sink) is one way: on a pipe a message is one
 * write call's bytes, and a thread that took its first byte passes it on
 * with the next write it makes on a pipe. Its path is a chain: hop k (of
 * kind IPCPERF_FD_PIPE) is the reader of the k-th message, its parent hop
 * k - 1; start_ns is the end of the read that took the message's last
 * byte, end_ns the start of the write that passed it on (the last stage,
 * the sink: start_ns), call_end_ns = end_ns, no response (response_bytes
 * and response_ns 0). A hop follows its parent's span rather than nesting
 * in it, and the sum above still holds.
 * Since 0.2.
 */
struct ipcperf_path_hop {
	int parent;		/**< index of the calling hop in ipcperf_path.hops; -1: the originator */
	pid_t pid, tid;		/**< the server: its process, the thread that read the request's first byte */
	const char *comm;	/**< its process's name ("" when not known) */
	int fd;			/**< the server's fd of the channel; -1 when not known */
	pid_t caller_pid, caller_tid;	/**< who wrote the request's first byte */
	int caller_fd;		/**< the caller's fd of the channel */
	enum ipcperf_fd_kind kind;	/**< the channel: IPCPERF_FD_UNIX, _TCP, or _PIPE (a pipeline) */
	uint64_t request_bytes, response_bytes;
	uint64_t call_start_ns;	/**< the caller's write of the request's first byte began */
	uint64_t start_ns;	/**< the server's read of the request's first byte ended */
	uint64_t end_ns;	/**< the server's write that completed the response ended */
	uint64_t call_end_ns;	/**< the caller's read of the response's last byte ended */
	uint64_t request_ns;	/**< start_ns - call_start_ns: the request in the channel */
	uint64_t response_ns;	/**< call_end_ns - end_ns: the response in the channel */
	/**
	 * The span (end_ns - start_ns) less the time of its calls to the next
	 * hops (their union): the server's own time for the request.
	 */
	uint64_t self_ns;
	/**
	 * When @p split: self_ns divided, exactly, into the time the thread
	 * that held the request ran, waited to run (runnable, not running) and
	 * was blocked, from the scheduler's switches and wakeups. Split only
	 * when the session's events are CPU-wide (IPCPERF_EV_SCHED, the
	 * default scope as root, or -a), which see a thread switched in from
	 * any other; per task (a capture, no CPU-wide rights) a switch-in
	 * from another process is not seen: false, all 0.
	 */
	bool split;
	uint64_t cpu_ns, runq_ns, blocked_ns;
	/**
	 * The hosts of the server and of the caller: 0, the first, or the
	 * index ipcperf_paths__add_host() gave (captures joined). A hop whose
	 * two hosts differ has its channel times (request_ns, response_ns) on
	 * two clocks: they are as right as the offset's uncertainty
	 * (ipcperf_paths__clock()). Since 0.3.
	 */
	unsigned int host, caller_host;
};

/**
 * A completed request: its originator (a process that made the exchange
 * without holding a request of its own) and the hops it went through,
 * depth first from the first server (hops[0]). Since 0.2.
 */
struct ipcperf_path {
	pid_t pid, tid;		/**< the originator */
	const char *comm;	/**< its name ("" when not known) */
	int fd;			/**< its fd of the channel to hops[0] */
	uint64_t start_ns;	/**< its write of the request's first byte began (hops[0].call_start_ns) */
	/**
	 * Its read of the response's last byte ended (hops[0].call_end_ns); of
	 * a pipeline, the sink's read of the message's last byte ended (the
	 * last hop's call_end_ns).
	 */
	uint64_t end_ns;
	const struct ipcperf_path_hop *hops;
	size_t nr_hops;
	unsigned int host;	/**< the originator's host (ipcperf_path_hop.host). Since 0.3. */
};

/** What the paths made of the requests they saw (ipcperf_paths__stats()). Since 0.2. */
struct ipcperf_paths_stats {
	size_t sz;
	uint64_t paths;		/**< completed requests handed to the callback */
	/** Requests not attributed, by reason (none is guessed): */
	uint64_t no_response;	/**< no response came back before the end (or the channel closed) */
	uint64_t untraced_hop;	/**< a request that no traced process read (a server not traced) */
	uint64_t unread;	/**< a response whose bytes the caller did not all read */
	/**
	 * An exchange a serving process made that no request it held explains:
	 * an event loop's write in a turn without a request read, a worker's
	 * call for a request handed to it without a wakeup (it was not asleep).
	 */
	uint64_t no_cause;
	uint64_t lost;		/**< requests that were under way when events were lost */
	/**
	 * Requests one of whose calls returned so long after it happened (a
	 * write's start, a read's end: more than 20 ms of events later) that
	 * the turns of its connection were already taken without it.
	 */
	uint64_t late;
	/**
	 * Pipelined requests (written in separate calls before their answers)
	 * whose answers cannot be told apart: the server answered several of
	 * them in one write, so which answer is whose is not known.
	 */
	uint64_t pipelined;
	/**
	 * Pipe chains whose messages a stage merged (took several before it
	 * wrote one: stdio's buffers, a read that took several) or split (wrote
	 * several, or wrote before it had the whole message): one message in,
	 * one out is the rule, so these are not followed. Since 0.2.
	 */
	uint64_t merged, split;
	/**
	 * Captures joined (ipcperf_paths__add_host()): TCP connections seen
	 * from two hosts and matched (one channel); those seen from two hosts
	 * of which a capture did not see the start (no accept or connect in
	 * it), left unmatched, as their bytes cannot be told by offset; and
	 * the ends of TCP connections to another host that no capture holds
	 * (a host not recorded, or addresses rewritten on the way: NAT), left
	 * one-sided. Since 0.3.
	 */
	uint64_t tcp_joined, tcp_unseen_start, tcp_no_peer;
	/**
	 * Requests a traced server read from a client that is not traced: the
	 * turns of reading of an accepted connection none of whose bytes came
	 * from a traced write (trace the clients too to follow them). Since 0.3.
	 */
	uint64_t untraced_client;
};

/**
 * A joined host's clock against the first host's (ipcperf_paths__clock()):
 * bounded by the exchanges themselves, as NTP does. The bytes a host wrote
 * were read on the other after the write began: the reader's clock less the
 * writer's is at most the read's end less the write's start. Over every
 * byte matched in both directions, the tightest bounds give [lo_ns, hi_ns].
 * When they cross (lo_ns > hi_ns), no single offset fits every exchange:
 * the clock drifts, and the line of a steady drift that fits the bounds
 * over time is taken instead (drifting). Since 0.3.
 */
struct ipcperf_paths_clock {
	size_t sz;
	/** Bounded from both sides (bytes went each way between the hosts, or a chain of hosts). */
	bool known;
	/**
	 * Bounded, but neither one offset nor a steady drift fits every
	 * exchange (or the bounds do not tell the drift's rate); not known then.
	 */
	bool inconsistent;
	/**
	 * The host's clock less the first host's still left in the times the
	 * paths were given (after the clock given to ipcperf_paths__add_host()
	 * or ipcperf_paths__host_clock()): the middle of the bounds, true within
	 * +- uncertainty_ns. Drifting: the offset at ref_ns.
	 */
	int64_t offset_ns;
	uint64_t uncertainty_ns;
	int64_t lo_ns, hi_ns;	/**< the bounds of one offset */
	uint64_t exchanges;	/**< the byte matches between hosts that bounded them */
	/**
	 * The bounds crossed, and a clock that drifts fits them: the offset is
	 * offset_ns at ref_ns (the first host's clock, the middle of the
	 * exchanges' span) and changes by drift_ppb ns each second of that clock
	 * (parts per billion); uncertainty_ns is the most the true offset can be
	 * from that line, at either end of the span, over every line that fits.
	 */
	bool drifting;
	int64_t drift_ppb;
	uint64_t ref_ns;
};

struct ipcperf_paths;

/**
 * Request paths over @p fl's byte matching (and its stats' fd identities):
 * ipcperf_path_hop tells the model. Rules of causality: a thread that read
 * a request, or a response of an exchange it made for one, holds that
 * request; an exchange it then starts belongs to the request it holds. The
 * thread's time is cut at each return of a wait (epoll, poll, select): an
 * exchange started in a later turn than the read that made the thread hold
 * a request is not that request's (an event loop). A thread that read a
 * request and then, in that turn, wakes another thread of its process hands
 * the request to it, once (a worker pool). Pure: no I/O of its own.
 * @return paths state freed with ipcperf_paths__delete() (before @p fl);
 *   NULL with errno (EINVAL, ENOMEM). One paths object a flows object.
 */
IPCPERF_API struct ipcperf_paths *ipcperf_paths__new(struct ipcperf_flows *fl);
/** Accepts NULL. */
IPCPERF_API void ipcperf_paths__delete(struct ipcperf_paths *p);

/**
 * Feed @p p from @p s (its waits, connects and closes, and the targets'
 * switches and wakeups for the hand-offs and the self time split; the
 * bytes come through the flows): attach after the stats and the flows. The session needs
 * IPCPERF_EV_WAITS for event loops and IPCPERF_EV_SCHED for worker pools
 * and the split; attached, the session also opens sched_waking and keeps
 * the idle task's and its own sched_switch and sched_wakeup records (for
 * @p p only). @return 0; -EINVAL; -EBUSY once started.
 */
IPCPERF_API int ipcperf_paths__attach(struct ipcperf_paths *p, struct ipcperf_session *s);

/** Feed one syscall by hand (after the stats and the flows got it). */
IPCPERF_API void ipcperf_paths__add_syscall(struct ipcperf_paths *p, const struct ipcperf_syscall *ev);

/**
 * Call @p cb for each completed request, when it completes: an exchange is
 * complete once its caller starts the next one on that channel, or at
 * ipcperf_paths__flush(). The path lives only during the call. @return 0; -EINVAL.
 */
IPCPERF_API int ipcperf_paths__on_path(struct ipcperf_paths *p,
				       void (*cb)(void *ctx, const struct ipcperf_path *path),
				       void *ctx);

/**
 * After ipcperf_session__stop(): settle the flows' last calls, complete
 * every exchange whose response came, hand out the paths, count the rest.
 * @return 0; -EINVAL.
 */
IPCPERF_API int ipcperf_paths__flush(struct ipcperf_paths *p);

/**
 * Join the events of another host to @p p (made on the first host's flows
 * and attached to its session): @p fl, over that host's own stats, and
 * @p s, that host's session (a capture of it), attached after the stats
 * and the flows, as ipcperf_paths__attach() is. Each host's pids, tids,
 * fds and sockets are its own: a path's hops say their host. Its times are
 * taken less @p clock_offset_ns (its CLOCK_MONOTONIC less the first
 * host's), so that they are on the first host's clock: feed the sessions
 * in that order of times (ipcperf_session__consume_until()). A TCP
 * connection seen from two hosts (one's local address and port the
 * other's remote ones, both sides' accept or connect in the captures) is
 * one channel: its bytes are matched by offset in each direction, and
 * bound the hosts' clocks (ipcperf_paths__clock()).
 * @return the host's index (1, 2, ...); -EINVAL (NULL, @p fl is the first
 *   host's); -ENOMEM (also past 63 hosts); the errors of
 *   ipcperf_session__add_handlers(). Since 0.3.
 */
IPCPERF_API int ipcperf_paths__add_host(struct ipcperf_paths *p, struct ipcperf_flows *fl,
					struct ipcperf_session *s, int64_t clock_offset_ns);

/**
 * Set joined host @p host's clock against the first host's to a line:
 * its times are taken less @p offset_ns and less @p drift_ppb ns for each
 * second they are after @p ref_ns (on its own clock), before its events
 * are fed; in place of the offset given to ipcperf_paths__add_host().
 * @return 0; -EINVAL (NULL, no such host, host 0). Since 0.3.
 */
IPCPERF_API int ipcperf_paths__host_clock(struct ipcperf_paths *p, unsigned int host,
					  int64_t offset_ns, int64_t drift_ppb, uint64_t ref_ns);

/**
 * Host @p host's clock against the first host's, as the exchanges between
 * them bound it so far (struct ipcperf_paths_clock; its sz set by the
 * caller). Host 0, and a host with no byte matched both ways: not known.
 * @return 0; -EINVAL (NULL, no such host, no host joined). Since 0.3.
 */
IPCPERF_API int ipcperf_paths__clock(const struct ipcperf_paths *p, unsigned int host,
				     struct ipcperf_paths_clock *out);

/** One end of a flow joined across hosts (struct ipcperf_joined_flow). Since 0.3. */
struct ipcperf_joined_end {
	unsigned int host;	/**< 0, the first host, or the index ipcperf_paths__add_host() gave */
	pid_t pid;		/**< the process of the first match there, as its host knows it */
	const char *comm;	/**< its name ("" when not known) */
	int fd;			/**< its fd of the socket (-1 when not known) */
	uint64_t ino;		/**< the socket's inode on its host */
};

/**
 * One direction of a TCP connection seen from two hosts and joined
 * (ipcperf_paths__add_host()): the bytes its writing end's host wrote
 * that the other host read, matched by offset. Since 0.3.
 */
struct ipcperf_joined_flow {
	const char *object;	/**< the writing end's addresses, "192.0.2.1:41000 -> 192.0.2.2:8080" */
	struct ipcperf_joined_end writer, reader;
	/** Written at one end and read at the other: what both ends agree on. */
	uint64_t bytes;
	uint64_t matches;	/**< (write, read) pairs that shared bytes */
	/**
	 * Per match, the write's start to the end of the read that took its
	 * bytes, across the two hosts' clocks as the offsets given to
	 * ipcperf_paths__add_host() put them: right within the uncertainty of
	 * those offsets (ipcperf_paths__clock(): the two hosts' added up when
	 * neither is the first). A read that ends before its write began on
	 * those clocks counts 0: never negative.
	 */
	struct { uint64_t min, p50, p99, max; } wire_ns;
	const struct ipcperf_hist *wire_hist;	/**< the same, as a distribution */
	uint64_t first_ns;	/**< the first matched write's start (the first host's clock) */
	uint64_t last_ns;	/**< the last matched read's end */
};

/**
 * Call @p cb for each direction of each TCP connection joined across the
 * hosts so far (struct ipcperf_joined_flow), by first write. Call it after
 * ipcperf_paths__flush() for the whole captures. The data lives for the
 * call; a non-zero return of @p cb stops the walk and is returned. With no
 * host joined there is none. Since 0.3.
 * @return 0, what @p cb returned, -EINVAL (NULL), -ENOMEM.
 */
IPCPERF_API int ipcperf_paths__for_each_joined(const struct ipcperf_paths *p,
					       int (*cb)(void *ctx,
							 const struct ipcperf_joined_flow *f),
					       void *ctx);

/** The counts so far into @p out (its sz set by the caller). @return 0; -EINVAL. */
IPCPERF_API int ipcperf_paths__stats(const struct ipcperf_paths *p, struct ipcperf_paths_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* IPCPERF_IPCPERF_H */
