/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fd identity in the kernel. At the exit of every call that makes an fd,
 * the programs read what the fd is from the kernel's own structures
 * (current->files->fdt->fd[fd]) and write it as a struct ipp_fdid_rec into
 * the bpf-output event of the CPU, whose samples go into the session's ring
 * of that CPU. See lib/bpf/README.md.
 *
 * The programs are BTF tracepoint programs (tp_btf/...), each attached by
 * a BPF link, so ipcperf opens no perf event on any tracepoint (closing one
 * took the kernel 30-70 ms). They run for every hit of their tracepoint on
 * the machine. The sys_exit ones first look up what the call is (fd_calls
 * and want, arrays whose lookups are inlined) and then whether the caller
 * is a target (the targets map, or trace_all). A BTF tracepoint's return
 * value drops nobody's samples.
 *
 * Arguments sys_exit does not carry (the fd of read(), the int[2] of
 * pipe()) come from the task's saved user registers, which the kernel
 * leaves as they were at entry, so there is no sys_enter program and no
 * per-thread map.
 */
#include "common.bpf.h"
#include "agg.bpf.h"

/* Return the kernel's dev_t @kdev (major << 20 | minor) encoded as stat(2) encodes it. */
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

/* Return the inode number of a socket's inode, or 0 when the sock has no socket yet (an embryo). */
static __always_inline __u64 sock_ino(struct sock *sk)
{
	struct socket *sock = BPF_CORE_READ(sk, sk_socket);
	struct inode *inode;

	if (!sock)
		return 0;
	/* As SOCK_INODE() does: the inode follows the socket in struct socket_alloc. */
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
			/*
			 * READ_INTO reads sizeof(*dst), so the cast makes it
			 * read the whole struct, not one byte.
			 */
			BPF_CORE_READ_INTO((struct in6_addr *)r->saddr, sk, __sk_common.skc_v6_rcv_saddr);
			BPF_CORE_READ_INTO((struct in6_addr *)r->daddr, sk, __sk_common.skc_v6_daddr);
		}
	}
}

/* How far walk_path() has come; this is the bpf_loop() callback's context. */
struct walk {
	struct dentry *d, *root_d;
	struct vfsmount *vfsmnt, *root_m;
	struct mount *mnt;
	__u32 used;		/* bytes of the path built so far, ending at buf[PATH_END] */
	__u16 flags;
	bool done;
};

