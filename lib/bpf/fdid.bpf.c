/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fd identity in the kernel: at the exit of every call that makes an fd,
 * what the fd is, read from the kernel's own structures
 * (current->files->fdt->fd[fd]) and written as a struct ipp_fdid_rec into
 * the bpf-output event of the CPU, whose samples go into the session's ring
 * of that CPU. See lib/bpf/README.md.
 *
 * The programs are BTF tracepoint programs (tp_btf/...), each attached by
 * a BPF link: no perf event of ours on any tracepoint (closing one took
 * the kernel 30-70 ms). They run for every hit of their tracepoint on the
 * machine: the sys_exit ones first look up what the call is (fd_calls,
 * want: an array, inlined) and then whether the caller is a target (the
 * targets map, or trace_all); a BTF tracepoint's return value drops no
 * one's samples.
 *
 * Arguments sys_exit does not carry (the fd of read(), the int[2] of
 * pipe()) come from the task's saved user registers, which the kernel
 * leaves as they were at entry: no sys_enter program, no per-thread map.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>
#include "fdid-rec.h"
#include "call-rec.h"
#include "sched-rec.h"

/*
 * The kernel loads programs that use bpf_probe_read_kernel() and
 * bpf_perf_event_output() only under a GPL-compatible license string; this
 * file is LGPL-2.1-or-later, which may be used under the GPL (LGPL 2.1,
 * section 3).
 */
char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before loading. */
const volatile bool trace_all = false;	/* every task is a target: no map lookup */
const volatile bool follow_forks = true;	/* a target's new process is a target */
const volatile bool io_records = false;	/* recvmsg also writes its IO record */
const volatile __u32 page_size = 4096;
/* Pair each wanted call in the kernel and write one call record at its exit. */
const volatile bool pair_calls = false;
/* ... with the time it spent switched out (sched_switch). */
const volatile bool pair_switches = false;
/* Count each target thread's switches and wakeups in the kernel (sched_tot). */
const volatile bool count_sched = false;
const volatile __u32 exclude_tgid = 0;	/* with trace_all: the tracer's own calls are not paired */
/* Set by the loader at the end of a session: no more call records. */
volatile bool calls_stopped = false;
/* ... and no more counting of switches and wakeups: userspace reads sched_tot. */
volatile bool sched_stopped = false;
/* This architecture's exit and exit_group (the loader sets them): where a counter stops. */
const volatile long nr_exit = -1;
const volatile long nr_exit_group = -1;
/* rt_sigreturn (the loader sets it): its exit comes with no number (-1), the registers restored. */
const volatile long nr_rt_sigreturn = -1;
#if defined(__TARGET_ARCH_x86) || defined(__TARGET_ARCH_arm64)
const volatile bool can_pair = true;	/* the loader reads it: the call programs know the registers */
#else
const volatile bool can_pair = false;
#endif

#define S_IFMT 00170000
#define S_IFSOCK 0140000
#define S_IFIFO 0010000
#define PIPEFS_MAGIC 0x50495045
#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 10
#define F_DUPFD 0
#define F_DUPFD_CLOEXEC 1030
#define SOL_SOCKET 1
#define SCM_RIGHTS 1
#define EINPROGRESS 115

#define PATH_STEPS 40		/* dentries and mount crossings walked at most */
#define SCM_MAX_CMSGS 4		/* control messages looked at in one recvmsg */
#define SCM_MAX_FDS 16		/* fds taken from them */
#define FDS_SLOTS 64		/* scratch.fds: room for any index & FDS_MASK plus SCM_MAX_FDS */
#define FDS_MASK 31

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);	/* the loader may change it */
	__type(key, __u32);		/* tgid */
	__type(value, __u32);		/* 0 */
} targets SEC(".maps");

/*
 * Target values: 0 a target; TARGET_AT_EXEC a command not yet exec'd,
 * whose calls are not paired until it execs (as its tracepoint events
 * switch on at exec). The fd-creating programs look at presence only.
 */
#define TARGET_AT_EXEC 1

/* One bit per tgid that may be in targets (maybe_target()); the loader sets them too (mmapped). */
__u64 target_bits[IPP_FDID_TARGET_BITS / 64];

/* Syscalls to pair, by number (the loader sets them to 1). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IPP_FDID_MAX_NR);
	__type(key, __u32);
	__type(value, __u8);
} want SEC(".maps");

/*
 * What the sys_exit program does for each call, by number (enum
 * ipp_fdid_call_kind, the loader sets them): one BTF tracepoint program for
 * all, no perf event per tracepoint (each took the kernel 30-70 ms to close:
 * a perf tracepoint's last user waits for an RCU-tasks grace period).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IPP_FDID_MAX_NR);
	__type(key, __u32);
	__type(value, __u8);
} fd_calls SEC(".maps");

/*
 * call_exit, when the calls are paired: exit_fd, the one program attached
 * to sys_exit, ends in a tail call to it (the loader fills slot 0), so
 * that each call of the machine runs one program at its exit, not two,
 * and a call's fd records still come before its call record.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} exit_next SEC(".maps");

/*
 * Each target thread's call slot, in its task_struct (task-local storage:
 * a pointer away, where a hash map by tid costs a locked update and delete
 * per call). Made at the thread's first paired call, freed with the task.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ipp_call_slot);	/* fdid-rec.h */
} calls SEC(".maps");

/* One bpf-output event per CPU, by CPU number; the loader fills it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} fdid_out SEC(".maps");

struct scratch {
	struct ipp_fdid_rec rec;
	/* the path is built backwards, ending at PATH_END */
	char buf[2 * IPP_FDID_PATH_MAX];
	int fds[FDS_SLOTS];	/* the fds a call made (fd_exit()), SCM_RIGHTS's at most SCM_MAX_FDS */
	/*
	 * How fd_exit() emits them: here, not on its stack, so that the
	 * verifier sees one state at its bpf_loop(), whichever call it was.
	 */
	__u32 nfds;
	int what;	/* of each fd ... */
	int io_first;	/* ... but the first, an IO record */
};
#define PATH_END IPP_FDID_PATH_MAX

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IPP_FDID_NR_STATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/*
 * Each target thread's switches and wakeups, by tid (struct ipp_sched_slot).
 * A hash map, not task-local storage: userspace reads the threads still
 * alive at the end. A thread's entry goes at its exit, with its record.
 */
/*
 * The task each CPU switched to last, with its runtime then (exact: it was
 * not running) and the time: a running task's runtime now, which the
 * kernel updates only at ticks and switches, is that plus the time since.
 * A command's exec and a thread's exit call are counted so.
 */
struct oncpu {
	__u64 at_ns;
	__u64 runtime_ns;
	__u32 tid;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oncpu);
} oncpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* the loader sets it */
	__type(key, __u32);		/* tid */
	__type(value, struct ipp_sched_slot);
} sched_tot SEC(".maps");

/* What the kernel accounted to @p so far (the software counters' sources). */
static __always_inline void read_acct(struct task_struct *p, struct ipp_task_acct *a)
{
	a->runtime_ns = BPF_CORE_READ(p, se.sum_exec_runtime);
	a->faults = BPF_CORE_READ(p, min_flt) + BPF_CORE_READ(p, maj_flt);
	a->switches = BPF_CORE_READ(p, nvcsw) + BPF_CORE_READ(p, nivcsw);
	a->migrations = BPF_CORE_READ(p, se.nr_migrations);
}

/* What the kernel accounted to @p, the current task, up to now (its runtime: since its switch-in). */
static __always_inline void read_acct_now(struct task_struct *p, __u32 tid, struct ipp_task_acct *a)
{
	__u32 zero = 0;
	struct oncpu *o = bpf_map_lookup_elem(&oncpu, &zero);

	read_acct(p, a);
	if (o && o->tid == tid) {
		__u64 run = o->runtime_ns + (bpf_ktime_get_ns() - o->at_ns);

		if (run > a->runtime_ns)
			a->runtime_ns = run;
	}
}

/*
 * A counted thread calls exit or exit_group: what the kernel accounted to it
 * until now is its end, as a counter stops at about this point (before the
 * exit frees its memory); its last switch writes it.
 */
static __always_inline void sched_end_call(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ipp_sched_slot *t = bpf_map_lookup_elem(&sched_tot, &tid);

	if (!t || t->exited || t->ended)
		return;
	read_acct_now(task, tid, &t->end);
	t->ended = 1;
}

static __always_inline void count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		*v += 1;
}

/*
 * Whether @tgid may be a target: its bit in target_bits, a load and a
 * test, where the targets map costs a hashed lookup. Every syscall of the
 * machine asks: an untraced process leaves here. A bit is set before its
 * tgid enters the targets map and cleared after it leaves, so a clear bit
 * means "not a target"; a set one is checked in the map.
 */
/* @tgid's word in target_bits (@tgid < IPP_FDID_TARGET_BITS). */
static __always_inline __u32 target_word(__u32 tgid)
{
	__u32 w = tgid / 64;

	/* a no-op that clang may not fold away: the bound, for the verifier */
	asm volatile("" : "+r"(w));
	return w & (IPP_FDID_TARGET_BITS / 64 - 1);
}

static __always_inline bool maybe_target(__u32 tgid)
{
	if (trace_all || tgid >= IPP_FDID_TARGET_BITS)
		return true;
	return target_bits[target_word(tgid)] & (1ull << (tgid % 64));
}

static __always_inline void mark_target(__u32 tgid, bool on)
{
	if (tgid >= IPP_FDID_TARGET_BITS)
		return;
	if (on)
		__sync_fetch_and_or(&target_bits[target_word(tgid)], 1ull << (tgid % 64));
	else
		__sync_fetch_and_and(&target_bits[target_word(tgid)], ~(1ull << (tgid % 64)));
}

static __always_inline bool is_target(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (trace_all)
		return true;
	return maybe_target(tgid) && bpf_map_lookup_elem(&targets, &tgid);
}

/* A target whose calls are paired: not a command still before its exec (callers check calls_stopped). */
static __always_inline bool is_call_target(__u32 tgid)
{
	__u32 *v;

	if (trace_all)
		return tgid != exclude_tgid || !exclude_tgid;
	if (!maybe_target(tgid))
		return false;
	v = bpf_map_lookup_elem(&targets, &tgid);
	return v && *v != TARGET_AT_EXEC;
}

/* Argument @n (1-based) of the current syscall, from the saved user registers. */
static __always_inline unsigned long sc_arg(int n)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	switch (n) {
	case 1: return PT_REGS_PARM1_CORE_SYSCALL(regs);
	case 2: return PT_REGS_PARM2_CORE_SYSCALL(regs);
	case 3: return PT_REGS_PARM3_CORE_SYSCALL(regs);
	default: return PT_REGS_PARM4_CORE_SYSCALL(regs);
	}
}