/* Take one step of the walk: one dentry up, or one mount down. Returns 0 to go on, 1 to stop. */
static long walk_step(__u32 i, struct walk *w)
{
	__u32 zero = 0, len, start, used = w->used;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	/* Copy into locals, since BPF_CORE_READ(w->x, ...) would relocate struct walk too. */
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
			/*
			 * The top of the namespace but not the task's root: a
			 * chroot, or a detached mount.
			 */
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
 * Build r->path from the dentries of @f up to the task's root, crossing
 * mounts. This is the kernel's own name of the object, whatever the caller
 * passed (a relative path, one through symlinks or a dirfd, or no path at
 * all, as with dup and SCM_RIGHTS). Components are put in front of each
 * other, ending at buf[PATH_END]. A bpf_loop() keeps the verifier's work to
 * one step, not PATH_STEPS of them.
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

/* Copy the dentry's own name, as for anon_inode files ("[eventfd]"). */
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

/* Write the record of @fd, of kind @what, for call @nr that returned @ret. */
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
	/* An IO record is only the first IPP_FDID_REC_IO_SIZE bytes, so clear no more for it. */
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
 * serves every call, and fd_calls says by number what to do. The fds to
 * describe are listed in scratch.fds and emitted by one bpf_loop(), so
 * that emit_fd() and its path walk are verified once, not once per call
 * site (an unrolled SCM_RIGHTS loop cost the verifier 0.6 s).
 */

struct cmsg_hdr {
	__u64 len;
	int level;
	int type;
};

/* How far the walk of a recvmsg's control messages has come (scm_step()'s context). */
struct scm_walk {
	void *control;
	__u64 controllen;
	__u64 off;
	__u32 n;	/* fds listed so far (the IO record's first, if any) */
	__u32 scm;	/* of them, SCM_RIGHTS fds */
};

/*
 * List the SCM_RIGHTS fds of one control message, at most SCM_MAX_FDS in all.
 * Returns 0 to go on.
 */
static long scm_step(__u32 i, struct scm_walk *w)
{
	__u32 zero = 0, n = w->n, cnt = 0, nfds;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	__u64 off = w->off;
	struct cmsg_hdr c;

	/* msg_controllen is what the kernel wrote back: the bytes of control data. */
	if (!s || off + sizeof(c) > w->controllen ||
	    bpf_probe_read_user(&c, sizeof(c), w->control + off) < 0 || c.len < sizeof(c) ||
	    off + c.len > w->controllen)
		return 1;
	if (c.level == SOL_SOCKET && c.type == SCM_RIGHTS && w->scm < SCM_MAX_FDS) {
		nfds = (c.len - sizeof(c)) / sizeof(int);
		cnt = SCM_MAX_FDS - w->scm;
		if (nfds < cnt)
			cnt = nfds;
		/*
		 * An empty asm (cnt <= SCM_MAX_FDS) that clang may not drop, so
		 * the verifier sees bounds.
		 */
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

/*
 * List recvmsg's SCM_RIGHTS fds after the @n already there. Returns how many
 * fds there are in all.
 */
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

/* What emit_step() needs to emit the fds listed in scratch for call @nr that returned @ret. */
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

/*
 * Write the records of call @nr of kind @k (fd_calls) that returned @ret; the
 * caller is a target.
 */
static __always_inline void fd_exit(void *ctx, long nr, long ret, __u8 k)
{
	struct emit_list e = { .ctx = ctx, .ret = ret, .nr = nr };
	__u32 zero = 0, n = 1;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	unsigned long cmd;

	if (!s)
		return;
	s->nfds = 0;	/* call_exit asks: none of this call's yet */
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
		/* The kernel has just written them, so the page is present. */
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

/* Return what the sys_exit program does for call @nr (enum ipp_fdid_call_kind). */
static __always_inline __u8 fd_kind(long nr)
{
	__u32 k = (__u32)nr;
	__u8 *v;

	if (nr < 0 || nr >= IPP_FDID_MAX_NR)
		return IPP_FDID_K_NONE;
	v = bpf_map_lookup_elem(&fd_calls, &k);
	return v ? *v : IPP_FDID_K_NONE;
}

/*
 * The one program attached to sys_exit. Every call of the machine runs
 * it, so it is as small as a program gets: one page of code, and one page
 * of ipcperf's data, its word of target_bits. On a machine that flushes the
 * TLB at every kernel entry each page touched is a page walk, and a large
 * program's early return jumps to an epilogue pages away. A process that
 * may be a target goes on to exit_fd.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(exit_gate, struct pt_regs *regs, long ret)
{
	if (maybe_target(bpf_get_current_pid_tgid() >> 32))
		bpf_tail_call(ctx, &exit_next, EXIT_NEXT_FD);
	return 0;
}

/*
 * Write the fds each call of a target made. Then, when the calls are
 * paired, go on to call_exit by a tail call, so that the call record comes
 * after them. This program is reached from exit_gate, not attached.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(exit_fd, struct pt_regs *regs, long ret)
{
	long nr = exit_nr(regs);
	__u8 k;

	k = fd_kind(nr);
	if (!k && !pair_calls)
		return 0;
	if (k && is_target())
		fd_exit(ctx, nr, ret, k);
	if (pair_calls)
		bpf_tail_call(ctx, &exit_next, EXIT_NEXT_CALL);
	return 0;
}

/* ------------------------------------------------------------------ following the targets' children */

/*
 * A new process of a target is a target from its first instruction: a
 * child that lives less than a millisecond would be gone before userspace
 * could add it. Threads need nothing, since they share the tgid. The
 * fork's task record comes first, when the session takes them.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u32 *v, val;

	task_record(ctx, IPP_TASK_REC_FORK, parent, ptgid, child, NULL, 0);
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

/*
 * A target's thread exited: write its task record. When it was the last
 * thread, the target leaves the targets map, since its pid may be reused.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *task)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);

	task_record(ctx, IPP_TASK_REC_EXIT, task, tgid, NULL, NULL, 0);
	if (trace_all || !follow_forks || BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;
	/*
	 * Flush its fds' sums, and those on no fd, before its fds close
	 * (exit_files() comes after this tracepoint). After the stop the sums
	 * stay in the map for userspace to read.
	 */
	if (agg_calls && !calls_stopped && maybe_target(tgid) && bpf_map_lookup_elem(&targets, &tgid))
		agg_flush_range(ctx, tgid, -1, 0x7fffffff);
	if (bpf_map_delete_elem(&targets, &tgid) == 0) {
		mark_target(tgid, false);
		__sync_fetch_and_add(&targets_gone, 1);
		count(IPP_FDID_ST_GONE);
	}
	return 0;
}