/* The kernel's dev_t (major << 20 | minor) as stat(2) encodes it. */
static __always_inline __u64 user_dev(__u32 kdev)
{
	__u64 major = kdev >> 20, minor = kdev & 0xfffff;

	return (minor & 0xff) | ((major & 0xfff) << 8) | ((minor & ~0xffull) << 12) |
	       ((major & ~0xfffull) << 32);
}

static __always_inline struct file *fd_file(int fd, __u16 *flags)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *f = NULL;
	unsigned long *coe, word = 0;

	if (!fdt || fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	coe = BPF_CORE_READ(fdt, close_on_exec);
	bpf_probe_read_kernel(&word, sizeof(word), &coe[fd / 64]);
	if (word & (1ul << (fd % 64)))
		*flags |= IPP_FDID_F_CLOEXEC;
	return f;
}

/* Inode number of a socket's inode (0: the sock has no socket yet, an embryo). */
static __always_inline __u64 sock_ino(struct sock *sk)
{
	struct socket *sock = BPF_CORE_READ(sk, sk_socket);
	struct inode *inode;

	if (!sock)
		return 0;
	/* SOCK_INODE(): the inode follows the socket in struct socket_alloc */
	inode = (void *)sock - bpf_core_field_offset(struct socket_alloc, socket) +
		bpf_core_field_offset(struct socket_alloc, vfs_inode);
	return BPF_CORE_READ(inode, i_ino);
}

static __always_inline void sock_info(struct ipp_fdid_rec *r, struct file *f)
{
	struct socket *sock = BPF_CORE_READ(f, private_data);
	struct sock *sk = BPF_CORE_READ(sock, sk);

	r->type = (__u16)BPF_CORE_READ(sock, type);
	if (!sk)
		return;
	r->family = BPF_CORE_READ(sk, __sk_common.skc_family);
	r->state = BPF_CORE_READ(sk, __sk_common.skc_state);
	r->protocol = (__u16)BPF_CORE_READ_BITFIELD_PROBED(sk, sk_protocol);
	r->capacity = (__u32)BPF_CORE_READ(sk, sk_sndbuf);
	r->rcvbuf = (__u32)BPF_CORE_READ(sk, sk_rcvbuf);
	if (r->family == AF_UNIX) {
		struct sock *peer = BPF_CORE_READ((struct unix_sock *)sk, peer);

		if (peer) {
			r->peer_ino = sock_ino(peer);
			if (!r->peer_ino)
				r->flags |= IPP_FDID_F_PEER_PENDING;
		}
	} else if (r->family == AF_INET || r->family == AF_INET6) {
		r->sport = BPF_CORE_READ(sk, __sk_common.skc_num);
		r->dport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
		if (r->family == AF_INET) {
			BPF_CORE_READ_INTO((__u32 *)r->saddr, sk, __sk_common.skc_rcv_saddr);
			BPF_CORE_READ_INTO((__u32 *)r->daddr, sk, __sk_common.skc_daddr);
		} else {
			/* READ_INTO reads sizeof(*dst): the whole struct, not one byte of it */
			BPF_CORE_READ_INTO((struct in6_addr *)r->saddr, sk, __sk_common.skc_v6_rcv_saddr);
			BPF_CORE_READ_INTO((struct in6_addr *)r->daddr, sk, __sk_common.skc_v6_daddr);
		}
	}
}

/* Where the walk of walk_path() is: the bpf_loop() callback's context. */
struct walk {
	struct dentry *d, *root_d;
	struct vfsmount *vfsmnt, *root_m;
	struct mount *mnt;
	__u32 used;		/* bytes of the path built so far, ending at buf[PATH_END] */
	__u16 flags;
	bool done;
};

/* One dentry up (or one mount down): 0 goes on, 1 stops. */
static long walk_step(__u32 i, struct walk *w)
{
	__u32 zero = 0, len, start, used = w->used;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	/* locals: BPF_CORE_READ(w->x, ...) would relocate struct walk too */
	struct dentry *parent, *mnt_root, *d = w->d;
	struct vfsmount *vfsmnt = w->vfsmnt;
	struct mount *mnt = w->mnt;
	const unsigned char *name;

	if (!s)
		return 1;
	if (d == w->root_d && vfsmnt == w->root_m) {
		w->done = true;
		return 1;
	}
	parent = BPF_CORE_READ(d, d_parent);
	mnt_root = BPF_CORE_READ(vfsmnt, mnt_root);
	if (d == mnt_root) {
		struct mount *up = BPF_CORE_READ(mnt, mnt_parent);

		if (up == mnt) {
			/* the top of the namespace, not the task's root: chroot, or detached */
			w->flags |= IPP_FDID_F_UNREACHABLE;
			w->done = true;
			return 1;
		}
		w->d = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = up;
		w->vfsmnt = (void *)up + bpf_core_field_offset(struct mount, mnt);
		return 0;
	}
	name = BPF_CORE_READ(d, d_name.name);
	len = BPF_CORE_READ(d, d_name.len);
	if (used > IPP_FDID_PATH_MAX - 1 || len > IPP_FDID_PATH_MAX - 2 - used) {
		w->flags |= IPP_FDID_F_PATH_TRUNC;
		return 1;
	}
	start = (PATH_END - used - len - 1) & (IPP_FDID_PATH_MAX - 1);
	s->buf[start] = '/';
	bpf_probe_read_kernel(&s->buf[start + 1], len & (IPP_FDID_PATH_MAX - 1), name);
	w->used = used + len + 1;
	w->d = parent;
	/*
	 * A dentry that is its own parent but no mount's root: a pseudo file's
	 * (memfd_create's, on the kernel's internal shmem mount), whose name is
	 * all of its path, "/memfd:NAME", as /proc gives it (simple_dname).
	 */
	if (d == parent) {
		w->done = true;
		return 1;
	}
	return 0;
}

/*
 * r->path from the dentries of @f up to the task's root, crossing mounts:
 * the kernel's own name of the object, whatever the caller passed (relative,
 * through symlinks or a dirfd, or no path at all: dup, SCM_RIGHTS).
 * Components are put in front of each other, ending at buf[PATH_END]. A
 * bpf_loop() keeps the verifier's work to one step, not PATH_STEPS of them.
 */
static __always_inline void walk_path(struct scratch *s, struct file *f)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct ipp_fdid_rec *r = &s->rec;
	struct walk w = {
		.d = BPF_CORE_READ(f, f_path.dentry),
		.vfsmnt = BPF_CORE_READ(f, f_path.mnt),
		.root_d = BPF_CORE_READ(task, fs, root.dentry),
		.root_m = BPF_CORE_READ(task, fs, root.mnt),
	};
	__u32 used;

	w.mnt = (void *)w.vfsmnt - bpf_core_field_offset(struct mount, mnt);
	bpf_loop(PATH_STEPS, walk_step, &w, 0);
	if (!w.done)
		w.flags |= IPP_FDID_F_PATH_TRUNC;
	r->flags |= w.flags;
	if (w.flags & IPP_FDID_F_PATH_TRUNC)
		count(IPP_FDID_ST_TRUNC);
	used = w.used;
	if (used == 0) {
		r->path[0] = '/';
		used = 1;
	} else {
		used &= IPP_FDID_PATH_MAX - 1;
		bpf_probe_read_kernel(r->path, used, &s->buf[(PATH_END - used) & (IPP_FDID_PATH_MAX - 1)]);
	}
	r->path_len = used;
}

/* The dentry's own name: anon_inode files ("[eventfd]"). */
static __always_inline void dentry_name(struct ipp_fdid_rec *r, struct file *f)
{
	const unsigned char *name = BPF_CORE_READ(f, f_path.dentry, d_name.name);
	long n = bpf_probe_read_kernel_str(r->path, sizeof(r->path), name);

	r->path_len = n > 0 ? n - 1 : 0;
}

static __always_inline void output(void *ctx, struct ipp_fdid_rec *r, __u32 size)
{
	if (size > sizeof(*r))
		size = sizeof(*r);
	r->size = size;
	if (bpf_perf_event_output(ctx, &fdid_out, BPF_F_CURRENT_CPU, r, size) == 0)
		count(IPP_FDID_ST_EMITTED);
	else
		count(IPP_FDID_ST_OUT_FAIL);
}

/* The record of @fd, for call @nr that returned @ret. */
static __noinline int emit_fd(void *ctx, int fd, int nr, long ret, int what)
{
	__u32 zero = 0, size;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct ipp_fdid_rec *r;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct file *f;
	struct inode *inode;
	__u32 mode;

	if (!s)
		return 0;
	r = &s->rec;
	/* an IO record is the first IPP_FDID_REC_IO_SIZE bytes: clear no more for it */
	__builtin_memset(r, 0, IPP_FDID_REC_IO_SIZE);
	if (what != IPP_FDID_IO)
		__builtin_memset((char *)r + IPP_FDID_REC_IO_SIZE, 0,
				 IPP_FDID_REC_HDR_SIZE - IPP_FDID_REC_IO_SIZE);
	r->version = IPP_FDID_REC_VERSION;
	r->what = what;
	r->pid = pid_tgid >> 32;
	r->tid = (__u32)pid_tgid;
	r->fd = fd;
	r->nr = nr;
	r->ret = ret;
	size = what == IPP_FDID_IO ? IPP_FDID_REC_IO_SIZE : IPP_FDID_REC_HDR_SIZE + 1;
	f = fd_file(fd, &r->flags);
	if (!f) {
		count(IPP_FDID_ST_NOFILE);
		r->path[0] = '\0';
		output(ctx, r, size);
		return 0;
	}
	inode = BPF_CORE_READ(f, f_inode);
	mode = BPF_CORE_READ(inode, i_mode);
	r->ino = BPF_CORE_READ(inode, i_ino);
	r->dev = user_dev(BPF_CORE_READ(inode, i_sb, s_dev));
	switch (mode & S_IFMT) {
	case S_IFSOCK:
		r->kind = IPP_FDID_SOCKET;
		break;
	case S_IFIFO:
		r->kind = BPF_CORE_READ(inode, i_sb, s_magic) == PIPEFS_MAGIC ? IPP_FDID_PIPE :
									       IPP_FDID_FIFO;
		break;
	case 0:
		r->kind = IPP_FDID_ANON;
		break;
	default:
		r->kind = IPP_FDID_FILE;
	}
	if (what == IPP_FDID_IO) {
		output(ctx, r, size);
		return 0;
	}
	r->mode = mode;
	r->rdev = (__u32)user_dev(BPF_CORE_READ(inode, i_rdev));
	r->f_flags = BPF_CORE_READ(f, f_flags);
	if (BPF_CORE_READ(inode, __i_nlink) == 0 && r->kind != IPP_FDID_PIPE &&
	    r->kind != IPP_FDID_SOCKET && r->kind != IPP_FDID_ANON)
		r->flags |= IPP_FDID_F_DELETED;
	switch (r->kind) {
	case IPP_FDID_SOCKET:
		sock_info(r, f);
		break;
	case IPP_FDID_PIPE:
	case IPP_FDID_FIFO: {
		struct pipe_inode_info *pipe = BPF_CORE_READ(f, private_data);

		r->capacity = BPF_CORE_READ(pipe, max_usage) * page_size;
		if (r->kind == IPP_FDID_FIFO)
			walk_path(s, f);
		break;
	}
	case IPP_FDID_ANON:
		dentry_name(r, f);
		break;
	default:
		walk_path(s, f);
	}
	r->path[r->path_len & (IPP_FDID_PATH_MAX - 1)] = '\0';
	size = IPP_FDID_REC_HDR_SIZE + (r->path_len & (IPP_FDID_PATH_MAX - 1)) + 1;
	output(ctx, r, size);
	return 0;
}

/* ------------------------------------------------------------------ the fds a call made, at its exit */

/*
 * One sys_exit program (exit_fd, or call_exit when the calls are paired)
 * serves every call: fd_calls says by number what to do. The fds to
 * describe are listed in scratch.fds and emitted by one bpf_loop(), so
 * that emit_fd() and its path walk are verified once, not once per call
 * site (an unrolled SCM_RIGHTS loop cost the verifier 0.6 s).
 */

struct cmsg_hdr {
	__u64 len;
	int level;
	int type;
};

/* Where the walk of the control messages of a recvmsg is (scm_step()'s context). */
struct scm_walk {
	void *control;
	__u64 controllen;
	__u64 off;
	__u32 n;	/* fds listed so far (the IO record's first, if any) */
	__u32 scm;	/* of them, SCM_RIGHTS fds */
};

/* One control message: its SCM_RIGHTS fds listed, at most SCM_MAX_FDS in all. 0 goes on. */
static long scm_step(__u32 i, struct scm_walk *w)
{
	__u32 zero = 0, n = w->n, cnt = 0, nfds;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	__u64 off = w->off;
	struct cmsg_hdr c;

	/* msg_controllen is what the kernel wrote back: the bytes of control data */
	if (!s || off + sizeof(c) > w->controllen ||
	    bpf_probe_read_user(&c, sizeof(c), w->control + off) < 0 || c.len < sizeof(c) ||
	    off + c.len > w->controllen)
		return 1;
	if (c.level == SOL_SOCKET && c.type == SCM_RIGHTS && w->scm < SCM_MAX_FDS) {
		nfds = (c.len - sizeof(c)) / sizeof(int);
		cnt = SCM_MAX_FDS - w->scm;
		if (nfds < cnt)
			cnt = nfds;
		/* a no-op (cnt <= SCM_MAX_FDS) that clang may not drop: bounds for the verifier */
		asm volatile("" : "+r"(cnt));
		cnt &= FDS_MASK;
		if (cnt)
			bpf_probe_read_user(&s->fds[n & FDS_MASK], cnt * sizeof(int),
					    w->control + off + sizeof(c));
	}
	w->n = n + cnt;
	w->scm += cnt;
	w->off = off + ((c.len + 7) & ~7ull);
	return 0;
}

/* recvmsg's SCM_RIGHTS fds, listed after the @n already there. @return how many fds in all. */
static __always_inline __u32 scm_fds(__u32 n)
{
	struct scm_walk w = { .n = n };
	struct user_msghdr msg;

	if (bpf_probe_read_user(&msg, sizeof(msg), (void *)sc_arg(2)) < 0 || !msg.msg_control)
		return n;
	w.control = msg.msg_control;
	w.controllen = msg.msg_controllen;
	bpf_loop(SCM_MAX_CMSGS, scm_step, &w, 0);
	return w.n;
}

/* What emit_step() emits: the listed fds of call @nr that returned @ret (as scratch says). */
struct emit_list {
	void *ctx;
	long ret;
	long nr;
};

static long emit_step(__u32 i, struct emit_list *e)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);

	if (!s)
		return 1;
	emit_fd(e->ctx, s->fds[i & FDS_MASK], (int)e->nr, e->ret,
		i == 0 && s->io_first ? IPP_FDID_IO : s->what);
	return 0;
}

/* The records of call @nr of kind @k (fd_calls) that returned @ret: the caller is a target. */
static __always_inline void fd_exit(void *ctx, long nr, long ret, __u8 k)
{
	struct emit_list e = { .ctx = ctx, .ret = ret, .nr = nr };
	__u32 zero = 0, n = 1;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	unsigned long cmd;

	if (!s)
		return;
	s->what = IPP_FDID_NEW;
	s->io_first = 0;
	switch (k) {
	case IPP_FDID_K_RET:
		if (ret < 0)
			return;
		s->fds[0] = (int)ret;
		break;
	case IPP_FDID_K_FCNTL:
		cmd = sc_arg(2);
		if (ret < 0 || (cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC))
			return;
		s->fds[0] = (int)ret;
		break;
	case IPP_FDID_K_PAIR1:
	case IPP_FDID_K_PAIR4:
		/* the kernel has just written them: the page is there */
		if (ret != 0 || bpf_probe_read_user(s->fds, 2 * sizeof(int),
						    (void *)sc_arg(k == IPP_FDID_K_PAIR1 ? 1 : 4)) < 0)
			return;
		n = 2;
		break;
	case IPP_FDID_K_CONNECT:
		if (ret != 0 && ret != -EINPROGRESS)
			return;
		s->fds[0] = (int)sc_arg(1);
		s->what = IPP_FDID_UPDATE;
		break;
	case IPP_FDID_K_IO:
		s->fds[0] = (int)sc_arg(1);
		s->what = IPP_FDID_IO;
		break;
	case IPP_FDID_K_RECVMSG:
		if (ret < 0)
			return;
		n = 0;
		if (io_records) {
			s->fds[0] = (int)sc_arg(1);
			s->io_first = 1;
			n = 1;
		}
		n = scm_fds(n);
		break;
	default:
		return;
	}
	s->nfds = n;
	if (n)
		bpf_loop(s->nfds, emit_step, &e, 0);
}

/* What the sys_exit program does for call @nr (enum ipp_fdid_call_kind). */
static __always_inline __u8 fd_kind(long nr)
{
	__u32 k = (__u32)nr;
	__u8 *v;

	if (nr < 0 || nr >= IPP_FDID_MAX_NR)
		return IPP_FDID_K_NONE;
	v = bpf_map_lookup_elem(&fd_calls, &k);
	return v ? *v : IPP_FDID_K_NONE;
}

/* ------------------------------------------------------------------ whole calls, paired in the kernel */

/* Whether syscall @nr is set in @map, one of the by-number maps (want, fd_calls). */
static __always_inline bool nr_set(void *map, long nr)
{
	__u32 k = (__u32)nr;
	__u8 *w;

	if (nr < 0 || nr >= IPP_FDID_MAX_NR)
		return false;
	w = bpf_map_lookup_elem(map, &k);
	return w && *w;
}

/*
 * sys_enter of any call on the machine: for a wanted call of a target,
 * keep its arguments and start in the thread's slot. The raw tracepoint:
 * no record is built for anyone, the cheapest hook there is.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(call_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task;
	struct ipp_call_slot *c;
	__u64 pid_tgid;

	if (count_sched && (id == nr_exit || id == nr_exit_group) && !sched_stopped)
		sched_end_call();
	if (!nr_set(&want, id) || calls_stopped)
		return 0;
	pid_tgid = bpf_get_current_pid_tgid();
	/* every other process's calls leave here */
	if (!maybe_target(pid_tgid >> 32))
		return 0;
	task = bpf_get_current_task_btf();
	/* only targets get a slot: a thread that has one needs no look in the targets map */
	c = bpf_task_storage_get(&calls, task, 0, 0);
	if (!c) {
		if (!is_call_target(pid_tgid >> 32))
			return 0;
		c = bpf_task_storage_get(&calls, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!c) {
			count(IPP_FDID_ST_CALLS_FULL);
			return 0;
		}
	}
	/* a slot still in a call: that call's exit was never seen (counted as entered, not done) */
	count(IPP_FDID_ST_ENTERED);
	c->start = bpf_ktime_get_ns();
	c->nr = (__s32)id;
	c->pid = pid_tgid >> 32;
	c->switches = 0;
	c->off_ns = 0;
	c->blocked_ns = 0;
	c->off_cpu = 0;
	/* typed pointers of a BTF tracepoint: plain loads, no helper call */
#if defined(__TARGET_ARCH_x86)
	c->args[0] = regs->di;
	c->args[1] = regs->si;
	c->args[2] = regs->dx;
	c->args[3] = regs->r10;
	c->args[4] = regs->r8;
	c->args[5] = regs->r9;
#elif defined(__TARGET_ARCH_arm64)
	c->args[0] = regs->orig_x0;
	c->args[1] = regs->regs[1];
	c->args[2] = regs->regs[2];
	c->args[3] = regs->regs[3];
	c->args[4] = regs->regs[4];
	c->args[5] = regs->regs[5];
#endif
	c->in_call = 1;
	return 0;
}

/* The syscall number the exit is of, from the registers (what the exit tracepoint says). */
static __always_inline long exit_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return (long)regs->orig_ax;
#elif defined(__TARGET_ARCH_arm64)
	return (long)regs->syscallno;
#else
	return -1;
#endif
}

/*
 * sys_exit: the call record, in place of the two samples. Not attached
 * itself: exit_fd tail-calls it. A call whose
 * enter was not seen (under way when the session began, the child's return
 * from fork) says so and the session pairs it as it would the samples.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(call_exit, struct pt_regs *regs, long ret)
{
	long nr = exit_nr(regs);
	struct ipp_call_rec r;
	struct ipp_call_slot *c = NULL;
	__u64 pid_tgid;

	/* rt_sigreturn restored registers that say "no call": it is the call the slot is in */
	if (nr == -1 && nr_rt_sigreturn >= 0 && nr_set(&want, nr_rt_sigreturn)) {
		c = bpf_task_storage_get(&calls, bpf_get_current_task_btf(), 0, 0);
		if (c && c->in_call && c->nr == nr_rt_sigreturn)
			nr = nr_rt_sigreturn;
	}
	if (!nr_set(&want, nr) || calls_stopped)
		return 0;
	pid_tgid = bpf_get_current_pid_tgid();
	if (!maybe_target(pid_tgid >> 32))
		return 0;
	if (!c)
		c = bpf_task_storage_get(&calls, bpf_get_current_task_btf(), 0, 0);
	if (!c && !is_call_target(pid_tgid >> 32))
		return 0;
	__builtin_memset(&r, 0, sizeof(r));
	r.version = IPP_FDID_REC_VERSION;
	r.size = sizeof(r);
	r.what = IPP_FDID_CALL;
	r.pid = pid_tgid >> 32;
	r.tid = (__u32)pid_tgid;
	r.nr = (__s32)nr;
	r.ret = ret;
	r.end_ns = bpf_ktime_get_ns();
	if (c && c->in_call && c->nr == nr) {
		count(IPP_FDID_ST_DONE);
		r.start_ns = c->start;
		r.args[0] = c->args[0];
		r.args[1] = c->args[1];
		r.args[2] = c->args[2];
		r.args[3] = c->args[3];
		r.args[4] = c->args[4];
		r.args[5] = c->args[5];
		if (pair_switches) {
			r.flags |= IPP_CALL_F_SWITCHES;
			r.switches = c->switches;
			r.off_cpu_ns = c->off_ns;
			r.blocked_ns = c->blocked_ns;
		}
	} else {
		r.flags |= IPP_CALL_F_NO_ENTER;
	}
	if (c)
		c->in_call = 0;
	count(IPP_FDID_ST_CALLS);
	if (bpf_perf_event_output(ctx, &fdid_out, BPF_F_CURRENT_CPU, &r, sizeof(r)) < 0)
		count(IPP_FDID_ST_CALL_FAIL);
	return 0;
}

/*
 * The fds each call of a target made; then, when the calls are paired,
 * call_exit by a tail call: its call record comes after them.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(exit_fd, struct pt_regs *regs, long ret)
{
	long nr = exit_nr(regs);
	__u8 k = fd_kind(nr);

	if (k && is_target())
		fd_exit(ctx, nr, ret, k);
	if (pair_calls)
		bpf_tail_call(ctx, &exit_next, 0);
	return 0;
}

/*
 * Time inside a call spent switched out, as the session's switch records
 * would give it: out when the thread leaves the CPU, back when it returns;
 * preempted (still runnable) or blocked.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(call_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct ipp_call_slot *c = bpf_task_storage_get(&calls, prev, 0, 0);
	__u64 now = 0;

	if (c && c->in_call) {
		now = bpf_ktime_get_ns();
		if (!c->off_cpu)
			c->switches++;
		c->off_cpu = 1;
		c->preempted = preempt || prev_state == 0;
		c->off_since = now;
	}
	c = bpf_task_storage_get(&calls, next, 0, 0);
	if (c && c->in_call && c->off_cpu) {
		__u64 from = c->off_since > c->start ? c->off_since : c->start, d;

		if (!now)
			now = bpf_ktime_get_ns();
		d = now > from ? now - from : 0;
		c->off_cpu = 0;
		c->off_ns += d;
		if (!c->preempted)
			c->blocked_ns += d;
	}
	return 0;
}

/* ------------------------------------------------------------------ scheduling, counted in the kernel */

#define TASK_RTLOCK_WAIT 0x1000
#define TASK_REPORT 0x7f
#define TASK_DEAD 0x0080


/* Write thread @tid's counts (struct ipp_sched_rec). @return 0, or < 0 when the ring had no room. */
static __always_inline long emit_sched(void *ctx, __u32 tid, const struct ipp_sched_slot *t)
{
	struct ipp_sched_rec r;

	__builtin_memset(&r, 0, sizeof(r));
	r.version = IPP_FDID_REC_VERSION;
	r.size = sizeof(r);
	r.what = IPP_FDID_SCHED;
	r.pid = t->pid;
	r.tid = (__s32)tid;
	r.voluntary = t->voluntary;
	r.involuntary = t->involuntary;
	r.wakeups = t->wakeups;
	r.migrations = t->migrations;
	__builtin_memcpy(r.comm, t->comm, sizeof(r.comm));
	r.root = t->root;
	r.acct.runtime_ns = t->last.runtime_ns - t->base.runtime_ns;
	r.acct.faults = t->last.faults - t->base.faults;
	r.acct.switches = t->last.switches - t->base.switches;
	r.acct.migrations = t->last.migrations - t->base.migrations;
	return bpf_perf_event_output(ctx, &fdid_out, BPF_F_CURRENT_CPU, &r, sizeof(r));
}

/*
 * Make @p's entry: counted from now on (the kernel's accounting so far is
 * its base, or 0 for a task being born), for target @root. @return it, or
 * NULL when the map is full.
 */
static __always_inline struct ipp_sched_slot *new_slot(struct task_struct *p, __u32 tid,
						       __s32 root, bool born)
{
	struct ipp_sched_slot init = { .last_cpu = -1, .root = root };

	init.pid = (__s32)BPF_CORE_READ(p, tgid);
	BPF_CORE_READ_STR_INTO(&init.comm, p, comm);
	if (!born)
		read_acct(p, &init.base);
	init.last = init.base;
	if (bpf_map_update_elem(&sched_tot, &tid, &init, BPF_NOEXIST) < 0 &&
	    !bpf_map_lookup_elem(&sched_tot, &tid)) {
		count(IPP_FDID_ST_SCHED_FULL);
		return NULL;
	}
	return bpf_map_lookup_elem(&sched_tot, &tid);
}

/*
 * Task @p's entry in sched_tot, made when it has none and is a target (one
 * that userspace did not seed, born before the counting began). An entry
 * left by an exited thread whose record found no room is written again
 * first: its tid is another thread's now.
 */
static __always_inline struct ipp_sched_slot *sched_slot(void *ctx, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid), tgid;
	struct ipp_sched_slot *t = bpf_map_lookup_elem(&sched_tot, &tid);

	if (t && !t->exited)
		return t;
	if (t) {
		if (emit_sched(ctx, tid, t) < 0)
			count(IPP_FDID_ST_SCHED_LOST);
		bpf_map_delete_elem(&sched_tot, &tid);
	}
	tgid = BPF_CORE_READ(p, tgid);
	if (!is_call_target(tgid))
		return NULL;
	return new_slot(p, tid, (__s32)tgid, false);
}

/*
 * A target thread switched out, counted as the session's sched_switch
 * samples would be: preempted (runnable, the tracepoint's R or R+) or it
 * blocked, and on another CPU than its last switch-out. Its last switch
 * (into TASK_DEAD, which no sample event sees: the thread's are gone by
 * then) is not counted: its counts go in one record, and its entry goes.
 * When the ring has no room the entry stays, marked, to be read at the end.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(sched_count, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 zero = 0, tid;
	struct oncpu *o = bpf_map_lookup_elem(&oncpu, &zero);
	struct ipp_sched_slot *t;
	bool runnable = preempt;
	__s32 cpu;

	if (o) {
		o->at_ns = bpf_ktime_get_ns();
		o->runtime_ns = BPF_CORE_READ(next, se.sum_exec_runtime);
		o->tid = BPF_CORE_READ(next, pid);
	}
	if (sched_stopped || !(t = sched_slot(ctx, prev)))
		return 0;
	read_acct(prev, &t->last);
	if (prev_state & TASK_DEAD) {
		if (t->ended)
			t->last = t->end;	/* as a counter stopped at its exit call */
		else
			t->last.switches--;	/* this one, as a counter does not see it either */
		BPF_CORE_READ_STR_INTO(&t->comm, prev, comm);	/* its name now */
		tid = BPF_CORE_READ(prev, pid);
		if (emit_sched(ctx, tid, t) < 0)
			t->exited = 1;
		else
			bpf_map_delete_elem(&sched_tot, &tid);
		return 0;
	}
	if (t->ended)
		return 0;	/* on its way out since its exit call: as its counters */
	if (!preempt && !(prev_state & (TASK_REPORT | TASK_RTLOCK_WAIT)))
		runnable = !(BPF_CORE_READ(prev, exit_state) & TASK_REPORT);
	if (runnable)
		t->involuntary++;
	else
		t->voluntary++;
	cpu = (__s32)bpf_get_smp_processor_id();
	if (t->last_cpu >= 0 && t->last_cpu != cpu)
		t->migrations++;
	t->last_cpu = cpu;
	return 0;
}

/* A target thread woken (the woken one: the waker may be anybody). */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(sched_woken, struct task_struct *p)
{
	struct ipp_sched_slot *t;

	if (!sched_stopped && (t = sched_slot(ctx, p)) && !t->ended)
		t->wakeups++;
	return 0;
}

/*
 * A counted thread's new thread or process is counted from its first
 * instruction, for the same target (as a counter is inherited at fork).
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_born, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptid = BPF_CORE_READ(parent, pid), ptgid;
	struct ipp_sched_slot *pt = bpf_map_lookup_elem(&sched_tot, &ptid);
	__s32 root;

	if (sched_stopped)
		return 0;
	if (pt && !pt->exited) {
		root = pt->root;
	} else {
		ptgid = BPF_CORE_READ(parent, tgid);
		if (!is_call_target(ptgid))
			return 0;
		root = (__s32)ptgid;
	}
	new_slot(child, BPF_CORE_READ(child, pid), root, true);
	return 0;
}

/*
 * A command's exec renames it just after the kernel enables the counters
 * opened on it (perf_event_exec(), then __set_task_comm() in
 * begin_new_exec()): its counting starts here, as theirs, with its runtime
 * as it is now (not as the kernel last updated it: at its switch-in).
 */
SEC("tp_btf/task_rename")
int BPF_PROG(sched_exec_start, struct task_struct *task, const char *comm)
{
	__u32 tgid = BPF_CORE_READ(task, tgid), tid = BPF_CORE_READ(task, pid);
	__u32 *v = bpf_map_lookup_elem(&targets, &tgid);
	struct ipp_sched_slot *t;

	if (!v || *v != TARGET_AT_EXEC || sched_stopped ||
	    task != bpf_get_current_task_btf() || bpf_map_lookup_elem(&sched_tot, &tid))
		return 0;
	t = new_slot(task, tid, (__s32)tgid, false);
	if (t) {
		read_acct_now(task, tid, &t->base);
		t->last = t->base;
	}
	return 0;
}

/*
 * A command's exec: its calls are paired from here on, as its events
 * switch on at exec (the exec's own exit comes without its enter).
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(call_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = BPF_CORE_READ(p, tgid), zero = 0;
	__u32 *v = bpf_map_lookup_elem(&targets, &tgid);

	if (v && *v == TARGET_AT_EXEC)
		bpf_map_update_elem(&targets, &tgid, &zero, BPF_EXIST);
	return 0;
}

/* ------------------------------------------------------------------ following the targets' children */

/*
 * A new process of a target is a target from its first instruction: a
 * child that lives less than a millisecond would be gone before userspace
 * could add it. Threads need nothing: they share the tgid.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u32 *v, val;

	if (trace_all || !follow_forks || ptgid == ctgid ||
	    !(v = bpf_map_lookup_elem(&targets, &ptgid)))
		return 0;
	val = *v;	/* a child of a command before its exec waits for an exec too */
	mark_target(ctgid, true);
	if (bpf_map_update_elem(&targets, &ctgid, &val, BPF_ANY) == 0)
		count(IPP_FDID_ST_CHILDREN);
	else
		count(IPP_FDID_ST_TARGET_FULL);
	return 0;
}

/* The last thread of a target process exited: its pid may be reused. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *task)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);

	if (trace_all || BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;
	if (bpf_map_delete_elem(&targets, &tgid) == 0) {
		mark_target(tgid, false);
		count(IPP_FDID_ST_GONE);
	}
	return 0;
}
